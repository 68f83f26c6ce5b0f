// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's menus, toolbar and the actions behind them: targets, cost models, themes and
// the layout.
#include "app/studio/main_window.h"

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
#include <QHBoxLayout>
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
#include "views/marking_bar.h"
#include "views/view_export.h"
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

using namespace window;

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
  edit->addAction(tr("Copy View as &Image"), this, [this] { copy_view_image(); })->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
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
  view->addSeparator();
  auto* lessons = static_cast<QDockWidget*>(dock_widget("dock-lessons"))->toggleViewAction();
  lessons->setText(tr("&Lessons"));
  lessons->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
  lessons->setToolTip(tr("Lessons a lecturer can run in class, one per system, step by step with questions the Studio checks"));
  view->addAction(lessons);
  presentation_action_ = view->addAction(tr("&Presentation Mode"), this, [this](bool on) { set_presentation(on); });
  presentation_action_->setCheckable(true);
  presentation_action_->setShortcut(QKeySequence(tr("F12")));
  presentation_action_->setToolTip(tr("For the lecture hall: larger fonts, thicker lines, high contrast, the current panel maximised and a "
                                      "laser-pointer cursor (F12 again to end it)"));
  addAction(presentation_action_);  // F12 works wherever the focus is

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
  build->addAction(tr("Run &Optimal Search"), this, [this] { run_optimal(compare_->budget_seconds()); })->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  build->addAction(tr("Ca&ncel Optimal Search"), service_, &CompileService::cancel_optimal);

  // Partition it yourself: the student as the partitioner.
  auto* hand = menuBar()->addMenu(tr("&Partition"));
  hand->setToolTipsVisible(true);
  marking_action_ = hand->addAction(tr("Partition It &Yourself"), this, [this](bool on) { marking_->set_on(on); });
  marking_action_->setCheckable(true);
  marking_action_->setShortcut(QKeySequence(tr("Ctrl+M")));
  marking_action_->setToolTip(tr("Click nodes of the DAG to save their values; the panels show the passes your marks make"));
  auto* undo_mark = hand->addAction(tr("&Undo Mark"), marking_, &Marking::undo);
  undo_mark->setShortcut(QKeySequence(tr("Ctrl+Alt+Z")));
  auto* redo_mark = hand->addAction(tr("&Redo Mark"), marking_, &Marking::redo);
  redo_mark->setShortcut(QKeySequence(tr("Ctrl+Alt+Shift+Z")));
  auto* from_rds = hand->addAction(tr("Start From RDS's &Marks"), this, [this] {
    marking_->set_on(true);
    marking_->start_from("rds");
  });
  auto* clear_marks = hand->addAction(tr("&Clear Marks"), marking_, &Marking::clear);
  auto* hint = hand->addAction(tr("Show a &Hint"), marking_, &Marking::hint);
  hint->setShortcut(QKeySequence(tr("Ctrl+Alt+H")));
  hint->setToolTip(tr("One mark whose change makes your partition better (off until asked)"));
  hand->addSeparator();
  auto* import_marks = hand->addAction(tr("&Import Marks…"), this, [this] { import_marks_dialog(); });
  auto* export_marks = hand->addAction(tr("&Export Marks…"), this, [this] { export_marks_dialog(); });
  for (QAction* a : {undo_mark, redo_mark, hint}) addAction(a);  // the shortcuts work wherever the focus is
  connect(marking_bar_, &views::MarkingBar::import_requested, this, [this] { import_marks_dialog(); });
  connect(marking_bar_, &views::MarkingBar::export_requested, this, [this] { export_marks_dialog(); });
  const auto enable = [=, this] {
    const bool dag = !rpu_mode_;
    const bool on = marking_->on();
    marking_action_->setEnabled(dag);
    undo_mark->setEnabled(on && marking_->marks().can_undo());
    redo_mark->setEnabled(on && marking_->marks().can_redo());
    for (QAction* a : {from_rds, import_marks}) a->setEnabled(dag);
    for (QAction* a : {clear_marks, hint, export_marks}) a->setEnabled(dag && on);
  };
  connect(marking_, &Marking::changed, this, enable);
  connect(studio_, &views::StudioModel::algorithm_changed, this, enable);
  enable();

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
    lang::Diagnostics problems;
    auto t = backends::load_target(target_box_->currentText().toStdString(), &problems);
    if (applied(tr("target"), problems)) set_target_desc(*t, false);
  });
  connect(cost_box_, &QComboBox::currentTextChanged, this, [this](const QString& spec) {
    lang::Diagnostics problems;
    auto m = partition::parse_cost_model(spec.toStdString(), &problems);
    if (applied(tr("cost model"), problems)) studio_->set_cost_model(*m);
  });
  // Which of the shader's results the fragment programs compute: Ci, or an output parameter
  // (an AOV, which a renderer writes to its own image), partitioned and previewed like Ci.
  auto* output = new QWidget(this);
  auto* output_row = new QHBoxLayout(output);
  output_row->setContentsMargins(0, 0, 0, 0);
  output_row->setSpacing(0);
  output_row->addWidget(new QLabel(tr(" Output "), output));
  output_box_ = new QComboBox(output);
  output_row->addWidget(output_box_);
  output_box_->setObjectName("output-box");
  output_box_->addItem(tr("Ci"), QString());
  output_box_->setToolTip(tr("What the fragment programs compute: Ci, or one of the shader's output parameters (AOVs)"));
  output_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  output_action_ = bar->addWidget(output);
  output_action_->setObjectName("output-action");
  output_action_->setVisible(false);
  connect(output_box_, &QComboBox::currentIndexChanged, this, [this] {
    session::Request r = service_->request();
    const QString data = output_box_->currentData().toString();
    r.all_outputs = data == QLatin1String(kAllOutputs);
    r.aov = r.all_outputs ? std::string() : data.toStdString();
    if (r.aov == service_->request().aov && r.all_outputs == service_->request().all_outputs) return;
    service_->set_request(r);
    if (!path_.isEmpty()) {
      set_stale(true);
      service_->relayout();  // another output is another DAG: laid out afresh, not from this one's places
    }
  });
  bar->addSeparator();
  bar->addAction(tr("Compile"), service_, &CompileService::compile_now);
}

// The output box lists Ci and the shader's output parameters, as the lowered shader names its
// results after Ci and Oi (an array's elements each); an output the shader no longer has falls
// back to Ci.
void MainWindow::show_outputs(const driver::Program& program) {
  if (!program.module) return;  // it did not compile: keep the list until it does again
  QStringList outputs;
  const std::vector<std::string>& results = program.module->shader().result_names;
  for (std::size_t k = 2; k < results.size(); ++k) outputs << QString::fromStdString(results[k]);
  const QString chosen = service_->request().all_outputs ? QString(kAllOutputs) : QString::fromStdString(service_->request().aov);
  QStringList listed;
  for (int i = 1; i < output_box_->count(); ++i)
    if (output_box_->itemData(i).toString() != QLatin1String(kAllOutputs)) listed << output_box_->itemData(i).toString();
  if (listed != outputs || (outputs.isEmpty() != (output_box_->count() == 1))) {
    QSignalBlocker block(output_box_);
    while (output_box_->count() > 1) output_box_->removeItem(1);
    for (const QString& o : outputs) output_box_->addItem(tr("AOV %1").arg(o), o);
    // Every output at once: a shader of several outputs, each written to a render target of its
    // own (what MRDS partitions for).
    if (!outputs.isEmpty()) {
      output_box_->addItem(tr("All outputs"), QString(kAllOutputs));
      output_box_->setItemData(output_box_->count() - 1,
                               tr("Ci and every output parameter, each written to a render target of its own: a shader of several outputs, "
                                  "which passes of several render targets (RDS + merge, MRDS) write together"),
                               Qt::ToolTipRole);
    }
  }
  output_action_->setVisible(!outputs.isEmpty());
  const int at = chosen.isEmpty() ? 0 : output_box_->findData(chosen);
  if (at >= 0) {
    QSignalBlocker block(output_box_);
    output_box_->setCurrentIndex(at);
  } else {
    output_box_->setCurrentIndex(0);  // compiles Ci again
  }
}

void MainWindow::request_changed() {
  session::Request r = service_->request();
  r.target = studio_->target();
  r.model = studio_->cost_model();
  r.text = editor_->text_utf8();
  const bool whole_programs = backends::runs_whole_programs(studio_->target());
  if (whole_programs) r.rpu.machine = rpu::machine_of(studio_->target());
  service_->set_request(r);
  set_rpu_mode(whole_programs);
  auto settings = open_settings(options_);
  settings->setValue("partition/target", QString::fromStdString(studio_->target().source.empty() ? studio_->target().name : studio_->target().source));
  settings->setValue("partition/target_json", target_panel_->edited() ? QString::fromStdString(partition::target_to_json(studio_->target())) : QString());
  settings->setValue("partition/cost", QString::fromStdString(studio_->cost_model().name));
  if (!path_.isEmpty()) {
    set_stale(true);
    service_->compile_now();
  }
}

// A target from a preset, a file, a project or the target panel: the model's, which every
// observer shows (the target panel, the target box below), then compiled.
void MainWindow::set_target_desc(const partition::TargetDesc& t, bool edited) { studio_->set_target(t, edited); }

void MainWindow::show_target(const partition::TargetDesc& t, bool edited) {
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

// The model's cost model shown in the cost box, then compiled.
void MainWindow::show_cost_model(const partition::CostModel& m) {
  {
    QSignalBlocker block(cost_box_);
    if (cost_box_->currentText() != QString::fromStdString(m.name)) cost_box_->setCurrentText(QString::fromStdString(m.name));
  }
  request_changed();
}

bool MainWindow::save_target_as(const QString& path) {
  partition::TargetDesc t = studio_->target();
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

// Whether the `input` (a target, a cost model) read without errors; if not, the status bar says so
// and the diagnostics panel lists the problems, each at its place in its file, until one applies.
bool MainWindow::applied(const QString& input, const lang::Diagnostics& problems) {
  diagnostics_->set_input_problems(input, session::to_messages(problems.items(), problems.sources(), ""));
  if (!problems.has_errors()) return true;
  show_status(tr("The %1 was not applied: %2").arg(input, QString::fromStdString(problems.summary())));
  return false;
}

void MainWindow::set_target(const QString& name_or_path) {
  if (auto rpu = rpu_target(name_or_path)) {
    set_target_desc(*rpu, false);
    return;
  }
  lang::Diagnostics problems;
  auto t = backends::load_target(name_or_path.toStdString(), &problems);
  if (!applied(tr("target"), problems)) return;
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
  if (presentation()) set_presentation(false);  // it would give back the other theme's palette
  dark_ = dark;
  apply_palette(dark);
  editor_->set_dark(dark);
  open_settings(options_)->setValue("theme/dark", dark);
  if (studio_->result()) studio_->show_result(studio_->result(), studio_->yours_run());  // graphs drawn in the theme's colours
}

void MainWindow::reset_layout() {
  if (presentation()) set_presentation(false);
  restoreState(default_state_);
}

void MainWindow::set_presentation(bool on, QWidget* current) {
  presentation_->set_on(on, current);
  if (presentation_action_) presentation_action_->setChecked(presentation_->on());
  show_status(on ? tr("Presentation mode: F12 ends it") : QString());
}

bool MainWindow::presentation() const { return presentation_->on(); }

void MainWindow::copy_view_image() {
  QWidget* view = editor_;
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w); dock && dock->parentWidget() == this) {
      view = dock->widget();
      break;
    }
  views::copy_image(view);
  show_status(tr("Copied a picture of %1 to the clipboard").arg(view == editor_ ? tr("the editor") : static_cast<QDockWidget*>(view->parentWidget())->windowTitle()));
}

}  // namespace passlab::studio
