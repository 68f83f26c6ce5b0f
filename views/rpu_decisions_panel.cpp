// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU compiler-decisions panel.
#include "views/rpu_decisions_panel.h"

#include <algorithm>
#include <map>

#include <QComboBox>
#include <QGraphicsEllipseItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/decision_tables.h"
#include "views/graph_layout.h"
#include "views/rpu_schedule_exercise.h"

namespace passlab::views {

namespace {

// A graph view that keeps its drawing fitted as it is resized (at most 1.4x magnified).
class FittedView : public QGraphicsView {
 public:
  using QGraphicsView::QGraphicsView;
  void fit() {
    if (!scene() || scene()->items().isEmpty()) return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    if (transform().m11() > 1.4) setTransform(QTransform::fromScale(1.4, 1.4));
  }

 protected:
  void resizeEvent(QResizeEvent* e) override {
    QGraphicsView::resizeEvent(e);
    fit();
  }
};

QGraphicsView* make_graph_view(QWidget* parent) {
  auto* v = new FittedView(new QGraphicsScene(parent), parent);
  v->setRenderHint(QPainter::Antialiasing);
  v->setDragMode(QGraphicsView::ScrollHandDrag);
  v->setBackgroundBrush(v->palette().color(QPalette::Base));
  return v;
}

// Draws a laid-out graph: node i at layout.centers[i] with labels[i] and fills[i]; edges as paths
// (dashed where dashed[e]).
void draw_graph(QGraphicsView* view, const Layout& layout, const LayoutRequest& req, const QStringList& labels,
                const std::vector<QColor>& fills, const std::vector<bool>& dashed, const std::vector<QString>& tips) {
  QGraphicsScene* sc = view->scene();
  sc->clear();
  if (!layout.ok) {
    sc->addSimpleText(QString::fromStdString(layout.error));
    return;
  }
  for (std::size_t e = 0; e < req.edges.size() && e < layout.edges.size(); ++e) {
    const EdgePath& p = layout.edges[e];
    QPainterPath path;
    if (p.bezier.size() >= 4) {
      path.moveTo(p.bezier[0].x, p.bezier[0].y);
      for (std::size_t k = 1; k + 2 < p.bezier.size(); k += 3)
        path.cubicTo(p.bezier[k].x, p.bezier[k].y, p.bezier[k + 1].x, p.bezier[k + 1].y, p.bezier[k + 2].x, p.bezier[k + 2].y);
      if (p.arrow) path.lineTo(p.tip.x, p.tip.y);
    } else {
      const Point a = layout.centers[req.edges[e].first], b = layout.centers[req.edges[e].second];
      path.moveTo(a.x, a.y);
      path.lineTo(b.x, b.y);
    }
    const bool d = e < dashed.size() && dashed[e];
    auto* item = sc->addPath(path, QPen(d ? QColor(40, 150, 60) : QColor(110, 110, 120), d ? 1.6 : 1.0, d ? Qt::DashLine : Qt::SolidLine));
    item->setZValue(-1);
  }
  for (std::size_t i = 0; i < req.nodes.size() && i < layout.centers.size(); ++i) {
    const double w = req.nodes[i].width, h = req.nodes[i].height;
    const QRectF r(layout.centers[i].x - w / 2, layout.centers[i].y - h / 2, w, h);
    QPainterPath shape;
    shape.addRoundedRect(r, 6, 6);
    auto* box = sc->addPath(shape, QPen(QColor(60, 60, 70)), QBrush(i < fills.size() ? fills[i] : QColor(235, 235, 240)));
    box->setData(0, static_cast<int>(i));
    if (i < tips.size()) box->setToolTip(tips[i]);
    auto* text = sc->addSimpleText(labels[static_cast<qsizetype>(i)]);
    QFont f = text->font();
    f.setPointSizeF(8);
    text->setFont(f);
    text->setBrush(Qt::black);
    const QRectF tb = text->boundingRect();
    text->setPos(r.center().x() - tb.width() / 2, r.center().y() - tb.height() / 2);
    text->setParentItem(box);
    text->setPos(r.center().x() - tb.width() / 2, r.center().y() - tb.height() / 2);
  }
  sc->setSceneRect(sc->itemsBoundingRect().adjusted(-10, -10, 10, 10));
  static_cast<FittedView*>(view)->fit();
}

QColor register_colour(int reg) { return reg < 0 ? QColor(230, 230, 230) : QColor::fromHsv((reg * 360 / 15 * 7) % 360, 70, 245); }

}  // namespace

RpuDecisionsPanel::RpuDecisionsPanel(RpuSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  function_ = new QComboBox(this);
  function_->setToolTip(tr("The function whose compilation is shown"));
  function_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  tabs_ = new QTabWidget(this);

  // Scheduling.
  auto* sched = new QWidget(this);
  piece_ = new QComboBox(sched);
  piece_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  piece_->setToolTip(tr("A scheduled block (a block with a call or trace is scheduled in pieces between them)"));
  piece_summary_ = new QLabel(sched);
  cycles_ = make_table({tr("Cycle"), tr("Became available"), tr("Candidates"), tr("Issued"), tr("Stall")}, sched);
  cycles_->setToolTip(tr("The list scheduler cycle by cycle (thesis Figure 9.1): instructions are numbered in program order; "
                         "each cycle issues the ready candidate with the longest path to the end."));
  instructions_ = make_table({tr("#"), tr("Instruction"), tr("Latency"), tr("Path"), tr("Successors"), tr("Waits for"), tr("Issued at")}, sched);
  dag_ = make_graph_view(sched);
  dag_->setToolTip(tr("The dependency DAG: an instruction below waits for those above it; each node shows its path length"));
  auto* sched_head = new QHBoxLayout;
  sched_head->addWidget(piece_summary_, 1);
  auto* right = new QSplitter(Qt::Vertical, sched);
  right->addWidget(instructions_);
  right->addWidget(dag_);
  right->setStretchFactor(0, 2);
  right->setStretchFactor(1, 3);
  auto* sched_split = new QSplitter(Qt::Horizontal, sched);
  sched_split->addWidget(cycles_);
  sched_split->addWidget(right);
  right->setSizes({200, 300});
  sched_split->setStretchFactor(0, 1);
  sched_split->setStretchFactor(1, 1);
  auto* sl = new QVBoxLayout(sched);
  sl->setContentsMargins(2, 2, 2, 2);
  sl->addLayout(sched_head);
  sl->addWidget(sched_split, 1);
  tabs_->addTab(sched, tr("Scheduling"));

  // Register allocation.
  auto* alloc = new QWidget(this);
  interference_ = make_graph_view(alloc);
  interference_->setToolTip(tr("The interference graph: grey lines join values live at once (enemies), green dashes join values "
                               "copied to each other (friends); each value is filled with its register's colour"));
  allocation_summary_ = new QLabel(alloc);
  allocation_summary_->setWordWrap(true);
  removals_ = make_table({tr("#"), tr("Value"), tr("Edges"), tr("Friends")}, alloc);
  removals_->setToolTip(tr("The order values were removed from the graph (fewest edges, then fewest friends); colouring goes backwards"));
  colours_ = make_table({tr("Value"), tr("Register"), tr("Why")}, alloc);
  colours_->setToolTip(tr("Each value's register in colouring order, with the reason it was chosen"));
  auto* tables = new QSplitter(Qt::Vertical, alloc);
  tables->addWidget(removals_);
  tables->addWidget(colours_);
  auto* alloc_split = new QSplitter(Qt::Horizontal, alloc);
  alloc_split->addWidget(interference_);
  alloc_split->addWidget(tables);
  alloc_split->setStretchFactor(0, 3);
  alloc_split->setStretchFactor(1, 2);
  alloc_split->setSizes({600, 400});
  removals_->horizontalHeader()->setStretchLastSection(false);
  colours_->horizontalHeader()->setStretchLastSection(true);
  auto* al = new QVBoxLayout(alloc);
  al->setContentsMargins(2, 2, 2, 2);
  al->addWidget(allocation_summary_);
  al->addWidget(alloc_split, 1);
  tabs_->addTab(alloc, tr("Register allocation"));

  // Forwarding.
  auto* fwd = new QWidget(this);
  forwarding_ = make_table({tr("Block"), tr("What"), tr("Before"), tr("After"), tr("Because")}, fwd);
  forwarding_->setToolTip(tr("Every rewrite forwarding made, with the facts it used"));
  facts_ = make_table({tr("Block"), tr("Instruction"), tr("Facts reaching it")}, fwd);
  facts_->setToolTip(tr("The facts (values known to equal others) that reach each instruction once forwarding has converged"));
  auto* fwd_split = new QSplitter(Qt::Vertical, fwd);
  fwd_split->addWidget(forwarding_);
  fwd_split->addWidget(facts_);
  auto* fl = new QVBoxLayout(fwd);
  fl->setContentsMargins(2, 2, 2, 2);
  fl->addWidget(fwd_split);
  tabs_->addTab(fwd, tr("Forwarding"));

  // Schedule it yourself: the block chosen under Scheduling, ordered by hand.
  exercise_ = new RpuScheduleExercise(this);
  tabs_->addTab(exercise_, tr("Schedule it yourself"));
  tabs_->setTabToolTip(3, tr("Put the block's instructions in an order of your own and see its cycles and stalls against the list scheduler's"));

  auto* head = new QHBoxLayout;
  head->addWidget(new QLabel(tr("Function"), this));
  head->addWidget(function_);
  head->addWidget(new QLabel(tr("Block"), this));  // the scheduling tabs' block
  head->addWidget(piece_);
  head->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(head);
  layout->addWidget(tabs_, 1);

  connect(function_, &QComboBox::currentIndexChanged, this, [this] { show_function(); });
  connect(piece_, &QComboBox::currentIndexChanged, this, [this] { show_piece(); });
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (tabs_->currentIndex() == 1) show_allocation();
  });
  connect(cycles_, &QTableWidget::currentCellChanged, this, [this](int row) {
    // The row's issued instruction lit in the instruction table and the DAG.
    const auto* b = session_->build();
    const QString label = function_label();
    if (!b || row < 0 || label.isEmpty()) return;
    auto it = b->compiled().schedules.find(label.toStdString());
    if (it == b->compiled().schedules.end() || piece_->currentIndex() < 0) return;
    const rpu::BlockSchedule& s = it->second.pieces[static_cast<std::size_t>(piece_->currentIndex())];
    if (static_cast<std::size_t>(row) >= s.table.size()) return;
    const rpu::CycleRow& r = s.table[static_cast<std::size_t>(row)];
    for (QGraphicsItem* item : dag_->scene()->items()) {
      auto* box = dynamic_cast<QGraphicsPathItem*>(item);
      if (!box || !box->data(0).isValid()) continue;
      const int i = box->data(0).toInt();
      const bool issued = std::find(r.issued.begin(), r.issued.end(), i) != r.issued.end();
      const bool candidate = std::find(r.candidates.begin(), r.candidates.end(), i) != r.candidates.end();
      const bool done = s.issue[static_cast<std::size_t>(i)] < r.cycle;
      box->setBrush(issued ? QColor(250, 200, 60) : candidate ? QColor(170, 210, 250) : done ? QColor(210, 230, 210) : QColor(240, 240, 244));
    }
    if (!r.issued.empty()) instructions_->selectRow(r.issued.front());
  });
  connect(session_, &RpuSession::build_changed, this, [this] { rebuild(); });
  rebuild();
}

QString RpuDecisionsPanel::function_label() const { return function_->currentData().toString(); }

void RpuDecisionsPanel::rebuild() {
  const auto* b = session_->build();
  shown_ = b;
  interference_for_.clear();
  const QString keep = function_->currentText();
  QSignalBlocker block(function_);
  function_->clear();
  if (b && b->ok()) {
    // The file's own functions first, then the runtime's and the generated main.
    for (int pass = 0; pass < 2; ++pass)
      for (const session::RpuFunction& f : b->functions)
        if (f.main_file == (pass == 0)) function_->addItem(QString::fromStdString(f.name), QString::fromStdString(f.label));
  }
  const int i = function_->findText(keep);
  function_->setCurrentIndex(i >= 0 ? i : 0);
  show_function();
}

bool RpuDecisionsPanel::select_function(const QString& name) {
  const int i = function_->findText(name);
  if (i < 0) return false;
  function_->setCurrentIndex(i);
  return true;
}

void RpuDecisionsPanel::select_piece(int piece) { piece_->setCurrentIndex(piece); }

void RpuDecisionsPanel::show_function() {
  const auto* b = session_->build();
  const std::string label = function_label().toStdString();
  {
    QSignalBlocker block(piece_);
    piece_->clear();
    if (b && b->ok())
      if (auto it = b->compiled().schedules.find(label); it != b->compiled().schedules.end()) {
        std::map<std::uint32_t, int> seen;
        for (const rpu::BlockSchedule& s : it->second.pieces) {
          const int k = ++seen[s.block];
          piece_->addItem(tr("B%1%2 · %3").arg(s.block).arg(k > 1 ? tr(" (piece %1)").arg(k) : QString()).arg(s.text.size() == 1 ? tr("1 instruction") : tr("%1 instructions").arg(s.text.size())));
        }
      }
    piece_->setCurrentIndex(piece_->count() ? 0 : -1);
  }
  show_piece();
  interference_for_.clear();
  if (tabs_->currentIndex() == 1) show_allocation();
  show_forwarding();
}

void RpuDecisionsPanel::show_piece() {
  const auto* b = session_->build();
  cycles_->setRowCount(0);
  instructions_->setRowCount(0);
  dag_->scene()->clear();
  piece_summary_->clear();
  exercise_->show_block(nullptr);
  if (!b || !b->ok() || piece_->currentIndex() < 0) return;
  auto it = b->compiled().schedules.find(function_label().toStdString());
  if (it == b->compiled().schedules.end()) return;
  const rpu::BlockSchedule& s = it->second.pieces[static_cast<std::size_t>(piece_->currentIndex())];
  exercise_->show_block(&s);
  piece_summary_->setText(tr("%1 cycles scheduled, %2 in program order").arg(s.cycles).arg(s.unscheduled_cycles));
  fill_cycle_table(cycles_, s);
  const int n = static_cast<int>(s.text.size());
  instructions_->setRowCount(n);
  for (int i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    fill_row(instructions_, i,
             {QString::number(i + 1), QString::fromStdString(s.text[k]), QString::number(s.latency[k]), QString::number(s.path[k]),
              QString::number(s.successors[k]), numbers(s.deps[k]), QString::number(s.issue[k])});
  }
  instructions_->resizeColumnsToContents();
  draw_dag();
}

void RpuDecisionsPanel::draw_dag() {
  const auto* b = session_->build();
  auto it = b->compiled().schedules.find(function_label().toStdString());
  const rpu::BlockSchedule& s = it->second.pieces[static_cast<std::size_t>(piece_->currentIndex())];
  LayoutRequest req;
  QStringList labels;
  std::vector<QString> tips;
  for (std::size_t i = 0; i < s.text.size(); ++i) {
    LayoutNode node;
    node.width = 64;
    node.height = 30;
    req.nodes.push_back(node);
    labels << tr("%1 · path %2").arg(i + 1).arg(s.path[i]);
    tips.push_back(QString("%1: %2\nlatency %3, path %4, issued at cycle %5")
                       .arg(i + 1).arg(QString::fromStdString(s.text[i])).arg(s.latency[i]).arg(s.path[i]).arg(s.issue[i]));
    for (int d : s.deps[i]) req.edges.emplace_back(static_cast<std::uint32_t>(d), static_cast<std::uint32_t>(i));
  }
  const Layout layout = layout_graph(req);
  draw_graph(dag_, layout, req, labels, {}, {}, tips);
}

int RpuDecisionsPanel::dag_nodes() const {
  int n = 0;
  for (QGraphicsItem* it : dag_->scene()->items()) n += it->data(0).isValid();
  return n;
}

int RpuDecisionsPanel::interference_nodes() const {
  int n = 0;
  for (QGraphicsItem* it : interference_->scene()->items()) n += it->data(0).isValid();
  return n;
}

void RpuDecisionsPanel::show_allocation() {
  const auto* b = session_->build();
  const std::string label = function_label().toStdString();
  if (label == interference_for_) return;
  interference_for_ = label;
  removals_->setRowCount(0);
  colours_->setRowCount(0);
  interference_->scene()->clear();
  allocation_summary_->clear();
  if (!b || !b->ok()) return;
  auto it = b->compiled().allocations.find(label);
  if (it == b->compiled().allocations.end()) {
    allocation_summary_->setText(tr("No register allocation recorded for this function."));
    return;
  }
  const rpu::Allocation& a = it->second;
  auto name = [&](rpu::Loc v) { return v < a.names.size() ? QString::fromStdString(a.names[v]) : QString("%%1").arg(v); };
  auto reg = [&](rpu::Loc v) { return v < a.registers.size() ? QString::fromStdString(a.registers[v]) : QString(); };
  removals_->setRowCount(static_cast<int>(a.order.size()));
  for (std::size_t i = 0; i < a.order.size(); ++i)
    fill_row(removals_, static_cast<int>(i), {QString::number(i + 1), name(a.order[i].vreg), QString::number(a.order[i].edges), QString::number(a.order[i].friends)});
  colours_->setRowCount(static_cast<int>(a.choices.size()));
  for (std::size_t i = 0; i < a.choices.size(); ++i)
    fill_row(colours_, static_cast<int>(i), {name(a.choices[i].vreg), reg(a.choices[i].vreg), QString::fromStdString(a.choices[i].reason)});
  removals_->resizeColumnsToContents();
  colours_->resizeColumnsToContents();
  // The graph: every value that got a register.
  std::vector<int> node_of(a.reg.size(), -1);
  LayoutRequest req;
  req.engine = "neato";
  QStringList labels;
  std::vector<QColor> fills;
  std::vector<QString> tips;
  std::vector<bool> dashed;
  const QFontMetrics fm(font());
  for (std::size_t v = 0; v < a.reg.size(); ++v) {
    if (a.reg[v] < 0) continue;
    node_of[v] = static_cast<int>(req.nodes.size());
    const QString text = name(static_cast<rpu::Loc>(v)) + "\n" + reg(static_cast<rpu::Loc>(v));
    LayoutNode node;
    node.width = std::max(46, fm.horizontalAdvance(name(static_cast<rpu::Loc>(v))) + 12);
    node.height = 32;
    req.nodes.push_back(node);
    labels << text;
    fills.push_back(register_colour(a.reg[v]));
    tips.push_back(tr("%1 in %2: %3 enemies, %4 friends").arg(name(static_cast<rpu::Loc>(v)), reg(static_cast<rpu::Loc>(v))).arg(a.enemies[v].size()).arg(a.friends[v].size()));
  }
  int enemies = 0, friends = 0;
  for (std::size_t v = 0; v < a.reg.size(); ++v) {
    if (node_of[v] < 0) continue;
    for (int kind = 0; kind < 2; ++kind)
      for (rpu::Loc w : kind == 0 ? a.enemies[v] : a.friends[v]) {
        if (w <= v || w >= node_of.size() || node_of[w] < 0) continue;
        req.edges.emplace_back(static_cast<std::uint32_t>(node_of[v]), static_cast<std::uint32_t>(node_of[w]));
        dashed.push_back(kind == 1);
        (kind == 0 ? enemies : friends)++;
      }
  }
  allocation_summary_->setText(tr("%1 values, %2 interference edges, %3 friend pairs · colouring %4")
                                   .arg(req.nodes.size()).arg(enemies).arg(friends)
                                   .arg(a.guaranteed ? tr("guaranteed (every value had fewer than 15 edges when removed)") : tr("optimistic")));
  if (req.nodes.size() > 400) {
    interference_->scene()->addSimpleText(tr("%1 values: too many to draw; the tables list them.").arg(req.nodes.size()));
    return;
  }
  const Layout layout = layout_graph(req);
  draw_graph(interference_, layout, req, labels, fills, dashed, tips);
}

void RpuDecisionsPanel::show_forwarding() {
  const auto* b = session_->build();
  forwarding_->setRowCount(0);
  facts_->setRowCount(0);
  if (!b || !b->ok()) return;
  const std::string label = function_label().toStdString();
  if (auto it = b->compiled().forwarding.find(label); it != b->compiled().forwarding.end()) {
    forwarding_->setRowCount(static_cast<int>(it->second.size()));
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const rpu::ForwardNote& n = it->second[i];
      QStringList facts;
      for (const std::string& f : n.facts) facts << QString::fromStdString(f);
      fill_row(forwarding_, static_cast<int>(i),
               {QString("B%1").arg(n.block), QString::fromStdString(n.what), QString::fromStdString(n.before), QString::fromStdString(n.after), facts.join("; ")});
    }
    forwarding_->resizeColumnsToContents();
  }
  if (auto it = b->compiled().facts.find(label); it != b->compiled().facts.end()) {
    facts_->setRowCount(static_cast<int>(it->second.size()));
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const rpu::FactLine& l = it->second[i];
      QStringList facts;
      for (const std::string& f : l.facts) facts << QString::fromStdString(f);
      fill_row(facts_, static_cast<int>(i), {QString("B%1").arg(l.block), QString::fromStdString(l.text), facts.join("; ")});
    }
    facts_->resizeColumnsToContents();
  }
}

void RpuDecisionsPanel::show_frame(const TraceFrame& f) {
  const auto* b = session_->build();
  if (!b || !b->ok() || f.pass < 0 || static_cast<std::size_t>(f.pass) >= b->functions.size()) return;
  const QString label = QString::fromStdString(b->functions[static_cast<std::size_t>(f.pass)].label);
  const int fi = function_->findData(label);
  if (fi >= 0 && fi != function_->currentIndex()) function_->setCurrentIndex(fi);
  const std::uint32_t where = f.nodes.empty() ? 0 : f.nodes.front();
  switch (f.stage) {
    case session::kRpuForward:
      tabs_->setCurrentIndex(2);
      forwarding_->selectRow(static_cast<int>(where));
      break;
    case session::kRpuRemove:
    case session::kRpuColour: {
      tabs_->setCurrentIndex(1);
      show_allocation();
      auto it = b->compiled().allocations.find(label.toStdString());
      if (it == b->compiled().allocations.end()) break;
      const rpu::Allocation& a = it->second;
      if (f.stage == session::kRpuRemove) {
        for (std::size_t i = 0; i < a.order.size(); ++i)
          if (a.order[i].vreg == where) removals_->selectRow(static_cast<int>(i));
      } else {
        for (std::size_t i = 0; i < a.choices.size(); ++i)
          if (a.choices[i].vreg == where) colours_->selectRow(static_cast<int>(i));
      }
      break;
    }
    case session::kRpuCycle:
      tabs_->setCurrentIndex(0);
      if (f.nodes.size() >= 2) {
        if (piece_->currentIndex() != static_cast<int>(f.nodes[0])) piece_->setCurrentIndex(static_cast<int>(f.nodes[0]));
        cycles_->selectRow(static_cast<int>(f.nodes[1]));
      }
      break;
    default: break;
  }
}

}  // namespace passlab::views
