// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/trace_frame.h"

namespace passlab::views {

TraceFrame trace_frame(const partition::Trace& events, std::size_t node_count, int index) {
  TraceFrame f;
  f.marked.assign(node_count, 0);
  if (index < 0) return f;
  for (int i = 0; i <= index && i < static_cast<int>(events.size()); ++i) {
    const auto& e = events[i];
    if (e.kind == partition::EventKind::Mark || e.kind == partition::EventKind::Unmark)
      for (auto n : events.nodes(e))
        if (n < node_count) f.marked[n] = e.kind == partition::EventKind::Mark;
  }
  if (index < static_cast<int>(events.size())) {
    const auto& e = events[index];
    f.ok = e.kind != partition::EventKind::ValidCheck || e.ok;
    f.pass = e.pass;
    f.stage = e.stage;
    const auto nodes = events.concerned(e);
    if (e.kind == partition::EventKind::ValidCheck) {
      if (!nodes.empty()) f.nodes.push_back(nodes.front());
      f.region.assign(nodes.begin(), nodes.end());
    } else {
      f.nodes.assign(nodes.begin(), nodes.end());
    }
  }
  return f;
}

}  // namespace passlab::views
