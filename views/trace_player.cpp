// SPDX-License-Identifier: GPL-3.0-or-later
// The trace player: an event list, a timeline, transport buttons and the reason in words.
#include "views/trace_player.h"

#include <algorithm>

#include <QAbstractListModel>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QListView>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/algorithm_box.h"

namespace passlab::views {

// The event list as a model over the trace itself: rows are formatted when they are drawn, so a
// trace of a hundred thousand events costs nothing until it is scrolled to.
class TracePlayer::EventModel : public QAbstractListModel {
 public:
  using QAbstractListModel::QAbstractListModel;

  void reset(const partition::Trace* events, int kind) {
    beginResetModel();
    events_ = events;
    rows_.clear();
    if (events)
      for (std::size_t i = 0; i < events->size(); ++i)
        if (kind < 0 || static_cast<int>((*events)[i].kind) == kind) rows_.push_back(static_cast<int>(i));
    endResetModel();
  }
  int event_at(int row) const { return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[row] : -1; }
  // The row showing `event`, or the nearest row before it when the filter hides it.
  int row_of(int event) const {
    auto it = std::upper_bound(rows_.begin(), rows_.end(), event);
    return it == rows_.begin() ? -1 : static_cast<int>(it - rows_.begin()) - 1;
  }

  int rowCount(const QModelIndex& parent) const override { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }
  QVariant data(const QModelIndex& index, int role) const override {
    const int i = event_at(index.row());
    if (i < 0 || !events_) return {};
    const auto& e = (*events_)[i];
    if (role == Qt::DisplayRole)
      return QString("%1  %2  %3").arg(i, 6).arg(partition::to_string(e.kind), -14).arg(QString::fromStdString(events_->describe(e)));
    if (role == Qt::ForegroundRole && e.kind == partition::EventKind::ValidCheck && !e.ok) return QColor(200, 40, 40);
    return {};
  }

 private:
  const partition::Trace* events_ = nullptr;
  std::vector<int> rows_;  // event index per row
};

TracePlayer::TracePlayer(QWidget* parent) : QWidget(parent) {
  algorithm_ = new QComboBox(this);
  fill_algorithm_box(algorithm_, AlgorithmBox::Traced);
  connect(algorithm_, &QComboBox::currentIndexChanged, this, [this] { reload(true); });
  kinds_ = new QComboBox(this);
  kinds_->addItem(tr("All events"), -1);
  for (int k = 0; k < partition::kEventKinds; ++k)
    kinds_->addItem(partition::to_string(static_cast<partition::EventKind>(k)), k);
  kinds_->setToolTip(tr("Show only events of one kind in the list (the timeline keeps every event)"));
  connect(kinds_, &QComboBox::currentIndexChanged, this, [this] { reload(true); });
  auto tool = [&](QStyle::StandardPixmap icon, const QString& tip, auto slot) {
    auto* b = new QToolButton(this);
    b->setIcon(style()->standardIcon(icon));
    b->setToolTip(tip);
    connect(b, &QToolButton::clicked, this, slot);
    return b;
  };
  auto* first = tool(QStyle::SP_MediaSkipBackward, tr("First event (Home)"), [this] { set_position(0); });
  auto* back = tool(QStyle::SP_MediaSeekBackward, tr("Step back (F7)"), [this] { step(-1); });
  play_ = tool(QStyle::SP_MediaPlay, tr("Play / pause (F9)"), [this] { play(!playing()); });
  auto* fwd = tool(QStyle::SP_MediaSeekForward, tr("Step forward (F8)"), [this] { step(1); });
  auto* last = tool(QStyle::SP_MediaSkipForward, tr("Last event (End)"), [this] { set_position(event_count() - 1); });
  speed_ = new QSlider(Qt::Horizontal, this);
  speed_->setRange(1, 60);
  speed_->setValue(8);
  speed_->setToolTip(tr("Playback speed: events per second"));
  speed_->setMaximumWidth(120);
  timer_ = new QTimer(this);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (position_ + 1 >= event_count()) play(false);
    else step(1);
  });
  connect(speed_, &QSlider::valueChanged, this, [this](int v) { timer_->setInterval(1000 / v); });
  timer_->setInterval(1000 / speed_->value());
  timeline_ = new QSlider(Qt::Horizontal, this);
  timeline_->setToolTip(tr("Scrub through the trace"));
  connect(timeline_, &QSlider::valueChanged, this, [this](int v) {
    if (!muting_) set_position(v);
  });
  model_ = new EventModel(this);
  events_ = new QListView(this);
  events_->setModel(model_);
  events_->setUniformItemSizes(true);
  // set_position() scrolls to the current row itself (and not at all for the first row: scrolling
  // lays out the whole list at once, milliseconds for a big trace on every new result).
  events_->setAutoScroll(false);
  events_->setLayoutMode(QListView::Batched);  // a big trace's rows are laid out between events
  events_->setBatchSize(2000);
  events_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  connect(events_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (muting_ || !current.isValid()) return;
    set_position(model_->event_at(current.row()));
  });
  reason_ = new StatusLabel(this, 4, 60);
  reason_->set_text(tr("No trace yet."));
  auto* transport = new QHBoxLayout;
  transport->addWidget(algorithm_);
  transport->addWidget(first);
  transport->addWidget(back);
  transport->addWidget(play_);
  transport->addWidget(fwd);
  transport->addWidget(last);
  transport->addWidget(new QLabel(tr("Speed"), this));
  transport->addWidget(speed_);
  transport->addWidget(kinds_);
  transport->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(transport);
  layout->addWidget(timeline_);
  layout->addWidget(reason_);
  layout->addWidget(events_, 1);
}

const session::AlgorithmRun* TracePlayer::run() const {
  return snapshot_ ? snapshot_->run(algorithm_->currentData().toString().toStdString()) : nullptr;
}

int TracePlayer::event_count() const {
  const auto* r = run();
  return r ? static_cast<int>(r->trace.size()) : 0;
}

void TracePlayer::show_snapshot(session::SnapshotPtr snapshot) {
  snapshot_ = std::move(snapshot);
  // The RPU's code generator records its own decisions; the fragment targets, two partitionings.
  const bool rpu = snapshot_ && snapshot_->is_rpu();
  if (rpu != (algorithm_->findData("rpu") >= 0)) {
    QSignalBlocker block(algorithm_);
    algorithm_->clear();
    if (rpu) {
      algorithm_->addItem(tr("RPU compiler"), "rpu");
    } else {
      fill_algorithm_box(algorithm_, AlgorithmBox::Traced);
    }
  }
  if (snapshot_ && !rpu) {
    QSignalBlocker block(algorithm_);
    enable_algorithms(algorithm_, snapshot_->request.target.limits);
  }
  reload(false);
}

void TracePlayer::reload(bool focus) {
  play(false);
  muting_ = true;
  const auto* r = run();
  model_->reset(r ? &r->trace : nullptr, kinds_->currentData().toInt());
  timeline_->setRange(0, std::max(0, event_count() - 1));
  muting_ = false;
  position_ = event_count() > 0 ? 0 : -1;
  if (focus) {
    frame_pending_ = false;
    set_position(position_);
    return;
  }
  // A new result: the graph shows its partition (every mark of the run), not the first step of a
  // trace nobody is stepping through; the focus comes back when the user steps, plays or chooses.
  if (on_graph_) {
    on_graph_ = false;
    emit frame_changed(TraceFrame{});
  }
  // Behind another tab, the first event's words wait until the player is shown: a new result
  // after every edit would otherwise pay for them each time.
  frame_pending_ = !isVisible();
  if (!frame_pending_) show_event(position_);
}

void TracePlayer::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (frame_pending_) {
    frame_pending_ = false;
    show_event(position_);
  }
}

void TracePlayer::set_position(int index) {
  show_event(index);
  const auto* r = run();
  on_graph_ = true;
  emit frame_changed(position_ < 0 ? TraceFrame{} : trace_frame(r->trace, snapshot_->graph().size(), position_));
}

void TracePlayer::show_event(int index) {
  const auto* r = run();
  const int n = event_count();
  if (n == 0) {
    position_ = -1;
    reason_->set_text(snapshot_ && snapshot_->has_dag() ? tr("This run recorded no events.") : tr("No trace yet."));
    return;
  }
  index = std::clamp(index, 0, n - 1);
  position_ = index;
  const auto& e = r->trace[index];
  QString text = QString("<b>%1 / %2 — %3</b><br>%4").arg(index + 1).arg(n).arg(partition::to_string(e.kind), QString::fromStdString(r->trace.describe(e)).toHtmlEscaped());
  if (e.kind == partition::EventKind::SaveRecompute || e.kind == partition::EventKind::SearchTrial)
    text += tr("<br>cost if saved: %1 · cost if recomputed: %2").arg(e.cost_save, 0, 'f', 2).arg(e.cost_recompute, 0, 'f', 2);
  if (e.kind == partition::EventKind::ValidCheck)
    text += tr("<br>operations %1 · registers %2 · textures %3 · interpolants %4 · restores %5")
                .arg(e.resources.operations)
                .arg(e.resources.registers)
                .arg(e.resources.textures)
                .arg(e.resources.interpolants)
                .arg(e.resources.restores);
  reason_->set_text(text);
  muting_ = true;
  timeline_->setValue(index);
  const int row = model_->row_of(index);
  if (row >= 0 && model_->event_at(row) == index) {
    const QModelIndex mi = model_->index(row);
    events_->selectionModel()->setCurrentIndex(mi, QItemSelectionModel::ClearAndSelect);
    if (row == 0) events_->scrollToTop();
    else events_->scrollTo(mi);
  } else {
    events_->selectionModel()->clearSelection();
  }
  muting_ = false;
}

void TracePlayer::step(int delta) { set_position(std::max(0, position_ + delta)); }

bool TracePlayer::playing() const { return timer_->isActive(); }

void TracePlayer::play(bool on) {
  if (on && event_count() > 0) {
    if (position_ + 1 >= event_count()) set_position(0);
    timer_->start();
  } else {
    timer_->stop();
  }
  play_->setIcon(style()->standardIcon(timer_->isActive() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

QString TracePlayer::reason_text() const { return reason_->text(); }

}  // namespace passlab::views
