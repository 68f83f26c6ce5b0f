// SPDX-License-Identifier: GPL-3.0-or-later
// The list of partitioning algorithms and the glue that gives each one the same signature.
#include "core/partition/registry.h"

#include <cmath>
#include <limits>

namespace passlab::partition {

namespace {

Partition run_rdsh(const Problem& p, Backend& backend, const RunRequest& r) { return rdsh(p, backend, r.options); }

Partition run_rds(const Problem& p, Backend& backend, const RunRequest& r) { return rds(p, backend, r.options); }

// The search starts from the cheapest valid partition it is given; given none, from the cheapest
// of the every-edit heuristics' (on a tie, the one listed first).
Partition run_optimal(const Problem& p, Backend& backend, const RunRequest& r) {
  Partition seed;
  seed.cost = std::numeric_limits<double>::infinity();
  auto consider = [&seed](const Partition& q) {
    if (q.valid && q.cost < seed.cost) seed = q;
  };
  if (r.known.empty()) {
    RunRequest quiet;
    quiet.options = r.options;
    quiet.options.trace = nullptr;
    for (const Algorithm& a : algorithms())
      if (a.every_edit) consider(a.run(p, backend, quiet));
  } else {
    for (const Partition& q : r.known) consider(q);
  }
  OptimalOptions search = r.search;
  if (std::isfinite(seed.cost)) search.incumbent = &seed;
  return optimal(p, backend, r.options, search);
}

const Algorithm kAlgorithms[] = {
    {"rdsh", "RDSh", "recursive dominator split, heuristic: one walk of the partial dominator tree (Chan et al. 2002, 3.4)",
     true, true, false, run_rdsh},
    {"rds", "RDS", "recursive dominator split: decides save or recompute for each multiply-referenced node (3.5)",
     true, true, false, run_rds},
    {"optimal", "Optimal", "exact search over markings within a time budget; proves optimality or bounds the gap",
     false, false, true, run_optimal},
};

}  // namespace

std::span<const Algorithm> algorithms() { return kAlgorithms; }

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
