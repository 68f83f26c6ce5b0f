// SPDX-License-Identifier: GPL-3.0-or-later
// The preview panel. Everything that costs time runs on the panel's one worker thread: loading the
// scene, both renders, the pixels where they differ, the 8-bit pictures of every pass and the
// probed pixel's rows. The panel only shows what the worker hands back, and each new request
// cancels the one before, so edits never queue stale renders behind each other.
#include "views/preview_panel.h"
#include "views/pixel_view.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>


#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPromise>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "session/background.h"
#include "session/render_job.h"
#include "core/sim/render.h"
#include "views/pass_colors.h"

namespace passlab::views {

// ---------------------------------------------------------------------------------------------
// What the worker computes. Nothing here touches a widget.

// What a job hands back: a render (quick, then full size) or a probe.
struct PreviewFrame {
  // One storage's render: its picture, its numbers and each pass's values.
  struct Picture {
    QImage image;  // null: no picture (`problem` says why)
    sim::RenderStats stats;
    QString problem;  // the render's diagnostics
    // Per pass, the value of the last fragment drawn at each pixel: clamped [0], normalized [1].
    std::vector<QImage> pass_images[2];
    std::vector<std::pair<float, float>> ranges;  // each pass's smallest and largest finite value
  };

  // One row of the probe table: a fragment of the probed pixel in one pass, and what became
  // of its value.
  struct ProbeRow {
    int storage = 0;  // 0: render to texture, 1: F-buffer
    sim::ProbedFragment fragment;
    QString fate;
    bool differs = false;  // render to texture computed another value than the F-buffer did
  };

  enum class Kind { Render, Probe } kind = Kind::Render;
  quint64 id = 0;
  quint64 render_id = 0;  // a probe: the render whose settings it used
  bool full = false;      // the full size, not the quick look
  QString scene_key;
  std::shared_ptr<const sim::Scene> scene;
  QString scene_problem;
  QSize full_size;
  Picture pictures[2];  // render to texture, F-buffer
  QImage difference;
  long differing = 0;
  float largest_difference = 0;
  QPoint probe{-1, -1};
  std::vector<ProbeRow> rows;
  int fragments = 0;  // at the probed pixel
};

// Everything a job needs, copied from the panel so the worker never reads a widget.
struct RenderInput {
  session::SnapshotPtr snapshot;
  std::shared_ptr<const session::AlgorithmRun> run;
  std::shared_ptr<const sim::Scene> scene;  // null: load it
  QString scene_key;
  std::string scene_path;  // "": the shader's own scene
  int size = 256;
  long fbuffer_slots = 0;
  sim::Overflow overflow = sim::Overflow::Window;
  int multisample = 1;
  QPoint probe{-1, -1};
  quint64 id = 0;
  std::shared_ptr<std::atomic<bool>> cancel;
};

namespace {

using Picture = PreviewFrame::Picture;
using ProbeRow = PreviewFrame::ProbeRow;

const char* const kStorageNames[2] = {"Render to texture", "F-buffer"};

// A channel as a frame buffer stores it: clamped to [0, 1] and rounded; NaN is 0.
// The F-buffer picture dimmed to grey, with every pixel whose value is not bit for bit the same in
// both renders in magenta (brighter for larger differences).
QImage difference_image(const sim::Image& rtt, const sim::Image& fbuf, long* count, float* largest) {
  QImage out(fbuf.width, fbuf.height, QImage::Format_RGBX8888);
  *count = 0;
  *largest = 0;
  for (int y = 0; y < fbuf.height; ++y) {
    uchar* line = out.scanLine(y);
    for (int x = 0; x < fbuf.width; ++x) {
      const float *a = rtt.at(x, y), *b = fbuf.at(x, y);
      uchar* px = line + x * 4;
      px[3] = 255;
      if (std::memcmp(a, b, 4 * sizeof(float)) == 0) {
        const uchar grey = static_cast<uchar>(24 + to_byte(0.2126f * b[0] + 0.7152f * b[1] + 0.0722f * b[2]) * 0.3);
        px[0] = px[1] = px[2] = grey;
        continue;
      }
      ++*count;
      float d = 0;
      for (int c = 0; c < 4; ++c) d = std::max(d, std::fabs(a[c] - b[c]));
      if (std::isfinite(d)) *largest = std::max(*largest, d);
      const float level = 0.55f + 0.45f * std::min(1.0f, std::isfinite(d) ? d * 4 : 1.0f);
      px[0] = to_byte(level);
      px[1] = 0;
      px[2] = to_byte(level * 0.8f);
    }
  }
  return out;
}

// The probe table's rows: every fragment of the pixel in every pass, for both storages, with what
// became of its value. A texture keeps one value per pixel between passes: of the fragments of a
// batch that pass the depth test in a pass, the last one drawn overwrites the others, and in the
// next pass they all read its value. An F-buffer gives each fragment its own slot.
std::vector<ProbeRow> probe_rows(const std::vector<sim::ProbedFragment> (&probed)[2], const int (&passes)[2],
                                 int* fragments) {
  std::vector<ProbeRow> rows;
  for (int s = 0; s < 2; ++s) {
    const auto& list = probed[s];
    // A batch's fragments come pass by pass; the pass number falls where the next batch starts.
    std::vector<int> batch(list.size(), 0);
    for (std::size_t i = 1; i < list.size(); ++i) batch[i] = batch[i - 1] + (list[i].pass < list[i - 1].pass);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const sim::ProbedFragment& f = list[i];
      ProbeRow row;
      row.storage = s;
      row.fragment = f;
      if (f.pass == passes[s] - 1) {
        row.fate = f.visible ? QObject::tr("visible") : QObject::tr("hidden");
      } else if (s == 1) {
        row.fate = QObject::tr("kept (own slot)");
      } else if (!f.visible) {
        row.fate = QObject::tr("not stored (depth)");
      } else {
        bool overwritten = false;
        for (std::size_t j = i + 1; j < list.size() && batch[j] == batch[i] && !overwritten; ++j)
          overwritten = list[j].pass == f.pass && list[j].visible;
        row.fate = overwritten ? QObject::tr("overwritten") : QObject::tr("kept");
      }
      rows.push_back(row);
    }
  }
  // The same fragment (pass, rank and depth) in both renders: did render to texture get its value?
  std::vector<std::pair<int, float>> seen;
  for (const ProbeRow& f : rows) {
    if (f.storage != 1) continue;
    if (std::find(seen.begin(), seen.end(), std::make_pair(f.fragment.layer, f.fragment.depth)) == seen.end())
      seen.emplace_back(f.fragment.layer, f.fragment.depth);
    for (ProbeRow& r : rows)
      if (r.storage == 0 && r.fragment.pass == f.fragment.pass && r.fragment.layer == f.fragment.layer &&
          r.fragment.depth == f.fragment.depth && r.fragment.value != f.fragment.value)
        r.differs = true;
  }
  *fragments = static_cast<int>(seen.size());
  return rows;
}

QSize image_size(const sim::Scene& scene, int side) {
  const double w = std::max(1, scene.width), h = std::max(1, scene.height);
  if (w >= h) return {side, std::max(1, static_cast<int>(std::lround(side * h / w)))};
  return {std::max(1, static_cast<int>(std::lround(side * w / h))), side};
}

std::shared_ptr<const sim::Scene> load_scene(const RenderInput& in, QString* problem) {
  if (in.scene_path.empty()) return std::make_shared<const sim::Scene>(session::default_scene_for(in.snapshot->request.path));
  lang::Diagnostics problems;
  auto scene = sim::load_scene(in.scene_path, &problems);
  if (!scene) {
    *problem = QString::fromStdString(problems.text());
    if (problem->isEmpty()) *problem = QObject::tr("%1 cannot be read").arg(QString::fromStdString(in.scene_path));
    return nullptr;
  }
  return std::make_shared<const sim::Scene>(std::move(*scene));
}

// Both pictures of every pass: the normalize toggle then costs nothing.
void make_pass_images(Picture& p, const std::vector<sim::Image>& passes) {
  for (const sim::Image& image : passes) {
    p.ranges.emplace_back();
    p.pass_images[0].push_back(to_qimage(image, false, &p.ranges.back()));
    p.pass_images[1].push_back(to_qimage(image, true, nullptr));
  }
}

// Both storages rendered at `size` with the same partition: the pictures and each pass's values
// (`pictures`), and the rows of the probed pixel (`probe` at full size, (-1, -1): none).
// `textures`: the scene's, loaded once for all of a job's renders (null: each render loads them and
// reports their problems).
PreviewFrame render_both(const RenderInput& in, const sim::Scene& scene, const sim::TextureSet* textures, QSize size,
                         bool pictures, QPoint probe) {
  PreviewFrame f;
  sim::Image finals[2];
  std::vector<sim::ProbedFragment> probed[2];
  int passes[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    sim::RenderCapture capture;
    capture.pass_images = pictures;
    capture.probe_x = probe.x();
    capture.probe_y = probe.y();
    sim::RenderOptions o;
    o.width = size.width();
    o.height = size.height();
    o.storage = s == 0 ? sim::Storage::RenderToTexture : sim::Storage::FBuffer;
    o.fbuffer_slots = in.fbuffer_slots;
    o.overflow = in.overflow;
    o.multisample = in.multisample;
    o.cancel = in.cancel.get();
    o.capture = &capture;
    session::RenderOutcome out = session::render_snapshot(scene, *in.snapshot, in.run.get(), o, textures);
    if (in.cancel->load()) return f;
    Picture& p = f.pictures[s];
    p.stats = out.stats;
    p.problem = QString::fromStdString(out.diagnostics).trimmed();
    passes[s] = out.stats.passes;
    if (out.image) {
      finals[s] = std::move(*out.image);
      if (pictures) p.image = to_qimage(finals[s], false, nullptr);
    }
    if (pictures) make_pass_images(p, capture.passes);
    probed[s] = std::move(capture.probed);
  }
  if (pictures && !finals[0].rgba.empty() && finals[0].rgba.size() == finals[1].rgba.size())
    f.difference = difference_image(finals[0], finals[1], &f.differing, &f.largest_difference);
  if (probe.x() >= 0) {
    f.probe = probe;
    f.rows = probe_rows(probed, passes, &f.fragments);
  }
  return f;
}

// A quick look at a quarter of the size, then the full size, each handed back when done.
void render_job(QPromise<PreviewFrame>& promise, const RenderInput& in) {
  session::run_in_background();
  if (in.cancel->load()) return;
  QString problem;
  std::shared_ptr<const sim::Scene> scene = in.scene ? in.scene : load_scene(in, &problem);
  if (in.cancel->load()) return;
  if (!scene) {
    PreviewFrame f;
    f.id = in.id;
    f.full = true;
    f.scene_key = in.scene_key;
    f.scene_problem = problem.trimmed();
    promise.addResult(std::move(f));
    return;
  }
  sim::TextureSet loaded;
  const bool textures_ok = loaded.load(scene->textures, nullptr);
  const QSize full = image_size(*scene, in.size);
  std::vector<QSize> sizes;
  if (in.size >= 128) sizes.push_back(QSize(full.width() / 4, full.height() / 4).expandedTo({1, 1}));
  sizes.push_back(full);
  for (const QSize& size : sizes) {
    const bool is_full = size == full;
    PreviewFrame f = render_both(in, *scene, textures_ok ? &loaded : nullptr, size, true, is_full ? in.probe : QPoint(-1, -1));
    if (in.cancel->load()) return;
    f.kind = PreviewFrame::Kind::Render;
    f.id = in.id;
    f.full = is_full;
    f.scene = scene;
    f.scene_key = in.scene_key;
    f.full_size = full;
    promise.addResult(std::move(f));
  }
}

// The probed pixel's fragments in both storages, at full size, without pictures.
void probe_job(QPromise<PreviewFrame>& promise, const RenderInput& in, quint64 render_id) {
  session::run_in_background();
  QString problem;
  std::shared_ptr<const sim::Scene> scene = in.scene ? in.scene : load_scene(in, &problem);
  if (!scene || in.cancel->load()) return;
  sim::TextureSet loaded;
  const bool textures_ok = loaded.load(scene->textures, nullptr);
  PreviewFrame f = render_both(in, *scene, textures_ok ? &loaded : nullptr, image_size(*scene, in.size), false, in.probe);
  if (in.cancel->load()) return;
  f.kind = PreviewFrame::Kind::Probe;
  f.id = in.id;
  f.render_id = render_id;
  promise.addResult(std::move(f));
}

// ---------------------------------------------------------------------------------------------

}  // namespace

// An image drawn as large as fits, its aspect kept, each pixel a crisp block (nearest neighbour);
// a click says where, in fractions of the image's width and height.
PreviewPanel::PreviewPanel(QWidget* parent) : QWidget(parent) {
  pool_.setMaxThreadCount(1);
  pool_.setExpiryTimeout(-1);  // the worker stays: a thread per render would cost its start-up each time
  create_widgets();
  connect_signals();
  lay_out();
}

// The controls, the three pictures, the pass view and the probe table.
void PreviewPanel::create_widgets() {
  scene_box_ = new QComboBox(this);
  scene_box_->setObjectName("preview-scene");
  scene_box_->setToolTip(tr("The scene the shader is shown in: every object uses the shader being edited"));
  scene_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  scene_box_->setMinimumContentsLength(10);
  set_scene_folder(QString());
  size_box_ = new QComboBox(this);
  for (int side : {64, 128, 256, 512}) size_box_->addItem(QString("%1×%1").arg(side), side);
  size_box_->setCurrentIndex(2);
  size_box_->setToolTip(tr("Image size (the longer side); a quick look at a quarter of it comes first"));
  msaa_box_ = new QComboBox(this);
  msaa_box_->setObjectName("preview-msaa");
  for (int n : {1, 2, 4, 8}) msaa_box_->addItem(n == 1 ? tr("No MSAA") : tr("%1× MSAA").arg(n), n);
  msaa_box_->setToolTip(tr("Multisampling: coverage and depth samples per pixel, shaded once per pixel. "
                           "Render-to-texture then also goes wrong where triangles of one object share a pixel"));
  slots_ = new QSpinBox(this);
  slots_->setRange(0, 10'000'000);
  slots_->setSingleStep(1000);
  slots_->setSpecialValueText(tr("unlimited"));
  slots_->setSuffix(tr(" slots"));
  slots_->setToolTip(tr("F-buffer size in fragments (0: as many as a batch needs)"));
  overflow_box_ = new QComboBox(this);
  overflow_box_->addItem(tr("Window (X800)"));
  overflow_box_->addItem(tr("Restart (9800)"));
  overflow_box_->setToolTip(tr("What the F-buffer does when a batch has more fragments than slots: shade it in windows "
                               "(each pass resubmits the geometry), or resubmit the batch in halves"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName("preview-cancel");
  cancel_->setEnabled(false);
  cancel_->setToolTip(tr("Stop the render in flight"));
  state_ = new StatusLabel(this, 1, 30);
  for (auto*& line : status_) line = new StatusLabel(this, 1, 70);

  const char* const titles[4] = {kStorageNames[0], kStorageNames[1], "Differences", "Pass"};
  const char* const names[4] = {"preview-rtt", "preview-fbuffer", "preview-difference", "preview-pass"};
  for (int i = 0; i < 4; ++i) {
    views_[i] = new PixelView(this, i == 2 ? 140 : 220);
    views_[i]->setObjectName(names[i]);
    views_[i]->set_placeholder(tr("Not rendered yet"));
    views_[i]->setToolTip(tr("Click a pixel to probe its fragments through every pass"));
    views_[i]->on_click = [this](QPointF where) { clicked(where); };
    titles_[i] = new StatusLabel(this, 1, i == 2 ? 18 : 28);
    titles_[i]->set_text(tr(titles[i]), static_cast<int>(tr(titles[i]).size()));
  }
  views_[2]->setToolTip(tr("Magenta: pixels where render to texture and the F-buffer differ (brighter: by more). "
                           "Click a pixel to probe it"));

  pass_storage_ = new QComboBox(this);
  pass_storage_->addItem(tr(kStorageNames[0]));
  pass_storage_->addItem(tr(kStorageNames[1]));
  pass_storage_->setCurrentIndex(1);
  pass_storage_->setToolTip(tr("Whose intermediate values to show"));
  pass_ = new QSlider(Qt::Horizontal, this);
  pass_->setRange(0, 0);
  pass_->setPageStep(1);
  pass_->setToolTip(tr("The pass whose values are shown: the value of the last fragment drawn at each pixel"));
  normalize_ = new QCheckBox(tr("Normalize"), this);
  normalize_->setToolTip(tr("Map the pass's smallest..largest value to black..white, so small values can be seen"));

  for (auto*& line : probe_caption_) line = new StatusLabel(this, 1, 50);
  probe_caption_[0]->set_text(tr("Click a pixel in any picture to see its fragments pass by pass."));
  table_ = new QTableWidget(0, 6, this);
  table_->setObjectName("preview-probe");
  table_->setHorizontalHeaderLabels({tr("Storage"), tr("Pass"), tr("Fragment"), tr("Depth"), tr("Value (r g b a)"), tr("Value is")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
}

// Settings re-render (a spin box after a pause); Cancel stops both jobs; the pass view follows its controls.
void PreviewPanel::connect_signals() {
  settings_timer_ = new QTimer(this);
  settings_timer_->setSingleShot(true);
  settings_timer_->setInterval(150);
  connect(settings_timer_, &QTimer::timeout, this, [this] { request_render(); });

  connect(scene_box_, &QComboBox::currentIndexChanged, this, [this] { scene_chosen(); });
  connect(size_box_, &QComboBox::currentIndexChanged, this, [this] {
    clear_probe();  // another size: the old pixel is somewhere else
    request_render();
  });
  connect(slots_, &QSpinBox::valueChanged, settings_timer_, qOverload<>(&QTimer::start));
  connect(overflow_box_, &QComboBox::currentIndexChanged, this, [this] { request_render(); });
  connect(msaa_box_, &QComboBox::currentIndexChanged, this, [this] { request_render(); });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    cancel_job(render_job_);
    cancel_job(probe_job_);
    show_running();
    state_->set_text(tr("Cancelled"));
  });
  connect(pass_storage_, &QComboBox::currentIndexChanged, this, [this] { show_pass(); });
  connect(pass_, &QSlider::valueChanged, this, [this] { show_pass(); });
  connect(normalize_, &QCheckBox::toggled, this, [this] { show_pass(); });
}

void PreviewPanel::lay_out() {
  // Controls, then the two renders and their difference, then a pass's values beside the probe.
  // Two rows of controls, so the panel fits a narrow dock.
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Scene"), this));
  controls->addWidget(scene_box_, 1);
  controls->addWidget(size_box_);
  controls->addWidget(msaa_box_);
  controls->addWidget(cancel_);
  controls->addWidget(state_, 1);
  auto* fbuffer_controls = new QHBoxLayout;
  fbuffer_controls->addWidget(new QLabel(tr("F-buffer"), this));
  fbuffer_controls->addWidget(slots_);
  fbuffer_controls->addWidget(overflow_box_);
  fbuffer_controls->addStretch(1);

  auto* pictures = new QWidget(this);
  auto* grid = new QGridLayout(pictures);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setVerticalSpacing(2);
  for (int i = 0; i < 3; ++i) {
    grid->addWidget(titles_[i], 0, i);
    grid->addWidget(views_[i], 1, i);
    grid->setColumnStretch(i, i == 2 ? 2 : 3);
  }
  grid->setRowStretch(1, 1);

  auto* pass_box = new QWidget(this);
  auto* pass_layout = new QVBoxLayout(pass_box);
  pass_layout->setContentsMargins(0, 0, 0, 0);
  pass_layout->setSpacing(2);
  auto* pass_controls = new QHBoxLayout;
  pass_controls->addWidget(pass_storage_);
  pass_controls->addWidget(pass_, 1);
  pass_controls->addWidget(normalize_);
  pass_layout->addLayout(pass_controls);
  pass_layout->addWidget(titles_[3]);
  pass_layout->addWidget(views_[3], 1);

  auto* probe_box = new QWidget(this);
  auto* probe_layout = new QVBoxLayout(probe_box);
  probe_layout->setContentsMargins(0, 0, 0, 0);
  probe_layout->setSpacing(2);
  probe_layout->addWidget(probe_caption_[0]);
  probe_layout->addWidget(probe_caption_[1]);
  probe_layout->addWidget(table_, 1);

  auto* bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(pass_box);
  bottom->addWidget(probe_box);
  bottom->setStretchFactor(0, 2);
  bottom->setStretchFactor(1, 3);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(pictures);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(controls);
  layout->addLayout(fbuffer_controls);
  layout->addWidget(status_[0]);
  layout->addWidget(status_[1]);
  layout->addWidget(split, 1);
}

PreviewPanel::~PreviewPanel() {
  for (Job* job : {&render_job_, &probe_job_})
    if (job->cancel) job->cancel->store(true);
  pool_.waitForDone();
}

const QImage& PreviewPanel::rtt_image() const { return views_[0]->image(); }
const QImage& PreviewPanel::fbuffer_image() const { return views_[1]->image(); }

void PreviewPanel::set_scene_folder(const QString& folder) {
  scene_folder_ = folder;
  QSignalBlocker block(scene_box_);
  scene_box_->clear();
  scene_box_->addItem(tr("The shader's scene"), QString());
  scene_box_->setItemData(0, tr("samples/scenes/<shader>.json beside the shader's folder, or a lit sphere"), Qt::ToolTipRole);
  if (!folder.isEmpty())
    for (const QFileInfo& fi : QDir(folder).entryInfoList({"*.json"}, QDir::Files, QDir::Name))
      scene_box_->addItem(fi.completeBaseName(), fi.absoluteFilePath());
  scene_box_->addItem(tr("Open scene…"), QString());
  scene_box_->setCurrentIndex(0);
  last_scene_index_ = 0;
}

void PreviewPanel::scene_chosen() {
  const int open = scene_box_->count() - 1;
  if (scene_box_->currentIndex() == open) {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scene"), scene_folder_, tr("Scenes (*.json)"));
    QSignalBlocker block(scene_box_);
    if (path.isEmpty()) {
      scene_box_->setCurrentIndex(last_scene_index_);
      return;
    }
    int i = scene_box_->findData(QFileInfo(path).absoluteFilePath());
    if (i < 0) {
      scene_box_->insertItem(open, QFileInfo(path).completeBaseName(), QFileInfo(path).absoluteFilePath());
      i = open;
    }
    scene_box_->setCurrentIndex(i);
  }
  last_scene_index_ = scene_box_->currentIndex();
  loaded_key_.clear();  // chosen again: read it again (it may have been edited)
  clear_probe();
  request_render();
}

QString PreviewPanel::scene_key() const {
  const QString path = scene_box_->currentData().toString();
  if (!path.isEmpty()) return "file:" + path;
  return "shader:" + QString::fromStdString(snapshot_ ? snapshot_->request.path : std::string());
}

namespace {

// The partition a render needs (the trace and listings can be large and stay with the snapshot).
std::shared_ptr<const session::AlgorithmRun> copy_partition(const session::AlgorithmRun* run) {
  if (!run || !run->partition.valid) return nullptr;
  auto copy = std::make_shared<session::AlgorithmRun>();
  copy->algorithm = run->algorithm;
  copy->partition = run->partition;
  copy->problems = run->problems;
  return copy;
}

bool same_partition(const session::AlgorithmRun* a, const session::AlgorithmRun* b) {
  const bool valid_a = a && a->partition.valid, valid_b = b && b->partition.valid;
  if (valid_a != valid_b) return false;
  return !valid_a || (a->algorithm == b->algorithm && a->partition.marked == b->partition.marked);
}

}  // namespace

void PreviewPanel::clear_probe() {
  probe_pixel_ = {-1, -1};
  table_->setRowCount(0);
  probe_caption_[0]->set_text(tr("Click a pixel in any picture to see its fragments pass by pass."));
  probe_caption_[1]->set_text(QString());
}

void PreviewPanel::show_snapshot(session::SnapshotPtr snapshot, const session::AlgorithmRun* run) {
  if (!snapshot || !snapshot->has_dag()) return;
  if (snapshot == snapshot_ && same_partition(run, run_.get())) return;  // shown again (a theme change)
  if (snapshot_ && snapshot_->request.path != snapshot->request.path) {
    clear_probe();  // another shader, maybe another scene
  }
  snapshot_ = std::move(snapshot);
  run_ = copy_partition(run);
  request_render();
}

void PreviewPanel::set_run(const session::AlgorithmRun* run) {
  if (same_partition(run, run_.get())) return;
  run_ = copy_partition(run);
  request_render();
}

void PreviewPanel::set_on_screen(bool on_screen) {
  on_screen_ = on_screen;
  if (!on_screen_) {
    // Hidden behind another tab: the render would be thrown away unseen; it starts again when shown.
    if (render_job_.running) {
      cancel_job(render_job_);
      dirty_ = true;
      show_running();
    }
    return;
  }
  if (dirty_) request_render();
}

void PreviewPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_) request_render();
}

void PreviewPanel::set_stale(bool stale) {
  for (auto* v : views_) v->set_stale(stale);
}

void PreviewPanel::request_render() {
  settings_timer_->stop();
  dirty_ = true;
  if (!snapshot_) return;
  if (!on_screen_ || !isVisible()) {
    if (render_job_.running) {
      cancel_job(render_job_);
      show_running();
    }
    return;
  }
  start_render();
}

RenderInput PreviewPanel::input() const {
  RenderInput in;
  in.snapshot = snapshot_;
  in.run = run_;
  in.scene_key = scene_key();
  in.scene_path = scene_box_->currentData().toString().toStdString();
  if (loaded_key_ == in.scene_key) in.scene = scene_;
  in.size = size_box_->currentData().toInt();
  in.fbuffer_slots = slots_->value();
  in.overflow = overflow_box_->currentIndex() == 0 ? sim::Overflow::Window : sim::Overflow::Restart;
  in.multisample = msaa_box_->currentData().toInt();
  in.probe = probe_pixel_;
  return in;
}

std::shared_ptr<std::atomic<bool>> PreviewPanel::begin(Job& job) {
  cancel_job(job);
  job.id = ++next_id_;
  job.cancel = std::make_shared<std::atomic<bool>>(false);
  job.running = true;
  return job.cancel;
}

void PreviewPanel::watch(Job& job, const QFuture<PreviewFrame>& future) {
  auto* watcher = new QFutureWatcher<PreviewFrame>(this);
  const quint64 id = job.id;
  connect(watcher, &QFutureWatcher<PreviewFrame>::resultReadyAt, this, [this, watcher](int i) { take(watcher->resultAt(i)); });
  connect(watcher, &QFutureWatcher<PreviewFrame>::finished, this, [this, watcher, &job, id] {
    if (job.id == id) {
      job.running = false;
      show_running();
    }
    watcher->deleteLater();
  });
  watcher->setFuture(future);
  show_running();
}

// The job's results, if any are still coming, are of no use any more.
void PreviewPanel::cancel_job(Job& job) {
  if (job.cancel) job.cancel->store(true);
  job.cancel.reset();
  job.id = ++next_id_;
  job.running = false;
}

void PreviewPanel::start_render() {
  dirty_ = false;
  cancel_job(probe_job_);  // the render probes the pixel too
  RenderInput in = input();
  in.cancel = begin(render_job_);
  in.id = render_job_.id;
  watch(render_job_, QtConcurrent::run(&pool_, [in](QPromise<PreviewFrame>& promise) { render_job(promise, in); }));
  state_->set_text(tr("Rendering…"));
}

void PreviewPanel::clicked(QPointF where) {
  if (full_size_.isEmpty() || !snapshot_) return;
  const QPoint pixel(std::clamp(static_cast<int>(where.x() * full_size_.width()), 0, full_size_.width() - 1),
                     std::clamp(static_cast<int>(where.y() * full_size_.height()), 0, full_size_.height() - 1));
  start_probe(pixel);
}

void PreviewPanel::start_probe(QPoint pixel) {
  probe_pixel_ = pixel;
  show_markers();
  RenderInput in = input();
  in.cancel = begin(probe_job_);
  in.id = probe_job_.id;
  const quint64 render_id = render_job_.id;
  watch(probe_job_, QtConcurrent::run(&pool_, [in, render_id](QPromise<PreviewFrame>& promise) { probe_job(promise, in, render_id); }));
  probe_caption_[0]->set_text(tr("Probing pixel (%1, %2)…").arg(pixel.x()).arg(pixel.y()));
  probe_caption_[1]->set_text(QString());
}

void PreviewPanel::take(const PreviewFrame& f) {
  switch (f.kind) {
    case PreviewFrame::Kind::Render:
      if (f.id == render_job_.id) apply_render(f);
      break;
    case PreviewFrame::Kind::Probe:
      if (f.id == probe_job_.id && f.render_id == render_job_.id) apply_probe(f);
      break;
  }
}

namespace {

// "1 pass", "16 passes", with thousands separated.
QString counted(long n, const char* one, const char* many) {
  return QString("%1 %2").arg(QLocale().toString(static_cast<qlonglong>(n)), QObject::tr(n == 1 ? one : many));
}

QString stats_text(const QString& name, const sim::RenderStats& s, bool fbuffer) {
  QString t = QString("%1: %2 · %3 · %4 shaded")
                  .arg(name, counted(s.passes, "pass", "passes"), counted(s.geometry_submissions, "submission", "submissions"),
                       counted(s.fragments_shaded, "fragment", "fragments"));
  if (fbuffer) t += QString(" · %1 · %2").arg(counted(s.overflows, "overflow", "overflows"), counted(s.windows, "window", "windows"));
  return t + QObject::tr(" · %1 ms").arg(s.milliseconds, 0, 'f', 0);
}

}  // namespace

void PreviewPanel::apply_render(const PreviewFrame& f) {
  if (f.scene && f.scene_key == scene_key()) {
    scene_ = f.scene;
    loaded_key_ = f.scene_key;
  }
  if (!f.scene_problem.isEmpty()) {
    status_[0]->set_text(tr("The scene cannot be used: %1").arg(f.scene_problem.section('\n', 0, 0)));
    status_[1]->set_text(f.scene_problem.section('\n', 1));
    state_->set_text(tr("No render"));
    for (auto* v : views_) {
      v->set_image({});
      v->set_placeholder(tr("No scene"));
    }
    return;
  }
  full_size_ = f.full_size;
  QStringList lines;
  for (int s = 0; s < 2; ++s) {
    const Picture& p = f.pictures[s];
    views_[s]->set_image(p.image);
    if (p.image.isNull()) views_[s]->set_placeholder(tr("No picture:\n%1").arg(p.problem));
    const QString name = tr(kStorageNames[s]);
    QString line = p.image.isNull() ? QString("%1: %2").arg(name, p.problem.section('\n', 0, 0)) : stats_text(name, p.stats, s == 1);
    if (!p.image.isNull() && !p.problem.isEmpty()) line += " — " + p.problem.section('\n', 0, 0);  // e.g. a texture not found
    lines << line;
    pass_images_[s][0] = p.pass_images[0];
    pass_images_[s][1] = p.pass_images[1];
    pass_ranges_[s] = p.ranges;
  }
  status_[0]->set_text(lines[0]);
  status_[1]->set_text(lines[1]);
  views_[2]->set_image(f.difference);
  if (f.difference.isNull()) views_[2]->set_placeholder(tr("Needs both pictures"));
  const QString diff = tr("Differences");
  titles_[2]->set_text(f.difference.isNull() ? diff
                       : f.differing == 0 ? diff + tr(": none")
                                          : diff + tr(": %1, by up to %2").arg(counted(f.differing, "pixel", "pixels"))
                                                       .arg(f.largest_difference, 0, 'f', 3),
                       static_cast<int>(diff.size()));
  const QString algorithm = run_ ? QString::fromStdString(run_->algorithm).toUpper().replace("RDSH", "RDSh")
                                 : tr("one pass (no partition)");
  const QString what = QString("%1, %2").arg(algorithm, counted(f.pictures[1].stats.passes, "pass", "passes"));
  const QString storage_names[2] = {tr(kStorageNames[0]), tr(kStorageNames[1])};
  titles_[0]->set_text(storage_names[0] + " — " + what, static_cast<int>(storage_names[0].size()));
  titles_[1]->set_text(storage_names[1] + " — " +
                           (slots_->value() > 0 ? tr("%1 slots, %2").arg(QLocale().toString(slots_->value()), overflow_box_->currentText())
                                                : tr("unlimited")),
                       static_cast<int>(storage_names[1].size()));
  {
    QSignalBlocker block(pass_);
    const int n = static_cast<int>(std::max(pass_images_[0][0].size(), pass_images_[1][0].size()));
    pass_->setRange(0, std::max(0, n - 1));
  }
  show_pass();
  const QSize shown = f.pictures[1].image.isNull() ? f.pictures[0].image.size() : f.pictures[1].image.size();
  if (f.full) {
    state_->set_text(tr("%1×%2 rendered").arg(shown.width()).arg(shown.height()));
    if (f.probe.x() >= 0 && f.probe == probe_pixel_ && probe_job_.id < f.id) apply_probe(f);
  } else {
    state_->set_text(tr("Quick look %1×%2; rendering %3×%4…")
                         .arg(shown.width())
                         .arg(shown.height())
                         .arg(f.full_size.width())
                         .arg(f.full_size.height()));
  }
  show_markers();
}

void PreviewPanel::apply_probe(const PreviewFrame& f) {
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const QColor differs = dark ? QColor(120, 40, 50) : QColor(255, 200, 200);
  table_->setRowCount(static_cast<int>(f.rows.size()));
  const QString storage_names[2] = {tr(kStorageNames[0]), tr(kStorageNames[1])};
  int wrong = 0;
  for (std::size_t i = 0; i < f.rows.size(); ++i) {
    const ProbeRow& r = f.rows[i];
    const auto& v = r.fragment.value;
    const QStringList cells{storage_names[r.storage],
                            QString::number(r.fragment.pass + 1),
                            QString::number(r.fragment.layer + 1),
                            QString::number(r.fragment.depth, 'f', 4),
                            QString("%1 %2 %3 %4").arg(v[0], 0, 'f', 3).arg(v[1], 0, 'f', 3).arg(v[2], 0, 'f', 3).arg(v[3], 0, 'f', 3),
                            r.fate + (r.differs ? tr(" — differs from the F-buffer") : QString())};
    wrong += r.differs;
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 1) item->setBackground(pass_color(r.fragment.pass, dark));
      else if (r.differs) item->setBackground(differs);
      if (c == 4) item->setData(Qt::DecorationRole, QColor::fromRgbF(std::clamp(v[0], 0.0f, 1.0f), std::clamp(v[1], 0.0f, 1.0f),
                                                                     std::clamp(v[2], 0.0f, 1.0f)));
      if (c >= 1 && c <= 3) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (r.differs)
        item->setToolTip(tr("Render to texture computed another value for this fragment than the F-buffer: an earlier "
                            "pass's value of another fragment was restored, because a texture keeps one value per pixel"));
      table_->setItem(static_cast<int>(i), c, item);
    }
  }
  table_->resizeColumnsToContents();
  probe_caption_[0]->set_text(tr("Pixel (%1, %2): %3 in every pass, in the order they were drawn")
                                  .arg(f.probe.x())
                                  .arg(f.probe.y())
                                  .arg(counted(f.fragments, "fragment", "fragments")));
  probe_caption_[1]->set_text(wrong == 0 ? tr("Render to texture gets every value right here.")
                                         : tr("Render to texture is wrong in %1 (tinted): a texture keeps one value per "
                                              "pixel between passes, an F-buffer one per fragment.")
                                               .arg(counted(wrong, "row", "rows")));
}

void PreviewPanel::show_pass() {
  const int s = pass_storage_->currentIndex(), p = pass_->value();
  const auto& images = pass_images_[s][normalize_->isChecked()];
  const QString head = tr("Pass %1 of %2").arg(images.empty() ? 0 : p + 1).arg(images.size());
  if (p >= static_cast<int>(images.size())) {
    views_[3]->set_image({});
    views_[3]->set_placeholder(tr("No pass pictures yet"));
    titles_[3]->set_text(head, static_cast<int>(head.size()));
    return;
  }
  views_[3]->set_image(images[static_cast<std::size_t>(p)]);
  const auto [lo, hi] = pass_ranges_[s][static_cast<std::size_t>(p)];
  titles_[3]->set_text(head + tr(" · values %1 … %2%3")
                                  .arg(lo, 0, 'g', 3)
                                  .arg(hi, 0, 'g', 3)
                                  .arg(normalize_->isChecked() ? tr(", normalized") : QString()),
                       static_cast<int>(head.size()));
}

void PreviewPanel::show_markers() {
  QRectF marker;
  if (probe_pixel_.x() >= 0 && !full_size_.isEmpty())
    marker = QRectF(static_cast<double>(probe_pixel_.x()) / full_size_.width(), static_cast<double>(probe_pixel_.y()) / full_size_.height(),
                    1.0 / full_size_.width(), 1.0 / full_size_.height());
  for (auto* v : views_) v->set_marker(marker);
}

void PreviewPanel::show_running() { cancel_->setEnabled(render_job_.running || probe_job_.running); }

}  // namespace passlab::views
