// SPDX-License-Identifier: GPL-3.0-or-later
// Partition it yourself: marks, their run, and the commands.
#include "app/studio/marking.h"

#include <QFile>
#include <QSaveFile>

#include "core/lang/diagnostics.h"
#include "views/marking_bar.h"
#include "views/studio_model.h"

namespace passlab::studio {

Marking::Marking(views::StudioModel* model, views::MarkingBar* bar, QWidget* window)
    : QObject(window), model_(model), bar_(bar), window_(window) {
  connect(bar_, &views::MarkingBar::undo_requested, this, &Marking::undo);
  connect(bar_, &views::MarkingBar::redo_requested, this, &Marking::redo);
  connect(bar_, &views::MarkingBar::start_from_requested, this, &Marking::start_from);
  connect(bar_, &views::MarkingBar::clear_requested, this, &Marking::clear);
  connect(bar_, &views::MarkingBar::hint_requested, this, &Marking::hint);
  connect(bar_, &views::MarkingBar::done_requested, this, [this] { set_on(false); });
  connect(bar_, &views::MarkingBar::reason_given, this, [this](std::uint32_t node, const QString& reason) {
    hand_.set_reason(node, reason.toStdString());
  });
  // The optimal search's run joins the comparison and the "start from" choices.
  connect(model_, &views::StudioModel::optimal_run_changed, this, [this] { show_bar(); });
}

bool Marking::on() const { return model_->marking(); }

const session::Snapshot* Marking::snapshot() const {
  const auto& r = model_->result();
  return r && r->snapshot && r->snapshot->has_dag() ? r->snapshot.get() : nullptr;
}

void Marking::set_on(bool on) {
  if (on == this->on()) return;
  if (on) {
    previous_algorithm_ = model_->algorithm();
    used_ = true;
    if (!model_->yours_run()) publish();
    model_->set_algorithm(views::StudioModel::kYours);
  } else {
    model_->set_algorithm(previous_algorithm_ == views::StudioModel::kYours ? QStringLiteral("rds") : previous_algorithm_);
  }
  bar_->show_hint({});
  show_bar();
  emit changed();
}

std::shared_ptr<const session::AlgorithmRun> Marking::run_for(const views::ResultPtr& next) {
  if (!next || !next->snapshot || !next->snapshot->has_dag()) return nullptr;
  const session::Snapshot& now = *next->snapshot;
  const session::Snapshot* before = base_.get();
  if (pending_) {
    hand_ = {};
    hand_.assign(now.problem, std::move(*pending_));
    pending_.reset();
    used_ = true;
  } else if (before && before->request.path != now.request.path) {
    hand_ = {};  // another shader: its nodes are not these
    used_ = on();
  } else if (before && before != &now) {
    hand_.follow(before->graph(), now.graph(), now.problem);
  }
  base_ = next->snapshot;
  if (!used_ && hand_.marks().empty()) return nullptr;
  auto run = std::make_shared<const session::AlgorithmRun>(session::run_marks(now, hand_.marks()));
  // The bar shows it once the model has the result (the comparison reads the result's runs).
  QMetaObject::invokeMethod(this, [this] { show_bar(); emit changed(); }, Qt::QueuedConnection);
  return run;
}

void Marking::publish() {
  if (bar_->reason_node() >= 0 && !hand_.reason(static_cast<std::uint32_t>(bar_->reason_node()))) bar_->ask_reason(-1, {}, {});
  const session::Snapshot* s = snapshot();
  if (s) base_ = model_->result()->snapshot;
  model_->set_yours_run(s ? std::make_shared<const session::AlgorithmRun>(session::run_marks(*s, hand_.marks())) : nullptr);
  show_bar();
  emit changed();
}

void Marking::show_bar() {
  bar_->set_history(hand_.can_undo(), hand_.can_redo());
  const auto& optimal = model_->optimal_run();
  bar_->show_runs(model_->yours_run().get(), snapshot(), optimal ? optimal.get() : nullptr);
}

void Marking::toggle(std::uint32_t node) {
  const session::Snapshot* s = snapshot();
  if (!s || !hand_.toggle(s->problem, node)) return;
  bar_->show_hint({});
  // Just marked: the bar asks why (the answer is saved with the mark); unmarked: nothing to ask.
  if (const std::string* why = hand_.reason(node))
    bar_->ask_reason(node, QString::fromStdString(s->problem.labels[node]), QString::fromStdString(*why));
  else
    bar_->ask_reason(-1, {}, {});
  publish();
}

void Marking::undo() {
  if (!hand_.undo()) return;
  bar_->show_hint({});
  publish();
}

void Marking::redo() {
  if (!hand_.redo()) return;
  bar_->show_hint({});
  publish();
}

void Marking::start_from(const QString& algorithm) {
  const session::Snapshot* s = snapshot();
  if (!s) return;
  const session::AlgorithmRun* run = s->run(algorithm.toStdString());
  const auto& optimal = model_->optimal_run();
  if (!run && optimal && QString::fromStdString(optimal->algorithm) == algorithm) run = optimal.get();
  if (!run) return;
  hand_.assign(s->problem, partition::marks_of(run->partition));
  bar_->show_hint({});
  publish();
}

void Marking::clear() {
  const session::Snapshot* s = snapshot();
  if (!s) return;
  hand_.assign(s->problem, {});
  bar_->show_hint({});
  publish();
}

void Marking::hint() {
  const session::Snapshot* s = snapshot();
  if (!s) return;
  // The best partition known: the optimal search's when it has run, else the cheapest algorithm's.
  const partition::Partition* best = nullptr;
  if (const auto& optimal = model_->optimal_run(); optimal && optimal->partition.valid) best = &optimal->partition;
  for (const auto& r : s->runs)
    if (r.partition.valid && (!best || r.partition.cost < best->cost)) best = &r.partition;
  const auto h = session::improving_mark(*s, hand_.marks(), best);
  if (!h) {
    bar_->show_hint(tr("No single mark makes your partition better: it is as good as one change can make it."));
    return;
  }
  bar_->show_hint(tr("Hint: %1.").arg(QString::fromStdString(h->why)));
  model_->select({h->node}, this);
}

bool Marking::import_file(const QString& path, QString* error) {
  const session::Snapshot* s = snapshot();
  if (!s) {
    *error = tr("There is no partitioned DAG to mark (the shader has errors, or the target runs whole programs)");
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    *error = f.errorString();
    return false;
  }
  lang::Diagnostics problems;
  const auto marks = partition::parse_marks(f.readAll().toStdString(), path.toStdString(), s->problem, &problems);
  if (!marks) {
    *error = QString::fromStdString(problems.text());
    return false;
  }
  hand_.assign(s->problem, *marks);
  used_ = true;
  bar_->show_hint({});
  publish();
  return true;
}

bool Marking::export_file(const QString& path, QString* error) const {
  const session::Snapshot* s = snapshot();
  if (!s) {
    *error = tr("There is no partitioned DAG whose marks could be saved");
    return false;
  }
  QSaveFile f(path);
  const std::string text = partition::marks_to_json(hand_.marks(), s->problem);
  if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit()) {
    *error = f.errorString();
    return false;
  }
  return true;
}

void Marking::set_pending(std::vector<partition::Mark> marks) { pending_ = std::move(marks); }

}  // namespace passlab::studio
