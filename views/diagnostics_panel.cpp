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

void DiagnosticsPanel::show_snapshot(const pipeline::Snapshot& s) {
  list_->clear();
  auto add = [&](const QString& severity, QStyle::StandardPixmap icon, const QString& file, int line, int col,
                 const QString& message, const QString& code, const QString& tooltip) {
    auto* item = new QTreeWidgetItem(list_);
    item->setIcon(0, style()->standardIcon(icon));
    item->setText(0, severity);
    item->setText(1, line > 0 ? QString("%1:%2:%3").arg(QFileInfo(file).fileName()).arg(line).arg(col) : QString());
    item->setText(2, message);
    item->setText(3, code);
    item->setToolTip(2, tooltip);
    item->setData(0, Qt::UserRole, file);
    item->setData(1, Qt::UserRole, line);
    item->setData(2, Qt::UserRole, col);
  };
  for (const auto& m : s.messages) {
    const bool error = m.severity == lang::Severity::Error;
    add(error ? tr("error") : m.severity == lang::Severity::Warning ? tr("warning") : tr("note"),
        error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning, QString::fromStdString(m.file),
        static_cast<int>(m.line), static_cast<int>(m.col), QString::fromStdString(m.message),
        QString::fromStdString(m.code), QString::fromStdString(m.text));
  }
  if (!s.stage_error.empty())
    add(tr("error"), QStyle::SP_MessageBoxCritical, QString(), 0, 0, QString::fromStdString(s.stage_error), "fp-target",
        QString::fromStdString(s.stage_error));
  for (const auto& r : s.runs)
    for (const auto& p : r.problems)
      add(tr("error"), QStyle::SP_MessageBoxCritical, QString(), 0, 0,
          QString("%1: %2").arg(QString::fromStdString(r.algorithm), QString::fromStdString(p)), "partition-check",
          QString::fromStdString(p));
  for (int c = 0; c < 4; ++c)
    if (c != 2) list_->resizeColumnToContents(c);
}

}  // namespace passlab::views
