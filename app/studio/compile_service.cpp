// SPDX-License-Identifier: GPL-3.0-or-later
// The compile service: QThreadPool jobs, a generation counter to drop stale results, and a small
// cache of Graphviz layouts so an edit that keeps the graph keeps its picture.
#include "app/studio/compile_service.h"

#include <chrono>
#include <map>

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include "core/partition/registry.h"
#include "session/background.h"
#include "views/layout_cache.h"
#include "views/stable_layout.h"
#include "views/work_pool.h"


namespace passlab::studio {

namespace {

// The search "Run optimal search" starts: the registry's first algorithm that does not run with
// every edit.
std::string search_name() {
  for (const partition::Algorithm& a : partition::algorithms())
    if (!a.every_edit) return std::string(a.name);
  return {};
}

}  // namespace

struct CompileService::LayoutCache {
  views::LayoutCache layouts{24};
  // The layout of `graph`: cached, else derived from the previous picture of the same kind so
  // that unchanged nodes keep their place, else a fresh run of dot.
  std::shared_ptr<const views::Layout> get(const views::DrawGraph& graph, const views::DrawGraph* previous_graph,
                                           const views::Layout* previous_layout, bool fresh) {
    const views::LayoutRequest request = graph.layout_request();
    const std::uint64_t key = views::layout_key(request);
    if (!fresh)
      if (auto hit = layouts.find(key)) return hit;
    std::shared_ptr<const views::Layout> layout;
    if (!fresh && previous_graph && previous_layout)
      if (auto derived = views::stable_layout(*previous_graph, *previous_layout, graph))
        layout = std::make_shared<const views::Layout>(std::move(*derived));
    if (!layout) layout = std::make_shared<const views::Layout>(views::layout_graph(request));
    layouts.put(key, layout);
    return layout;
  }
};

CompileService::CompileService(QObject* parent) : QObject(parent), cache_(std::make_shared<LayoutCache>()) {
  qRegisterMetaType<ResultPtr>();
  timer_.setSingleShot(true);
  connect(&timer_, &QTimer::timeout, this, [this] { start(); });
}

CompileService::~CompileService() {
  if (cancel_) cancel_->store(true);
  if (optimal_cancel_) optimal_cancel_->store(true);
  views::work_pool().waitForDone();
}

void CompileService::set_request(const session::Request& base) {
  base_ = base;
  text_ = QString::fromStdString(base.text);
}

void CompileService::text_changed(const QString& text) {
  text_ = text;
  if (manual_) return;
  // One edit can change the text more than once (a replaced selection: a deletion, then an
  // insertion); the immediate start waits for the event loop, so it compiles the final text.
  if (at_once_ && timer_.isActive()) return;
  at_once_ = !timer_.isActive() && running_ == 0 && (!since_start_.isValid() || since_start_.elapsed() >= delay_);
  timer_.start(at_once_ ? 0 : delay_);
}

void CompileService::relayout() {
  fresh_layout_ = true;
  compile_now();
}

void CompileService::compile_now() {
  timer_.stop();
  start();
}

void CompileService::start() {
  since_start_.start();
  at_once_ = false;
  if (cancel_) cancel_->store(true);  // the previous run's result would be stale
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  const std::uint64_t generation = ++generation_;
  session::Request request = base_;
  request.text = text_.toStdString();
  auto cancel = cancel_;
  auto cache = cache_;
  ResultPtr previous = latest_;
  const bool fresh = fresh_layout_;
  fresh_layout_ = false;
  QPointer<CompileService> self(this);
  ++running_;
  emit compile_started(generation);
  views::work_pool().start([self, request, cancel, cache, generation, previous, fresh] {
    session::run_in_background();
    auto snapshot = session::build_snapshot(request, cancel.get());
    snapshot->generation = generation;
    auto result = std::make_shared<StudioResult>();
    if (!snapshot->cancelled && snapshot->has_dag()) {
      auto t0 = std::chrono::steady_clock::now();
      const views::GraphKind kinds[3] = {views::GraphKind::Dag, views::GraphKind::Dominators,
                                         views::GraphKind::PartialDominators};
      for (int i = 0; i < 3 && !cancel->load(); ++i) {
        auto g = std::make_shared<const views::DrawGraph>(views::make_draw_graph(*snapshot, kinds[i]));
        const bool has_previous = previous && previous->graphs[i] && previous->layouts[i];
        result->layouts[i] = cache->get(*g, has_previous ? previous->graphs[i].get() : nullptr,
                                        has_previous ? previous->layouts[i].get() : nullptr, fresh);
        result->graphs[i] = std::move(g);
      }
      result->layout_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    result->snapshot = std::move(snapshot);
    const bool stale = cancel->load();
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, result, stale] {
          if (!self) return;
          --self->running_;
          if (stale || result->snapshot->generation != self->generation_) return;
          if (result->snapshot->has_dag()) self->latest_ = result;
          emit self->compiled(result);
        },
        Qt::QueuedConnection);
  });
}

void CompileService::run_optimal(session::SnapshotPtr snapshot, double budget_seconds) {
  cancel_optimal();
  if (!snapshot || !snapshot->has_dag()) return;
  optimal_cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto cancel = optimal_cancel_;
  QPointer<CompileService> self(this);
  views::work_pool().start([self, snapshot, budget_seconds, cancel] {
    session::run_in_background();
    partition::OptimalOptions so;
    so.budget_seconds = budget_seconds;
    so.cancel = cancel.get();
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    so.progress = [self, last](double fraction, double best, double bound) {
      auto now = std::chrono::steady_clock::now();
      if (now - *last < std::chrono::milliseconds(100)) return;  // at most ten updates a second
      *last = now;
      QMetaObject::invokeMethod(
          QCoreApplication::instance(), [self, fraction, best, bound] { if (self) emit self->optimal_progress(fraction, best, bound); },
          Qt::QueuedConnection);
    };
    auto run = std::make_shared<const session::AlgorithmRun>(session::run_algorithm(*snapshot, search_name(), so));
    const bool cancelled = cancel->load();
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, snapshot, run, cancelled] {
          if (self) emit self->optimal_finished(snapshot, run, cancelled);
        },
        Qt::QueuedConnection);
  });
}

void CompileService::cancel_optimal() {
  if (optimal_cancel_) optimal_cancel_->store(true);
}

}  // namespace passlab::studio
