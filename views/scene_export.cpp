// SPDX-License-Identifier: GPL-3.0-or-later
// Scene export through QSaveFile, so a failed export leaves the old file.
#include "views/scene_export.h"

#include <QGraphicsScene>
#include <QImage>
#include <QObject>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace passlab::views {

bool export_scene(QGraphicsScene& s, const QString& path, const QString& title, QString* error) {
  QSaveFile f(path);
  const QRectF r = s.itemsBoundingRect().adjusted(-10, -10, 10, 10);
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    if (!f.open(QIODevice::WriteOnly)) {
      *error = f.errorString();
      return false;
    }
    QSvgGenerator svg;
    svg.setOutputDevice(&f);
    svg.setSize(r.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), r.size()));
    svg.setTitle(title);
    QPainter painter(&svg);
    s.render(&painter, QRectF(QPointF(0, 0), r.size()), r);
    painter.end();
    if (!f.commit()) {
      *error = f.errorString();
      return false;
    }
    return true;
  }
  QImage img((r.size() * 2).toSize(), QImage::Format_ARGB32);
  img.fill(s.backgroundBrush().style() == Qt::NoBrush ? QColor(Qt::white) : s.backgroundBrush().color());  // a chart's scene has none
  QPainter painter(&img);
  painter.setRenderHint(QPainter::Antialiasing);
  s.render(&painter, QRectF(QPointF(0, 0), r.size() * 2), r);
  painter.end();
  if (!f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
    *error = f.errorString().isEmpty() ? QObject::tr("cannot write the image") : f.errorString();
    return false;
  }
  return true;
}

}  // namespace passlab::views
