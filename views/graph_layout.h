// SPDX-License-Identifier: GPL-3.0-or-later
// Graph layout with Graphviz `dot` (cgraph/gvc), Qt-free so it runs on worker threads and in tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace passlab::views {

struct LayoutNode {
  double width = 40, height = 30;  // points
  std::string group;               // optional: nodes of one group are kept together ("" none)
};

struct LayoutRequest {
  std::vector<LayoutNode> nodes;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // from -> to, drawn top to bottom
  double node_sep = 14, rank_sep = 28;                           // points
  // "dot" (layered, edges top to bottom) or "neato" (spring model: undirected graphs such as an
  // interference graph, edges drawn without arrows).
  std::string engine = "dot";
  // dot's rank direction: "" (top to bottom), "LR" (edges point right) or "RL" (edges point left).
  std::string rankdir;
};

struct Point {
  double x = 0, y = 0;
};

struct EdgePath {
  std::vector<Point> bezier;  // cubic Bézier control points (1 + 3k)
  bool arrow = false;         // an arrowhead from the last control point to `tip`
  Point tip;
};

struct Layout {
  bool ok = false;
  std::string error;
  std::vector<Point> centers;               // per node, y down, origin at the top left
  std::vector<EdgePath> edges;              // per request edge (a repeated edge shares its path)
  double left = 0, top = 0;                 // the extent: dot's start at the origin, derived ones may grow
  double width = 0, height = 0;
  std::uint64_t key = 0;                    // hash of the request (equal requests, equal layouts)
  bool derived = false;                     // made by stable_layout from an earlier layout
  int placed_since_dot = 0;                 // nodes placed by stable_layout since dot last ran
};

// A deterministic hash of everything the layout depends on.
std::uint64_t layout_key(const LayoutRequest& r);

// Lays out with dot. Graphviz keeps global state, so calls are serialised; each takes
// O(n + e) memory and roughly O((n + e) log n) time for the DAGs Passlab draws.
Layout layout_graph(const LayoutRequest& r);

}  // namespace passlab::views
