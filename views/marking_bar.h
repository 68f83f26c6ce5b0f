// SPDX-License-Identifier: GPL-3.0-or-later
// The bar over the graphs while the user partitions by hand: what the marks make (passes, cost,
// the passes that do not fit and the limit each breaks), where that stands against the
// algorithms' partitions, and the commands (undo, redo, start from an algorithm's marks, clear,
// a hint, import and export of the marks, done).
#pragma once

#include <cstdint>

#include <QWidget>

#include "session/snapshot.h"

class QLabel;
class QLineEdit;
class QMenu;
class QToolButton;

namespace passlab::views {

class MarkingBar : public QWidget {
  Q_OBJECT

 public:
  explicit MarkingBar(QWidget* parent = nullptr);
  // The partition made by hand on `snapshot`, against the snapshot's runs and the optimal search's
  // (null: not run).
  void show_runs(const session::AlgorithmRun* yours, const session::Snapshot* snapshot, const session::AlgorithmRun* optimal);
  void set_history(bool can_undo, bool can_redo);
  void show_hint(const QString& text);  // "" hides it
  // Asks why node `node` (just marked; `label` its operation) is saved, showing `reason` so far;
  // what the student types comes back as reason_given. ask_reason(-1…) puts the question away.
  void ask_reason(long node, const QString& label, const QString& reason);
  long reason_node() const { return reason_node_; }
  void set_reason_text(const QString& text);  // as if typed (tests)
  QString summary() const;
  QString comparison() const;
  QString hint() const;

 signals:
  void undo_requested();
  void redo_requested();
  void start_from_requested(const QString& algorithm);
  void clear_requested();
  void hint_requested();
  void import_requested();
  void export_requested();
  void done_requested();
  void reason_given(std::uint32_t node, const QString& reason);

 private:
  QLabel* summary_;
  QLabel* comparison_;
  QLabel* hint_;
  QWidget* reason_box_;
  QLabel* reason_label_;
  QLineEdit* reason_;
  long reason_node_ = -1;
  QToolButton* undo_;
  QToolButton* redo_;
  QToolButton* start_;
  QMenu* start_menu_;
};

}  // namespace passlab::views
