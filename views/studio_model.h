// SPDX-License-Identifier: GPL-3.0-or-later
// What the Studio's panels share and observe rather than being handed one by one: the selection
// (the nodes of the partitioned DAG highlighted everywhere: graphs, pass graph, passes table,
// timeline, the editor's source spans) and the trace position (the frame the trace player is at,
// which the DAG view, the timeline and the RPU decisions show) and the target (the target panel
// edits it, the window compiles for it). A panel that changes one tells the model; the model tells
// every observer.
#pragma once

#include <cstdint>
#include <vector>

#include <QObject>

#include "core/partition/target.h"
#include "views/trace_frame.h"

namespace passlab::views {

class StudioModel : public QObject {
  Q_OBJECT

 public:
  explicit StudioModel(QObject* parent = nullptr) : QObject(parent) {}

  const std::vector<std::uint32_t>& selection() const { return selection_; }
  // Selects nodes of the partitioned DAG on behalf of `origin` (the panel or editor that chose them;
  // null: the window itself). Every observer but `origin` follows.
  void select(const std::vector<std::uint32_t>& ids, const QObject* origin);

  const partition::TargetDesc& target() const { return target_; }
  bool target_edited() const { return target_edited_; }  // changed in the Studio, not a preset or file as loaded
  void set_target(const partition::TargetDesc& t, bool edited);

  const TraceFrame& frame() const { return frame_; }
  // The trace player moved to `f`.
  void set_frame(const TraceFrame& f);

 signals:
  void selection_changed(const std::vector<std::uint32_t>& ids, const QObject* origin);
  void frame_changed(const passlab::views::TraceFrame& f);
  void target_changed(const passlab::partition::TargetDesc& t, bool edited);

 private:
  std::vector<std::uint32_t> selection_;
  TraceFrame frame_;
  partition::TargetDesc target_;
  bool target_edited_ = false;
};

// A panel with select_nodes(ids) follows the model's selection; when it has a signal of the
// nodes its user selected, those select in the model.
template <class Panel>
void follow_selection(StudioModel* model, Panel* panel) {
  QObject::connect(model, &StudioModel::selection_changed, panel, [panel](const std::vector<std::uint32_t>& ids, const QObject* origin) {
    if (origin != panel) panel->select_nodes(ids);
  });
}
template <class Panel, class Signal>
void follow_selection(StudioModel* model, Panel* panel, Signal selected) {
  follow_selection(model, panel);
  QObject::connect(panel, selected, model, [model, panel](const std::vector<std::uint32_t>& ids) { model->select(ids, panel); });
}

}  // namespace passlab::views
