// SPDX-License-Identifier: GPL-3.0-or-later
// Graph layout with Graphviz dot through cgraph and gvc.
#include "views/graph_layout.h"

#include <cstring>
#include <mutex>

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace passlab::views {

namespace {

void mix(std::uint64_t& h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}

std::uint64_t bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Graphviz's layout engines keep process-wide state (the context's plugins, the graph
// dictionaries' memory discipline); one layout at a time keeps them consistent.
std::mutex& graphviz_mutex() {
  static std::mutex m;
  return m;
}

void set(void* obj, const char* name, const std::string& value) {
  agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

}  // namespace

std::uint64_t layout_key(const LayoutRequest& r) {
  std::uint64_t h = 1469598103934665603ULL;
  mix(h, r.nodes.size());
  for (const auto& n : r.nodes) {
    mix(h, bits(n.width));
    mix(h, bits(n.height));
    for (char c : n.group) mix(h, static_cast<unsigned char>(c));
  }
  mix(h, r.edges.size());
  for (const auto& [a, b] : r.edges) mix(h, (static_cast<std::uint64_t>(a) << 32) | b);
  mix(h, bits(r.node_sep));
  mix(h, bits(r.rank_sep));
  for (char c : r.engine) mix(h, static_cast<unsigned char>(c));
  for (char c : r.rankdir) mix(h, static_cast<unsigned char>(c));
  return h;
}

Layout layout_graph(const LayoutRequest& r) {
  Layout out;
  out.key = layout_key(r);
  if (r.nodes.empty()) {
    out.ok = true;
    return out;
  }
  for (const auto& [a, b] : r.edges)
    if (a >= r.nodes.size() || b >= r.nodes.size()) {
      out.error = fmt::format("edge {} -> {} names a node that does not exist", a, b);
      return out;
    }
  std::lock_guard<std::mutex> lock(graphviz_mutex());
  GVC_t* gvc = gvContext();
  const bool spring = r.engine == "neato";
  Agraph_t* g = agopen(const_cast<char*>("g"), spring ? Agstrictundirected : Agstrictdirected, nullptr);
  set(g, "nodesep", fmt::format("{:.3f}", r.node_sep / 72.0));
  set(g, "ranksep", fmt::format("{:.3f}", r.rank_sep / 72.0));
  if (spring) {
    // Deterministic: a fixed start, and nodes kept apart.
    set(g, "start", "1");
    set(g, "overlap", "false");
    set(g, "sep", "+6");
    set(g, "splines", "false");
    set(g, "mode", "major");
  } else {
    set(g, "splines", "true");
    set(g, "ordering", "out");
    if (!r.rankdir.empty()) set(g, "rankdir", r.rankdir);
  }
  std::vector<Agnode_t*> nodes(r.nodes.size());
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    std::string name = std::to_string(i);
    nodes[i] = agnode(g, name.data(), 1);
    set(nodes[i], "shape", "box");
    set(nodes[i], "fixedsize", "true");
    set(nodes[i], "label", "");
    set(nodes[i], "width", fmt::format("{:.3f}", r.nodes[i].width / 72.0));
    set(nodes[i], "height", fmt::format("{:.3f}", r.nodes[i].height / 72.0));
    if (!r.nodes[i].group.empty()) set(nodes[i], "group", r.nodes[i].group);
  }
  // A strict graph merges repeated edges; remember which Graphviz edge each request edge became.
  std::vector<Agedge_t*> edges(r.edges.size());
  for (std::size_t i = 0; i < r.edges.size(); ++i)
    edges[i] = agedge(g, nodes[r.edges[i].first], nodes[r.edges[i].second], nullptr, 1);
  if (gvLayout(gvc, g, spring ? "neato" : "dot") != 0) {
    out.error = "Graphviz " + std::string(spring ? "neato" : "dot") + " could not lay out the graph";
    agclose(g);
    gvFreeContext(gvc);
    return out;
  }
  boxf bb = GD_bb(g);
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
  out.centers.resize(r.nodes.size());
  for (std::size_t i = 0; i < r.nodes.size(); ++i) out.centers[i] = flip(ND_coord(nodes[i]));
  out.edges.resize(r.edges.size());
  for (std::size_t i = 0; i < r.edges.size(); ++i) {
    Agedge_t* e = edges[i];
    if (!e || !ED_spl(e) || ED_spl(e)->size == 0) continue;
    const bezier& bz = ED_spl(e)->list[0];
    EdgePath& path = out.edges[i];
    for (int k = 0; k < bz.size; ++k) path.bezier.push_back(flip(bz.list[k]));
    path.arrow = bz.eflag != 0;
    if (path.arrow) path.tip = flip(bz.ep);
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  gvFreeContext(gvc);
  out.ok = true;
  return out;
}

}  // namespace passlab::views
