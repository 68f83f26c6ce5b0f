// SPDX-License-Identifier: GPL-3.0-or-later
// The partition model of the RDS paper (section 3.1): marks, subregions, passes, cost, order,
// and the texture assignment of saved values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/partition/problem.h"
#include "core/partition/trace.h"

namespace passlab::partition {

// subregion(N): N and, recursively, its unmarked operations; marked operands are restored. Under
// a node with Problem::inline_operands, every operation is a member, marked or not.
// Linear in the subregion. The result is sorted by node id (operands before users).
std::vector<NodeId> subregion(const Problem& p, NodeId n, const std::vector<char>& marked);
// The same, reusing `scratch` (one entry per node, all zero; left all zero) and `out`.
void subregion(const Problem& p, NodeId n, const std::vector<char>& marked, std::vector<char>& scratch,
               std::vector<NodeId>& out);

struct Pass {
  NodeId root = 0;               // the last of `outputs`
  // The saved values the pass writes, in id order, each to its own render target: {root} but in a
  // partition whose passes were merged (multiple render targets, merge.h).
  std::vector<NodeId> outputs;
  std::vector<NodeId> members;   // the subregion (the union of the outputs'), recomputed nodes included
  std::vector<NodeId> restores;  // marked operations the members read
  Resources resources;
  std::string failure;           // VALID's reason when the pass does not fit
};

struct SearchStats {
  long valid_calls = 0;
  long valid_generated = 0;  // VALID answers really generated; the rest were remembered (memo)
  long subdivide_calls = 0;  // top-level Subdivide runs (RDSh 1, RDS 2k + 1)
  long pdt_visits = 0;       // Subdivide calls including the recursive ones
  long nodes_explored = 0;  // optimal search
  long states_merged = 0;   // optimal search: branches closed because their state was seen before
  long floors_proven = 0;   // optimal search: caps proven after the exact search ran out of time
  double milliseconds = 0;
};

struct Partition {
  std::string algorithm;
  std::vector<char> marked;        // one entry per DAG node
  std::vector<Pass> passes;        // in an executable order (operands' passes first; the output's last)
  std::map<NodeId, int> texture;   // saved value -> intermediate texture (graph colouring)
  int intermediate_textures = 0;
  bool valid = false;              // every pass fits
  int texture_fetches = 0;         // over all passes, restores included
  int restores = 0;
  int instructions = 0;            // non-texture instructions over all passes
  int recomputed = 0;              // operations computed in more than one pass (extra copies)
  double cost = 0;
  bool proven_optimal = false;     // optimal search: the best is proven
  // A search that declined the problem says why (a per-pass metric, a shader of several outputs);
  // its passes are then the best partition it was given, neither searched nor proven.
  std::string not_run;
  double lower_bound = 0;          // optimal search: no partition is cheaper than this
  SearchStats stats;
};

// Builds the passes a marking implies (the root is marked automatically), asks the backend for
// each pass's resources, orders the passes, assigns intermediate textures and computes the cost.
// A marked value no pass restores (its readers all compute it: Problem::inline_operands) is
// unmarked first, here and in marking_cost.
Partition make_partition(const Problem& p, Backend& backend, std::vector<char> marked, const CostModel& model);
// The same with passes of several outputs (multiple render targets): each group is the marked
// values one pass writes; a marked value in no group has a pass of its own. A group's pass
// computes the union of its outputs' subregions (a value they share, once). Groups that read each
// other's values in a cycle cannot be ordered: the partition is then not valid, its passes in id
// order with the failure "cycle".
Partition make_partition(const Problem& p, Backend& backend, std::vector<char> marked, const CostModel& model,
                         const std::vector<std::vector<NodeId>>& groups);

// The marked operations each operation of `members` reads without computing it (sorted).
std::vector<NodeId> restores_of(const Problem& p, const std::vector<NodeId>& members, const std::vector<char>& marked);
// The union of the subregions of `outputs` (sorted).
std::vector<NodeId> subregion_of_outputs(const Problem& p, const std::vector<NodeId>& outputs, const std::vector<char>& marked);
// VALID of a pass writing `outputs`: Backend::valid for one, Backend::valid_outputs for more.
Check valid_pass(Backend& backend, const std::vector<NodeId>& outputs, const std::vector<NodeId>& members);

// The cost of a marking without the texture assignment (what searches compare); +inf if a pass
// does not fit.
double marking_cost(const Problem& p, Backend& backend, const std::vector<char>& marked, const CostModel& model);

}  // namespace passlab::partition
