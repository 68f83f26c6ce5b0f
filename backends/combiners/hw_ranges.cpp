// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware DAG's value ranges (stages.h's compute_ranges): interval arithmetic over the
// combiner operations and mappings, from the interpolants' ranges and the unit range of texels.
#include <algorithm>
#include <cmath>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

namespace {

Interval map_interval(InMap m, Interval x) {
  const float a = apply(m, x.lo), b = apply(m, x.hi);
  return {std::min(a, b), std::max(a, b)};  // every mapping is monotone
}

Interval map_interval(OutMap m, Interval x) {
  const float a = apply(m, x.lo), b = apply(m, x.hi);
  return {std::min(a, b), std::max(a, b)};
}

}  // namespace

void compute_ranges(const PassSpec& pass, HDag& h) {
  for (HId i : h.topological()) {
    HNode& n = h[i];
    auto kid = [&](std::size_t k) { return h[n.kids[k]].range; };
    Interval r;
    switch (n.op) {
      case HOp::Input: {
        const PassInput& in = h.inputs[static_cast<std::size_t>(n.input)];
        if (in.cls == InputClass::Interpolant && !in.biased) r = (*pass.ranges)[in.node].clamped();
        else r = Interval::unit();  // what the register holds: a texel, or a biased value
        break;
      }
      case HOp::Const: {
        const int k = n.part == Part::Rgb ? 3 : 1;
        r = Interval::point(n.value[0]);
        for (int c = 1; c < k; ++c) r = hull(r, Interval::point(n.value[static_cast<std::size_t>(c)]));
        break;
      }
      case HOp::Mul: r = kid(0) * kid(1); break;
      case HOp::Dot: {
        const Interval p = kid(0) * kid(1);
        r = p + p + p;
        break;
      }
      case HOp::Add: r = kid(0) + kid(1); break;
      case HOp::Mux: r = hull(kid(1), kid(2)); break;
      case HOp::InMap: r = map_interval(static_cast<InMap>(n.map), kid(0)); break;
      case HOp::OutMap:
      case HOp::BothMap: r = map_interval(static_cast<OutMap>(n.map), kid(0)); break;
      case HOp::Triple:
      case HOp::Blue: r = kid(0); break;
    }
    if (std::isnan(r.lo) || std::isnan(r.hi)) r = Interval::signed_unit();
    n.range = r.clamped();
  }
}

}  // namespace passlab::combiners
