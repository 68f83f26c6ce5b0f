// SPDX-License-Identifier: GPL-3.0-or-later
// Layout stability across small edits: the nodes of a new graph are matched to those of the
// previous one, and when the change is small the matched nodes keep their place and only the new
// nodes are placed, next to their neighbours, instead of running dot again from scratch.
#pragma once

#include <optional>
#include <vector>

#include "views/draw_graph.h"
#include "views/graph_layout.h"

namespace passlab::views {

// before[i] for each node i of `after`: the node of `before` it continues, or -1 (a new node).
// Nodes match by structure: the same subgraph below them, the same uses above them, or, next to
// an already matched pair, the same operand slot and kind (an edited constant or operator keeps
// its place).
std::vector<int> match_nodes(const DrawGraph& before, const DrawGraph& after);

struct StableLayoutOptions {
  double max_new_fraction = 0.25;    // more new nodes than this share of the graph: lay out afresh
  double max_drift_fraction = 0.5;   // nodes placed without dot since its last run, ditto
};

// The layout of `after` derived from `before`'s, or nullopt when the graphs differ too much (the
// caller runs dot). Deterministic: equal inputs give equal layouts.
std::optional<Layout> stable_layout(const DrawGraph& before, const Layout& before_layout, const DrawGraph& after,
                                    const StableLayoutOptions& options = {});

}  // namespace passlab::views
