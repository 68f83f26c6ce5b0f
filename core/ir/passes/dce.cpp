// SPDX-License-Identifier: GPL-3.0-or-later
// Dead-code elimination: values nothing live uses, and blocks the entry cannot reach.
#include "core/ir/cfg.h"
#include "core/ir/passes/pass.h"

namespace passlab::ir {

bool dce(Function& fn, PassStats& stats) {
  bool changed = false;
  // Unreachable blocks first, so their uses do not keep values alive.
  DomTree dom = dominators(fn);
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    if (fn.blocks[b].removed || dom.reachable(b)) continue;
    for (BlockId s : fn.successors(b)) fn.remove_edge(b, s);
    fn.blocks[b].removed = true;
    ++stats["dce.blocks"];
    changed = true;
  }
  fn.compact();
  // Mark from the terminators backwards.
  std::vector<char> live(fn.values.size(), 0);
  std::vector<ValueId> work;
  for (const Block& b : fn.blocks) {
    if (b.removed) continue;
    for (ValueId v : b.instrs)
      if (is_terminator(fn.at(v).op)) {
        live[v] = 1;
        work.push_back(v);
      }
  }
  while (!work.empty()) {
    ValueId v = work.back();
    work.pop_back();
    for (ValueId a : fn.at(v).args)
      if (!live[a]) {
        live[a] = 1;
        work.push_back(a);
      }
  }
  for (ValueId v = 0; v < fn.values.size(); ++v) {
    Instr& in = fn.at(v);
    if (in.removed || live[v]) continue;
    in.removed = true;
    ++stats["dce.values"];
    changed = true;
  }
  fn.compact();
  return changed;
}

}  // namespace passlab::ir
