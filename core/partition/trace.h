// The trace of a partitioning run: every decision as an event with its nodes and a reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/partition/target.h"

namespace passlab::partition {

enum class EventKind : std::uint8_t {
  Visit,          // Subdivide reached a PDT node
  ValidCheck,     // VALID asked about a subregion: ok or the failing resource
  SaveRecompute,  // an MR node saved or recomputed (heuristic or fixed), with both costs in RDS
  MergeChoice,    // greedy merging chose which children's subregions join a node
  Mark,           // a node became a pass root
  Unmark,
  SearchTrial,    // RDS tried fixing an MR node to save or recompute: the resulting cost
  Bound,          // the optimal search pruned or improved its best
  Done,
  Codegen,        // the backend generating a pass of the result (the register combiners' five stages)
};
constexpr int kEventKinds = static_cast<int>(EventKind::Codegen) + 1;
const char* to_string(EventKind k);

struct TraceEvent {
  EventKind kind = EventKind::Visit;
  std::vector<std::uint32_t> nodes;  // the node(s) concerned; for ValidCheck the subregion root first
  bool ok = false;
  Resources resources;
  double cost_save = 0, cost_recompute = 0;  // SaveRecompute/SearchTrial
  std::string reason;                         // in words, for the trace player and the CLI
  int pass = -1, stage = -1;                  // Codegen: the pass of the result and the hardware stage concerned
};

// Algorithms write to a sink; the null sink costs one virtual call and nothing else.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual bool enabled() const { return false; }
  virtual void record(TraceEvent) {}
};

class TraceLog : public TraceSink {
 public:
  bool enabled() const override { return true; }
  void record(TraceEvent e) override { events.push_back(std::move(e)); }
  std::vector<TraceEvent> events;
};

}  // namespace passlab::partition
