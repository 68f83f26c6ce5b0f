// SPDX-License-Identifier: GPL-3.0-or-later
// What the Studio's panels share and observe rather than being handed one by one. Today: the
// selection, the nodes of the partitioned DAG that are highlighted everywhere (graphs, pass graph,
// passes table, timeline, the editor's source spans). A panel that selects tells the model; the
// model tells every other observer.
#pragma once

#include <cstdint>
#include <vector>

#include <QObject>

namespace passlab::views {

class StudioModel : public QObject {
  Q_OBJECT

 public:
  explicit StudioModel(QObject* parent = nullptr) : QObject(parent) {}

  const std::vector<std::uint32_t>& selection() const { return selection_; }
  // Selects nodes of the partitioned DAG on behalf of `origin` (the panel or editor that chose them;
  // null: the window itself). Every observer but `origin` follows.
  void select(const std::vector<std::uint32_t>& ids, const QObject* origin);

 signals:
  void selection_changed(const std::vector<std::uint32_t>& ids, const QObject* origin);

 private:
  std::vector<std::uint32_t> selection_;
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
