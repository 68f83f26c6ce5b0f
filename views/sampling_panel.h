// SPDX-License-Identifier: GPL-3.0-or-later
// The Sampling view of the preview: the shader under motion and defocus blur by decoupled
// sampling (or its supersampled, multisampled and opportunistic comparisons), a heat map of where
// the shading went, the measures (shading rate, savings, blur area, the cache's hit rate), the
// paper's sweeps as charts, and for a clicked pixel its visibility samples and the shading points
// each used. Renders run on a worker with progress and can be cancelled.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include <QFuture>
#include <QImage>
#include <QThreadPool>
#include <QWidget>

#include "session/snapshot.h"
#include "core/sim/decoupled.h"
#include "core/sim/sampling_sweep.h"

class QCheckBox;
class QChartView;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace passlab::views {

class PixelView;
class SampleView;
struct SamplingFrame;

class SamplingPanel : public QWidget {
  Q_OBJECT

 public:
  explicit SamplingPanel(QWidget* parent = nullptr);
  ~SamplingPanel() override;  // cancels the work in flight and waits for it

  // A new snapshot (its shader on every object of the chosen scene, in run's passes when given).
  void show_snapshot(session::SnapshotPtr snapshot, const session::AlgorithmRun* run);
  void set_run(const session::AlgorithmRun* run);
  // Whether the view can be seen: hidden, it does no work (what is in flight is cancelled).
  void set_on_screen(bool on_screen);
  // The scenes offered (every *.json of the folder; the blurred ones, ds_*, first).
  void set_scene_folder(const QString& folder);

  // What is shown (for tests and the screenshot tour).
  const QImage& image() const { return image_; }
  const sim::DecoupledStats& stats() const { return stats_; }
  const std::vector<sim::SampleTrace>& traced() const { return traced_; }
  QPoint probed_pixel() const { return probe_; }
  bool busy() const;
  // Clicks pixel (x, y) of the render (as a user would): renders again tracing its samples.
  void probe(QPoint pixel);
  // Runs the sweeps of samples per pixel and cache size behind the charts.
  void run_sweep();
  const std::vector<sim::SweepRow>& sweep_rows() const { return sweep_; }

 signals:
  void rendered();     // a render finished and is shown (or failed, with its message shown)
  void sweep_done();

 private:
  void create_widgets();
  void lay_out();
  void connect_signals();
  void request_render();
  void start(bool sweep, bool with_truth = true);
  void cancel();
  void take(const SamplingFrame& f);
  void show_image();
  void show_pixel();
  void show_hardware(const sim::DecoupledOptions& o);
  void show_charts();
  void save_csv();
  sim::DecoupledOptions options() const;
  QString scene_path() const;

  session::SnapshotPtr snapshot_;
  std::shared_ptr<const session::AlgorithmRun> run_;
  bool on_screen_ = false;
  bool dirty_ = false;
  QString scene_folder_;

  QThreadPool pool_;
  std::shared_ptr<std::atomic<bool>> cancel_flag_;
  std::shared_ptr<std::atomic<int>> progress_;
  bool running_ = false, sweeping_ = false;
  quint64 serial_ = 0;

  QImage image_, heat_;
  QImage error_;                             // where the render departs from the exact reference (when asked)
  std::optional<sim::ImageError> truth_;     // and by how much
  bool keep_truth_ = false;                  // the render under way only moves the probe
  sim::DecoupledStats stats_;
  std::vector<sim::SampleTrace> traced_;
  std::vector<sim::SweepRow> sweep_;
  QPoint probe_{-1, -1};
  QSize size_;

  QComboBox* scene_box_;
  QComboBox* spp_box_;
  QComboBox* shading_box_;
  QComboBox* cache_box_;
  QComboBox* scope_box_;
  QComboBox* reconstruct_box_;
  QComboBox* size_box_;
  QComboBox* view_box_;
  QCheckBox* quads_;
  QCheckBox* adaptive_;
  QDoubleSpinBox* blur_;
  QPushButton* cancel_;
  QPushButton* sweep_button_;
  QPushButton* csv_button_;
  QProgressBar* progress_bar_;
  QLabel* state_;
  QLabel* measures_;
  PixelView* view_;
  SampleView* samples_view_;
  QTableWidget* table_;
  QChartView* rate_chart_;
  QChartView* savings_chart_;
  QLabel* hardware_;             // the hardware studies of the last render
  QChartView* cost_chart_;       // its cost model beside the same frame supersampled
  QTimer* poll_;
  QTimer* settle_;
};

}  // namespace passlab::views
