// SPDX-License-Identifier: GPL-3.0-or-later
// What the graph views draw, built from a snapshot without Qt: the target DAG, the dominator
// tree and the partial dominator tree, with shapes as in the RDS paper's figures; and for a
// partition, its pass graph and each pass's subgraph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "session/snapshot.h"
#include "views/graph_layout.h"

namespace passlab::views {

// Texture fetches are diamonds, interpolants triangles, constants squares, instructions ellipses.
enum class Shape : std::uint8_t { Ellipse, Diamond, Triangle, Square };
// Passes: one node per pass (its id is the pass's index), an edge from a pass to each pass that
// reads a value it saved (laid out left to right, in order of execution).
enum class GraphKind : std::uint8_t { Dag, Dominators, PartialDominators, Passes };

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
  std::string rankdir;        // the layout's direction (LayoutRequest::rankdir); "" top to bottom

  LayoutRequest layout_request() const;
};

DrawGraph make_draw_graph(const session::Snapshot& s, GraphKind kind);

// A partition's passes, each drawn with an area in proportion to its cost under the snapshot's
// cost model, and an edge from each pass to the passes that restore a value it saved.
DrawGraph make_pass_graph(const session::Snapshot& s, const partition::Partition& part);

// Pass `pass`'s part of the drawn DAG `dag` (GraphKind::Dag): its members and the saved values it
// restores (leaves here), with the DAG's edges from members, laid out right to left (its inputs
// at the left, as in the pass graph). Empty for a pass that is not there.
DrawGraph make_pass_subgraph(const DrawGraph& dag, const partition::Partition& part, int pass);

}  // namespace passlab::views
