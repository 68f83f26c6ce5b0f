// SPDX-License-Identifier: GPL-3.0-or-later
// The stacks of the thread being debugged, as the thesis's Figure 2.1 draws them: the data stack
// in absolute slots with the S0-S7 window over it, and the control stack's (return address,
// shift) frames beside the slots each call shifted past. Calls move the window up, returns down.
#pragma once

#include <cstdint>

#include <QScrollArea>
#include <QWidget>

#include "views/rpu_session.h"

namespace passlab::views {

class RpuStackCanvas : public QWidget {
  Q_OBJECT

 public:
  RpuStackCanvas(RpuSession* session, QWidget* parent);
  QSize sizeHint() const override;
  int slot_y(std::uint32_t slot) const;  // the top of a slot's row
  int rows() const;

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  RpuSession* session_;
};

class RpuStackView : public QScrollArea {
  Q_OBJECT

 public:
  RpuStackView(RpuSession* session, QWidget* parent = nullptr);
  void refresh();
  // What is drawn, for tests: the window's first slot and the frames.
  std::uint32_t window_base() const { return base_; }
  std::size_t frame_count() const { return frames_; }

 private:
  RpuSession* session_;
  RpuStackCanvas* canvas_;
  std::uint32_t base_ = UINT32_MAX;  // none drawn yet
  std::size_t frames_ = 0;
};

}  // namespace passlab::views
