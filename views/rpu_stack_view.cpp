// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU stack view.
#include "views/rpu_stack_view.h"

#include <cmath>

#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>

namespace passlab::views {

namespace {

constexpr int kRow = 18, kTop = 26, kSlotX = 6, kSlotW = 44, kValueX = 54, kValueW = 250, kWindowX = 310, kFrameX = 360;

QString num(float v) {
  if (std::isnan(v)) return QStringLiteral("NaN");
  return QString::number(static_cast<double>(v), 'g', 4);
}

}  // namespace

RpuStackCanvas::RpuStackCanvas(RpuSession* session, QWidget* parent) : QWidget(parent), session_(session) {}

int RpuStackCanvas::rows() const {
  const rpu::Debugger* d = session_->debugger();
  if (!d) return 8;
  const rpu::ThreadState& t = d->thread(d->lane());
  return static_cast<int>(std::max<std::size_t>(t.stack.size(), t.base + 8));
}

QSize RpuStackCanvas::sizeHint() const {
  const rpu::Debugger* d = session_->debugger();
  const int frames = d ? static_cast<int>(d->thread(d->lane()).frames.size()) : 0;
  return {kFrameX + 280, kTop + std::max(rows() * kRow, frames * (kRow + 6)) + 8};
}

// Slot 0 at the bottom: the stack grows upwards, as in the thesis.
int RpuStackCanvas::slot_y(std::uint32_t slot) const { return kTop + (rows() - 1 - static_cast<int>(slot)) * kRow; }

void RpuStackCanvas::paintEvent(QPaintEvent* e) {
  QPainter p(this);
  const QPalette pal = palette();
  p.fillRect(e->rect(), pal.color(QPalette::Base));
  QFont mono("monospace");
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSizeF(8.5);
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRect(kSlotX, 4, kSlotW + kValueW, 18), Qt::AlignLeft | Qt::AlignVCenter, tr("Data stack (slot: value)"));
  p.drawText(QRect(kFrameX, 4, 280, 18), Qt::AlignLeft | Qt::AlignVCenter, tr("Control stack"));
  const rpu::Debugger* d = session_->debugger();
  if (!d) {
    p.setFont(font());
    p.drawText(QRect(kSlotX, kTop, 600, 40), Qt::AlignLeft, tr("Pick a pixel in the RPU render to debug its thread."));
    return;
  }
  const rpu::ThreadState& t = d->thread(d->lane());
  const rpu::ThreadChanges& ch = d->changed();
  const auto* b = session_->build();
  const int n = rows();
  p.setFont(mono);
  // The window first, under the slots.
  const QRect window(kValueX - 2, slot_y(t.base + 7) - 1, kValueW + 4 + (kWindowX - kValueX - kValueW) + 44, 8 * kRow + 2);
  p.fillRect(window, QColor(70, 140, 230, 40));
  for (int s = 0; s < n; ++s) {
    const std::uint32_t slot = static_cast<std::uint32_t>(s);
    const int y = slot_y(slot);
    if (y + kRow < e->rect().top() || y > e->rect().bottom()) continue;
    const rpu::Vec4 v = slot < t.stack.size() ? t.stack[slot] : rpu::Vec4{};
    const bool changed = std::find(ch.stack.begin(), ch.stack.end(), slot) != ch.stack.end();
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(kSlotX, y, kSlotW - 4, kRow), Qt::AlignRight | Qt::AlignVCenter, QString::number(s));
    const QRect box(kValueX, y + 1, kValueW, kRow - 2);
    if (changed) p.fillRect(box, QColor(250, 220, 90, 190));
    p.setPen(pal.color(QPalette::Mid));
    p.drawRect(box);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
               QString("%1, %2, %3, %4").arg(num(v[0]), num(v[1]), num(v[2]), num(v[3])));
    if (slot >= t.base && slot < t.base + 8) {
      p.setPen(QColor(70, 140, 230));
      p.drawText(QRect(kWindowX, y, 40, kRow), Qt::AlignLeft | Qt::AlignVCenter, QString("S%1").arg(slot - t.base));
    }
  }
  p.setPen(QPen(QColor(30, 90, 190), 2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(window);
  // The frames, newest first from the top of the column, each joined to the slot its call made
  // the callee's S0 (the caller's base shifted by `push`).
  std::uint32_t base = t.base;
  for (std::size_t k = t.frames.size(); k-- > 0;) {
    const rpu::Frame& f = t.frames[k];
    const int row = static_cast<int>(t.frames.size() - 1 - k);
    const QRect box(kFrameX + 14, kTop + row * (kRow + 6), 256, kRow + 2);
    const QColor c = QColor::fromHsv(static_cast<int>(k * 67 % 360), 90, 235);
    p.setPen(QPen(c.darker(170), 1, Qt::DotLine));
    p.drawLine(box.left(), box.center().y(), kFrameX + 4, box.center().y());
    p.drawLine(kFrameX + 4, box.center().y(), kFrameX + 4, slot_y(base) + kRow / 2);
    p.drawLine(kFrameX + 4, slot_y(base) + kRow / 2, kWindowX + 28, slot_y(base) + kRow / 2);
    p.fillRect(box, c);
    p.setPen(c.darker(170));
    p.drawRect(box);
    p.setPen(Qt::black);
    const session::RpuFunction* fn = b ? b->function_at(f.return_address) : nullptr;
    p.drawText(box.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
               tr("#%1 return to %2%3, shift %4").arg(k).arg(f.return_address)
                   .arg(fn ? QString(" (%1)").arg(QString::fromStdString(fn->name)) : QString()).arg(f.push));
    base -= f.push;
  }
  if (t.frames.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(kFrameX, kTop, 270, kRow), Qt::AlignLeft | Qt::AlignVCenter, tr("empty: the thread is in main"));
  }
}

RpuStackView::RpuStackView(RpuSession* session, QWidget* parent) : QScrollArea(parent), session_(session) {
  canvas_ = new RpuStackCanvas(session, this);
  setWidget(canvas_);
  setWidgetResizable(false);
  canvas_->resize(canvas_->sizeHint());
  setToolTip(tr("The data stack in absolute slots (slot 0 at the bottom) with the S0-S7 window the thread sees, and the "
                "control stack's frames: each call pushes its return address and shifts the window."));
  connect(session_, &RpuSession::debugger_changed, this, [this] { refresh(); });
  refresh();
}

void RpuStackView::refresh() {
  const rpu::Debugger* d = session_->debugger();
  const QSize want = canvas_->sizeHint();
  if (canvas_->size() != want) canvas_->resize(want);
  canvas_->update();
  if (!d) return;
  const rpu::ThreadState& t = d->thread(d->lane());
  const bool moved = t.base != base_;
  base_ = t.base;
  frames_ = t.frames.size();
  if (moved) ensureVisible(kValueX, canvas_->slot_y(t.base + 4), 20, 5 * kRow);
}

}  // namespace passlab::views
