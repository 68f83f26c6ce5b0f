// SPDX-License-Identifier: GPL-3.0-or-later
// The pass graph panel: the pass graph above, the clicked pass's subgraph below.
#include "views/pass_graph_panel.h"

#include <algorithm>

#include <QCoreApplication>
#include <QLabel>
#include <QPointer>
#include <QSplitter>
#include <QThreadPool>
#include <QVBoxLayout>

#include "session/background.h"
#include "views/graph_layout.h"
#include "views/graph_view.h"
#include "views/work_pool.h"

namespace passlab::views {

PassGraphPanel::PassGraphPanel(QWidget* parent) : QWidget(parent) {
  passes_ = new GraphView(GraphKind::Passes, this);
  passes_->setObjectName("pass-graph");
  subgraph_ = new GraphView(GraphKind::Dag, this);
  subgraph_->setObjectName("pass-subgraph");
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  title_->setContentsMargins(6, 3, 6, 3);
  auto* lower = new QWidget(this);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  lower_layout->setSpacing(0);
  lower_layout->addWidget(title_);
  lower_layout->addWidget(subgraph_, 1);
  split_ = new QSplitter(Qt::Vertical, this);  // both laid out left to right: wide and low
  split_->setChildrenCollapsible(false);
  split_->addWidget(passes_);
  split_->addWidget(lower);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split_);
  connect(passes_, &GraphView::nodes_selected, this, [this](const std::vector<std::uint32_t>& passes) { on_passes_selected(passes); });
  connect(subgraph_, &GraphView::nodes_selected, this, &PassGraphPanel::nodes_selected);
  title_->setText(tr("No partition yet"));
}

PassGraphPanel::~PassGraphPanel() = default;

void PassGraphPanel::show_snapshot(session::SnapshotPtr snapshot, std::shared_ptr<const DrawGraph> dag, const session::AlgorithmRun* run) {
  snapshot_ = std::move(snapshot);
  dag_ = std::move(dag);
  run_ = run;
  invalidate();
  if (isVisible()) refresh();
}

void PassGraphPanel::set_run(const session::AlgorithmRun* run) {
  if (run == run_) return;
  run_ = run;
  invalidate();
  if (isVisible()) refresh();
}

// Layouts still being made are of the old result or run (which may not outlive it): dropped.
void PassGraphPanel::invalidate() {
  dirty_ = true;
  ++result_generation_;
  ++click_generation_;
}

void PassGraphPanel::set_stale(bool stale) {
  passes_->set_stale(stale);
  subgraph_->set_stale(stale);
}

void PassGraphPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_) refresh();
}

// Lays out `graph` on a worker thread (dot is serialised, and can take tens of milliseconds) and
// calls done(layout) here, if the panel is still there (done checks that it is still wanted).
// A graph laid out before (most edits leave the passes as they were) is shown from the cache,
// without running dot again.
template <typename Done>
void PassGraphPanel::lay_out(std::shared_ptr<const DrawGraph> graph, Done done) {
  const std::uint64_t key = layout_key(graph->layout_request());
  if (auto cached = layouts_.find(key)) {
    done(cached);
    return;
  }
  QPointer<PassGraphPanel> self(this);
  ++pending_layouts_;
  work_pool().start([self, graph, done, key] {
    session::run_in_background();
    auto layout = std::make_shared<const Layout>(layout_graph(graph->layout_request()));
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, layout, done, key] {
          if (!self) return;
          --self->pending_layouts_;
          self->layouts_.put(key, layout);
          done(layout);
        },
        Qt::QueuedConnection);
  });
}

void PassGraphPanel::refresh() {
  dirty_ = false;
  const std::uint64_t result = ++result_generation_;
  if (!snapshot_ || !run_ || run_->partition.passes.empty()) {
    passes_->show_graph(std::make_shared<const DrawGraph>(), std::make_shared<const Layout>(), snapshot_, run_);
    subgraph_->show_graph(std::make_shared<const DrawGraph>(), std::make_shared<const Layout>(), snapshot_, run_);
    shown_pass_ = -1;
    title_->setText(run_ ? tr("No passes") : tr("No partition: the shader has errors, or the optimal search has not run"));
    return;
  }
  auto graph = std::make_shared<const DrawGraph>(make_pass_graph(*snapshot_, run_->partition));
  const int n = static_cast<int>(run_->partition.passes.size());
  // The pass shown before, if the new partition still has it; else the output pass.
  const int pass = shown_pass_ >= 0 && shown_pass_ < n ? shown_pass_ : n - 1;
  lay_out(graph, [this, graph, snapshot = snapshot_, run = run_, pass, result](std::shared_ptr<const Layout> layout) {
    if (result != result_generation_) return;  // a newer result or run is being laid out
    passes_->show_graph(graph, layout, snapshot, run);
    passes_->select_nodes({static_cast<std::uint32_t>(pass)});
  });
  show_pass(pass);
}

void PassGraphPanel::on_passes_selected(const std::vector<std::uint32_t>& passes) {
  if (!run_) return;
  std::vector<std::uint32_t> members;
  for (auto p : passes)
    if (p < run_->partition.passes.size()) {
      const auto& m = run_->partition.passes[p].members;
      members.insert(members.end(), m.begin(), m.end());
    }
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  if (!passes.empty()) show_pass(static_cast<int>(passes.front()));
  emit nodes_selected(members);
}

void PassGraphPanel::show_pass(int pass) {
  if (!run_ || !dag_ || pass < 0 || pass >= static_cast<int>(run_->partition.passes.size())) return;
  shown_pass_ = pass;
  const auto& part = run_->partition;
  const auto& p = part.passes[static_cast<std::size_t>(pass)];
  const auto& r = p.resources;
  const std::string root = p.root < snapshot_->problem.labels.size() ? snapshot_->problem.labels[p.root] : std::string("?");
  title_->setText(tr("Pass %1 of %2 computes n%3 %4%5: %6 nodes, %7 instructions, %8 texture fetches (%9 restored values, drawn as leaves)")
                      .arg(pass + 1)
                      .arg(part.passes.size())
                      .arg(p.root)
                      .arg(QString::fromStdString(root), pass + 1 == static_cast<int>(part.passes.size()) ? tr(" (the output)") : QString())
                      .arg(p.members.size())
                      .arg(r.arithmetic)
                      .arg(r.texture_fetches)
                      .arg(r.restores));
  auto graph = std::make_shared<const DrawGraph>(make_pass_subgraph(*dag_, part, pass));
  const std::uint64_t click = ++click_generation_;
  lay_out(graph, [this, graph, snapshot = snapshot_, run = run_, click](std::shared_ptr<const Layout> layout) {
    if (click != click_generation_) return;  // another pass was clicked since
    subgraph_->show_graph(graph, layout, snapshot, run);
    subgraph_->fit();
  });
}

void PassGraphPanel::select_nodes(const std::vector<std::uint32_t>& ids) {
  if (!run_) return;
  std::vector<std::uint32_t> passes;
  const auto& part = run_->partition;
  for (std::size_t p = 0; p < part.passes.size(); ++p)
    for (auto id : ids)
      if (std::binary_search(part.passes[p].members.begin(), part.passes[p].members.end(), id)) {
        passes.push_back(static_cast<std::uint32_t>(p));
        break;
      }
  passes_->select_nodes(passes);
  subgraph_->select_nodes(ids);
}

QString PassGraphPanel::subgraph_title() const { return title_->text(); }

}  // namespace passlab::views
