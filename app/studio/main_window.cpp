// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's main window: its panels and docks assembled, and each compile result handed to
// them a few panels per event-loop turn. Menus and actions: main_window_menus.cpp; files,
// projects and autosave: main_window_files.cpp.
#include "app/studio/main_window.h"

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

#include "app/studio/main_window_internal.h"
#include "app/studio/marking.h"
#include "app/studio/presentation.h"
#include "app/studio/project.h"
#include "app/studio/samples.h"
#include "backends/registry/registry.h"
#include "backends/rpu/registration.h"
#include "editors/find_bar.h"
#include "editors/shader_editor.h"
#include "session/background.h"
#include "session/hover.h"
#include "views/compare_panel.h"
#include "views/diagnostics_panel.h"
#include "views/graph_view.h"
#include "views/lessons_panel.h"
#include "views/marking_bar.h"
#include "views/view_export.h"
#include "views/pass_graph_panel.h"
#include "views/passes_panel.h"
#include "views/preview_panel.h"
#include "views/rpu_code_panel.h"
#include "views/rpu_debugger_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_render_panel.h"
#include "views/rpu_session.h"
#include "views/sampling_panel.h"
#include "views/studio_model.h"
#include "views/target_panel.h"
#include "views/timeline_panel.h"
#include "views/trace_player.h"
#include "views/work_pool.h"

namespace passlab::studio {

namespace window {


QString samples_dir() { return samples_path("shaders"); }

// The RPU targets in the target box: what it shows and the machine preset each loads.
const std::pair<const char*, const char*> kRpuTargets[2] = {{"RPU", "rpu"}, {"RPU (thesis example)", "thesis_example"}};

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

}  // namespace window

using namespace window;

MainWindow::MainWindow(const StudioOptions& options, QWidget* parent) : QMainWindow(parent), options_(options) {
  session::run_responsive();  // this is the UI thread
  setObjectName("PasslabStudio");
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
  service_ = new CompileService(this);
  studio_ = new views::StudioModel(this);
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
  // While typing, results follow each other within a fraction of a second: the panels are dimmed
  // only when one is slow to come (dimming and undimming every view on each keystroke would
  // flicker and cost a full repaint of every graph).
  stale_timer_ = new QTimer(this);
  stale_timer_->setSingleShot(true);
  stale_timer_->setInterval(400);
  connect(stale_timer_, &QTimer::timeout, this, [this] { set_stale(true); });

  build_docks();
  observe_results();
  presentation_ = std::make_unique<Presentation>(this, editor_);
  build_menus();
  views::offer_export_everywhere(this);  // every chart and graph: copy, SVG, PNG
  load_lessons();

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
            if (!studio_->result() || s != studio_->result()->snapshot) return;  // a search of an older version
            compare_->optimal_finished(run, cancelled);
            studio_->set_optimal_run(std::move(run));
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
  const QByteArray custom = settings->value("partition/target_json").toByteArray();
  if (auto t = custom.isEmpty() ? std::nullopt : partition::parse_target(custom.toStdString(), "", nullptr))
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
  // The application's font, palette and cursor are not the window's: give them back.
  if (presentation_ && presentation_->on()) presentation_->set_on(false);
}

QString MainWindow::target_name() const { return QString::fromStdString(studio_->target().name); }
const partition::TargetDesc& MainWindow::target() const { return studio_->target(); }
const partition::CostModel& MainWindow::cost_model() const { return studio_->cost_model(); }
const ResultPtr& MainWindow::result() const { return studio_->result(); }

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
    views::follow_selection(studio_, graphs_[i], &views::GraphView::nodes_selected);
  }
  pass_graph_ = new views::PassGraphPanel(this);
  graph_tabs_->addTab(pass_graph_, tr("Pass graph"));
  graph_tabs_->setTabToolTip(3, tr("One node per pass, sized by its cost, with an arrow from each pass to the passes that read a value it saved; click a pass to see its nodes"));
  views::follow_selection(studio_, pass_graph_, &views::PassGraphPanel::nodes_selected);
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
  connect(studio_, &views::StudioModel::target_changed, target_panel_, &views::TargetPanel::set_target);
  connect(studio_, &views::StudioModel::target_changed, this, &MainWindow::show_target);
  rpu_session_ = new views::RpuSession(this);
  rpu_code_ = new views::RpuCodePanel(rpu_session_, this);
  rpu_debugger_ = new views::RpuDebuggerPanel(rpu_session_, this);
  rpu_render_ = new views::RpuRenderPanel(rpu_session_, this);
  rpu_decisions_ = new views::RpuDecisionsPanel(rpu_session_, this);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
  // The graphs with the marking bar over them (shown while partitioning by hand).
  marking_bar_ = new views::MarkingBar(this);
  marking_bar_->hide();
  marking_ = new Marking(studio_, marking_bar_, this);
  auto* graphs_box = new QWidget(this);
  auto* graphs_layout = new QVBoxLayout(graphs_box);
  graphs_layout->setContentsMargins(0, 0, 0, 0);
  graphs_layout->setSpacing(0);
  graphs_layout->addWidget(marking_bar_);
  graphs_layout->addWidget(graph_tabs_, 1);
  auto* g = dock(tr("Graphs"), "dock-graphs", graphs_box, Qt::RightDockWidgetArea);
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
  // Lessons, at the left of the editor, shown on demand (View ▸ Lessons).
  lessons_ = new views::LessonsPanel(this);
  auto* ls = dock(tr("Lessons"), "dock-lessons", lessons_, Qt::LeftDockWidgetArea);
  ls->hide();
  connect(lessons_, &views::LessonsPanel::step_shown, this, [this](const session::LessonStep& step) { run_lesson_step(step); });
  connect(lessons_, &views::LessonsPanel::check_requested, this, [this](const session::LessonQuestion& q, const QString& answer) {
    lessons_->show_verdict(check_lesson_question(q, answer));
  });
  connect(this, &MainWindow::panels_updated, this, [this] { continue_lesson(); });
  connect(rpu_session_, &views::RpuSession::debugger_changed, this, [this] { continue_lesson(); });
  connect(rpu_session_, &views::RpuSession::recording_changed, this, [this] { continue_lesson(); });
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
  // The partition shown: the passes panel chooses the algorithm, the graphs, the previews and the
  // timeline follow; an optimal search run on demand joins the panels that list runs.
  studio_->set_algorithm(passes_->algorithm());
  connect(passes_, &views::PassesPanel::algorithm_changed, this, [this](const QString& a) {
    if (a == views::StudioModel::kYours) marking_->set_on(true);
    else studio_->set_algorithm(a);
  });
  // Partition it yourself: while the panels show your partition, the DAG view marks by clicks and
  // the bar over the graphs says what the marks make.
  connect(studio_, &views::StudioModel::algorithm_changed, this, [this, g](const QString& a) {
    const bool marking = a == views::StudioModel::kYours;
    passes_->set_algorithm(a);
    graphs_[0]->set_marking(marking);
    pass_graph_->pass_view()->set_marking(marking);     // a pass clicked: its root unmarked (merged into its readers)
    pass_graph_->subgraph_view()->set_marking(marking);  // the pass's part of the DAG, like the DAG view
    marking_bar_->setVisible(marking);
    if (marking_action_) marking_action_->setChecked(marking);
    if (marking) {
      graph_tabs_->setCurrentIndex(0);
      g->show();
      g->raise();
    }
  });
  connect(graphs_[0], &views::GraphView::mark_requested, marking_, &Marking::toggle);
  connect(pass_graph_->subgraph_view(), &views::GraphView::mark_requested, marking_, &Marking::toggle);
  connect(pass_graph_->pass_view(), &views::GraphView::mark_requested, this, [this](std::uint32_t pass) {
    const session::AlgorithmRun* run = studio_->run();
    if (run && pass < run->partition.passes.size()) marking_->toggle(run->partition.passes[pass].root);
  });
  connect(studio_, &views::StudioModel::yours_run_changed, this, [this](std::shared_ptr<const session::AlgorithmRun> run) {
    passes_->set_extra_run(views::StudioModel::kYours, run);
    timeline_->set_extra_run(views::StudioModel::kYours, run);
    compare_->set_yours_run(std::move(run));
  });
  connect(studio_, &views::StudioModel::run_changed, this, [this](const session::AlgorithmRun* run) {
    for (auto* gv : graphs_) gv->set_run(run);
    pass_graph_->set_run(run);
    preview_->set_run(run);
    sampling_->set_run(run);
    timeline_->set_algorithm(studio_->algorithm());
  });
  connect(studio_, &views::StudioModel::optimal_run_changed, this, [this](std::shared_ptr<const session::AlgorithmRun> run) {
    passes_->set_extra_run("optimal", run);
    timeline_->set_extra_run("optimal", std::move(run));
  });
  views::follow_selection(studio_, timeline_, &views::TimelinePanel::nodes_selected);
  views::follow_selection(studio_, passes_, &views::PassesPanel::pass_selected);
  // The editor shows the selection's source spans, unless it chose the selection (a cursor move).
  connect(studio_, &views::StudioModel::selection_changed, this,
          [this](const std::vector<std::uint32_t>& ids, const QObject* origin) { show_selection_in_editor(ids, origin == editor_); });
  connect(diagnostics_, &views::DiagnosticsPanel::jump, this, [this](const QString& file, int line, int col) {
    if (line > 0 && (file.isEmpty() || QFileInfo(file).fileName() == QFileInfo(path_).fileName())) editor_->go_to(line, col);
  });
  connect(compare_, &views::ComparePanel::optimal_requested, this, &MainWindow::run_optimal);
  connect(target_panel_, &views::TargetPanel::target_edited, this,
          [this](const partition::TargetDesc& t) { set_target_desc(t, true); });
  connect(target_panel_, &views::TargetPanel::cost_model_edited, studio_, &views::StudioModel::set_cost_model);
  connect(studio_, &views::StudioModel::cost_model_changed, target_panel_, &views::TargetPanel::set_cost_model);
  connect(studio_, &views::StudioModel::cost_model_changed, this, &MainWindow::show_cost_model);
  connect(target_panel_, &views::TargetPanel::save_requested, this, [this] {
    const QString dir = path_.isEmpty() ? QDir::homePath() : QFileInfo(path_).absolutePath();
    QString p = QFileDialog::getSaveFileName(this, tr("Save target as"),
                                             dir + "/" + QString::fromStdString(studio_->target().name) + ".json", tr("Targets (*.json)"));
    if (!p.isEmpty()) save_target_as(p);
  });
  connect(compare_, &views::ComparePanel::optimal_cancel_requested, service_, &CompileService::cancel_optimal);
  // The trace position: the player moves it; the DAG view, the timeline and (on the RPU) the
  // compiler's decisions show it.
  connect(trace_, &views::TracePlayer::frame_changed, studio_, &views::StudioModel::set_frame);
  connect(studio_, &views::StudioModel::frame_changed, graphs_[0], &views::GraphView::show_frame);
  connect(studio_, &views::StudioModel::frame_changed, timeline_, &views::TimelinePanel::show_frame);
  connect(studio_, &views::StudioModel::frame_changed, this, [this](const views::TraceFrame& f) {
    if (rpu_mode_) rpu_decisions_->show_frame(f);
  });
}

void MainWindow::set_stale(bool stale) {
  stale_timer_->stop();
  for (auto* g : graphs_) g->set_stale(stale);
  pass_graph_->set_stale(stale);
  passes_->set_stale(stale);
  compare_->set_stale(stale);
  preview_->set_stale(stale);
}

// Each panel that shows compile results takes them from the model, those on screen first.
void MainWindow::observe_results() {
  using Takes = views::ResultObserver::Takes;
  // The passes panel and the timeline also list the optimal search's run, which a result shown
  // again (a theme change) keeps.
  studio_->observe_result("passes", Takes::Dataflow, [this](const ResultPtr& r, int) {
    passes_->show_snapshot(r->snapshot);
    if (studio_->optimal_run()) passes_->set_extra_run("optimal", studio_->optimal_run());
    if (studio_->yours_run()) passes_->set_extra_run(views::StudioModel::kYours, studio_->yours_run());
    return false;
  }, [] { return true; });
  // The compare panel, when visible, takes the result a piece per turn (three DAGs, then the table
  // and the chart).
  studio_->observe_result("compare", Takes::Dataflow, [this](const ResultPtr& r, int piece) {
    if (piece == 0) {
      compare_->show_snapshot(r->snapshot, r->graphs[0], r->layouts[0]);
      compare_->set_yours_run(studio_->yours_run());
    }
    return compare_->show_next_piece();
  });
  // Each takes the snapshot and, when on screen, starts rendering it on its worker.
  studio_->observe_result("preview", Takes::Dataflow, [this](const ResultPtr& r, int) {
    preview_->show_snapshot(r->snapshot, studio_->run());
    return false;
  });
  studio_->observe_result("sampling", Takes::Dataflow, [this](const ResultPtr& r, int) {
    sampling_->show_snapshot(r->snapshot, studio_->run());
    return false;
  });
  studio_->observe_result("trace", Takes::Both, [this](const ResultPtr& r, int) {
    trace_->show_snapshot(r->snapshot);
    return false;
  });
  studio_->observe_result("timeline", Takes::Dataflow, [this](const ResultPtr& r, int) {
    timeline_->show_snapshot(r->snapshot);
    if (studio_->optimal_run()) timeline_->set_extra_run("optimal", studio_->optimal_run());
    if (studio_->yours_run()) timeline_->set_extra_run(views::StudioModel::kYours, studio_->yours_run());
    return false;
  });
  studio_->observe_result("rpu", Takes::WholeProgram, [this](const ResultPtr& r, int) {
    rpu_session_->set_build(r->snapshot->rpu);
    return false;
  });
  // The graph tabs last, but the one on screen right after the passes.
  const char* names[4] = {"dag", "dominators", "partial dominators", "pass graph"};
  for (int i = 0; i < 4; ++i)
    studio_->observe_result(names[i], Takes::Dataflow, [this, i](const ResultPtr& r, int) {
      if (i == 3) pass_graph_->show_snapshot(r->snapshot, r->graphs[0], studio_->run());
      else graphs_[i]->show_graph(r->graphs[i], r->layouts[i], r->snapshot, studio_->run());
      return false;
    }, [this, i] { return graph_tabs_->currentIndex() == i; });
  connect(studio_, &views::StudioModel::result_shown, this, [this] { panels_shown(); });
}

void MainWindow::show_result(ResultPtr result) {
  const auto& s = *result->snapshot;
  if (s.is_rpu() != rpu_mode_) return;  // compiled for the target before the last switch
  editor_->set_diagnostics(s.messages);
  if (s.program && !s.is_rpu()) show_outputs(*s.program);
  diagnostics_->show_snapshot(s);
  QString text;
  if (s.errors > 0) text = tr("%n error(s); showing the last good result", nullptr, static_cast<int>(s.errors));
  else
    text = tr("Compiled in %1 ms, partitioned in %2 ms, laid out in %3 ms · %4 instructions")
               .arg(s.compile_ms, 0, 'f', 1)
               .arg(s.partition_ms, 0, 'f', 1)
               .arg(result->layout_ms, 0, 'f', 1)
               .arg(std::count(s.problem.is_op.begin(), s.problem.is_op.end(), 1));
  if (s.is_rpu() && s.rpu && s.rpu->ok())
    text = tr("Compiled for the RPU in %1 ms · %2 words, %3 functions · %4 (%5×%6)")
               .arg(s.compile_ms, 0, 'f', 1).arg(s.rpu->word_source_line.size()).arg(s.rpu->functions.size())
               .arg(QString::fromStdString(s.rpu->scene_name)).arg(s.rpu->width).arg(s.rpu->height);
  show_status(text);
  // A version with errors keeps the last good result on the panels (the last good program and the
  // thread being debugged, on the RPU), marked stale; the first result is shown whatever it holds.
  latest_generation_ = s.generation;
  latest_shown_ = s.is_rpu() ? s.rpu && s.rpu->ok() : s.has_dag() || !studio_->result();
  if (latest_shown_) {
    auto yours = s.is_rpu() ? nullptr : marking_->run_for(result);  // your marks, followed onto the new DAG
    studio_->show_result(std::move(result), std::move(yours));
  }
  else if (!studio_->delivering()) panels_shown();
}

// The optimal search on the result the panels show, its progress in the compare panel.
void MainWindow::run_optimal(double budget_seconds) {
  if (!studio_->result()) return;
  compare_->optimal_started();
  service_->run_optimal(studio_->result()->snapshot, budget_seconds);
}

views::GraphView* MainWindow::current_graph_view() const {
  const int i = graph_tabs_->currentIndex();
  return i == 3 ? pass_graph_->pass_view() : graphs_[std::clamp(i, 0, 2)];
}

// The panels show the latest result, or the last good one before it when it has errors.
void MainWindow::panels_shown() {
  if (!rpu_mode_) {
    if (!latest_shown_) set_stale(true);
    // A newer version already being compiled gets its own deadline from now.
    else if (service_->busy()) stale_timer_->start();
    else set_stale(false);
  }
  shown_generation_ = latest_generation_;
  emit panels_updated(shown_generation_);
}

void MainWindow::show_selection_in_editor(const std::vector<std::uint32_t>& ids, bool from_editor) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
  if (!from_editor && studio_->result() && studio_->result()->snapshot->has_dag()) {
    const auto& s = *studio_->result()->snapshot;
    for (auto id : ids) {
      if (id >= s.graph().size()) continue;
      for (const auto& sp : s.graph().nodes[id].spans)
        if (sp.valid() && s.program->sources->file(sp.file).path == s.request.path) spans.emplace_back(sp.offset, sp.length);
    }
  }
  editor_->set_span_highlights(spans);
  if (!spans.empty()) {
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
  if (!studio_->result()) return;
  studio_->select(session::nodes_on_line(*studio_->result()->snapshot, static_cast<std::uint32_t>(line)), editor_);
}

void MainWindow::on_hover(int position, const QPoint& global) {
  QString text;
  const ResultPtr& result = studio_->result();
  for (const auto& m : result ? result->snapshot->messages : std::vector<session::Message>{})
    if (m.in_main_file && position >= static_cast<int>(m.offset) && position <= static_cast<int>(m.offset + m.length))
      text += QString("%1: %2\n").arg(lang::to_string(m.severity), QString::fromStdString(m.message));
  if (result)
    if (auto h = session::hover_at(*result->snapshot, static_cast<std::uint32_t>(position)))
      text += QString("<b>%1</b>: %2 (%3)").arg(QString::fromStdString(h->name), QString::fromStdString(h->type),
                                                QString::fromStdString(h->kind));
  if (!text.isEmpty()) QToolTip::showText(global, text.trimmed().replace("\n", "<br>"), editor_);
}

void MainWindow::set_rpu_mode(bool on) {
  if (on == rpu_mode_) return;
  if (presentation()) set_presentation(false);  // it would give back the other perspective's panels
  rpu_mode_ = on;
  if (on) output_action_->setVisible(false);  // the RPU runs the whole shader; Ci is its picture
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
  if (!on) rpu_session_->set_build(nullptr);
  studio_->clear_result();
  if (on) {
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

}  // namespace passlab::studio
