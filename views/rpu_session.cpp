// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's RPU debugging session.
#include "views/rpu_session.h"
#include "views/work_pool.h"

#include <QPointer>
#include <QThreadPool>
#include <QTimer>

namespace passlab::views {

RpuSession::RpuSession(QObject* parent) : QObject(parent) {}

RpuSession::~RpuSession() = default;

void RpuSession::set_build(std::shared_ptr<const session::RpuBuild> build) {
  if (build == build_) return;
  build_ = std::move(build);
  emit build_changed();
  if (!build_ || !build_->ok()) {
    debugger_.reset();
    ++chunk_serial_;
    emit debugger_changed();
    return;
  }
  // Breakpoints on words that no longer exist are dropped; line breakpoints stay.
  std::erase_if(word_breakpoints_, [&](std::uint32_t w) { return w >= build_->word_source_line.size(); });
  if (pixel_) pick_pixel(pixel_->x(), pixel_->y());
}

void RpuSession::install(std::shared_ptr<const session::RpuBuild> build, rpu::ChunkRun run, QPoint pixel, std::size_t position, int lane) {
  if (build != build_) return;  // recorded for an older program
  pixel_ = pixel;
  debugger_ = std::make_unique<rpu::Debugger>(std::move(run));
  ++chunk_serial_;
  debugger_->select_lane(debugger_->run().chunk.lane);
  if (lane >= 0 && lane < debugger_->lanes()) debugger_->select_lane(lane);
  if (position > 0) debugger_->seek(std::min(position, debugger_->step_count()));
  emit debugger_changed();
}

void RpuSession::pick_pixel(int x, int y) {
  if (!build_ || !build_->ok()) return;
  // Picking another pixel starts at its chunk's beginning; recording the same pixel again (a new
  // compile) keeps the place the user had reached.
  const bool same = pixel_ && pixel_->x() == x && pixel_->y() == y && debugger_;
  const std::size_t position = same ? debugger_->position() : 0;
  const int lane = same ? debugger_->lane() : -1;
  const quint64 id = ++request_;
  if (recording_++ == 0) emit recording_changed(true);
  QPointer<RpuSession> self(this);
  std::shared_ptr<const session::RpuBuild> build = build_;
  work_pool().start([self, build, x, y, position, lane, id] {
    auto run = std::make_shared<rpu::ChunkRun>(session::record_rpu_pixel(*build, x, y));
    if (!self) return;
    QTimer::singleShot(0, self.data(), [self, build, run, x, y, position, lane, id] {
      if (!self) return;
      if (id == self->request_) self->install(build, std::move(*run), QPoint(x, y), position, lane);
      if (--self->recording_ == 0) emit self->recording_changed(false);
    });
  });
}

bool RpuSession::pick_pixel_now(int x, int y) {
  if (!build_ || !build_->ok()) return false;
  ++request_;
  install(build_, session::record_rpu_pixel(*build_, x, y), QPoint(x, y), 0, -1);
  return debugger_ != nullptr;
}

bool RpuSession::stops_at(std::uint32_t pc) const {
  if (word_breakpoints_.count(pc)) return true;
  if (!build_ || pc >= build_->word_source_line.size()) return false;
  const std::uint32_t line = build_->word_source_line[pc];
  if (!line || !line_breakpoints_.count(line)) return false;
  // A line stops once, at its first word in a run of words from that line.
  return pc == 0 || build_->word_source_line[pc - 1] != line;
}

bool RpuSession::move(RpuMove m) {
  if (!debugger_) return false;
  rpu::Debugger& d = *debugger_;
  auto at = [this](std::uint32_t pc) { return stops_at(pc); };
  bool moved = false;
  switch (m) {
    case RpuMove::Into: moved = d.step_into(); break;
    case RpuMove::Over: moved = d.step_over(); break;
    case RpuMove::Out: moved = d.step_out(); break;
    case RpuMove::BackInto: moved = d.back_into(); break;
    case RpuMove::BackOver: moved = d.back_over(); break;
    case RpuMove::BackOut: moved = d.back_out(); break;
    case RpuMove::Continue: moved = d.run_to(at); break;
    case RpuMove::BackContinue: moved = d.run_back_to(at); break;
    case RpuMove::ToNaN: moved = d.run_to_nan(); break;
    case RpuMove::ToFault: moved = d.run_to_fault(); break;
    case RpuMove::Restart:
      d.seek(0);
      moved = true;
      break;
  }
  emit debugger_changed();
  return moved;
}

bool RpuSession::run_to_word(std::uint32_t word, bool backwards) {
  if (!debugger_) return false;
  auto at = [word](std::uint32_t pc) { return pc == word; };
  const bool moved = backwards ? debugger_->run_back_to(at) : debugger_->run_to(at);
  emit debugger_changed();
  return moved;
}

bool RpuSession::run_to_line(std::uint32_t line, bool backwards) {
  if (!debugger_ || !build_) return false;
  const session::RpuBuild& b = *build_;
  auto at = [&b, line](std::uint32_t pc) {
    return pc < b.word_source_line.size() && b.word_source_line[pc] == line && (pc == 0 || b.word_source_line[pc - 1] != line);
  };
  const bool moved = backwards ? debugger_->run_back_to(at) : debugger_->run_to(at);
  emit debugger_changed();
  return moved;
}

void RpuSession::select_lane(int lane) {
  if (!debugger_ || lane < 0 || lane >= debugger_->lanes() || lane == debugger_->lane()) return;
  debugger_->select_lane(lane);
  emit debugger_changed();
}

void RpuSession::seek(std::size_t position) {
  if (!debugger_) return;
  debugger_->seek(std::min(position, debugger_->step_count()));
  emit debugger_changed();
}

void RpuSession::toggle_word_breakpoint(std::uint32_t word) {
  if (!word_breakpoints_.erase(word)) word_breakpoints_.insert(word);
  emit breakpoints_changed();
}

void RpuSession::toggle_line_breakpoint(std::uint32_t line) {
  if (!line_breakpoints_.erase(line)) line_breakpoints_.insert(line);
  emit breakpoints_changed();
}

void RpuSession::clear_breakpoints() {
  word_breakpoints_.clear();
  line_breakpoints_.clear();
  emit breakpoints_changed();
}

}  // namespace passlab::views
