// SPDX-License-Identifier: GPL-3.0-or-later
// The trace player: steps through a partitioning run's decisions forwards and backwards, plays
// them at an adjustable speed, scrubs a timeline and jumps to any event.
#pragma once

#include <QWidget>

#include "session/snapshot.h"
#include "views/trace_frame.h"
#include "views/status_label.h"

class QComboBox;
class QListView;
class QSlider;
class QTimer;
class QToolButton;

namespace passlab::views {

class TracePlayer : public QWidget {
  Q_OBJECT

 public:
  explicit TracePlayer(QWidget* parent = nullptr);
  void show_snapshot(session::SnapshotPtr snapshot);
  int position() const { return position_; }
  int event_count() const;
  // Goes to event `index` and puts its frame on the graph; the graph keeps that focus until a new
  // result arrives (it then shows the new partition, and the player waits at its first event).
  void set_position(int index);
  void step(int delta);
  void play(bool on);
  bool playing() const;
  QString reason_text() const;

 signals:
  void frame_changed(const passlab::views::TraceFrame& frame);

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  const session::AlgorithmRun* run() const;
  // A new trace (a new result, or another run or filter chosen): back to its first event. With
  // `focus` that event's frame goes on the graph; without, the graph loses any focus it had.
  void reload(bool focus);
  void show_event(int index);  // the event's words and row, without touching the graph

  session::SnapshotPtr snapshot_;
  int position_ = -1;
  QComboBox* algorithm_;
  QComboBox* kinds_;
  class EventModel;
  EventModel* model_;
  QListView* events_;
  QSlider* timeline_;
  QSlider* speed_;
  StatusLabel* reason_;
  QToolButton* play_;
  QTimer* timer_;
  bool muting_ = false;
  bool frame_pending_ = false;  // a new trace arrived while hidden: its first event is shown when the player is
  bool on_graph_ = false;       // the graph shows this player's frame (the user stepped, played or chose an event)
};

}  // namespace passlab::views
