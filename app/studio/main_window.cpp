// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's main window.
#include "app/studio/main_window.h"

#include "session/background.h"

#include <unistd.h>

#include <csignal>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QElapsedTimer>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSaveFile>
#include <QSettings>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QToolTip>
#include <QVBoxLayout>

#include "session/hover.h"
#include "backends/registry/registry.h"
#include "backends/rpu/registration.h"
#include "app/studio/project.h"
#include "app/studio/samples.h"
#include "editors/find_bar.h"
#include "editors/shader_editor.h"
#include "views/compare_panel.h"
#include "views/diagnostics_panel.h"
#include "views/graph_view.h"
#include "views/pass_graph_panel.h"
#include "views/passes_panel.h"
#include "views/rpu_code_panel.h"
#include "views/rpu_debugger_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_render_panel.h"
#include "views/rpu_session.h"
#include "views/timeline_panel.h"
#include "views/preview_panel.h"
#include "views/sampling_panel.h"
#include "views/target_panel.h"
#include "views/trace_player.h"
#include "views/work_pool.h"

namespace passlab::studio {

namespace {

QString samples_dir() { return samples_path("shaders"); }

// The RPU targets in the target box: what it shows and the machine preset each loads.
const std::pair<const char*, const char*> kRpuTargets[] = {{"RPU", "rpu"}, {"RPU (thesis example)", "thesis_example"}};

std::optional<partition::TargetDesc> rpu_target(const QString& name) {
  for (const auto& [shown, machine] : kRpuTargets)
    if (name.compare(shown, Qt::CaseInsensitive) == 0 || name.compare(machine, Qt::CaseInsensitive) == 0) {
      return rpu::target(shown, machine);
    }
  return std::nullopt;
}

std::unique_ptr<QSettings> open_settings(const StudioOptions& o) {
  if (!o.settings_file.isEmpty()) return std::make_unique<QSettings>(o.settings_file, QSettings::IniFormat);
  return std::make_unique<QSettings>();
}

void apply_palette(bool dark) {
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  QPalette p;
  if (dark) {
    p.setColor(QPalette::Window, QColor(45, 47, 52));
    p.setColor(QPalette::WindowText, QColor(225, 228, 232));
    p.setColor(QPalette::Base, QColor(32, 34, 38));
    p.setColor(QPalette::AlternateBase, QColor(45, 47, 52));
    p.setColor(QPalette::Text, QColor(225, 228, 232));
    p.setColor(QPalette::Button, QColor(55, 58, 64));
    p.setColor(QPalette::ButtonText, QColor(225, 228, 232));
    p.setColor(QPalette::Highlight, QColor(50, 110, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(55, 58, 64));
    p.setColor(QPalette::ToolTipText, QColor(225, 228, 232));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(130, 130, 130));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(130, 130, 130));
  } else {
    p = QApplication::style()->standardPalette();
  }
  QApplication::setPalette(p);
}

}  // namespace

MainWindow::MainWindow(const StudioOptions& options, QWidget* parent) : QMainWindow(parent), options_(options) {
  session::run_responsive();  // this is the UI thread
  setObjectName("PasslabStudio");
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
  service_ = new CompileService(this);
  editor_ = new editors::ShaderEditor(this);
  find_ = new editors::FindBar(editor_, this);
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(editor_, 1);
  layout->addWidget(find_);
  setCentralWidget(central);
  watcher_ = new QFileSystemWatcher(this);
  autosave_timer_ = new QTimer(this);
  autosave_timer_->setInterval(3000);
  connect(autosave_timer_, &QTimer::timeout, this, [this] { write_autosave(); });
  autosave_timer_->start();
  stage_timer_ = new QTimer(this);
  stage_timer_->setSingleShot(true);
  stage_timer_->setInterval(0);
  connect(stage_timer_, &QTimer::timeout, this, [this] { show_next_stage(); });
  // While typing, results follow each other within a fraction of a second: the panels are dimmed
  // only when one is slow to come (dimming and undimming every view on each keystroke would
  // flicker and cost a full repaint of every graph).
  stale_timer_ = new QTimer(this);
  stale_timer_->setSingleShot(true);
  stale_timer_->setInterval(400);
  connect(stale_timer_, &QTimer::timeout, this, [this] { set_stale(true); });

  build_docks();
  build_menus();

  connect(editor_, &QsciScintilla::textChanged, this, [this] {
    autosave_dirty_ = true;
    if (loading_) return;
    if (!stale_timer_->isActive()) stale_timer_->start();
    service_->text_changed(editor_->text());
  });
  connect(editor_, &QsciScintilla::modificationChanged, this, [this] { update_title(); });
  connect(editor_, &editors::ShaderEditor::cursor_line_changed, this, [this](int line) { on_cursor_line(line); });
  connect(editor_, &editors::ShaderEditor::hover_requested, this, [this](int pos, const QPoint& g) { on_hover(pos, g); });
  connect(service_, &CompileService::compile_started, this, [this] { show_status(tr("Compiling…")); });
  connect(service_, &CompileService::compiled, this, [this](ResultPtr r) { show_result(std::move(r)); });
  connect(service_, &CompileService::optimal_progress, compare_, &views::ComparePanel::optimal_progress);
  connect(service_, &CompileService::optimal_finished, this,
          [this](session::SnapshotPtr s, std::shared_ptr<const session::AlgorithmRun> run, bool cancelled) {
            if (!result_ || s != result_->snapshot) return;  // a search of an older version
            compare_->optimal_finished(run, cancelled);
            passes_->set_extra_run(run);
            timeline_->set_extra_run(run);
            if (passes_->current_run() == run.get()) {  // the passes panel shows the search's partition
              graphs_[0]->set_run(passes_->current_run());
              pass_graph_->set_run(passes_->current_run());
              preview_->set_run(passes_->current_run());
              sampling_->set_run(passes_->current_run());
            }
          });
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, [this](const QString& path) {
    if (ignore_watch_ || path != path_) return;
    QTimer::singleShot(200, this, [this, path] {
      if (!QFileInfo::exists(path)) {
        show_status(tr("%1 was deleted or moved on disk; saving writes it again").arg(QFileInfo(path).fileName()));
        return;
      }
      watcher_->addPath(path);
      auto answer = QMessageBox::question(this, tr("File changed on disk"),
                                          tr("%1 was changed by another program.%2\nReload it?")
                                              .arg(QFileInfo(path).fileName(),
                                                   editor_->isModified() ? tr(" Your unsaved changes would be lost.") : QString()));
      if (answer == QMessageBox::Yes) open_file(path);
    });
  });

  auto settings = open_settings(options_);
  set_dark(settings->value("theme/dark", false).toBool());
  service_->set_delay(settings->value("compile/delay_ms", 30).toInt());
  const QString target = settings->value("partition/target", "PC5").toString();
  const QString cost = settings->value("partition/cost", "15p+5t+i").toString();
  set_cost_model(cost);
  std::string error;
  const QByteArray custom = settings->value("partition/target_json").toByteArray();
  if (auto t = custom.isEmpty() ? std::nullopt : partition::parse_target(custom.toStdString(), "", &error))
    set_target_desc(*t, true);
  else
    set_target(target);
  resize(1500, 920);
  // The default arrangement: the graphs large on the right, passes and compare below them.
  resizeDocks({static_cast<QDockWidget*>(dock_widget("dock-graphs"))}, {780}, Qt::Horizontal);
  resizeDocks({static_cast<QDockWidget*>(dock_widget("dock-graphs")), static_cast<QDockWidget*>(dock_widget("dock-passes"))},
              {540, 360}, Qt::Vertical);
  resizeDocks({static_cast<QDockWidget*>(dock_widget("dock-diagnostics"))}, {190}, Qt::Vertical);
  default_state_ = saveState();
  restoreGeometry(settings->value("window/geometry").toByteArray());
  restoreState(settings->value("window/state").toByteArray());
  rebuild_recent_menu();
  update_title();
}

MainWindow::~MainWindow() {
  // ~QWidget closes the window after this body has run, and the docks it hides emit
  // visibilityChanged into lambdas that would call this half-destroyed MainWindow (UBSan's
  // "member access ... not of type MainWindow"): cut every child's connections to it first.
  for (QObject* child : findChildren<QObject*>()) child->disconnect(this);
}

QWidget* MainWindow::dock_widget(const QString& name) const { return findChild<QDockWidget*>(name); }

void MainWindow::build_docks() {
  auto dock = [&](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  graph_tabs_ = new QTabWidget(this);
  const char* names[3] = {"DAG", "Dominator tree", "Partial dominator tree"};
  const views::GraphKind kinds[3] = {views::GraphKind::Dag, views::GraphKind::Dominators,
                                     views::GraphKind::PartialDominators};
  for (int i = 0; i < 3; ++i) {
    graphs_[i] = new views::GraphView(kinds[i], this);
    graph_tabs_->addTab(graphs_[i], tr(names[i]));
    connect(graphs_[i], &views::GraphView::nodes_selected, this,
            [this, i](const std::vector<std::uint32_t>& ids) { on_nodes_selected(ids, graphs_[i]); });
  }
  pass_graph_ = new views::PassGraphPanel(this);
  graph_tabs_->addTab(pass_graph_, tr("Pass graph"));
  graph_tabs_->setTabToolTip(3, tr("One node per pass, sized by its cost, with an arrow from each pass to the passes that read a value it saved; click a pass to see its nodes"));
  connect(pass_graph_, &views::PassGraphPanel::nodes_selected, this,
          [this](const std::vector<std::uint32_t>& ids) { on_nodes_selected(ids, pass_graph_); });
  passes_ = new views::PassesPanel(this);
  compare_ = new views::ComparePanel(this);
  diagnostics_ = new views::DiagnosticsPanel(this);
  trace_ = new views::TracePlayer(this);
  preview_ = new views::PreviewPanel(this);
  timeline_ = new views::TimelinePanel(this);
  preview_->set_scene_folder(QDir(samples_dir() + "/../scenes").absolutePath());
  sampling_ = new views::SamplingPanel(this);
  sampling_->set_scene_folder(QDir(samples_dir() + "/../scenes").absolutePath());
  preview_tabs_ = new QTabWidget(this);
  preview_tabs_->setObjectName("preview-tabs");
  preview_tabs_->setDocumentMode(true);
  preview_tabs_->addTab(preview_, tr("Passes"));
  preview_tabs_->addTab(sampling_, tr("Sampling (motion and defocus blur)"));
  target_panel_ = new views::TargetPanel(this);
  rpu_session_ = new views::RpuSession(this);
  rpu_code_ = new views::RpuCodePanel(rpu_session_, this);
  rpu_debugger_ = new views::RpuDebuggerPanel(rpu_session_, this);
  rpu_render_ = new views::RpuRenderPanel(rpu_session_, this);
  rpu_decisions_ = new views::RpuDecisionsPanel(rpu_session_, this);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
  auto* g = dock(tr("Graphs"), "dock-graphs", graph_tabs_, Qt::RightDockWidgetArea);
  auto* p = dock(tr("Passes"), "dock-passes", passes_, Qt::RightDockWidgetArea);
  auto* c = dock(tr("Compare"), "dock-compare", compare_, Qt::RightDockWidgetArea);
  auto* d = dock(tr("Diagnostics"), "dock-diagnostics", diagnostics_, Qt::BottomDockWidgetArea);
  auto* t = dock(tr("Trace player"), "dock-trace", trace_, Qt::BottomDockWidgetArea);
  auto* tg = dock(tr("Target and cost"), "dock-target", target_panel_, Qt::RightDockWidgetArea);
  auto* pv = dock(tr("Preview"), "dock-preview", preview_tabs_, Qt::RightDockWidgetArea);
  auto* tl = dock(tr("Timeline"), "dock-timeline", timeline_, Qt::BottomDockWidgetArea);
  auto* rc = dock(tr("RPU code"), "dock-rpu-code", rpu_code_, Qt::RightDockWidgetArea);
  auto* rr = dock(tr("RPU render"), "dock-rpu-render", rpu_render_, Qt::RightDockWidgetArea);
  auto* rd = dock(tr("RPU debugger"), "dock-rpu-debugger", rpu_debugger_, Qt::RightDockWidgetArea);
  auto* rx = dock(tr("RPU compiler decisions"), "dock-rpu-decisions", rpu_decisions_, Qt::BottomDockWidgetArea);
  splitDockWidget(g, p, Qt::Vertical);
  tabifyDockWidget(p, c);
  tabifyDockWidget(c, pv);
  tabifyDockWidget(pv, tg);
  tabifyDockWidget(d, t);
  tabifyDockWidget(t, tl);
  // The RPU's panels: code and render above, the debugger below, the decisions with the trace.
  splitDockWidget(rc, rd, Qt::Vertical);
  tabifyDockWidget(rc, rr);
  tabifyDockWidget(tl, rx);
  rc->raise();
  for (auto* r : {rc, rr, rd, rx}) r->hide();
  connect(rr, &QDockWidget::visibilityChanged, rpu_render_, &views::RpuRenderPanel::set_on_screen);
  connect(rpu_code_, &views::RpuCodePanel::source_line_selected, this, [this](int line) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
    if (line > 0 && line <= editor_->lines())
      spans.emplace_back(static_cast<std::uint32_t>(editor_->positionFromLineIndex(line - 1, 0)),
                         static_cast<std::uint32_t>(std::max(1, editor_->lineLength(line - 1) - 1)));
    editor_->set_span_highlights(spans);
    if (line > 0) editor_->ensureLineVisible(line - 1);
  });
  connect(editor_, &editors::ShaderEditor::breakpoint_toggled, this, [this](int line) {
    if (rpu_mode_) rpu_session_->toggle_line_breakpoint(static_cast<std::uint32_t>(line));
  });
  connect(rpu_session_, &views::RpuSession::breakpoints_changed, this, [this] {
    std::vector<int> lines;
    for (std::uint32_t l : rpu_session_->line_breakpoints()) lines.push_back(static_cast<int>(l));
    editor_->set_breakpoint_lines(lines);
  });
  connect(rpu_session_, &views::RpuSession::debugger_changed, this, [this] { show_rpu_debug_line(); });
  connect(c, &QDockWidget::visibilityChanged, compare_, &views::ComparePanel::set_on_screen);
  // Each of the preview's tabs works only while it can be seen.
  connect(pv, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    preview_->set_on_screen(visible && preview_tabs_->currentWidget() == preview_);
    sampling_->set_on_screen(visible && preview_tabs_->currentWidget() == sampling_);
  });
  connect(preview_tabs_, &QTabWidget::currentChanged, this, [this, pv] {
    const bool visible = pv->isVisible();
    preview_->set_on_screen(visible && preview_tabs_->currentWidget() == preview_);
    sampling_->set_on_screen(visible && preview_tabs_->currentWidget() == sampling_);
  });
  p->raise();
  d->raise();
  connect(passes_, &views::PassesPanel::algorithm_changed, this, [this] {
    for (auto* gv : graphs_) gv->set_run(passes_->current_run());
    pass_graph_->set_run(passes_->current_run());
    preview_->set_run(passes_->current_run());
    sampling_->set_run(passes_->current_run());
    timeline_->set_algorithm(passes_->algorithm());
  });
  connect(timeline_, &views::TimelinePanel::nodes_selected, this, [this](const std::vector<std::uint32_t>& ids) { on_nodes_selected(ids, timeline_); });
  connect(passes_, &views::PassesPanel::pass_selected, this,
          [this](const std::vector<std::uint32_t>& members) { on_nodes_selected(members, passes_); });
  connect(diagnostics_, &views::DiagnosticsPanel::jump, this, [this](const QString& file, int line, int col) {
    if (line > 0 && (file.isEmpty() || QFileInfo(file).fileName() == QFileInfo(path_).fileName())) editor_->go_to(line, col);
  });
  connect(compare_, &views::ComparePanel::optimal_requested, this, [this](double budget) {
    if (!result_) return;
    compare_->optimal_started();
    service_->run_optimal(result_->snapshot, budget);
  });
  connect(target_panel_, &views::TargetPanel::target_edited, this,
          [this](const partition::TargetDesc& t) { set_target_desc(t, true); });
  connect(target_panel_, &views::TargetPanel::cost_model_edited, this, [this](const partition::CostModel& m) {
    model_ = m;
    {
      QSignalBlocker block(cost_box_);
      cost_box_->setCurrentText(QString::fromStdString(m.name));
    }
    request_changed();
  });
  connect(target_panel_, &views::TargetPanel::save_requested, this, [this] {
    const QString dir = path_.isEmpty() ? QDir::homePath() : QFileInfo(path_).absolutePath();
    QString p = QFileDialog::getSaveFileName(this, tr("Save target as"),
                                             dir + "/" + QString::fromStdString(target_.name) + ".json", tr("Targets (*.json)"));
    if (!p.isEmpty()) save_target_as(p);
  });
  connect(compare_, &views::ComparePanel::optimal_cancel_requested, service_, &CompileService::cancel_optimal);
  connect(trace_, &views::TracePlayer::frame_changed, this, [this](const views::TraceFrame& f) {
    if (f.nodes.empty() && f.region.empty()) graphs_[0]->clear_focus();
    else graphs_[0]->set_focus(f.nodes, f.region, f.marked, f.ok);
    timeline_->show_frame(f);
    if (rpu_mode_) rpu_decisions_->show_frame(f);
  });
}

void MainWindow::build_menus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* open = file->addAction(tr("&Open…"), this, [this] {
    if (!maybe_save()) return;
    QString p = QFileDialog::getOpenFileName(this, tr("Open shader"), QFileInfo(path_).absolutePath(),
                                             tr("Shaders (*.sl *.glsl);;All files (*)"));
    if (!p.isEmpty()) open_file(p);
  });
  open->setShortcut(QKeySequence::Open);
  auto* samples = file->addMenu(tr("Open &Sample"));
  for (const QFileInfo& fi : QDir(samples_dir()).entryInfoList({"*.sl"}, QDir::Files, QDir::Name))
    samples->addAction(fi.completeBaseName(), this, [this, p = fi.absoluteFilePath()] {
      if (maybe_save()) open_file(p);
    });
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("Open &Project…"), this, [this] {
    if (!maybe_save()) return;
    QString p = QFileDialog::getOpenFileName(this, tr("Open project"), QFileInfo(path_).absolutePath(),
                                             tr("Passlab projects (*.passlab)"));
    if (!p.isEmpty()) open_project(p);
  });
  file->addAction(tr("Save Pro&ject As…"), this, [this] {
    QString p = QFileDialog::getSaveFileName(this, tr("Save project as"),
                                             QFileInfo(path_).absolutePath() + "/" + QFileInfo(path_).completeBaseName() + ".passlab",
                                             tr("Passlab projects (*.passlab)"));
    if (!p.isEmpty()) save_project_as(p);
  });
  file->addAction(tr("Choose &Light Setup…"), this, [this] {
    QString p = QFileDialog::getOpenFileName(this, tr("Light setup"), QFileInfo(path_).absolutePath(),
                                             tr("Light setups (*.lights.json *.json)"));
    if (!p.isEmpty()) set_lights(p);
  });
  auto* scene = file->addAction(tr("Choose RPU Sc&ene…"), this, [this] {
    QString p = QFileDialog::getOpenFileName(this, tr("RPU scene"), QDir(samples_dir() + "/../scenes").absolutePath(), tr("Scenes (*.json)"));
    if (!p.isEmpty()) set_rpu_scene(p);
  });
  scene->setStatusTip(tr("The scene the RPU target renders; its objects without a shader use the one being edited"));
  file->addSeparator();
  file->addAction(tr("&Save"), this, [this] { save(); })->setShortcut(QKeySequence::Save);
  file->addAction(tr("Save &As…"), this, [this] {
    QString p = QFileDialog::getSaveFileName(this, tr("Save shader as"), path_, tr("Shaders (*.sl *.glsl)"));
    if (!p.isEmpty()) save_as(p);
  })->setShortcut(QKeySequence::SaveAs);
  file->addAction(tr("&Export Graph…"), this, [this] {
    auto* gv = current_graph_view();
    QString p = QFileDialog::getSaveFileName(this, tr("Export graph"), QString(), tr("SVG (*.svg);;PNG (*.png);;Graphviz DOT (*.dot)"));
    QString error;
    if (!p.isEmpty() && !gv->export_file(p, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  })->setShortcut(QKeySequence(tr("Ctrl+E")));
  file->addSeparator();
  file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

  auto* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("&Undo"), editor_, &QsciScintilla::undo)->setShortcut(QKeySequence::Undo);
  edit->addAction(tr("&Redo"), editor_, &QsciScintilla::redo)->setShortcut(QKeySequence::Redo);
  edit->addSeparator();
  edit->addAction(tr("&Find…"), this, [this] { find_->open(false); })->setShortcut(QKeySequence::Find);
  edit->addAction(tr("&Replace…"), this, [this] { find_->open(true); })->setShortcut(QKeySequence(tr("Ctrl+H")));
  edit->addAction(tr("Find &Next"), this, [this] { find_->find(true); })->setShortcut(QKeySequence::FindNext);
  edit->addAction(tr("Find &Previous"), this, [this] { find_->find(false); })->setShortcut(QKeySequence::FindPrevious);

  auto* view = menuBar()->addMenu(tr("&View"));
  for (auto* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Fit Graph"), this, [this] { current_graph_view()->fit(); })
      ->setShortcut(QKeySequence(tr("Ctrl+0")));
  view->addAction(tr("Re-&layout Graphs"), service_, &CompileService::relayout)->setShortcut(QKeySequence(tr("Ctrl+L")));
  auto* theme = view->addAction(tr("&Dark Theme"), this, [this](bool on) { set_dark(on); });
  theme->setCheckable(true);
  theme->setShortcut(QKeySequence(tr("Ctrl+Shift+T")));
  connect(this, &MainWindow::panels_updated, theme, [this, theme] { theme->setChecked(dark_); });
  view->addAction(tr("&Reset Layout"), this, [this] { reset_layout(); });

  auto* build = menuBar()->addMenu(tr("&Build"));
  build->addAction(tr("&Compile Now"), service_, &CompileService::compile_now)->setShortcut(QKeySequence(tr("F5")));
  manual_action_ = build->addAction(tr("&Manual Mode (compile only on F5)"), this, [this](bool on) { service_->set_manual(on); });
  manual_action_->setCheckable(true);
  build->addAction(tr("Compile &Delay…"), this, [this] {
    bool ok = false;
    const int ms = QInputDialog::getInt(this, tr("Compile delay"), tr("While typing, compile this long after the last keystroke (ms):"),
                                        service_->delay(), 0, 5000, 10, &ok);
    if (!ok) return;
    service_->set_delay(ms);
    open_settings(options_)->setValue("compile/delay_ms", ms);
  });
  build->addAction(tr("Run &Optimal Search"), this, [this] {
    if (result_) {
      compare_->optimal_started();
      service_->run_optimal(result_->snapshot, compare_->budget_seconds());
    }
  })->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  build->addAction(tr("Ca&ncel Optimal Search"), service_, &CompileService::cancel_optimal);

  auto* trace = menuBar()->addMenu(tr("&Trace"));
  trace->addAction(tr("Step &Back"), this, [this] { trace_->step(-1); })->setShortcut(QKeySequence(tr("F7")));
  trace->addAction(tr("Step &Forward"), this, [this] { trace_->step(1); })->setShortcut(QKeySequence(tr("F8")));
  trace->addAction(tr("&Play / Pause"), this, [this] { trace_->play(!trace_->playing()); })->setShortcut(QKeySequence(tr("F9")));

  debug_menu_ = menuBar()->addMenu(tr("&Debug"));
  debug_menu_->setToolTipsVisible(true);
  for (QAction* a : rpu_debugger_->move_actions()) {
    debug_menu_->addAction(a);
    addAction(a);  // the shortcuts work wherever the focus is
  }
  debug_menu_->addSeparator();
  auto* to_cursor = debug_menu_->addAction(tr("Run to &Cursor"), this, [this] {
    int line = 0, index = 0;
    editor_->getCursorPosition(&line, &index);
    if (!rpu_session_->run_to_line(static_cast<std::uint32_t>(line + 1))) show_status(tr("No thread of the chunk reaches line %1 from here").arg(line + 1));
  });
  to_cursor->setShortcut(QKeySequence(tr("Ctrl+F10")));
  addAction(to_cursor);
  auto* toggle = debug_menu_->addAction(tr("Toggle &Breakpoint"), this, [this] {
    int line = 0, index = 0;
    editor_->getCursorPosition(&line, &index);
    rpu_session_->toggle_line_breakpoint(static_cast<std::uint32_t>(line + 1));
  });
  toggle->setShortcut(QKeySequence(tr("Ctrl+F9")));
  addAction(toggle);
  debug_menu_->addAction(tr("C&lear Breakpoints"), rpu_session_, &views::RpuSession::clear_breakpoints);
  debug_menu_->setEnabled(false);

  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Passlab"), this, [this] {
    QMessageBox::about(this, tr("About Passlab"),
                       tr("<b>Passlab Studio</b><p>Shader compilation under hardware limits: RDSh, RDS and an exact "
                          "optimal search over the passes of a fragment shader.</p>"));
  });

  build_toolbar(open);
}

// The toolbar: Open, the target and cost model chosen by name (or edited), and Compile.
void MainWindow::build_toolbar(QAction* open) {
  auto* bar = addToolBar(tr("Main"));
  bar->setObjectName("toolbar-main");
  bar->addAction(open);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Target "), this));
  target_box_ = new QComboBox(this);
  for (const auto& t : partition::preset_targets()) target_box_->addItem(QString::fromStdString(t));
  target_box_->insertSeparator(target_box_->count());
  for (const auto& [shown, machine] : kRpuTargets) target_box_->addItem(shown, QString("rpu:") + machine);
  target_box_->setToolTip(tr("Resource limits of one pass"));
  target_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(target_box_);
  bar->addWidget(new QLabel(tr(" Cost "), this));
  cost_box_ = new QComboBox(this);
  cost_box_->setEditable(true);
  for (const auto& m : partition::paper_cost_models()) cost_box_->addItem(QString::fromStdString(m.name));
  cost_box_->setToolTip(tr("Cost model: a·passes + b·texture fetches + c·other instructions (editable, e.g. 10p+4t+i)"));
  bar->addWidget(cost_box_);
  connect(target_box_, &QComboBox::currentIndexChanged, this, [this] {
    if (target_box_->currentData().toString() == "edited") return;  // the panel's own target
    if (auto rpu = rpu_target(target_box_->currentText())) {
      set_target_desc(*rpu, false);
      return;
    }
    std::string error;
    auto t = backends::load_target(target_box_->currentText().toStdString(), &error);
    if (!t) {
      show_status(tr("Target not applied: %1").arg(QString::fromStdString(error)));
      return;
    }
    set_target_desc(*t, false);
  });
  connect(cost_box_, &QComboBox::currentTextChanged, this, [this](const QString& spec) {
    std::string error;
    auto m = partition::parse_cost_model(spec.toStdString(), &error);
    if (!m) {
      show_status(tr("Cost model not applied: %1").arg(QString::fromStdString(error)));
      return;
    }
    model_ = *m;
    target_panel_->set_cost_model(*m);
    request_changed();
  });
  bar->addSeparator();
  bar->addAction(tr("Compile"), service_, &CompileService::compile_now);
}

void MainWindow::request_changed() {
  session::Request r = service_->request();
  r.target = target_;
  r.model = model_;
  r.text = editor_->text_utf8();
  const bool whole_programs = backends::runs_whole_programs(target_);
  if (whole_programs) r.rpu.machine = rpu::machine_of(target_);
  service_->set_request(r);
  set_rpu_mode(whole_programs);
  auto settings = open_settings(options_);
  settings->setValue("partition/target", QString::fromStdString(target_.source.empty() ? target_.name : target_.source));
  settings->setValue("partition/target_json", target_panel_->edited() ? QString::fromStdString(partition::target_to_json(target_)) : QString());
  settings->setValue("partition/cost", QString::fromStdString(model_.name));
  if (!path_.isEmpty()) {
    set_stale(true);
    service_->compile_now();
  }
}

// A target from a preset, a file, a project or the target panel: shown everywhere, then compiled.
void MainWindow::set_target_desc(const partition::TargetDesc& t, bool edited) {
  target_ = t;
  target_panel_->set_target(t, edited);
  QSignalBlocker block(target_box_);
  const int old = target_box_->findData("edited");
  if (old >= 0) target_box_->removeItem(old);
  if (edited) {
    target_box_->addItem(QString::fromStdString(t.name) + tr(" (edited)"), "edited");
    target_box_->setCurrentIndex(target_box_->count() - 1);
  } else {
    const QString shown = QString::fromStdString(t.source.empty() || backends::runs_whole_programs(t) || partition::load_target(t.name, nullptr) ? t.name : t.source);
    if (target_box_->findText(shown) < 0) target_box_->addItem(shown);
    target_box_->setCurrentText(shown);
  }
  request_changed();
}

bool MainWindow::save_target_as(const QString& path) {
  partition::TargetDesc t = target_;
  QSaveFile f(path);
  const std::string text = partition::target_to_json(t);
  if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) < 0 || !f.commit()) {
    QMessageBox::warning(this, tr("Save failed"), tr("Cannot write %1: %2").arg(path, f.errorString()));
    return false;
  }
  t.source = QFileInfo(path).absoluteFilePath().toStdString();
  set_target_desc(t, false);
  show_status(tr("Saved target %1 to %2").arg(QString::fromStdString(t.name), path));
  return true;
}

bool MainWindow::open_file(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    QMessageBox::warning(this, tr("Cannot open"), tr("Cannot open %1: %2").arg(path, f.errorString()));
    return false;
  }
  const QByteArray bytes = f.readAll();
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  path_ = QFileInfo(path).absoluteFilePath();
  watcher_->addPath(path_);
  loading_ = true;
  editor_->set_grammar(path.endsWith(".glsl") ? editors::Grammar::Glsl : editors::Grammar::Rsl);
  editor_->setText(QString::fromUtf8(bytes));
  editor_->setModified(false);
  editor_->SendScintilla(QsciScintillaBase::SCI_EMPTYUNDOBUFFER);
  loading_ = false;
  session::Request r = service_->request();
  r.path = path_.toStdString();
  r.text = bytes.toStdString();
  r.lights_path.clear();  // the light setup beside the shader, unless a project names another
  r.rpu.scene.clear();     // the sample scene that uses it
  service_->set_request(r);
  request_changed();
  add_recent(path_);
  update_title();
  return true;
}

bool MainWindow::save() {
  // A file the user cannot write (an installed sample under /usr/share/passlab) is saved as a
  // copy: the dialog opens in the home folder instead of failing with "permission denied".
  const QFileInfo file(path_);
  const bool read_only = !path_.isEmpty() && (file.exists() ? !file.isWritable() : !QFileInfo(file.absolutePath()).isWritable());
  if (path_.isEmpty() || read_only) {
    if (read_only) show_status(tr("%1 is read-only: save a copy").arg(path_));
    const QString start = read_only ? QDir::home().filePath(file.fileName()) : QString();
    QString p = QFileDialog::getSaveFileName(this, read_only ? tr("Save a copy of the shader") : tr("Save shader"), start,
                                             tr("Shaders (*.sl *.glsl)"));
    return !p.isEmpty() && save_as(p);
  }
  return save_as(path_);
}

bool MainWindow::save_as(const QString& path) {
  // QSaveFile writes a temporary beside the file and renames it: a crash never leaves half a file.
  QSaveFile f(path);
  ignore_watch_ = true;
  const bool ok = f.open(QIODevice::WriteOnly) && f.write(editor_->text().toUtf8()) >= 0 && f.commit();
  QTimer::singleShot(300, this, [this] { ignore_watch_ = false; });
  if (!ok) {
    QMessageBox::warning(this, tr("Save failed"), tr("Cannot write %1: %2").arg(path, f.errorString()));
    return false;
  }
  const QString abs = QFileInfo(path).absoluteFilePath();
  if (abs != path_) {
    if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
    path_ = abs;
    session::Request r = service_->request();
    r.path = path_.toStdString();
    service_->set_request(r);
    add_recent(path_);
  }
  watcher_->addPath(path_);
  editor_->setModified(false);
  autosave_.remove(autosave_path());
  update_title();
  show_status(tr("Saved %1").arg(QFileInfo(path_).fileName()));
  return true;
}

void MainWindow::set_lights(const QString& path) {
  session::Request r = service_->request();
  r.lights_path = path.isEmpty() ? std::string() : QFileInfo(path).absoluteFilePath().toStdString();
  r.text = editor_->text_utf8();
  service_->set_request(r);
  if (!path_.isEmpty()) {
    set_stale(true);
    service_->compile_now();
  }
}

void MainWindow::set_rpu_scene(const QString& path) {
  session::Request r = service_->request();
  r.rpu.scene = path.isEmpty() ? std::string() : QFileInfo(path).absoluteFilePath().toStdString();
  r.text = editor_->text_utf8();
  service_->set_request(r);
  if (!path_.isEmpty() && rpu_mode_) {
    set_stale(true);
    service_->compile_now();
  }
}

bool MainWindow::save_project_as(const QString& path) {
  Project p;
  p.shader = path_;
  p.lights = QString::fromStdString(service_->request().lights_path);
  p.target = target_;
  if (!target_panel_->edited()) p.target_reference = QString::fromStdString(target_.source.empty() ? target_.name : target_.source);
  p.cost_model = QString::fromStdString(model_.name);
  p.window_state = saveState();
  p.graph_tab = graph_tabs_->currentIndex();
  p.algorithm = passes_->algorithm();
  p.compile_delay_ms = service_->delay();
  p.manual = service_->manual();
  QString error;
  if (!studio::save_project(p, path, &error)) {
    QMessageBox::warning(this, tr("Save failed"), error);
    return false;
  }
  project_path_ = QFileInfo(path).absoluteFilePath();
  add_recent(project_path_);
  show_status(tr("Saved project %1").arg(QFileInfo(path).fileName()));
  return true;
}

// A warning that does not block: the box is shown and nothing waits for it to be closed.
void MainWindow::warn_later(const QString& title, const QString& text, const QString& details) {
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  if (!details.isEmpty()) box->setInformativeText(details);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

bool MainWindow::open_project(const QString& path) {
  QString error;
  project_problems_.clear();
  auto p = load_project(path, &project_problems_, &error);
  if (!p) {
    project_problems_ << error;
    warn_later(tr("Cannot open project"), error);
    return false;
  }
  project_path_ = QFileInfo(path).absoluteFilePath();
  service_->set_delay(p->compile_delay_ms);
  service_->set_manual(p->manual);
  manual_action_->setChecked(p->manual);
  if (!p->cost_model.isEmpty()) set_cost_model(p->cost_model);
  if (p->target) set_target_desc(*p->target, p->target_reference.isEmpty());
  if (!p->window_state.isEmpty()) restoreState(p->window_state);
  graph_tabs_->setCurrentIndex(p->graph_tab);
  passes_->set_algorithm(p->algorithm);
  if (!p->shader.isEmpty()) open_file(p->shader);
  if (!p->lights.isEmpty()) set_lights(p->lights);
  add_recent(project_path_);
  if (!project_problems_.isEmpty()) {
    // Reported without blocking: the rest of the project is open and usable.
    warn_later(tr("Project opened with problems"),
               tr("Parts of %1 could not be used:").arg(QFileInfo(path).fileName()), project_problems_.join("\n"));
    show_status(tr("Opened %1 with %n problem(s)", nullptr, static_cast<int>(project_problems_.size())).arg(QFileInfo(path).fileName()));
  } else {
    show_status(tr("Opened project %1").arg(QFileInfo(path).fileName()));
  }
  return true;
}

void MainWindow::set_target(const QString& name_or_path) {
  if (auto rpu = rpu_target(name_or_path)) {
    set_target_desc(*rpu, false);
    return;
  }
  std::string error;
  auto t = backends::load_target(name_or_path.toStdString(), &error);
  if (!t) {
    show_status(tr("Target not applied: %1").arg(QString::fromStdString(error)));
    return;
  }
  if (!name_or_path.contains('/') && !name_or_path.endsWith(".json")) t->source.clear();  // a preset
  set_target_desc(*t, false);
}

void MainWindow::set_cost_model(const QString& spec) {
  if (cost_box_->currentText() == spec) {
    emit cost_box_->currentTextChanged(spec);  // applies it even when the box already shows it
    return;
  }
  cost_box_->setCurrentText(spec);
}

void MainWindow::set_dark(bool dark) {
  dark_ = dark;
  apply_palette(dark);
  editor_->set_dark(dark);
  open_settings(options_)->setValue("theme/dark", dark);
  if (result_) show_result(result_);
}

void MainWindow::reset_layout() { restoreState(default_state_); }

void MainWindow::set_stale(bool stale) {
  stale_timer_->stop();
  for (auto* g : graphs_) g->set_stale(stale);
  pass_graph_->set_stale(stale);
  passes_->set_stale(stale);
  compare_->set_stale(stale);
  preview_->set_stale(stale);
}

void MainWindow::show_result(ResultPtr result) {
  const auto& s = *result->snapshot;
  if (s.is_rpu() != rpu_mode_) return;  // compiled for the target before the last switch
  editor_->set_diagnostics(s.messages);
  diagnostics_->show_snapshot(s);
  QString text;
  if (s.errors > 0) text = tr("%n error(s); showing the last good result", nullptr, static_cast<int>(s.errors));
  else if (!s.stage_error.empty()) text = QString::fromStdString(s.stage_error);
  else
    text = tr("Compiled in %1 ms, partitioned in %2 ms, laid out in %3 ms · %4 instructions")
               .arg(s.compile_ms, 0, 'f', 1)
               .arg(s.partition_ms, 0, 'f', 1)
               .arg(result->layout_ms, 0, 'f', 1)
               .arg(std::count(s.problem.is_op.begin(), s.problem.is_op.end(), 1));
  if (s.is_rpu()) {
    if (s.rpu && s.rpu->ok())
      text = tr("Compiled for the RPU in %1 ms · %2 words, %3 functions · %4 (%5×%6)")
                 .arg(s.compile_ms, 0, 'f', 1).arg(s.rpu->word_source_line.size()).arg(s.rpu->functions.size())
                 .arg(QString::fromStdString(s.rpu->scene_name)).arg(s.rpu->width).arg(s.rpu->height);
    show_status(text);
    // A version with errors keeps the last good program (and the thread being debugged).
    if (s.rpu && s.rpu->ok()) {
      if (result_) retired_.push_back(std::move(result_));
      result_ = result;
      rpu_session_->set_build(s.rpu);
      trace_->show_snapshot(result->snapshot);
    }
    staged_.reset();
    shown_generation_ = s.generation;
    emit panels_updated(s.generation);
    return;
  }
  show_status(text);
  // A version with errors keeps the last good picture, marked stale.
  if (!s.has_dag() && result_) {
    staged_.reset();
    set_stale(true);
    shown_generation_ = s.generation;
    emit panels_updated(s.generation);
    return;
  }
  if (result_) retired_.push_back(std::move(result_));
  // The optimal run the passes panel holds goes with the old snapshot, but graphs may still draw
  // it until they take the new result: it is freed with the retired results.
  if (passes_->extra_run()) retired_runs_.push_back(passes_->extra_run());
  result_ = result;
  staged_ = result;
  stage_ = 0;
  compare_in_progress_ = false;
  stage_timer_->start();
}

// Graph tab i (the DAG, the two trees, the pass graph) takes result r.
void MainWindow::show_graph_tab(int i, const ResultPtr& r) {
  if (i == 3) pass_graph_->show_snapshot(r->snapshot, r->graphs[0], passes_->current_run());
  else graphs_[i]->show_graph(r->graphs[i], r->layouts[i], r->snapshot, passes_->current_run());
}

views::GraphView* MainWindow::current_graph_view() const {
  const int i = graph_tabs_->currentIndex();
  return i == 3 ? pass_graph_->pass_view() : graphs_[std::clamp(i, 0, 2)];
}

// The panels take the new result a few at a time, the visible ones first, each batch within a
// few milliseconds of UI-thread time, so keystrokes and paints in between are never held up long.
void MainWindow::show_next_stage() {
  QElapsedTimer slice;
  slice.start();
  while (staged_) {
    const ResultPtr r = staged_;
    const int visible = graph_tabs_->currentIndex();
    QElapsedTimer clock;
    clock.start();
    if (stage_ == 0) stage_ms_.clear();
    const int stage = stage_;
    switch (stage_++) {
      case 0:
        passes_->show_snapshot(r->snapshot);
        break;
      case 1:
        show_graph_tab(visible, r);
        break;
      case 2:
        // The compare panel, when visible, takes the result a piece per slice (three DAGs, then
        // the table and chart): this stage repeats until it is done.
        if (!compare_in_progress_) compare_->show_snapshot(r->snapshot, r->graphs[0], r->layouts[0]);
        compare_in_progress_ = compare_->show_next_piece();
        if (compare_in_progress_) --stage_;  // again on the next pass through the loop
        break;
      case 3:
        // Takes the snapshot and, when on screen, starts rendering it on the panel's worker.
        preview_->show_snapshot(r->snapshot, passes_->current_run());
        sampling_->show_snapshot(r->snapshot, passes_->current_run());
        break;
      case 4:
        trace_->show_snapshot(r->snapshot);
        timeline_->show_snapshot(r->snapshot);
        break;
      case 5:
      case 6:
      case 7:
        show_graph_tab((visible + stage_ - 5) % 4, r);  // the other three tabs
        break;
      default: {
        staged_.reset();
        // A newer version already being compiled gets its own deadline from now.
        if (service_->busy()) stale_timer_->start();
        else set_stale(false);
        // No panel refers to the older results any more: free them (a snapshot holds the whole
        // trace, tens of thousands of events) on a worker thread, not in the UI's time.
        views::work_pool().start([old = std::move(retired_), runs = std::move(retired_runs_)]() mutable {
          old.clear();
          runs.clear();
        });
        retired_.clear();
        retired_runs_.clear();
        shown_generation_ = r->snapshot->generation;
        stage_ms_.push_back(clock.nsecsElapsed() / 1e6);
        emit panels_updated(r->snapshot->generation);
        return;
      }
    }
    // A repeated stage (the compare panel's pieces) adds up in one entry.
    if (static_cast<int>(stage_ms_.size()) <= stage) stage_ms_.resize(stage + 1, 0.0);
    stage_ms_[stage] += clock.nsecsElapsed() / 1e6;
    if (slice.elapsed() >= 4) break;  // the rest on the next turn of the event loop, after a repaint
  }
  if (staged_) stage_timer_->start();
}

void MainWindow::on_nodes_selected(const std::vector<std::uint32_t>& ids, QObject* from) {
  selection_ = ids;
  for (auto* g : graphs_)
    if (g != from) g->select_nodes(ids);
  if (from != pass_graph_) pass_graph_->select_nodes(ids);
  if (from != passes_) passes_->select_nodes(ids);
  if (from != timeline_) timeline_->select_nodes(ids);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
  if (result_ && result_->snapshot->has_dag()) {
    const auto& s = *result_->snapshot;
    for (auto id : ids) {
      if (id >= s.graph().size()) continue;
      for (const auto& sp : s.graph().nodes[id].spans)
        if (sp.valid() && s.program->sources->file(sp.file).path == s.request.path) spans.emplace_back(sp.offset, sp.length);
    }
  }
  editor_->set_span_highlights(spans);
  if (!spans.empty() && from != editor_) {
    int line = 0, index = 0;
    editor_->lineIndexFromPosition(static_cast<int>(spans.front().first), &line, &index);
    editor_->ensureLineVisible(line);
  }
}

void MainWindow::on_cursor_line(int line) {
  if (rpu_mode_) {
    rpu_code_->highlight_source_line(line);
    return;
  }
  if (!result_) return;
  auto ids = session::nodes_on_line(*result_->snapshot, static_cast<std::uint32_t>(line));
  selection_ = ids;
  for (auto* g : graphs_) g->select_nodes(ids);
  passes_->select_nodes(ids);
  timeline_->select_nodes(ids);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> none;
  editor_->set_span_highlights(none);
}

void MainWindow::on_hover(int position, const QPoint& global) {
  QString text;
  for (const auto& m : result_ ? result_->snapshot->messages : std::vector<session::Message>{})
    if (m.in_main_file && position >= static_cast<int>(m.offset) && position <= static_cast<int>(m.offset + m.length))
      text += QString("%1: %2\n").arg(lang::to_string(m.severity), QString::fromStdString(m.message));
  if (result_)
    if (auto h = session::hover_at(*result_->snapshot, static_cast<std::uint32_t>(position)))
      text += QString("<b>%1</b>: %2 (%3)").arg(QString::fromStdString(h->name), QString::fromStdString(h->type),
                                                QString::fromStdString(h->kind));
  if (!text.isEmpty()) QToolTip::showText(global, text.trimmed().replace("\n", "<br>"), editor_);
}

void MainWindow::set_rpu_mode(bool on) {
  if (on == rpu_mode_) return;
  rpu_mode_ = on;
  const QStringList fragment = {"dock-graphs", "dock-passes", "dock-compare", "dock-preview", "dock-timeline", "dock-target"};
  const QStringList rpu = {"dock-rpu-code", "dock-rpu-render", "dock-rpu-debugger", "dock-rpu-decisions"};
  const QStringList& leave = on ? fragment : rpu;
  const QStringList& enter = on ? rpu : fragment;
  QStringList& was_open = on ? hidden_for_rpu_ : shown_for_rpu_;
  QStringList& reopen = on ? shown_for_rpu_ : hidden_for_rpu_;
  was_open.clear();
  for (const QString& name : leave)
    if (auto* d = static_cast<QDockWidget*>(dock_widget(name)); d && !d->isHidden()) {
      was_open << name;
      d->hide();
    }
  // The first visit shows every panel of the perspective; later ones what the user left open.
  const QStringList& show = reopen.isEmpty() ? enter : reopen;
  for (const QString& name : show)
    if (auto* d = static_cast<QDockWidget*>(dock_widget(name))) d->show();
  if (on) {
    auto* code = static_cast<QDockWidget*>(dock_widget("dock-rpu-code"));
    code->raise();
    if (reopen.isEmpty()) {
      // The first visit: the debugger as tall as the code, the decisions in front of the trace.
      static_cast<QDockWidget*>(dock_widget("dock-rpu-decisions"))->raise();
      resizeDocks({code}, {820}, Qt::Horizontal);
      resizeDocks({code, static_cast<QDockWidget*>(dock_widget("dock-rpu-debugger"))}, {400, 520}, Qt::Vertical);
    }
  }
  editor_->set_breakpoints_enabled(on);
  debug_menu_->setEnabled(on);
  for (QAction* a : rpu_debugger_->move_actions()) a->setEnabled(on && rpu_session_->debugger());
  if (!on) {
    rpu_session_->set_build(nullptr);
    result_.reset();
  } else {
    std::vector<int> lines;
    for (std::uint32_t l : rpu_session_->line_breakpoints()) lines.push_back(static_cast<int>(l));
    editor_->set_breakpoint_lines(lines);
  }
}

// The line of the main file the debugged thread executes next, marked in the editor.
void MainWindow::show_rpu_debug_line() {
  const views::RpuSession& s = *rpu_session_;
  int line = 0;
  if (const rpu::Debugger* d = s.debugger(); d && s.build()) {
    const rpu::ThreadState& t = d->thread(d->lane());
    if (t.status == rpu::ThreadStatus::Running && t.pc < s.build()->word_source_line.size()) line = static_cast<int>(s.build()->word_source_line[t.pc]);
  }
  editor_->set_execution_line(rpu_mode_ ? line : 0);
}

// A status-bar message, not a label: changing it repaints the bar without relayouting the window.
void MainWindow::show_status(const QString& text) { statusBar()->showMessage(text); }

void MainWindow::update_title() {
  const QString name = path_.isEmpty() ? tr("untitled") : QFileInfo(path_).fileName();
  setWindowTitle(QString("%1%2 — Passlab Studio").arg(name, editor_->isModified() ? "*" : ""));
}

bool MainWindow::maybe_save() {
  if (!editor_->isModified()) return true;
  auto answer = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(QFileInfo(path_).fileName()),
                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::add_recent(const QString& path) {
  auto settings = open_settings(options_);
  QStringList recent = settings->value("files/recent").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 10) recent.removeLast();
  settings->setValue("files/recent", recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  auto settings = open_settings(options_);
  for (const QString& p : settings->value("files/recent").toStringList())
    recent_menu_->addAction(p, this, [this, p] {
      if (!maybe_save()) return;
      if (p.endsWith(".passlab")) open_project(p);
      else open_file(p);
    });
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

QString MainWindow::autosave_path() const {
  QString dir = options_.autosave_dir.isEmpty()
                    ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave"
                    : options_.autosave_dir;
  return QString("%1/session-%2.sl").arg(dir).arg(QCoreApplication::applicationPid());
}

void MainWindow::write_autosave() {
  if (!editor_->isModified() || !autosave_dirty_) return;
  autosave_dirty_ = false;
  QJsonObject o{{"path", path_}, {"saved", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                {"pid", static_cast<qint64>(QCoreApplication::applicationPid())}};
  autosave_.write(autosave_path(), editor_->text().toUtf8(), QJsonDocument(o).toJson());
}

void MainWindow::wait_for_autosave() { autosave_.wait(); }

QStringList MainWindow::pending_recoveries() const {
  QStringList out;
  QDir dir(QFileInfo(autosave_path()).absolutePath());
  for (const QFileInfo& fi : dir.entryInfoList({"session-*.sl"}, QDir::Files, QDir::Name)) {
    if (fi.absoluteFilePath() == QFileInfo(autosave_path()).absoluteFilePath()) continue;
    bool ok = false;
    const qint64 pid = fi.completeBaseName().mid(8).toLongLong(&ok);
    // A session whose process still runs is another open Studio, not a crash.
    if (ok && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0) continue;
    out << fi.absoluteFilePath();
  }
  return out;
}

bool MainWindow::recover_autosave(const QString& autosave) {
  QFile f(autosave);
  if (!f.open(QIODevice::ReadOnly)) return false;
  const QByteArray text = f.readAll();
  QFile meta(autosave + ".json");
  QString original;
  if (meta.open(QIODevice::ReadOnly)) original = QJsonDocument::fromJson(meta.readAll()).object().value("path").toString();
  if (!original.isEmpty() && QFileInfo::exists(original)) open_file(original);
  else if (!original.isEmpty()) path_ = original;
  editor_->setText(QString::fromUtf8(text));  // recovered text is unsaved work: the buffer stays modified
  editor_->setModified(true);
  f.remove();
  QFile::remove(autosave + ".json");
  write_autosave();
  update_title();
  show_status(tr("Recovered unsaved work from a session that did not end cleanly"));
  return true;
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!maybe_save()) {
    e->ignore();
    return;
  }
  auto settings = open_settings(options_);
  settings->setValue("window/geometry", saveGeometry());
  settings->setValue("window/state", saveState());
  autosave_.remove(autosave_path());
  e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile() && (u.toLocalFile().endsWith(".sl") || u.toLocalFile().endsWith(".glsl") ||
                            u.toLocalFile().endsWith(".passlab"))) {
      e->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile() && maybe_save()) {
      if (u.toLocalFile().endsWith(".passlab")) open_project(u.toLocalFile());
      else open_file(u.toLocalFile());
      return;
    }
}

}  // namespace passlab::studio
