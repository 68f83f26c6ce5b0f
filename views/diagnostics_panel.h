// SPDX-License-Identifier: GPL-3.0-or-later
// The diagnostics list: every message of the last compile, and the problems with the other files
// the Studio reads (a target, a cost model); activating one jumps to its place.
#pragma once

#include <map>
#include <vector>

#include <QWidget>

#include "session/snapshot.h"

class QTreeWidget;

namespace passlab::views {

class DiagnosticsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DiagnosticsPanel(QWidget* parent = nullptr);
  void show_snapshot(const session::Snapshot& snapshot);
  // Problems with the `input` last chosen ("target", "cost model"; none: it applied), listed after
  // the compile's messages.
  void set_input_problems(const QString& input, const std::vector<session::Message>& problems);
  int count() const;
  QTreeWidget* list() const { return list_; }

 signals:
  void jump(const QString& file, int line, int column);

 private:
  struct Row {
    QString severity, file;
    int line, col;
    QString message, code, tooltip;
    bool operator==(const Row&) const = default;
  };
  static Row row_of(const session::Message& m);
  void refill();
  QTreeWidget* list_;
  std::vector<Row> snapshot_rows_;
  std::map<QString, std::vector<Row>> input_rows_;
  std::vector<Row> rows_;  // what the list shows: the same rows again leave it alone
};

}  // namespace passlab::views
