// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/sampling_panel.h"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QCategoryAxis>
#include <QPainter>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QtConcurrent/QtConcurrentRun>

#include "session/background.h"
#include "session/sampling_job.h"
#include "core/sim/hardware_study.h"
#include "core/sim/heat.h"
#include "views/pixel_view.h"

namespace passlab::views {

// What a worker hands back: the session's result, and which request it answers.
struct SamplingFrame {
  quint64 serial = 0;
  session::SamplingResult r;
};

// The probed pixel's neighbourhood: its samples (dots in their colour, hollow when hidden behind a
// nearer one), a line from each to the shading point(s) it used (orange where its lookup missed
// and shaded, grey where it hit), the shading points as squares; the pixel grid behind.
class SampleView : public QWidget {
 public:
  explicit SampleView(QWidget* parent) : QWidget(parent) { setMinimumSize(200, 200); }
  void set(QPoint pixel, std::vector<sim::SampleTrace> samples) {
    pixel_ = pixel;
    samples_ = std::move(samples);
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    p.fillRect(rect(), dark ? QColor(30, 31, 34) : QColor(250, 250, 250));
    if (pixel_.x() < 0) {
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                 tr("Click a pixel of the render to see its visibility samples and the shading points each used."));
      return;
    }
    // The window: the pixel and every shading point its samples used, a pixel of margin.
    double x0 = pixel_.x(), y0 = pixel_.y(), x1 = x0 + 1, y1 = y0 + 1;
    for (const auto& s : samples_)
      for (int m = 0; m < s.taps; ++m) {
        const auto& g = s.shading_points[static_cast<std::size_t>(m)];
        if (!std::isfinite(g[0])) continue;
        x0 = std::min(x0, static_cast<double>(g[0]));
        x1 = std::max(x1, static_cast<double>(g[0]));
        y0 = std::min(y0, static_cast<double>(g[1]));
        y1 = std::max(y1, static_cast<double>(g[1]));
      }
    x0 = std::floor(x0) - 1;
    y0 = std::floor(y0) - 1;
    x1 = std::ceil(x1) + 1;
    y1 = std::ceil(y1) + 1;
    const double side = std::max(x1 - x0, y1 - y0);
    const double scale = std::min(width(), height() - 18) / side;
    const QPointF origin((width() - side * scale) / 2, 2);
    auto at = [&](double x, double y) { return origin + QPointF((x - x0) * scale, (y - y0) * scale); };
    p.setPen(QPen(dark ? QColor(70, 72, 78) : QColor(215, 215, 215), 1));
    for (int i = 0; i <= static_cast<int>(side); ++i) {
      p.drawLine(at(x0 + i, y0), at(x0 + i, y0 + side));
      p.drawLine(at(x0, y0 + i), at(x0 + side, y0 + i));
    }
    p.setPen(QPen(QColor(255, 200, 0), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(at(pixel_.x(), pixel_.y()), at(pixel_.x() + 1, pixel_.y() + 1)));
    auto colour = [](const sim::SampleTrace& s) {
      return QColor::fromRgbF(std::clamp(s.colour[0], 0.0f, 1.0f), std::clamp(s.colour[1], 0.0f, 1.0f), std::clamp(s.colour[2], 0.0f, 1.0f));
    };
    for (const auto& s : samples_)
      for (int m = 0; m < s.taps; ++m) {
        const auto& g = s.shading_points[static_cast<std::size_t>(m)];
        if (!std::isfinite(g[0])) continue;
        p.setPen(QPen(s.hit ? QColor(140, 140, 140, 150) : QColor(240, 120, 20, 200), 1));
        p.drawLine(at(s.sx, s.sy), at(g[0], g[1]));
        p.setPen(QPen(dark ? Qt::white : Qt::black, 1));
        p.setBrush(colour(s));
        const QPointF c = at(g[0], g[1]);
        p.drawRect(QRectF(c.x() - 3.5, c.y() - 3.5, 7, 7));
      }
    for (const auto& s : samples_) {
      p.setPen(QPen(dark ? Qt::white : Qt::black, 1));
      p.setBrush(s.visible ? QBrush(colour(s)) : Qt::NoBrush);
      p.drawEllipse(at(s.sx, s.sy), 3.2, 3.2);
    }
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRectF(0, height() - 16, width(), 16), Qt::AlignCenter,
               tr("● sample  ○ hidden  ■ shading point  — orange: shaded on its miss, grey: a cache hit"));
  }

 private:
  QPoint pixel_{-1, -1};
  std::vector<sim::SampleTrace> samples_;
};

namespace {

QComboBox* combo(QWidget* parent, const char* name, const QString& tip, const QStringList& items, int current) {
  auto* b = new QComboBox(parent);
  b->setObjectName(name);
  b->setToolTip(tip);
  b->addItems(items);
  b->setCurrentIndex(current);
  return b;
}

const int kSpp[] = {1, 4, 8, 16, 27, 64};
const long kCache[] = {64, 128, 256, 512, 1024, 4096, 16384, 0};
const int kSizes[] = {128, 256, 512};

QImage heat_picture(const sim::DecoupledCapture& c) {
  return to_qimage(sim::heat_image(c.shading_heat, c.width, c.height, 4.0f), false, nullptr);
}

void render_job(QPromise<SamplingFrame>& promise, quint64 serial, session::SamplingRequest request,
                std::shared_ptr<std::atomic<bool>> cancel, std::shared_ptr<std::atomic<int>> progress) {
  session::run_in_background();  // (the UI thread keeps the CPU it needs to paint)
  request.cancel = cancel.get();
  request.progress = progress.get();
  promise.addResult(SamplingFrame{serial, session::render_sampling(std::move(request))});
}

}  // namespace

SamplingPanel::SamplingPanel(QWidget* parent) : QWidget(parent) {
  pool_.setMaxThreadCount(1);
  pool_.setExpiryTimeout(-1);
  create_widgets();
  lay_out();
  connect_signals();
}

// The controls, the views and the charts.
void SamplingPanel::create_widgets() {
  scene_box_ = new QComboBox(this);
  scene_box_->setObjectName("sampling-scene");
  scene_box_->setToolTip(tr("The scene, with its lens and motion: every object uses the shader being edited"));
  spp_box_ = combo(this, "sampling-spp", tr("Visibility samples per pixel over position, lens and time"),
                   {"1 spp", "4 spp", "8 spp", "16 spp", "27 spp", "64 spp"}, 4);
  shading_box_ = combo(this, "sampling-shading",
                       tr("Decoupled: the paper. Supersample: every sample shaded, at the lens centre and the shutter's opening (the "
                          "paper's reference). MSAA: once per pixel and triangle. Opportunistic: a cache that shades where a miss happens "
                          "(its picture depends on order). Exact: every sample shaded at its own lens point and time, the ground truth "
                          "(slow: each sample sets up its triangle)"),
                       {tr("Decoupled"), tr("Supersample"), tr("MSAA"), tr("Opportunistic"), tr("Exact")}, 0);
  cache_box_ = combo(this, "sampling-cache", tr("Shading cache size, in shading samples (a quad takes four)"),
                     {"64", "128", "256", "512", "1k", "4k", "16k", tr("unlimited")}, 5);
  scope_box_ = combo(this, "sampling-scope", tr("One global cache (sort-last, a GPU) or one per 32×32 tile (sort-middle)"),
                     {tr("Global cache"), tr("Per-tile caches")}, 0);
  reconstruct_box_ = combo(this, "sampling-reconstruct", tr("Each sample takes its nearest shading point, or blends the four around it"),
                           {tr("Nearest"), tr("Bilinear")}, 0);
  size_box_ = combo(this, "sampling-size", tr("Render size"), {"128 px", "256 px", "512 px"}, 1);
  view_box_ = combo(this, "sampling-view",
                    tr("The picture; where the shading happened (shader runs per pixel, 0 to 4); or where it departs from the exact "
                       "reference, every sample shaded at its own lens point and time (largest RGB error, full scale at 0.1; the "
                       "reference renders too, several times slower)"),
                    {tr("Image"), tr("Shading heat map"), tr("Error against exact")}, 0);
  quads_ = new QCheckBox(tr("Quads"), this);
  quads_->setObjectName("sampling-quads");
  quads_->setToolTip(tr("Shade 2×2 quads of shading points on each miss, as GPUs do"));
  quads_->setChecked(true);
  adaptive_ = new QCheckBox(tr("Adaptive"), this);
  adaptive_->setObjectName("sampling-adaptive");
  adaptive_->setToolTip(tr("Shade defocused triangles more coarsely as their circle of confusion grows"));
  blur_ = new QDoubleSpinBox(this);
  blur_->setObjectName("sampling-blur");
  blur_->setToolTip(tr("Scales the scene's aperture and shutter"));
  blur_->setRange(0, 4);
  blur_->setSingleStep(0.25);
  blur_->setValue(1);
  blur_->setPrefix(tr("blur ×"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName("sampling-cancel");
  cancel_->setEnabled(false);
  progress_bar_ = new QProgressBar(this);
  progress_bar_->setRange(0, 1000);
  progress_bar_->setTextVisible(false);
  progress_bar_->setMaximumHeight(10);
  progress_bar_->hide();
  state_ = new QLabel(this);
  state_->setObjectName("sampling-state");
  measures_ = new QLabel(this);
  measures_->setObjectName("sampling-measures");
  measures_->setWordWrap(true);
  measures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  view_ = new PixelView(this, 256);
  view_->set_placeholder(tr("Open the Sampling view to render the shader with motion and defocus blur."));
  view_->on_click = [this](QPointF at) {
    if (image_.isNull()) return;
    probe(QPoint(std::clamp(static_cast<int>(at.x() * image_.width()), 0, image_.width() - 1),
                 std::clamp(static_cast<int>(at.y() * image_.height()), 0, image_.height() - 1)));
  };
  samples_view_ = new SampleView(this);
  table_ = new QTableWidget(0, 9, this);
  table_->setObjectName("sampling-samples");
  table_->setHorizontalHeaderLabels({tr("k"), tr("position"), tr("lens u, v"), tr("time"), tr("object"), tr("depth"), tr("cache"),
                                     tr("shading point"), tr("shown")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  rate_chart_ = new QChartView(this);
  savings_chart_ = new QChartView(this);
  rate_chart_->setObjectName("sampling-rate-chart");
  savings_chart_->setObjectName("sampling-savings-chart");
  for (QChartView* c : {rate_chart_, savings_chart_}) {
    c->setRenderHint(QPainter::Antialiasing);
    c->setMinimumHeight(180);
  }
  hardware_ = new QLabel(this);
  hardware_->setObjectName("sampling-hardware");
  hardware_->setWordWrap(true);
  hardware_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  cost_chart_ = new QChartView(this);
  cost_chart_->setRenderHint(QPainter::Antialiasing);
  cost_chart_->setMinimumHeight(180);
  sweep_button_ = new QPushButton(tr("Run sweeps"), this);
  sweep_button_->setObjectName("sampling-sweep");
  sweep_button_->setToolTip(tr("Renders the scene at 8, 27 and 64 samples per pixel over four blurs, and over cache sizes "
                               "from 32 to 16k shading samples (the paper's Figure 10); a minute or more at 512 px"));
  csv_button_ = new QPushButton(tr("Save CSV…"), this);
  csv_button_->setEnabled(false);
}

// The controls above; the image and status left; the pixel, sweeps and hardware tabs right.
void SamplingPanel::lay_out() {
  auto* controls = new QGridLayout;
  controls->addWidget(scene_box_, 0, 0, 1, 2);
  controls->addWidget(spp_box_, 0, 2);
  controls->addWidget(shading_box_, 0, 3);
  controls->addWidget(size_box_, 0, 4);
  controls->addWidget(view_box_, 0, 5);
  controls->addWidget(cache_box_, 1, 0);
  controls->addWidget(scope_box_, 1, 1);
  controls->addWidget(reconstruct_box_, 1, 2);
  controls->addWidget(quads_, 1, 3);
  controls->addWidget(adaptive_, 1, 4);
  controls->addWidget(blur_, 1, 5);
  auto* status = new QHBoxLayout;
  status->addWidget(state_, 1);
  status->addWidget(cancel_);
  auto* left = new QWidget(this);
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->addWidget(view_, 1);
  lv->addWidget(measures_);
  auto* tabs = new QTabWidget(this);
  tabs->setObjectName("sampling-tabs");
  auto* pixel_page = new QSplitter(Qt::Vertical, tabs);
  pixel_page->addWidget(samples_view_);
  pixel_page->addWidget(table_);
  tabs->addTab(pixel_page, tr("Pixel"));
  auto* sweep_page = new QWidget(tabs);
  auto* sv = new QVBoxLayout(sweep_page);
  auto* sweep_row = new QHBoxLayout;
  sweep_row->addWidget(sweep_button_);
  sweep_row->addWidget(csv_button_);
  sweep_row->addStretch(1);
  sv->addLayout(sweep_row);
  sv->addWidget(rate_chart_, 1);
  sv->addWidget(savings_chart_, 1);
  tabs->addTab(sweep_page, tr("Sweeps"));
  auto* hardware_page = new QWidget(tabs);
  auto* hv = new QVBoxLayout(hardware_page);
  hv->addWidget(hardware_);
  hv->addWidget(cost_chart_, 1);
  tabs->addTab(hardware_page, tr("Hardware"));
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(tabs);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addLayout(status);
  layout->addWidget(progress_bar_);
  layout->addWidget(split, 1);
}

// Settings re-render after a pause; the progress is polled; the buttons act.
void SamplingPanel::connect_signals() {
  settle_ = new QTimer(this);
  settle_->setSingleShot(true);
  settle_->setInterval(200);
  connect(settle_, &QTimer::timeout, this, [this] {
    probe_ = {-1, -1};
    request_render();
  });
  poll_ = new QTimer(this);
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    if (progress_) progress_bar_->setValue(progress_->load());
  });
  for (QComboBox* b : {scene_box_, spp_box_, shading_box_, cache_box_, scope_box_, reconstruct_box_, size_box_})
    connect(b, &QComboBox::currentIndexChanged, settle_, qOverload<>(&QTimer::start));
  for (QCheckBox* c : {quads_, adaptive_}) connect(c, &QCheckBox::toggled, settle_, qOverload<>(&QTimer::start));
  connect(blur_, &QDoubleSpinBox::valueChanged, settle_, qOverload<>(&QTimer::start));
  connect(view_box_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index == 2 && !truth_) request_render();  // the reference is rendered on demand
    show_image();
  });
  connect(cancel_, &QPushButton::clicked, this, &SamplingPanel::cancel);
  connect(sweep_button_, &QPushButton::clicked, this, &SamplingPanel::run_sweep);
  connect(csv_button_, &QPushButton::clicked, this, &SamplingPanel::save_csv);
  show_charts();
}

SamplingPanel::~SamplingPanel() {
  if (cancel_flag_) cancel_flag_->store(true);
  pool_.waitForDone();
}

void SamplingPanel::set_scene_folder(const QString& folder) {
  scene_folder_ = folder;
  const QSignalBlocker block(scene_box_);
  scene_box_->clear();
  QStringList blurred, others;
  for (const QFileInfo& f : QDir(folder).entryInfoList({"*.json"}, QDir::Files, QDir::Name)) {
    if (f.baseName().startsWith("rpu_")) continue;
    (f.baseName().startsWith("ds_") ? blurred : others) << f.absoluteFilePath();
  }
  for (const QString& path : blurred + others) scene_box_->addItem(QFileInfo(path).baseName(), path);
}

QString SamplingPanel::scene_path() const { return scene_box_->currentData().toString(); }

sim::DecoupledOptions SamplingPanel::options() const {
  sim::DecoupledOptions o;
  o.spp = kSpp[std::clamp(spp_box_->currentIndex(), 0, 5)];
  o.shading = static_cast<sim::Shading>(std::clamp(shading_box_->currentIndex(), 0, static_cast<int>(sim::Shading::Exact)));
  o.cache = kCache[std::clamp(cache_box_->currentIndex(), 0, 7)];
  o.scope = scope_box_->currentIndex() == 1 ? sim::CacheScope::Tile : sim::CacheScope::Global;
  o.reconstruct = reconstruct_box_->currentIndex() == 1 ? sim::Reconstruct::Bilinear : sim::Reconstruct::Nearest;
  o.quads = quads_->isChecked();
  o.adaptive = adaptive_->isChecked();
  o.blur = static_cast<float>(blur_->value());
  return o;
}

void SamplingPanel::show_snapshot(session::SnapshotPtr snapshot, const session::AlgorithmRun* run) {
  snapshot_ = std::move(snapshot);
  std::shared_ptr<session::AlgorithmRun> copy;
  if (run) {  // the partition only: no trace, no listings
    copy = std::make_shared<session::AlgorithmRun>();
    copy->algorithm = run->algorithm;
    copy->partition = run->partition;
    copy->problems = run->problems;
  }
  run_ = copy;
  request_render();
}

void SamplingPanel::set_run(const session::AlgorithmRun* run) { show_snapshot(snapshot_, run); }

void SamplingPanel::set_on_screen(bool on_screen) {
  on_screen_ = on_screen;
  if (on_screen && !snapshot_ && image_.isNull()) view_->set_placeholder(tr("Waiting for the shader to compile…"));
  if (on_screen && dirty_) request_render();
  if (!on_screen && running_ && !sweeping_) {
    cancel();
    dirty_ = true;
  }
}

bool SamplingPanel::busy() const { return running_ || settle_->isActive(); }

void SamplingPanel::request_render() {
  if (on_screen_ && !snapshot_ && image_.isNull()) view_->set_placeholder(tr("Waiting for the shader to compile…"));
  if (!on_screen_ || !snapshot_) {
    dirty_ = true;
    return;
  }
  dirty_ = false;
  start(false);
}

void SamplingPanel::probe(QPoint pixel) {
  probe_ = pixel;
  if (!snapshot_) return;
  keep_truth_ = truth_.has_value();  // the same picture: its error against the reference stands
  start(false, !keep_truth_);
}

void SamplingPanel::run_sweep() {
  if (!snapshot_) return;
  start(true);
}

void SamplingPanel::cancel() {
  if (cancel_flag_) cancel_flag_->store(true);
}

void SamplingPanel::start(bool sweep, bool with_truth) {
  if (!snapshot_ || !snapshot_->has_dag()) {
    view_->set_placeholder(tr("The shader has no DAG to render yet."));
    return;
  }
  cancel();  // the one before, if any
  cancel_flag_ = std::make_shared<std::atomic<bool>>(false);
  progress_ = std::make_shared<std::atomic<int>>(0);
  running_ = true;
  sweeping_ = sweep;
  const quint64 serial = ++serial_;
  const sim::DecoupledOptions o = options();
  const int size = kSizes[std::clamp(size_box_->currentIndex(), 0, 2)];
  auto* watcher = new QFutureWatcher<SamplingFrame>(this);
  connect(watcher, &QFutureWatcher<SamplingFrame>::finished, this, [this, watcher] {
    watcher->deleteLater();
    if (watcher->future().resultCount() > 0) take(watcher->future().result());
  });
  session::SamplingRequest request;
  request.snapshot = snapshot_;
  request.run = run_;
  request.scene_path = scene_path().toStdString();
  request.size = size;
  request.options = o;
  request.probe_x = probe_.x();
  request.probe_y = probe_.y();
  request.sweep = sweep;
  request.truth = !sweep && with_truth && view_box_->currentIndex() == 2;
  watcher->setFuture(QtConcurrent::run(&pool_, render_job, serial, std::move(request), cancel_flag_, progress_));
  progress_bar_->setValue(0);
  progress_bar_->show();
  cancel_->setEnabled(true);
  sweep_button_->setEnabled(false);
  state_->setText(sweep ? tr("Sweeping…") : tr("Rendering…"));
  view_->set_stale(true);
  poll_->start();
}

void SamplingPanel::take(const SamplingFrame& frame) {
  if (frame.serial != serial_) return;  // superseded
  const session::SamplingResult& f = frame.r;
  running_ = false;
  poll_->stop();
  progress_bar_->hide();
  cancel_->setEnabled(false);
  sweep_button_->setEnabled(true);
  view_->set_stale(false);
  if (!f.error.empty()) {
    state_->setText(f.error == "the render was cancelled" || f.error == "cancelled" ? tr("Cancelled") : QString::fromStdString(f.error));
    if (f.sweep) emit sweep_done();
    else emit rendered();
    return;
  }
  if (f.sweep) {
    sweep_ = f.rows;
    csv_button_->setEnabled(!sweep_.empty());
    state_->setText(tr("%n renders swept in %1 s", nullptr, static_cast<int>(sweep_.size())).arg(f.ms / 1000, 0, 'f', 1));
    show_charts();
    emit sweep_done();
    return;
  }
  image_ = to_qimage(*f.image, false, nullptr);
  heat_ = heat_picture(f.capture);
  if (f.truth || !keep_truth_) {
    truth_ = f.truth;
    error_ = f.truth_map ? to_qimage(*f.truth_map, false, nullptr) : QImage();
  }
  keep_truth_ = false;
  stats_ = f.stats;
  traced_ = f.capture.samples;
  const sim::DecoupledStats& s = stats_;
  state_->setText((f.truth ? tr("%1×%2 at %3 spp in %4 ms, the exact reference included") : tr("%1×%2 at %3 spp in %4 ms"))
                      .arg(s.width)
                      .arg(s.height)
                      .arg(s.spp)
                      .arg(f.ms, 0, 'f', 0) +
                  (f.truth_problem.empty() ? QString()
                                           : tr("; the exact reference could not be rendered: %1").arg(QString::fromStdString(f.truth_problem))));
  measures_->setText(
      tr("<b>%1</b> shader runs for %2 covered pixels: shading rate <b>%3</b> per pixel · savings <b>%4×</b> against supersampling (%5 "
         "samples) · blur area %6 px (a run seen in %7 px) · %8 · %9 passes, %10 F-buffer slot-passes")
          .arg(s.shader_runs)
          .arg(s.covered_pixels)
          .arg(s.shading_rate(), 0, 'f', 2)
          .arg(s.savings(), 0, 'f', 1)
          .arg(s.samples_tested)
          .arg(s.blur_area, 0, 'f', 1)
          .arg(s.seen_pixels, 0, 'f', 1)
          .arg(QString::fromStdString(sim::cache_summary(f.options, s)))
          .arg(s.passes)
          .arg(s.slot_passes) +
      (!truth_                         ? QString()
       : !std::isfinite(truth_->psnr) ? tr(" · the same as the exact reference")
                                      : tr(" · against the exact reference: PSNR <b>%1 dB</b>, largest error %2/255")
                                            .arg(truth_->psnr, 0, 'f', 1)
                                            .arg(static_cast<int>(std::lround(truth_->max_abs * 255)))));
  show_hardware(f.options);
  show_image();
  show_pixel();
  emit rendered();
}

void SamplingPanel::show_image() {
  const int view = view_box_->currentIndex();
  view_->set_image(view == 1 ? heat_ : view == 2 ? error_ : image_);
  if (probe_.x() >= 0 && !image_.isNull())
    view_->set_marker(QRectF(static_cast<double>(probe_.x()) / image_.width(), static_cast<double>(probe_.y()) / image_.height(),
                             1.0 / image_.width(), 1.0 / image_.height()));
  else
    view_->set_marker({});
}

// The paper's hardware studies of the last render (sim/hardware_study.h): its bin spread and
// traffic in words, and its cost model beside the same frame supersampled as stacked bars.
void SamplingPanel::show_hardware(const sim::DecoupledOptions& o) {
  const sim::HardwareStudy h = sim::hardware_study(o, stats_), ss = sim::supersampling_study(o, stats_);
  hardware_->setText(tr("Sort-middle: a triangle's blurred bounds touch <b>%1</b> tiles of %2×%2 px on average (tiles of 128 kB at "
                        "%3 spp; %4 MB of bins). Shading cache traffic %5 MB written, %6 MB read; framebuffer %7 MB. "
                        "Modelled cost %8 M instruction-equivalents, <b>%9×</b> the same frame supersampled.")
                         .arg(h.bin_spread, 0, 'f', 2)
                         .arg(h.tile_side)
                         .arg(stats_.spp)
                         .arg(h.bin_bytes / 1e6, 0, 'f', 1)
                         .arg(h.cache_write_bytes / 1e6, 0, 'f', 1)
                         .arg(h.cache_read_bytes / 1e6, 0, 'f', 1)
                         .arg(h.framebuffer_bytes / 1e6, 0, 'f', 1)
                         .arg(h.total() / 1e6, 0, 'f', 1)
                         .arg(ss.total() > 0 ? h.total() / ss.total() : 0.0, 0, 'f', 2));
  auto* series = new QHorizontalStackedBarSeries;
  const std::pair<QString, double sim::HardwareStudy::*> stages[] = {{tr("vertices"), &sim::HardwareStudy::vertex},
                                                                     {tr("rasterization"), &sim::HardwareStudy::raster},
                                                                     {tr("decoupling"), &sim::HardwareStudy::decouple},
                                                                     {tr("shading"), &sim::HardwareStudy::shade}};
  for (const auto& [name, part] : stages) {
    auto* set = new QBarSet(name);
    *set << ss.*part / 1e6 << h.*part / 1e6;
    series->append(set);
  }
  auto* chart = new QChart;
  chart->addSeries(series);
  chart->setTitle(tr("Cost model (the paper's Figure 13), M instruction-equivalents"));
  auto* y = new QBarCategoryAxis;
  y->append({tr("supersampled"), QString::fromUtf8(sim::to_string(o.shading))});
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  auto* x = new QValueAxis;
  x->setLabelFormat("%.0f");
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  x->applyNiceNumbers();
  chart->legend()->setAlignment(Qt::AlignBottom);
  QChart* old = cost_chart_->chart();
  cost_chart_->setChart(chart);
  delete old;
}

void SamplingPanel::show_pixel() {
  samples_view_->set(probe_, traced_);
  table_->setRowCount(static_cast<int>(traced_.size()));
  for (int r = 0; r < static_cast<int>(traced_.size()); ++r) {
    const sim::SampleTrace& s = traced_[static_cast<std::size_t>(r)];
    QString points;
    for (int m = 0; m < s.taps; ++m) {
      const auto& g = s.shading_points[static_cast<std::size_t>(m)];
      if (m) points += "  ";
      points += std::isfinite(g[0]) ? QString("(%1, %2)").arg(g[0], 0, 'f', 1).arg(g[1], 0, 'f', 1) : tr("barycentric grid");
      if (s.taps > 1) points += QString(" ×%1").arg(s.weights[static_cast<std::size_t>(m)], 0, 'f', 2);
    }
    const QStringList cells = {QString::number(s.k),
                               QString("(%1, %2)").arg(s.sx, 0, 'f', 2).arg(s.sy, 0, 'f', 2),
                               QString("%1, %2").arg(s.u, 0, 'f', 2).arg(s.v, 0, 'f', 2),
                               QString::number(s.t, 'f', 2),
                               QString::number(s.object + 1),
                               QString::number(s.z, 'f', 3),
                               s.hit ? tr("hit") : tr("miss: shaded"),
                               points,
                               s.visible ? tr("yes") : tr("hidden")};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 0) item->setBackground(QColor::fromRgbF(std::clamp(s.colour[0], 0.0f, 1.0f), std::clamp(s.colour[1], 0.0f, 1.0f),
                                                       std::clamp(s.colour[2], 0.0f, 1.0f)));
      table_->setItem(r, c, item);
    }
  }
}

void SamplingPanel::show_charts() {
  auto* rate = new QChart;
  rate->setTitle(tr("Shading rate by samples per pixel (4k global cache)"));
  auto* savings = new QChart;
  savings->setTitle(tr("Savings against supersampling by cache size (27 spp)"));
  auto* rx = new QValueAxis;
  rx->setTitleText(tr("samples per pixel"));
  rx->setRange(0, 70);
  auto* ry = new QValueAxis;
  ry->setTitleText(tr("shader runs per pixel"));
  // Cache sizes on a log scale: x is log2(size), labelled with the sizes.
  auto* sx = new QCategoryAxis;
  sx->setTitleText(tr("cache size (shading samples)"));
  sx->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  for (int e = 5; e <= 14; ++e) sx->append(e >= 10 ? QString("%1k").arg(1 << (e - 10)) : QString::number(1 << e), e);
  auto* sy = new QValueAxis;
  sy->setTitleText(tr("× fewer runs"));
  rate->addAxis(rx, Qt::AlignBottom);
  rate->addAxis(ry, Qt::AlignLeft);
  savings->addAxis(sx, Qt::AlignBottom);
  savings->addAxis(sy, Qt::AlignLeft);
  double rate_max = 1, savings_max = 1;
  std::map<float, QLineSeries*> by_blur;
  std::map<bool, QLineSeries*> by_block;
  double unlimited[2] = {0, 0};
  for (const sim::SweepRow& r : sweep_) {
    if (r.axis == sim::SweepAxis::Spp) {
      QLineSeries*& s = by_blur[r.options.blur];
      if (!s) {
        s = new QLineSeries;
        s->setName(tr("blur ×%1").arg(r.options.blur));
        s->setPointsVisible(true);
      }
      s->append(r.options.spp, r.stats.shading_rate());
      rate_max = std::max(rate_max, r.stats.shading_rate());
    } else if (r.axis == sim::SweepAxis::Cache) {
      if (r.options.cache == 0) {
        unlimited[r.options.quads ? 0 : 1] = r.stats.savings();
        continue;
      }
      QLineSeries*& s = by_block[r.options.quads];
      if (!s) {
        s = new QLineSeries;
        s->setName(r.options.quads ? tr("quads") : tr("single samples"));
        s->setPointsVisible(true);
      }
      s->append(std::log2(static_cast<double>(r.options.cache)), r.stats.savings());
      savings_max = std::max(savings_max, r.stats.savings());
    }
  }
  // Each blur scale named with its blur area as the paper defines it (its section 5: the pixels a
  // shading sample's point reaches, circle of confusion and trail), measured at 27 spp.
  for (const sim::SweepRow& r : sweep_)
    if (r.axis == sim::SweepAxis::Spp && r.options.spp == 27 && by_blur.count(r.options.blur))
      by_blur[r.options.blur]->setName(tr("blur ×%1 · %2 px").arg(r.options.blur).arg(r.stats.blur_area, 0, 'f', r.stats.blur_area < 10 ? 1 : 0));
  for (auto& [blur, s] : by_blur) {
    rate->addSeries(s);
    s->attachAxis(rx);
    s->attachAxis(ry);
  }
  auto hline = [&](const QString& name, double y, Qt::PenStyle style) {
    auto* l = new QLineSeries;
    l->setName(name);
    l->append(5, y);
    l->append(14, y);
    QPen pen(QColor(128, 128, 128), 1.5, style);
    l->setPen(pen);
    savings->addSeries(l);
    l->attachAxis(sx);
    l->attachAxis(sy);
  };
  for (auto& [quads, s] : by_block) {
    savings->addSeries(s);
    s->attachAxis(sx);
    s->attachAxis(sy);
  }
  if (!sweep_.empty()) {
    hline(tr("supersampling"), 1, Qt::DashLine);
    for (int b = 0; b < 2; ++b)
      if (unlimited[b] > 0) {
        hline(b == 0 ? tr("quads, unlimited") : tr("samples, unlimited"), unlimited[b], Qt::DotLine);
        savings_max = std::max(savings_max, unlimited[b]);
      }
  }
  ry->setRange(0, rate_max * 1.1);
  sx->setRange(5, 14);
  sy->setRange(0, savings_max * 1.1);
  for (QChart* c : {rate, savings}) {
    c->legend()->setAlignment(Qt::AlignRight);
    c->setMargins(QMargins(4, 4, 4, 4));
  }
  if (sweep_.empty()) {
    rate->setTitle(tr("Run the sweeps to chart the shading rate by samples per pixel"));
    savings->setTitle(tr("… and the savings by cache size"));
  }
  // (setChart hands the new chart to the view and leaves the old one to us.)
  QChart* old_rate = rate_chart_->chart();
  QChart* old_savings = savings_chart_->chart();
  rate_chart_->setChart(rate);
  savings_chart_->setChart(savings);
  delete old_rate;
  delete old_savings;
}

void SamplingPanel::save_csv() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save the sweeps"), "sweep.csv", tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QSaveFile file(path);
  const std::string csv = sim::sweep_csv(sweep_, false);
  if (!file.open(QIODevice::WriteOnly) || file.write(csv.data(), static_cast<qint64>(csv.size())) != static_cast<qint64>(csv.size()) ||
      !file.commit())
    QMessageBox::warning(this, tr("Save the sweeps"), tr("Cannot write %1: %2").arg(path, file.errorString()));
}

}  // namespace passlab::views
