// The partitioning problem as the algorithms see it, and the backend's default heuristics.
#include "core/partition/problem.h"

#include <tuple>

namespace passlab::partition {

bool Backend::recompute(const Resources& r) const {
  const Limits& l = limits();
  auto below_half = [](int used, int limit) { return limit == kUnlimited || 2 * used < limit; };
  return below_half(r.operations, l.operations) && below_half(r.registers, l.registers) &&
         below_half(r.textures, l.textures) && below_half(r.interpolants, l.interpolants);
}

std::size_t Backend::merge(const std::vector<Resources>& candidates) const {
  std::size_t best = 0;
  auto key = [](const Resources& r) { return std::make_tuple(r.operations, r.registers, r.textures, r.interpolants); };
  for (std::size_t i = 1; i < candidates.size(); ++i)
    if (key(candidates[i]) < key(candidates[best])) best = i;
  return best;
}

}  // namespace passlab::partition
