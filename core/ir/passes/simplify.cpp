// SPDX-License-Identifier: GPL-3.0-or-later
// Algebraic simplification: identities that hold bit for bit in IEEE arithmetic.
//
// Only identities exact for every float, NaN, infinities and signed zeros included: x*1, 1*x,
// x/1, x-(+0), -(-x), !!x, pow(x,1). x+0 is not one (-0 + +0 is +0), nor is x*0 (NaN, inf).
#include <cstring>

#include "core/ir/passes/pass.h"

namespace passlab::ir {

namespace {

// Bitwise: x - (+0) is x for every x, but x - (-0) turns -0 into +0.
bool is_const(const Function& fn, ValueId v, float x) {
  const Instr& in = fn.at(v);
  if (in.op != Op::Const || in.type == BaseType::String || in.data.empty()) return false;
  for (float d : in.data)
    if (std::memcmp(&d, &x, sizeof(float)) != 0) return false;
  return true;
}

// A float constant splatted to a triple is the same constant for our purposes.
bool is_scalar_const(const Function& fn, ValueId v, float x) {
  if (is_const(fn, v, x)) return true;
  const Instr& in = fn.at(v);
  return in.op == Op::Convert && is_const(fn, in.args[0], x) && fn.at(in.args[0]).type == BaseType::Float;
}

}  // namespace

bool simplify(Function& fn, PassStats& stats) {
  bool changed = false;
  for (ValueId v = 0; v < fn.values.size(); ++v) {
    Instr& in = fn.at(v);
    if (in.removed) continue;
    ValueId to = kNoValue;
    switch (in.op) {
      case Op::Mul:
        if (is_scalar_const(fn, in.args[1], 1) && fn.at(in.args[0]).type == in.type) to = in.args[0];
        else if (is_scalar_const(fn, in.args[0], 1) && fn.at(in.args[1]).type == in.type) to = in.args[1];
        break;
      case Op::Div:
      case Op::Sub:
        if (is_scalar_const(fn, in.args[1], in.op == Op::Div ? 1.0f : 0.0f) && fn.at(in.args[0]).type == in.type) to = in.args[0];
        break;
      case Op::Neg:
        if (fn.at(in.args[0]).op == Op::Neg) to = fn.at(in.args[0]).args[0];
        break;
      case Op::Not:
        if (fn.at(in.args[0]).op == Op::Not) to = fn.at(in.args[0]).args[0];
        break;
      case Op::Builtin:
        if (static_cast<lang::Builtin>(in.aux) == lang::Builtin::Pow && is_const(fn, in.args[1], 1)) to = in.args[0];
        break;
      default: break;
    }
    if (to != kNoValue && to != v && fn.at(to).type == in.type) {
      fn.replace_all_uses(v, to);
      in.removed = true;
      ++stats["simplify.identities"];
      changed = true;
      continue;
    }
    // x * -1 -> -x ; x + (-y) -> x - y: fewer operations for every backend.
    if (in.op == Op::Mul && is_scalar_const(fn, in.args[1], -1) && fn.at(in.args[0]).type == in.type) {
      in.op = Op::Neg;
      in.args = {in.args[0]};
      ++stats["simplify.strength"];
      changed = true;
    } else if (in.op == Op::Add && fn.at(in.args[1]).op == Op::Neg && fn.at(in.args[1]).type == in.type) {
      in.op = Op::Sub;
      in.args[1] = fn.at(in.args[1]).args[0];
      ++stats["simplify.strength"];
      changed = true;
    }
  }
  fn.compact();
  return changed;
}

}  // namespace passlab::ir
