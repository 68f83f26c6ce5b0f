// SPDX-License-Identifier: GPL-3.0-or-later
// Builds the drawable target DAG, dominator tree and partial dominator tree of a snapshot.
#include "views/draw_graph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

namespace passlab::views {

namespace {

DrawNode make_node(const backends::TargetGraph& t, std::uint32_t id, const std::vector<int>& parents) {
  const backends::GraphNode& n = t.nodes[id];
  DrawNode d;
  d.id = id;
  d.label = n.label;
  switch (n.kind) {
    case backends::GraphNode::Kind::Instruction:
      d.kind = "instruction";
      d.shape = Shape::Ellipse;
      break;
    case backends::GraphNode::Kind::Texture:
      d.kind = "texture";
      d.shape = Shape::Diamond;
      break;
    case backends::GraphNode::Kind::Interpolant:
      d.kind = "interpolant";
      d.shape = Shape::Triangle;
      break;
    case backends::GraphNode::Kind::Constant:
      d.kind = "constant";
      d.shape = Shape::Square;
      break;
  }
  if (d.label.size() > 14) d.label = d.label.substr(0, 13) + "…";
  d.shared = n.operation() && parents[id] > 1;
  std::string where;
  for (const auto& sp : n.spans)
    if (sp.valid()) {
      where += fmt::format("{}{}:{}", where.empty() ? "" : ", ", sp.line, sp.col);
      if (where.size() > 60) break;
    }
  d.detail = fmt::format("n{} {} ({}){}{}", id, d.label, d.kind, d.shared ? fmt::format(", {} users", parents[id]) : "",
                         where.empty() ? "" : "\nsource " + where);
  // Sizes in points, from the label length (a deterministic estimate of the text width).
  double text = 7.0 * static_cast<double>(std::min<std::size_t>(d.label.size(), 14));
  switch (d.shape) {
    case Shape::Ellipse: d.width = std::max(44.0, text + 22); d.height = 28; break;
    case Shape::Diamond: d.width = std::max(52.0, text + 34); d.height = 36; break;
    case Shape::Triangle: d.width = std::max(44.0, text + 26); d.height = 32; break;
    case Shape::Square: d.width = std::max(30.0, text + 12); d.height = 24; break;
  }
  return d;
}

}  // namespace

LayoutRequest DrawGraph::layout_request() const {
  LayoutRequest r;
  r.nodes.reserve(nodes.size());
  for (const auto& n : nodes) r.nodes.push_back({n.width, n.height, ""});
  r.edges = edges;
  r.rankdir = rankdir;
  if (kind == GraphKind::Passes) {
    r.rank_sep = 30;
    r.node_sep = 8;
  }
  return r;
}

DrawGraph make_draw_graph(const session::Snapshot& s, GraphKind kind) {
  DrawGraph g;
  g.kind = kind;
  const backends::TargetGraph& t = s.graph();
  if (t.empty()) return g;
  std::vector<int> parents(t.size(), 0);
  for (const auto& n : t.nodes)
    for (std::uint32_t d : n.deps) ++parents[d];
  g.index_of.assign(t.size(), -1);
  auto add = [&](std::uint32_t id) {
    g.index_of[id] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(make_node(t, id, parents));
  };
  // Nodes are added root first, so dot ranks the output at the top as in the paper's figures.
  if (kind == GraphKind::Dag) {
    for (std::size_t i = t.size(); i-- > 0;) add(static_cast<std::uint32_t>(i));
    for (std::size_t i = t.size(); i-- > 0;)
      for (std::uint32_t d : t.nodes[i].deps)
        g.edges.emplace_back(g.index_of[i], g.index_of[d]);
    return g;
  }
  const auto& dom = s.dominators;
  if (dom.idom.size() != t.size()) return g;
  if (kind == GraphKind::Dominators) {
    // Leaves are free inputs and clutter the tree; the tree of operations is what §3.3 uses.
    for (std::size_t i = t.size(); i-- > 0;)
      if (dom.idom[i] != dag::kNone && t.nodes[i].operation()) add(static_cast<std::uint32_t>(i));
    for (std::size_t i = t.size(); i-- > 0;)
      if (g.index_of[i] >= 0 && i != t.root && g.index_of[dom.idom[i]] >= 0)
        g.edges.emplace_back(g.index_of[dom.idom[i]], g.index_of[i]);
    return g;
  }
  const auto& pdt = s.pdt;
  if (pdt.kept.size() != t.size()) return g;
  for (std::size_t i = t.size(); i-- > 0;)
    if (pdt.kept[i]) add(static_cast<std::uint32_t>(i));
  for (std::size_t i = t.size(); i-- > 0;)
    if (pdt.kept[i] && pdt.parent[i] != dag::kNone && g.index_of[pdt.parent[i]] >= 0)
      g.edges.emplace_back(g.index_of[pdt.parent[i]], g.index_of[i]);
  return g;
}

DrawGraph make_pass_graph(const session::Snapshot& s, const partition::Partition& part) {
  DrawGraph g;
  g.kind = GraphKind::Passes;
  g.rankdir = "LR";  // in order of execution, left to right, as a timeline
  const std::size_t n = part.passes.size();
  if (n == 0) return g;
  // Which pass saves each marked value: the one it is the root of.
  std::map<partition::NodeId, int> saved_by;
  for (std::size_t p = 0; p < n; ++p)
    for (partition::NodeId o : part.passes[p].outputs) saved_by[o] = static_cast<int>(p);
  std::vector<double> cost(n);
  double most = 0;
  for (std::size_t p = 0; p < n; ++p) {
    const auto& r = part.passes[p].resources;
    cost[p] = s.request.model.pass_cost(r.texture_fetches, r.arithmetic, static_cast<int>(std::max<std::size_t>(1, part.passes[p].outputs.size())));
    most = std::max(most, cost[p]);
  }
  g.index_of.assign(n, -1);
  for (std::size_t k = 0; k < n; ++k) {
    const auto& pass = part.passes[k];
    const auto& r = pass.resources;
    DrawNode d;
    d.id = static_cast<std::uint32_t>(k);
    d.label = fmt::format("P{}", k + 1);
    d.kind = "pass";
    d.shape = Shape::Square;
    std::string root = pass.root < s.problem.labels.size() ? s.problem.labels[pass.root] : std::string("?");
    for (std::size_t o = 0; o + 1 < pass.outputs.size(); ++o)  // a pass of several render targets
      root += fmt::format(", n{} {}", pass.outputs[o], pass.outputs[o] < s.problem.labels.size() ? s.problem.labels[pass.outputs[o]] : "?");
    d.detail = fmt::format(
        "pass {} of {}: computes n{} {}{}\ncost {:.2f} ({}): {} instructions, {} texture fetches ({} restores), {} nodes\n"
        "registers {}, textures {}, interpolants {}{}",
        k + 1, n, pass.root, root, k + 1 == n ? " (the output)" : ", saved to a texture", cost[k], s.request.model.name, r.arithmetic,
        r.texture_fetches, r.restores, pass.members.size(), r.registers, r.textures, r.interpolants,
        pass.failure.empty() ? "" : "\ndoes not fit: " + pass.failure);
    // Area in proportion to cost (at least a readable label's size).
    const double share = most > 0 ? std::sqrt(cost[k] / most) : 1.0;
    d.width = 36 + 64 * share;
    d.height = 22 + 30 * share;
    g.index_of[k] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(std::move(d));
  }
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  for (std::size_t k = 0; k < n; ++k)
    for (partition::NodeId v : part.passes[k].restores) {
      const auto it = saved_by.find(v);
      if (it == saved_by.end() || it->second == static_cast<int>(k)) continue;
      const auto edge = std::make_pair(static_cast<std::uint32_t>(g.index_of[static_cast<std::size_t>(it->second)]), static_cast<std::uint32_t>(g.index_of[k]));
      if (seen.insert(edge).second) g.edges.push_back(edge);
    }
  return g;
}

DrawGraph make_pass_subgraph(const DrawGraph& dag, const partition::Partition& part, int pass) {
  DrawGraph g;
  g.kind = GraphKind::Dag;
  g.rankdir = "RL";  // users to the right of their operands: the values flow left to right
  if (pass < 0 || static_cast<std::size_t>(pass) >= part.passes.size()) return g;
  const auto& p = part.passes[static_cast<std::size_t>(pass)];
  std::set<partition::NodeId> members(p.members.begin(), p.members.end());
  members.insert(p.root);
  const std::set<partition::NodeId> restores(p.restores.begin(), p.restores.end());
  g.index_of.assign(dag.index_of.size(), -1);
  // In the DAG's order (root first), so the subgraph reads like its part of the whole.
  for (const DrawNode& d : dag.nodes)
    if (members.count(d.id) || restores.count(d.id)) {
      g.index_of[d.id] = static_cast<int>(g.nodes.size());
      g.nodes.push_back(d);
    }
  for (const auto& [from, to] : dag.edges) {
    const std::uint32_t a = dag.nodes[from].id, b = dag.nodes[to].id;
    // A restored value is read, not computed, here: its operands are another pass's.
    if (g.index_of[a] < 0 || g.index_of[b] < 0 || (restores.count(a) && !members.count(a))) continue;
    g.edges.emplace_back(g.index_of[a], g.index_of[b]);
  }
  return g;
}

}  // namespace passlab::views
