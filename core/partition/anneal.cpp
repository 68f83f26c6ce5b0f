// Simulated annealing over markings (see anneal.h).
#include "core/partition/anneal.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace passlab::partition {

double anneal(const Problem& p, Backend& backend, const CostModel& model, std::vector<char>& marks, double cost,
              const AnnealOptions& options) {
  // The operations that may change marks (the root stays marked), each with its distinct
  // operand operations.
  std::vector<NodeId> ops;
  std::vector<std::vector<NodeId>> kids(p.graph.children.size());
  for (NodeId n = 0; n < p.graph.children.size(); ++n) {
    if (!p.is_op[n] || n == p.graph.root) continue;
    ops.push_back(n);
    for (NodeId c : p.graph.children[n])
      if (p.is_op[c] && std::find(kids[n].begin(), kids[n].end(), c) == kids[n].end()) kids[n].push_back(c);
  }
  if (ops.empty() || !std::isfinite(cost)) return cost;
  std::mt19937_64 rng(0x5eedu);
  auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<char> current = marks;
  double current_cost = cost;
  // The starting temperature: 1% of the cost, and at least half a pass, a fetch and an
  // instruction (a move's usual price), so that a small DAG's walk can climb too.
  const double t0 = std::max(0.01 * cost, 0.5 * (model.per_pass + model.per_texture + model.per_instruction));
  const auto start = std::chrono::steady_clock::now();
  const double span = std::chrono::duration<double>(options.end - start).count();
  const double steps = options.steps_per_operation * static_cast<double>(ops.size());
  double temperature = t0;
  for (long step = 0;; ++step) {
    if ((step & 63) == 0) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double done = std::max(span > 0 ? elapsed / span : 1.0, static_cast<double>(step) / steps);
      if (done >= 1 || (options.cancel && options.cancel->load())) break;
      temperature = t0 * (1 - done);
    }
    const NodeId a = ops[rng() % ops.size()];
    NodeId b = a;
    if (!kids[a].empty() && (rng() & 1)) b = kids[a][rng() % kids[a].size()];
    current[a] ^= 1;
    if (b != a) current[b] ^= 1;
    const double c = marking_cost(p, backend, current, model);
    if (c <= current_cost || (std::isfinite(c) && temperature > 0 && uniform() < std::exp((current_cost - c) / temperature))) {
      current_cost = c;
      if (c < cost - 1e-9) {
        cost = c;
        marks = current;
      }
      continue;
    }
    current[a] ^= 1;
    if (b != a) current[b] ^= 1;
  }
  marks[p.graph.root] = 1;
  return cost;
}

}  // namespace passlab::partition
