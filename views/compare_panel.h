// The compare panel: RDSh, RDS and the optimal search side by side, with their DAGs coloured by
// pass, their numbers, and a stacked bar chart of each cost like the RDS paper's Figure 6.
#pragma once

#include <memory>

#include <QWidget>

#include "app/pipeline/snapshot.h"
#include "views/draw_graph.h"

class QBarSet;
class QChart;
class QStackedBarSeries;
class QValueAxis;
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
  void show_snapshot(pipeline::SnapshotPtr snapshot, std::shared_ptr<const DrawGraph> graph,
                     std::shared_ptr<const Layout> layout);
  void set_stale(bool stale);
  // The optimal search, run elsewhere on demand.
  void optimal_started();
  void optimal_progress(double fraction, double best, double bound);
  void optimal_finished(std::shared_ptr<const pipeline::AlgorithmRun> run, bool cancelled = false);
  std::shared_ptr<const pipeline::AlgorithmRun> optimal_run() const { return optimal_; }
  double budget_seconds() const;
  // The table's text for cell (metric row, algorithm column 0..2), for tests.
  QString cell(int row, int column);
  QTableWidget* table() const { return table_; }

 signals:
  void optimal_requested(double budget_seconds);
  void optimal_cancel_requested();

 private:
  void refill();
  void apply_pending();
  void showEvent(QShowEvent* e) override;

  pipeline::SnapshotPtr snapshot_;
  std::shared_ptr<const DrawGraph> graph_;
  std::shared_ptr<const Layout> layout_;
  std::shared_ptr<const pipeline::AlgorithmRun> optimal_;
  GraphView* graphs_[3];
  QLabel* titles_[3];
  QTableWidget* table_;
  QChart* chart_;
  QStackedBarSeries* series_;
  QBarSet* sets_[4];
  QValueAxis* y_axis_;
  bool chart_dark_ = false, chart_themed_ = false;
  bool pending_ = false;  // a result not yet shown because the panel is hidden
  QChartView* chart_view_;
  QPushButton* run_;
  QPushButton* cancel_;
  QDoubleSpinBox* budget_;
  QProgressBar* progress_;
  QLabel* optimal_status_;
};

}  // namespace passlab::views
