// SPDX-License-Identifier: GPL-3.0-or-later
// The marking bar: a summary of the partition made by hand and its commands.
#include "views/marking_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/partition/registry.h"
#include "views/algorithm_box.h"

namespace passlab::views {

namespace {

// "1 pass", "18 passes" (English plurals; the Studio has no translations).
QString count(long n, const char* one, const char* many) { return QString("%1 %2").arg(n).arg(n == 1 ? one : many); }

}  // namespace

MarkingBar::MarkingBar(QWidget* parent) : QWidget(parent) {
  setObjectName("marking-bar");
  auto button = [this](const QString& text, const QString& tip, auto signal) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, signal);
    return b;
  };
  undo_ = button(tr("Undo"), tr("Take back the last change of the marks (Ctrl+Alt+Z)"), &MarkingBar::undo_requested);
  redo_ = button(tr("Redo"), tr("Make the change taken back again (Ctrl+Alt+Shift+Z)"), &MarkingBar::redo_requested);
  start_ = new QToolButton(this);
  start_->setText(tr("Start from"));
  start_->setToolTip(tr("Replace your marks with an algorithm's, to change them from there"));
  start_->setAutoRaise(true);
  start_->setPopupMode(QToolButton::InstantPopup);
  start_menu_ = new QMenu(start_);
  start_->setMenu(start_menu_);
  auto* clear = button(tr("Clear"), tr("Unmark every node: one pass computes everything"), &MarkingBar::clear_requested);
  auto* hint = button(tr("Hint"), tr("Show one mark whose change makes your partition better (from the best partition known)"),
                      &MarkingBar::hint_requested);
  auto* import = button(tr("Import…"), tr("Read marks from a marks file (passlab-cli partition --save-marks writes them)"),
                        &MarkingBar::import_requested);
  auto* exp = button(tr("Export…"), tr("Write your marks as a marks file (passlab-cli partition --marks reads it)"), &MarkingBar::export_requested);
  auto* done = button(tr("Done"), tr("Stop marking: the panels show the partition they showed before (your marks are kept)"), &MarkingBar::done_requested);
  summary_ = new QLabel(this);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setWordWrap(true);
  comparison_ = new QLabel(this);
  comparison_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  comparison_->setWordWrap(true);
  hint_ = new QLabel(this);
  hint_->setWordWrap(true);
  hint_->hide();
  reason_box_ = new QWidget(this);
  reason_label_ = new QLabel(reason_box_);
  reason_ = new QLineEdit(reason_box_);
  reason_->setObjectName("mark-reason");
  reason_->setPlaceholderText(tr("your reason, saved with the mark (optional)"));
  reason_->setToolTip(tr("Why this value is worth saving: the marks file and the project keep it with the mark"));
  auto* rl = new QHBoxLayout(reason_box_);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(reason_label_);
  rl->addWidget(reason_, 1);
  reason_box_->hide();
  connect(reason_, &QLineEdit::editingFinished, this, [this] {
    if (reason_node_ >= 0) emit reason_given(static_cast<std::uint32_t>(reason_node_), reason_->text());
  });
  auto* buttons = new QHBoxLayout;
  buttons->setContentsMargins(0, 0, 0, 0);
  auto* title = new QLabel(tr("<b>Yours</b>"), this);
  title->setToolTip(tr("Click nodes of the DAG to save their values: each saved value ends a pass that a later pass reads as a texture"));
  buttons->addWidget(title);
  for (auto* b : {undo_, redo_, start_, clear, hint, import, exp}) buttons->addWidget(b);
  buttons->addStretch(1);
  buttons->addWidget(done);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(1);
  layout->addLayout(buttons);
  layout->addWidget(summary_);
  layout->addWidget(comparison_);
  layout->addWidget(hint_);
  layout->addWidget(reason_box_);
  set_history(false, false);
}

void MarkingBar::set_history(bool can_undo, bool can_redo) {
  undo_->setEnabled(can_undo);
  redo_->setEnabled(can_redo);
}

void MarkingBar::show_hint(const QString& text) {
  hint_->setText(text);
  hint_->setVisible(!text.isEmpty());
}

void MarkingBar::ask_reason(long node, const QString& label, const QString& reason) {
  reason_node_ = node;
  reason_box_->setVisible(node >= 0);
  if (node < 0) return;
  reason_label_->setText(tr("Why save n%1 (%2)?").arg(node).arg(label));
  reason_->setText(reason);
}

void MarkingBar::set_reason_text(const QString& text) {
  reason_->setText(text);
  emit reason_->editingFinished();
}

QString MarkingBar::summary() const { return summary_->text(); }
QString MarkingBar::comparison() const { return comparison_->text(); }
QString MarkingBar::hint() const { return hint_->isVisible() ? hint_->text() : QString(); }

void MarkingBar::show_runs(const session::AlgorithmRun* yours, const session::Snapshot* snapshot, const session::AlgorithmRun* optimal) {
  start_menu_->clear();
  if (snapshot)
    for (const auto& run : snapshot->runs) {
      const QString name = QString::fromStdString(run.algorithm);
      start_menu_->addAction(algorithm_label(name), this, [this, name] { emit start_from_requested(name); });
    }
  if (optimal && optimal->partition.valid)
    start_menu_->addAction(algorithm_label(QString::fromStdString(optimal->algorithm)), this,
                           [this, name = QString::fromStdString(optimal->algorithm)] { emit start_from_requested(name); });
  start_->setEnabled(!start_menu_->isEmpty());
  if (!yours || !snapshot) {
    summary_->setText(tr("Click a node of the DAG to save its value; click it again to unmark it."));
    comparison_->clear();
    return;
  }
  const auto& p = yours->partition;
  QStringList unfit;
  for (std::size_t i = 0; i < p.passes.size(); ++i)
    if (!p.passes[i].failure.empty())
      unfit << tr("P%1 (n%2) does not fit: %3").arg(i + 1).arg(p.passes[i].root).arg(QString::fromStdString(p.passes[i].failure));
  const int marks = static_cast<int>(std::count(p.marked.begin(), p.marked.end(), 1)) - 1;  // the root is saved anyway
  QString text = count(std::max(0, marks), "mark", "marks") + ", " + count(static_cast<long>(p.passes.size()), "pass", "passes");
  if (p.valid) {
    text += tr(", cost %1 on %2 (%3): every pass fits. Restores %4, recomputed operations %5.")
                .arg(p.cost, 0, 'f', 2)
                .arg(QString::fromStdString(snapshot->request.target.name), QString::fromStdString(snapshot->request.model.name))
                .arg(p.restores)
                .arg(p.recomputed);
    if (!yours->problems.empty()) text += tr(" Check failed: %1").arg(QString::fromStdString(yours->problems.front()));
  } else {
    text += tr(" on %1: %2 not fit. ")
                .arg(QString::fromStdString(snapshot->request.target.name),
                     unfit.size() == 1 ? tr("1 pass does") : tr("%1 passes do").arg(unfit.size()));
    const int shown = 3;
    text += QStringList(unfit.mid(0, shown)).join("; ");
    if (unfit.size() > shown) text += tr("; and %1 more").arg(unfit.size() - shown);
  }
  summary_->setText(text);
  // Against the algorithms: each one's cost, and yours against the best valid one.
  QStringList others;
  const partition::Partition* best = nullptr;
  QString best_name;
  auto consider = [&](const session::AlgorithmRun& r) {
    const QString label = algorithm_label(QString::fromStdString(r.algorithm));
    if (!r.partition.valid) {
      others << tr("%1 —").arg(label);
      return;
    }
    const bool proven = r.partition.proven_optimal;
    others << tr("%1 %2%3").arg(label).arg(r.partition.cost, 0, 'f', 2).arg(proven ? tr(" (proven optimal)") : QString());
    if (!best || r.partition.cost < best->cost) {
      best = &r.partition;
      best_name = label;
    }
  };
  for (const auto& r : snapshot->runs) consider(r);
  if (optimal) consider(*optimal);
  else others << tr("Optimal: not run (Compare panel)");
  QString versus;
  if (best && p.valid) {
    const double d = 100.0 * (p.cost - best->cost) / best->cost;
    versus = d > 0.005 ? tr(" — yours costs %1% more than %2").arg(d, 0, 'f', 1).arg(best_name)
           : d < -0.005 ? tr(" — yours costs %1% less than %2").arg(-d, 0, 'f', 1).arg(best_name)
                        : tr(" — yours costs what %1's does").arg(best_name);
  }
  comparison_->setText(others.join(" · ") + versus);
}

}  // namespace passlab::views
