// SPDX-License-Identifier: GPL-3.0-or-later
// Schedule it yourself: the RPU's Figure 9.1 as an exercise. The student puts a block's
// instructions in the order they should issue (drag them, or move the chosen one up and down);
// the cycle table beside follows at once, with the stalls and cycles of that order against the
// list scheduler's and program order's, and an order that uses a value before it is computed is
// named as such.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "backends/rpu/schedule.h"

class QLabel;
class QListWidget;
class QTableWidget;

namespace passlab::views {

class RpuScheduleExercise : public QWidget {
  Q_OBJECT

 public:
  explicit RpuScheduleExercise(QWidget* parent = nullptr);
  // The block to schedule (the list scheduler's schedule of it); the order starts as program order.
  void show_block(const rpu::BlockSchedule* block);
  // The student's order (program-order indices), as the list shows it.
  std::vector<int> order() const;
  void set_order(const std::vector<int>& order);
  void move_current(int by);  // the chosen instruction one place up (-1) or down (+1)
  QString summary() const;
  QTableWidget* cycle_table() const { return cycles_; }
  // The timing of the order shown (nullopt: not a valid order, see summary()).
  const std::optional<rpu::BlockSchedule>& yours() const { return yours_; }
  const std::string& problem() const { return problem_; }  // why the order shown is not valid

 private:
  void fill_list(const std::vector<int>& order);
  void evaluate();

  std::optional<rpu::BlockSchedule> block_;
  std::optional<rpu::BlockSchedule> yours_;
  std::string problem_;
  QListWidget* list_;
  QTableWidget* cycles_;
  QLabel* summary_;
};

}  // namespace passlab::views
