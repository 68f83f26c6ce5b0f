// SPDX-License-Identifier: GPL-3.0-or-later
// FragmentDag output forms: JSON, Graphviz DOT drawn like the RDS paper's figures, and text.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/dag/fragment_dag.h"
#include "core/lang/source.h"

namespace passlab::dag {

// A short label: the operation ("mul", "normalize"), the interpolant, the texture or the value.
std::string label(const Node& n);
// A computed interpolant's per-vertex formula, e.g. "transform(M, P)", abbreviated past `limit`.
std::string vertex_expression(const FragmentDag& dag, const Node& interpolant, std::size_t limit = 60);

nlohmann::json to_json(const FragmentDag& dag, const lang::SourceManager& sm);
nlohmann::json to_json(const DagStats& stats);
// Texture fetches are diamonds, interpolants triangles, constants squares, operations ellipses;
// nodes with several parents are shaded; edges run from a node to its operands, root on top.
std::string to_dot(const FragmentDag& dag);
std::string to_text(const FragmentDag& dag);

}  // namespace passlab::dag
