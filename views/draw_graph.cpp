// Builds the drawable target DAG, dominator tree and partial dominator tree of a snapshot.
#include "views/draw_graph.h"

#include <algorithm>

#include <fmt/format.h>

namespace passlab::views {

namespace {

std::string constant_text(const fp::Vec4& v, int width) {
  bool same = true;
  for (int i = 1; i < width; ++i) same = same && v[i] == v[0];
  if (same || width == 1) return fmt::format("{:g}", v[0]);
  std::string s = "(";
  for (int i = 0; i < width; ++i) s += fmt::format("{}{:g}", i ? "," : "", v[i]);
  return s + ")";
}

DrawNode make_node(const pipeline::Snapshot& s, fp::TNodeId id, const std::vector<int>& parents) {
  const fp::TNode& n = s.target_dag->node(id);
  DrawNode d;
  d.id = id;
  switch (n.kind) {
    case fp::TKind::Instruction:
      d.label = std::string(fp::to_string(n.op)) + (n.saturate ? "_SAT" : "");
      d.kind = "instruction";
      d.shape = Shape::Ellipse;
      break;
    case fp::TKind::Texture:
      d.label = n.name == "$noise" ? "noise" : n.name;
      d.kind = "texture";
      d.shape = Shape::Diamond;
      break;
    case fp::TKind::Interpolant:
      d.label = n.name;
      d.kind = "interpolant";
      d.shape = Shape::Triangle;
      break;
    case fp::TKind::Constant:
      d.label = constant_text(n.value, n.width);
      d.kind = "constant";
      d.shape = Shape::Square;
      break;
  }
  if (d.label.size() > 14) d.label = d.label.substr(0, 13) + "…";
  d.shared = s.target_dag->is_operation(id) && parents[id] > 1;
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

DrawGraph make_draw_graph(const pipeline::Snapshot& s, GraphKind kind) {
  DrawGraph g;
  g.kind = kind;
  if (!s.target_dag) return g;
  const fp::TargetDag& t = *s.target_dag;
  std::vector<int> parents(t.size(), 0);
  for (const auto& n : t.nodes)
    for (fp::TNodeId d : n.deps) ++parents[d];
  g.index_of.assign(t.size(), -1);
  auto add = [&](fp::TNodeId id) {
    g.index_of[id] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(make_node(s, id, parents));
  };
  // Nodes are added root first, so dot ranks the output at the top as in the paper's figures.
  if (kind == GraphKind::Dag) {
    for (std::size_t i = t.size(); i-- > 0;) add(static_cast<fp::TNodeId>(i));
    for (std::size_t i = t.size(); i-- > 0;)
      for (fp::TNodeId d : t.nodes[i].deps)
        g.edges.emplace_back(g.index_of[i], g.index_of[d]);
    return g;
  }
  const auto& dom = s.dominators;
  if (dom.idom.size() != t.size()) return g;
  if (kind == GraphKind::Dominators) {
    // Leaves are free inputs and clutter the tree; the tree of operations is what §3.3 uses.
    for (std::size_t i = t.size(); i-- > 0;)
      if (dom.idom[i] != dag::kNone && t.is_operation(static_cast<fp::TNodeId>(i))) add(static_cast<fp::TNodeId>(i));
    for (std::size_t i = t.size(); i-- > 0;)
      if (g.index_of[i] >= 0 && i != t.root && g.index_of[dom.idom[i]] >= 0)
        g.edges.emplace_back(g.index_of[dom.idom[i]], g.index_of[i]);
    return g;
  }
  const auto& pdt = s.pdt;
  if (pdt.kept.size() != t.size()) return g;
  for (std::size_t i = t.size(); i-- > 0;)
    if (pdt.kept[i]) add(static_cast<fp::TNodeId>(i));
  for (std::size_t i = t.size(); i-- > 0;)
    if (pdt.kept[i] && pdt.parent[i] != dag::kNone && g.index_of[pdt.parent[i]] >= 0)
      g.edges.emplace_back(g.index_of[pdt.parent[i]], g.index_of[i]);
  return g;
}

}  // namespace passlab::views
