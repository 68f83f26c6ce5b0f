// SPDX-License-Identifier: GPL-3.0-or-later
// MRDS and RDS followed by pass merging: partitioning for multiple render targets (Foley,
// Houston and Hanrahan, "Efficient Partitioning of Fragment Shaders for Multiple-Output
// Hardware", Graphics Hardware 2004).
//
// MRDS is RDS (rds.cpp) with three changes the MRDS implementation made:
// - a trial's cost is that of its partition after pass merging (merge.h), so a save is chosen
//   where the merged passes make it cheap, which RDS's one-output prices cannot see;
// - RECOMPUTE: recompute when the texture units and the operations each use at most 3/4 of their
//   limits (RDS: every resource below half);
// - MERGE: among the operand subsets of the largest size that fit, the one whose pass costs least
//   under the cost model (RDS: the fewest resources).
// Decided against the implementation's quirks: every MR node gets its two trials (its pruning,
// which could skip them all, is left out), and the partition returned is the cheapest any trial
// produced, rebuilt and merged again (as RDS returns its cheapest trial), not the last trial run.
#include <algorithm>
#include <chrono>

#include "core/partition/algorithms.h"
#include "core/partition/merge.h"
#include "core/partition/rds_search.h"

namespace passlab::partition {

namespace {

// The backend with MRDS's RECOMPUTE and MERGE.
class MrdsBackend : public Backend {
 public:
  MrdsBackend(Backend& inner, const CostModel& model) : inner_(inner), model_(model) {}
  Check valid(NodeId root, const std::vector<NodeId>& members) override { return inner_.valid(root, members); }
  Check valid_outputs(const std::vector<NodeId>& outputs, const std::vector<NodeId>& members) override {
    return inner_.valid_outputs(outputs, members);
  }
  const Limits& limits() const override { return inner_.limits(); }
  bool recompute(const Resources& r) const override {
    const Limits& l = limits();
    auto within = [](int used, int limit) { return limit == kUnlimited || 4 * used <= 3 * limit; };
    return within(r.textures, l.textures) && within(r.operations, l.operations);
  }
  std::size_t merge(const std::vector<Resources>& candidates) const override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < candidates.size(); ++i)
      if (pass_cost(candidates[i]) < pass_cost(candidates[best])) best = i;
    return best;
  }

 private:
  double pass_cost(const Resources& r) const { return model_.pass_cost(r.texture_fetches, r.arithmetic, 1); }
  Backend& inner_;
  const CostModel& model_;
};

Partition merged_partition(const Problem& p, Backend& backend, const std::vector<char>& marks, const CostModel& model) {
  const Merged m = merge_passes(p, backend, marks, model);
  return make_partition(p, backend, m.marked, model, m.groups);
}

}  // namespace

Partition rds_merge(const Problem& p, Backend& backend, const AlgorithmOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Partition single = rds(p, backend, options);
  Partition part = merged_partition(p, backend, single.marked, options.model);
  part.algorithm = "RDS + merge";
  part.stats = single.stats;
  part.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return part;
}

Partition mrds(const Problem& p, Backend& backend, const AlgorithmOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  MrdsBackend mb(backend, options.model);
  const Partition best = rds_search(p, mb, options, [&](Backend& memo, const std::vector<char>& marks) {
    // Merging a trial of P passes asks about P^2 / 2 pairs: past kMrdsTrialPasses a trial is priced
    // as RDS prices it (a generated shader of 1,062 passes took 8 minutes priced after merging).
    if (std::count(marks.begin(), marks.end(), 1) > kMrdsTrialPasses) return marking_cost(p, memo, marks, options.model);
    return merge_passes(p, memo, marks, options.model).cost;
  });
  Partition part = merged_partition(p, backend, best.marked, options.model);
  part.algorithm = "MRDS";
  part.stats = best.stats;
  part.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return part;
}

}  // namespace passlab::partition
