// SPDX-License-Identifier: GPL-3.0-or-later
// A picture in a panel, scaled to fit with nearest-neighbour pixels, a placeholder text until
// there is one, an outlined marker (a probed pixel), dimmed when stale, and a click reported in
// fractions of the picture; and sim images turned into pictures. Shared by the preview panels.
#pragma once

#include <functional>
#include <utility>

#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QWidget>

#include "core/sim/image.h"

namespace passlab::views {

// A channel value as a byte: clamped to [0, 1] and rounded.
uchar to_byte(float v);

// The picture of an image's RGB, opaque: clamped to [0, 1], or with the image's smallest..largest
// finite value mapped to 0..1 (`normalize`) so that small values can be seen.
QImage to_qimage(const sim::Image& image, bool normalize, std::pair<float, float>* range);

class PixelView : public QWidget {
 public:
  PixelView(QWidget* parent, int side) : QWidget(parent), side_(side) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumSize(64, 64);
    setCursor(Qt::CrossCursor);
  }
  void set_image(const QImage& image) {
    image_ = image;
    update();
  }
  const QImage& image() const { return image_; }
  void set_placeholder(const QString& text) {
    placeholder_ = text;
    if (image_.isNull()) update();
  }
  // The probed pixel, in fractions of the image; empty: none.
  void set_marker(const QRectF& marker) {
    if (marker == marker_) return;
    marker_ = marker;
    update();
  }
  void set_stale(bool stale) {
    if (stale == stale_) return;
    stale_ = stale;
    update();
  }
  QSize sizeHint() const override { return {side_, side_}; }
  std::function<void(QPointF)> on_click;

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    p.fillRect(rect(), dark ? QColor(24, 25, 28) : QColor(58, 60, 64));
    if (image_.isNull()) {
      p.setPen(QColor(200, 200, 200));
      p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
      return;
    }
    const QRect t = target();
    if (stale_) p.setOpacity(0.4);
    p.drawImage(t, image_);  // without SmoothPixmapTransform: nearest neighbour
    p.setOpacity(1);
    if (marker_.isEmpty()) return;
    const QRectF m(t.x() + marker_.x() * t.width(), t.y() + marker_.y() * t.height(), marker_.width() * t.width(),
                   marker_.height() * t.height());
    // The pixel's outline, at least a few screen pixels wide so a small pixel can be found.
    const qreal w = std::max<qreal>(m.width(), 9), h = std::max<qreal>(m.height(), 9);
    const QRectF box(m.center().x() - w / 2, m.center().y() - h / 2, w, h);
    p.setPen(QPen(Qt::black, 3));
    p.drawRect(box.adjusted(-1, -1, 1, 1));
    p.setPen(QPen(QColor(255, 225, 0), 1));
    p.drawRect(box);
  }
  void mousePressEvent(QMouseEvent* e) override {
    const QRect t = target();
    const QPointF at = e->position();
    if (e->button() != Qt::LeftButton || !on_click || !t.contains(at.toPoint())) return;
    on_click({(at.x() - t.x()) / t.width(), (at.y() - t.y()) / t.height()});
  }

 private:
  QRect target() const {
    if (image_.isNull()) return {};
    const QSize s = image_.size().scaled(size(), Qt::KeepAspectRatio);
    return {QPoint((width() - s.width()) / 2, (height() - s.height()) / 2), s};
  }

  QImage image_;
  QString placeholder_;
  QRectF marker_;
  bool stale_ = false;
  int side_;
};


}  // namespace passlab::views
