// Builds the drawable target DAG, dominator tree and partial dominator tree of a snapshot.
#include "views/draw_graph.h"

#include <algorithm>

#include <fmt/format.h>

namespace passlab::views {

namespace {

DrawNode make_node(const session::TargetGraph& t, std::uint32_t id, const std::vector<int>& parents) {
  const session::GraphNode& n = t.nodes[id];
  DrawNode d;
  d.id = id;
  d.label = n.label;
  switch (n.kind) {
    case session::GraphNode::Kind::Instruction:
      d.kind = "instruction";
      d.shape = Shape::Ellipse;
      break;
    case session::GraphNode::Kind::Texture:
      d.kind = "texture";
      d.shape = Shape::Diamond;
      break;
    case session::GraphNode::Kind::Interpolant:
      d.kind = "interpolant";
      d.shape = Shape::Triangle;
      break;
    case session::GraphNode::Kind::Constant:
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
  return r;
}

DrawGraph make_draw_graph(const session::Snapshot& s, GraphKind kind) {
  DrawGraph g;
  g.kind = kind;
  const session::TargetGraph& t = s.graph();
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

}  // namespace passlab::views
