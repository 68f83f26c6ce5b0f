// SPDX-License-Identifier: GPL-3.0-or-later
// Presentation mode: fonts, contrast, graphs, the panel on screen and the pointer.
#include "app/studio/presentation.h"

#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QPainter>
#include <QPixmap>
#include <Qsci/qsciscintilla.h>

#include "views/graph_view.h"

namespace passlab::studio {

namespace {

// A laser pointer: a bright red dot with a soft rim, its hot spot in the middle.
QCursor laser_cursor() {
  QPixmap dot(32, 32);
  dot.fill(Qt::transparent);
  QPainter p(&dot);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(255, 0, 0, 70));
  p.drawEllipse(QPointF(16, 16), 14, 14);
  p.setBrush(QColor(255, 20, 20));
  p.drawEllipse(QPointF(16, 16), 7, 7);
  p.end();
  return QCursor(dot, 16, 16);
}

// Black on white, or white on black in the dark theme: the projector washes out greys.
QPalette high_contrast(const QPalette& base) {
  const bool dark = base.color(QPalette::Window).lightness() < 128;
  const QColor paper = dark ? Qt::black : Qt::white, ink = dark ? Qt::white : Qt::black;
  QPalette p = base;
  for (auto role : {QPalette::Window, QPalette::Base, QPalette::Button, QPalette::AlternateBase, QPalette::ToolTipBase})
    p.setColor(role, paper);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText, QPalette::BrightText})
    p.setColor(role, ink);
  p.setColor(QPalette::Highlight, dark ? QColor(255, 210, 0) : QColor(0, 70, 200));
  p.setColor(QPalette::HighlightedText, dark ? Qt::black : Qt::white);
  return p;
}

}  // namespace

QWidget* Presentation::current_panel() const {
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w); dock && dock->parentWidget() == window_) return dock;
  return nullptr;  // the editor
}

void Presentation::set_on(bool on, QWidget* current) {
  if (on == on_) return;
  on_ = on;
  auto graphs = window_->findChildren<views::GraphView*>();
  if (on) {
    state_ = window_->saveState();
    font_ = QApplication::font();
    palette_ = QApplication::palette();
    QFont big = font_;
    big.setPointSizeF(font_.pointSizeF() * kFontScale);
    QApplication::setFont(big);
    QApplication::setPalette(high_contrast(palette_));
    editor_zoom_ = static_cast<int>(editor_->SendScintilla(QsciScintillaBase::SCI_GETZOOM));
    editor_->zoomTo(editor_zoom_ + 6);
    for (auto* g : graphs) g->set_presentation(true);
    // The current panel maximised: every other dock put away, and the editor too when it is a dock.
    QWidget* keep = current ? current : current_panel();
    for (auto* dock : window_->findChildren<QDockWidget*>())
      if (dock != keep && dock->parentWidget() == window_) dock->hide();
    if (keep) {
      keep->show();
      keep->raise();
      window_->centralWidget()->hide();
    }
    QApplication::setOverrideCursor(laser_cursor());
  } else {
    QApplication::restoreOverrideCursor();
    QApplication::setFont(font_);
    QApplication::setPalette(palette_);
    editor_->zoomTo(editor_zoom_);
    for (auto* g : graphs) g->set_presentation(false);
    window_->centralWidget()->show();
    window_->restoreState(state_);
  }
}

}  // namespace passlab::studio
