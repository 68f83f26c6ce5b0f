// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU virtual machine (thesis ch. 2 and 4): per-thread registers, the two synchronised
// stacks with the 8-slot window, code and data memories, `trace` against a scene, and chunks
// of four threads that run in lockstep, split on divergent control and merge at `return`.
//
// Execution model, where the thesis leaves it open (documented in backends/rpu/README.md):
// - A chunk runs one group of lanes at a time. A conditional jump, call or return whose lanes
//   disagree splits the group; the lanes that fall through run first, then the others. Every
//   split records the depth of the control stack it happened at; a group that reaches a
//   `return` at that depth waits there until every group of the split has arrived, and then they
//   return together (a divergent call through a register merges when the callees return).
// - Timing follows the scheduler's model: a word issued in cycle c with latency L makes its
//   result readable from cycle c + L; a word waits (a stall, which the hardware fills with
//   another chunk) until its sources are ready. A conditional control part resolves when its
//   operation's result is ready. The chunk's lanes share one scoreboard.
// - Derivatives (Passlab's extension, quad.h): in a program that takes any (`ddx`, `ddy`), a
//   ray's hit runs its shader in a quad of its own, nested in the chunk: the anchor thread and a
//   helper for each quad partner. The quad's threads meet at every `ddx`, `ddy` and `trace`
//   (a group waits there until no other group of the quad can run, as a GPU's quad shares those
//   instructions), so branches that split them do not lose the partner. Outside a quad the
//   differences are NaN. A helper's own hits shade nothing (it sees the background colour, C30),
//   its stores and faults are dropped, and its instructions count as the quad's.
// - Faults (an address outside memory, a call to a non-code address, runaway recursion, too
//   many steps) stop the thread with a message naming the thread and the PC; the others go on.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/rpu/issue_trace.h"
#include "backends/rpu/machine.h"
#include "backends/rpu/program.h"

namespace passlab::rpu {

// Per-thread register file indices (everything that holds a 4-vector).
enum : std::uint8_t { kRegR0 = 0, kRegS = 16, kRegI0 = 17, kRegHit = 21, kRegCount = 22 };

struct Frame {
  std::uint32_t return_address = 0;
  std::uint32_t push = 0;
  friend bool operator==(const Frame&, const Frame&) = default;
};

enum class ThreadStatus : std::uint8_t { Running, Done, Faulted };

struct ThreadState {
  std::array<Vec4, kRegCount> reg{};  // R0-R15, S, I0-I3, HIT
  std::array<std::int32_t, 4> a{};    // A.x-A.w
  std::int32_t hit_tri = -1, hit_obj = -1;
  std::vector<Vec4> stack;             // the data stack; S0-S7 is stack[base .. base + 7]
  std::uint32_t base = 0;
  std::vector<Frame> frames;           // the control stack
  std::uint32_t pc = 0;
  ThreadStatus status = ThreadStatus::Running;
  std::uint64_t steps = 0;
  std::string fault;  // when Faulted: what happened, at which PC

  Vec4& r(int i) { return reg[static_cast<std::size_t>(i)]; }
  const Vec4& r(int i) const { return reg[static_cast<std::size_t>(i)]; }
  friend bool operator==(const ThreadState&, const ThreadState&) = default;
};

// What a ray cast returns: HIT = (u, v, t, shader address) with t < 0 on a miss; the addresses
// of the triangle record (HIT_TRI) and the object record (HIT_OBJ), -1 on a miss.
struct Hit {
  float u = 0, v = 0, t = -1, shader = -1;
  std::int32_t triangle = -1, object = -1;
  // The work the unit did (boxes and triangles tested), for the machine model's trace unit.
  std::uint32_t boxes = 0, triangles = 0;
};

// The ray-tracing unit: a black box to the shaders (thesis §4.1).
class TraceUnit {
 public:
  virtual ~TraceUnit() = default;
  // args = the trace instruction's third operand: x = t_min, y = t_max (a hit has
  // t_min < t < t_max); z and w are reserved.
  virtual Hit trace(const Vec4& origin, const Vec4& direction, const Vec4& args) const = 0;
};

// Counters a run accumulates; tests, the CLI and the Studio read them.
struct VmStats {
  std::uint64_t instructions = 0;      // instructions executed, one per active lane
  std::uint64_t issues = 0;            // words issued by chunks
  std::uint64_t paired_issues = 0;     // of those, 3/1 or 2/2 pairs
  std::uint64_t cycles = 0;            // issue cycles plus stalls, summed over chunks
  std::uint64_t stalls = 0;            // cycles a chunk waited for a result
  std::uint64_t partial_issues = 0;    // issues with some running lane of the chunk inactive
  std::uint64_t lane_slots = 0;        // issues x lanes the chunk started with
  std::uint64_t lane_issues = 0;       // active lanes summed over issued words (a pair counts once)
  std::uint64_t splits = 0, merges = 0;
  std::uint64_t traces = 0, calls = 0, loads = 0, stores = 0;
  std::uint64_t threads = 0, faults = 0;
  std::uint64_t quads = 0;             // shader runs in a quad with helpers (derivatives)

  // Active lanes per issued word over the lanes the chunk started with (1 when never divergent;
  // a paired word is one issue, so pairs cannot lift it above 1).
  double occupancy() const { return lane_slots ? static_cast<double>(lane_issues) / static_cast<double>(lane_slots) : 1.0; }
  VmStats& operator+=(const VmStats& o);
};

// ---- recording (for the debugger: every change, so any step can be undone) ------------------

enum class ChangeKind : std::uint8_t {
  Register,  // reg[index]: before -> after
  Address,   // a (the four lanes in `before`/`after` as floats) and hit_tri/hit_obj in z/w
  Stack,     // stack[index] (absolute slot)
  Push,      // a frame pushed (return address, push in before.x/.y); base moved by push
  Pop,       // a frame popped (the frame in before.x/.y); base moved back
  Status,    // status and pc: before = (status, pc), after = (status, pc)
};

struct Change {
  ChangeKind kind = ChangeKind::Register;
  std::uint8_t lane = 0;  // the thread in its chunk
  std::uint32_t index = 0;
  Vec4 before{}, after{};
};

// One issued word: which chunk, at which PC, for which lanes, and its changes.
struct Step {
  std::uint32_t chunk = 0;
  std::uint32_t pc = 0;
  std::uint8_t lanes = 0;       // active lanes
  std::uint64_t cycle = 0;      // the chunk's cycle at issue
  std::uint32_t stall = 0;      // cycles waited before it
  std::uint32_t first_change = 0, change_count = 0;
  std::array<std::uint32_t, 4> next_pc{};  // each active lane's pc afterwards
  bool merged = false;  // a return made when a split merged again: no word was issued
};

struct Recording {
  std::vector<Step> steps;
  std::vector<Change> changes;
  std::vector<std::string> faults;  // in the order they happened
};

// ---- the machine ----------------------------------------------------------------------------

struct VmOptions {
  const Machine* machine = nullptr;  // null: the default machine
  bool ieee = false;                 // IEEE single arithmetic even if the machine is fp24
};

class Vm {
 public:
  Vm(const Program& program, const VmOptions& options = {});
  ~Vm();
  Vm(const Vm&) = delete;
  Vm& operator=(const Vm&) = delete;

  // The constant registers: the program's `.const` values from the start.
  std::array<Vec4, 32>& constants() { return constants_; }
  // Data memory, one 4-vector per address. Read-only memory makes `store` fault (the renderer
  // shares one scene among its threads).
  void set_memory(std::vector<Vec4>* memory, bool writable);
  void set_memory(const std::vector<Vec4>* memory);
  void set_trace_unit(const TraceUnit* unit) { trace_ = unit; }
  // When set, every chunk run appends its issued words and their dependences to `trace` (for
  // the machine model); null stops recording.
  void set_issue_trace(IssueTrace* trace) { issue_trace_ = trace; }
  const Program& program() const { return program_; }
  const Machine& machine() const { return *machine_; }

  // Runs up to four threads as one chunk until every one is done or faulted. Each thread
  // starts at its own pc with its own registers and stacks. `chunk` labels recorded steps.
  void run_chunk(std::span<ThreadState> threads, VmStats& stats, Recording* record = nullptr, std::uint32_t chunk = 0);

  // The renderer's fast path: up to four fresh threads (every register zero, empty stacks)
  // entering `entry` with R0 given; afterwards each one's R0, status, steps and fault.
  struct FreshResult {
    std::array<Vec4, 4> r0{};
    std::array<ThreadStatus, 4> status{};
    std::array<std::uint64_t, 4> steps{};
    std::array<std::string, 4> fault;
  };
  void run_fresh_chunk(std::uint32_t entry, std::span<const Vec4> r0, VmStats& stats, FreshResult& out);
  // One thread alone (a chunk of one).
  void run(ThreadState& thread, VmStats& stats, Recording* record = nullptr);
  // Where each thread of the next chunks sits in its 2x2 pixel quad (0 top left, 1 top right,
  // 2 bottom left, 3 bottom right; by default thread k at k): a quad's helpers take their rays
  // from the threads beside and above or below. The renderer packs a chunk at the image's edge.
  void set_quad_positions(const std::array<std::uint8_t, 4>& positions) { positions_ = positions; }
  // Whether the program takes screen-space differences, so that hits shade in quads.
  bool takes_derivatives() const { return derivatives_; }

 private:
  struct Decoded;
  struct Group;
  struct Chunk;
  template <bool kRecord>
  class Runner;  // vm_run.cpp
  // Runs the chunk loaded in chunk_ (n threads).
  template <bool kRecord>
  void run_loaded(int n, VmStats& stats, Recording* record, std::uint32_t chunk);

  const Program& program_;
  const Machine* machine_;
  bool fp24_;
  std::vector<Decoded> code_;
  std::array<Vec4, 32> constants_{};
  std::vector<Vec4>* memory_ = nullptr;
  const std::vector<Vec4>* memory_ro_ = nullptr;
  const TraceUnit* trace_ = nullptr;
  IssueTrace* issue_trace_ = nullptr;
  std::unique_ptr<Chunk> chunk_;  // reused from chunk to chunk (a Vm serves one host thread)
  std::array<std::uint8_t, 4> positions_{0, 1, 2, 3};
  bool derivatives_ = false;
};

// A thread about to run `entry` with nothing else set (registers zero, empty stacks).
ThreadState thread_at(std::uint32_t entry);

}  // namespace passlab::rpu
