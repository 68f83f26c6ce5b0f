// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU debugger's engine: a recorded chunk replayed both ways.
#include "backends/rpu/debugger.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "backends/rpu/render.h"

namespace passlab::rpu {

PixelChunk pixel_chunk(int x, int y, int width, int height) {
  PixelChunk c;
  const int x0 = x & ~1, y0 = y & ~1;
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const int px = x0 + dx, py = y0 + dy;
      if (px >= width || py >= height) continue;
      if (px == x && py == y) c.lane = c.lanes;
      c.pixel[static_cast<std::size_t>(c.lanes++)] = {px, py};
    }
  c.index = static_cast<std::uint32_t>((y0 / 2) * ((width + 1) / 2) + x0 / 2);
  return c;
}

ChunkRun record_pixel_chunk(const Program& program, std::uint32_t main_entry, const SceneData& data, const sim::Scene& scene, int width,
                            int height, int x, int y, const Machine* machine, bool ieee) {
  ChunkRun out;
  out.chunk = pixel_chunk(x, y, width, height);
  VmOptions vo;
  vo.machine = machine;
  vo.ieee = ieee;
  Vm vm(program, vo);
  vm.constants() = scene_constants(scene, data, program);
  vm.set_memory(&data.memory());
  vm.set_trace_unit(&data);
  std::array<ThreadState, 4> threads;
  std::array<std::uint8_t, 4> positions{};  // in the pixel quad, as the renderer packs them (quad.h)
  for (int l = 0; l < out.chunk.lanes; ++l) {
    const auto [px, py] = out.chunk.pixel[static_cast<std::size_t>(l)];
    positions[static_cast<std::size_t>(l)] = static_cast<std::uint8_t>(2 * (py & 1) + (px & 1));
    ThreadState t = thread_at(main_entry);
    t.r(0) = {(static_cast<float>(px) + 0.5f) / static_cast<float>(width), (static_cast<float>(py) + 0.5f) / static_cast<float>(height), 0, 0};
    threads[static_cast<std::size_t>(l)] = t;
  }
  out.start = threads;
  vm.set_quad_positions(positions);
  vm.run_chunk(std::span<ThreadState>(threads.data(), static_cast<std::size_t>(out.chunk.lanes)), out.stats, &out.recording, out.chunk.index);
  return out;
}

bool ThreadChanges::any() const {
  return a || hit_address || frames || !stack.empty() || std::any_of(reg.begin(), reg.end(), [](std::uint8_t m) { return m != 0; });
}

bool has_nan(const Vec4& v, std::uint8_t components) {
  for (int c = 0; c < 4; ++c)
    if (((components >> c) & 1u) && std::isnan(v[static_cast<std::size_t>(c)])) return true;
  return false;
}

std::string thread_register_name(int index) {
  if (index < kRegS) return "R" + std::to_string(index);
  if (index == kRegS) return "S";
  if (index < kRegHit) return "I" + std::to_string(index - kRegI0);
  return "HIT";
}

namespace {

std::uint8_t differing(const Vec4& a, const Vec4& b) {
  std::uint8_t m = 0;
  for (int c = 0; c < 4; ++c) {
    const float x = a[static_cast<std::size_t>(c)], y = b[static_cast<std::size_t>(c)];
    if (!(x == y) && !(std::isnan(x) && std::isnan(y))) m |= static_cast<std::uint8_t>(1u << c);
  }
  return m;
}

// A register, address or stack change made (with its `after`) or undone (with its `before`):
// the same write of either value.
void put(ThreadState& t, const Change& c, const Vec4& v) {
  switch (c.kind) {
    case ChangeKind::Register: t.reg[c.index] = v; break;
    case ChangeKind::Address:
      if (c.index == 0) {
        for (int k = 0; k < 4; ++k) t.a[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(v[static_cast<std::size_t>(k)]);
      } else {
        t.hit_tri = static_cast<std::int32_t>(v[2]);
        t.hit_obj = static_cast<std::int32_t>(v[3]);
      }
      break;
    case ChangeKind::Stack: t.stack[c.index] = v; break;
    default: break;
  }
}

// A call frame entered (a push made, a pop undone) or left (a pop made, a push undone); the
// frame is in the change's `before`.
void enter_frame(ThreadState& t, const Change& c) {
  t.frames.push_back({static_cast<std::uint32_t>(c.before[0]), static_cast<std::uint32_t>(c.before[1])});
  t.base += static_cast<std::uint32_t>(c.before[1]);
}
void leave_frame(ThreadState& t, const Change& c) {
  t.frames.pop_back();
  t.base -= static_cast<std::uint32_t>(c.before[1]);
}

}  // namespace

Debugger::Debugger(ChunkRun run) : run_(std::move(run)) {
  const Recording& rec = run_.recording;
  // Every stack as large as it ever gets, so that replaying never resizes one (states compare
  // exactly after any walk).
  std::size_t size = 8;
  std::array<std::uint32_t, 4> base{};
  for (int l = 0; l < lanes(); ++l) base[static_cast<std::size_t>(l)] = run_.start[static_cast<std::size_t>(l)].base;
  for (const Change& c : rec.changes) {
    if (c.kind == ChangeKind::Stack) size = std::max<std::size_t>(size, c.index + 1);
    if (c.kind == ChangeKind::Push) base[c.lane] += static_cast<std::uint32_t>(c.before[1]);
    if (c.kind == ChangeKind::Pop) base[c.lane] -= static_cast<std::uint32_t>(c.before[1]);
    size = std::max<std::size_t>(size, base[c.lane] + 8);
  }
  for (int l = 0; l < lanes(); ++l) {
    ThreadState& t = run_.start[static_cast<std::size_t>(l)];
    size = std::max(size, t.stack.size());
  }
  for (int l = 0; l < lanes(); ++l) run_.start[static_cast<std::size_t>(l)].stack.resize(size);
  threads_ = run_.start;
  pc_before_.resize(rec.steps.size());
  for (std::size_t i = 0; i < rec.steps.size(); ++i) {
    for (int l = 0; l < 4; ++l) pc_before_[i][static_cast<std::size_t>(l)] = threads_[static_cast<std::size_t>(l)].pc;
    apply(i);
  }
  threads_ = run_.start;
  lane_ = std::clamp(run_.chunk.lane, 0, std::max(0, lanes() - 1));
}

std::span<const Change> Debugger::changes(std::size_t step) const {
  const Step& s = run_.recording.steps[step];
  return {run_.recording.changes.data() + s.first_change, s.change_count};
}

void Debugger::apply(std::size_t i) {
  const Step& s = run_.recording.steps[i];
  for (const Change& c : changes(i)) {
    ThreadState& t = threads_[c.lane];
    switch (c.kind) {
      case ChangeKind::Register:
      case ChangeKind::Address:
      case ChangeKind::Stack: put(t, c, c.after); break;
      case ChangeKind::Push: enter_frame(t, c); break;
      case ChangeKind::Pop: leave_frame(t, c); break;
      case ChangeKind::Status:
        t.status = static_cast<ThreadStatus>(static_cast<int>(c.after[0]));
        t.pc = static_cast<std::uint32_t>(c.after[1]);
        if (t.status == ThreadStatus::Faulted)
          for (const std::string& f : run_.recording.faults)
            if (f.rfind("chunk " + std::to_string(s.chunk) + " lane " + std::to_string(c.lane) + ":", 0) == 0) t.fault = f;
        break;
    }
  }
  for (int l = 0; l < lanes(); ++l)
    if (lane_in(i, l)) {
      ThreadState& t = threads_[static_cast<std::size_t>(l)];
      t.pc = s.next_pc[static_cast<std::size_t>(l)];
      if (!s.merged) ++t.steps;
    }
}

void Debugger::undo(std::size_t i) {
  const Step& s = run_.recording.steps[i];
  const std::span<const Change> cs = changes(i);
  for (auto it = cs.rbegin(); it != cs.rend(); ++it) {
    const Change& c = *it;
    ThreadState& t = threads_[c.lane];
    switch (c.kind) {
      case ChangeKind::Register:
      case ChangeKind::Address:
      case ChangeKind::Stack: put(t, c, c.before); break;
      case ChangeKind::Push: leave_frame(t, c); break;
      case ChangeKind::Pop: enter_frame(t, c); break;
      case ChangeKind::Status:
        t.status = static_cast<ThreadStatus>(static_cast<int>(c.before[0]));
        t.pc = static_cast<std::uint32_t>(c.before[1]);
        if (t.status != ThreadStatus::Faulted) t.fault.clear();
        break;
    }
  }
  for (int l = 0; l < lanes(); ++l)
    if (lane_in(i, l)) {
      ThreadState& t = threads_[static_cast<std::size_t>(l)];
      t.pc = pc_before_[i][static_cast<std::size_t>(l)];
      if (!s.merged) --t.steps;
    }
}

void Debugger::move_to(std::size_t p, StopReason reason) {
  p = std::min(p, step_count());
  changed_ = ThreadChanges{};
  const std::size_t from = position_;
  auto collect = [&](std::size_t i) {
    for (const Change& c : changes(i)) {
      if (c.lane != lane_) continue;
      switch (c.kind) {
        case ChangeKind::Register: changed_.reg[c.index] |= differing(c.before, c.after); break;
        case ChangeKind::Address: (c.index == 0 ? changed_.a : changed_.hit_address) = true; break;
        case ChangeKind::Stack:
          if (differing(c.before, c.after) && std::find(changed_.stack.begin(), changed_.stack.end(), c.index) == changed_.stack.end())
            changed_.stack.push_back(c.index);
          break;
        case ChangeKind::Push:
        case ChangeKind::Pop: changed_.frames = true; break;
        case ChangeKind::Status: break;
      }
    }
  };
  while (position_ < p) {
    collect(position_);
    apply(position_++);
  }
  while (position_ > p) {
    undo(--position_);
    collect(position_);
  }
  reason_ = position_ == from ? StopReason::None : reason;
  if (position_ == step_count() && reason_ != StopReason::None && reason_ != StopReason::Fault && reason_ != StopReason::NaN) reason_ = StopReason::End;
  if (position_ == 0 && reason_ != StopReason::None) reason_ = StopReason::Start;
  switch (reason_) {
    case StopReason::End: message_ = "the chunk has finished"; break;
    case StopReason::Start: message_ = "at the start of the chunk"; break;
    case StopReason::None: message_ = "nothing to do there"; break;
    default: break;
  }
}

void Debugger::select_lane(int lane) {
  lane_ = std::clamp(lane, 0, std::max(0, lanes() - 1));
  changed_ = ThreadChanges{};
}

std::optional<std::size_t> Debugger::next_step(int l) const {
  for (std::size_t i = position_; i < step_count(); ++i)
    if (lane_in(i, l)) return i;
  return std::nullopt;
}

bool Debugger::step_into() {
  const std::optional<std::size_t> k = next_step(lane_);
  if (!k) {
    move_to(position_, StopReason::Step);
    message_ = "thread " + std::to_string(lane_) + " has finished";
    return false;
  }
  move_to(*k + 1, StopReason::Step);
  message_ = "stepped";
  return true;
}

bool Debugger::step_over() {
  const std::size_t d0 = depth(), from = position_;
  std::size_t p = position_;
  // Walk the recording without replaying it: the depth follows the selected thread's pushes and pops.
  std::size_t d = d0;
  bool moved = false;
  for (std::size_t i = p; i < step_count(); ++i) {
    if (!lane_in(i, lane_)) continue;
    for (const Change& c : changes(i))
      if (c.lane == lane_) d += c.kind == ChangeKind::Push ? 1 : c.kind == ChangeKind::Pop ? static_cast<std::size_t>(-1) : 0;
    p = i + 1;
    moved = true;
    if (d <= d0) break;
  }
  if (!moved) return step_into();
  move_to(p, StopReason::Step);
  message_ = position_ == from ? "nothing to step over" : "stepped over";
  return position_ != from;
}

bool Debugger::step_out() {
  const std::size_t d0 = depth(), from = position_;
  std::size_t d = d0, p = position_;
  for (std::size_t i = position_; i < step_count(); ++i) {
    if (!lane_in(i, lane_)) continue;
    for (const Change& c : changes(i))
      if (c.lane == lane_) d += c.kind == ChangeKind::Push ? 1 : c.kind == ChangeKind::Pop ? static_cast<std::size_t>(-1) : 0;
    p = i + 1;
    if (d < d0) break;
  }
  move_to(p, StopReason::Step);
  message_ = position_ == from ? "nothing to step out of" : d0 == 0 ? "ran to the end of the thread" : "stepped out";
  return position_ != from;
}

bool Debugger::back_into() {
  for (std::size_t i = position_; i-- > 0;)
    if (lane_in(i, lane_)) {
      move_to(i, StopReason::Step);
      message_ = "stepped back";
      return true;
    }
  move_to(position_, StopReason::Step);
  message_ = "thread " + std::to_string(lane_) + " has not run yet";
  return false;
}

bool Debugger::back_over() {
  const std::size_t d0 = depth(), from = position_;
  std::size_t d = d0, p = position_;
  for (std::size_t i = position_; i-- > 0;) {
    if (!lane_in(i, lane_)) continue;
    // Undoing step i: its pushes come off, its pops go back on.
    for (const Change& c : changes(i))
      if (c.lane == lane_) d += c.kind == ChangeKind::Pop ? 1 : c.kind == ChangeKind::Push ? static_cast<std::size_t>(-1) : 0;
    p = i;
    if (d <= d0) break;
  }
  move_to(p, StopReason::Step);
  message_ = position_ == from ? "nothing to step back over" : "stepped back over";
  return position_ != from;
}

bool Debugger::back_out() {
  const std::size_t d0 = depth(), from = position_;
  std::size_t d = d0, p = position_;
  for (std::size_t i = position_; i-- > 0;) {
    if (!lane_in(i, lane_)) continue;
    for (const Change& c : changes(i))
      if (c.lane == lane_) d += c.kind == ChangeKind::Pop ? 1 : c.kind == ChangeKind::Push ? static_cast<std::size_t>(-1) : 0;
    p = i;
    if (d < d0) break;
  }
  move_to(p, StopReason::Step);
  message_ = position_ == from ? "nothing to step back out of" : "stepped back out, to the call";
  return position_ != from;
}

bool Debugger::run_to(const std::function<bool(std::uint32_t)>& at) {
  for (std::size_t i = position_ + 1; i <= step_count(); ++i) {
    if (i == step_count()) break;
    const Step& s = step(i);
    if (s.merged || !at(s.pc)) continue;
    if (!lane_in(i, lane_)) lane_ = std::countr_zero(static_cast<unsigned>(s.lanes));
    move_to(i, StopReason::Breakpoint);
    message_ = "thread " + std::to_string(lane_) + " is about to execute word " + std::to_string(s.pc);
    return true;
  }
  // Nothing matches: run to the end.
  const std::size_t from = position_;
  move_to(step_count(), StopReason::End);
  return position_ != from;
}

bool Debugger::run_back_to(const std::function<bool(std::uint32_t)>& at) {
  for (std::size_t i = position_; i-- > 0;) {
    const Step& s = step(i);
    if (s.merged || !at(s.pc)) continue;
    if (!lane_in(i, lane_)) lane_ = std::countr_zero(static_cast<unsigned>(s.lanes));
    move_to(i, StopReason::Breakpoint);
    message_ = "thread " + std::to_string(lane_) + " is about to execute word " + std::to_string(s.pc);
    return true;
  }
  const std::size_t from = position_;
  move_to(0, StopReason::Start);
  return position_ != from;
}

bool Debugger::run_to_nan() {
  for (std::size_t i = position_; i < step_count(); ++i)
    for (const Change& c : changes(i)) {
      if (c.kind != ChangeKind::Register && c.kind != ChangeKind::Stack) continue;
      const std::uint8_t made = differing(c.before, c.after);
      std::uint8_t nan = 0;
      for (int k = 0; k < 4; ++k)
        if (((made >> k) & 1u) && std::isnan(c.after[static_cast<std::size_t>(k)])) nan |= static_cast<std::uint8_t>(1u << k);
      if (!nan) continue;
      lane_ = c.lane;
      move_to(i + 1, StopReason::NaN);
      static const char* kLanes = "xyzw";
      std::string comps;
      for (int k = 0; k < 4; ++k)
        if ((nan >> k) & 1u) comps += kLanes[k];
      message_ = "word " + std::to_string(step(i).pc) + " made a NaN in " +
                 (c.kind == ChangeKind::Stack ? "stack slot " + std::to_string(c.index) : thread_register_name(static_cast<int>(c.index))) + "." + comps +
                 " of thread " + std::to_string(c.lane);
      return true;
    }
  const std::size_t from = position_;
  move_to(step_count(), StopReason::End);
  message_ = "no NaN from here to the end";
  return position_ != from;
}

bool Debugger::run_to_fault() {
  for (std::size_t i = position_; i < step_count(); ++i)
    for (const Change& c : changes(i))
      if (c.kind == ChangeKind::Status && static_cast<ThreadStatus>(static_cast<int>(c.after[0])) == ThreadStatus::Faulted) {
        lane_ = c.lane;
        move_to(i + 1, StopReason::Fault);
        message_ = "thread " + std::to_string(c.lane) + " faulted: " + thread(c.lane).fault;
        return true;
      }
  const std::size_t from = position_;
  move_to(step_count(), StopReason::End);
  message_ = "no fault from here to the end";
  return position_ != from;
}

void Debugger::seek(std::size_t position) {
  move_to(position, StopReason::Step);
  if (reason_ == StopReason::Step) message_ = "at step " + std::to_string(position_);
}

}  // namespace passlab::rpu
