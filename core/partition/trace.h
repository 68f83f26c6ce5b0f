// SPDX-License-Identifier: GPL-3.0-or-later
// The trace of a partitioning run: every decision as an event with its nodes and a reason.
//
// Recording is cheap (the Studio records on every compile): an event holds the decision's kind,
// a code for its reason and its numbers; describe() writes the words only when someone reads
// them (the trace player, `passlab-cli partition --trace`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/partition/problem.h"

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

// Why: the reason of an event as a code; the nodes and numbers it speaks of are the event's.
enum class Why : std::uint8_t {
  Text,                // the producer's own words, `text` (the backends' code generators)
  Subdivide,           // Subdivide reached nodes[0]
  Fits,                // the subregion of nodes[0] (all of `nodes`) fits in one pass
  DoesNotFit,          // ... does not fit; `text` is the backend's failure ("registers: 5 > 4")
  FixedSave,           // the search fixed nodes[0] to be saved
  FixedRecompute,      // ... to be recomputed
  SaveHalf,            // RDSh: save nodes[0], its subregion uses half or more of a resource
  RecomputeBelowHalf,  // RDSh: recompute nodes[0], every resource of its subregion below half
  Merge,               // nodes[0] merges with the next `kept` nodes; the rest were left out; of `candidates`
  CannotJoinUser,      // nodes[0] cannot join its user, `user`, in one pass
  AloneDoesNotFit,     // `user` alone does not fit the target (nodes[0], its operand, is marked)
  OutputLastPass,      // nodes[0], the output, heads the last pass
  Trial,               // RDS: saving nodes[0] costs cost_save, recomputing it cost_recompute
  Proven,              // the optimal search proved cost_save optimal
  BestWithinBudget,    // ... stopped at cost_save with no partition below cost_recompute
  Found,               // ... found a partition costing cost_save
  Repair,              // nodes[0]'s pass no longer fits after later marks: it merges again
};

// One decision. Plain data, no allocation: its nodes and words live in the Trace it belongs to.
struct TraceEvent {
  EventKind kind = EventKind::Visit;
  Why why = Why::Text;
  bool ok = false;
  std::uint32_t nodes_chunk = 0, nodes_at = 0, nodes_size = 0;  // where its nodes are (Trace::nodes)
  std::int32_t text = -1;                      // its words (Trace::text): Why::Text, or DoesNotFit's failure
  std::uint32_t kept = 0, candidates = 0;      // Merge
  std::uint32_t user = 0;                      // CannotJoinUser, AloneDoesNotFit: the node the marked one feeds
  Resources resources;
  double cost_save = 0, cost_recompute = 0;    // SaveRecompute/SearchTrial; the optimal search's costs
  int pass = -1, stage = -1;                   // Codegen: the pass of the result and the hardware stage concerned
};

namespace detail {
// An event as a Trace stores it. `wide`: the event is whole in the trace's side list, at `user`
// (it carries costs, or a number too big for the fields here).
struct PackedEvent {
  EventKind kind;
  Why why;
  bool ok : 1;
  bool wide : 1;
  bool one_output : 1;  // Resources::outputs is 1 (0 otherwise; more makes the event wide)
  std::uint32_t nodes_chunk, nodes_at, nodes_size;
  std::int32_t text;
  std::uint32_t user;
  std::uint16_t kept, candidates;
  std::int16_t pass, stage;
  std::uint16_t resources[8];
};
static_assert(sizeof(PackedEvent) == 48);
}  // namespace detail

// A recorded run: the events, and the node lists and words they point into. Both grow by chunks
// that never move, so recording never copies what it already holds (a growing vector copied
// every event at each doubling), and a finished trace's chunks are kept for the next one (up to
// 16 MB in all), so recording does not pay a page fault per 4 KB of fresh memory on every compile.
// An event is stored in 48 bytes rather than TraceEvent's 88 (RDS on Wood records 78,504 of them
// on every compile, and writing them was most of what the trace cost): small counts as 16 bits,
// and the few events that carry costs or bigger numbers whole, beside the others.
class Trace {
 public:
  Trace() = default;
  Trace(const Trace&) = default;
  Trace(Trace&&) noexcept = default;
  Trace& operator=(const Trace&) = default;
  Trace& operator=(Trace&&) noexcept = default;
  ~Trace();

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  TraceEvent operator[](std::size_t i) const { return unpack(events_[i / kEventChunk][i % kEventChunk]); }

  class Iterator {
   public:
    Iterator(const Trace* t, std::size_t i) : t_(t), i_(i) {}
    TraceEvent operator*() const { return (*t_)[i_]; }
    Iterator& operator++() { ++i_; return *this; }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
   private:
    const Trace* t_;
    std::size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size_}; }

  // The node(s) the event concerns; for ValidCheck the subregion root first, then its members.
  std::span<const std::uint32_t> nodes(const TraceEvent& e) const {
    if (e.nodes_size == 0) return {};
    return std::span<const std::uint32_t>(node_chunks_[e.nodes_chunk]).subspan(e.nodes_at, e.nodes_size);
  }
  const std::string& text(const TraceEvent& e) const;  // "" when it has none
  std::size_t distinct_texts() const { return texts_.size(); }
  // Appends `e` with its nodes and words (words equal to recent ones are not stored again).
  void add(const TraceEvent& e, std::span<const std::uint32_t> nodes = {}, std::string_view words = {});
  // Appends `e` with the nodes `first`, then `rest` without `first` (a subregion, its root first).
  // Events with the same non-zero `question` of the same `asker` (see Check) share one copy of
  // the nodes, and their words are taken to be the same (the same question's answer).
  void add(const TraceEvent& e, std::uint32_t first, std::span<const std::uint32_t> rest, std::string_view words = {},
           std::uint32_t asker = 0, std::uint32_t question = 0);
  // The reason in words, as the trace player and the CLI show it.
  std::string describe(const TraceEvent& e) const;
  // The nodes the event is about, as the trace player highlights them: a merge's node and the
  // operands it keeps (its nodes go on with the ones left out); every other event's nodes.
  std::span<const std::uint32_t> concerned(const TraceEvent& e) const;

 private:
  TraceEvent unpack(const detail::PackedEvent& p) const;
  struct NodeSpot {
    std::uint32_t chunk = 0, at = 0, size = 0;
  };
  std::uint32_t* reserve_nodes(std::size_t n, NodeSpot& at);  // room for an event's n nodes
  // `known`: where the words were stored for an earlier event, or kUnknownText (then set).
  void push(const TraceEvent& e, NodeSpot at, std::string_view words, std::int32_t* known = nullptr);
  static constexpr std::int32_t kUnknownText = -2;
  struct Asked {
    NodeSpot nodes;                     // size 0: not asked yet
    std::int32_t text = kUnknownText;  // the answer's words
  };

  static constexpr std::size_t kEventChunk = 4096;
  static constexpr std::size_t kNodeChunk = std::size_t{1} << 18;
  std::vector<std::vector<detail::PackedEvent>> events_;              // each reserved to kEventChunk, never beyond
  std::vector<std::vector<std::uint32_t>> node_chunks_;  // each an event's list whole, never beyond its reserve
  std::vector<std::string> texts_;
  std::vector<TraceEvent> wide_;
  std::uint32_t asker_ = 0;      // whose questions asked_ holds
  std::vector<Asked> asked_;     // by question: where its subregion's nodes and its words are
  std::size_t size_ = 0;
};

// Algorithms write to a sink; the null sink costs one virtual call and nothing else.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual bool enabled() const { return false; }
  virtual void record(const TraceEvent&, std::span<const std::uint32_t> /*nodes*/ = {}, std::string_view /*words*/ = {}) {}
  // An event about a subregion: its nodes are `root`, then `members` without it.
  // `check` says which question this was (Check::asker, Check::question): the same question's
  // nodes may be kept once.
  virtual void record_region(const TraceEvent& e, std::uint32_t root, std::span<const std::uint32_t> members,
                             std::string_view words = {}, const Check* check = nullptr);
};

class TraceLog : public TraceSink {
 public:
  bool enabled() const override { return true; }
  void record(const TraceEvent& e, std::span<const std::uint32_t> nodes = {}, std::string_view words = {}) override {
    trace.add(e, nodes, words);
  }
  void record_region(const TraceEvent& e, std::uint32_t root, std::span<const std::uint32_t> members,
                     std::string_view words = {}, const Check* check = nullptr) override {
    trace.add(e, root, members, words, check ? check->asker : 0, check ? check->question : 0);
  }
  Trace trace;
};

}  // namespace passlab::partition
