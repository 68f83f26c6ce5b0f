// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU render: the frame the program renders (on a worker thread), and per pixel what it cost
// as heat maps (instructions, cycles, stalls, divergence, chunk occupancy; on the machine model,
// its chunk's cycles on the core and its share of them waiting for the trace unit) with a legend,
// a histogram (Qt Charts) and the frame's totals; and a chart of the machine model's utilisation
// against chunks in flight. Clicking a pixel debugs the thread that shaded it.
#pragma once

#include <array>
#include <atomic>
#include <memory>

#include <QImage>
#include <QWidget>

#include "views/rpu_session.h"

class QComboBox;
class QLabel;
class QPushButton;
class QChartView;
class QBarSeries;
class QBarSet;
class QLineSeries;
class QBarCategoryAxis;
class QValueAxis;
class QLogValueAxis;

namespace passlab::views {

// One rendered frame with its images: the colour and a heat map per statistic.
struct RpuFrame {
  std::shared_ptr<const session::RpuBuild> build;
  rpu::RenderResult result;
  enum Mode { Image, Instructions, Cycles, Stalls, Divergence, Occupancy, MachineCycles, TraceShare, kModes };
  std::array<QImage, kModes> images;
  std::array<double, kModes> low{}, high{};
  std::array<std::vector<int>, kModes> histogram;  // 12 bins from low to high
  double ms = 0;
};

// Makes the frame's images (a worker may call it).
std::shared_ptr<RpuFrame> make_rpu_frame(std::shared_ptr<const session::RpuBuild> build, rpu::RenderResult result, double ms);

class RpuImageView : public QWidget {
  Q_OBJECT

 public:
  explicit RpuImageView(QWidget* parent = nullptr);
  void set_image(const QImage& image);
  void set_mark(std::optional<QPoint> pixel) {
    mark_ = pixel;
    update();
  }
  QPoint widget_point(QPoint pixel) const;  // the centre of an image pixel on screen
  QSize sizeHint() const override { return {320, 320}; }

 signals:
  void pixel_clicked(int x, int y);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  QRectF target() const;
  QImage image_;
  std::optional<QPoint> mark_;
};

class RpuRenderPanel : public QWidget {
  Q_OBJECT

 public:
  RpuRenderPanel(RpuSession* session, QWidget* parent = nullptr);
  ~RpuRenderPanel() override;
  void set_on_screen(bool on);
  void set_mode(int mode);
  int mode() const;
  const RpuFrame* frame() const { return frame_.get(); }
  bool rendering() const { return running_ > 0; }
  // The frame is shown first; then it is timed on the machine model (a second job, several
  // times longer), whose figures, heat maps and chart replace the frame's when they arrive.
  bool modelling() const { return modelling_ > 0; }
  RpuImageView* image_view() const { return image_; }
  QString totals_text() const;
  QChartView* sweep_chart() const { return sweep_chart_; }

 signals:
  void frame_ready();

 private:
  void start_render();
  void start_model(std::shared_ptr<const session::RpuBuild> build, std::shared_ptr<std::atomic<bool>> flag);
  void show_frame();

  RpuSession* session_;
  RpuImageView* image_;
  QComboBox* mode_;
  QLabel* legend_;
  QLabel* totals_;
  QPushButton* cancel_;
  QChartView* chart_;
  QBarSeries* series_;
  QBarCategoryAxis* bins_axis_;
  QValueAxis* count_axis_;
  QChartView* sweep_chart_;
  QLogValueAxis* in_flight_axis_;
  std::array<QLineSeries*, 3> sweep_lines_{};
  void show_sweep();
  std::shared_ptr<RpuFrame> frame_;
  std::shared_ptr<std::atomic<bool>> cancel_flag_;
  std::shared_ptr<const session::RpuBuild> rendered_;  // the build of the frame shown or in flight
  bool on_screen_ = false;
  int running_ = 0;
  int modelling_ = 0;
};

}  // namespace passlab::views
