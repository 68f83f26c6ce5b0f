// SPDX-License-Identifier: GPL-3.0-or-later
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
// Branch-free (the VM rounds every result), so a loop over four lanes vectorizes.
inline float round_fp24(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = u & 0x80000000u;
  std::uint32_t r = (u + 0x3Fu + ((u >> 7) & 1u)) & ~0x7Fu;
  // The exponent after rounding (a carry may have raised it): 2^64 and up overflow, below
  // 2^-62 flush, the sign kept; infinities and NaN pass unchanged.
  const std::uint32_t e = (r >> 23) & 0xFFu;
  r = e >= 127u + 64u ? (sign | 0x7F800000u) : r;
  r = e < 127u - 62u ? sign : r;
  r = (u & 0x7F800000u) == 0x7F800000u ? u : r;
  return std::bit_cast<float>(r);
}

// The relative error one rounding may add: half a unit in the 16-bit mantissa's last place.
inline constexpr float kFp24Epsilon = 0x1p-17f;

}  // namespace passlab::rpu
