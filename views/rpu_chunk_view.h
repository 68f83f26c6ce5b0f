// SPDX-License-Identifier: GPL-3.0-or-later
// The chunk being debugged: its four threads in lockstep, step by step around the current one.
// A filled cell is a lane that issued with the step's word; where lanes drop out the chunk split
// (a branch went both ways), where they come back it merged. Click a lane to follow its thread,
// a step to go there.
#pragma once

#include <vector>

#include <QWidget>

#include "views/rpu_session.h"

namespace passlab::views {

class RpuChunkView : public QWidget {
  Q_OBJECT

 public:
  RpuChunkView(RpuSession* session, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {560, 150}; }
  QSize minimumSizeHint() const override { return {300, 130}; }
  void refresh();
  // Where the active lanes change (step index; true: lanes left, a split; false: came back).
  struct Turn {
    std::size_t step;
    bool split;
  };
  const std::vector<Turn>& turns() const { return turns_; }
  QString summary() const { return summary_; }
  // Where a lane's cell for a step is drawn (x = -1: the step is out of sight).
  QPoint cell_center(int lane, std::size_t step) const;

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  std::size_t first_step() const;
  int columns() const;

  RpuSession* session_;
  std::uint64_t analysed_ = ~std::uint64_t{0};  // the session's chunk_serial() of turns_
  std::vector<Turn> turns_;
  QString summary_;
};

}  // namespace passlab::views
