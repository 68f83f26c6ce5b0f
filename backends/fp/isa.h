// SPDX-License-Identifier: GPL-3.0-or-later
// The generic fragment ISA: ARB_fragment_program-style instructions on 4-component registers.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace passlab::fp {

enum class Opcode : std::uint8_t {
  MOV, ADD, SUB, MUL, MAD, DP3, DP4, DPH, MIN, MAX, SLT, SGE, RCP, RSQ, EX2, LG2, POW,
  FRC, FLR, CMP, LRP, XPD, SIN, COS, ABS, TEX,
  // NV_fragment_program's and ps_2_x's differences across the 2x2 quad: the operand's value on
  // the pixel pair's other pixel, right or left (DDX), below or above (DDY), minus here. Like TEX,
  // their value is the caller's to compute (it needs the quad partner's: fp::evaluate_all).
  DDX, DDY,
};
const char* to_string(Opcode op);
int source_count(Opcode op);
// Scalar instructions read the x component of their sources and replicate the result.
bool is_scalar(Opcode op);

// A source operand: a value, a swizzle and an optional negation (free on this ISA).
struct Swizzle {
  std::array<std::uint8_t, 4> lane{0, 1, 2, 3};
  static Swizzle identity() { return {}; }
  static Swizzle splat(std::uint8_t c) { return {{c, c, c, c}}; }
  bool is_identity() const { return lane == std::array<std::uint8_t, 4>{0, 1, 2, 3}; }
  Swizzle then(const Swizzle& inner) const;  // this swizzle applied to a value already swizzled by inner
  std::string text() const;                  // "" for identity, ".xxxx", ".y" ...
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
  friend auto operator<=>(const Swizzle&, const Swizzle&) = default;
};

using Vec4 = std::array<float, 4>;

// MIN and MAX as IEEE minNum/maxNum (a NaN operand gives the other one), and _SAT; inline so that
// batch evaluation (pass_shader.cpp) computes exactly what execute() does.
inline float min_num(float a, float b) { return (a < b || b != b) ? a : b; }
inline float max_num(float a, float b) { return (a > b || b != b) ? a : b; }
inline float saturate(float x) { return min_num(max_num(x, 0.0f), 1.0f); }  // NaN saturates to 0

// Evaluates one instruction on already-swizzled, already-negated source values.
Vec4 execute(Opcode op, const Vec4& a, const Vec4& b, const Vec4& c);

}  // namespace passlab::fp
