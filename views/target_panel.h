// SPDX-License-Identifier: GPL-3.0-or-later
// The target and cost-model editor: a preset, the per-pass limits and the cost coefficients,
// edited live (each change recompiles), and saved as a new target file.
#pragma once

#include <QWidget>

#include "core/partition/target.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace passlab::views {

class TargetPanel : public QWidget {
  Q_OBJECT

 public:
  explicit TargetPanel(QWidget* parent = nullptr);
  // Show a target or cost model (from a preset, a file or a project) without emitting edits.
  void set_target(const partition::TargetDesc& target, bool edited = false);
  void set_cost_model(const partition::CostModel& model);
  partition::TargetDesc target() const { return target_; }
  partition::CostModel cost_model() const { return model_; }
  bool edited() const { return edited_; }
  // The spin box of one limit (0 operations .. 4 dependent levels), for tests.
  QSpinBox* limit_box(int i) const { return limits_[i]; }
  QDoubleSpinBox* coefficient_box(int i) const { return coefficients_[i]; }

 signals:
  void target_edited(const passlab::partition::TargetDesc& target);
  void cost_model_edited(const passlab::partition::CostModel& model);
  void save_requested();

 private:
  void read_target();
  void read_cost();

  partition::TargetDesc target_;
  partition::CostModel model_;
  bool edited_ = false;
  bool muting_ = false;
  QLineEdit* name_;
  QLabel* description_;
  QSpinBox* limits_[5];
  QCheckBox* restore_interpolant_;
  QComboBox* derivatives_;
  QSpinBox* loops_;  // dynamic loops' iterations; 0: none (loops unroll)
  QDoubleSpinBox* coefficients_[3];
  QLabel* formula_;
};

// "15p+5t+i" for the coefficients 15, 5, 1 (a coefficient of one is left out, zero terms too).
std::string cost_model_spec(double per_pass, double per_texture, double per_instruction);

}  // namespace passlab::views
