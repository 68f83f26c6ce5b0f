// SPDX-License-Identifier: GPL-3.0-or-later
// The pass and combiner-stage timeline: a partition's passes along a time axis, each as wide as
// its cost; for a register-combiner target the selected pass opened up into its texture units,
// its general combiner stages (RGB and ALPHA portions, unit by unit: input mappings, DOT/MUL,
// ADD/MUX, output scale/bias, outputs), its final combiner and the lifetimes of its registers as
// lanes. Clicking a unit selects its DAG nodes and source lines; selecting nodes elsewhere lights
// the units that compute them; the trace player's code-generation steps light their stage.
#pragma once

#include <QColor>
#include <QFont>
#include <QWidget>

#include "session/snapshot.h"
#include "views/extra_runs.h"

class QComboBox;
class QGraphicsSimpleTextItem;
class QGraphicsScene;
class QGraphicsView;
class QLabel;

namespace passlab::views {

struct TraceFrame;

class TimelinePanel : public QWidget {
  Q_OBJECT

 public:
  explicit TimelinePanel(QWidget* parent = nullptr);
  void show_snapshot(session::SnapshotPtr snapshot);
  void set_algorithm(const QString& algorithm);  // a partition::algorithms() name
  // A run the snapshot does not hold (the optimal search's; the partition made by hand, "yours").
  void set_extra_run(const QString& algorithm, std::shared_ptr<const session::AlgorithmRun> run);
  void select_nodes(const std::vector<std::uint32_t>& ids);
  void show_frame(const TraceFrame& frame);
  void select_pass(int pass);
  int selected_pass() const { return pass_; }
  const backends::Timeline* timeline() const;
  // What the panel draws, for tests: units of the selected pass's stages, and lit ones.
  int stage_columns() const { return stage_columns_; }
  int lit_units() const { return lit_; }
  int frame_stage() const { return frame_stage_; }  // the stage the trace player's step concerns, or -1
  QStringList unit_labels(int stage, bool rgb) const;
  QStringList texture_unit_text() const;  // the open pass's texture units, as drawn
  bool export_file(const QString& path, QString* error) const;
  void fit();

 signals:
  void nodes_selected(const std::vector<std::uint32_t>& ids);

 private:
  const session::AlgorithmRun* run() const;
  void redraw();  // draw(), then size the scene and fit it once per pass shown
  void draw();
  // Where the selected pass's columns are: the texture units at x0, the general stages from
  // x_stage, the final combiner at x_final.
  struct StageLayout {
    double x0 = 0, x_stage = 0, x_final = 0;
    int stages = 0;
    double column_x(int stage) const;  // -1: the texture units; stages: the final combiner
  };
  void draw_overview(const backends::Timeline& t, double total);
  double draw_pass_header(const backends::Timeline& t, const backends::TimelinePass& p, double y);
  void draw_stages(const backends::TimelinePass& p, double top);
  void draw_portion(const backends::TimelinePortion& po, double px, double py, double ph);
  void draw_lanes(const backends::TimelinePass& p, const StageLayout& g, double lanes_y);
  QGraphicsSimpleTextItem* text(const QString& s, double x, double y, const QFont& f, QColor c = QColor()) const;
  bool lights(const std::vector<std::uint32_t>& nodes) const;

  session::SnapshotPtr snapshot_;
  ExtraRuns extras_;
  QComboBox* algorithm_;
  QLabel* summary_;
  QGraphicsScene* scene_;
  QGraphicsView* view_;
  int pass_ = 0;
  int stage_columns_ = 0;
  int lit_ = 0;
  std::vector<std::uint32_t> selection_;
  std::vector<std::uint32_t> frame_nodes_;  // the trace player's current code-generation step
  int frame_pass_ = -1, frame_stage_ = -1;
  bool fitted_ = false;
  struct {
    bool dark = false;
    QColor ink;
    QFont mono, bold;
  } style_;  // what draw() paints with
};

}  // namespace passlab::views
