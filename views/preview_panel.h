// SPDX-License-Identifier: GPL-3.0-or-later
// The preview panel: the snapshot's shader rendered in the chosen partition's passes with
// render-to-texture and with an F-buffer side by side, the pixels where they differ, each pass's
// intermediate values, and every fragment of a probed pixel through every pass.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <QFuture>
#include <QImage>
#include <QThreadPool>
#include <QWidget>

#include "session/snapshot.h"
#include "core/sim/scene.h"
#include "views/status_label.h"

class QCheckBox;
class QComboBox;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace passlab::views {

class PixelView;
struct PreviewFrame;
struct RenderInput;

class PreviewPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PreviewPanel(QWidget* parent = nullptr);
  ~PreviewPanel() override;  // cancels the render in flight and waits for the worker to drop it

  // A new snapshot, rendered in `run`'s passes (null: the whole shader in one pass). The panel
  // keeps its own copy of the partition, so `run` need not outlive the call. Re-renders in the
  // background when the panel is on screen, else when it is shown.
  void show_snapshot(session::SnapshotPtr snapshot, const session::AlgorithmRun* run);
  // The user chose another partition (the passes panel's algorithm, or a finished optimal search).
  void set_run(const session::AlgorithmRun* run);
  // Whether the panel can be seen (QDockWidget::visibilityChanged): behind another tab it does no
  // work, and the render in flight is cancelled until it is shown again.
  void set_on_screen(bool on_screen);
  void set_stale(bool stale);
  // The sample scenes offered besides the shader's own (every *.json of the folder).
  void set_scene_folder(const QString& folder);

  // The latest pictures shown (the quick one, then the full one): 8-bit, opaque, each channel
  // clamped to [0, 1] and rounded.
  const QImage& rtt_image() const;
  const QImage& fbuffer_image() const;

 private:
  void create_widgets();
  void connect_signals();
  void lay_out();
  struct Job {
    quint64 id = 0;
    std::shared_ptr<std::atomic<bool>> cancel;
    bool running = false;
  };

  void request_render();
  void clear_probe();  // forgets the probed pixel, its rows and captions
  void start_render();
  void start_probe(QPoint pixel);
  RenderInput input() const;
  // A new job of this kind: the one before is cancelled; returns the new job's cancel flag.
  std::shared_ptr<std::atomic<bool>> begin(Job& job);
  void watch(Job& job, const QFuture<PreviewFrame>& future);
  void cancel_job(Job& job);
  void take(const PreviewFrame& f);
  void apply_render(const PreviewFrame& f);
  void apply_probe(const PreviewFrame& f);
  void show_pass();
  void show_markers();
  void show_running();
  void clicked(QPointF where);
  void scene_chosen();
  QString scene_key() const;
  void showEvent(QShowEvent* e) override;

  session::SnapshotPtr snapshot_;
  std::shared_ptr<const session::AlgorithmRun> run_;  // a copy of the partition: no trace, no listings
  std::shared_ptr<const sim::Scene> scene_;            // loaded by the worker, kept for the next render
  QString loaded_key_;                                 // what scene_ is
  bool on_screen_ = true;
  bool dirty_ = false;  // settings or snapshot changed since the last render started
  quint64 next_id_ = 0;
  Job render_job_, probe_job_;
  QThreadPool pool_;  // one worker: a new request cancels the one before, so work never piles up

  // What is shown.
  QSize full_size_;                        // of the full render for the current settings
  QPoint probe_pixel_{-1, -1};             // at full size; (-1, -1): none
  std::vector<QImage> pass_images_[2][2];  // [storage][normalized][pass]
  std::vector<std::pair<float, float>> pass_ranges_[2];  // [storage][pass]: smallest, largest value

  PixelView* views_[4];  // render-to-texture, F-buffer, differences, the chosen pass
  StatusLabel* titles_[4];
  StatusLabel* status_[2];  // a line per render, or the scene's problem
  StatusLabel* state_;
  StatusLabel* probe_caption_[2];
  QComboBox* scene_box_;
  QComboBox* size_box_;
  QComboBox* msaa_box_;
  QSpinBox* slots_;
  QComboBox* overflow_box_;
  QPushButton* cancel_;
  QComboBox* pass_storage_;
  QSlider* pass_;
  QCheckBox* normalize_;
  QTableWidget* table_;
  QTimer* settings_timer_;  // coalesces a burst of setting changes (typing a number) into one render
  QString scene_folder_;
  int last_scene_index_ = 0;  // chosen before "Open scene…", taken back if the dialog is cancelled
};

}  // namespace passlab::views
