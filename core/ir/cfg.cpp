// SPDX-License-Identifier: GPL-3.0-or-later
// Control-flow analyses of a Function: reverse postorder and dominators.
#include "core/ir/cfg.h"

#include <algorithm>

namespace passlab::ir {

std::vector<BlockId> reverse_postorder(const Function& fn) {
  std::vector<BlockId> order;
  if (fn.blocks.empty()) return order;
  std::vector<char> seen(fn.blocks.size(), 0);
  // Iterative DFS: (block, next successor index).
  std::vector<std::pair<BlockId, std::size_t>> stack{{0, 0}};
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [b, i] = stack.back();
    std::vector<BlockId> succ = fn.successors(b);
    if (i < succ.size()) {
      BlockId s = succ[i++];
      if (s < fn.blocks.size() && !seen[s] && !fn.blocks[s].removed) {
        seen[s] = 1;
        stack.push_back({s, 0});
      }
    } else {
      order.push_back(b);
      stack.pop_back();
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

bool DomTree::dominates(BlockId a, BlockId b) const {
  if (!reachable(a) || !reachable(b)) return false;
  while (true) {
    if (a == b) return true;
    BlockId up = idom[b];
    if (up == b) return false;
    b = up;
  }
}

DomTree dominators(const Function& fn) {
  DomTree t;
  std::vector<BlockId> rpo = reverse_postorder(fn);
  t.idom.assign(fn.blocks.size(), kNoBlock);
  t.rpo_index.assign(fn.blocks.size(), -1);
  for (std::size_t i = 0; i < rpo.size(); ++i) t.rpo_index[rpo[i]] = static_cast<int>(i);
  if (rpo.empty()) return t;
  t.idom[rpo[0]] = rpo[0];
  auto intersect = [&](BlockId a, BlockId b) {
    while (a != b) {
      while (t.rpo_index[a] > t.rpo_index[b]) a = t.idom[a];
      while (t.rpo_index[b] > t.rpo_index[a]) b = t.idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 1; i < rpo.size(); ++i) {
      BlockId b = rpo[i];
      BlockId nd = kNoBlock;
      for (BlockId p : fn.blocks[b].preds) {
        if (t.rpo_index[p] < 0 || t.idom[p] == kNoBlock) continue;
        nd = nd == kNoBlock ? p : intersect(p, nd);
      }
      if (nd != kNoBlock && t.idom[b] != nd) {
        t.idom[b] = nd;
        changed = true;
      }
    }
  }
  return t;
}

}  // namespace passlab::ir
