// SPDX-License-Identifier: GPL-3.0-or-later
// The partitioning problem as the algorithms see it, and the backend's default heuristics.
#include "core/partition/problem.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace passlab::partition {

bool Backend::recompute(const Resources& r) const {
  const Limits& l = limits();
  auto below_half = [](int used, int limit) { return limit == kUnlimited || 2 * used < limit; };
  return below_half(r.operations, l.operations) && below_half(r.registers, l.registers) &&
         below_half(r.textures, l.textures) && below_half(r.interpolants, l.interpolants);
}

std::size_t Backend::merge(const std::vector<Resources>& candidates) const {
  // "Fewest resources" measured against the target: the candidate whose scarcest resource is
  // least used (the largest fraction of any limit), then the smallest total of fractions, then
  // fewest operations, registers, textures, interpolants; then the first.
  const Limits& l = limits();
  auto frac = [](int used, int limit) { return limit == kUnlimited || limit <= 0 ? 0.0 : static_cast<double>(used) / limit; };
  auto key = [&](const Resources& r) {
    double f[] = {frac(r.operations, l.operations), frac(r.registers, l.registers), frac(r.textures, l.textures),
                  frac(r.interpolants, l.interpolants)};
    double worst = 0, sum = 0;
    for (double x : f) {
      worst = std::max(worst, x);
      sum += x;
    }
    return std::make_tuple(worst, sum, r.operations, r.registers, r.textures, r.interpolants);
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i)
    if (key(candidates[i]) < key(candidates[best])) best = i;
  return best;
}

Check Backend::valid_outputs(const std::vector<NodeId>& outputs, const std::vector<NodeId>& members) {
  if (outputs.size() == 1) return valid(outputs.front(), members);
  Check c;
  c.resources.outputs = static_cast<int>(outputs.size());
  c.failure = fmt::format("render_targets: {} > 1", outputs.size());
  return c;
}

}  // namespace passlab::partition
