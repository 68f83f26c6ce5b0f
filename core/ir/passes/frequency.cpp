// SPDX-License-Identifier: GPL-3.0-or-later
// Frequency: which values are constant, uniform (once per draw) or varying (per fragment).
//
// Operands decide an operation's frequency, with one exception: a phi merges values chosen by
// control flow, so it is varying when a varying branch decides which value arrives, even if
// every incoming value is uniform. Iterates to a fixpoint because phis feed branch conditions.
#include "core/ir/cfg.h"
#include "core/ir/passes/pass.h"

namespace passlab::ir {

namespace {

Freq leaf(const Instr& in) {
  switch (in.op) {
    case Op::Const: case Op::Undef: return Freq::Constant;
    case Op::ShaderParam: return Freq::Uniform;
    // RSL calls `time` uniform, but Passlab supplies it per shading sample (an interpolant on
    // fragment targets, a sample's own time in exact shading): what varies is computed per fragment.
    case Op::Global: return static_cast<lang::Global>(in.aux) == lang::Global::E ? Freq::Uniform : Freq::Varying;
    case Op::Arg: return Freq::Varying;
    default: return Freq::Constant;
  }
}

}  // namespace

void compute_frequency(Function& fn) {
  DomTree dom = dominators(fn);
  for (auto& in : fn.values)
    if (!in.removed) in.freq = Freq::Constant;
  for (bool changed = true; changed;) {
    changed = false;
    for (BlockId b : reverse_postorder(fn)) {
      for (ValueId v : fn.blocks[b].instrs) {
        Instr& in = fn.at(v);
        Freq f = leaf(in);
        for (ValueId a : in.args) f = join(f, fn.at(a).freq);
        if (in.op == Op::Builtin && lang::signature_of(static_cast<lang::Builtin>(in.aux)).derivative) f = Freq::Varying;
        if (in.op == Op::Phi && f != Freq::Varying) {
          // Any varying branch between the immediate dominator and this block decides the phi.
          std::vector<BlockId> work(fn.blocks[b].preds.begin(), fn.blocks[b].preds.end());
          std::vector<char> seen(fn.blocks.size(), 0);
          BlockId top = dom.idom[b];
          while (!work.empty() && f != Freq::Varying) {
            BlockId p = work.back();
            work.pop_back();
            if (p >= fn.blocks.size() || seen[p] || !dom.reachable(p)) continue;
            seen[p] = 1;
            const Instr* t = fn.terminator(p);
            if (t && t->op == Op::CondBr) f = join(f, fn.at(t->args[0]).freq);
            if (p == top) continue;
            for (BlockId q : fn.blocks[p].preds) work.push_back(q);
          }
        }
        if (f != in.freq) {
          in.freq = f;
          changed = true;
        }
      }
    }
  }
}

}  // namespace passlab::ir
