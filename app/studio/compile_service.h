// SPDX-License-Identifier: GPL-3.0-or-later
// The compile service: runs the pipeline off the UI thread after each edit (at once after a
// pause, debounced while typing, or on demand in manual mode), cancels stale runs and publishes
// immutable results.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include "session/snapshot.h"
#include "views/studio_result.h"

namespace passlab::studio {

using views::ResultPtr;
using views::StudioResult;

class CompileService : public QObject {
  Q_OBJECT

 public:
  explicit CompileService(QObject* parent = nullptr);
  ~CompileService() override;

  // What to compile besides the text: file name, lights, target and cost model.
  void set_request(const session::Request& base);
  const session::Request& request() const { return base_; }
  // The editor's text changed (unless in manual mode): an edit after a pause compiles at once; one
  // in a burst (while a compile runs or within the delay of the last start) waits for the delay
  // of quiet, so that versions typed past are not compiled.
  void text_changed(const QString& text);
  void compile_now();
  // Compile now and lay every graph out afresh with dot (small edits otherwise keep the layout).
  void relayout();
  void set_delay(int ms) { delay_ = ms; }
  int delay() const { return delay_; }
  void set_manual(bool manual) { manual_ = manual; }
  bool manual() const { return manual_; }
  bool busy() const { return running_ > 0 || timer_.isActive(); }
  std::uint64_t generation() const { return generation_; }

  // The optimal search on the latest snapshot, with progress; one at a time.
  void run_optimal(session::SnapshotPtr snapshot, double budget_seconds);
  void cancel_optimal();

 signals:
  void compile_started(quint64 generation);
  void compiled(passlab::views::ResultPtr result);
  void optimal_progress(double fraction, double best, double bound);
  void optimal_finished(session::SnapshotPtr snapshot, std::shared_ptr<const session::AlgorithmRun> run, bool cancelled);

 private:
  void start();

  session::Request base_;
  QString text_;
  QTimer timer_;
  int delay_ = 30;             // ms of quiet a burst of edits waits for
  bool at_once_ = false;       // the timer is the immediate start of an edit after a pause
  QElapsedTimer since_start_;  // since the last compile started
  bool manual_ = false;
  std::uint64_t generation_ = 0;
  int running_ = 0;
  std::shared_ptr<std::atomic<bool>> cancel_;          // of the newest compile
  std::shared_ptr<std::atomic<bool>> optimal_cancel_;  // of the running optimal search
  ResultPtr latest_;            // the newest published result with graphs
  bool fresh_layout_ = false;   // the next compile lays out with dot
  struct LayoutCache;
  std::shared_ptr<LayoutCache> cache_;
};

}  // namespace passlab::studio
