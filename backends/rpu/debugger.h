// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU debugger's engine: one chunk of a render, run once with every change recorded, then
// replayed both ways. Stepping forwards applies a step's changes; stepping back undoes them, so
// any position is exact and going forwards N steps and back N returns the starting state.
//
// A position p means steps 0 .. p-1 have run. The debugger follows one thread (a lane of the
// chunk): stepping moves until that thread has executed its next word (into), its next word at
// the same call depth or shallower (over), or a word that returns from its function (out), and
// the reverse of each. Run-to stops before any thread of the chunk executes a word that matches
// (breakpoints, the cursor), and selects that thread; run-to-NaN and run-to-fault stop after the
// word that made a NaN or faulted.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/rpu/scene_data.h"
#include "backends/rpu/vm.h"
#include "core/sim/scene.h"

namespace passlab::rpu {

// The chunk of a width x height render that shades pixel (x, y): the renderer groups the 2x2
// pixels (x & ~1, y & ~1) .. (x | 1, y | 1), row by row, skipping those outside the image.
struct PixelChunk {
  int lanes = 0;
  std::array<std::array<int, 2>, 4> pixel{};  // (x, y) of each lane
  int lane = 0;                               // the lane of the pixel asked for
  std::uint32_t index = 0;                    // the chunk's number, row-major over chunks
};
PixelChunk pixel_chunk(int x, int y, int width, int height);

// One chunk run with a recording: where its threads started, and every step after.
struct ChunkRun {
  PixelChunk chunk;
  std::array<ThreadState, 4> start;  // [0, chunk.lanes) are used
  Recording recording;
  VmStats stats;
};

// Runs the chunk of pixel (x, y) exactly as `render` would (same threads, constants, memory and
// trace unit), recording every step.
ChunkRun record_pixel_chunk(const Program& program, std::uint32_t main_entry, const SceneData& data, const sim::Scene& scene, int width,
                            int height, int x, int y, const Machine* machine = nullptr, bool ieee = false);

// What changed for one thread between two positions (for highlighting).
struct ThreadChanges {
  std::array<std::uint8_t, kRegCount> reg{};  // per register: the components that changed
  bool a = false, hit_address = false, frames = false;
  std::vector<std::uint32_t> stack;           // absolute slots written
  bool any() const;
};

enum class StopReason : std::uint8_t { None, Step, Breakpoint, NaN, Fault, Start, End };

class Debugger {
 public:
  explicit Debugger(ChunkRun run);

  const ChunkRun& run() const { return run_; }
  int lanes() const { return run_.chunk.lanes; }
  std::size_t position() const { return position_; }
  std::size_t step_count() const { return run_.recording.steps.size(); }
  const Step& step(std::size_t i) const { return run_.recording.steps[i]; }
  std::span<const Change> changes(std::size_t step) const;
  // The threads at the current position.
  const ThreadState& thread(int lane) const { return threads_[static_cast<std::size_t>(lane)]; }
  // Each lane's pc before step i ran (a lane not in the step keeps its pc across it).
  std::uint32_t pc_before(std::size_t step, int lane) const { return pc_before_[step][static_cast<std::size_t>(lane)]; }

  int lane() const { return lane_; }
  void select_lane(int lane);

  // The step lane `l` executes next (at or after the position), if it runs again.
  std::optional<std::size_t> next_step(int l) const;

  // Moves; each returns whether the position changed.
  bool step_into();
  bool step_over();
  bool step_out();
  bool back_into();
  bool back_over();
  bool back_out();
  // Forwards (backwards) to the first (last) step, strictly after (before) the position, whose
  // word any thread is about to execute matches `at` (pc -> stop?). A matching step found makes
  // the position that step, and selects its thread unless the selected one is in it.
  bool run_to(const std::function<bool(std::uint32_t)>& at);
  bool run_back_to(const std::function<bool(std::uint32_t)>& at);
  bool run_to_nan();    // stops after the next word that makes a NaN in a register or stack slot
  bool run_to_fault();  // stops after the next word that faults a thread
  void seek(std::size_t position);

  // What the last move changed for the selected thread, why it stopped, and in words.
  const ThreadChanges& changed() const { return changed_; }
  StopReason stop_reason() const { return reason_; }
  const std::string& stop_message() const { return message_; }

  // The depth of the selected thread's control stack now.
  std::size_t depth() const { return thread(lane_).frames.size(); }

 private:
  void apply(std::size_t i);
  void undo(std::size_t i);
  void move_to(std::size_t p, StopReason reason);  // applies or undoes, and collects changes
  bool lane_in(std::size_t step, int l) const { return (run_.recording.steps[step].lanes >> l) & 1u; }

  ChunkRun run_;
  std::vector<std::array<std::uint32_t, 4>> pc_before_;
  std::array<ThreadState, 4> threads_;
  std::size_t position_ = 0;
  int lane_ = 0;
  ThreadChanges changed_;
  StopReason reason_ = StopReason::Start;
  std::string message_;
};

// Whether any of `components` (bits x, y, z, w) of v is NaN.
bool has_nan(const Vec4& v, std::uint8_t components = 0xF);
// The name of a thread register index (ThreadState::reg): "R0" .. "R15", "S", "I0" .. "I3", "HIT".
std::string thread_register_name(int index);

}  // namespace passlab::rpu
