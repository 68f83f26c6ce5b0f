// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU debugger: the moves (step into, over, out and each backwards; continue to a breakpoint
// either way; run to a NaN or a fault; restart), the thread's state in words, and the chunk,
// registers and stack views.
#pragma once

#include <QWidget>

#include "views/rpu_session.h"

class QAction;
class QLabel;
class QSplitter;

namespace passlab::views {

class RpuChunkView;
class RpuRegistersView;
class RpuStackView;

class RpuDebuggerPanel : public QWidget {
  Q_OBJECT

 public:
  RpuDebuggerPanel(RpuSession* session, QWidget* parent = nullptr);
  // The moves as actions with their shortcuts, for the Debug menu.
  const QList<QAction*>& move_actions() const { return moves_; }
  RpuChunkView* chunk() const { return chunk_; }
  RpuRegistersView* registers() const { return registers_; }
  RpuStackView* stack() const { return stack_; }
  QString status_text() const;

 private:
  void refresh_status();

  RpuSession* session_;
  QList<QAction*> moves_;
  QLabel* status_;
  RpuChunkView* chunk_;
  RpuRegistersView* registers_;
  RpuStackView* stack_;
};

}  // namespace passlab::views
