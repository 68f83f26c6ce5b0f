// SPDX-License-Identifier: GPL-3.0-or-later
// Pass merging for multiple render targets, the "M" of MRDS (Foley, Houston and Hanrahan,
// "Efficient Partitioning of Fragment Shaders for Multiple-Output Hardware", Graphics Hardware
// 2004): passes that do not depend on each other through a third become one pass writing each
// one's values to its own render target.
#pragma once

#include <vector>

#include "core/partition/partition.h"

namespace passlab::partition {

struct Merged {
  std::vector<char> marked;                  // the marks, less the values merging made inline
  std::vector<std::vector<NodeId>> groups;   // the passes' outputs (make_partition's groups)
  double cost = 0;                           // of the merged passes; +inf when a pass does not fit
  int merges = 0;
};

// Greedy pass merging of the partition `marked` makes. Two passes A and B may merge when no path
// of the pass graph leads from one to the other through a third pass (a direct read is fine: the
// value is then a register of the merged pass), and the merged pass, the union of their outputs'
// subregions, fits (the target's render_targets included). A value the merged pass writes that
// no other pass restores, and that is not the shader's output, is no longer saved: it is
// computed inline and unmarked. A merge's score is cost(A) + cost(B) - cost(merged) under the
// model's per-pass cost; every pair with a score of at least 0 is scored once, best first (ties
// by the passes' roots), and applied greedily, each re-checked against the passes as they are
// when its turn comes (the current passes holding A's and B's roots). Quadratic in the passes,
// each pair one VALID of the merged pass.
Merged merge_passes(const Problem& p, Backend& backend, const std::vector<char>& marked, const CostModel& model);

}  // namespace passlab::partition
