// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU chunk view.
#include "views/rpu_chunk_view.h"

#include <algorithm>
#include <array>

#include <QMouseEvent>
#include <QPainter>

namespace passlab::views {

namespace {

constexpr int kLabelW = 150, kHeadH = 22, kRowH = 22, kColW = 9;

QColor lane_color(int lane) {
  static const QColor c[4] = {QColor(66, 133, 244), QColor(52, 168, 83), QColor(234, 134, 0), QColor(171, 71, 188)};
  return c[lane & 3];
}

}  // namespace

RpuChunkView::RpuChunkView(RpuSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(false);
  setToolTip(tr("The chunk's four threads in lockstep: a filled cell is a lane that issued that step's word. Lanes leaving "
                "mark a split (▼), coming back a merge (▲). Click a lane to follow its thread, a step to go there."));
  connect(session_, &RpuSession::debugger_changed, this, [this] { refresh(); });
}

int RpuChunkView::columns() const { return std::max(8, (width() - kLabelW - 8) / kColW); }

std::size_t RpuChunkView::first_step() const {
  const rpu::Debugger* d = session_->debugger();
  if (!d) return 0;
  const std::size_t cols = static_cast<std::size_t>(columns());
  const std::size_t half = cols / 2;
  std::size_t first = d->position() > half ? d->position() - half : 0;
  if (d->step_count() > cols) first = std::min(first, d->step_count() - cols);
  else first = 0;
  return first;
}

QPoint RpuChunkView::cell_center(int lane, std::size_t step) const {
  const std::size_t first = first_step();
  if (step < first) return {-1, kHeadH + lane * kRowH + kRowH / 2};
  return {kLabelW + static_cast<int>(step - first) * kColW + kColW / 2, kHeadH + lane * kRowH + kRowH / 2};
}

void RpuChunkView::refresh() {
  const rpu::Debugger* d = session_->debugger();
  if (session_->chunk_serial() != analysed_) {
    analysed_ = session_->chunk_serial();
    turns_.clear();
    if (d) {
      std::array<std::size_t, 4> last{};  // each lane's last step
      for (std::size_t i = 0; i < d->step_count(); ++i)
        for (int l = 0; l < d->lanes(); ++l)
          if (d->step(i).lanes >> l & 1) last[static_cast<std::size_t>(l)] = i;
      for (std::size_t i = 1; i < d->step_count(); ++i) {
        const std::uint8_t a = d->step(i - 1).lanes, b = d->step(i).lanes;
        // Lanes leaving that run again later split; lanes that have finished are not a split.
        bool left = false;
        for (int l = 0; l < d->lanes(); ++l) left |= (a >> l & 1) && !(b >> l & 1) && last[static_cast<std::size_t>(l)] > i;
        if (left) turns_.push_back({i, true});
        else if (b & ~a) turns_.push_back({i, false});
      }
      const auto splits = std::count_if(turns_.begin(), turns_.end(), [](const Turn& t) { return t.split; });
      summary_ = tr("%1 split(s), %2 merge(s)").arg(splits).arg(static_cast<qsizetype>(turns_.size()) - splits);
    } else {
      summary_.clear();
    }
  }
  update();
}

void RpuChunkView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  const rpu::Debugger* d = session_->debugger();
  if (!d) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignLeft | Qt::TextWordWrap,
               session_->recording() ? tr("Recording the chunk…") : tr("Pick a pixel in the RPU render (click it) to debug the chunk that shaded it."));
    return;
  }
  const std::size_t first = first_step();
  const int cols = columns();
  const auto* b = session_->build();
  QFont small = font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
  p.setFont(small);
  // The step numbers above.
  p.setPen(pal.color(QPalette::PlaceholderText));
  for (int c = 0; c < cols; c += 10) {
    const std::size_t s = first + static_cast<std::size_t>(c);
    if (s >= d->step_count()) break;
    p.drawText(QRect(kLabelW + c * kColW, 2, 60, kHeadH - 4), Qt::AlignLeft | Qt::AlignBottom, QString::number(s));
  }
  for (int l = 0; l < 4; ++l) {
    const int y = kHeadH + l * kRowH;
    const bool exists = l < d->lanes();
    if (l == d->lane()) p.fillRect(QRect(0, y, width(), kRowH), QColor(250, 220, 90, 90));
    p.setPen(exists ? pal.color(QPalette::Text) : pal.color(QPalette::PlaceholderText));
    QString label = tr("lane %1").arg(l);
    if (exists) {
      const auto& px = d->run().chunk.pixel[static_cast<std::size_t>(l)];
      const rpu::ThreadState& t = d->thread(l);
      label += QString(" (%1,%2) ").arg(px[0]).arg(px[1]);
      label += t.status == rpu::ThreadStatus::Done ? tr("done") : t.status == rpu::ThreadStatus::Faulted ? tr("fault") : QString("@%1").arg(t.pc);
    } else {
      label += tr(" (outside the image)");
    }
    p.setBrush(exists ? lane_color(l) : Qt::NoBrush);
    p.drawRect(QRect(4, y + 6, 10, 10));
    p.drawText(QRect(18, y, kLabelW - 20, kRowH), Qt::AlignLeft | Qt::AlignVCenter, label);
    if (!exists) continue;
    for (int c = 0; c < cols; ++c) {
      const std::size_t s = first + static_cast<std::size_t>(c);
      if (s >= d->step_count()) break;
      const rpu::Step& st = d->step(s);
      if (!(st.lanes >> l & 1)) continue;
      QColor col = lane_color(l);
      if (s >= d->position()) col.setAlpha(90);  // not run yet
      p.fillRect(QRect(kLabelW + c * kColW, y + 4, kColW - 1, kRowH - 8), col);
    }
  }
  // Splits and merges.
  const int bottom = kHeadH + 4 * kRowH;
  for (const Turn& t : turns_) {
    if (t.step < first || t.step >= first + static_cast<std::size_t>(cols)) continue;
    const int x = kLabelW + static_cast<int>(t.step - first) * kColW;
    p.setPen(QPen(t.split ? QColor(210, 50, 50) : QColor(40, 150, 60), 1, Qt::DashLine));
    p.drawLine(x, kHeadH, x, bottom);
    p.setPen(t.split ? QColor(210, 50, 50) : QColor(40, 150, 60));
    p.drawText(QRect(x - 6, bottom, 12, 14), Qt::AlignCenter, t.split ? QStringLiteral("▼") : QStringLiteral("▲"));
  }
  // The position: between the steps that ran and the next.
  const int x = kLabelW + static_cast<int>(d->position() - first) * kColW;
  p.setPen(QPen(QColor(220, 60, 20), 2));
  p.drawLine(x, kHeadH - 4, x, bottom + 2);
  p.setPen(pal.color(QPalette::Text));
  QString where;
  if (d->position() < d->step_count()) {
    const rpu::Step& st = d->step(d->position());
    const session::RpuFunction* f = b ? b->function_at(st.pc) : nullptr;
    where = tr("next: word %1%2, cycle %3").arg(st.pc).arg(f ? QString(" in %1").arg(QString::fromStdString(f->name)) : QString()).arg(st.cycle);
  } else {
    where = tr("the chunk has finished");
  }
  p.drawText(QRect(8, bottom + 14, width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter,
             tr("step %1 of %2 · %3 · %4").arg(d->position()).arg(d->step_count()).arg(where, summary_));
}

void RpuChunkView::mousePressEvent(QMouseEvent* e) {
  const rpu::Debugger* d = session_->debugger();
  if (!d) return;
  const QPoint pos = e->position().toPoint();
  const int lane = (pos.y() - kHeadH) / kRowH;
  if (pos.y() < kHeadH || lane < 0 || lane > 3) return;
  if (pos.x() < kLabelW) {
    session_->select_lane(lane);
    return;
  }
  const std::size_t step = first_step() + static_cast<std::size_t>((pos.x() - kLabelW) / kColW);
  if (step <= d->step_count()) {
    if (lane < d->lanes() && lane != d->lane()) session_->select_lane(lane);
    session_->seek(step);
  }
}

}  // namespace passlab::views
