// SPDX-License-Identifier: GPL-3.0-or-later
// One point of a partitioning or code-generation trace, as the panels show it: the trace player
// makes it, the Studio model carries it, the DAG view, the timeline and the RPU decisions follow.
#pragma once

#include <cstdint>
#include <vector>

#include "core/partition/trace.h"

namespace passlab::views {

// What the graph shows at one point of the trace.
struct TraceFrame {
  std::vector<std::uint32_t> nodes;   // the event's nodes (a validity check: its subregion root first)
  std::vector<std::uint32_t> region;  // the subregion being checked (ValidCheck)
  std::vector<char> marked;           // marks after the event (replayed Mark/Unmark events)
  bool ok = true;
  int pass = -1, stage = -1;          // a code-generation event: the pass of the result and its stage
};

// Replays events 0..index of a trace into the frame the graph draws.
TraceFrame trace_frame(const partition::Trace& events, std::size_t node_count, int index);

}  // namespace passlab::views
