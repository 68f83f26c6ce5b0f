// SPDX-License-Identifier: GPL-3.0-or-later
// The tables of the RPU compiler's decisions (views/rpu_decisions_panel.h) and of the scheduling
// exercise (views/rpu_schedule_exercise.h): read-only, a row at a time, compact.
#pragma once

#include <vector>

#include <QString>
#include <QStringList>

#include "backends/rpu/schedule.h"

class QTableWidget;
class QWidget;

namespace passlab::views {

QTableWidget* make_table(const QStringList& headers, QWidget* parent);
// Row `row` of `t` holds `cells` (each also its tooltip).
void fill_row(QTableWidget* t, int row, const QStringList& cells);
// Instruction indices as the tables number them (from 1): "2, 4, 5".
QString numbers(const std::vector<int>& v);
// Figure 9.1's table of a block's schedule: cycle, results that became available, ready
// instructions, what issued, and the cycles that stalled (tinted).
void fill_cycle_table(QTableWidget* t, const rpu::BlockSchedule& s);
// The cycles in which nothing issued before the block's last issue.
int stall_count(const rpu::BlockSchedule& s);

}  // namespace passlab::views
