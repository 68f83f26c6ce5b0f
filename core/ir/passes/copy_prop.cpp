// SPDX-License-Identifier: GPL-3.0-or-later
// Copy propagation: trivial phis, converts to the same type and selects of one value vanish.
#include "core/ir/passes/pass.h"

namespace passlab::ir {

namespace {

// The value an instruction merely copies, or kNoValue.
ValueId copied(const Function& fn, ValueId v) {
  const Instr& in = fn.at(v);
  switch (in.op) {
    case Op::Phi: {
      ValueId same = kNoValue;
      for (ValueId a : in.args) {
        if (a == v || a == same) continue;
        if (same != kNoValue) return kNoValue;
        same = a;
      }
      return same;  // kNoValue for a phi of only itself: left for DCE
    }
    case Op::Convert:
      return fn.at(in.args[0]).type == in.type ? in.args[0] : kNoValue;
    case Op::Select:
      return in.args[1] == in.args[2] ? in.args[1] : kNoValue;
    default: return kNoValue;
  }
}

}  // namespace

bool copy_propagate(Function& fn, PassStats& stats) {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    for (ValueId v = 0; v < fn.values.size(); ++v) {
      if (fn.at(v).removed) continue;
      ValueId to = copied(fn, v);
      if (to == kNoValue || fn.at(to).type != fn.at(v).type) continue;
      fn.replace_all_uses(v, to);
      fn.at(v).removed = true;
      ++stats["copyprop.removed"];
      again = changed = true;
    }
  }
  fn.compact();
  return changed;
}

}  // namespace passlab::ir
