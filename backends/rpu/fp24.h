// The RPU's 24-bit floating point: 1 sign, 7 exponent and 16 mantissa bits (the thesis says only
// "24-bit, not IEEE 754"; this is the layout of the era's 24-bit shader ALUs, e.g. ATI's R300).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace passlab::rpu {

// Rounds an IEEE single to the nearest 24-bit value (ties to even). Magnitudes from 2^64 up
// overflow to infinity and below 2^-62 flush to zero (no denormals); NaN and infinities pass.
inline float round_fp24(float x) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if (((u >> 23) & 0xFFu) == 0xFFu) return x;
  u += 0x3Fu + ((u >> 7) & 1u);
  u &= ~0x7Fu;
  const float r = std::bit_cast<float>(u);
  const float a = std::fabs(r);
  if (a >= 0x1p64f) return std::copysign(std::numeric_limits<float>::infinity(), r);
  if (a < 0x1p-62f) return std::copysign(0.0f, r);
  return r;
}

// The relative error one rounding may add: half a unit in the 16-bit mantissa's last place.
inline constexpr float kFp24Epsilon = 0x1p-17f;

}  // namespace passlab::rpu
