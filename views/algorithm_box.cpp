// SPDX-License-Identifier: GPL-3.0-or-later
// Algorithm boxes from the registry.
#include "views/algorithm_box.h"

#include <string_view>

#include <QComboBox>
#include <QObject>

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

QString algorithm_label(const QString& name) {
  if (name == QLatin1String("yours")) return QObject::tr("Yours");
  const partition::Algorithm* a = partition::find_algorithm(name.toStdString());
  return a ? text(a->label) : name;
}

}  // namespace passlab::views
