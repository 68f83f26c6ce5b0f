// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ir/derivatives.h"

#include <algorithm>
#include <cmath>

namespace passlab::ir {

namespace {

using B = lang::Builtin;

int lanes(const Value& v) { return std::max(1, lang::component_count(v.type)); }

// Du (along u) or Dv of operand k, component by component.
Value partial(bool along_u, BaseType type, const Value& here, const Value& right, const Value& below, const ParameterSteps& p) {
  Value r = Value::zero(type);
  const float det = p.ux * p.vy - p.uy * p.vx;
  for (int i = 0; i < lanes(here); ++i) {
    const auto c = static_cast<std::size_t>(i);
    const float x = right.f[c] - here.f[c], y = below.f[c] - here.f[c];
    r.f[c] = along_u ? (x * p.vy - y * p.vx) / det : (p.ux * y - p.uy * x) / det;
  }
  return r;
}

Value cross(const Value& a, const Value& b, BaseType type) {
  return Value::triple(type, a.f[1] * b.f[2] - a.f[2] * b.f[1], a.f[2] * b.f[0] - a.f[0] * b.f[2], a.f[0] * b.f[1] - a.f[1] * b.f[0]);
}

}  // namespace

Value derivative(lang::Builtin id, BaseType type, const std::vector<Value>& here, const std::vector<Value>& right,
                 const std::vector<Value>& below, const ParameterSteps& steps, float du, float dv) {
  switch (id) {
    case B::Du:
    case B::Dv: return partial(id == B::Du, type, here[0], right[0], below[0], steps);
    case B::Deriv: {
      const Value nu = partial(true, type, here[0], right[0], below[0], steps), nv = partial(false, type, here[0], right[0], below[0], steps);
      const Value eu = partial(true, BaseType::Float, here[1], right[1], below[1], steps);
      const Value ev = partial(false, BaseType::Float, here[1], right[1], below[1], steps);
      Value r = Value::zero(type);
      for (int i = 0; i < lanes(here[0]); ++i) {
        const auto c = static_cast<std::size_t>(i);
        r.f[c] = (eu.f[0] != 0 ? nu.f[c] / eu.f[0] : 0.0f) + (ev.f[0] != 0 ? nv.f[c] / ev.f[0] : 0.0f);
      }
      return r;
    }
    case B::Area:
    case B::Calculatenormal: {
      Value pu = partial(true, BaseType::Vector, here[0], right[0], below[0], steps);
      Value pv = partial(false, BaseType::Vector, here[0], right[0], below[0], steps);
      if (id == B::Calculatenormal) return cross(pu, pv, type);
      for (int i = 0; i < 3; ++i) {
        pu.f[static_cast<std::size_t>(i)] *= du;
        pv.f[static_cast<std::size_t>(i)] *= dv;
      }
      const Value n = cross(pu, pv, BaseType::Vector);
      return Value::scalar(std::sqrt(n.f[0] * n.f[0] + n.f[1] * n.f[1] + n.f[2] * n.f[2]));
    }
    default: return Value::zero(type);
  }
}

}  // namespace passlab::ir
