// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware DAG's helpers: parents, a topological order, intervals, and its text form.
#include "backends/combiners/hw_dag.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

std::vector<std::vector<HId>> HDag::parents() const {
  // Only what the roots reach: rewrites leave orphans behind.
  std::vector<std::vector<HId>> out(nodes.size());
  for (HId i : topological()) {
    for (HId k : nodes[i].kids)
      if (std::find(out[k].begin(), out[k].end(), i) == out[k].end()) out[k].push_back(i);
  }
  return out;
}

std::vector<HId> HDag::topological() const {
  // Depth-first from the roots, operands first; iterative so deep chains cannot overflow.
  std::vector<HId> order;
  std::vector<std::uint8_t> state(nodes.size(), 0);
  std::vector<std::pair<HId, std::size_t>> stack;
  for (HId root : {rgb_root, alpha_root}) {
    if (root == kNoH || state[root]) continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      if (next < nodes[n].kids.size()) {
        const HId k = nodes[n].kids[next++];
        if (!state[k]) {
          state[k] = 1;
          stack.push_back({k, 0});
        }
        continue;
      }
      order.push_back(n);
      stack.pop_back();
    }
  }
  return order;
}

std::string describe(const HNode& n) {
  const std::string part = to_string(n.part);
  switch (n.op) {
    case HOp::InMap: return fmt::format("INMAP {} {}", paper_name(static_cast<InMap>(n.map)), part);
    case HOp::OutMap: return fmt::format("OUTMAP {} {}", paper_name(static_cast<OutMap>(n.map)), part);
    case HOp::BothMap: return fmt::format("BOTHMAP {} {}", paper_name(static_cast<OutMap>(n.map)), part);
    case HOp::Const:
      if (n.part == Part::Alpha) return fmt::format("CONST {:g}", n.value[0]);
      return fmt::format("CONST ({:g},{:g},{:g})", n.value[0], n.value[1], n.value[2]);
    default: return fmt::format("{} {}", to_string(n.op), part);
  }
}

std::string to_text(const HDag& h, const dag::FragmentDag& d) {
  std::string out;
  for (HId i : h.topological()) {
    const HNode& n = h[i];
    out += fmt::format("h{} = {}", i, describe(n));
    for (std::size_t k = 0; k < n.kids.size(); ++k) out += fmt::format("{}h{}", k ? ", " : " ", n.kids[k]);
    if (n.op == HOp::Input) {
      const PassInput& in = h.inputs[static_cast<std::size_t>(n.input)];
      out += fmt::format(" {}", to_string(in.cls));
      if (in.unit >= 0) out += fmt::format(" unit {}", in.unit);
      else out += fmt::format(" n{} {}", in.node, d.node(in.node).name);
    }
    out += fmt::format("  ; [{:g}, {:g}]", n.range.lo, n.range.hi);
    if (n.has_origin) out += fmt::format(" from n{}", n.origin);
    if (i == h.rgb_root) out += " RGB root";
    if (i == h.alpha_root) out += " ALPHA root";
    out += "\n";
  }
  return out;
}

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
