// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's RPU debugging session: the build the panels show, the chunk being debugged (a
// pixel's, recorded on a worker thread), the debugger's moves and the breakpoints. The panels
// draw what it holds and ask it to move; they never run the VM themselves.
#pragma once

#include <memory>
#include <optional>
#include <set>

#include <QObject>
#include <QPoint>

#include "session/rpu_build.h"
#include "backends/rpu/debugger.h"

namespace passlab::views {

enum class RpuMove { Into, Over, Out, BackInto, BackOver, BackOut, Continue, BackContinue, ToNaN, ToFault, Restart };

class RpuSession : public QObject {
  Q_OBJECT

 public:
  explicit RpuSession(QObject* parent = nullptr);
  ~RpuSession() override;

  // A new compile. The pixel being debugged is recorded again with the new program, and the
  // debugger returns to the same step where the run still has it.
  void set_build(std::shared_ptr<const session::RpuBuild> build);
  const session::RpuBuild* build() const { return build_.get(); }
  std::shared_ptr<const session::RpuBuild> build_ptr() const { return build_; }

  // Debugs the thread that shades pixel (x, y) and its chunk: recorded on a worker thread,
  // then `debugger_changed` (pick_pixel_now records on the caller's thread).
  void pick_pixel(int x, int y);
  bool pick_pixel_now(int x, int y);
  std::optional<QPoint> pixel() const { return pixel_; }
  bool recording() const { return recording_ > 0; }

  const rpu::Debugger* debugger() const { return debugger_.get(); }
  // Counts the chunks installed: views that analyse a chunk once key their cache on it (a new
  // debugger may reuse the old one's address).
  std::uint64_t chunk_serial() const { return chunk_serial_; }
  // Moves the debugger; false if it could not (no thread) or did not move.
  bool move(RpuMove m);
  bool run_to_word(std::uint32_t word, bool backwards = false);
  bool run_to_line(std::uint32_t source_line, bool backwards = false);
  void select_lane(int lane);
  void seek(std::size_t position);

  // Breakpoints on assembly words and on lines of the main file (a line stops at any of its words).
  void toggle_word_breakpoint(std::uint32_t word);
  void toggle_line_breakpoint(std::uint32_t line);
  void clear_breakpoints();
  const std::set<std::uint32_t>& word_breakpoints() const { return word_breakpoints_; }
  const std::set<std::uint32_t>& line_breakpoints() const { return line_breakpoints_; }
  bool stops_at(std::uint32_t pc) const;

 signals:
  void build_changed();
  // A new chunk, or the debugger moved: every debugger panel redraws.
  void debugger_changed();
  void breakpoints_changed();
  void recording_changed(bool recording);

 private:
  void install(std::shared_ptr<const session::RpuBuild> build, rpu::ChunkRun run, QPoint pixel, std::size_t position, int lane);

  std::shared_ptr<const session::RpuBuild> build_;
  std::unique_ptr<rpu::Debugger> debugger_;
  std::optional<QPoint> pixel_;
  std::set<std::uint32_t> word_breakpoints_, line_breakpoints_;
  int recording_ = 0;
  std::uint64_t chunk_serial_ = 0;
  quint64 request_ = 0;  // the newest recording asked for; older ones are dropped when they finish
};

}  // namespace passlab::views
