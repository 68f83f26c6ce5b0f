// SPDX-License-Identifier: GPL-3.0-or-later
// The charts' and graphs' context menu: copy and export.
#include "views/view_export.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QFileDialog>
#include <QGraphicsView>
#include <QMenu>
#include <QMessageBox>
#include <QPixmap>

#include "views/scene_export.h"

namespace passlab::views {

namespace {

QString file_name(QString title) { return title.toLower().replace(' ', '_').remove('/'); }

}  // namespace

bool export_view(QGraphicsView* view, const QString& path, QString* error) {
  if (!view->scene()) {
    *error = QObject::tr("there is nothing drawn to export");
    return false;
  }
  return export_scene(*view->scene(), path, view->property("passlab-export-title").toString(), error);
}

void copy_image(QWidget* widget) { QApplication::clipboard()->setPixmap(widget->grab()); }

void offer_export(QGraphicsView* view, const QString& title) {
  if (view->contextMenuPolicy() != Qt::DefaultContextMenu || view->property("passlab-export-title").isValid()) return;
  view->setProperty("passlab-export-title", title);
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(view, &QWidget::customContextMenuRequested, view, [view](const QPoint& at) {
    QMenu menu(view);
    const QString title = view->property("passlab-export-title").toString();
    menu.addAction(QObject::tr("Copy as Image"), view, [view] { copy_image(view->viewport()); });
    const auto save = [view, title](const QString& filter, const QString& extension) {
      const QString path = QFileDialog::getSaveFileName(view, QObject::tr("Export %1").arg(title), file_name(title) + extension, filter);
      QString error;
      if (!path.isEmpty() && !export_view(view, path, &error)) QMessageBox::warning(view, QObject::tr("Export"), error);
    };
    menu.addAction(QObject::tr("Export as SVG…"), view, [save] { save(QObject::tr("SVG (*.svg)"), ".svg"); });
    menu.addAction(QObject::tr("Export as PNG…"), view, [save] { save(QObject::tr("PNG (*.png)"), ".png"); });
    menu.exec(view->viewport()->mapToGlobal(at));
  });
}

void offer_export_everywhere(QWidget* root) {
  for (QGraphicsView* v : root->findChildren<QGraphicsView*>()) {
    // Named after the panel it is in: the dock's title, or the widget's own name.
    QString title;
    if (auto* chart = qobject_cast<QChartView*>(v); chart && chart->chart()) title = chart->chart()->title();
    for (QWidget* w = v; w && title.isEmpty(); w = w->parentWidget())
      if (!w->windowTitle().isEmpty() && w != root) title = w->windowTitle();
    offer_export(v, title.isEmpty() ? QObject::tr("View") : title);
  }
}

}  // namespace passlab::views
