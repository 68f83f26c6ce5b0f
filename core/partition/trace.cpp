// The words of a partitioning trace, written only when someone reads them.
#include "core/partition/trace.h"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

namespace passlab::partition {

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::Visit: return "visit";
    case EventKind::ValidCheck: return "valid";
    case EventKind::SaveRecompute: return "save-recompute";
    case EventKind::MergeChoice: return "merge";
    case EventKind::Mark: return "mark";
    case EventKind::Unmark: return "unmark";
    case EventKind::SearchTrial: return "search";
    case EventKind::Bound: return "bound";
    case EventKind::Done: return "done";
    case EventKind::Codegen: return "codegen";
  }
  return "?";
}

const std::string& Trace::text(const TraceEvent& e) const {
  static const std::string none;
  return e.text >= 0 && static_cast<std::size_t>(e.text) < texts_.size() ? texts_[static_cast<std::size_t>(e.text)] : none;
}

namespace {

// The chunks of finished traces, for the next ones.
struct ChunkPool {
  static constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
  std::mutex mutex;
  std::vector<std::vector<TraceEvent>> events;
  std::vector<std::vector<std::uint32_t>> nodes;
  std::size_t bytes = 0;
};

ChunkPool& pool() {
  static ChunkPool* p = new ChunkPool;  // never destroyed: traces may die after main returns
  return *p;
}

template <class T>
std::vector<T> take_chunk(std::vector<std::vector<T>>& spare, std::size_t capacity) {
  {
    ChunkPool& p = pool();
    std::lock_guard lock(p.mutex);
    if (!spare.empty() && spare.back().capacity() >= capacity) {
      std::vector<T> chunk = std::move(spare.back());
      spare.pop_back();
      p.bytes -= chunk.capacity() * sizeof(T);
      return chunk;
    }
  }
  std::vector<T> chunk;
  chunk.reserve(capacity);
  return chunk;
}

template <class T>
void give_back(std::vector<std::vector<T>>& chunks, std::vector<std::vector<T>>& spare, std::size_t capacity) {
  ChunkPool& p = pool();
  std::lock_guard lock(p.mutex);
  for (std::vector<T>& c : chunks) {
    const std::size_t bytes = c.capacity() * sizeof(T);
    if (c.capacity() != capacity || p.bytes + bytes > ChunkPool::kMaxBytes) continue;
    c.clear();
    p.bytes += bytes;
    spare.push_back(std::move(c));
  }
}

}  // namespace

Trace::~Trace() {
  give_back(events_, pool().events, kEventChunk);
  give_back(node_chunks_, pool().nodes, kNodeChunk);
}

void Trace::add(TraceEvent e, std::span<const std::uint32_t> nodes, std::string_view words) {
  e.nodes_size = static_cast<std::uint32_t>(nodes.size());
  e.nodes_chunk = e.nodes_at = 0;
  if (!nodes.empty()) {
    if (node_chunks_.empty() || node_chunks_.back().size() + nodes.size() > node_chunks_.back().capacity())
      node_chunks_.push_back(nodes.size() <= kNodeChunk ? take_chunk(pool().nodes, kNodeChunk) : take_chunk(pool().nodes, nodes.size()));
    std::vector<std::uint32_t>& chunk = node_chunks_.back();
    e.nodes_chunk = static_cast<std::uint32_t>(node_chunks_.size() - 1);
    e.nodes_at = static_cast<std::uint32_t>(chunk.size());
    chunk.insert(chunk.end(), nodes.begin(), nodes.end());
  }
  e.text = -1;
  if (!words.empty()) {
    // Failures repeat ("registers: 5 > 4" for check after check): the same words are kept once.
    if (texts_.empty() || texts_.back() != words) texts_.emplace_back(words);
    e.text = static_cast<std::int32_t>(texts_.size() - 1);
  }
  if (size_ % kEventChunk == 0) events_.push_back(take_chunk(pool().events, kEventChunk));
  events_.back().push_back(e);
  ++size_;
}

std::string Trace::describe(const TraceEvent& e) const {
  const auto ns = nodes(e);
  const std::uint32_t n = ns.empty() ? 0 : ns[0];
  switch (e.why) {
    case Why::Text: return text(e);
    case Why::Subdivide: return fmt::format("Subdivide n{}", n);
    case Why::Fits: return fmt::format("the subregion of n{} ({} nodes) fits in one pass", n, ns.size());
    case Why::DoesNotFit: return fmt::format("the subregion of n{} ({} nodes) does not fit: {}", n, ns.size(), text(e));
    case Why::FixedSave: return fmt::format("n{} is fixed to be saved", n);
    case Why::FixedRecompute: return fmt::format("n{} is fixed to be recomputed", n);
    case Why::SaveHalf: return fmt::format("save n{}: its subregion uses half or more of a resource", n);
    case Why::RecomputeBelowHalf: return fmt::format("recompute n{}: every resource of its subregion is below half the limit", n);
    case Why::Merge: {
      std::string kept, left;
      for (std::size_t i = 1; i < ns.size(); ++i) (i <= e.kept ? kept : left) += fmt::format(" n{}", ns[i]);
      return fmt::format("n{} merges with{}{}", n, kept.empty() ? " none of its operands" : kept, left.empty() ? "" : "; left out:" + left) +
             (e.candidates > 1 ? fmt::format(" (MERGE chose the smallest of {} candidates)", e.candidates) : "");
    }
    case Why::CannotJoinUser: return fmt::format("n{} cannot join its user n{} in one pass", n, e.user);
    case Why::AloneDoesNotFit: return fmt::format("n{} alone does not fit the target", e.user);
    case Why::OutputLastPass: return "the output heads the last pass";
    case Why::Trial:
      return fmt::format("n{}: saving costs {:g}, recomputing costs {:g}: {}", n, e.cost_save, e.cost_recompute, e.ok ? "save" : "recompute");
    case Why::Proven: return fmt::format("proven optimal: cost {:g}", e.cost_save);
    case Why::BestWithinBudget: return fmt::format("best within budget: cost {:g}, no partition below {:g}", e.cost_save, e.cost_recompute);
    case Why::Found: return fmt::format("a partition costing {:g} found", e.cost_save);
  }
  return text(e);
}

std::span<const std::uint32_t> Trace::concerned(const TraceEvent& e) const {
  const auto all = nodes(e);
  return e.why == Why::Merge && !all.empty() ? all.first(std::min<std::size_t>(all.size(), 1 + e.kept)) : all;
}

}  // namespace passlab::partition
