// SPDX-License-Identifier: GPL-3.0-or-later
// The generic fragment ISA: ARB_fragment_program-style instructions on 4-component registers.
#include "backends/fp/isa.h"

#include <cmath>

namespace passlab::fp {

const char* to_string(Opcode op) {
  static constexpr const char* names[] = {"MOV", "ADD", "SUB", "MUL", "MAD", "DP3", "DP4", "DPH", "MIN",
                                          "MAX", "SLT", "SGE", "RCP", "RSQ", "EX2", "LG2", "POW", "FRC",
                                          "FLR", "CMP", "LRP", "XPD", "SIN", "COS", "ABS", "TEX", "DDX", "DDY"};
  return names[static_cast<int>(op)];
}

int source_count(Opcode op) {
  switch (op) {
    case Opcode::MOV: case Opcode::RCP: case Opcode::RSQ: case Opcode::EX2: case Opcode::LG2:
    case Opcode::FRC: case Opcode::FLR: case Opcode::SIN: case Opcode::COS: case Opcode::ABS: case Opcode::TEX:
    case Opcode::DDX: case Opcode::DDY:
      return 1;
    case Opcode::MAD: case Opcode::CMP: case Opcode::LRP: return 3;
    default: return 2;
  }
}

bool is_scalar(Opcode op) {
  switch (op) {
    case Opcode::RCP: case Opcode::RSQ: case Opcode::EX2: case Opcode::LG2: case Opcode::POW:
    case Opcode::SIN: case Opcode::COS:
      return true;
    default: return false;
  }
}

Swizzle Swizzle::then(const Swizzle& inner) const {
  Swizzle s;
  for (int i = 0; i < 4; ++i) s.lane[i] = inner.lane[lane[i]];
  return s;
}

std::string Swizzle::text() const {
  if (is_identity()) return "";
  static const char* xyzw = "xyzw";
  std::string s = ".";
  for (int i = 0; i < 4; ++i) s += xyzw[lane[i]];
  if (lane[0] == lane[1] && lane[1] == lane[2] && lane[2] == lane[3]) s = std::string(".") + xyzw[lane[0]];
  return s;
}

Vec4 execute(Opcode op, const Vec4& a, const Vec4& b, const Vec4& c) {
  Vec4 r{};
  auto each = [&](auto fn) {
    for (int i = 0; i < 4; ++i) r[i] = fn(i);
    return r;
  };
  auto splat = [&](float x) { return Vec4{x, x, x, x}; };
  switch (op) {
    case Opcode::MOV: return a;
    case Opcode::ADD: return each([&](int i) { return a[i] + b[i]; });
    case Opcode::SUB: return each([&](int i) { return a[i] - b[i]; });
    case Opcode::MUL: return each([&](int i) { return a[i] * b[i]; });
    case Opcode::MAD: return each([&](int i) { return a[i] * b[i] + c[i]; });
    case Opcode::DP3: return splat(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
    case Opcode::DP4: return splat(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    case Opcode::DPH: return splat(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + b[3]);
    case Opcode::MIN: return each([&](int i) { return min_num(a[i], b[i]); });
    case Opcode::MAX: return each([&](int i) { return max_num(a[i], b[i]); });
    case Opcode::SLT: return each([&](int i) { return a[i] < b[i] ? 1.0f : 0.0f; });
    case Opcode::SGE: return each([&](int i) { return a[i] >= b[i] ? 1.0f : 0.0f; });
    case Opcode::RCP: return splat(1.0f / a[0]);
    case Opcode::RSQ: return splat(1.0f / std::sqrt(a[0]));
    case Opcode::EX2: return splat(std::exp2(a[0]));
    case Opcode::LG2: return splat(std::log2(a[0]));
    case Opcode::POW: return splat(std::pow(a[0], b[0]));
    case Opcode::FRC: return each([&](int i) { return a[i] - std::floor(a[i]); });
    case Opcode::FLR: return each([&](int i) { return std::floor(a[i]); });
    case Opcode::CMP: return each([&](int i) { return a[i] < 0 ? b[i] : c[i]; });
    case Opcode::LRP: return each([&](int i) { return a[i] * b[i] + (1 - a[i]) * c[i]; });
    case Opcode::XPD: return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0], 0};
    case Opcode::SIN: return splat(std::sin(a[0]));
    case Opcode::COS: return splat(std::cos(a[0]));
    case Opcode::ABS: return each([&](int i) { return std::fabs(a[i]); });
    case Opcode::TEX: return a;  // sampling is done by the caller, which knows the texture
    case Opcode::DDX:
    case Opcode::DDY: return a;  // so is differencing, which needs the quad partner's value
  }
  return r;
}

}  // namespace passlab::fp
