// SPDX-License-Identifier: GPL-3.0-or-later
// RDSh: one Subdivide over the partial dominator tree with the RECOMPUTE heuristic (section 3.4).
#include <chrono>

#include "core/partition/algorithms.h"
#include "core/partition/memo.h"
#include "core/partition/subdivide.h"

namespace passlab::partition {

Partition rdsh(const Problem& p, Backend& backend, const AlgorithmOptions& options) {
  auto start = std::chrono::steady_clock::now();
  MemoBackend memo(backend);
  Subdivider s(p, memo, options.trace);
  std::vector<char> marks = s.repaired(s.run(std::vector<Fixed>(p.graph.children.size(), Fixed::None)));
  Partition part = make_partition(p, memo, marks, options.model);
  part.algorithm = "RDSh";
  part.stats.subdivide_calls = s.runs();
  part.stats.pdt_visits = s.subdivide_calls();
  part.stats.valid_calls = s.valid_calls();
  part.stats.valid_generated = memo.misses();
  part.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return part;
}

}  // namespace passlab::partition
