// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's lessons: carrying out a step's actions (in order, each waiting for the compile
// an earlier one started when it needs its result) and checking a step's question.
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QTabWidget>

#include "app/studio/main_window.h"
#include "app/studio/marking.h"
#include "app/studio/samples.h"
#include "core/partition/registry.h"
#include "views/compare_panel.h"
#include "views/graph_view.h"
#include "views/lessons_panel.h"
#include "views/passes_panel.h"
#include "views/preview_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_schedule_exercise.h"
#include "views/rpu_session.h"
#include "views/sampling_panel.h"
#include "views/studio_model.h"
#include "views/trace_player.h"

namespace passlab::studio {

namespace {

// The actions that read the compile's result (or the RPU debugger's chunk): they wait for it.
bool needs_result(const std::string& verb) {
  return verb == "trace" || verb == "select" || verb == "marking" || verb == "marks" || verb == "algorithm" ||
         verb == "rpu-function" || verb == "rpu-tab" || verb == "rpu-pixel" || verb == "optimal";
}

}  // namespace

void MainWindow::load_lessons() {
  lang::Diagnostics problems;
  lessons_->set_lessons(session::load_lessons(samples_path("lessons").toStdString(), &problems));
  for (const auto& d : problems.items()) lesson_problems_ << QString::fromStdString(lang::format_text({d}, problems.sources()));
}

void MainWindow::run_lesson_step(const session::LessonStep& step) {
  lesson_queue_ = step.actions;
  lesson_next_ = 0;
  continue_lesson();
}

bool MainWindow::lesson_idle() const { return lesson_next_ >= lesson_queue_.size(); }

bool MainWindow::result_pending() const {
  return service_->busy() || studio_->delivering() || shown_generation_ < service_->generation();
}

void MainWindow::continue_lesson() {
  // An action may itself bring a result or a chunk (or a dialog's event loop): the actions after it
  // run once it is done, from here, not inside it.
  if (lesson_running_) return;
  lesson_running_ = true;
  while (lesson_next_ < lesson_queue_.size()) {
    const session::LessonAction a = lesson_queue_[lesson_next_];
    if (needs_result(a.verb) && result_pending()) break;  // panels_updated calls again
    if (a.verb == "rpu-step" && (!rpu_session_->debugger() || rpu_session_->recording())) break;  // debugger_changed calls again
    ++lesson_next_;
    run_lesson_action(a);
  }
  lesson_running_ = false;
}

void MainWindow::run_lesson_action(const session::LessonAction& a) {
  const auto problem = [&](const QString& what) {
    lesson_problems_ << tr("line %1: %2").arg(a.line).arg(what);
    show_status(tr("Lesson: %1").arg(what));
  };
  const QString arg = a.args.empty() ? QString() : QString::fromStdString(a.args.front());
  QStringList all;
  for (const auto& w : a.args) all << QString::fromStdString(w);
  if (a.verb == "open") {
    const QString path = QFileInfo(arg).isAbsolute() ? arg : samples_path(arg);
    if (QFileInfo(path).absoluteFilePath() == path_) return;
    if (!QFileInfo::exists(path)) return problem(tr("no shader %1").arg(arg));
    if (!maybe_save()) {
      lesson_queue_.clear();
      return;
    }
    open_file(path);
  } else if (a.verb == "target") {
    const QString name = all.join(' ');
    if (target_name() != name) set_target(name);
    if (target_name() != name) problem(tr("no target %1").arg(name));
  } else if (a.verb == "cost") {
    set_cost_model(arg);
  } else if (a.verb == "algorithm") {
    if (arg == views::StudioModel::kYours) marking_->set_on(true);
    else {
      marking_->set_on(false);
      if (!partition::find_algorithm(arg.toStdString())) return problem(tr("no algorithm %1 (%2, yours)").arg(arg, QString::fromStdString(partition::algorithm_names())));
      studio_->set_algorithm(arg);
    }
  } else if (a.verb == "panel") {
    static const std::map<QString, const char*> docks = {
        {"graphs", "dock-graphs"},       {"passes", "dock-passes"},       {"compare", "dock-compare"},   {"preview", "dock-preview"},
        {"sampling", "dock-preview"},    {"timeline", "dock-timeline"},   {"trace", "dock-trace"},       {"diagnostics", "dock-diagnostics"},
        {"target", "dock-target"},       {"rpu-code", "dock-rpu-code"},   {"rpu-render", "dock-rpu-render"},
        {"rpu-debugger", "dock-rpu-debugger"}, {"rpu-decisions", "dock-rpu-decisions"}, {"lessons", "dock-lessons"}};
    const auto it = docks.find(arg);
    if (it == docks.end()) return problem(tr("no panel %1").arg(arg));
    auto* d = static_cast<QDockWidget*>(dock_widget(it->second));
    d->show();
    d->raise();
    if (arg == "sampling") preview_tabs_->setCurrentWidget(sampling_);
    else if (arg == "preview") preview_tabs_->setCurrentWidget(preview_);
  } else if (a.verb == "tab") {
    static const QStringList tabs = {"dag", "dominators", "pdt", "passes"};
    if (!tabs.contains(arg)) return problem(tr("no graph tab %1 (dag, dominators, pdt, passes)").arg(arg));
    graph_tabs_->setCurrentIndex(static_cast<int>(tabs.indexOf(arg)));
  } else if (a.verb == "trace") {
    bool ok = false;
    const int n = arg.toInt(&ok);
    if (!ok || n < 0) return problem(tr("trace takes an event number"));
    trace_->set_position(n);
  } else if (a.verb == "select") {
    std::vector<std::uint32_t> ids;
    for (const QString& w : all) {
      bool ok = false;
      const uint id = (w.startsWith('n') ? w.mid(1) : w).toUInt(&ok);
      if (!ok) return problem(tr("select takes node ids (n14 or 14)"));
      ids.push_back(id);
    }
    studio_->select(ids, nullptr);
  } else if (a.verb == "marking") {
    if (arg != "on" && arg != "off") return problem(tr("marking is on or off"));
    marking_->set_on(arg == "on");
  } else if (a.verb == "marks") {
    marking_->set_on(true);
    if (arg == "none") marking_->clear();
    else marking_->start_from(arg);
  } else if (a.verb == "rpu-function") {
    if (!rpu_decisions_->select_function(arg)) problem(tr("no RPU function %1").arg(arg));
  } else if (a.verb == "rpu-tab") {
    static const QStringList tabs = {"scheduling", "allocation", "forwarding", "yourself"};
    if (!tabs.contains(arg)) return problem(tr("no RPU decisions tab %1 (scheduling, allocation, forwarding, yourself)").arg(arg));
    rpu_decisions_->tabs()->setCurrentIndex(static_cast<int>(tabs.indexOf(arg)));
  } else if (a.verb == "rpu-pixel") {
    bool okx = false, oky = false;
    const int x = QString::fromStdString(a.args[0]).toInt(&okx), y = QString::fromStdString(a.args[1]).toInt(&oky);
    if (!okx || !oky) return problem(tr("rpu-pixel takes two numbers"));
    rpu_session_->pick_pixel(x, y);
  } else if (a.verb == "rpu-step") {
    bool ok = false;
    const int n = arg.toInt(&ok);
    if (!ok) return problem(tr("rpu-step takes a number of steps"));
    for (int k = 0; k < std::abs(n); ++k) rpu_session_->move(n > 0 ? views::RpuMove::Into : views::RpuMove::BackInto);
  } else if (a.verb == "scene") {
    auto* scenes = preview_->findChild<QComboBox*>("preview-scene");
    const int i = scenes ? scenes->findText(arg) : -1;
    if (i < 0) return problem(tr("no preview scene %1").arg(arg));
    scenes->setCurrentIndex(i);
  } else if (a.verb == "optimal") {
    bool ok = false;
    const double seconds = arg.toDouble(&ok);
    if (!ok || seconds <= 0) return problem(tr("optimal takes a budget in seconds"));
    run_optimal(seconds);
  }
}

session::Verdict MainWindow::check_lesson_question(const session::LessonQuestion& q, const QString& answer) {
  if (q.kind == "fit") {
    const auto& yours = studio_->yours_run();
    return session::check_fit(q, yours && !rpu_mode_ ? &yours->partition : nullptr, studio_->target());
  }
  if (q.kind == "schedule") {
    const auto* ex = rpu_decisions_->exercise();
    return session::check_schedule(q, ex->yours() ? std::optional<int>(ex->yours()->cycles) : std::nullopt,
                                   ex->problem().empty() ? std::string("choose a block in the RPU compiler decisions") : ex->problem());
  }
  return session::check_answer(q, answer.toStdString());
}

}  // namespace passlab::studio
