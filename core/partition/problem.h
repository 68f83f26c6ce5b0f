// SPDX-License-Identifier: GPL-3.0-or-later
// The partitioning problem as the algorithms see it: a rooted DAG of operations and leaves, and
// a backend that answers the RDS paper's four questions (VALID, COST, RECOMPUTE, MERGE).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dag/dominators.h"
#include "core/partition/target.h"

namespace passlab::partition {

using NodeId = std::uint32_t;

struct Problem {
  dag::Graph graph;           // operand lists; the root is the shader output
  std::vector<char> is_op;    // operations (computed in passes); the rest are free inputs
  std::vector<std::string> labels;  // for traces and listings ("MUL", "TEX pinbase", ...)
  // Optional facts a backend can give the optimal search for stronger bounds (empty: unknown).
  std::vector<int> texture;          // texture fetches: an id per texture name; -1 otherwise
  std::vector<char> is_interpolant;  // leaves that occupy an interpolant
  // Nodes whose operands, and everything under them, are computed in the node's own pass whatever
  // the marks say (empty: none). A marked operand is still saved for its other users. The fp
  // backend's DDX and DDY: the quad partner outside the triangle has no value saved by an earlier
  // pass, so the value a difference takes must be computed next to it.
  std::vector<char> inline_operands;
  // A shader with several outputs (Foley et al. 2004's pseudo-root): the root is not an operation
  // but stands for the outputs, its operands, which are always saved (each written by a pass to a
  // render target of its own, as the root is otherwise); it heads no pass and costs nothing.
  // VALID is never asked about it: its subregion fits exactly when every output is marked.
  bool pseudo_root = false;
};

// VALID's answer: the pass's resources, or why it does not fit.
struct Check {
  bool ok = false;
  Resources resources;
  std::string failure;  // "registers: 5 > 4"
  // A floor on the registers of every pass that holds this subregion below its root (the root
  // unmarked, read by operations outside it): what the backend's schedule must hold at once
  // there, whatever else the pass computes. 0: the backend gives none.
  int member_registers = 0;
  // A memoizing backend's number for the question (root, members): the same asker and number,
  // the same question (a trace then keeps the subregion once). 0: not numbered.
  std::uint32_t asker = 0, question = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Can the operations in `members` (the subregion of `root`, root included) be one pass, with
  // every operation they read that is not a member restored from a saved texture? Decided by
  // generating and allocating the pass. Not constant time: linear in the members.
  virtual Check valid(NodeId root, const std::vector<NodeId>& members) = 0;
  // VALID for a pass that writes several saved values, each to its own render target (multiple
  // render targets): `outputs` in id order, `members` the union of their subregions (sorted).
  // The default takes one output: more break "render_targets" (a backend without MRT).
  virtual Check valid_outputs(const std::vector<NodeId>& outputs, const std::vector<NodeId>& members);
  virtual const Limits& limits() const = 0;
  // The paper's heuristic: recompute when every resource is below half its limit.
  virtual bool recompute(const Resources& r) const;
  // MERGE: the candidate using the fewest resources relative to the limits (the scarcest
  // resource's share first, then the sum of shares), ties by operations, registers, textures,
  // interpolants, then by position (deterministic).
  virtual std::size_t merge(const std::vector<Resources>& candidates) const;
};

}  // namespace passlab::partition
