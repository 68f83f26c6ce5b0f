// SPDX-License-Identifier: GPL-3.0-or-later
// Schedule it yourself: an order of a block's instructions, timed as the RPU issues it.
#include "views/rpu_schedule_exercise.h"

#include <numeric>

#include <QAbstractItemModel>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/decision_tables.h"

namespace passlab::views {

RpuScheduleExercise::RpuScheduleExercise(QWidget* parent) : QWidget(parent) {
  list_ = new QListWidget(this);
  list_->setObjectName("schedule-order");
  list_->setDragDropMode(QAbstractItemView::InternalMove);
  list_->setDefaultDropAction(Qt::MoveAction);
  list_->setToolTip(tr("The order in which the instructions issue, first at the top: drag an instruction, or choose it and move it "
                       "with ▲ and ▼ (Alt+Up, Alt+Down)"));
  cycles_ = make_table({tr("Cycle"), tr("Became available"), tr("Ready"), tr("Issued"), tr("Stall")}, this);
  cycles_->setToolTip(tr("Your order cycle by cycle: each instruction issues in the first cycle after the one before it in which "
                         "the instructions it waits for have finished; a cycle in which it cannot is a stall"));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setObjectName("schedule-summary");
  auto button = [this](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, slot);
    return b;
  };
  auto* up = button(tr("▲"), tr("Issue the chosen instruction one place earlier (Alt+Up)"), [this] { move_current(-1); });
  up->setShortcut(QKeySequence(tr("Alt+Up")));
  auto* down = button(tr("▼"), tr("Issue the chosen instruction one place later (Alt+Down)"), [this] { move_current(1); });
  down->setShortcut(QKeySequence(tr("Alt+Down")));
  auto* program = button(tr("Program order"), tr("Start again from the order the instructions were written in"), [this] {
    if (!block_) return;
    std::vector<int> o(block_->text.size());
    std::iota(o.begin(), o.end(), 0);
    set_order(o);
  });
  auto* scheduler = button(tr("Scheduler's order"), tr("The list scheduler's order (the answer)"), [this] {
    if (block_) set_order(block_->order);
  });
  auto* buttons = new QHBoxLayout;
  buttons->setContentsMargins(0, 0, 0, 0);
  for (auto* b : {up, down, program, scheduler}) buttons->addWidget(b);
  buttons->addStretch(1);
  auto* left = new QWidget(this);
  auto* ll = new QVBoxLayout(left);
  ll->setContentsMargins(0, 0, 0, 0);
  ll->addWidget(new QLabel(tr("Your order (first issued at the top):"), left));
  ll->addWidget(list_, 1);
  ll->addLayout(buttons);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(cycles_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  // A drag reorders the list's rows: the order changed.
  connect(list_->model(), &QAbstractItemModel::rowsMoved, this, [this] { evaluate(); });
  show_block(nullptr);
}

void RpuScheduleExercise::show_block(const rpu::BlockSchedule* block) {
  if (block) block_ = *block;
  else block_.reset();
  std::vector<int> o(block ? block->text.size() : 0);
  std::iota(o.begin(), o.end(), 0);
  fill_list(o);
  evaluate();
}

void RpuScheduleExercise::fill_list(const std::vector<int>& order) {
  list_->clear();
  if (!block_) return;
  for (int i : order) {
    const auto k = static_cast<std::size_t>(i);
    auto* item = new QListWidgetItem(tr("%1  %2   · latency %3, path %4%5")
                                         .arg(i + 1)
                                         .arg(QString::fromStdString(block_->text[k]))
                                         .arg(block_->latency[k])
                                         .arg(block_->path[k])
                                         .arg(block_->deps[k].empty() ? QString() : tr(", waits for %1").arg(numbers(block_->deps[k]))));
    item->setData(Qt::UserRole, i);
    list_->addItem(item);
  }
}

std::vector<int> RpuScheduleExercise::order() const {
  std::vector<int> out;
  for (int r = 0; r < list_->count(); ++r) out.push_back(list_->item(r)->data(Qt::UserRole).toInt());
  return out;
}

void RpuScheduleExercise::set_order(const std::vector<int>& order) {
  fill_list(order);
  evaluate();
}

void RpuScheduleExercise::move_current(int by) {
  const int r = list_->currentRow(), to = r + by;
  if (r < 0 || to < 0 || to >= list_->count()) return;
  QListWidgetItem* item = list_->takeItem(r);
  list_->insertItem(to, item);
  list_->setCurrentRow(to);
  evaluate();
}

QString RpuScheduleExercise::summary() const { return summary_->text(); }

void RpuScheduleExercise::evaluate() {
  cycles_->setRowCount(0);
  yours_.reset();
  problem_.clear();
  if (!block_ || block_->text.empty()) {
    summary_->setText(tr("Choose a function and a block with instructions to schedule."));
    return;
  }
  yours_ = rpu::schedule_in_order(*block_, order(), &problem_);
  const std::string& problem = problem_;
  const rpu::BlockSchedule& s = *block_;
  const QString theirs = tr("the list scheduler: %1 cycles, %2 stalls%3 · program order: %4 cycles")
                             .arg(s.cycles)
                             .arg(stall_count(s))
                             .arg(std::any_of(s.pair_of.begin(), s.pair_of.end(), [](int p) { return p >= 0; }) ? tr(" (pairing words)") : QString())
                             .arg(s.unscheduled_cycles);
  if (!yours_) {
    summary_->setText(tr("<span style='color:#c01818'><b>Not a valid order:</b> %1.</span> (%2)").arg(QString::fromStdString(problem).toHtmlEscaped(), theirs));
    return;
  }
  fill_cycle_table(cycles_, *yours_);
  const int d = yours_->cycles - s.cycles;
  const QString verdict = d == 0 ? tr("as fast as the list scheduler")
                        : d > 0  ? tr("%1 cycle%2 slower than the list scheduler").arg(d).arg(d == 1 ? "" : "s")
                                 : tr("%1 cycle%2 faster than the list scheduler").arg(-d).arg(d == -1 ? "" : "s");
  summary_->setText(tr("<b>Yours: %1 cycles, %2 stalls</b>, %3 · %4").arg(yours_->cycles).arg(stall_count(*yours_)).arg(verdict, theirs));
}

}  // namespace passlab::views
