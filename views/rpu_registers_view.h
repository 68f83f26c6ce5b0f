// SPDX-License-Identifier: GPL-3.0-or-later
// The registers of the thread being debugged: R0-R15 in the .xyz and .w halves the calling
// convention uses, S, A, I0-I3, HIT with HIT_TRI and HIT_OBJ, the pc, and the constants; what the
// last move changed is highlighted.
#pragma once

#include <QTableWidget>

#include "views/rpu_session.h"

namespace passlab::views {

class RpuRegistersView : public QTableWidget {
  Q_OBJECT

 public:
  RpuRegistersView(RpuSession* session, QWidget* parent = nullptr);
  void refresh();
  // The text of a row's cells ("R3" -> ".xyz", ".w"), and whether a cell is highlighted (tests).
  QString cell_text(const QString& row, int column) const;
  bool cell_changed(const QString& row, int column) const;

 private:
  int row_of(const QString& name) const;
  void set(int row, int column, const QString& text, bool changed);

  RpuSession* session_;
};

}  // namespace passlab::views
