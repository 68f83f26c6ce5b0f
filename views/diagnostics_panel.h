// SPDX-License-Identifier: GPL-3.0-or-later
// The diagnostics list: every message of the last compile; activating one jumps to its place.
#pragma once

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
  QTreeWidget* list_;
  std::vector<Row> rows_;  // what the list shows: the same rows again leave it alone
};

}  // namespace passlab::views
