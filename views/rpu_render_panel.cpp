// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU render panel.
#include "views/rpu_render_panel.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "core/sim/heat.h"
#include "views/work_pool.h"

namespace passlab::views {

namespace {

constexpr int kBins = 12;
const char* kModeNames[RpuFrame::kModes] = {"Image",           "Instructions",    "Cycles",        "Stalls", "Divergence (splits)",
                                            "Chunk occupancy", "Machine cycles", "Waiting for the trace unit"};
const char* kModeUnits[RpuFrame::kModes] = {"",
                                            "instructions per pixel",
                                            "cycles per chunk (alone)",
                                            "stall cycles per chunk (alone)",
                                            "splits per chunk",
                                            "active lanes per issue",
                                            "cycles per chunk on the machine model",
                                            "share of chunk time waiting for rays"};

// The heat maps' ramp (sim/heat.h).
QRgb heat(double t) {
  const auto c = sim::heat_colour(t);
  return qRgb(static_cast<int>(c[0] * 255 + 0.5f), static_cast<int>(c[1] * 255 + 0.5f), static_cast<int>(c[2] * 255 + 0.5f));
}

QString mode_name(int m) { return QCoreApplication::translate("RpuRenderPanel", kModeNames[m]); }

}  // namespace

std::shared_ptr<RpuFrame> make_rpu_frame(std::shared_ptr<const session::RpuBuild> build, rpu::RenderResult result, double ms) {
  auto f = std::make_shared<RpuFrame>();
  f->build = std::move(build);
  f->result = std::move(result);
  f->ms = ms;
  const sim::Image& im = f->result.image;
  const int w = im.width, h = im.height;
  if (w <= 0 || h <= 0) return f;
  QImage colour(w, h, QImage::Format_RGB32);
  for (int y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(colour.scanLine(y));
    for (int x = 0; x < w; ++x) {
      const float* p = im.at(x, y);
      auto c = [](float v) { return static_cast<int>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255)); };
      line[x] = qRgb(c(p[0]), c(p[1]), c(p[2]));
    }
  }
  f->images[RpuFrame::Image] = colour;
  const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  for (int m = RpuFrame::Instructions; m < RpuFrame::kModes; ++m) {
    std::vector<double> v(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      switch (m) {
        case RpuFrame::Instructions: v[i] = i < f->result.pixel_instructions.size() ? f->result.pixel_instructions[i] : 0; break;
        case RpuFrame::Cycles: v[i] = i < f->result.pixel_cycles.size() ? f->result.pixel_cycles[i] : 0; break;
        case RpuFrame::Stalls: v[i] = i < f->result.pixel_stalls.size() ? f->result.pixel_stalls[i] : 0; break;
        case RpuFrame::Divergence: v[i] = i < f->result.pixel_splits.size() ? f->result.pixel_splits[i] : 0; break;
        case RpuFrame::MachineCycles: v[i] = i < f->result.pixel_model_cycles.size() ? f->result.pixel_model_cycles[i] : 0; break;
        case RpuFrame::TraceShare: v[i] = i < f->result.pixel_trace_share.size() ? f->result.pixel_trace_share[i] : 0; break;
        default: v[i] = i < f->result.pixel_occupancy.size() ? f->result.pixel_occupancy[i] : 0; break;
      }
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const bool share = m == RpuFrame::Occupancy || m == RpuFrame::TraceShare;  // fractions: always 0 to 1
    const double low = share ? 0.0 : *lo, high = share ? 1.0 : std::max(*hi, *lo + 1);
    f->low[static_cast<std::size_t>(m)] = low;
    f->high[static_cast<std::size_t>(m)] = high;
    QImage img(w, h, QImage::Format_RGB32);
    std::vector<int> bins(kBins, 0);
    for (int y = 0; y < h; ++y) {
      auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
      for (int x = 0; x < w; ++x) {
        const double t = (v[static_cast<std::size_t>(y) * w + x] - low) / (high - low);
        line[x] = heat(t);
        ++bins[static_cast<std::size_t>(std::clamp(static_cast<int>(t * kBins), 0, kBins - 1))];
      }
    }
    f->images[static_cast<std::size_t>(m)] = img;
    f->histogram[static_cast<std::size_t>(m)] = std::move(bins);
  }
  return f;
}

RpuImageView::RpuImageView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 160);
  setCursor(Qt::CrossCursor);
}

void RpuImageView::set_image(const QImage& image) {
  image_ = image;
  update();
}

QRectF RpuImageView::target() const {
  if (image_.isNull()) return {};
  const double s = std::min(width() / static_cast<double>(image_.width()), height() / static_cast<double>(image_.height()));
  const double w = image_.width() * s, h = image_.height() * s;
  return {(width() - w) / 2, (height() - h) / 2, w, h};
}

QPoint RpuImageView::widget_point(QPoint pixel) const {
  const QRectF t = target();
  if (t.isEmpty()) return {};
  return QPointF(t.left() + (pixel.x() + 0.5) * t.width() / image_.width(), t.top() + (pixel.y() + 0.5) * t.height() / image_.height()).toPoint();
}

void RpuImageView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window).darker(115));
  if (image_.isNull()) return;
  const QRectF t = target();
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(t, image_);
  if (mark_) {
    // The chunk (2x2 pixels) and the pixel picked.
    const double sx = t.width() / image_.width(), sy = t.height() / image_.height();
    const QRectF chunk(t.left() + (mark_->x() & ~1) * sx, t.top() + (mark_->y() & ~1) * sy, 2 * sx, 2 * sy);
    const QRectF px(t.left() + mark_->x() * sx, t.top() + mark_->y() * sy, sx, sy);
    p.setPen(QPen(Qt::white, 1));
    p.drawRect(chunk.adjusted(-3, -3, 3, 3));
    p.setPen(QPen(QColor(230, 30, 60), 2));
    p.drawRect(chunk.adjusted(-2, -2, 2, 2));
    p.drawRect(px);
  }
}

void RpuImageView::mousePressEvent(QMouseEvent* e) {
  const QRectF t = target();
  const QPointF q = e->position();
  if (t.isEmpty() || !t.contains(q)) return;
  const int x = std::clamp(static_cast<int>((q.x() - t.left()) / t.width() * image_.width()), 0, image_.width() - 1);
  const int y = std::clamp(static_cast<int>((q.y() - t.top()) / t.height() * image_.height()), 0, image_.height() - 1);
  emit pixel_clicked(x, y);
}

RpuRenderPanel::RpuRenderPanel(RpuSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  image_ = new RpuImageView(this);
  image_->setToolTip(tr("The frame the RPU renders. Click a pixel to debug the thread that shaded it."));
  mode_ = new QComboBox(this);
  for (int m = 0; m < RpuFrame::kModes; ++m) mode_->addItem(mode_name(m), m);
  mode_->setToolTip(tr("The image, or what each pixel cost as a heat map"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  cancel_->setToolTip(tr("Stop the render in flight"));
  legend_ = new QLabel(this);
  legend_->setMinimumHeight(34);
  totals_ = new QLabel(this);
  totals_->setWordWrap(true);
  totals_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* chart = new QChart;
  chart->legend()->hide();
  chart->setMargins(QMargins(2, 2, 2, 2));
  series_ = new QBarSeries;
  chart->addSeries(series_);
  // The axes and series live as long as the charts, updated in place (axes deleted and made
  // anew left their old labels drawn under the new ones).
  QFont small = chart->font();
  small.setPointSizeF(7);
  bins_axis_ = new QBarCategoryAxis;
  bins_axis_->setLabelsFont(small);
  count_axis_ = new QValueAxis;
  count_axis_->setLabelFormat("%d");
  count_axis_->setLabelsFont(small);
  chart->addAxis(bins_axis_, Qt::AlignBottom);
  chart->addAxis(count_axis_, Qt::AlignLeft);
  series_->attachAxis(bins_axis_);
  series_->attachAxis(count_axis_);
  chart_ = new QChartView(chart, this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(150);
  auto* sweep = new QChart;
  sweep->setMargins(QMargins(2, 2, 2, 2));
  sweep->legend()->setAlignment(Qt::AlignBottom);
  sweep->setTitle(tr("Utilisation against chunks in flight"));
  in_flight_axis_ = new QLogValueAxis;
  in_flight_axis_->setBase(2);
  in_flight_axis_->setLabelFormat("%d");
  in_flight_axis_->setRange(1, 32);
  in_flight_axis_->setTitleText(tr("chunks in flight per core"));
  in_flight_axis_->setLabelsFont(small);
  auto* busy = new QValueAxis;
  busy->setRange(0, 1);
  busy->setTickCount(6);
  busy->setLabelFormat("%.1f");
  busy->setTitleText(tr("share busy"));
  busy->setLabelsFont(small);
  sweep->addAxis(in_flight_axis_, Qt::AlignBottom);
  sweep->addAxis(busy, Qt::AlignLeft);
  const std::pair<QString, QColor> lines[] = {
      {tr("issue"), QColor(204, 71, 120)}, {tr("lanes"), QColor(120, 120, 200)}, {tr("trace"), QColor(40, 150, 110)}};
  for (std::size_t i = 0; i < sweep_lines_.size(); ++i) {
    auto* line = new QLineSeries;
    line->setName(lines[i].first);
    line->setColor(lines[i].second);
    line->setPointsVisible(true);
    sweep->addSeries(line);
    line->attachAxis(in_flight_axis_);
    line->attachAxis(busy);
    sweep_lines_[i] = line;
  }
  sweep_chart_ = new QChartView(sweep, this);
  sweep_chart_->setRenderHint(QPainter::Antialiasing);
  sweep_chart_->setMinimumHeight(170);
  sweep_chart_->setToolTip(tr("The same frame timed on the machine model with 1 to 32 chunks in flight per core: the share of cycles "
                              "the issue slot issues (issue), of lanes doing work (lanes) and of trace pipelines traversing (trace). Past the knee, more chunks buy nothing: the trace unit or the chunks' own "
                              "dependences bound the frame."));
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Show"), this));
  controls->addWidget(mode_);
  controls->addStretch(1);
  controls->addWidget(cancel_);
  auto* side = new QWidget(this);
  auto* sl = new QVBoxLayout(side);
  sl->setContentsMargins(0, 0, 0, 0);
  sl->addWidget(legend_);
  sl->addWidget(totals_);
  sl->addWidget(chart_, 1);
  sl->addWidget(sweep_chart_, 1);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(image_);
  split->addWidget(side);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addWidget(split, 1);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] { show_frame(); });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    if (cancel_flag_) cancel_flag_->store(true);
  });
  connect(image_, &RpuImageView::pixel_clicked, this, [this](int x, int y) {
    session_->pick_pixel(x, y);
    image_->set_mark(QPoint(x, y));
  });
  connect(session_, &RpuSession::build_changed, this, [this] {
    if (on_screen_) start_render();
  });
  connect(session_, &RpuSession::debugger_changed, this, [this] { image_->set_mark(session_->pixel()); });
  show_frame();
}

RpuRenderPanel::~RpuRenderPanel() {
  if (cancel_flag_) cancel_flag_->store(true);
}

void RpuRenderPanel::set_on_screen(bool on) {
  on_screen_ = on;
  if (on && session_->build_ptr() != rendered_) start_render();
}

int RpuRenderPanel::mode() const { return mode_->currentData().toInt(); }
void RpuRenderPanel::set_mode(int m) { mode_->setCurrentIndex(std::clamp(m, 0, RpuFrame::kModes - 1)); }

void RpuRenderPanel::start_render() {
  std::shared_ptr<const session::RpuBuild> build = session_->build_ptr();
  rendered_ = build;
  if (cancel_flag_) cancel_flag_->store(true);
  if (!build || !build->ok()) {
    frame_.reset();
    show_frame();
    return;
  }
  auto flag = std::make_shared<std::atomic<bool>>(false);
  cancel_flag_ = flag;
  ++running_;
  cancel_->setEnabled(true);
  totals_->setText(tr("Rendering %1×%2 on the RPU…").arg(build->width).arg(build->height));
  auto* watcher = new QFutureWatcher<std::shared_ptr<RpuFrame>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<RpuFrame>>::finished, this, [this, watcher, flag] {
    std::shared_ptr<RpuFrame> f = watcher->result();
    watcher->deleteLater();
    --running_;
    if (flag == cancel_flag_) cancel_->setEnabled(false);
    if (f->result.cancelled) {
      if (flag == cancel_flag_) totals_->setText(tr("Render cancelled."));
      return;
    }
    if (f->build != session_->build_ptr()) return;  // a newer program is on its way
    frame_ = std::move(f);
    show_frame();
    emit frame_ready();
    start_model(frame_->build, flag);
  });
  watcher->setFuture(QtConcurrent::run(&work_pool(), [build, flag] {
    const auto t0 = std::chrono::steady_clock::now();
    rpu::RenderResult r = session::render_rpu(*build, flag.get());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return make_rpu_frame(build, std::move(r), ms);
  }));
}

void RpuRenderPanel::start_model(std::shared_ptr<const session::RpuBuild> build, std::shared_ptr<std::atomic<bool>> flag) {
  ++modelling_;
  cancel_->setEnabled(true);
  show_frame();
  auto* watcher = new QFutureWatcher<std::shared_ptr<RpuFrame>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<RpuFrame>>::finished, this, [this, watcher, flag] {
    std::shared_ptr<RpuFrame> f = watcher->result();
    watcher->deleteLater();
    --modelling_;
    if (flag == cancel_flag_) cancel_->setEnabled(false);
    if (f->result.cancelled || flag != cancel_flag_ || f->build != session_->build_ptr()) {
      show_frame();
      return;
    }
    f->ms = frame_ ? frame_->ms : f->ms;  // the frame's own time, not the model's
    frame_ = std::move(f);
    show_frame();
    emit frame_ready();
  });
  watcher->setFuture(QtConcurrent::run(&work_pool(), [build, flag] {
    rpu::RenderResult r = session::render_rpu(*build, flag.get(), 0, true);
    return make_rpu_frame(build, std::move(r), 0);
  }));
}

QString RpuRenderPanel::totals_text() const { return totals_->text(); }

// Utilisation against chunks in flight: the issue slot's, the lanes' and the trace unit's.
void RpuRenderPanel::show_sweep() {
  const std::vector<rpu::ModelStats>* sweep = frame_ ? &frame_->result.sweep : nullptr;
  sweep_chart_->setVisible(sweep && !sweep->empty());
  if (!sweep || sweep->empty()) return;
  double (rpu::ModelStats::*const value[])() const = {&rpu::ModelStats::utilisation, &rpu::ModelStats::lane_utilisation,
                                                      &rpu::ModelStats::trace_occupancy};
  for (std::size_t i = 0; i < sweep_lines_.size(); ++i) {
    QList<QPointF> points;
    for (const rpu::ModelStats& m : *sweep) points.append(QPointF(m.chunks_in_flight, (m.*value[i])()));
    sweep_lines_[i]->replace(points);
  }
  in_flight_axis_->setRange(1, std::max(2, sweep->back().chunks_in_flight));
}

void RpuRenderPanel::show_frame() {
  const int m = mode();
  if (!frame_) {
    image_->set_image({});
    legend_->clear();
    series_->clear();
    show_sweep();
    if (!running_) totals_->setText(tr("No frame: the RPU program did not compile."));
    return;
  }
  const RpuFrame& f = *frame_;
  image_->set_image(f.images[static_cast<std::size_t>(m)]);
  image_->set_mark(session_->pixel());
  const rpu::VmStats& s = f.result.stats;
  const double pixels = std::max(1.0, static_cast<double>(f.result.image.width) * f.result.image.height);
  totals_->setText(tr("<b>%1×%2</b> in %3 ms · %4 instructions (%5 per pixel) · %6 cycles · %7 stalls · %8 issues, %9% with idle lanes%10")
                       .arg(f.result.image.width).arg(f.result.image.height).arg(f.ms, 0, 'f', 0)
                       .arg(s.instructions).arg(s.instructions / pixels, 0, 'f', 1).arg(s.cycles).arg(s.stalls).arg(s.issues)
                       .arg(s.issues ? 100.0 * s.partial_issues / s.issues : 0.0, 0, 'f', 1)
                       .arg(f.result.fault_count ? tr(" · <span style='color:#c03'>%1 faulted pixel(s)</span>").arg(f.result.fault_count) : QString()));
  if (const std::optional<rpu::ModelStats>& mm = f.result.model) {
    const double idle = static_cast<double>(std::max<std::uint64_t>(1, mm->core_cycles()));
    auto pct = [&](rpu::Idle c) { return 100.0 * static_cast<double>(mm->idle[static_cast<int>(c)]) / idle; };
    totals_->setText(totals_->text() +
                     tr("<br><b>Machine model</b> (%1 core(s), %2 chunks in flight): %3 cycles, %4× fewer than one chunk at a time · "
                        "issue slot busy %5% · trace unit busy %6%, a ray waits %7 cycles in its queue · idle: trace %8%, queue full %9%, "
                        "arithmetic %10%, memory %11%")
                         .arg(mm->cores).arg(mm->chunks_in_flight).arg(mm->cycles)
                         .arg(mm->cycles ? static_cast<double>(mm->vm_cycles) / static_cast<double>(mm->cycles) : 0.0, 0, 'f', 2)
                         .arg(100 * mm->utilisation(), 0, 'f', 1).arg(100 * mm->trace_occupancy(), 0, 'f', 1)
                         .arg(mm->mean_queue_wait(), 0, 'f', 1).arg(pct(rpu::Idle::Trace), 0, 'f', 1).arg(pct(rpu::Idle::TraceQueue), 0, 'f', 1)
                         .arg(pct(rpu::Idle::Arithmetic), 0, 'f', 1).arg(pct(rpu::Idle::Memory), 0, 'f', 1));
  }
  if (!f.result.model && modelling_)
    totals_->setText(totals_->text() + tr("<br><i>Timing the frame on the machine model with 1 to 32 chunks in flight…</i>"));
  show_sweep();
  series_->clear();
  auto* chart = chart_->chart();
  chart_->setVisible(m != RpuFrame::Image);  // the image has no histogram
  if (m == RpuFrame::Image) {
    legend_->setText(tr("Click a pixel to debug its thread; pick a statistic above to see what each pixel cost."));
    chart->setTitle(QString());
    return;
  }
  // The legend: the ramp from low to high.
  QImage ramp(240, 12, QImage::Format_RGB32);
  for (int x = 0; x < ramp.width(); ++x)
    for (int y = 0; y < ramp.height(); ++y) ramp.setPixel(x, y, heat(x / (ramp.width() - 1.0)));
  QPixmap pm(ramp.width() + 2, 34);
  pm.fill(Qt::transparent);
  {
    QPainter p(&pm);
    p.drawImage(1, 0, ramp);
    p.setPen(palette().color(QPalette::WindowText));
    const double lo = f.low[static_cast<std::size_t>(m)], hi = f.high[static_cast<std::size_t>(m)];
    p.drawText(QRect(0, 14, 120, 18), Qt::AlignLeft | Qt::AlignVCenter, QString::number(lo, 'g', 4));
    p.drawText(QRect(pm.width() - 120, 14, 120, 18), Qt::AlignRight | Qt::AlignVCenter, QString::number(hi, 'g', 4));
  }
  legend_->setPixmap(pm);
  legend_->setToolTip(tr("%1: from %2 to %3").arg(kModeUnits[m]).arg(f.low[static_cast<std::size_t>(m)]).arg(f.high[static_cast<std::size_t>(m)]));
  auto* set = new QBarSet(mode_name(m));
  QStringList cats;
  const auto& h = f.histogram[static_cast<std::size_t>(m)];
  const double lo = f.low[static_cast<std::size_t>(m)], hi = f.high[static_cast<std::size_t>(m)];
  int top = 1;
  for (int i = 0; i < kBins; ++i) {
    *set << h[static_cast<std::size_t>(i)];
    top = std::max(top, h[static_cast<std::size_t>(i)]);
    cats << QString::number(lo + (hi - lo) * i / kBins, 'g', 3);
  }
  set->setColor(QColor(204, 71, 120));
  series_->append(set);
  chart->setTitle(tr("Pixels by %1").arg(kModeUnits[m]));
  bins_axis_->clear();
  bins_axis_->append(cats);
  count_axis_->setRange(0, top);
}

}  // namespace passlab::views
