// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/status_label.h"

#include <QFontMetrics>
#include <QAbstractTextDocumentLayout>
#include <QPainter>

namespace passlab::views {

StatusLabel::StatusLabel(QWidget* parent, int lines, int chars) : QWidget(parent), lines_(lines), chars_(chars) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  doc_.setDocumentMargin(0);  // the label's own margins are the only ones, or the last line is clipped
}

void StatusLabel::set_text(const QString& text, int bold) {
  if (text == text_ && bold == bold_) return;
  text_ = text;
  bold_ = bold;
  setToolTip(text);
  if (lines_ > 1) {
    doc_.setDefaultFont(font());
    if (Qt::mightBeRichText(text)) doc_.setHtml(text);
    else doc_.setPlainText(text);
  }
  update();  // never updateGeometry(): the size does not depend on the text
}

QSize StatusLabel::sizeHint() const {
  const QFontMetrics fm(font());
  return {fm.averageCharWidth() * chars_ + 8, fm.lineSpacing() * lines_ + 4};
}

QSize StatusLabel::minimumSizeHint() const {
  const QFontMetrics fm(font());
  return {fm.averageCharWidth() * 8, fm.lineSpacing() * lines_ + 4};
}

void StatusLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(palette().color(QPalette::WindowText));
  const QRect r = rect().adjusted(4, 2, -4, -2);
  const QFontMetrics fm(font());
  if (lines_ > 1) {
    // Wrapped; what does not fit is clipped (the tooltip has the rest).
    doc_.setTextWidth(r.width());
    p.translate(r.topLeft());
    p.setClipRect(QRect(QPoint(0, 0), r.size()));
    QAbstractTextDocumentLayout::PaintContext ctx;
    ctx.palette = palette();
    ctx.palette.setColor(QPalette::Text, palette().color(QPalette::WindowText));
    doc_.documentLayout()->draw(&p, ctx);
    return;
  }
  int x = r.left();
  const int baseline = r.top() + (r.height() + fm.ascent() - fm.descent()) / 2;
  if (bold_ > 0) {
    QFont f = font();
    f.setBold(true);
    p.setFont(f);
    const QString head = text_.left(bold_);
    p.drawText(x, baseline, head);
    x += QFontMetrics(f).horizontalAdvance(head);
    p.setFont(font());
  }
  p.drawText(x, baseline, fm.elidedText(text_.mid(bold_), Qt::ElideRight, r.right() - x));
}

}  // namespace passlab::views
