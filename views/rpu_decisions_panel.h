// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU compiler's decisions for one function, as the thesis presents them: per scheduled
// block the list scheduler's cycle table (Figure 9.1: cycle, values that became available,
// candidates, issued, stalls) with the dependency DAG and its path lengths; the register
// allocator's interference graph with friends, its removal order and each colour with its reason;
// forwarding's rewrites and the facts reaching each instruction; and the scheduling exercise
// (views/rpu_schedule_exercise.h) on the block chosen. The trace player steps through
// them (frames with pass = function, stage = kind of decision).
#pragma once

#include <QWidget>

#include "views/rpu_session.h"
#include "views/trace_player.h"

class QComboBox;
class QGraphicsView;
class QLabel;
class QTableWidget;
class QTabWidget;

namespace passlab::views {
class RpuScheduleExercise;
}

namespace passlab::views {

class RpuDecisionsPanel : public QWidget {
  Q_OBJECT

 public:
  RpuDecisionsPanel(RpuSession* session, QWidget* parent = nullptr);
  void show_frame(const TraceFrame& frame);
  bool select_function(const QString& name);  // by RSL name
  void select_piece(int piece);
  QTableWidget* cycle_table() const { return cycles_; }
  QTableWidget* instruction_table() const { return instructions_; }
  QTableWidget* removal_table() const { return removals_; }
  QTableWidget* colour_table() const { return colours_; }
  QTableWidget* forwarding_table() const { return forwarding_; }
  QTabWidget* tabs() const { return tabs_; }
  RpuScheduleExercise* exercise() const { return exercise_; }  // the fourth tab
  int dag_nodes() const;           // nodes drawn in the dependency DAG
  int interference_nodes() const;  // ...and in the interference graph
  QString function_label() const;

 private:
  void rebuild();
  void show_function();
  void show_piece();
  void show_allocation();
  void show_forwarding();
  void draw_dag();

  RpuSession* session_;
  QComboBox* function_;
  QComboBox* piece_;
  QLabel* piece_summary_;
  QTabWidget* tabs_;
  QTableWidget* cycles_;
  QTableWidget* instructions_;
  QGraphicsView* dag_;
  QGraphicsView* interference_;
  QLabel* allocation_summary_;
  QTableWidget* removals_;
  QTableWidget* colours_;
  QTableWidget* forwarding_;
  QTableWidget* facts_;
  RpuScheduleExercise* exercise_;
  const session::RpuBuild* shown_ = nullptr;
  std::string interference_for_;  // the function whose interference graph is drawn
};

}  // namespace passlab::views
