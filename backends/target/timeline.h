// SPDX-License-Identifier: GPL-3.0-or-later
// The pass and combiner-stage timeline as data (what the timeline view draws, built off the UI
// thread): the passes of a partition in order, each with its cost and resources, and for a
// register-combiner target each pass's general combiner stages (their RGB and ALPHA portions
// unit by unit), its texture units, the lifetimes of its registers and its final combiner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/partition/target.h"

namespace passlab::backends {

// One unit of a combiner portion: an input mapping, a DOT/MUL, the ADD/MUX, the OUTMAP, or an
// output, with the DAG nodes it computes.
struct TimelineUnit {
  enum class Kind : std::uint8_t { Input, Product, Combine, OutMap, Output };
  Kind kind = Kind::Input;
  std::string label;                 // "expand(tex2.rgb)", "DOT", "MUX", "2x", "spare0"
  std::vector<std::uint32_t> nodes;  // the partitioned DAG's nodes
};

struct TimelinePortion {
  std::string kind;                  // "FULL", "HALF", "HALF+HALF", "" (unused)
  std::vector<TimelineUnit> units;   // A, B, AB, C, D, CD, sum/mux, outmap, outputs (those used)
  std::vector<std::uint32_t> nodes;  // every node the portion computes
};

struct TimelineStage {
  TimelinePortion rgb, alpha;
  std::string constants;  // per-stage constants, "" when none
};

// A register part holding one value from one stage to another (inputs from the top).
struct TimelineLane {
  std::string reg;    // "S0.rgb", "T2.alpha"
  int first = 0;      // the stage it is first readable in (0: an input)
  int last = 0;       // the stage that reads it last (the stage count: the final combiner)
  bool input = false;
  std::string value;  // what it holds, e.g. "n21 (dot)"
  std::vector<std::uint32_t> nodes;
};

struct TimelinePass {
  std::uint32_t root = 0;
  std::string root_label;
  double cost = 0;
  partition::Resources resources;
  std::vector<std::uint32_t> members;
  std::string failure;  // the pass does not fit: why
  std::vector<std::uint32_t> failure_nodes;  // ...and where (the node that breaks it), if known
  // Register combiners (empty elsewhere).
  std::vector<std::string> texture_units;  // "texture_2d pinnormals", "texture_cube_map"
  std::vector<TimelineStage> stages;
  std::vector<TimelineLane> lanes;
  std::string final_rgb, final_alpha;      // "spare0.rgb", "unsigned_invert(zero)", "lerp(tex2.a, tex0, tex1)"
  std::string final_product;               // the final combiner's E x F when used: "col0 * const0"
};

struct Timeline {
  std::string target;
  bool combiners = false;  // passes have stage detail
  int stage_limit = 0;     // general combiner stages a pass may have
  std::vector<TimelinePass> passes;
};

}  // namespace passlab::backends
