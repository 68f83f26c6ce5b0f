// SPDX-License-Identifier: GPL-3.0-or-later
// The compare panel: a column of small DAG per algorithm, a table of numbers and a Qt Charts breakdown.
#include "views/compare_panel.h"

#include <algorithm>
#include <string>
#include <string_view>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCheckBox>
#include <QChart>
#include <QChartView>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "core/partition/registry.h"
#include "views/graph_view.h"

namespace passlab::views {

namespace {

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// Whether a pass writes several values (multiple render targets): the exact search, a one-output
// optimum, does not bound such a partition.
bool several_outputs(const partition::Partition& p) {
  for (const partition::Pass& pass : p.passes)
    if (pass.outputs.size() > 1) return true;
  return false;
}

}  // namespace

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
  for (const partition::Algorithm& a : partition::algorithms()) columns_.push_back(&a);
  // The algorithms' columns, then the partition made by hand.
  const int n = static_cast<int>(columns_.size()) + 1;
  QStringList labels;
  for (const auto* a : columns_) labels << text(a->label);
  labels << tr("Yours");
  labels_ = labels;
  shown_.assign(static_cast<std::size_t>(n), 1);
  auto* graphs = new QWidget(this);
  auto* grid = new QGridLayout(graphs);
  grid->setContentsMargins(0, 0, 0, 0);
  for (int i = 0; i < n; ++i) {
    titles_.push_back(new StatusLabel(graphs, 1, 24));
    titles_.back()->set_text(labels[i], static_cast<int>(labels[i].size()));
    titles_.back()->setToolTip(i < static_cast<int>(columns_.size()) ? text(columns_[static_cast<std::size_t>(i)]->summary)
                                                                     : tr("The partition you make by hand (Partition ▸ Partition it yourself, Ctrl+M)"));
    graphs_.push_back(new GraphView(GraphKind::Dag, graphs));
    graphs_.back()->set_compact(true);
    grid->addWidget(titles_.back(), 0, i);
    grid->addWidget(graphs_.back(), 1, i);
    grid->setColumnStretch(i, 1);
  }
  table_ = new QTableWidget(9, n, this);
  table_->setHorizontalHeaderLabels(labels);
  table_->setVerticalHeaderLabels({tr("Cost"), tr("Passes"), tr("Restores"), tr("Recomputed ops"),
                                   tr("Texture fetches"), tr("Other instructions"), tr("Run time (ms)"),
                                   tr("Versus optimal"), tr("Checks")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  chart_ = new QChart;
  chart_->setTitle(tr("Cost breakdown"));
  // One word per part, so that the legend fits under the bars at the default window size (the
  // longer names were cut to "Pass o…" and "Restor…"); the tooltip says what each one counts.
  chart_->legend()->setAlignment(Qt::AlignBottom);
  // One series for the panel's lifetime: a new result changes its values, not the chart's items.
  series_ = new QStackedBarSeries;
  const QString parts[4] = {tr("Passes"), tr("Restores"), tr("Fetches"), tr("Instructions")};
  for (int k = 0; k < 4; ++k) {
    sets_[k] = new QBarSet(parts[k]);
    for (int i = 0; i < n; ++i) *sets_[k] << 0;
    series_->append(sets_[k]);
  }
  chart_->addSeries(series_);
  auto* x = new QBarCategoryAxis;
  x->append(labels);
  x->setTruncateLabels(false);  // four columns: "Optimal" was cut to "Opti…"
  chart_->addAxis(x, Qt::AlignBottom);
  series_->attachAxis(x);
  x_axis_ = x;
  y_axis_ = new QValueAxis;
  chart_->addAxis(y_axis_, Qt::AlignLeft);
  series_->attachAxis(y_axis_);
  chart_view_ = new QChartView(chart_, this);
  chart_view_->setRenderHint(QPainter::Antialiasing);
  chart_view_->setMinimumHeight(220);
  chart_view_->setToolTip(tr("Each bar is the cost of a partition under the cost model, in parts:\n"
                             "Passes: the per-pass cost times the passes\n"
                             "Restores: the texture fetches that restore saved values\n"
                             "Fetches: the other texture fetches\n"
                             "Instructions: the non-texture instructions"));

  run_ = new QPushButton(tr("Run optimal search"), this);
  run_->setToolTip(tr("Exact search over markings; proves optimality or reports the gap to a lower bound (Ctrl+Shift+O)"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  budget_ = new QDoubleSpinBox(this);
  budget_->setRange(0.5, 3600);
  budget_->setValue(10);
  budget_->setSuffix(tr(" s budget"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  optimal_status_ = new QLabel(tr("The optimal search runs on demand."), this);
  optimal_status_->setWordWrap(true);
  link_ = new QCheckBox(tr("Link views"), this);
  link_->setChecked(true);
  link_->setToolTip(tr("Zooming or panning one of the graphs moves the others alike"));
  for (std::size_t i = 0; i < graphs_.size(); ++i)
    connect(graphs_[i], &GraphView::view_moved, this, [this, i](double scale, QPointF centre) {
      if (!link_->isChecked()) return;
      for (std::size_t j = 0; j < graphs_.size(); ++j)
        if (j != i) graphs_[j]->follow(scale, centre);
    });
  connect(run_, &QPushButton::clicked, this, [this] { emit optimal_requested(budget_->value()); });
  connect(cancel_, &QPushButton::clicked, this, [this] { emit optimal_cancel_requested(); });
  auto* controls = new QHBoxLayout;
  controls->addWidget(run_);
  controls->addWidget(budget_);
  controls->addWidget(progress_, 1);
  controls->addWidget(cancel_);
  controls->addWidget(link_);

  auto* bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(table_);
  bottom->addWidget(chart_view_);
  bottom->setStretchFactor(0, 2);
  bottom->setStretchFactor(1, 3);
  chart_view_->setMinimumWidth(380);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(graphs);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addWidget(optimal_status_);
  layout->addWidget(split, 1);
  show_columns(false);
}

void ComparePanel::show_columns(bool several_outputs) {
  if (several_outputs_ == static_cast<int>(several_outputs)) return;
  several_outputs_ = several_outputs;
  QStringList categories;
  for (std::size_t c = 0; c < shown_.size(); ++c) {
    shown_[c] = c == columns_.size() || !columns_[c]->multiple_outputs || several_outputs;
    titles_[c]->setVisible(shown_[c]);
    graphs_[c]->setVisible(shown_[c]);
    table_->setColumnHidden(static_cast<int>(c), !shown_[c]);
    if (shown_[c]) categories << labels_[static_cast<int>(c)];
  }
  // The bars follow the shown columns (a bar per category); six labels slant so that they do not
  // run into each other.
  x_axis_->clear();
  x_axis_->append(categories);
  x_axis_->setLabelsAngle(categories.size() > 4 ? -30 : 0);
  for (QBarSet* set : sets_) {
    set->remove(0, set->count());
    for (int i = 0; i < categories.size(); ++i) *set << 0;
  }
}

double ComparePanel::budget_seconds() const { return budget_->value(); }

void ComparePanel::show_snapshot(session::SnapshotPtr snapshot, std::shared_ptr<const DrawGraph> graph,
                                 std::shared_ptr<const Layout> layout) {
  snapshot_ = std::move(snapshot);
  graph_ = std::move(graph);
  layout_ = std::move(layout);
  // A search's DAG is coloured by its run, which belongs to no snapshot: it must not keep pointing
  // at it once it is freed here (set_stale restyles a hidden panel's DAGs too).
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (!columns_[c]->every_edit) graphs_[c]->set_run(nullptr);
  graphs_.back()->set_run(nullptr);
  optimal_.reset();
  yours_.reset();
  const bool several = snapshot_ && snapshot_->request.target.limits.render_targets != 1;
  show_columns(several);
  optimal_status_->setText(tr("The optimal search runs on demand.") + not_a_bound());
  progress_->setValue(0);
  pending_ = true;
  next_piece_ = 0;
}

bool ComparePanel::show_next_piece() { return on_screen_ && isVisible() && apply_piece(); }

void ComparePanel::set_on_screen(bool on_screen) {
  on_screen_ = on_screen;
  if (on_screen_ && isVisible()) apply_pending();
}

bool ComparePanel::apply_piece() {
  if (!pending_) return false;
  if (next_piece_ < graphs_.size()) {
    // Coloured by its algorithm's passes from the start (a search has none until it has run).
    graphs_[next_piece_]->show_graph(graph_, layout_, snapshot_, run_of(next_piece_));
    ++next_piece_;
    return true;
  }
  pending_ = false;
  refill();
  return false;
}

// A panel behind another tab takes a new result when it is shown, not while the user types.
void ComparePanel::apply_pending() {
  while (apply_piece()) {
  }
}

void ComparePanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  apply_pending();
}

void ComparePanel::set_stale(bool stale) {
  for (auto* g : graphs_) g->set_stale(stale);
  table_->setEnabled(!stale);
  run_->setEnabled(!stale && snapshot_ && snapshot_->has_dag() && !cancel_->isEnabled());
}

void ComparePanel::optimal_started() {
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setValue(0);
  optimal_status_->setText(tr("Searching…"));
}

void ComparePanel::optimal_progress(double fraction, double best, double bound) {
  progress_->setValue(static_cast<int>(fraction * 1000));
  optimal_status_->setText(tr("Searching… best %1, no partition below %2").arg(best, 0, 'f', 2).arg(bound, 0, 'f', 2));
}

void ComparePanel::optimal_finished(std::shared_ptr<const session::AlgorithmRun> run, bool cancelled) {
  cancel_->setEnabled(false);
  run_->setEnabled(snapshot_ && snapshot_->has_dag());
  optimal_ = std::move(run);
  if (optimal_ && !optimal_->partition.not_run.empty()) {
    progress_->setValue(1000);
    optimal_status_->setText(tr("The optimal search did not run: %1. Its column shows the best partition it was given.")
                                 .arg(QString::fromStdString(optimal_->partition.not_run)) +
                             not_a_bound());
  } else if (optimal_) {
    const auto& p = optimal_->partition;
    progress_->setValue(1000);
    optimal_status_->setText((cancelled ? tr("Cancelled. ") : QString()) +
                             (p.proven_optimal
                                 ? tr("Proven optimal: cost %1 in %2 ms.").arg(p.cost, 0, 'f', 2).arg(p.stats.milliseconds, 0, 'f', 0)
                                 : tr("Best within budget: cost %1; no partition costs less than %2 (gap %3%).")
                                       .arg(p.cost, 0, 'f', 2)
                                       .arg(p.lower_bound, 0, 'f', 2)
                                       .arg(100.0 * (p.cost - p.lower_bound) / p.cost, 0, 'f', 1)) +
                             not_a_bound());
  } else {
    optimal_status_->setText(tr("The optimal search was cancelled."));
  }
  refill();
}

QString ComparePanel::not_a_bound() const {
  if (several_outputs_ != 1) return QString();
  return tr(" It is the cheapest partition whose passes write one value each: no bound for RDS + merge and MRDS, whose passes "
            "write several render targets.");
}

GraphView* ComparePanel::graph(int i) const {
  int shown = -1;
  for (std::size_t c = 0; c < shown_.size(); ++c)
    if (shown_[c] && ++shown == i) return graphs_[c];
  return nullptr;
}

QString ComparePanel::cell(int row, int column) {
  apply_pending();
  int shown = -1;
  for (std::size_t c = 0; c < shown_.size(); ++c)
    if (shown_[c] && ++shown == column) {
      auto* item = table_->item(row, static_cast<int>(c));
      return item ? item->text() : QString();
    }
  return QString();
}

void ComparePanel::set_yours_run(std::shared_ptr<const session::AlgorithmRun> run) {
  yours_ = std::move(run);
  if (!pending_) refill();
  else graphs_.back()->set_run(yours_.get());  // never the run it replaces
}

const session::AlgorithmRun* ComparePanel::run_of(std::size_t c) const {
  if (c == columns_.size()) return yours_.get();
  const partition::Algorithm& a = *columns_[c];
  if (a.every_edit) return snapshot_ ? snapshot_->run(std::string(a.name)) : nullptr;
  return optimal_ && optimal_->algorithm == a.name ? optimal_.get() : nullptr;
}

void ComparePanel::refill() {
  // The others are measured against the exact search's partition once it has one.
  const partition::Partition* best = nullptr;
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (const auto* run = run_of(c); run && columns_[c]->exact && run->partition.valid && run->partition.not_run.empty()) best = &run->partition;
  const auto exact = [&](std::size_t c) { return c < columns_.size() && columns_[c]->exact; };
  table_->clearContents();
  double top = 0;
  const partition::CostModel model = snapshot_ ? snapshot_->request.model : partition::CostModel{};
  int bar = -1;  // the column's bar: the shown columns', in order
  for (std::size_t column = 0; column < graphs_.size(); ++column) {
    const int c = static_cast<int>(column);
    if (!shown_[column]) continue;
    ++bar;
    const auto* run = run_of(column);
    const QString label = column < columns_.size() ? text(columns_[column]->label) : tr("Yours");
    graphs_[column]->set_run(run);
    if (!run) {
      titles_[column]->set_text(column < columns_.size() ? QString("%1 —").arg(label) : tr("%1 — Partition ▸ Partition It Yourself (Ctrl+M)").arg(label),
                                static_cast<int>(label.size()));
      for (auto* set : sets_) set->replace(bar, 0);
      continue;
    }
    const auto& p = run->partition;
    int unfit = 0;
    for (const auto& pass : p.passes) unfit += !pass.failure.empty();
    titles_[column]->set_text(p.valid ? QString("%1: cost %2, %3 passes%4")
                                            .arg(label)
                                            .arg(p.cost, 0, 'f', 2)
                                            .arg(p.passes.size())
                                            .arg(!exact(column) ? QString()
                                                 : !p.not_run.empty() ? tr(" (not run)")
                                                 : p.proven_optimal    ? tr(" (proven)")
                                                                       : tr(" (best within budget)"))
                                      : tr("%1: %2 passes, %3 do not fit").arg(label).arg(p.passes.size()).arg(unfit),
                              static_cast<int>(label.size()));
    QStringList cells{p.valid ? QString::number(p.cost, 'f', 2) : tr("does not fit"),
                      QString::number(p.passes.size()),
                      QString::number(p.restores),
                      QString::number(p.recomputed),
                      QString::number(p.texture_fetches),
                      QString::number(p.instructions),
                      QString::number(p.stats.milliseconds, 'f', 2),
                      several_outputs(p) ? tr("not bounded")  // the search is a one-output optimum
                      : best && p.valid ? QString("%1%2%").arg(p.cost >= best->cost ? "+" : "").arg(100.0 * (p.cost - best->cost) / best->cost, 0, 'f', 1)
                                        : QString("—"),
                      !p.valid ? (unfit == 1 ? tr("1 pass does not fit") : tr("%1 passes do not fit").arg(unfit))
                      : run->problems.empty() ? tr("valid, executes") : QString::fromStdString(run->problems.front())};
    for (int r = 0; r < cells.size(); ++r) {
      auto* item = new QTableWidgetItem(cells[r]);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(r, c, item);
    }
    // A per-pass metric has no parts: its whole cost is one.
    const double parts[4] = {model.linear() ? model.per_pass * static_cast<double>(p.passes.size()) : p.cost,
                             model.linear() ? model.per_texture * p.restores : 0,
                             model.linear() ? model.per_texture * (p.texture_fetches - p.restores) : 0,
                             model.linear() ? model.per_instruction * p.instructions : 0};
    for (int k = 0; k < 4; ++k) sets_[k]->replace(bar, p.valid ? parts[k] : 0);  // no bar for passes that do not fit
    if (p.valid) top = std::max(top, parts[0] + parts[1] + parts[2] + parts[3]);
  }
  y_axis_->setTitleText(tr("cost (%1)").arg(QString::fromStdString(model.name)));
  y_axis_->setRange(0, top > 0 ? top : 1);
  y_axis_->applyNiceNumbers();
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  if (dark != chart_dark_ || !chart_themed_) {
    chart_->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart_themed_ = true;
    chart_dark_ = dark;
  }
  run_->setEnabled(snapshot_ && snapshot_->has_dag() && !cancel_->isEnabled());
}

}  // namespace passlab::views
