// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU registers view.
#include "views/rpu_registers_view.h"

#include <cmath>

#include <QHeaderView>

namespace passlab::views {

namespace {

constexpr int kConstRow = rpu::kRegCount + 6;  // R0-HIT, then A, HIT_TRI, HIT_OBJ, PC, status, depth

QString num(float v) {
  if (std::isnan(v)) return QStringLiteral("NaN");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(static_cast<double>(v), 'g', 5);
}

QString xyz(const rpu::Vec4& v) { return QString("%1, %2, %3").arg(num(v[0]), num(v[1]), num(v[2])); }

}  // namespace

RpuRegistersView::RpuRegistersView(RpuSession* session, QWidget* parent) : QTableWidget(parent), session_(session) {
  setColumnCount(2);
  setHorizontalHeaderLabels({tr(".xyz"), tr(".w")});
  setRowCount(kConstRow + 32);
  QStringList names;
  for (int r = 0; r < rpu::kRegCount; ++r) names << QString::fromStdString(rpu::thread_register_name(r));
  names << "A" << "HIT_TRI" << "HIT_OBJ" << "PC" << tr("status") << tr("depth");
  for (int c = 0; c < 32; ++c) names << QString("C%1").arg(c);
  setVerticalHeaderLabels(names);
  for (int r = 0; r < rowCount(); ++r)
    for (int c = 0; c < 2; ++c) {
      auto* it = new QTableWidgetItem;
      it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
      setItem(r, c, it);
    }
  horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  setEditTriggers(NoEditTriggers);
  setAlternatingRowColors(true);
  QFont f("monospace");
  f.setStyleHint(QFont::Monospace);
  f.setPointSizeF(9);
  setFont(f);
  setToolTip(tr("The selected thread's registers. R0-R15 as the ABI splits them: .xyz holds a point, vector or colour, "
                ".w a float. Yellow: changed by the last move."));
  connect(session_, &RpuSession::debugger_changed, this, [this] { refresh(); });
  connect(session_, &RpuSession::build_changed, this, [this] { refresh(); });
  refresh();
}

void RpuRegistersView::set(int row, int column, const QString& text, bool changed) {
  QTableWidgetItem* it = item(row, column);
  if (it->text() != text) it->setText(text);
  const QBrush want = changed ? QBrush(QColor(250, 220, 90, 170)) : QBrush();
  if (it->background() != want) it->setBackground(want);
  if (changed != it->data(Qt::UserRole).toBool()) it->setData(Qt::UserRole, changed);
}

void RpuRegistersView::refresh() {
  const rpu::Debugger* d = session_->debugger();
  const auto* b = session_->build();
  for (int c = 0; c < 32; ++c) {
    const rpu::Vec4 v = b ? b->constants[static_cast<std::size_t>(c)] : rpu::Vec4{};
    set(kConstRow + c, 0, b ? xyz(v) : QString(), false);
    set(kConstRow + c, 1, b ? num(v[3]) : QString(), false);
  }
  if (!d) {
    for (int r = 0; r < kConstRow; ++r) {
      set(r, 0, QString(), false);
      set(r, 1, QString(), false);
    }
    return;
  }
  const rpu::ThreadState& t = d->thread(d->lane());
  const rpu::ThreadChanges& ch = d->changed();
  for (int r = 0; r < rpu::kRegCount; ++r) {
    const rpu::Vec4& v = t.reg[static_cast<std::size_t>(r)];
    const std::uint8_t m = ch.reg[static_cast<std::size_t>(r)];
    set(r, 0, xyz(v), (m & 7) != 0);
    set(r, 1, num(v[3]), (m & 8) != 0);
  }
  const int a = rpu::kRegCount;
  set(a, 0, QString("%1, %2, %3").arg(t.a[0]).arg(t.a[1]).arg(t.a[2]), ch.a);
  set(a, 1, QString::number(t.a[3]), ch.a);
  set(a + 1, 0, QString::number(t.hit_tri), ch.hit_address);
  set(a + 2, 0, QString::number(t.hit_obj), ch.hit_address);
  const session::RpuFunction* f = b ? b->function_at(t.pc) : nullptr;
  set(a + 3, 0, QString("%1%2").arg(t.pc).arg(f ? QString(" (%1)").arg(QString::fromStdString(f->name)) : QString()), false);
  const char* status[] = {"running", "done", "faulted"};
  set(a + 4, 0, t.status == rpu::ThreadStatus::Faulted ? QString::fromStdString(t.fault) : tr(status[static_cast<int>(t.status)]), false);
  set(a + 5, 0, tr("%1 frame(s), base S0 = slot %2").arg(t.frames.size()).arg(t.base), ch.frames);
}

int RpuRegistersView::row_of(const QString& name) const {
  for (int r = 0; r < rowCount(); ++r)
    if (verticalHeaderItem(r) && verticalHeaderItem(r)->text() == name) return r;
  return -1;
}

QString RpuRegistersView::cell_text(const QString& row, int column) const {
  const int r = row_of(row);
  return r < 0 ? QString() : item(r, column)->text();
}

bool RpuRegistersView::cell_changed(const QString& row, int column) const {
  const int r = row_of(row);
  return r >= 0 && item(r, column)->data(Qt::UserRole).toBool();
}

}  // namespace passlab::views
