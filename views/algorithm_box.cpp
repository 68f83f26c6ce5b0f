// SPDX-License-Identifier: GPL-3.0-or-later
// Algorithm boxes from the registry.
#include "views/algorithm_box.h"

#include <string_view>

#include <algorithm>

#include <QComboBox>
#include <QObject>
#include <QStandardItemModel>

#include "core/partition/registry.h"

namespace passlab::views {

namespace {

QString text(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace

void fill_algorithm_box(QComboBox* box, AlgorithmBox which) {
  box->clear();
  for (const partition::Algorithm& a : partition::algorithms()) {
    if (which == AlgorithmBox::Traced && !a.traces) continue;
    box->addItem(text(a.label), text(a.name));
    box->setItemData(box->count() - 1, text(a.summary), Qt::ToolTipRole);
  }
  if (which == AlgorithmBox::All) {
    box->addItem(QObject::tr("Yours"), QStringLiteral("yours"));
    box->setItemData(box->count() - 1, QObject::tr("The partition you make by hand: click nodes of the DAG to save their values (Ctrl+M)"),
                     Qt::ToolTipRole);
  }
  const int i = box->findData(text(partition::kDefaultAlgorithm));
  if (i >= 0) box->setCurrentIndex(i);
}

void enable_algorithms(QComboBox* box, const partition::Limits& limits) {
  auto* model = qobject_cast<QStandardItemModel*>(box->model());
  if (!model) return;
  const std::vector<const partition::Algorithm*> listed = partition::algorithms_for(limits);
  for (int i = 0; i < box->count(); ++i) {
    const partition::Algorithm* a = partition::find_algorithm(box->itemData(i).toString().toStdString());
    if (!a) continue;  // "yours", "rpu"
    const bool on = std::find(listed.begin(), listed.end(), a) != listed.end();
    if (QStandardItem* item = model->item(i)) item->setEnabled(on);
  }
  if (QStandardItem* current = model->item(box->currentIndex()); current && !current->isEnabled()) {
    const int i = box->findData(text(partition::kDefaultAlgorithm));
    if (i >= 0) box->setCurrentIndex(i);
  }
}

QString algorithm_label(const QString& name) {
  if (name == QLatin1String("yours")) return QObject::tr("Yours");
  const partition::Algorithm* a = partition::find_algorithm(name.toStdString());
  return a ? text(a->label) : name;
}

}  // namespace passlab::views
