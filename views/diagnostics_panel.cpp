// SPDX-License-Identifier: GPL-3.0-or-later
// The diagnostics list, with the full formatted diagnostic as the tooltip.
#include "views/diagnostics_panel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace passlab::views {

DiagnosticsPanel::DiagnosticsPanel(QWidget* parent) : QWidget(parent) {
  list_ = new QTreeWidget(this);
  list_->setColumnCount(4);
  list_->setHeaderLabels({tr("Severity"), tr("Location"), tr("Message"), tr("Code")});
  list_->setRootIsDecorated(false);
  list_->header()->setSectionResizeMode(2, QHeaderView::Stretch);
  list_->header()->setStretchLastSection(false);
  connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    emit jump(item->data(0, Qt::UserRole).toString(), item->data(1, Qt::UserRole).toInt(),
              item->data(2, Qt::UserRole).toInt());
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(list_);
}

int DiagnosticsPanel::count() const { return list_->topLevelItemCount(); }

DiagnosticsPanel::Row DiagnosticsPanel::row_of(const session::Message& m) {
  return {m.severity == lang::Severity::Error     ? tr("error")
          : m.severity == lang::Severity::Warning ? tr("warning")
                                                  : tr("note"),
          QString::fromStdString(m.file), static_cast<int>(m.line), static_cast<int>(m.col),
          QString::fromStdString(m.message), QString::fromStdString(m.code), QString::fromStdString(m.text)};
}

void DiagnosticsPanel::set_input_problems(const QString& input, const std::vector<session::Message>& problems) {
  std::vector<Row>& rows = input_rows_[input];
  rows.clear();
  for (const auto& m : problems) rows.push_back(row_of(m));
  refill();
}

void DiagnosticsPanel::show_snapshot(const session::Snapshot& s) {
  std::vector<Row> rows;
  for (const auto& m : s.messages) rows.push_back(row_of(m));
  for (const auto& r : s.runs)
    for (const auto& p : r.problems)
      rows.push_back({tr("error"), QString(), 0, 0, QString("%1: %2").arg(QString::fromStdString(r.algorithm), QString::fromStdString(p)),
                      "partition-check", QString::fromStdString(p)});
  snapshot_rows_ = std::move(rows);
  refill();
}

void DiagnosticsPanel::refill() {
  std::vector<Row> rows = snapshot_rows_;
  for (const auto& [input, problems] : input_rows_) rows.insert(rows.end(), problems.begin(), problems.end());
  // While typing the list rarely changes; refilling it would lay out and repaint it each time.
  if (rows == rows_) return;
  rows_ = std::move(rows);
  list_->clear();
  for (const Row& r : rows_) {
    auto* item = new QTreeWidgetItem(list_);
    const bool error = r.severity == tr("error");
    item->setIcon(0, style()->standardIcon(error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning));
    item->setText(0, r.severity);
    item->setText(1, r.line > 0 ? QString("%1:%2:%3").arg(QFileInfo(r.file).fileName()).arg(r.line).arg(r.col) : QFileInfo(r.file).fileName());
    item->setText(2, r.message);
    item->setText(3, r.code);
    item->setToolTip(2, r.tooltip);
    item->setData(0, Qt::UserRole, r.file);
    item->setData(1, Qt::UserRole, r.line);
    item->setData(2, Qt::UserRole, r.col);
  }
  for (int c = 0; c < 4; ++c)
    if (c != 2) list_->resizeColumnToContents(c);
}

}  // namespace passlab::views
