// SPDX-License-Identifier: GPL-3.0-or-later
// The compare panel: the partitioning algorithms (RDSh, RDS and the optimal search: one column per
// partition::algorithms() entry) side by side, with their DAGs coloured by pass, their numbers,
// and a stacked bar chart of each cost like the RDS paper's Figure 6.
#pragma once

#include <memory>
#include <vector>

#include <QWidget>

#include "session/snapshot.h"
#include "views/draw_graph.h"
#include "views/status_label.h"

class QBarSet;
class QCheckBox;
class QChart;
class QStackedBarSeries;
class QValueAxis;
class QBarCategoryAxis;
class QChartView;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace passlab::views {

class GraphView;

class ComparePanel : public QWidget {
  Q_OBJECT

 public:
  explicit ComparePanel(QWidget* parent = nullptr);
  void show_snapshot(session::SnapshotPtr snapshot, std::shared_ptr<const DrawGraph> graph,
                     std::shared_ptr<const Layout> layout);
  // Shows the next piece of a new result (one small DAG, or the table and chart) if the panel is
  // visible; true while pieces remain. The main window spreads them over its update slices.
  bool show_next_piece();
  // Whether the panel can be seen: a dock behind another tab is "visible" to Qt but not on screen,
  // and takes a new result only when its tab is chosen (QDockWidget::visibilityChanged).
  void set_on_screen(bool on_screen);
  bool pending() const { return pending_; }  // a result it has not shown yet
  void set_stale(bool stale);
  // The optimal search, run elsewhere on demand.
  void optimal_started();
  void optimal_progress(double fraction, double best, double bound);
  void optimal_finished(std::shared_ptr<const session::AlgorithmRun> run, bool cancelled = false);
  std::shared_ptr<const session::AlgorithmRun> optimal_run() const { return optimal_; }
  // The partition made by hand (the last column, "Yours"; null: none yet).
  void set_yours_run(std::shared_ptr<const session::AlgorithmRun> run);
  double budget_seconds() const;
  // The table's text for cell (metric row, column), for tests: the column-th of those shown (the
  // multiple-output algorithms' only on a target of several render targets).
  QString cell(int row, int column);
  QTableWidget* table() const { return table_; }
  // The i-th shown column's DAG (as cell() counts columns: on a target of one render target 0 RDSh,
  // 1 RDS, 2 the optimal search, 3 yours).
  GraphView* graph(int i) const;

 signals:
  void optimal_requested(double budget_seconds);
  void optimal_cancel_requested();

 private:
  void refill();
  // Shows the multiple-output algorithms' columns only for a target whose passes may write several
  // render targets (partition::algorithms_for).
  void show_columns(bool several_outputs);
  // On a target of several render targets, a sentence saying the optimal search is no bound there.
  QString not_a_bound() const;
  bool apply_piece();
  void apply_pending();
  void showEvent(QShowEvent* e) override;
  // Column c's run: an every-edit algorithm's from the snapshot, a search's once it has run.
  const session::AlgorithmRun* run_of(std::size_t c) const;

  session::SnapshotPtr snapshot_;
  std::shared_ptr<const DrawGraph> graph_;
  std::shared_ptr<const Layout> layout_;
  std::shared_ptr<const session::AlgorithmRun> optimal_, yours_;
  std::vector<const partition::Algorithm*> columns_;  // the registry's; the partition made by hand follows them
  std::vector<GraphView*> graphs_;
  std::vector<StatusLabel*> titles_;
  QTableWidget* table_;
  QChart* chart_;
  QStackedBarSeries* series_;
  QBarSet* sets_[4];
  QBarCategoryAxis* x_axis_;
  QStringList labels_;       // every column's
  std::vector<char> shown_;  // per column (the partition made by hand's last)
  int several_outputs_ = -1;  // show_columns()'s last argument (-1: not called)
  QValueAxis* y_axis_;
  bool chart_dark_ = false, chart_themed_ = false;
  bool pending_ = false;  // a result not yet shown (the panel is hidden, or it is shown piece by piece)
  std::size_t next_piece_ = 0;  // below the column count: the small DAGs; then the table and chart
  bool on_screen_ = true;
  QChartView* chart_view_;
  QPushButton* run_;
  QCheckBox* link_;  // zooming one graph zooms the others
  QPushButton* cancel_;
  QDoubleSpinBox* budget_;
  QProgressBar* progress_;
  QLabel* optimal_status_;
};

}  // namespace passlab::views
