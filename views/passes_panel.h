// SPDX-License-Identifier: GPL-3.0-or-later
// The passes panel: per-pass resources like the RDS paper's Table 5 and each pass's listing.
#pragma once

#include <QWidget>

#include "session/snapshot.h"
#include "views/extra_runs.h"
#include "views/status_label.h"

class QComboBox;
class QPlainTextEdit;
class QTableWidget;

namespace passlab::views {

class PassesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PassesPanel(QWidget* parent = nullptr);
  void show_snapshot(session::SnapshotPtr snapshot);
  void set_algorithm(const QString& algorithm);  // a partition::algorithms() name
  QString algorithm() const;
  void set_stale(bool stale);
  // Cross-highlighting: selects the pass computing the first node and marks its listing lines.
  void select_nodes(const std::vector<std::uint32_t>& ids);
  int pass_count() const;
  QString listing_text() const;
  QTableWidget* table() const { return table_; }
  // A run the snapshot does not hold: the optimal search's (run on demand), or the partition made
  // by hand (algorithm "yours"); null: none of `algorithm`.
  void set_extra_run(const QString& algorithm, std::shared_ptr<const session::AlgorithmRun> run);
  const session::AlgorithmRun* current_run() const;

 signals:
  void algorithm_changed(const QString& algorithm);
  void pass_selected(const std::vector<std::uint32_t>& members);

 private:
  void refill();
  void show_listing(int pass);

  session::SnapshotPtr snapshot_;
  ExtraRuns extras_;
  QComboBox* algorithm_;
  StatusLabel* summary_;
  QTableWidget* table_;
  QPlainTextEdit* listing_;
  std::vector<std::uint32_t> highlighted_;
  bool muting_ = false;
};

}  // namespace passlab::views
