// SPDX-License-Identifier: GPL-3.0-or-later
// The words of a partitioning trace, written only when someone reads them.
#include "core/partition/trace.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

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
  std::vector<std::vector<detail::PackedEvent>> events;
  std::vector<std::vector<std::uint32_t>> nodes;
  std::size_t bytes = 0;
};

ChunkPool& pool() {
  static ChunkPool* p = new ChunkPool;  // never destroyed: traces may die after main returns
  return *p;
}

// Maps a new chunk's pages in one call: touched one by one as events arrive, each page took a
// fault, which on a virtual machine cost a one-shot `passlab-cli partition --trace` more than
// the recording itself. Best effort (Linux 5.14 and later); elsewhere the pages fault as usual.
void prefault(void* data, std::size_t bytes) {
#ifdef __linux__
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
  std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)bytes;
#endif
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
  prefault(chunk.data(), capacity * sizeof(T));
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

std::uint32_t* Trace::reserve_nodes(std::size_t n, NodeSpot& at) {
  at = NodeSpot{0, 0, static_cast<std::uint32_t>(n)};
  if (n == 0) return nullptr;
  if (node_chunks_.empty() || node_chunks_.back().size() + n > node_chunks_.back().capacity())
    node_chunks_.push_back(n <= kNodeChunk ? take_chunk(pool().nodes, kNodeChunk) : take_chunk(pool().nodes, n));
  std::vector<std::uint32_t>& chunk = node_chunks_.back();
  at.chunk = static_cast<std::uint32_t>(node_chunks_.size() - 1);
  at.at = static_cast<std::uint32_t>(chunk.size());
  chunk.resize(chunk.size() + n);  // within the reserve: never moves
  return chunk.data() + at.at;
}

void Trace::add(const TraceEvent& e, std::span<const std::uint32_t> nodes, std::string_view words) {
  NodeSpot at;
  if (std::uint32_t* out = reserve_nodes(nodes.size(), at)) std::copy(nodes.begin(), nodes.end(), out);
  push(e, at, words);
}

void Trace::add(const TraceEvent& e, std::uint32_t first, std::span<const std::uint32_t> rest, std::string_view words,
                std::uint32_t asker, std::uint32_t question) {
  // Numbered questions are dense from 1 (a memo's misses); past a bound they are not looked up.
  constexpr std::uint32_t kMostQuestions = 1u << 20;
  if (question >= kMostQuestions) question = 0;
  if (question != 0 && asker != asker_) {  // another memo: its numbers mean other questions
    asker_ = asker;
    asked_.clear();
  }
  if (question != 0) {
    if (question >= asked_.size()) asked_.resize(std::max<std::size_t>(question + 1, asked_.size() * 2));
    Asked& a = asked_[question];
    if (a.nodes.size != 0) return push(e, a.nodes, words, &a.text);
  }
  const bool holds = std::find(rest.begin(), rest.end(), first) != rest.end();
  NodeSpot at;
  std::uint32_t* out = reserve_nodes(rest.size() + (holds ? 0 : 1), at);
  *out++ = first;
  for (std::uint32_t n : rest)
    if (n != first) *out++ = n;
  if (question == 0) return push(e, at, words);
  asked_[question].nodes = at;
  push(e, at, words, &asked_[question].text);
}

// Writes the stored form in place, field by field: building it aside and copying it in made
// every event wait on its own narrow stores (a store-forwarding stall per copied word).
void Trace::push(const TraceEvent& e, NodeSpot at, std::string_view words, std::int32_t* known) {
  std::int32_t text = -1;
  if (known && *known != kUnknownText) {
    text = *known;  // the same question: the same answer
  } else if (!words.empty()) {
    // Failures repeat ("registers: 5 > 4", "operations: 7 > 6", check after check): words equal
    // to one of the last few stored are not stored again.
    const std::size_t n = texts_.size();
    for (std::size_t k = n; k > 0 && k + 8 > n; --k)
      if (texts_[k - 1] == words) {
        text = static_cast<std::int32_t>(k - 1);
        break;
      }
    if (text < 0) {
      texts_.emplace_back(words);
      text = static_cast<std::int32_t>(n);
    }
  }
  if (known) *known = text;
  if (size_ % kEventChunk == 0) events_.push_back(take_chunk(pool().events, kEventChunk));
  detail::PackedEvent& p = events_.back().emplace_back();
  ++size_;
  p.kind = e.kind;
  p.why = e.why;
  p.ok = e.ok;
  p.nodes_chunk = at.chunk;
  p.nodes_at = at.at;
  p.nodes_size = at.size;
  p.text = text;
  p.user = e.user;
  p.kept = static_cast<std::uint16_t>(e.kept);
  p.candidates = static_cast<std::uint16_t>(e.candidates);
  p.pass = static_cast<std::int16_t>(e.pass);
  p.stage = static_cast<std::int16_t>(e.stage);
  const Resources& r = e.resources;
  p.resources[0] = static_cast<std::uint16_t>(r.operations);
  p.resources[1] = static_cast<std::uint16_t>(r.registers);
  p.resources[2] = static_cast<std::uint16_t>(r.textures);
  p.resources[3] = static_cast<std::uint16_t>(r.interpolants);
  p.resources[4] = static_cast<std::uint16_t>(r.dependent_levels);
  p.resources[5] = static_cast<std::uint16_t>(r.texture_fetches);
  p.resources[6] = static_cast<std::uint16_t>(r.restores);
  p.resources[7] = static_cast<std::uint16_t>(r.arithmetic);
  auto small = [](int v) { return v >= 0 && v <= 0xffff; };
  p.wide = e.cost_save != 0 || e.cost_recompute != 0 || e.kept > 0xffff || e.candidates > 0xffff || e.pass < -0x8000 ||
           e.pass > 0x7fff || e.stage < -0x8000 || e.stage > 0x7fff || !small(r.operations) || !small(r.registers) ||
           !small(r.textures) || !small(r.interpolants) || !small(r.dependent_levels) || !small(r.texture_fetches) ||
           !small(r.restores) || !small(r.arithmetic) || r.outputs < 0 || r.outputs > 1;
  p.one_output = r.outputs == 1;
  if (p.wide) {
    p.user = static_cast<std::uint32_t>(wide_.size());
    TraceEvent& w = wide_.emplace_back(e);
    w.nodes_chunk = at.chunk;
    w.nodes_at = at.at;
    w.nodes_size = at.size;
    w.text = text;
  }
}

static_assert(sizeof(Resources) == 9 * sizeof(int), "Trace::push and unpack list every count of Resources");

TraceEvent Trace::unpack(const detail::PackedEvent& p) const {
  if (p.wide) return wide_[p.user];
  TraceEvent e;
  e.kind = p.kind;
  e.why = p.why;
  e.ok = p.ok;
  e.nodes_chunk = p.nodes_chunk;
  e.nodes_at = p.nodes_at;
  e.nodes_size = p.nodes_size;
  e.text = p.text;
  e.user = p.user;
  e.kept = p.kept;
  e.candidates = p.candidates;
  e.pass = p.pass;
  e.stage = p.stage;
  Resources& r = e.resources;
  int* counts[8] = {&r.operations, &r.registers, &r.textures, &r.interpolants, &r.dependent_levels, &r.texture_fetches, &r.restores, &r.arithmetic};
  for (int i = 0; i < 8; ++i) *counts[i] = p.resources[i];
  r.outputs = p.one_output ? 1 : 0;
  return e;
}

void TraceSink::record_region(const TraceEvent& e, std::uint32_t root, std::span<const std::uint32_t> members,
                              std::string_view words, const Check* /*check*/) {
  if (!enabled()) return;
  std::vector<std::uint32_t> nodes{root};
  for (std::uint32_t n : members)
    if (n != root) nodes.push_back(n);
  record(e, nodes, words);
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
    case Why::Repair: return fmt::format("n{}'s pass no longer fits now that later merges marked nodes inside it: it merges again", n);
  }
  return text(e);
}

std::span<const std::uint32_t> Trace::concerned(const TraceEvent& e) const {
  const auto all = nodes(e);
  return e.why == Why::Merge && !all.empty() ? all.first(std::min<std::size_t>(all.size(), 1 + e.kept)) : all;
}

}  // namespace passlab::partition
