// The diagnostics list: every message of the last compile; activating one jumps to its place.
#pragma once

#include <QWidget>

#include "app/pipeline/snapshot.h"

class QTreeWidget;

namespace passlab::views {

class DiagnosticsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DiagnosticsPanel(QWidget* parent = nullptr);
  void show_snapshot(const pipeline::Snapshot& snapshot);
  int count() const;
  QTreeWidget* list() const { return list_; }

 signals:
  void jump(const QString& file, int line, int column);

 private:
  QTreeWidget* list_;
};

}  // namespace passlab::views
