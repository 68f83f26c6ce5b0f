// SPDX-License-Identifier: GPL-3.0-or-later
// The machine model: chunks in flight on multithreaded cores with trace units (machine_model.h).
// Event-driven: the model visits only cycles in which something can happen (a word can issue, a
// chunk can arrive) and counts the cycles between as idle.
#include "backends/rpu/machine_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace passlab::rpu {

namespace {

constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

Idle idle_of(WaitCause c) {
  switch (c) {
    case WaitCause::Memory: return Idle::Memory;
    case WaitCause::Trace: return Idle::Trace;
    default: return Idle::Arithmetic;
  }
}

std::size_t at(Idle c) { return static_cast<std::size_t>(c); }

}  // namespace

const char* idle_name(Idle cause) {
  switch (cause) {
    case Idle::NoChunk: return "no chunk";
    case Idle::Arithmetic: return "arithmetic";
    case Idle::Memory: return "memory";
    case Idle::Trace: return "trace";
    case Idle::TraceQueue: return "trace queue full";
    default: return "?";
  }
}

struct MachineModel::Resident {
  std::uint32_t chunk = 0;  // into timings_
  IssueTrace trace;
  // Per word issued: when it issued, or for a trace when its HIT can be read (every result of a
  // trace word is its HIT, so readers of a trace word wait for the answer, others add latency).
  std::vector<std::uint64_t> at;
  std::size_t next = 0;                 // the next word to issue
  std::uint64_t earliest = 0;           // its earliest issue: after the last word, or on arrival
  std::uint64_t ready_at = 0;           // when the next word's sources are ready (>= earliest)
  Idle cause = Idle::NoChunk;           // what ready_at waits for (NoChunk: nothing)
  std::uint64_t queue_ready = 0;        // when the trace queue had room for the next word
  bool occupied = false;
};

struct MachineModel::Core {
  std::vector<Resident> slots;
  std::size_t last = 0;                 // the slot issued last (round robin starts after it)
  std::vector<std::uint64_t> pipe_free;  // when each trace pipeline is free
  std::deque<std::uint64_t> waiting;     // start times of the rays still queued (nondecreasing)
  std::uint64_t last_issue = 0;
  bool ever_issued = false;
  int resident = 0;
};

MachineModel::MachineModel(const Machine& machine) : machine_(machine) {
  stats_.cores = machine.cores;
  stats_.chunks_in_flight = machine.chunks_in_flight;
  stats_.pipelines = machine.trace_unit.pipelines;
  cores_.resize(static_cast<std::size_t>(machine.cores));
  for (Core& c : cores_) {
    c.slots.resize(static_cast<std::size_t>(machine.chunks_in_flight));
    c.last = c.slots.size() - 1;  // the first look starts at slot 0
    c.pipe_free.assign(static_cast<std::size_t>(machine.trace_unit.pipelines), 0);
  }
}

MachineModel::~MachineModel() = default;
MachineModel::MachineModel(MachineModel&&) noexcept = default;

void MachineModel::push(IssueTrace chunk) {
  const auto index = next_chunk_++;
  ChunkTiming t;
  t.words = chunk.words.size();
  timings_.push_back(t);
  stats_.vm_cycles += chunk.vm_cycles;
  ++stats_.chunks;
  pending_.emplace_back(index, std::move(chunk));
  advance();
}

void MachineModel::finish() {
  finished_ = true;
  advance();
}

void MachineModel::admit(Core& core, std::uint32_t core_index) {
  auto [index, trace] = std::move(pending_.front());
  pending_.pop_front();
  ChunkTiming& t = timings_[index];
  t.core = core_index;
  t.admitted = t.retired = now_;
  if (trace.words.empty()) return;  // nothing to issue: it passes through
  auto slot = std::find_if(core.slots.begin(), core.slots.end(), [](const Resident& r) { return !r.occupied; });
  Resident& r = *slot;
  r.chunk = index;
  r.trace = std::move(trace);
  r.at.assign(r.trace.words.size(), 0);
  r.next = 0;
  r.earliest = now_;
  r.queue_ready = 0;
  r.occupied = true;
  ++core.resident;
  prepare_next(r);
}

// The next word's readiness: the latest of its sources, and what that one waits for.
void MachineModel::prepare_next(Resident& r) {
  const IssueTrace::Word& w = r.trace.words[r.next];
  r.ready_at = r.earliest;
  r.cause = Idle::NoChunk;
  for (std::uint32_t k = 0; k < w.dep_count; ++k) {
    const IssueTrace::Dep& d = r.trace.deps[w.first_dep + k];
    const std::uint64_t ready = d.cause == WaitCause::Trace ? r.at[d.word] : r.at[d.word] + d.latency;
    if (ready > r.ready_at) {
      r.ready_at = ready;
      r.cause = idle_of(d.cause);
    }
  }
  r.queue_ready = 0;
}

// The first cycle from now at which the trace queue has room for `rays` more.
std::uint64_t MachineModel::queue_room_at(const Core& core, int rays) const {
  const std::size_t limit = static_cast<std::size_t>(machine_.trace_unit.queue);
  const std::size_t need = core.waiting.size() + static_cast<std::size_t>(rays);
  if (rays == 0 || need <= limit) return now_;
  return core.waiting[need - limit - 1];  // once that ray has started, enough have left
}

bool MachineModel::try_issue(Core& core) {
  while (!core.waiting.empty() && core.waiting.front() <= now_) core.waiting.pop_front();
  const std::size_t n = core.slots.size();
  for (std::size_t step = 1; step <= n; ++step) {
    const std::size_t s = (core.last + step) % n;
    Resident& r = core.slots[s];
    if (!r.occupied || r.ready_at > now_) continue;
    const IssueTrace::Word& w = r.trace.words[r.next];
    const std::uint64_t room = queue_room_at(core, w.rays);
    if (room > now_) {
      r.queue_ready = std::max(r.queue_ready, room);
      continue;
    }
    // It issues: what it waited for, and for how long it was passed over.
    ChunkTiming& t = timings_[r.chunk];
    if (r.cause != Idle::NoChunk) t.wait[at(r.cause)] += r.ready_at - r.earliest;
    const std::uint64_t queue_from = std::max(r.ready_at, r.earliest);
    const std::uint64_t queue_until = std::min(now_, std::max(queue_from, r.queue_ready));
    t.wait[at(Idle::TraceQueue)] += queue_until - queue_from;
    t.switched += now_ - queue_until;
    if (w.rays) {
      const Machine::TraceUnit& tu = machine_.trace_unit;
      std::uint64_t answered = 0;
      for (std::uint32_t k = 0; k < w.rays; ++k) {
        const IssueTrace::Ray& ray = r.trace.rays[w.first_ray + k];
        auto pipe = std::min_element(core.pipe_free.begin(), core.pipe_free.end());
        const std::uint64_t start = std::max(now_, *pipe);
        const double work = std::ceil(static_cast<double>(ray.boxes) * tu.box_cycles + static_cast<double>(ray.triangles) * tu.triangle_cycles);
        const std::uint64_t service = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(work));
        *pipe = start + service;
        const std::uint64_t done = start + service + static_cast<std::uint64_t>(tu.latency);
        answered = std::max(answered, done);
        if (start > now_) core.waiting.push_back(start);
        stats_.trace_busy += service;
        stats_.trace_queue_wait += start - now_;
        stats_.trace_latency += done - now_;
        ++stats_.rays;
      }
      stats_.max_queue = std::max<std::uint64_t>(stats_.max_queue, core.waiting.size());
      r.at[r.next] = answered;
    } else {
      r.at[r.next] = now_;
    }
    ++stats_.issues;
    stats_.lane_issues += w.lanes;
    core.last = s;
    core.last_issue = now_;
    core.ever_issued = true;
    ++r.next;
    if (r.next == r.trace.words.size()) {
      t.retired = now_;
      stats_.resident += t.resident();
      r.occupied = false;
      r.trace = IssueTrace{};
      r.at.clear();
      --core.resident;
    } else {
      r.earliest = now_ + 1;
      prepare_next(r);
    }
    return true;
  }
  return false;
}

void MachineModel::advance() {
  const int capacity = machine_.chunks_in_flight;
  for (;;) {
    // Arrivals: every core with a free slot takes the next chunks, in core order. Without the
    // next chunk the model cannot go on before it is pushed (or finish() says there is none).
    for (std::uint32_t ci = 0; ci < cores_.size(); ++ci) {
      Core& core = cores_[ci];
      while (core.resident < capacity) {
        if (pending_.empty()) {
          if (!finished_) return;
          break;
        }
        admit(core, ci);
      }
    }
    bool any_issued = false;
    std::vector<char>& issued = issued_;
    std::vector<Idle>& cause = cause_;
    issued.assign(cores_.size(), 0);  // the same size every cycle: no allocation after the first
    cause.assign(cores_.size(), Idle::NoChunk);
    for (std::size_t ci = 0; ci < cores_.size(); ++ci) {
      issued[ci] = try_issue(cores_[ci]);
      any_issued = any_issued || issued[ci];
    }
    // The next cycle in which anything can happen, and what each core waits for until then. When
    // a core issued, that is the next cycle, and only the others' causes are wanted.
    std::uint64_t next = any_issued ? now_ + 1 : kNever;
    for (std::size_t ci = 0; ci < cores_.size(); ++ci) {
      if (issued[ci]) continue;
      Core& core = cores_[ci];
      if (core.resident < capacity && (!pending_.empty() || !finished_)) next = std::min(next, now_ + 1);
      std::uint64_t soonest = kNever;
      for (Resident& r : core.slots) {
        if (!r.occupied) continue;
        std::uint64_t when = std::max(r.ready_at, now_ + 1);
        Idle why = r.cause;
        const std::uint64_t room = queue_room_at(core, r.trace.words[r.next].rays);
        if (room > when) {
          when = room;
          why = Idle::TraceQueue;
          r.queue_ready = std::max(r.queue_ready, room);
        }
        if (when < soonest) {
          soonest = when;
          cause[ci] = why == Idle::NoChunk ? Idle::Arithmetic : why;
        }
      }
      next = std::min(next, soonest);
    }
    if (next == kNever) break;  // nothing left anywhere
    for (std::size_t ci = 0; ci < cores_.size(); ++ci) stats_.idle[at(cause[ci])] += (next - now_) - (issued[ci] ? 1 : 0);
    now_ = next;
  }
  stats_.cycles = 0;
  for (const Core& c : cores_)
    if (c.ever_issued) stats_.cycles = std::max(stats_.cycles, c.last_issue + 1);
  if (!finished_ || !pending_.empty()) return;
  // Rays still traversing after the last word (a trace whose HIT nobody reads) keep the machine
  // busy: the run ends when the trace units are done, so their occupancy stays at most 1.
  std::uint64_t tail = stats_.cycles;
  for (const Core& c : cores_)
    for (std::uint64_t free : c.pipe_free) tail = std::max(tail, free);
  stats_.idle[at(Idle::Trace)] += (tail - stats_.cycles) * cores_.size();
  stats_.cycles = tail;
}

}  // namespace passlab::rpu
