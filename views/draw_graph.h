// What the graph views draw, built from a snapshot without Qt: the target DAG, the dominator
// tree and the partial dominator tree, with shapes as in the RDS paper's figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/snapshot.h"
#include "views/graph_layout.h"

namespace passlab::views {

// Texture fetches are diamonds, interpolants triangles, constants squares, instructions ellipses.
enum class Shape : std::uint8_t { Ellipse, Diamond, Triangle, Square };
enum class GraphKind : std::uint8_t { Dag, Dominators, PartialDominators };

struct DrawNode {
  std::uint32_t id = 0;   // the target-DAG node
  std::string label;      // "MUL", "TEX wood", "s", "0.5"
  std::string kind;       // "instruction", "texture", "interpolant", "constant"
  std::string detail;     // tooltip text
  Shape shape = Shape::Ellipse;
  bool shared = false;    // multiply referenced: more than one distinct user
  double width = 40, height = 28;
};

struct DrawGraph {
  GraphKind kind = GraphKind::Dag;
  std::vector<DrawNode> nodes;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // indices into nodes, user -> operand
  std::vector<int> index_of;  // target-DAG node id -> index into nodes, or -1

  LayoutRequest layout_request() const;
};

DrawGraph make_draw_graph(const session::Snapshot& s, GraphKind kind);

}  // namespace passlab::views
