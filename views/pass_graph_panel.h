// SPDX-License-Identifier: GPL-3.0-or-later
// The pass graph, for shaders with dozens of passes: one node per pass, its area in proportion to
// its cost, an edge to each pass that reads a value it saved; below it, the clicked pass's part
// of the DAG (its members and the values it restores). Layouts are made on a worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QWidget>

#include "session/snapshot.h"
#include "views/draw_graph.h"
#include "views/layout_cache.h"

class QLabel;
class QSplitter;

namespace passlab::views {

class GraphView;

class PassGraphPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PassGraphPanel(QWidget* parent = nullptr);
  ~PassGraphPanel() override;

  // A new result: its drawn DAG (the subgraphs are cut from it) and the run whose passes to draw
  // (null: none). Hidden, the panel keeps it and lays it out when shown.
  void show_snapshot(session::SnapshotPtr snapshot, std::shared_ptr<const DrawGraph> dag, const session::AlgorithmRun* run);
  void set_run(const session::AlgorithmRun* run);
  void set_stale(bool stale);
  // Cross-highlighting from elsewhere: selects the passes that compute these DAG nodes (no signal).
  void select_nodes(const std::vector<std::uint32_t>& ids);
  // Shows pass `pass`'s subgraph (0-based), as clicking it does.
  void show_pass(int pass);
  int shown_pass() const { return shown_pass_; }
  bool laying_out() const { return pending_layouts_ > 0; }
  GraphView* pass_view() const { return passes_; }
  GraphView* subgraph_view() const { return subgraph_; }
  QString subgraph_title() const;

 signals:
  // The DAG nodes the user picked: a pass's members, or nodes of its subgraph.
  void nodes_selected(const std::vector<std::uint32_t>& ids);

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  void refresh();
  void invalidate();
  void on_passes_selected(const std::vector<std::uint32_t>& passes);
  template <typename Done>
  void lay_out(std::shared_ptr<const DrawGraph> graph, Done done);

  session::SnapshotPtr snapshot_;
  std::shared_ptr<const DrawGraph> dag_;
  const session::AlgorithmRun* run_ = nullptr;
  bool dirty_ = false;  // a result or run not drawn yet (the panel was hidden)
  int shown_pass_ = -1;
  std::uint64_t result_generation_ = 0;  // the pass graph being laid out (older layouts are dropped)
  std::uint64_t click_generation_ = 0;   // the subgraph being laid out
  int pending_layouts_ = 0;
  LayoutCache layouts_{32};  // the layouts this panel made
  GraphView* passes_;
  GraphView* subgraph_;
  QLabel* title_;
  QSplitter* split_;
};

}  // namespace passlab::views
