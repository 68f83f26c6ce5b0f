// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU decision tables.
#include "views/decision_tables.h"

#include <QColor>
#include <QHeaderView>
#include <QObject>
#include <QTableWidget>

namespace passlab::views {

QTableWidget* make_table(const QStringList& headers, QWidget* parent) {
  auto* t = new QTableWidget(parent);
  t->setColumnCount(static_cast<int>(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 4);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setAlternatingRowColors(true);
  t->setWordWrap(false);
  return t;
}

void fill_row(QTableWidget* t, int row, const QStringList& cells) {
  for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
    auto* it = new QTableWidgetItem(cells[c]);
    it->setToolTip(cells[c]);
    t->setItem(row, c, it);
  }
}

QString numbers(const std::vector<int>& v) {
  QStringList s;
  for (int i : v) s << QString::number(i + 1);
  return s.join(", ");
}

void fill_cycle_table(QTableWidget* t, const rpu::BlockSchedule& s) {
  t->setRowCount(static_cast<int>(s.table.size()));
  int last_issue = 0;
  for (const rpu::CycleRow& row : s.table)
    if (!row.issued.empty()) last_issue = row.cycle;
  for (std::size_t r = 0; r < s.table.size(); ++r) {
    const rpu::CycleRow& row = s.table[r];
    QString issued;
    for (int i : row.issued) issued += (issued.isEmpty() ? "" : " + ") + QString("%1 %2").arg(i + 1).arg(QString::fromStdString(s.text[static_cast<std::size_t>(i)]));
    const bool stall = row.issued.empty() && row.cycle < last_issue;
    fill_row(t, static_cast<int>(r),
             {QString::number(row.cycle), numbers(row.became_available), numbers(row.candidates), issued,
              stall ? QObject::tr("stall") : row.issued.empty() ? (r + 1 == s.table.size() ? QObject::tr("done") : QObject::tr("waiting for results")) : QString()});
    if (stall)
      for (int c = 0; c < t->columnCount(); ++c) t->item(static_cast<int>(r), c)->setBackground(QColor(250, 215, 215));
  }
  t->resizeColumnsToContents();
}

int stall_count(const rpu::BlockSchedule& s) {
  int last_issue = 0, stalls = 0;
  for (const rpu::CycleRow& row : s.table)
    if (!row.issued.empty()) last_issue = row.cycle;
  for (const rpu::CycleRow& row : s.table) stalls += row.issued.empty() && row.cycle < last_issue;
  return stalls;
}

}  // namespace passlab::views
