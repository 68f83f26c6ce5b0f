// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU's arithmetic, shared by the VM and the compiler's constant folding so that a folded
// operation gives exactly what executing it would.
#pragma once

#include <cmath>

#include "backends/rpu/fp24.h"
#include "backends/rpu/isa.h"

namespace passlab::rpu {

inline float dot_lanes(const Vec4& a, const Vec4& b, int n) {
  float s = a[0] * b[0];
  for (int i = 1; i < n; ++i) s += a[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(i)];
  return s;
}

// An arithmetic operation's result, every lane (the write mask applies later), rounded to 24
// bits when kFp24, then saturated when `sat`. Always inlined: the result stays in registers.
template <bool kFp24>
[[gnu::always_inline]] inline Vec4 compute(Opcode op, bool sat, const Vec4& a, const Vec4& b, const Vec4& c) {
  Vec4 r;
  switch (op) {
    case Opcode::Mov: r = a; break;
    case Opcode::Frac:
      for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] - std::floor(a[i]);
      break;
    case Opcode::Add:
      for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] + b[i];
      break;
    case Opcode::Mul:
      for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] * b[i];
      break;
    case Opcode::Mad:
      for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] * b[i] + c[i];
      break;
    case Opcode::Dp2h: {
      const float v = a[0] * b[0] + a[1] * b[1] + a[2];
      r = {v, v, v, v};
      break;
    }
    case Opcode::Dp3: {
      const float v = dot_lanes(a, b, 3);
      r = {v, v, v, v};
      break;
    }
    case Opcode::Dp3h: {
      const float v = dot_lanes(a, b, 3) + a[3];
      r = {v, v, v, v};
      break;
    }
    case Opcode::Dp4: {
      const float v = dot_lanes(a, b, 4);
      r = {v, v, v, v};
      break;
    }
    default: r = a; break;
  }
  if constexpr (kFp24)
    for (float& x : r) x = round_fp24(x);
  if (sat)
    for (float& x : r) x = x > 0 ? (x < 1 ? x : 1.0f) : 0.0f;  // NaN saturates to 0
  return r;
}

inline Vec4 compute(bool fp24, Opcode op, bool sat, const Vec4& a, const Vec4& b, const Vec4& c) {
  return fp24 ? compute<true>(op, sat, a, b, c) : compute<false>(op, sat, a, b, c);
}

// What _rcp/_rsq puts in S, from the result's w lane.
inline float special_result(bool fp24, SpecialFn fn, float w) {
  const float s = fn == SpecialFn::Rcp ? 1.0f / w : 1.0f / std::sqrt(w);
  return fp24 ? round_fp24(s) : s;
}

}  // namespace passlab::rpu
