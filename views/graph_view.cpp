// SPDX-License-Identifier: GPL-3.0-or-later
// The graph panel: QGraphicsScene items for nodes and edges, laid out by Graphviz elsewhere.
#include "views/graph_view.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPainterPath>
#include <QSaveFile>
#include <QStaticText>
#include <QTimer>
#include <QPixmap>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "views/pass_colors.h"
#include "views/scene_export.h"
#include "views/status_label.h"

namespace passlab::views {

namespace {

bool dark_theme() { return QApplication::palette().color(QPalette::Window).lightness() < 128; }

// Items' keys hold numbers as their bytes: exact, and without formatting hundreds of numbers on
// every edit (QString::arg took milliseconds a result on Wood).
void append_bytes(std::string& k, double v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  k.append(bytes, sizeof v);
}

}  // namespace

// One node: its shape, label and state (pass colour, marks, selection, trace focus).
class NodeItem : public QGraphicsItem {
 public:
  NodeItem(const DrawNode& n, int index) : node_(n), label_(QString::fromStdString(n.label)), index_(index) {
    label_.setPerformanceHint(QStaticText::AggressiveCaching);
    label_.setTextFormat(Qt::PlainText);
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setToolTip(QString::fromStdString(n.detail));
    setZValue(2);
  }
  QRectF boundingRect() const override {
    return QRectF(-node_.width / 2 - 4, -node_.height / 2 - 4, node_.width + 8, node_.height + 8);
  }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    // Far out (the minimap, the compare panel's small DAGs, a fitted big graph) labels are
    // unreadable: shapes only, which keeps a repaint of hundreds of nodes cheap.
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    p->setRenderHint(QPainter::Antialiasing, lod > 0.3);
    const bool dark = dark_;
    QColor fill = pass_ >= 0 ? pass_color(pass_, dark) : (dark ? QColor(58, 62, 70) : QColor(250, 250, 250));
    if (node_.shared && pass_ < 0) fill = dark ? QColor(90, 94, 104) : QColor(215, 215, 215);
    QColor ink = dark ? QColor(225, 228, 232) : QColor(30, 30, 30);
    const double thick = bold_ ? 2.2 : 1.0;  // presentation mode: lines a projector shows
    QPen pen(ink, (marked_ ? 2.6 : 1.1) * thick);
    if (unfit_) pen = QPen(dark ? QColor(255, 110, 100) : QColor(200, 20, 20), 3.0 * thick, Qt::DashLine);  // its pass breaks a limit
    if (focus_ == 1) pen = QPen(QColor(230, 120, 0), 3.2 * thick);
    else if (focus_ == 2) pen = QPen(QColor(200, 30, 30), 3.2 * thick);
    else if (region_) pen = QPen(QColor(230, 150, 40), 2.0 * thick, Qt::DashLine);
    if (isSelected()) pen = QPen(QColor(30, 120, 230), 3.0 * thick);
    else if (related_) pen = QPen(QColor(60, 150, 240), 2.0 * thick);
    p->setPen(pen);
    p->setBrush(fill);
    const double w = node_.width, h = node_.height;
    QRectF r(-w / 2, -h / 2, w, h);
    if (recomputed_) {
      // Recomputed operations are squares in the paper's figures.
      p->drawRect(r);
    } else {
      switch (node_.shape) {
        case Shape::Ellipse: p->drawEllipse(r); break;
        case Shape::Square: p->drawRect(r); break;
        case Shape::Diamond: {
          QPolygonF d{{0, -h / 2}, {w / 2, 0}, {0, h / 2}, {-w / 2, 0}};
          p->drawPolygon(d);
          break;
        }
        case Shape::Triangle: {
          QPolygonF t{{0, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}};
          p->drawPolygon(t);
          break;
        }
      }
    }
    if (node_.shared && pass_ >= 0) {
      // Multiply-referenced nodes keep their shading as an inner hatch when coloured by pass.
      p->setPen(Qt::NoPen);
      p->setBrush(QBrush(ink, Qt::Dense6Pattern));
      if (node_.shape == Shape::Ellipse && !recomputed_) p->drawEllipse(r.adjusted(3, 3, -3, -3));
      else p->drawRect(r.adjusted(3, 3, -3, -3));
    }
    if (lod < 0.45) return;
    QColor text = fill.lightness() < 128 ? QColor(240, 240, 240) : QColor(20, 20, 20);
    p->setPen(text);
    QFont f = p->font();
    f.setPointSizeF(8);
    f.setBold(bold_);
    p->setFont(f);
    QRectF tr = node_.shape == Shape::Triangle && !recomputed_ ? r.adjusted(0, h * 0.3, 0, 0) : r;
    // A static text is shaped once, not on every paint.
    if (label_font_ != f) {
      label_.prepare(QTransform(), f);
      label_font_ = f;
    }
    const QSizeF ts = label_.size();
    p->drawStaticText(QPointF(tr.center().x() - ts.width() / 2, tr.center().y() - ts.height() / 2), label_);
  }
  const DrawNode& node() const { return node_; }
  int index() const { return index_; }
  // What the node looks like where it is: a new result's node with the same key is drawn the same.
  static std::string key(const DrawNode& n, Point at) {
    std::string k = n.label;
    k += '\0';
    k += n.kind;
    k += '\0';
    k += static_cast<char>(n.shape);
    k += static_cast<char>(n.shared);
    for (double v : {n.width, n.height, at.x, at.y}) append_bytes(k, v);
    return k;
  }
  // Takes over the node of a new result that looks the same (its id and tooltip may differ).
  void rebind(const DrawNode& n, int index) {
    if (n.detail != node_.detail) setToolTip(QString::fromStdString(n.detail));
    node_ = n;
    index_ = index;
    related_ = region_ = false;  // as a new item: no trace focus or highlight carried over
    focus_ = 0;
    refresh();
  }
  int pass_ = -1;
  bool marked_ = false, recomputed_ = false, related_ = false, region_ = false, unfit_ = false;
  bool bold_ = false;  // presentation mode
  int focus_ = 0;  // 1: the trace event's node; 2: the same, failing
  bool dark_ = false;
  // Repaints the node if its state changed since it was last drawn (an unchanged node costs nothing);
  // with `repaint` false the caller repaints the whole view instead. True if the state changed.
  bool refresh(bool repaint = true) {
    const int key = (pass_ + 1) | marked_ << 16 | recomputed_ << 17 | related_ << 18 | region_ << 19 | focus_ << 20 |
                    dark_ << 22 | isSelected() << 23 | unfit_ << 24 | bold_ << 25;
    if (key == painted_) return false;
    painted_ = key;
    if (repaint) update();
    return true;
  }

 private:
  DrawNode node_;
  QStaticText label_;
  QFont label_font_;
  int index_;
  int painted_ = -1;
};

// An edge: a Bézier path from the layout. Its bounds are computed once; a restyle changes only the
// pen (QGraphicsPathItem strokes the whole path again for its bounds on every setPen).
class EdgeItem : public QGraphicsItem {
 public:
  EdgeItem(const EdgePath& e, std::uint32_t from, std::uint32_t to) : from_(from), to_(to) {
    if (!e.bezier.empty()) {
      path_.moveTo(e.bezier[0].x, e.bezier[0].y);
      for (std::size_t k = 1; k + 2 < e.bezier.size(); k += 3)
        path_.cubicTo(e.bezier[k].x, e.bezier[k].y, e.bezier[k + 1].x, e.bezier[k + 1].y, e.bezier[k + 2].x,
                      e.bezier[k + 2].y);
      if (e.arrow) {
        QPointF tip(e.tip.x, e.tip.y), base(e.bezier.back().x, e.bezier.back().y);
        QLineF l(base, tip);
        QLineF n = l.normalVector();
        n.setLength(l.length() * 0.45);
        QPointF off = n.p2() - n.p1();
        path_.moveTo(tip);
        path_.lineTo(base + off);
        path_.lineTo(base - off);
        path_.lineTo(tip);
      }
    }
    bounds_ = path_.controlPointRect().adjusted(-2, -2, 2, 2);
    setAcceptedMouseButtons(Qt::NoButton);
    setZValue(1);
  }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override {
    p->setPen(pen_);
    p->setBrush(Qt::NoBrush);
    p->drawPath(path_);
  }
  std::uint32_t from_, to_;
  std::string key_;
  static std::string key(const EdgePath& e) {
    std::string k(1, e.arrow ? 'a' : '-');
    if (e.arrow) {
      append_bytes(k, e.tip.x);
      append_bytes(k, e.tip.y);
    }
    for (const auto& p : e.bezier) {
      append_bytes(k, p.x);
      append_bytes(k, p.y);
    }
    return k;
  }
  void style(bool dotted, bool highlighted, bool dark, bool bold) {
    QColor c = highlighted ? QColor(40, 130, 240) : (dark ? QColor(150, 155, 165) : QColor(90, 90, 90));
    if (bold && !highlighted) c = dark ? QColor(230, 230, 235) : QColor(20, 20, 20);
    QPen pen(c, (highlighted ? 2.0 : 1.0) * (bold ? 2.2 : 1.0), dotted ? Qt::DotLine : Qt::SolidLine);
    if (pen == pen_) return;
    pen_ = pen;
    update();
  }

 private:
  QPainterPath path_;
  QRectF bounds_;
  QPen pen_;
};

// The main canvas: wheel zooms around the cursor, drag pans, rubber band selects with Shift.
class GraphCanvas : public QGraphicsView {
 public:
  explicit GraphCanvas(QGraphicsScene* s, QWidget* parent) : QGraphicsView(s, parent) {
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    // Panning is by dragging and through the minimap; scroll bars that come and go with each
    // new graph would relayout the whole window.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  }
  std::function<void()> on_view_changed;
  std::function<void()> on_user_moved;  // the user zoomed or panned (wheel, drag, minimap, buttons)
  // Marking (a partition made by hand): a plain click on a node marks or unmarks it instead of
  // selecting it; a drag still pans.
  std::function<void(const NodeItem*)> on_mark;
  bool marking = false;
  QWidget* corner = nullptr;  // kept in the bottom-right corner (the minimap)
  QRectF content;             // the graph's nodes (the scene adds a margin); set with has_graph
  bool has_graph = false;     // false before the first layout and after a failed one
  void user_moved() {
    if (on_user_moved) on_user_moved();
  }
  // The minimap, in the bottom-right corner, when it helps: the view has room for it and shows
  // part of the graph. With the whole graph in view (fitted) it would only hide the nodes under it.
  void place_corner() {
    if (!corner) return;
    const QRect vp = viewport()->geometry();
    corner->move(vp.right() - corner->width() - 4, vp.bottom() - corner->height() - 4);
    const bool room = vp.width() > 3 * corner->width() && vp.height() > 2 * corner->height();
    corner->setVisible(has_graph && room && !visible().contains(content));
  }
  // The part of the scene in view (a pixel of slack for rounding).
  QRectF visible() const { return mapToScene(viewport()->rect()).boundingRect().adjusted(-1, -1, 1, 1); }

 protected:
  void resizeEvent(QResizeEvent* e) override {
    QGraphicsView::resizeEvent(e);
    place_corner();
  }
  void wheelEvent(QWheelEvent* e) override {
    double f = e->angleDelta().y() > 0 ? 1.15 : 1 / 1.15;
    scale(f, f);
    place_corner();
    if (on_view_changed) on_view_changed();
    user_moved();
  }
  void scrollContentsBy(int dx, int dy) override {
    QGraphicsView::scrollContentsBy(dx, dy);
    place_corner();
    if (on_view_changed) on_view_changed();
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    QGraphicsView::mouseMoveEvent(e);
    if ((e->buttons() & Qt::LeftButton) && dragMode() == QGraphicsView::ScrollHandDrag) user_moved();
  }
  void mousePressEvent(QMouseEvent* e) override {
    if (marking && on_mark && e->button() == Qt::LeftButton && e->modifiers() == Qt::NoModifier)
      for (QGraphicsItem* it : items(e->pos()))
        if (const auto* node = dynamic_cast<const NodeItem*>(it)) {
          on_mark(node);
          e->accept();
          return;
        }
    setDragMode(e->modifiers() & Qt::ShiftModifier ? QGraphicsView::RubberBandDrag : QGraphicsView::ScrollHandDrag);
    QGraphicsView::mousePressEvent(e);
    if (marking) viewport()->setCursor(Qt::PointingHandCursor);
  }
  void mouseReleaseEvent(QMouseEvent* e) override {
    QGraphicsView::mouseReleaseEvent(e);
    if (marking) viewport()->setCursor(Qt::PointingHandCursor);  // the hand drag sets its own
  }
};

// The minimap: the whole scene as a picture, with the main canvas's visible rectangle outlined.
// The picture is rendered a moment after the scene changes, never in the same repaint as the
// canvas, so a new result costs the UI one canvas repaint at a time.
class Minimap : public QWidget {
 public:
  Minimap(QGraphicsScene* s, GraphCanvas* main, QWidget* parent) : QWidget(parent), scene_(s), main_(main) {
    setFixedSize(160, 120);
    timer_.setSingleShot(true);
    timer_.setInterval(150);
    QObject::connect(&timer_, &QTimer::timeout, this, [this] { render(); });
    QObject::connect(s, &QGraphicsScene::changed, this, [this] { refit(); });
  }
  void refit() {
    if (!timer_.isActive()) timer_.start();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.drawPixmap(0, 0, picture_);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    const QRectF visible = main_->mapToScene(main_->viewport()->rect()).boundingRect();
    p.setTransform(to_widget_);
    p.setPen(QPen(QColor(40, 130, 240), 0));
    p.setBrush(QColor(40, 130, 240, 40));
    p.drawRect(visible);
  }
  void mousePressEvent(QMouseEvent* e) override {
    main_->centerOn(to_widget_.inverted().map(e->position()));
    main_->user_moved();
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    main_->centerOn(to_widget_.inverted().map(e->position()));
    main_->user_moved();
  }

 private:
  void render() {
    const QRectF r = scene_->sceneRect();
    picture_ = QPixmap(size());
    picture_.fill(scene_->backgroundBrush().color());
    if (r.isEmpty()) return update();
    const double k = std::min((width() - 4) / r.width(), (height() - 4) / r.height());
    const QSizeF used = r.size() * k;
    const QRectF target(QPointF((width() - used.width()) / 2, (height() - used.height()) / 2), used);
    to_widget_ = QTransform::fromTranslate(target.left(), target.top()).scale(k, k).translate(-r.left(), -r.top());
    QPainter p(&picture_);
    p.setRenderHint(QPainter::Antialiasing);
    scene_->render(&p, target, r);
    update();
  }
  QGraphicsScene* scene_;
  GraphCanvas* main_;
  QTimer timer_;
  QPixmap picture_;
  QTransform to_widget_;
};

GraphView::GraphView(GraphKind kind, QWidget* parent) : QWidget(parent), kind_(kind) {
  scene_ = new QGraphicsScene(this);
  // Items are replaced wholesale on each new result; a BSP index would be rebuilt every time.
  scene_->setItemIndexMethod(QGraphicsScene::NoIndex);
  view_ = new GraphCanvas(scene_, this);
  auto* mini = new Minimap(scene_, view_, view_);
  minimap_ = mini;
  view_->corner = mini;
  view_->on_view_changed = [mini] { mini->update(); };
  view_->on_mark = [this](const NodeItem* node) { emit mark_requested(node->node().id); };
  view_->on_user_moved = [this] {
    fitted_ = false;
    emit view_moved(view_->transform().m11(), view_->mapToScene(view_->viewport()->rect().center()));
  };

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(2, 2, 2, 2);
  auto button = [&](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, slot);
    bar->addWidget(b);
    return b;
  };
  button(tr("Fit"), tr("Fit the whole graph (F)"), [this] { fit(); });
  button(tr("+"), tr("Zoom in"), [this] { zoom_by(1.25); });
  button(tr("−"), tr("Zoom out"), [this] { zoom_by(0.8); });
  filter_ = new QComboBox(this);
  filter_->addItems({tr("All nodes"), tr("Instructions"), tr("Textures"), tr("Interpolants"), tr("Constants"),
                     tr("Shared (MR)")});
  filter_->setToolTip(tr("Show only nodes of one kind; the others are dimmed"));
  connect(filter_, &QComboBox::currentIndexChanged, this, [this] { apply_filter(); });
  bar->addWidget(filter_);
  filter_->setVisible(kind != GraphKind::Passes);  // (passes are all of one kind)
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(kind == GraphKind::Passes ? tr("Find pass: P12") : tr("Find node: n42, MUL, TEX wood…"));
  search_->setClearButtonEnabled(true);
  connect(search_, &QLineEdit::returnPressed, this, [this] { search(); });
  bar->addWidget(search_, 1);
  status_ = new StatusLabel(this, 1, 16);
  bar->addWidget(status_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  connect(scene_, &QGraphicsScene::selectionChanged, this, [this] { on_scene_selection(); });
}

GraphView::~GraphView() {
  // The scene's items go before this widget's members; no selection signal may reach us then.
  disconnect(scene_, nullptr, this, nullptr);
  muting_ = true;
}

void GraphView::show_graph(std::shared_ptr<const DrawGraph> graph, std::shared_ptr<const Layout> layout,
                           session::SnapshotPtr snapshot, const session::AlgorithmRun* run) {
  if (!isVisible() && graph_) {
    pending_ = Pending{std::move(graph), std::move(layout), std::move(snapshot), run};
    // The run drawn so far may not outlive the result it belongs to (an optimal search's or the
    // partition made by hand are not the snapshot's): the hidden graph keeps no pointer to it.
    run_ = nullptr;
    return;
  }
  pending_.reset();
  show_now(std::move(graph), std::move(layout), std::move(snapshot), run);
}

void GraphView::apply_pending() {
  if (!pending_) return;
  Pending p = std::move(*pending_);
  pending_.reset();
  show_now(std::move(p.graph), std::move(p.layout), std::move(p.snapshot), p.run);
}

void GraphView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  apply_pending();
  if (fitted_) fit();  // a fit done while hidden used the wrong size
}

void GraphView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (fitted_ && isVisible()) fit();
}

void GraphView::show_now(std::shared_ptr<const DrawGraph> graph, std::shared_ptr<const Layout> layout,
                         session::SnapshotPtr snapshot, const session::AlgorithmRun* run) {
  // The same layout, or one derived from it (stable_layout keeps unchanged nodes in place): the
  // view keeps its zoom and position.
  const bool same_layout = layout_ && layout && graph_ && graph &&
                           (layout_->key == layout->key || layout->derived);
  std::vector<std::uint32_t> keep = selected_nodes();
  graph_ = std::move(graph);
  layout_ = std::move(layout);
  snapshot_ = std::move(snapshot);
  run_ = run;
  QTransform t = view_->transform();
  QPointF centre = view_->mapToScene(view_->viewport()->rect().center());
  rebuild();
  if (same_layout && !fitted_) {
    view_->setTransform(t);
    view_->centerOn(centre);
  } else if (items_.size() > 0) {
    fit();  // a new layout, or a view that was showing the whole graph: show the whole new one
  }
  view_->place_corner();  // also when there is nothing to show
  select_nodes(keep);
}

void GraphView::rebuild() {
  // Items that look the same in the new result (with a stable layout, most of them) are kept, so a
  // small edit repaints only what changed and the scene is not rebuilt.
  std::unordered_multimap<std::string, NodeItem*> old_nodes;
  std::unordered_multimap<std::string, EdgeItem*> old_edges;
  for (auto* it : items_) old_nodes.emplace(NodeItem::key(it->node(), {it->pos().x(), it->pos().y()}), it);
  for (auto* e : edges_) old_edges.emplace(e->key_, e);
  items_.clear();
  edges_.clear();
  const bool ok = graph_ && layout_ && layout_->ok && layout_->centers.size() == graph_->nodes.size();
  muting_ = true;
  if (ok) {
    for (std::size_t i = 0; i < graph_->nodes.size(); ++i) {
      const auto& n = graph_->nodes[i];
      auto found = old_nodes.find(NodeItem::key(n, layout_->centers[i]));
      NodeItem* item;
      if (found != old_nodes.end()) {
        item = found->second;
        old_nodes.erase(found);
        item->rebind(n, static_cast<int>(i));
      } else {
        item = new NodeItem(n, static_cast<int>(i));
        item->setPos(layout_->centers[i].x, layout_->centers[i].y);
        scene_->addItem(item);
      }
      items_.push_back(item);
    }
    for (std::size_t i = 0; i < graph_->edges.size() && i < layout_->edges.size(); ++i) {
      const auto [from, to] = graph_->edges[i];
      std::string key = EdgeItem::key(layout_->edges[i]);
      auto found = old_edges.find(key);
      EdgeItem* e;
      if (found != old_edges.end()) {
        e = found->second;
        old_edges.erase(found);
        e->from_ = from;
        e->to_ = to;
      } else {
        e = new EdgeItem(layout_->edges[i], from, to);
        e->key_ = std::move(key);
        scene_->addItem(e);
      }
      edges_.push_back(e);
    }
  }
  for (auto& [key, it] : old_nodes) delete it;  // deleting an item removes it from the scene
  for (auto& [key, e] : old_edges) delete e;
  muting_ = false;
  view_->has_graph = ok;
  if (!ok) {
    status_->set_text(layout_ && !layout_->error.empty() ? QString::fromStdString(layout_->error) : QString());
    return;
  }
  view_->content = QRectF(layout_->left, layout_->top, layout_->width, layout_->height);
  scene_->setSceneRect(view_->content.adjusted(-20, -20, 20, 20));
  status_->set_text(stale_ ? tr("%1 nodes, stale").arg(items_.size()) : tr("%1 nodes").arg(items_.size()));
  // Styled once, by the select_nodes() that follows in show_now().
}

void GraphView::set_run(const session::AlgorithmRun* run) {
  if (pending_) {
    pending_->run = run;
    return;
  }
  run_ = run;
  restyle();
}

void GraphView::restyle() {
  const std::size_t n = graph_ ? graph_->nodes.size() : 0;
  pass_of_.assign(n, -1);
  recomputed_.assign(n, 0);
  marked_.assign(n, 0);
  std::vector<char> unfit(n, 0);
  if (graph_ && kind_ == GraphKind::Passes) {
    for (std::size_t i = 0; i < n; ++i) pass_of_[i] = static_cast<int>(graph_->nodes[i].id);  // each pass its colour
  } else if (run_ && graph_) {
    const auto& part = run_->partition;
    for (std::size_t p = 0; p < part.passes.size(); ++p) {
      for (auto m : part.passes[p].members) {
        if (m >= graph_->index_of.size() || graph_->index_of[m] < 0) continue;
        int i = graph_->index_of[m];
        if (pass_of_[i] >= 0) recomputed_[i] = 1;
        else pass_of_[i] = static_cast<int>(p);
      }
      for (auto root : part.passes[p].outputs) {  // every value the pass writes (several: MRT)
        if (root >= graph_->index_of.size() || graph_->index_of[root] < 0) continue;
        int i = graph_->index_of[root];
        marked_[i] = 1;
        unfit[i] = !part.passes[p].failure.empty();  // a partition made by hand: a pass that does not fit
        pass_of_[i] = static_cast<int>(p);  // a root's colour is its own pass
      }
    }
  }
  const bool dark = dark_theme();
  const QBrush background(dark ? QColor(36, 38, 43) : QColor(255, 255, 255));
  if (scene_->backgroundBrush() != background) scene_->setBackgroundBrush(background);  // repaints everything
  // A new partition recolours most nodes: then one repaint of the views is much cheaper than the
  // scene tracking hundreds of dirty items.
  std::vector<NodeItem*> changed;
  for (auto* it : items_) {
    const int i = it->index();
    it->pass_ = pass_of_[i];
    it->recomputed_ = recomputed_[i];
    it->marked_ = marked_[i];
    it->unfit_ = unfit[i];
    it->bold_ = presentation_;
    it->dark_ = dark;
    if (it->refresh(false)) changed.push_back(it);
  }
  if (changed.size() > 24) {
    view_->viewport()->update();
    static_cast<Minimap*>(minimap_)->refit();
  } else {
    for (auto* it : changed) it->update();
  }
  std::set<std::uint32_t> selected;
  for (auto* it : items_)
    if (it->isSelected()) selected.insert(it->index());
  for (auto* e : edges_) {
    // An edge between passes (the user's pass restores the operand's saved value) is dotted.
    bool dotted = run_ && marked_[e->to_] && pass_of_[e->from_] != pass_of_[e->to_];
    e->style(dotted, selected.count(e->from_) || selected.count(e->to_), dark, presentation_);
  }
  apply_filter();
}

void GraphView::set_stale(bool stale) {
  if (stale_ == stale) return;
  stale_ = stale;
  status_->set_text(stale ? tr("%1 nodes, stale").arg(items_.size()) : tr("%1 nodes").arg(items_.size()));
  status_->setToolTip(stale ? tr("Stale: the source changed or has errors; this is the last good result") : QString());
  restyle();
}

void GraphView::apply_filter() {
  const int f = filter_->currentIndex();
  static const char* kinds[] = {"", "instruction", "texture", "interpolant", "constant"};
  for (auto* it : items_) {
    bool show = f == 0 || (f == 5 ? it->node().shared : it->node().kind == kinds[f]);
    it->setOpacity(show ? (stale_ ? 0.45 : 1.0) : 0.12);
  }
}

void GraphView::search() {
  const QString q = search_->text().trimmed();
  if (q.isEmpty() || items_.empty()) return;
  bool is_id = false;
  uint id = (q.startsWith('n') ? q.mid(1) : q).toUInt(&is_id);
  // Cycle through the matches, starting after the current selection.
  int start = 0;
  for (auto* it : items_)
    if (it->isSelected()) start = it->index() + 1;
  for (std::size_t k = 0; k < items_.size(); ++k) {
    NodeItem* it = items_[(start + k) % items_.size()];
    bool hit = is_id ? it->node().id == id : QString::fromStdString(it->node().label).contains(q, Qt::CaseInsensitive);
    if (hit) {
      scene_->clearSelection();
      it->setSelected(true);
      view_->centerOn(it);
      return;
    }
  }
  status_->set_text(tr("no node matches \"%1\"").arg(q));
}

void GraphView::on_scene_selection() {
  if (muting_) return;
  std::set<int> sel;
  for (auto* it : items_)
    if (it->isSelected()) sel.insert(it->index());
  // Highlight the inputs and the uses of the selection.
  for (auto* it : items_) it->related_ = false;
  for (auto* e : edges_) {
    if (sel.count(static_cast<int>(e->from_))) items_[e->to_]->related_ = true;
    if (sel.count(static_cast<int>(e->to_))) items_[e->from_]->related_ = true;
  }
  restyle();
  emit nodes_selected(selected_nodes());
}

std::vector<std::uint32_t> GraphView::selected_nodes() const {
  std::vector<std::uint32_t> out;
  for (auto* it : items_)
    if (it->isSelected()) out.push_back(it->node().id);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> GraphView::marked_nodes() const {
  std::vector<std::uint32_t> out;
  for (auto* it : items_)
    if (it->marked_) out.push_back(it->node().id);
  std::sort(out.begin(), out.end());
  return out;
}

void GraphView::select_nodes(const std::vector<std::uint32_t>& ids) {
  muting_ = true;
  scene_->clearSelection();
  NodeItem* first = nullptr;
  for (auto id : ids) {
    if (!graph_ || id >= graph_->index_of.size() || graph_->index_of[id] < 0) continue;
    NodeItem* it = items_[graph_->index_of[id]];
    it->setSelected(true);
    if (!first) first = it;
  }
  muting_ = false;
  for (auto* it : items_) it->related_ = false;
  restyle();
  if (first && !view_->mapToScene(view_->viewport()->rect()).boundingRect().contains(first->pos()))
    view_->centerOn(first);
}

void GraphView::set_focus(const std::vector<std::uint32_t>& event_nodes, const std::vector<std::uint32_t>& region,
                          const std::vector<char>& marked, bool ok) {
  if (!graph_) return;
  for (auto* it : items_) {
    it->focus_ = 0;
    it->region_ = false;
    it->marked_ = false;
  }
  for (std::size_t id = 0; id < marked.size() && id < graph_->index_of.size(); ++id)
    if (marked[id] && graph_->index_of[id] >= 0) items_[graph_->index_of[id]]->marked_ = true;
  for (auto id : region)
    if (id < graph_->index_of.size() && graph_->index_of[id] >= 0) items_[graph_->index_of[id]]->region_ = true;
  NodeItem* first = nullptr;
  for (auto id : event_nodes)
    if (id < graph_->index_of.size() && graph_->index_of[id] >= 0) {
      NodeItem* it = items_[graph_->index_of[id]];
      it->focus_ = ok ? 1 : 2;
      if (!first) first = it;
    }
  for (auto* it : items_) it->refresh();
  if (first) view_->ensureVisible(first, 40, 40);
}

void GraphView::show_frame(const TraceFrame& f) {
  if (f.nodes.empty() && f.region.empty()) clear_focus();
  else set_focus(f.nodes, f.region, f.marked, f.ok);
}

void GraphView::clear_focus() {
  for (auto* it : items_) {
    it->focus_ = 0;
    it->region_ = false;
  }
  restyle();
}

void GraphView::set_presentation(bool on) {
  if (presentation_ == on) return;
  presentation_ = on;
  restyle();
}

void GraphView::set_marking(bool on) {
  if (view_->marking == on) return;
  view_->marking = on;
  if (on) view_->viewport()->setCursor(Qt::PointingHandCursor);
  else view_->viewport()->unsetCursor();
  view_->setToolTip(on ? tr("Yours: click a node to save its value (mark it) or to compute it again where it is used (unmark it); drag to pan")
                       : QString());
}

bool GraphView::marking() const { return view_->marking; }

void GraphView::click_node(std::uint32_t id) {
  if (!graph_ || id >= graph_->index_of.size() || graph_->index_of[id] < 0) return;
  const QPointF at = view_->mapFromScene(items_[graph_->index_of[id]]->pos());
  QMouseEvent press(QEvent::MouseButtonPress, at, view_->viewport()->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
  QMouseEvent release(QEvent::MouseButtonRelease, at, view_->viewport()->mapToGlobal(at), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
  QApplication::sendEvent(view_->viewport(), &press);
  QApplication::sendEvent(view_->viewport(), &release);
}

void GraphView::set_compact(bool compact) {
  filter_->setVisible(!compact);
  search_->setVisible(!compact);
}

void GraphView::fit() {
  fitted_ = true;
  if (items_.empty()) return;
  // The whole graph, however big: far out, nodes are drawn as coloured shapes (by pass) without
  // labels, which shows the structure; zooming in (wheel, +, the minimap) shows the labels.
  // As QGraphicsView::fitInView() with its 2-pixel margin, but setting the scale in one step: a
  // refit after a small edit leaves the same transform, and the view then repaints only what
  // changed (fitInView() resets the scale first, which repaints the whole view every time).
  const QRectF scene = scene_->sceneRect();
  const QRectF room = QRectF(view_->viewport()->rect()).adjusted(2, 2, -2, -2);
  if (!scene.isEmpty() && !room.isEmpty()) {
    // A small graph in a big view is not blown up past a little over its natural size.
    constexpr double kMostZoom = 1.25;
    const double s = std::min({room.width() / scene.width(), room.height() / scene.height(), kMostZoom});
    view_->setTransform(QTransform::fromScale(s, s));
    view_->centerOn(scene.center());
  }
  view_->place_corner();
  static_cast<Minimap*>(minimap_)->refit();
}

void GraphView::zoom_by(double factor) {
  view_->scale(factor, factor);
  view_->place_corner();
  minimap_->update();
  view_->user_moved();
}

double GraphView::zoom() const { return view_->transform().m11(); }

bool GraphView::shows_whole_graph() const {
  if (items_.empty()) return false;
  QRectF nodes;
  for (const auto* it : items_) nodes |= it->sceneBoundingRect();
  return view_->visible().contains(nodes);
}

bool GraphView::shows_minimap() const { return !minimap_->isHidden(); }

void GraphView::follow(double scale, QPointF centre) {
  if (items_.empty() || scale <= 0) return;
  view_->setTransform(QTransform::fromScale(scale, scale));
  view_->centerOn(centre);
  view_->place_corner();
  fitted_ = false;
  static_cast<Minimap*>(minimap_)->refit();
}

int GraphView::node_count() {
  apply_pending();
  return static_cast<int>(items_.size());
}

QString GraphView::export_dot() const {
  QString out = "digraph passlab {\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  if (!graph_) return out + "}\n";
  static const char* shapes[] = {"ellipse", "diamond", "triangle", "box"};
  const QString prefix = kind_ == GraphKind::Passes ? "p" : "n";  // a pass or a DAG node
  for (std::size_t i = 0; i < graph_->nodes.size(); ++i) {
    const auto& n = graph_->nodes[i];
    QString label = QString::fromStdString(n.label).replace('"', "\\\"");
    out += QString("  %1%2 [label=\"%3\", shape=%4%5%6];\n")
               .arg(prefix)
               .arg(n.id)
               .arg(label, shapes[static_cast<int>(n.shape)],
                    n.shared ? ", style=filled, fillcolor=\"#d7d7d7\"" : "",
                    i < pass_of_.size() && pass_of_[i] >= 0 ? QString(", pass=%1").arg(pass_of_[i] + 1) : "");
  }
  for (const auto& [a, b] : graph_->edges) {
    bool dotted = run_ && b < marked_.size() && marked_[b] && pass_of_[a] != pass_of_[b];
    out += QString("  %1%2 -> %1%3%4;\n").arg(prefix).arg(graph_->nodes[a].id).arg(graph_->nodes[b].id).arg(dotted ? " [style=dotted]" : "");
  }
  return out + "}\n";
}

bool GraphView::export_file(const QString& path, QString* error) const {
  if (path.endsWith(".dot", Qt::CaseInsensitive)) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(export_dot().toUtf8()) < 0 || !f.commit()) {
      *error = f.errorString();
      return false;
    }
    return true;
  }
  return export_scene(*scene_, path, "Passlab graph", error);
}

}  // namespace passlab::views
