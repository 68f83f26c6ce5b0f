// SPDX-License-Identifier: GPL-3.0-or-later
// The graph panel: a target DAG, dominator tree or PDT drawn like the RDS paper's figures,
// coloured by pass, with zoom, pan, fit, minimap, search, kind filter, highlights and export.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "session/snapshot.h"
#include "views/draw_graph.h"
#include "views/trace_frame.h"

class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLineEdit;

namespace passlab::views {

class GraphCanvas;
class NodeItem;
class StatusLabel;

class GraphView : public QWidget {
  Q_OBJECT

 public:
  explicit GraphView(GraphKind kind, QWidget* parent = nullptr);
  ~GraphView() override;

  GraphKind kind() const { return kind_; }
  // A new graph and its layout (computed off the UI thread) with the snapshot it came from,
  // coloured by `run` (one of the snapshot's, or null). A view behind another tab keeps it and
  // draws it when it is shown.
  void show_graph(std::shared_ptr<const DrawGraph> graph, std::shared_ptr<const Layout> layout,
                  session::SnapshotPtr snapshot, const session::AlgorithmRun* run = nullptr);
  // Colours nodes by the passes of this run (null: no colouring).
  void set_run(const session::AlgorithmRun* run);
  void set_stale(bool stale);
  // Selects target-DAG nodes without emitting nodes_selected (cross-highlighting from elsewhere).
  void select_nodes(const std::vector<std::uint32_t>& ids);
  // Trace focus: the nodes of the current trace event, the subregion and the marks so far.
  void set_focus(const std::vector<std::uint32_t>& event_nodes, const std::vector<std::uint32_t>& region,
                 const std::vector<char>& marked, bool ok);
  void clear_focus();
  // A trace frame: its event's nodes and region in focus, or no focus when it has none.
  void show_frame(const TraceFrame& f);
  // Fits the whole graph; the view then stays fitted (through resizes, first showing and new
  // layouts) until the user zooms or pans.
  void fit();
  bool fitted() const { return fitted_; }
  // Zooms by `factor` about the centre, as the + and − buttons do (a user's move: unfits, links).
  void zoom_by(double factor);
  double zoom() const;                      // the view's scale
  bool shows_whole_graph() const;           // every node is inside the visible area
  bool shows_minimap() const;               // only when part of the graph is out of view
  // Linked views (the compare panel's three DAGs): zoom and centre, as view_moved() reports them.
  void follow(double scale, QPointF centre);
  // Presentation mode: lines over twice as thick, labels bold, edges dark.
  void set_presentation(bool on);
  bool presentation() const { return presentation_; }
  // Marking (the partition made by hand): a click on a node asks for its mark to change
  // (mark_requested) instead of selecting it.
  void set_marking(bool on);
  bool marking() const;
  // Clicks node `id` where it is drawn, as a user would (tests and the screenshot tour).
  void click_node(std::uint32_t id);
  // A small view (the compare panel's): only fit and zoom in its bar, so three fit side by side.
  void set_compact(bool compact);
  int node_count();  // of the latest graph (a hidden view draws it first)
  std::vector<std::uint32_t> selected_nodes() const;
  std::vector<std::uint32_t> marked_nodes() const;  // drawn as pass roots: the run's, or the trace focus's marks so far
  QString export_dot() const;
  bool export_file(const QString& path, QString* error) const;  // .svg, .png or .dot
  QGraphicsScene* scene() const { return scene_; }

 protected:
  void showEvent(QShowEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 signals:
  void nodes_selected(const std::vector<std::uint32_t>& ids);
  // Marking: the user clicked node `id` (of the partitioned DAG).
  void mark_requested(std::uint32_t id);
  // The user zoomed or panned: the new scale and the scene point at the centre.
  void view_moved(double scale, QPointF centre);

 private:
  void show_now(std::shared_ptr<const DrawGraph> graph, std::shared_ptr<const Layout> layout,
                session::SnapshotPtr snapshot, const session::AlgorithmRun* run);
  void apply_pending();
  void rebuild();
  void restyle();
  void apply_filter();
  void search();
  void on_scene_selection();

  GraphKind kind_;
  std::shared_ptr<const DrawGraph> graph_;
  std::shared_ptr<const Layout> layout_;
  session::SnapshotPtr snapshot_;
  const session::AlgorithmRun* run_ = nullptr;
  std::vector<int> pass_of_;     // draw-node index -> pass, -1 none
  std::vector<char> recomputed_;
  std::vector<char> marked_;
  QGraphicsScene* scene_;
  GraphCanvas* view_;
  QWidget* minimap_;  // a Minimap
  QLineEdit* search_;
  QComboBox* filter_;
  StatusLabel* status_;
  std::vector<NodeItem*> items_;
  std::vector<class EdgeItem*> edges_;
  bool stale_ = false;
  struct Pending {
    std::shared_ptr<const DrawGraph> graph;
    std::shared_ptr<const Layout> layout;
    session::SnapshotPtr snapshot;
    const session::AlgorithmRun* run = nullptr;
  };
  std::optional<Pending> pending_;  // a result that arrived while the view was hidden
  bool muting_ = false;
  bool fitted_ = true;     // showing the whole graph: refit on resize and on a new layout
  bool presentation_ = false;
};

}  // namespace passlab::views
