// SPDX-License-Identifier: GPL-3.0-or-later
// The target and cost-model editor.
#include "views/target_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace passlab::views {

namespace {

std::string number(double v) {
  QString s = QString::number(v, 'g', 6);
  return s.toStdString();
}

}  // namespace

std::string cost_model_spec(double per_pass, double per_texture, double per_instruction) {
  std::string out;
  const double c[3] = {per_pass, per_texture, per_instruction};
  const char* unit[3] = {"p", "t", "i"};
  for (int k = 0; k < 3; ++k) {
    if (c[k] == 0) continue;
    if (!out.empty()) out += "+";
    if (c[k] != 1) out += number(c[k]);
    out += unit[k];
  }
  return out.empty() ? "0i" : out;
}

TargetPanel::TargetPanel(QWidget* parent) : QWidget(parent) {
  auto* limits = new QGroupBox(tr("Target: limits of one pass"), this);
  auto* form = new QFormLayout(limits);
  name_ = new QLineEdit(this);
  name_->setToolTip(tr("The target's name, saved with it"));
  form->addRow(tr("Name"), name_);
  description_ = new QLabel(this);
  description_->setWordWrap(true);
  description_->setFixedHeight(description_->fontMetrics().lineSpacing() * 3);
  description_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  form->addRow(description_);
  const QString names[5] = {tr("Operations"), tr("Registers"), tr("Textures"), tr("Interpolants"),
                            tr("Dependent levels")};
  const QString tips[5] = {tr("Instructions per pass, texture fetches and restores included"),
                           tr("Temporaries live at once"), tr("Distinct texture units (each restored value takes one)"),
                           tr("Distinct vertex-to-fragment interpolants"), tr("Levels of dependent texturing")};
  for (int i = 0; i < 5; ++i) {
    limits_[i] = new QSpinBox(this);
    limits_[i]->setRange(partition::kUnlimited, 100000);
    limits_[i]->setSpecialValueText(tr("∞ (no limit)"));
    limits_[i]->setToolTip(tips[i] + tr("; step below 0 for no limit"));
    limits_[i]->setKeyboardTracking(false);
    form->addRow(names[i], limits_[i]);
    connect(limits_[i], &QSpinBox::valueChanged, this, [this] { read_target(); });
  }
  restore_interpolant_ = new QCheckBox(tr("Restores read an interpolant"), this);
  restore_interpolant_->setToolTip(tr("A restored value's address takes an interpolant (otherwise fragment.position)"));
  form->addRow(restore_interpolant_);
  connect(restore_interpolant_, &QCheckBox::toggled, this, [this] { read_target(); });
  derivatives_ = new QComboBox(this);
  derivatives_->addItem(tr("None"), static_cast<int>(partition::Derivatives::None));
  derivatives_->addItem(tr("From the rasterizer's interpolants"), static_cast<int>(partition::Derivatives::Interpolants));
  derivatives_->addItem(tr("Across 2×2 quads (DDX, DDY)"), static_cast<int>(partition::Derivatives::Quad));
  derivatives_->setToolTip(tr("Screen-space derivatives (Du, Dv, area, calculatenormal…): none; from the rasterizer, which "
                              "delivers an interpolant's difference across a pixel and its value at the next pixel, so that a value "
                              "computed per fragment is computed again from the next pixel's interpolants and differenced; or "
                              "across 2×2 quads, where DDX and DDY difference a value with the quad partner's in one instruction "
                              "(the value must then be computed in the same pass)"));
  form->addRow(tr("Derivatives"), derivatives_);
  connect(derivatives_, &QComboBox::currentIndexChanged, this, [this] { read_target(); });
  loops_ = new QSpinBox(this);
  loops_->setRange(0, 1000000);
  loops_->setSpecialValueText(tr("None (loops unroll)"));
  loops_->setSuffix(tr(" iterations"));
  loops_->setKeyboardTracking(false);
  loops_->setToolTip(tr("Dynamic loops (NV_fragment_program2's REP and BRK): a loop whose exit depends on per-fragment values "
                        "runs as a loop of at most this many passes through its test; with none, it is unrolled under "
                        "predicates, which needs a bound the compiler can prove"));
  form->addRow(tr("Dynamic loops"), loops_);
  connect(loops_, &QSpinBox::valueChanged, this, [this] { read_target(); });
  connect(name_, &QLineEdit::editingFinished, this, [this] { read_target(); });
  auto* save = new QPushButton(tr("Save as Target File…"), this);
  save->setToolTip(tr("Write these limits as a target JSON file that `passlab-cli --target FILE` also reads"));
  connect(save, &QPushButton::clicked, this, &TargetPanel::save_requested);
  form->addRow(save);

  auto* cost = new QGroupBox(tr("Cost model"), this);
  auto* cform = new QFormLayout(cost);
  const QString cnames[3] = {tr("Per pass (p)"), tr("Per texture fetch (t)"), tr("Per other instruction (i)")};
  for (int i = 0; i < 3; ++i) {
    coefficients_[i] = new QDoubleSpinBox(this);
    coefficients_[i]->setRange(0, 1000);
    coefficients_[i]->setDecimals(2);
    coefficients_[i]->setKeyboardTracking(false);
    cform->addRow(cnames[i], coefficients_[i]);
    connect(coefficients_[i], &QDoubleSpinBox::valueChanged, this, [this] { read_cost(); });
  }
  formula_ = new QLabel(this);
  cform->addRow(tr("Model"), formula_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(limits);
  layout->addWidget(cost);
  layout->addStretch(1);
}

void TargetPanel::set_target(const partition::TargetDesc& target, bool edited) {
  muting_ = true;
  target_ = target;
  edited_ = edited;
  name_->setText(QString::fromStdString(target.name));
  description_->setText(QString::fromStdString(target.description));
  const int values[5] = {target.limits.operations, target.limits.registers, target.limits.textures,
                         target.limits.interpolants, target.limits.dependent_levels};
  for (int i = 0; i < 5; ++i) limits_[i]->setValue(values[i]);
  restore_interpolant_->setChecked(target.restore_uses_interpolant);
  derivatives_->setCurrentIndex(derivatives_->findData(static_cast<int>(target.derivatives)));
  loops_->setValue(target.dynamic_loops);
  muting_ = false;
}

void TargetPanel::set_cost_model(const partition::CostModel& model) {
  muting_ = true;
  model_ = model;
  coefficients_[0]->setValue(model.per_pass);
  coefficients_[1]->setValue(model.per_texture);
  coefficients_[2]->setValue(model.per_instruction);
  formula_->setText(QString::fromStdString(model.name));
  muting_ = false;
}

void TargetPanel::read_target() {
  if (muting_) return;
  partition::TargetDesc t = target_;
  const std::string name = name_->text().trimmed().toStdString();
  const bool limits_changed = limits_[0]->value() != t.limits.operations || limits_[1]->value() != t.limits.registers ||
                              limits_[2]->value() != t.limits.textures || limits_[3]->value() != t.limits.interpolants ||
                              limits_[4]->value() != t.limits.dependent_levels ||
                              restore_interpolant_->isChecked() != t.restore_uses_interpolant ||
                              derivatives_->currentData().toInt() != static_cast<int>(t.derivatives) ||
                              loops_->value() != t.dynamic_loops;
  t.limits.operations = limits_[0]->value();
  t.limits.registers = limits_[1]->value();
  t.limits.textures = limits_[2]->value();
  t.limits.interpolants = limits_[3]->value();
  t.limits.dependent_levels = limits_[4]->value();
  t.restore_uses_interpolant = restore_interpolant_->isChecked();
  t.derivatives = static_cast<partition::Derivatives>(derivatives_->currentData().toInt());
  t.dynamic_loops = loops_->value();
  // An edited preset is no longer the preset: it gets a name of its own until the user names it.
  if (limits_changed && name == target_.name && !edited_) t.name = name + "-edited";
  else if (!name.empty()) t.name = name;
  if (limits_changed)
    t.description = QString("%1o/%2r/%3t/%4v, edited in the Studio")
                        .arg(t.limits.operations < 0 ? QString("∞") : QString::number(t.limits.operations))
                        .arg(t.limits.registers < 0 ? QString("∞") : QString::number(t.limits.registers))
                        .arg(t.limits.textures < 0 ? QString("∞") : QString::number(t.limits.textures))
                        .arg(t.limits.interpolants < 0 ? QString("∞") : QString::number(t.limits.interpolants))
                        .toStdString();
  t.source.clear();
  if (!limits_changed && t.name == target_.name) return;
  set_target(t, true);
  emit target_edited(t);
}

void TargetPanel::read_cost() {
  if (muting_) return;
  partition::CostModel m;
  m.per_pass = coefficients_[0]->value();
  m.per_texture = coefficients_[1]->value();
  m.per_instruction = coefficients_[2]->value();
  m.name = cost_model_spec(m.per_pass, m.per_texture, m.per_instruction);
  model_ = m;
  formula_->setText(QString::fromStdString(m.name));
  emit cost_model_edited(m);
}

}  // namespace passlab::views
