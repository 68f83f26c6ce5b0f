// SPDX-License-Identifier: GPL-3.0-or-later
// The machine model: the chunks of a render timed on the RPU as its designers describe it
// (Woop, Schmittler and Slusallek, "RPU: A Programmable Ray Processing Unit for Realtime Ray
// Tracing", SIGGRAPH 2005; Wegrzanowski's thesis, ch. 2), not one chunk at a time as the VM
// counts them.
//
// - `cores` cores; each holds up to `chunks_in_flight` chunks and issues one word per cycle
//   from one of them. A chunk whose next word waits for a result is passed over at no cost, and
//   the core takes the next ready chunk after the one it issued last (round robin).
// - Chunks go to cores in render order as slots free up (all cores look in core order, each
//   cycle). A chunk leaves its core once its last word has issued.
// - A word may issue once every result it reads is ready: an arithmetic result `latency` cycles
//   after its word issued, a load's after the machine's load latency, a trace's when the trace
//   unit has answered every ray of the word. A conditional jump waits for its test.
// - Each core has a trace unit (Machine::TraceUnit): rays wait in one FIFO queue for the first
//   free pipeline, which takes ceil(boxes * box_cycles + triangles * triangle_cycles) cycles (at
//   least one) for the ray's BVH work; its HIT is ready `latency` cycles after that. A trace
//   issues only when the queue has room for all its rays.
//
// Cycles a core issues nothing are counted by what it waited for: the cause that held up the
// chunk that became ready first, or no chunk at all. Deterministic: the same chunks pushed in
// the same order give the same figures however the pushes are batched.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "backends/rpu/issue_trace.h"
#include "backends/rpu/machine.h"

namespace passlab::rpu {

// The numbers of chunks in flight the Studio and `rpu render --sweep` time a render with.
inline constexpr int kInFlightSweep[] = {1, 2, 4, 8, 16, 32};

// Why a core issued nothing in a cycle (or a chunk waited).
enum class Idle : std::uint8_t { NoChunk, Arithmetic, Memory, Trace, TraceQueue, Count };
const char* idle_name(Idle cause);

struct ModelStats {
  int cores = 1, chunks_in_flight = 1, pipelines = 1;
  std::uint64_t cycles = 0;       // until the last word issued and the last ray traversed, on the slowest core
  std::uint64_t chunks = 0;
  std::uint64_t issues = 0;       // words issued on all cores
  std::uint64_t lane_issues = 0;  // active lanes summed over issued words
  std::uint64_t idle[static_cast<int>(Idle::Count)] = {};  // core-cycles without an issue, by cause
  std::uint64_t resident = 0;     // chunk-cycles spent on a core (admission to last issue)
  // The trace units, summed over cores.
  std::uint64_t rays = 0;
  std::uint64_t trace_busy = 0;        // pipeline-cycles spent traversing
  std::uint64_t trace_queue_wait = 0;  // cycles rays waited in the queue, summed
  std::uint64_t trace_latency = 0;     // cycles from a ray's cast to its HIT, summed
  std::uint64_t max_queue = 0;         // the longest queue seen
  std::uint64_t vm_cycles = 0;         // the VM's own count: every chunk alone, one after another

  std::uint64_t core_cycles() const { return static_cast<std::uint64_t>(cores) * cycles; }
  // Issue cycles used, over all cores' cycles: never above 1.
  double utilisation() const { return core_cycles() ? static_cast<double>(issues) / static_cast<double>(core_cycles()) : 0.0; }
  // Lanes doing work, over four lanes in every core's every cycle.
  double lane_utilisation() const { return core_cycles() ? static_cast<double>(lane_issues) / (4.0 * static_cast<double>(core_cycles())) : 0.0; }
  // Pipelines busy, over all pipelines of all trace units in every cycle: never above 1.
  double trace_occupancy() const {
    return core_cycles() ? static_cast<double>(trace_busy) / (static_cast<double>(pipelines) * static_cast<double>(core_cycles())) : 0.0;
  }
  double mean_in_flight() const { return core_cycles() ? static_cast<double>(resident) / static_cast<double>(core_cycles()) : 0.0; }
  double mean_queue_wait() const { return rays ? static_cast<double>(trace_queue_wait) / static_cast<double>(rays) : 0.0; }
  double mean_ray_latency() const { return rays ? static_cast<double>(trace_latency) / static_cast<double>(rays) : 0.0; }
};

// One chunk's time on its core, in push order.
struct ChunkTiming {
  std::uint32_t core = 0;
  std::uint64_t admitted = 0, retired = 0;  // the cycle it arrived, the cycle its last word issued
  std::uint64_t words = 0;
  // Cycles its next word waited for a result, by cause (Arithmetic, Memory, Trace, TraceQueue),
  // and cycles it was ready while the core issued another chunk's word.
  std::uint64_t wait[static_cast<int>(Idle::Count)] = {};
  std::uint64_t switched = 0;
  std::uint64_t resident() const { return retired + 1 - admitted; }
  // The share of its time on the core spent waiting for the trace unit (traversal and queue).
  double trace_share() const {
    return static_cast<double>(wait[static_cast<int>(Idle::Trace)] + wait[static_cast<int>(Idle::TraceQueue)]) / static_cast<double>(resident());
  }
};

class MachineModel {
 public:
  explicit MachineModel(const Machine& machine);  // keeps a reference to `machine`
  ~MachineModel();
  MachineModel(MachineModel&&) noexcept;
  // The next chunk in dispatch order (render order). Runs the model as far as it can without
  // knowing the chunks still to come.
  void push(IssueTrace chunk);
  // No more chunks: runs to the end. stats() and chunks() are then complete.
  void finish();
  const ModelStats& stats() const { return stats_; }
  const std::vector<ChunkTiming>& chunks() const { return timings_; }

 private:
  struct Resident;
  struct Core;
  void advance();
  void admit(Core& core, std::uint32_t core_index);
  bool try_issue(Core& core);
  void prepare_next(Resident& r);
  std::uint64_t queue_room_at(const Core& core, int rays) const;

  const Machine& machine_;
  ModelStats stats_;
  std::vector<ChunkTiming> timings_;
  std::deque<std::pair<std::uint32_t, IssueTrace>> pending_;  // pushed, not yet on a core (chunk index, trace)
  std::vector<Core> cores_;
  std::uint64_t now_ = 0;
  std::uint32_t next_chunk_ = 0;
  bool finished_ = false;
  std::vector<char> issued_;  // per core, in the cycle being modelled
  std::vector<Idle> cause_;   // per core: what it waits for until the next event
};

}  // namespace passlab::rpu
