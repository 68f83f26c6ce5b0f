// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline panel: an overview strip of passes sized by cost, and the selected pass's combiner
// stages, units, registers and final combiner drawn as a grid (positions computed here from the
// snapshot's Timeline, which the pipeline built; nothing is compiled on the UI thread).
#include "views/timeline_panel.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QSaveFile>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "views/algorithm_box.h"
#include "views/pass_colors.h"
#include "views/scene_export.h"
#include "views/trace_player.h"

namespace passlab::views {

namespace {

// Item data keys: what a click on the item selects.
constexpr int kRole = 0;    // "pass" or "unit"
constexpr int kIndex = 1;   // pass index, or index into the unit node lists

constexpr double kStageWidth = 178, kUnitHeight = 17, kLaneHeight = 16, kGap = 10;

class View : public QGraphicsView {
 public:
  View(QGraphicsScene* scene, TimelinePanel* panel, std::function<void(QGraphicsItem*)> clicked)
      : QGraphicsView(scene, panel), clicked_(std::move(clicked)) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHint(QPainter::Antialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
  }

 protected:
  void mousePressEvent(QMouseEvent* e) override {
    if (e->button() == Qt::LeftButton)
      for (QGraphicsItem* it : items(e->pos()))
        if (it->data(kRole).isValid()) {
          clicked_(it);
          return;
        }
    QGraphicsView::mousePressEvent(e);
  }
  void wheelEvent(QWheelEvent* e) override {
    if (e->modifiers() & Qt::ControlModifier) {
      const double f = e->angleDelta().y() > 0 ? 1.15 : 1 / 1.15;
      scale(f, f);
      return;
    }
    QGraphicsView::wheelEvent(e);
  }

 private:
  std::function<void(QGraphicsItem*)> clicked_;
};

bool intersects(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  for (std::uint32_t x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

QColor unit_color(backends::TimelineUnit::Kind k, bool dark) {
  QColor c;
  switch (k) {
    case backends::TimelineUnit::Kind::Input: c = QColor(236, 236, 228); break;
    case backends::TimelineUnit::Kind::Product: c = QColor(253, 205, 150); break;
    case backends::TimelineUnit::Kind::Combine: c = QColor(160, 200, 240); break;
    case backends::TimelineUnit::Kind::OutMap: c = QColor(210, 180, 235); break;
    case backends::TimelineUnit::Kind::Output: c = QColor(180, 225, 170); break;
  }
  return dark ? c.darker(220) : c;
}

}  // namespace

TimelinePanel::TimelinePanel(QWidget* parent) : QWidget(parent) {
  algorithm_ = new QComboBox(this);
  fill_algorithm_box(algorithm_);
  algorithm_->setToolTip(tr("Which partition the timeline shows"));
  connect(algorithm_, &QComboBox::currentIndexChanged, this, [this] {
    pass_ = 0;
    fitted_ = false;
    redraw();
  });
  summary_ = new QLabel(this);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* fit_button = new QToolButton(this);
  fit_button->setText(tr("Fit"));
  fit_button->setToolTip(tr("Fit the timeline to the panel (Ctrl+wheel zooms)"));
  connect(fit_button, &QToolButton::clicked, this, &TimelinePanel::fit);
  auto* export_button = new QToolButton(this);
  export_button->setText(tr("Export…"));
  export_button->setToolTip(tr("Save the timeline as SVG or PNG"));
  connect(export_button, &QToolButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the timeline"), "timeline.svg", tr("SVG (*.svg);;PNG (*.png)"));
    QString error;
    if (!path.isEmpty() && !export_file(path, &error)) QMessageBox::warning(this, tr("Export"), error);
  });
  scene_ = new QGraphicsScene(this);
  view_ = new View(scene_, this, [this](QGraphicsItem* it) {
    const QString role = it->data(kRole).toString();
    if (role == "pass") {
      select_pass(it->data(kIndex).toInt());
      const backends::Timeline* t = timeline();
      if (t && pass_ < static_cast<int>(t->passes.size())) emit nodes_selected(t->passes[static_cast<std::size_t>(pass_)].members);
    } else if (role == "unit") {
      const QVariantList ids = it->data(kIndex).toList();
      std::vector<std::uint32_t> nodes;
      for (const QVariant& v : ids) nodes.push_back(v.toUInt());
      selection_ = nodes;
      redraw();
      emit nodes_selected(nodes);
    }
  });
  auto* bar = new QHBoxLayout;
  bar->addWidget(algorithm_);
  bar->addWidget(summary_, 1);
  bar->addWidget(fit_button);
  bar->addWidget(export_button);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
}

void TimelinePanel::show_snapshot(session::SnapshotPtr snapshot) {
  const bool same_shader = snapshot_ && snapshot && snapshot_->request.path == snapshot->request.path;
  snapshot_ = std::move(snapshot);
  extras_.clear();
  if (snapshot_) enable_algorithms(algorithm_, snapshot_->request.target.limits);
  if (!same_shader) {
    // Node ids of another shader mean nothing here.
    pass_ = 0;
    selection_.clear();
    frame_nodes_.clear();
    frame_pass_ = frame_stage_ = -1;
  }
  fitted_ = false;
  redraw();
}

void TimelinePanel::set_algorithm(const QString& algorithm) {
  const int i = algorithm_->findData(algorithm);
  if (i >= 0) algorithm_->setCurrentIndex(i);
}

void TimelinePanel::set_extra_run(const QString& algorithm, std::shared_ptr<const session::AlgorithmRun> run) {
  extras_.set(algorithm, std::move(run));
  redraw();
}

const session::AlgorithmRun* TimelinePanel::run() const {
  const QString a = algorithm_->currentData().toString();
  if (const auto* extra = extras_.find(a)) return extra;
  return snapshot_ ? snapshot_->run(a.toStdString()) : nullptr;
}

const backends::Timeline* TimelinePanel::timeline() const {
  const session::AlgorithmRun* r = run();
  return r ? &r->timeline : nullptr;
}

void TimelinePanel::select_pass(int pass) {
  pass_ = pass;
  fitted_ = false;
  redraw();
}

void TimelinePanel::select_nodes(const std::vector<std::uint32_t>& ids) {
  selection_ = ids;
  const backends::Timeline* t = timeline();
  if (t && !ids.empty())
    for (std::size_t p = 0; p < t->passes.size(); ++p)
      if (intersects(ids, t->passes[p].members)) {
        if (static_cast<int>(p) != pass_) fitted_ = false;
        pass_ = static_cast<int>(p);
        break;
      }
  redraw();
}

void TimelinePanel::show_frame(const TraceFrame& frame) {
  // Only code-generation steps concern the timeline; any other step clears what the last one lit.
  if (frame.pass < 0 && frame_pass_ < 0) return;
  frame_pass_ = frame.pass;
  frame_stage_ = frame.pass >= 0 ? frame.stage : -1;
  frame_nodes_ = frame.pass >= 0 ? frame.nodes : std::vector<std::uint32_t>{};
  if (frame.pass >= 0 && frame.pass != pass_) {
    pass_ = frame.pass;
    fitted_ = false;
  }
  redraw();
}

QStringList TimelinePanel::unit_labels(int stage, bool rgb) const {
  QStringList out;
  const backends::Timeline* t = timeline();
  if (!t || pass_ >= static_cast<int>(t->passes.size())) return out;
  const auto& stages = t->passes[static_cast<std::size_t>(pass_)].stages;
  if (stage < 0 || stage >= static_cast<int>(stages.size())) return out;
  for (const auto& u : (rgb ? stages[static_cast<std::size_t>(stage)].rgb : stages[static_cast<std::size_t>(stage)].alpha).units)
    out << QString::fromStdString(u.label);
  return out;
}

QStringList TimelinePanel::texture_unit_text() const {
  QStringList out;
  const backends::Timeline* t = timeline();
  if (!t || pass_ >= static_cast<int>(t->passes.size())) return out;
  for (const std::string& u : t->passes[static_cast<std::size_t>(pass_)].texture_units) out << QString::fromStdString(u);
  return out;
}

void TimelinePanel::fit() {
  const QRectF r = scene_->itemsBoundingRect().adjusted(-8, -8, 8, 8);
  if (r.isEmpty()) return;
  view_->resetTransform();
  // Fit the width of what matters; never magnify past 1:1 (labels stay crisp), never below 0.35.
  const double k = std::clamp(std::min(view_->viewport()->width() / r.width(), view_->viewport()->height() / r.height()), 0.35, 1.0);
  view_->scale(k, k);
  view_->ensureVisible(QRectF(r.topLeft(), QSizeF(1, 1)), 0, 0);
}

void TimelinePanel::redraw() {
  draw();
  // The scene is as large as what is drawn now (it would otherwise keep the largest pass's size).
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-8, -8, 8, 8));
  if (!fitted_) {
    fit();
    fitted_ = true;
  }
}

// ---- drawing ----------------------------------------------------------------------------------

double TimelinePanel::StageLayout::column_x(int stage) const {
  return stage < 0 ? x0 : stage >= stages ? x_final : x_stage + stage * kStageWidth;
}

QGraphicsSimpleTextItem* TimelinePanel::text(const QString& s, double x, double y, const QFont& f, QColor c) const {
  auto* t = scene_->addSimpleText(s, f);
  t->setBrush(c.isValid() ? c : style_.ink);
  t->setPos(x, y);
  return t;
}

// Whether the nodes are selected or the trace's current step concerns them.
bool TimelinePanel::lights(const std::vector<std::uint32_t>& nodes) const {
  return (!selection_.empty() && intersects(nodes, selection_)) || (!frame_nodes_.empty() && intersects(nodes, frame_nodes_));
}

void TimelinePanel::draw() {
  scene_->clear();
  stage_columns_ = 0;
  lit_ = 0;
  style_.dark = palette().color(QPalette::Window).lightness() < 128;
  style_.ink = palette().color(QPalette::WindowText);
  scene_->setBackgroundBrush(palette().color(QPalette::Base));
  style_.mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  style_.mono.setPointSizeF(std::max(7.0, style_.mono.pointSizeF() - 1));
  style_.bold = font();
  style_.bold.setBold(true);
  const session::AlgorithmRun* r = run();
  const backends::Timeline* t = r ? &r->timeline : nullptr;
  if (!t || t->passes.empty()) {
    summary_->setText(snapshot_ && snapshot_->has_dag() ? tr("No passes for this algorithm yet") : tr("No shader compiled yet"));
    text(summary_->text(), 0, 0, font());
    return;
  }
  pass_ = std::clamp(pass_, 0, static_cast<int>(t->passes.size()) - 1);
  double total = 0;
  for (const auto& p : t->passes) total += p.cost;
  summary_->setText(tr("%1 · %2 passes · cost %3%4")
                        .arg(QString::fromStdString(t->target))
                        .arg(t->passes.size())
                        .arg(total, 0, 'f', 1)
                        .arg(r->partition.valid ? QString() : tr(" · does not fit")));
  draw_overview(*t, total);
  const auto& p = t->passes[static_cast<std::size_t>(pass_)];
  const double y = draw_pass_header(*t, p, 48);
  // A pass that does not fit has nothing to open; one of no general stage (a texel saved as it is)
  // still has its texture units and final combiner.
  if (!t->combiners || (p.stages.empty() && !p.failure.empty()) || (p.stages.empty() && p.final_rgb.empty())) {
    if (!t->combiners) text(tr("This target has no combiner stages: the pass's instructions are in the Passes panel."), 0, y, font());
    return;
  }
  draw_stages(p, y);
}

// The overview: passes in order along a time axis, each as wide as its cost.
void TimelinePanel::draw_overview(const backends::Timeline& t, double total) {
  const double scale = std::clamp(900.0 / std::max(total, 1.0), 0.6, 14.0);
  double x = 0;
  text(tr("time →"), 0, -18, font());
  for (std::size_t i = 0; i < t.passes.size(); ++i) {
    const auto& p = t.passes[i];
    const double w = std::max(6.0, p.cost * scale);
    const bool current = static_cast<int>(i) == pass_;
    auto* box = scene_->addRect(x, 0, w - 2, 30, QPen(current ? style_.ink : QColor(0, 0, 0, 60), current ? 2.5 : 1),
                                QBrush(p.failure.empty() ? pass_color(static_cast<int>(i), style_.dark) : QColor(220, 80, 80)));
    box->setData(kRole, "pass");
    box->setData(kIndex, static_cast<int>(i));
    const auto& s = p.resources;
    box->setToolTip(tr("pass %1: %2 (n%3)\ncost %4\n%5 %6, %7 texture units, %8 interpolants, %9 registers, %10 restores%11")
                        .arg(i + 1)
                        .arg(QString::fromStdString(p.root_label))
                        .arg(p.root)
                        .arg(p.cost, 0, 'f', 1)
                        .arg(s.operations)
                        .arg(t.combiners ? tr("stages") : tr("operations"))
                        .arg(s.textures)
                        .arg(s.interpolants)
                        .arg(s.registers)
                        .arg(s.restores)
                        .arg(p.failure.empty() ? QString() : "\n" + tr("does not fit: ") + QString::fromStdString(p.failure)));
    if (w > 16) {
      auto* label = text(QString::number(i + 1), x + 4, 8, font(), style_.dark ? QColor(230, 230, 230) : QColor(20, 20, 20));
      label->setAcceptedMouseButtons(Qt::NoButton);
    }
    x += w;
  }
}

// The selected pass's title and, when it does not fit, why (clickable to its node). Returns the
// y below them.
double TimelinePanel::draw_pass_header(const backends::Timeline& t, const backends::TimelinePass& p, double y) {
  text(tr("Pass %1 of %2 — %3 (n%4) — cost %5 — %6 %7, %8 texture units, %9 interpolants, %10 temporaries, %11 restores")
           .arg(pass_ + 1)
           .arg(t.passes.size())
           .arg(QString::fromStdString(p.root_label))
           .arg(p.root)
           .arg(p.cost, 0, 'f', 1)
           .arg(p.resources.operations)
           .arg(t.combiners ? (p.resources.operations == 1 ? tr("stage of %1") : tr("stages of %1")).arg(t.stage_limit)
                            : p.resources.operations == 1 ? tr("operation") : tr("operations"))
           .arg(p.resources.textures)
           .arg(p.resources.interpolants)
           .arg(p.resources.registers)
           .arg(p.resources.restores),
       0, y, style_.bold);
  y += 24;
  if (p.failure.empty()) return y;
  auto* why = text(tr("does not fit: %1").arg(QString::fromStdString(p.failure)), 0, y, font(), QColor(200, 40, 40));
  if (!p.failure_nodes.empty()) {
    // Clicking the reason selects the node that breaks the pass, and so its source.
    QVariantList ids;
    for (std::uint32_t n : p.failure_nodes) ids << n;
    why->setData(kRole, "unit");
    why->setData(kIndex, ids);
    why->setCursor(Qt::PointingHandCursor);
    why->setToolTip(tr("Click to select the node that does not fit, and its source"));
  }
  return y + 22;
}

// The selected pass opened up. Columns: texture units, the general stages, the final combiner;
// rows: RGB, ALPHA, then the registers' lifetimes.
void TimelinePanel::draw_stages(const backends::TimelinePass& p, double top) {
  const int stages = static_cast<int>(p.stages.size());
  StageLayout g;
  // The texture units' column: 210 wide, or as wide as its widest line (a function table says
  // what it computes, and at what error).
  double units_w = 210;
  const QFontMetricsF metrics(style_.mono);
  for (std::size_t u = 0; u < p.texture_units.size(); ++u)
    units_w = std::max(units_w, metrics.horizontalAdvance(QString("T%1  %2").arg(u).arg(QString::fromStdString(p.texture_units[u]))) + 24);
  g.x_stage = g.x0 + units_w + kGap;
  g.stages = stages;
  g.x_final = g.x_stage + stages * kStageWidth;
  stage_columns_ = stages;
  std::size_t rgb_rows = 0, alpha_rows = 0;
  bool constants = false;
  for (const auto& s : p.stages) {
    rgb_rows = std::max(rgb_rows, s.rgb.units.size());
    alpha_rows = std::max(alpha_rows, s.alpha.units.size());
    constants = constants || !s.constants.empty();
  }
  const double rgb_y = top + (constants ? 46 : 34), rgb_h = std::max<double>(1, static_cast<double>(rgb_rows)) * kUnitHeight + 8;
  const double alpha_y = rgb_y + rgb_h + 18, alpha_h = std::max<double>(1, static_cast<double>(alpha_rows)) * kUnitHeight + 8;
  const double lanes_y = alpha_y + alpha_h + kGap + 18;
  const double bottom = lanes_y + static_cast<double>(p.lanes.size()) * kLaneHeight;
  // Headers and the trace's current stage.
  text(tr("texture units"), g.x0, top, style_.bold);
  for (int s = 0; s < stages; ++s) {
    const double cx = g.column_x(s);
    if (frame_pass_ == pass_ && frame_stage_ == s)
      scene_->addRect(cx - 3, top - 4, kStageWidth - 4, bottom - top + 8, Qt::NoPen,
                      QBrush(style_.dark ? QColor(90, 80, 30) : QColor(255, 245, 190)));
    text(tr("stage %1").arg(s), cx, top, style_.bold);
    if (!p.stages[static_cast<std::size_t>(s)].constants.empty())
      text(QString::fromStdString(p.stages[static_cast<std::size_t>(s)].constants), cx, top + 15, style_.mono)->setScale(0.8);
  }
  text(tr("final"), g.x_final, top, style_.bold);
  // Row headers, written upwards beside the first stage so they never meet the texture units.
  auto row_header = [&](const QString& s, double ry, double rh) {
    auto* h = text(s, 0, 0, style_.bold);
    const double w = h->boundingRect().width();
    h->setRotation(-90);
    h->setPos(g.x_stage - 20, ry + rh / 2 + w / 2);
  };
  if (stages > 0) {  // with no general stage, the final combiner's two lines say which is which
    row_header(tr("RGB"), rgb_y, rgb_h);
    row_header(tr("ALPHA"), alpha_y, alpha_h);
  }
  for (std::size_t u = 0; u < p.texture_units.size(); ++u)
    text(QString("T%1  %2").arg(u).arg(QString::fromStdString(p.texture_units[u])), g.x0, rgb_y + static_cast<double>(u) * kUnitHeight, style_.mono);
  for (int s = 0; s < stages; ++s) {
    draw_portion(p.stages[static_cast<std::size_t>(s)].rgb, g.column_x(s), rgb_y, rgb_h);
    draw_portion(p.stages[static_cast<std::size_t>(s)].alpha, g.column_x(s), alpha_y, alpha_h);
  }
  text("out.rgb = " + QString::fromStdString(p.final_rgb), g.x_final, rgb_y + 4, style_.mono);
  if (!p.final_product.empty())
    text("final_product = " + QString::fromStdString(p.final_product), g.x_final, rgb_y + 22, style_.mono);
  text("out.a = " + QString::fromStdString(p.final_alpha), g.x_final, alpha_y + 4, style_.mono);
  draw_lanes(p, g, lanes_y);
}

// One RGB or ALPHA portion of a stage, unit by unit.
void TimelinePanel::draw_portion(const backends::TimelinePortion& po, double px, double py, double ph) {
  if (po.kind.empty()) {
    text(tr("(unused)"), px + 4, py + 4, font(), QColor(150, 150, 150));
    return;
  }
  scene_->addRect(px, py, kStageWidth - 10, ph, QPen(QColor(0, 0, 0, 80)), Qt::NoBrush);
  text(QString::fromStdString(po.kind), px + kStageWidth - 70, py - 14, font(), QColor(120, 120, 120))->setScale(0.85);
  double uy = py + 4;
  for (const auto& u : po.units) {
    const bool lit = lights(u.nodes);
    lit_ += lit ? 1 : 0;
    auto* chip = scene_->addRect(px + 3, uy, kStageWidth - 16, kUnitHeight - 2, QPen(lit ? QColor(220, 60, 30) : QColor(0, 0, 0, 50), lit ? 2.5 : 1),
                                 QBrush(unit_color(u.kind, style_.dark)));
    QVariantList ids;
    for (std::uint32_t n : (u.nodes.empty() ? po.nodes : u.nodes)) ids << n;
    chip->setData(kRole, "unit");
    chip->setData(kIndex, ids);
    QString tip = QString::fromStdString(u.label);
    if (!u.nodes.empty()) {
      tip += "\n" + tr("nodes:");
      for (std::uint32_t n : u.nodes) tip += QString(" n%1").arg(n);
    }
    chip->setToolTip(tip);
    auto* label = text(QString::fromStdString(u.label), px + 6, uy, style_.mono, style_.dark ? QColor(235, 235, 235) : QColor(25, 25, 25));
    label->setAcceptedMouseButtons(Qt::NoButton);
    uy += kUnitHeight;
  }
}

// Register lifetimes, one lane each: from the stage that first reads the value to the last.
void TimelinePanel::draw_lanes(const backends::TimelinePass& p, const StageLayout& g, double lanes_y) {
  const bool dark = style_.dark;
  text(tr("registers"), g.x0, lanes_y - 18, style_.bold);
  for (std::size_t i = 0; i < p.lanes.size(); ++i) {
    const auto& l = p.lanes[i];
    const double ly = lanes_y + static_cast<double>(i) * kLaneHeight;
    const double from = l.input ? g.column_x(-1) + 40 : g.column_x(l.first);
    const double to = g.column_x(l.last) + (l.last >= g.stages ? 120 : kStageWidth - 12);
    const bool lit = lights(l.nodes);
    lit_ += lit ? 1 : 0;
    auto* bar = scene_->addRect(from, ly, std::max(8.0, to - from), kLaneHeight - 3, QPen(lit ? QColor(220, 60, 30) : QColor(0, 0, 0, 40), lit ? 2 : 1),
                                QBrush(l.input ? (dark ? QColor(70, 70, 90) : QColor(215, 215, 235)) : (dark ? QColor(50, 90, 60) : QColor(200, 235, 200))));
    QVariantList ids;
    for (std::uint32_t n : l.nodes) ids << n;
    bar->setData(kRole, "unit");
    bar->setData(kIndex, ids);
    bar->setToolTip(tr("%1 holds %2 %3").arg(QString::fromStdString(l.reg)).arg(QString::fromStdString(l.value))
                        .arg(l.input ? tr("from the top of the pass") : tr("from stage %1").arg(l.first)));
    auto* label = text(QString("%1  %2").arg(QString::fromStdString(l.reg), QString::fromStdString(l.value)), from + 3, ly - 1, style_.mono,
                       dark ? QColor(230, 230, 230) : QColor(30, 30, 30));
    label->setAcceptedMouseButtons(Qt::NoButton);
  }
}

bool TimelinePanel::export_file(const QString& path, QString* error) const {
  return export_scene(*scene_, path, "Passlab pass and combiner-stage timeline", error);
}

}  // namespace passlab::views
