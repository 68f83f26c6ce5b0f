// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware DAG's helpers: parents, a topological order, combiner depths and its text form.
#include "backends/combiners/hw_dag.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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

int combiner_depth(const HDag& h, HId x, std::vector<int>& memo) {
  if (memo.size() < h.nodes.size()) memo.resize(h.nodes.size(), -1);
  if (memo[x] >= 0) return memo[x];
  const HNode& n = h[x];
  int d = 0;
  if (n.op != HOp::Input && n.op != HOp::Const) {
    for (HId k : n.kids) d = std::max(d, combiner_depth(h, k, memo));
    if (n.op != HOp::InMap && n.op != HOp::Triple && n.op != HOp::Blue) d += 1;
  }
  return memo[x] = d;
}

}  // namespace passlab::combiners
