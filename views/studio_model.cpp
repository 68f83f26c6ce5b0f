// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/studio_model.h"

#include <algorithm>

#include <QElapsedTimer>
#include <QThreadPool>
#include <QTimer>

#include "views/work_pool.h"

namespace passlab::views {

namespace {

// UI-thread time the panels may take a result for before the event loop gets a turn.
constexpr qint64 kSliceMs = 4;

bool takes(const ResultObserver& o, const StudioResult& r) {
  using Takes = ResultObserver::Takes;
  if (o.takes == Takes::Both) return true;
  return r.snapshot->is_rpu() == (o.takes == Takes::WholeProgram);
}

}  // namespace

StudioModel::StudioModel(QObject* parent) : QObject(parent) {
  delivery_timer_ = new QTimer(this);
  delivery_timer_->setSingleShot(true);
  delivery_timer_->setInterval(0);
  connect(delivery_timer_, &QTimer::timeout, this, [this] { deliver(false); });
}

StudioModel::~StudioModel() = default;

void StudioModel::observe_result(QString name, ResultObserver::Takes takes, std::function<bool(const ResultPtr&, int)> take,
                                 std::function<bool()> first) {
  observers_.push_back({std::move(name), takes, std::move(take), std::move(first)});
}

void StudioModel::retire(std::shared_ptr<const void> old) {
  if (old) retired_.push_back(std::move(old));
}

void StudioModel::show_result(ResultPtr r, std::shared_ptr<const session::AlgorithmRun> yours) {
  if (!r) {
    clear_result();
    return;
  }
  if (result_ != r) {
    retire(std::move(result_));
    // The optimal run goes with the old result, but panels may draw it until they take the new one.
    retire(std::move(optimal_));
    optimal_.reset();
  }
  if (yours_ != yours) {
    retire(std::move(yours_));
    yours_ = std::move(yours);
  }
  result_ = std::move(r);
  ++serial_;
  delivery_ = {};
  delivery_.result = result_;
  for (std::size_t i = 0; i < observers_.size(); ++i)
    if (takes(observers_[i], *result_)) delivery_.order.push_back(i);
  std::stable_partition(delivery_.order.begin(), delivery_.order.end(), [this](std::size_t i) {
    return observers_[i].first && observers_[i].first();
  });
  take_ms_.clear();
  delivery_timer_->start();
}

void StudioModel::clear_result() {
  delivery_timer_->stop();
  ++serial_;
  delivery_ = {};
  retire(std::move(result_));
  retire(std::move(optimal_));
  retire(std::move(yours_));
  result_.reset();
  optimal_.reset();
  yours_.reset();
}

void StudioModel::finish_delivery() {
  if (delivering()) deliver(true);
}

void StudioModel::deliver(bool to_the_end) {
  QElapsedTimer slice;
  slice.start();
  Delivery& d = delivery_;
  while (d.result && d.next < d.order.size()) {
    const ResultObserver& o = observers_[d.order[d.next]];
    QElapsedTimer clock;
    clock.start();
    const std::uint64_t serial = serial_;
    const ResultPtr taking = d.result;  // the panel may start another delivery while it takes this one
    const bool more = o.take(taking, d.piece);
    const double ms = clock.nsecsElapsed() / 1e6;
    if (serial_ != serial) return;  // the panel finished this delivery or started another one
    if (d.piece == 0) take_ms_.emplace_back(o.name, ms);
    else take_ms_.back().second += ms;  // a panel's pieces add up in one entry
    if (more) {
      ++d.piece;
    } else {
      ++d.next;
      d.piece = 0;
    }
    if (!to_the_end && slice.elapsed() >= kSliceMs) break;  // the rest on the next turn, after a repaint
  }
  if (!d.result) return;
  if (d.next < d.order.size()) {
    delivery_timer_->start();
    return;
  }
  delivery_timer_->stop();
  const quint64 generation = d.result->snapshot->generation;
  ++serial_;
  delivery_ = {};
  // No panel refers to the older results any more: free them (a snapshot holds the whole trace,
  // tens of thousands of events) on a worker thread, not in the UI's time.
  work_pool().start([old = std::move(retired_)]() mutable { old.clear(); });
  retired_.clear();
  emit result_shown(generation);
}

void StudioModel::set_algorithm(const QString& algorithm) {
  if (algorithm == algorithm_) return;
  finish_delivery();  // the run of the new result goes to panels that show it
  algorithm_ = algorithm;
  emit algorithm_changed(algorithm_);
  emit run_changed(run());
}

void StudioModel::set_optimal_run(std::shared_ptr<const session::AlgorithmRun> run) {
  replace_run(optimal_, std::move(run), &StudioModel::optimal_run_changed);
}

void StudioModel::set_yours_run(std::shared_ptr<const session::AlgorithmRun> run) {
  replace_run(yours_, std::move(run), &StudioModel::yours_run_changed);
}

// A run the result does not hold, replaced: the old one retired (panels may still draw it), the
// new one announced, and the partition shown announced if it changed.
void StudioModel::replace_run(std::shared_ptr<const session::AlgorithmRun>& slot, std::shared_ptr<const session::AlgorithmRun> run,
                              void (StudioModel::*changed)(std::shared_ptr<const session::AlgorithmRun>)) {
  finish_delivery();
  const session::AlgorithmRun* before = this->run();
  retire(std::move(slot));
  slot = std::move(run);
  emit(this->*changed)(slot);
  if (this->run() != before) emit run_changed(this->run());
}

const session::AlgorithmRun* StudioModel::run() const {
  if (marking()) return yours_.get();
  if (optimal_ && QString::fromStdString(optimal_->algorithm) == algorithm_) return optimal_.get();
  return result_ ? result_->snapshot->run(algorithm_.toStdString()) : nullptr;
}

void StudioModel::select(const std::vector<std::uint32_t>& ids, const QObject* origin) {
  selection_ = ids;
  emit selection_changed(selection_, origin);
}

void StudioModel::set_target(const partition::TargetDesc& t, bool edited) {
  target_ = t;
  target_edited_ = edited;
  emit target_changed(target_, edited);
}

void StudioModel::set_cost_model(const partition::CostModel& m) {
  cost_model_ = m;
  emit cost_model_changed(cost_model_);
}

void StudioModel::set_frame(const TraceFrame& f) {
  frame_ = f;
  emit frame_changed(frame_);
}

}  // namespace passlab::views
