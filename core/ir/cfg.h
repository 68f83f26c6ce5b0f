// SPDX-License-Identifier: GPL-3.0-or-later
// Control-flow analyses of a Function: reverse postorder and dominators.
#pragma once

#include <vector>

#include "core/ir/ir.h"

namespace passlab::ir {

// Blocks reachable from the entry in reverse postorder (successor order as in terminators).
std::vector<BlockId> reverse_postorder(const Function& fn);

// Immediate dominators by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm", 2001). idom[entry] == entry; unreachable blocks get kNoBlock. O(n^2) worst
// case, near-linear on the reducible CFGs lowering produces.
constexpr BlockId kNoBlock = static_cast<BlockId>(-1);
struct DomTree {
  std::vector<BlockId> idom;
  std::vector<int> rpo_index;  // position in reverse postorder, -1 if unreachable
  bool dominates(BlockId a, BlockId b) const;
  bool reachable(BlockId b) const { return b < rpo_index.size() && rpo_index[b] >= 0; }
};
DomTree dominators(const Function& fn);

}  // namespace passlab::ir
