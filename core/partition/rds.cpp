// RDS: the limited search over save/recompute decisions (section 3.5).
//
// The MR nodes are taken in DAG postorder. For each, two full Subdivides run, one with the node
// fixed to be saved and one with it fixed to be recomputed (every decision fixed before stays
// fixed), and the cheaper fixing is kept, recompute on ties as the paper's strict `cs < cr` says.
// After the last MR node the partition of its winning trial is the result (Subdivide is
// deterministic, so it is rerun once with every fixing in place). Without MR nodes RDS is one
// Subdivide, the same as RDSh.
#include <chrono>

#include <fmt/format.h>

#include "core/partition/algorithms.h"
#include "core/partition/subdivide.h"

namespace passlab::partition {

Partition rds(const Problem& p, Backend& backend, const AlgorithmOptions& options) {
  auto start = std::chrono::steady_clock::now();
  Subdivider s(p, backend, options.trace);
  std::vector<Fixed> fixed(p.graph.children.size(), Fixed::None);
  long cost_calls = 0;
  auto cost_of = [&](const std::vector<char>& marks) {
    ++cost_calls;
    return marking_cost(p, backend, marks, options.model);
  };
  for (NodeId m = 0; m < fixed.size(); ++m) {  // node ids are a DAG postorder
    if (!s.mr()[m]) continue;
    fixed[m] = Fixed::Save;
    double cs = cost_of(s.run(fixed));
    fixed[m] = Fixed::Recompute;
    double cr = cost_of(s.run(fixed));
    fixed[m] = cs < cr ? Fixed::Save : Fixed::Recompute;
    if (options.trace && options.trace->enabled())
      options.trace->record({EventKind::SearchTrial, {m}, fixed[m] == Fixed::Save, {}, cs, cr,
                             fmt::format("n{}: saving costs {:g}, recomputing costs {:g}: {}", m, cs, cr,
                                         fixed[m] == Fixed::Save ? "save" : "recompute")});
  }
  Partition part = make_partition(p, backend, s.run(fixed), options.model);
  part.algorithm = "RDS";
  part.stats.subdivide_calls = s.subdivide_calls();
  part.stats.valid_calls = s.valid_calls() + cost_calls;  // approximate: cost evaluation asks VALID per pass
  part.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return part;
}

}  // namespace passlab::partition
