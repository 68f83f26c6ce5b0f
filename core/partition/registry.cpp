// SPDX-License-Identifier: GPL-3.0-or-later
// The list of partitioning algorithms and the glue that gives each one the same signature.
#include "core/partition/registry.h"

#include <cmath>
#include <limits>

namespace passlab::partition {

namespace {

Partition run_rdsh(const Problem& p, Backend& backend, const RunRequest& r) { return rdsh(p, backend, r.options); }

Partition run_rds(const Problem& p, Backend& backend, const RunRequest& r) { return rds(p, backend, r.options); }

Partition run_rds_merge(const Problem& p, Backend& backend, const RunRequest& r) { return rds_merge(p, backend, r.options); }

Partition run_mrds(const Problem& p, Backend& backend, const RunRequest& r) { return mrds(p, backend, r.options); }

// The search starts from the cheapest valid partition it is given; given none, from the cheapest
// of the every-edit heuristics' (on a tie, the one listed first).
Partition run_optimal(const Problem& p, Backend& backend, const RunRequest& r) {
  Partition seed;
  seed.cost = std::numeric_limits<double>::infinity();
  // Only one-output partitions: the search's (one with passes merged for several render targets
  // would be an incumbent no marking can reach, and prune every one).
  auto consider = [&seed](const Partition& q) {
    for (const Pass& pass : q.passes)
      if (pass.outputs.size() > 1) return;
    if (q.valid && q.cost < seed.cost) seed = q;
  };
  if (r.known.empty()) {
    RunRequest quiet;
    quiet.options = r.options;
    quiet.options.trace = nullptr;
    for (const Algorithm& a : algorithms())
      if (a.every_edit && !a.multiple_outputs) consider(a.run(p, backend, quiet));
  } else {
    for (const Partition& q : r.known) consider(q);
  }
  // (On a pseudo-root or a per-pass metric the search declines, giving back the seed: optimal().)
  OptimalOptions search = r.search;
  if (std::isfinite(seed.cost)) search.incumbent = &seed;
  return optimal(p, backend, r.options, search);
}

const Algorithm kAlgorithms[] = {
    {"rdsh", "RDSh", "recursive dominator split, heuristic: one walk of the partial dominator tree (Chan et al. 2002, 3.4)",
     true, true, false, run_rdsh},
    {"rds", "RDS", "recursive dominator split: decides save or recompute for each multiply-referenced node (3.5)",
     true, true, false, run_rds},
    {"rds+merge", "RDS + merge", "RDS, then greedy merging of independent passes into passes of several render targets",
     true, false, false, run_rds_merge, true},
    {"mrds", "MRDS", "RDS pricing each trial after pass merging, for several render targets per pass (Foley et al. 2004)",
     true, true, false, run_mrds, true},
    {"optimal", "Optimal", "exact search over markings within a time budget; proves optimality or bounds the gap",
     false, false, true, run_optimal},
};

}  // namespace

std::span<const Algorithm> algorithms() { return kAlgorithms; }

std::vector<const Algorithm*> algorithms_for(const Limits& limits) {
  std::vector<const Algorithm*> out;
  for (const Algorithm& a : kAlgorithms)
    if (!a.multiple_outputs || limits.render_targets != 1) out.push_back(&a);
  return out;
}

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm& a : kAlgorithms)
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithm_names(std::string_view separator) {
  std::string out;
  for (const Algorithm& a : kAlgorithms) {
    if (!out.empty()) out += separator;
    out += a.name;
  }
  return out;
}

}  // namespace passlab::partition
