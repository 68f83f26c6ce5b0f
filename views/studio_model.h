// SPDX-License-Identifier: GPL-3.0-or-later
// What the Studio's panels share and observe rather than being handed one by one:
// - the compile result they show (the last good one) and the partition of it they show (the
//   algorithm chosen, and the optimal search's run when it has been run on that result);
// - the selection (the nodes of the partitioned DAG highlighted everywhere: graphs, pass graph,
//   passes table, timeline, the editor's source spans);
// - the trace position (the frame the trace player is at, which the DAG view, the timeline and the
//   RPU decisions show);
// - the target and the cost model (the target panel edits them, the window compiles for them).
// A panel that changes one tells the model; the model tells every observer.
//
// A result is big (Wood's DAG, three laid-out graphs, traces of tens of thousands of events), and
// giving it to every panel at once would hold the UI thread for tens of milliseconds. So the model
// hands it to the panels that observe results one after another, those on screen first, a few
// milliseconds of UI time per turn of the event loop, so keystrokes and repaints come in between;
// result_shown() says when every panel has it. The results panels no longer show are freed off
// the UI thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "core/partition/target.h"
#include "views/studio_result.h"
#include "views/trace_frame.h"

class QTimer;

namespace passlab::views {

// A panel (or part of one) that takes each result.
struct ResultObserver {
  enum class Takes { Dataflow, WholeProgram, Both };  // results of fragment targets, of the RPU, or both
  QString name;  // for the latency figures
  Takes takes = Takes::Dataflow;
  // Shows the result. A panel that shows it in pieces (one per turn of the event loop) returns
  // true while more are to come and is called again with piece 1, 2, …
  std::function<bool(const ResultPtr& result, int piece)> take;
  // When given and true at the start of a delivery, the panel takes the result before the others
  // (it is on screen); otherwise the order is the order of observe_result calls.
  std::function<bool()> first;
};

class StudioModel : public QObject {
  Q_OBJECT

 public:
  explicit StudioModel(QObject* parent = nullptr);
  ~StudioModel() override;

  // --- the result and its partition ---
  void observe_result(QString name, ResultObserver::Takes takes, std::function<bool(const ResultPtr&, int)> take,
                      std::function<bool()> first = {});
  const ResultPtr& result() const { return result_; }
  // Every observer of its kind takes `r` (again, if it is the result already shown), with the
  // partition made by hand on it (`yours`, null: none).
  void show_result(ResultPtr r, std::shared_ptr<const session::AlgorithmRun> yours = nullptr);
  // No result is shown (the target changed kind; the next result is shown whatever it holds).
  void clear_result();
  bool delivering() const { return delivery_.result != nullptr; }
  // Gives the result being delivered to the observers that have not taken it yet, now.
  void finish_delivery();
  // UI-thread milliseconds each observer took for the last result shown, in the order they took it.
  const std::vector<std::pair<QString, double>>& take_ms() const { return take_ms_; }

  const QString& algorithm() const { return algorithm_; }  // a partition::algorithms() name
  void set_algorithm(const QString& algorithm);
  // The optimal search's run of the result shown (searched on demand, not with every compile).
  const std::shared_ptr<const session::AlgorithmRun>& optimal_run() const { return optimal_; }
  void set_optimal_run(std::shared_ptr<const session::AlgorithmRun> run);
  // The partition made by hand on the result shown (algorithm "yours": session/hand_partition.h).
  const std::shared_ptr<const session::AlgorithmRun>& yours_run() const { return yours_; }
  void set_yours_run(std::shared_ptr<const session::AlgorithmRun> run);
  // Whether the panels show the partition made by hand (the DAG view then marks nodes by clicks).
  bool marking() const { return algorithm_ == kYours; }
  static inline const QString kYours = QStringLiteral("yours");
  // The partition the panels show: the chosen algorithm's run of the result (null: none).
  const session::AlgorithmRun* run() const;

  // --- the selection ---
  const std::vector<std::uint32_t>& selection() const { return selection_; }
  // Selects nodes of the partitioned DAG on behalf of `origin` (the panel or editor that chose them;
  // null: the window itself). Every observer but `origin` follows.
  void select(const std::vector<std::uint32_t>& ids, const QObject* origin);

  // --- the target and the cost model ---
  const partition::TargetDesc& target() const { return target_; }
  bool target_edited() const { return target_edited_; }  // changed in the Studio, not a preset or file as loaded
  void set_target(const partition::TargetDesc& t, bool edited);
  const partition::CostModel& cost_model() const { return cost_model_; }
  void set_cost_model(const partition::CostModel& m);

  // --- the trace position ---
  const TraceFrame& frame() const { return frame_; }
  // The trace player moved to `f`.
  void set_frame(const TraceFrame& f);

 signals:
  // Every observer of the result of this generation has taken it.
  void result_shown(quint64 generation);
  void run_changed(const session::AlgorithmRun* run);
  void algorithm_changed(const QString& algorithm);  // before run_changed
  void optimal_run_changed(std::shared_ptr<const session::AlgorithmRun> run);
  void yours_run_changed(std::shared_ptr<const session::AlgorithmRun> run);
  void selection_changed(const std::vector<std::uint32_t>& ids, const QObject* origin);
  void frame_changed(const passlab::views::TraceFrame& f);
  void target_changed(const passlab::partition::TargetDesc& t, bool edited);
  void cost_model_changed(const passlab::partition::CostModel& m);

 private:
  struct Delivery {
    ResultPtr result;
    std::vector<std::size_t> order;  // indices into observers_
    std::size_t next = 0;
    int piece = 0;
  };
  void deliver(bool to_the_end);
  void replace_run(std::shared_ptr<const session::AlgorithmRun>& slot, std::shared_ptr<const session::AlgorithmRun> run,
                   void (StudioModel::*changed)(std::shared_ptr<const session::AlgorithmRun>));
  void retire(std::shared_ptr<const void> old);

  std::vector<ResultObserver> observers_;
  ResultPtr result_;
  Delivery delivery_;
  std::uint64_t serial_ = 0;  // changes whenever a delivery starts, ends or is dropped
  QTimer* delivery_timer_;
  std::vector<std::shared_ptr<const void>> retired_;  // results and runs panels may still hold
  std::vector<std::pair<QString, double>> take_ms_;
  QString algorithm_;
  std::shared_ptr<const session::AlgorithmRun> optimal_;
  std::shared_ptr<const session::AlgorithmRun> yours_;
  std::vector<std::uint32_t> selection_;
  TraceFrame frame_;
  partition::TargetDesc target_;
  bool target_edited_ = false;
  partition::CostModel cost_model_;
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
