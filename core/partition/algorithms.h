// SPDX-License-Identifier: GPL-3.0-or-later
// The partitioning algorithms: RDSh, RDS and the exact optimal search.
#pragma once

#include <atomic>
#include <functional>

#include "core/partition/partition.h"

namespace passlab::partition {

struct AlgorithmOptions {
  CostModel model;
  TraceSink* trace = nullptr;  // null: no trace
};

// RDSh (section 3.4): one walk over the partial dominator tree; where a subregion does not fit,
// subdivide the PDT children, decide save/recompute of MR children by the RECOMPUTE heuristic,
// then merge greedily bottom-up. O(n) VALID calls.
Partition rdsh(const Problem& p, Backend& backend, const AlgorithmOptions& options);

// RDS (section 3.5): fixes the MR nodes one at a time, in DAG postorder, to whichever of save or
// recompute gives the cheaper partition (ties recompute), each trial a full Subdivide. 2k
// Subdivides for k MR nodes.
Partition rds(const Problem& p, Backend& backend, const AlgorithmOptions& options);

// RDS, then greedy pass merging of its passes for multiple render targets (merge.h).
Partition rds_merge(const Problem& p, Backend& backend, const AlgorithmOptions& options);

// MRDS (Foley, Houston and Hanrahan 2004): RDS whose trials are priced after pass merging, with
// its own RECOMPUTE and MERGE (mrds.cpp). 2k Subdivides and 2k mergings for k MR nodes; a trial of
// more than kMrdsTrialPasses marks is priced without merging (merging is quadratic in the passes),
// and the result is merged in any case.
inline constexpr long kMrdsTrialPasses = 128;
Partition mrds(const Problem& p, Backend& backend, const AlgorithmOptions& options);

struct OptimalOptions {
  double budget_seconds = 60;
  std::function<void(double fraction_done, double best, double bound)> progress;  // may be empty
  const std::atomic<bool>* cancel = nullptr;
  const Partition* incumbent = nullptr;  // a known partition to start from (e.g. RDS's)
  // The part of the budget the exact search has; if it does not finish, the rest proves ever
  // higher costs that no partition beats (see optimal.cpp).
  double exact_share = 0.1;
  // At most this part of the budget goes to improving the incumbent by simulated annealing
  // when the exact search did not finish in its share (see Search::anneal()). A cap: the walk
  // ends on its moves when it can (Wood/PC2's takes 1.1 to 2.6 s of the 6 s of a 60 s budget,
  // with the machine's speed; at a twentieth it ran out of time at times and ended at 659).
  double anneal_share = 0.1;
  // The transposition table's memory (on Wood about 44 bytes a search state, index included;
  // a 60 s search on PC6 holds about 15 million); when full, it keeps the half nearest the root.
  std::size_t table_bytes = std::size_t{1} << 30;
};

// Exact search over markings (see optimal.cpp for the method and its correctness argument).
// Reports `proven_optimal` when the search space was exhausted, otherwise the best partition
// found within the budget and `lower_bound`, a cost no partition can beat.
Partition optimal(const Problem& p, Backend& backend, const AlgorithmOptions& options, const OptimalOptions& search);

}  // namespace passlab::partition
