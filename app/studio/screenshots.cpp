// SPDX-License-Identifier: GPL-3.0-or-later
// The screenshot tour: each step waits for the Studio to show what it shows, then grabs it.
#include "app/studio/screenshots.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QMouseEvent>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QSpinBox>
#include <QTimer>

#include "app/studio/main_window.h"
#include "app/studio/marking.h"
#include "app/studio/project.h"
#include "app/studio/samples.h"
#include "editors/shader_editor.h"
#include "views/compare_panel.h"
#include "views/graph_view.h"
#include "views/lessons_panel.h"
#include "views/studio_model.h"
#include "views/pass_graph_panel.h"
#include "views/passes_panel.h"
#include "views/preview_panel.h"
#include "views/sampling_panel.h"
#include "views/rpu_code_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_schedule_exercise.h"
#include "views/rpu_render_panel.h"
#include "views/rpu_session.h"
#include "views/target_panel.h"
#include "views/timeline_panel.h"
#include "views/trace_player.h"

namespace passlab::studio {

namespace {

// Processes events until `done` holds or `ms` pass.
void wait_until(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < ms) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  }
}

void settle(int ms) { wait_until([] { return false; }, ms); }

// Waits like wait_until for what the next screenshots need. On a timeout it says what it waited
// for and ends the tour with exit status 1, rather than going on to read a result that is not
// there (under load a first compile can take longer than any fixed wait).
bool wait_for(const std::function<bool()>& done, int ms, const char* what) {
  wait_until(done, ms);
  if (done()) return true;
  std::fprintf(stderr, "screenshots: gave up after %d s waiting for %s; the tour stops here\n", ms / 1000, what);
  QApplication::exit(1);
  return false;
}

// One screenshot tour: the window, the folder, and saving a widget's picture into it.
struct Tour {
  MainWindow* w;
  QString dir;
  void save(QWidget* widget, const QString& name) const { widget->grab().save(QDir(dir).filePath(name + ".png")); }
  QDockWidget* dock(const char* name) const {
    auto* d = static_cast<QDockWidget*>(w->dock_widget(name));
    d->show();
    d->raise();
    return d;
  }
};


// The preview (render to texture against the F-buffer, a probed pixel), the pass and combiner-stage
// timeline, and the dark theme.
void preview_and_timeline_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto save = [&tour](QWidget* widget, const QString& name) { tour.save(widget, name); };
  auto dock = [&tour](const char* name) { return tour.dock(name); };
  // The preview: plastic.sl on the transparent scene, where render to texture goes wrong and the
  // F-buffer does not, with a pixel probed where the two transparent spheres overlap.
  {
    const QString original = w->file_path();
    QString plastic = QFileInfo(original).dir().filePath("plastic.sl");
    if (!QFileInfo::exists(plastic)) plastic = samples_path("shaders/plastic.sl");
    w->open_file(plastic);
    wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
    auto* pv = dock("dock-preview");
    pv->setFloating(true);
    pv->resize(1400, 900);
    auto* preview = w->preview();
    auto* scenes = preview->findChild<QComboBox*>("preview-scene");
    scenes->setCurrentIndex(std::max(0, scenes->findText("transparent")));
    auto* cancel = preview->findChild<QPushButton*>("preview-cancel");
    auto rendered = [preview, cancel] { return !cancel->isEnabled() && preview->fbuffer_image().width() >= 256; };
    wait_until(rendered, 30000);
    auto* view = preview->findChild<QWidget*>("preview-rtt");
    const QPointF at = view->rect().center();
    QMouseEvent press(QEvent::MouseButtonPress, at, view->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view, &press);
    auto* table = preview->findChild<QTableWidget*>("preview-probe");
    wait_until([&] { return table->rowCount() > 0 && !cancel->isEnabled(); }, 30000);
    settle(300);
    save(pv, "preview");
    pv->setFloating(false);
    dock("dock-passes");
    w->open_file(original);
    wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
  }
  // The pass and combiner-stage timeline: the Figure 4 pin on GeForce3 (one pass, eight
  // stages), its scheduling stepped in the trace player, then on GeForce1 (many passes).
  {
    const QString original = w->file_path();
    const QString original_target = w->target_name();
    QString pin = samples_path("combiners/fig4_pin.sl");
    w->open_file(pin);
    w->set_target("geforce3");
    auto shown = [w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); };
    wait_until(shown, 20000);
    auto* tl = dock("dock-timeline");
    tl->setFloating(true);
    tl->resize(1500, 760);
    wait_until([w] { return w->timeline()->stage_columns() > 0; }, 10000);
    settle(300);
    w->timeline()->fit();
    settle(200);
    save(tl, "timeline");
    // The trace player on the scheduler's decision for a stage.
    const auto* run = w->result() ? w->result()->snapshot->run("rds") : nullptr;  // the trace player's
    int step = -1;
    for (std::size_t i = 0; run && i < run->trace.size(); ++i)
      if (run->trace[i].kind == partition::EventKind::Codegen && run->trace[i].stage >= 3) {
        step = static_cast<int>(i);
        break;
      }
    if (step >= 0) {
      w->trace()->set_position(step);
      settle(300);
      save(tl, "timeline_trace");
    }
    w->set_target("geforce1");
    wait_until(shown, 20000);
    settle(300);
    w->timeline()->fit();
    settle(200);
    save(tl, "timeline_geforce1");
    tl->setFloating(false);
    // The same passes rendered by the combiner simulator.
    auto* pv = dock("dock-preview");
    pv->setFloating(true);
    pv->resize(1400, 900);
    auto* cancel = w->preview()->findChild<QPushButton*>("preview-cancel");
    wait_until([w, cancel] { return !cancel->isEnabled() && w->preview()->fbuffer_image().width() >= 256; }, 30000);
    settle(300);
    save(pv, "preview_geforce1");
    pv->setFloating(false);
    dock("dock-trace");
    w->open_file(original);
    w->set_target(original_target);
    wait_until(shown, 20000);
  }
  // The dark theme (taken before the RPU's section: see docs/rpu.md, known problems).
  w->set_dark(true);
  settle(400);
  save(w, "studio_dark");
  w->set_dark(false);
  settle(200);
}

// The main window and its panels on the shader given, RDS coloured; false if the first compile
// never came.
bool studio_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto save = [&tour](QWidget* widget, const QString& name) { tour.save(widget, name); };
  auto dock = [&tour](const char* name) { return tour.dock(name); };
  if (!wait_for([w] { return w->result() != nullptr && w->shown_generation() == w->service()->generation() && !w->service()->busy(); },
                120000, "the first compile"))
    return false;
  settle(300);
  w->dag_view()->fit();
  settle(200);
  save(w, "studio");
  // The DAG coloured by RDS's passes, a node selected with its source span.
  auto* g = dock("dock-graphs");
  w->dag_view()->select_nodes({w->result()->snapshot->graph().root});
  settle(200);
  save(g, "dag");
  auto* tabs = w->graph_tabs();  // (the dock holds the marking bar over them)
  tabs->setCurrentIndex(1);
  w->graph_view(1)->fit();
  settle(200);
  save(g, "dominator_tree");
  tabs->setCurrentIndex(2);
  w->graph_view(2)->fit();
  settle(200);
  save(g, "pdt");
  // The pass graph, a pass in the middle clicked: its subgraph below.
  tabs->setCurrentIndex(3);
  wait_until([w] { return !w->pass_graph()->laying_out(); }, 20000);
  if (const auto* run = w->pass_graph()->pass_view() ? w->result()->snapshot->run("rds") : nullptr; run && !run->partition.passes.empty()) {
    const int middle = static_cast<int>(run->partition.passes.size()) / 2;
    w->pass_graph()->pass_view()->select_nodes({static_cast<std::uint32_t>(middle)});
    w->pass_graph()->show_pass(middle);
    wait_until([w] { return !w->pass_graph()->laying_out(); }, 20000);
  }
  settle(200);
  save(g, "pass_graph");
  // The same at a size where a big shader's passes can be read (the dock floated and enlarged).
  g->setFloating(true);
  g->resize(1500, 900);
  settle(300);
  w->pass_graph()->pass_view()->fit();
  w->pass_graph()->subgraph_view()->fit();
  settle(200);
  save(g, "pass_graph_large");
  g->setFloating(false);
  settle(200);
  tabs->setCurrentIndex(0);
  save(dock("dock-passes"), "passes");
  // Compare: run the optimal search and wait for its answer.
  auto* c = dock("dock-compare");
  c->setFloating(true);
  c->resize(1400, 900);
  emit w->compare()->optimal_requested(10);
  wait_until([w] { return w->compare()->optimal_run() != nullptr; }, 30000);
  settle(400);
  save(c, "compare");
  c->setFloating(false);
  // The target editor with a limit edited: the passes follow at once.
  auto* tg = dock("dock-target");
  {
    const quint64 before = w->shown_generation();
    w->target_panel()->limit_box(0)->setValue(5);
    wait_until([w, before] { return w->shown_generation() > before && w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
    settle(300);
  }
  save(tg, "target");
  save(w, "studio_target");
  w->set_target("PC5");
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
  dock("dock-passes");
  // The trace player on a failing validity check.
  auto* t = dock("dock-trace");
  int failing = -1;
  const auto* run = w->result() ? w->result()->snapshot->run("rds") : nullptr;
  for (std::size_t i = 0; run && i < run->trace.size() && failing < 0; ++i)
    if (run->trace[i].kind == partition::EventKind::ValidCheck && !run->trace[i].ok) failing = static_cast<int>(i);
  w->trace()->set_position(std::max(failing, 0));
  settle(200);
  save(t, "trace");
  save(w, "studio_trace");
  // Diagnostics: break the shader, wait for the squiggles, then undo.
  auto* e = w->editor();
  e->setCursorPosition(e->lines() / 2, 0);
  e->insert("    float oops = undefined_name + ;\n");
  wait_until([w] { return w->result() && !w->service()->busy() && w->editor()->squiggle_count() > 0; }, 10000);
  settle(300);
  dock("dock-diagnostics");
  save(w, "diagnostics");
  e->undo();
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 10000);
  // A target file with a mistake is not applied; its problem is listed at its place in the file.
  const QString target = w->target_name();
  const QString bad = QDir::temp().filePath("passlab-shot-target.json");
  {
    QFile f(bad);
    if (f.open(QIODevice::WriteOnly)) f.write("{\n  \"name\": \"mine\",\n  \"limits\": {\"operations\": 6, \"registers\": -3}\n}\n");
  }
  w->set_target(bad);
  settle(300);
  save(w, "diagnostics_target");
  w->set_target(target);
  QFile::remove(bad);
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 10000);
  preview_and_timeline_tour(tour);
  return true;
}

// Partition it yourself: the bowling pin on PC5 marked by hand, from RDS's marks with one taken
// back so that a pass breaks a limit (red in the passes table, named in the marking bar), the
// hint that mends it, and the Compare panel's Yours column.
void marking_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto save = [&tour](QWidget* widget, const QString& name) { tour.save(widget, name); };
  auto dock = [&tour](const char* name) { return tour.dock(name); };
  const QString original = w->file_path(), original_target = w->target_name();
  w->set_target("PC5");
  w->open_file(samples_path("shaders/bowling_pin.sl"));
  wait_until([w] { return w->result() && w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
  if (!w->result() || !w->result()->snapshot->has_dag()) return;
  dock("dock-passes");
  w->marking()->set_on(true);
  w->marking()->start_from("rds");
  settle(200);
  // The first of RDS's marks whose removal leaves a pass that does not fit, clicked in the DAG.
  for (const auto& m : std::vector<partition::Mark>(w->marking()->marks().marks())) {
    w->dag_view()->click_node(m.node);
    settle(50);
    if (w->model()->yours_run() && !w->model()->yours_run()->partition.valid) break;
    w->marking()->undo();
  }
  w->dag_view()->fit();
  settle(400);
  save(w, "partition_yourself");
  w->marking()->hint();
  auto* g = dock("dock-graphs");
  g->setFloating(true);
  g->resize(1300, 850);
  settle(300);
  w->dag_view()->fit();
  settle(300);
  save(g, "partition_yourself_hint");
  g->setFloating(false);
  // Mend it as the hint says, then compare with the algorithms.
  if (!w->model()->selection().empty()) w->dag_view()->click_node(w->model()->selection().front());
  auto* c = dock("dock-compare");
  c->setFloating(true);
  c->resize(1500, 900);
  emit w->compare()->optimal_requested(10);
  wait_until([w] { return w->compare()->optimal_run() != nullptr; }, 30000);
  settle(400);
  save(c, "compare_yours");
  c->setFloating(false);
  // The lecture hall: presentation mode on the graphs.
  w->set_presentation(true, dock("dock-graphs"));
  settle(400);
  w->dag_view()->fit();
  settle(300);
  save(w, "presentation");
  w->set_presentation(false);
  settle(200);
  w->marking()->set_on(false);
  // A lesson: the bowling pin's, at the step where the student partitions it.
  {
    auto* lessons = dock("dock-lessons");
    lessons->resize(520, lessons->height());
    w->lessons()->open_lesson(0, 5);
    wait_until([w] { return w->lesson_idle() && w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
    w->marking()->start_from("rds");
    w->lessons()->check();
    settle(400);
    w->dag_view()->fit();
    settle(200);
    save(w, "lessons");
    lessons->hide();
    w->marking()->set_on(false);
  }
  w->set_target(original_target);
  if (!original.isEmpty()) w->open_file(original);
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
}

// Multiple render targets: Wood on a four-target preset in Compare (RDS, RDS + merge, MRDS and
// the one-output optimum, which is no bound there), MRDS's passes with a listing that writes
// several render targets, and a shader of several outputs (All outputs) in the DAG view.
// Function tables on GeForce3 (docs/combiners.md): plastic in ten passes, the timeline opened on
// a pass whose texture units look functions up (a table at a saved value, a cube map at a saved
// vector), and its listing; then a pass whose final combiner computes (E x F).
void tables_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto settled = [w] { return w->result() && w->shown_generation() == w->service()->generation() && !w->service()->busy(); };
  const QString original = w->file_path(), original_target = w->target_name();
  w->open_file(samples_path("shaders/plastic.sl"));
  w->set_target("geforce3");
  if (!wait_for(settled, 60000, "plastic on geforce3")) return;
  auto* tl = tour.dock("dock-timeline");
  tl->setFloating(true);
  tl->resize(1600, 820);
  wait_until([w] { return w->timeline()->stage_columns() > 0; }, 10000);
  // The first pass with a table, and the first with a dot-product cube map.
  const auto* run = w->model()->run();
  int table = -1, cube = -1;
  for (int p = 0; run && p < static_cast<int>(run->partition.passes.size()); ++p) {
    w->timeline()->select_pass(p);
    settle(100);
    const QString all = w->timeline()->texture_unit_text().join('\n');
    if (table < 0 && all.contains("table")) table = p;
    if (cube < 0 && all.contains("cube_map_3of3")) cube = p;
  }
  for (const auto& [pass, name] : {std::pair{table, "timeline_tables"}, std::pair{cube, "timeline_cube_dot"}}) {
    if (pass < 0) continue;
    w->timeline()->select_pass(pass);
    settle(300);
    w->timeline()->fit();
    settle(200);
    tour.save(tl, name);
  }
  // The final combiner's arithmetic: the hand-written classic dot3 specular, two stages and
  // E x F squared twice (samples/combiners/handwritten).
  w->open_file(samples_path("combiners/handwritten/dot3_specular.sl"));
  if (wait_for(settled, 60000, "dot3_specular on geforce3")) {
    w->timeline()->select_pass(0);
    settle(300);
    w->timeline()->fit();
    settle(200);
    tour.save(tl, "timeline_final");
  }
  tl->setFloating(false);
  w->open_file(original);
  w->set_target(original_target);
  wait_until(settled, 20000);
}

void mrt_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto save = [&tour](QWidget* widget, const QString& name) { tour.save(widget, name); };
  auto dock = [&tour](const char* name) { return tour.dock(name); };
  auto settled = [w] { return w->result() && w->shown_generation() == w->service()->generation() && !w->service()->busy(); };
  const QString original = w->file_path(), original_target = w->target_name();
  w->set_target("ps_2_0_mrt4");
  w->open_file(samples_path("shaders/wood.sl"));
  if (!wait_for(settled, 60000, "Wood on ps_2_0_mrt4")) return;
  auto* c = dock("dock-compare");
  c->setFloating(true);
  c->resize(1700, 950);
  emit w->compare()->optimal_requested(10);
  wait_until([w] { return w->compare()->optimal_run() != nullptr; }, 40000);
  settle(600);
  save(c, "compare_mrt");
  c->setFloating(false);
  dock("dock-passes");
  w->passes()->set_algorithm("mrds");
  settle(300);
  if (const auto* run = w->model()->run())
    for (std::size_t p = 0; p < run->partition.passes.size(); ++p)
      if (run->partition.passes[p].outputs.size() > 1) {
        w->passes()->table()->setCurrentCell(static_cast<int>(p), 0);  // shows its listing
        break;
      }
  w->dag_view()->fit();
  settle(500);
  save(w, "passes_mrt");
  // A shader of several outputs: its colour and four output parameters under one root.
  w->set_target("PC6_mrt4");
  w->open_file(samples_path("shaders/plastic_aovs.sl"));
  if (!wait_for(settled, 60000, "plastic_aovs")) return;
  if (auto* box = w->findChild<QComboBox*>("output-box"); box && box->findData(QString(kAllOutputs)) >= 0) {
    const quint64 before = w->shown_generation();
    box->setCurrentIndex(box->findData(QString(kAllOutputs)));
    wait_until([w, before] { return w->shown_generation() > before && w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 30000);
  }
  w->passes()->set_algorithm("mrds");
  auto* g = dock("dock-graphs");
  g->setFloating(true);
  g->resize(1300, 850);
  settle(300);
  w->dag_view()->fit();
  settle(400);
  save(g, "all_outputs_dag");
  g->setFloating(false);
  w->passes()->set_algorithm("rds");
  w->set_target(original_target);
  if (!original.isEmpty()) w->open_file(original);
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
}

// The Sampling view: wood.sl under the defocus scene's lens by decoupled sampling, a
// defocused pixel's samples and shading points, the heat map of where shading went, the sweeps,
// and plastic.sl under a light that moves while the shutter is open.
void sampling_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto save = [&tour](QWidget* widget, const QString& name) { tour.save(widget, name); };
  auto dock = [&tour](const char* name) { return tour.dock(name); };
  const QString original = w->file_path();
  w->open_file(samples_path("shaders/wood.sl"));
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
  auto* pv = dock("dock-preview");
  pv->setFloating(true);
  pv->resize(1500, 950);
  auto* sampling = w->sampling();
  w->preview_tabs()->setCurrentWidget(sampling);
  auto* scenes = sampling->findChild<QComboBox*>("sampling-scene");
  scenes->setCurrentIndex(std::max(0, scenes->findText("ds_defocus")));
  sampling->findChild<QComboBox*>("sampling-size")->setCurrentIndex(2);  // 512 px
  auto done = [sampling] { return !sampling->busy() && !sampling->image().isNull() && sampling->stats().width == 512; };
  wait_until(done, 60000);
  // The near ball's edge, out of focus: the first covered pixel left of the middle on row 400.
  QPoint pick(150, 400);
  const QImage& im = sampling->image();
  for (int x = 10; x < 256; ++x)
    if (im.pixel(x, 400) != im.pixel(2, 400)) {
      pick = QPoint(x + 6, 400);
      break;
    }
  sampling->probe(pick);
  wait_until([sampling, done] { return done() && !sampling->traced().empty(); }, 60000);
  settle(400);
  save(pv, "sampling");
  sampling->findChild<QComboBox*>("sampling-view")->setCurrentIndex(1);
  settle(300);
  save(pv, "sampling_heat");
  // Where the render departs from the exact reference (rendered on demand).
  sampling->findChild<QComboBox*>("sampling-view")->setCurrentIndex(2);
  auto* measures = sampling->findChild<QLabel*>("sampling-measures");
  wait_until([sampling, measures] { return !sampling->busy() && measures->text().contains("exact reference"); }, 300000);
  settle(400);
  save(pv, "sampling_error");
  sampling->findChild<QComboBox*>("sampling-view")->setCurrentIndex(0);
  auto* hardware_tabs = sampling->findChild<QTabWidget*>("sampling-tabs");
  hardware_tabs->setCurrentIndex(2);  // the hardware studies of this render
  settle(400);
  save(pv, "sampling_hardware");
  hardware_tabs->setCurrentIndex(0);
  sampling->findChild<QComboBox*>("sampling-size")->setCurrentIndex(1);  // sweeps at 256 px
  wait_until(done, 1000);
  wait_until([sampling] { return !sampling->busy() && sampling->stats().width == 256; }, 60000);
  bool swept = false;
  QObject::connect(sampling, &views::SamplingPanel::sweep_done, [&swept] { swept = true; });
  sampling->run_sweep();
  auto* tabs = sampling->findChild<QTabWidget*>("sampling-tabs");
  tabs->setCurrentIndex(1);
  wait_until([&swept] { return swept; }, 600000);
  settle(400);
  save(pv, "sampling_sweeps");
  tabs->setCurrentIndex(0);
  // A light crossing the scene while the shutter is open: plastic.sl under the moving light's
  // setup, and where every sample shaded at the opening departs from the exact reference.
  w->open_file(samples_path("shaders/plastic.sl"));
  w->set_lights(samples_path("shaders/moving_light.lights.json"));
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
  scenes->setCurrentIndex(std::max(0, scenes->findText("ds_moving_light")));
  wait_until([sampling] { return !sampling->busy(); }, 60000);
  sampling->findChild<QComboBox*>("sampling-view")->setCurrentIndex(2);
  wait_until([sampling, measures] { return !sampling->busy() && measures->text().contains("exact reference"); }, 300000);
  settle(400);
  save(pv, "sampling_moving_light");
  sampling->findChild<QComboBox*>("sampling-view")->setCurrentIndex(0);
  w->set_lights(QString());
  w->preview_tabs()->setCurrentIndex(0);
  pv->setFloating(false);
  w->open_file(original);
}

// The RPU: the ceramic scene's shader debugged at a pixel, its costs as heat maps, the
// compiler's decisions, and the thesis's scheduling example.
void rpu_tour(const Tour& tour) {
  MainWindow* w = tour.w;
  auto save = [&tour](QWidget* widget, const QString& name) { tour.save(widget, name); };
  auto dock = [&tour](const char* name) { return tour.dock(name); };
  const QString original = w->file_path();
  const QString original_target = w->target_name();
  w->set_target("RPU");
  w->open_file(samples_path("rpu/ceramic.sl"));
  auto built = [w] { return w->rpu_session()->build() && w->rpu_session()->build()->ok() && !w->service()->busy(); };
  wait_until(built, 30000);
  dock("dock-rpu-render");
  auto* render = w->rpu_render();
  // The frame, then its timing on the machine model (which replaces the frame when it arrives).
  wait_until([render] { return render->frame() && !render->rendering() && !render->modelling() && render->frame()->result.model; }, 180000);
  // The pixel farthest from the background: on an object.
  const auto* b = w->rpu_session()->build();
  const auto& image = render->frame()->result.image;
  int px = image.width / 2, py = image.height / 2;
  float best = -1;
  for (int y = 1; y < image.height; y += 5)
    for (int x = 1; x < image.width; x += 5) {
      float d = 0;
      for (int c = 0; c < 3; ++c) d += std::abs(image.at(x, y)[c] - b->scene.background[static_cast<std::size_t>(c)]);
      if (d > best) best = d, px = x, py = y;
    }
  w->rpu_session()->pick_pixel_now(px, py);
  // Into the surface shader, a call deep, and a breakpoint on a later line of it.
  auto* session = w->rpu_session();
  const rpu::Debugger* d = session->debugger();
  std::uint32_t later = 0;
  for (int i = 0; d && i < 4000; ++i) {
    const auto* f = b->function_at(d->thread(d->lane()).pc);
    if (f && f->main_file && d->depth() > 0 && b->word_source_line[d->thread(d->lane()).pc]) break;
    session->move(views::RpuMove::Into);
  }
  if (d)
    for (std::size_t i = d->position() + 200; i < d->step_count() && !later; ++i)
      if (d->step(i).pc < b->word_source_line.size()) later = b->word_source_line[d->step(i).pc];
  if (later) {
    session->toggle_line_breakpoint(later);
    session->move(views::RpuMove::Continue);
    for (int i = 0; i < 3; ++i) session->move(views::RpuMove::Over);
  }
  dock("dock-rpu-code");
  dock("dock-rpu-decisions");
  w->rpu_decisions()->select_function("ceramic");
  settle(400);
  save(w, "rpu_studio");
  auto floating = [&](const char* name, int width, int height) {
    auto* dk = dock(name);
    dk->setFloating(true);
    dk->resize(width, height);
    settle(400);
    return dk;
  };
  auto* code = floating("dock-rpu-code", 1300, 760);
  save(code, "rpu_code");
  code->setFloating(false);
  auto* dbg = floating("dock-rpu-debugger", 1300, 820);
  save(dbg, "rpu_debugger");
  dbg->setFloating(false);
  auto* rr = floating("dock-rpu-render", 1200, 720);
  render->set_mode(views::RpuFrame::Image);
  settle(200);
  save(rr, "rpu_render");
  render->set_mode(views::RpuFrame::Cycles);
  settle(300);
  save(rr, "rpu_heatmap_cycles");
  render->set_mode(views::RpuFrame::Occupancy);
  settle(300);
  save(rr, "rpu_heatmap_occupancy");
  render->set_mode(views::RpuFrame::TraceShare);
  settle(300);
  save(rr, "rpu_machine_model");
  render->set_mode(views::RpuFrame::Image);
  rr->setFloating(false);
  auto* dec = floating("dock-rpu-decisions", 1400, 800);
  w->rpu_decisions()->tabs()->setCurrentIndex(1);
  settle(400);
  save(dec, "rpu_interference");
  w->rpu_decisions()->tabs()->setCurrentIndex(2);
  settle(200);
  save(dec, "rpu_forwarding");
  dec->setFloating(false);
  // A scene with light shaders: each light is one function that every surface calls.
  w->open_file(samples_path("rpu/tiles.sl"));
  w->set_rpu_scene(samples_path("scenes/rpu_three_lights.json"));
  // The scene `name` rendered and modelled, and nothing left to compute.
  auto rendered = [w, render](const std::string& name) {
    return [w, render, name] {
      const auto* f = render->frame();
      return f && f->build && f->build->scene_name == name && f->result.model && !render->rendering() && !render->modelling() &&
             !w->service()->busy();
    };
  };
  // The assembly scrolled to the function whose label begins with `label` (indented in the listing), highlighted.
  auto show_function = [w](const QString& label) {
    wait_until([w, label] { return w->rpu_code()->assembly()->toPlainText().contains(label); }, 30000);
    settle(300);
    views::CodeListing* listing = w->rpu_code()->assembly();
    const QStringList lines = listing->toPlainText().split('\n');
    for (int i = 0; i < lines.size(); ++i)
      if (lines[i].trimmed().startsWith(label)) {
        listing->set_highlights({i});
        listing->scroll_to(i);
        break;
      }
    settle(300);
  };
  wait_until(rendered("rpu_three_lights"), 180000);
  rr = floating("dock-rpu-render", 1200, 720);
  save(rr, "rpu_lights");
  rr->setFloating(false);
  code = floating("dock-rpu-code", 1300, 760);
  show_function("SUBROUTINE_ENTRY_light_spotlight_0:");
  save(code, "rpu_light_function");
  code->setFloating(false);
  // Textures: the bowling pin's five maps and four projector slides, images in data memory.
  w->open_file(samples_path("shaders/bowling_pin.sl"));
  w->set_rpu_scene(samples_path("scenes/bowling_pin.json"));
  wait_until(rendered("bowling_pin"), 180000);
  rr = floating("dock-rpu-render", 1200, 720);
  save(rr, "rpu_textures");
  rr->setFloating(false);
  code = floating("dock-rpu-code", 1300, 760);
  show_function("SUBROUTINE_ENTRY___rpu_texels_0:");
  save(code, "rpu_texture_function");
  code->setFloating(false);
  w->set_rpu_scene(QString());
  // The thesis's Figure 9.1, a cycle stepped in the trace player.
  w->set_target("RPU (thesis example)");
  w->open_file(samples_path("rpu/schedule_example.sl"));
  wait_until([w, built] { return built() && w->rpu_session()->build()->machine_name == "thesis_example" &&
                                 w->rpu_session()->build()->function_index("SUBROUTINE_ENTRY_fig91") >= 0; }, 30000);
  settle(300);
  w->rpu_decisions()->select_function("fig91");
  w->rpu_decisions()->tabs()->setCurrentIndex(0);
  if (const auto* run = w->result() ? w->result()->snapshot->run("rpu") : nullptr) {
    const int fig91 = w->rpu_session()->build()->function_index("SUBROUTINE_ENTRY_fig91");
    for (std::size_t i = 0; i < run->trace.size(); ++i)
      if (run->trace[i].pass == fig91 && run->trace[i].stage == session::kRpuCycle && run->trace.nodes(run->trace[i]).size() == 2 && run->trace.nodes(run->trace[i])[1] == 6) {
        w->trace()->set_position(static_cast<int>(i));
        break;
      }
  }
  settle(400);
  save(dec, "rpu_schedule_fig91");
  // Schedule it yourself: the scheduler's order with its last two instructions swapped.
  w->rpu_decisions()->tabs()->setCurrentIndex(3);
  if (auto* ex = w->rpu_decisions()->exercise(); ex->yours()) {
    std::vector<int> order = w->rpu_session()->build()->compiled().schedules.at(w->rpu_decisions()->function_label().toStdString()).pieces.front().order;
    if (order.size() >= 2) std::swap(order[order.size() - 1], order[order.size() - 2]);
    ex->set_order(order);
  }
  settle(300);
  save(dec, "rpu_schedule_yourself");
  w->rpu_decisions()->tabs()->setCurrentIndex(0);
  dec->setFloating(false);
  // Derivatives: the filtered floor's shader opens in its scene (rpu_smooth), every hit shaded in
  // a pixel quad.
  w->open_file(samples_path("rpu/tiles_aa.sl"));
  wait_until(built, 30000);
  wait_until([render] { return render->frame() && !render->rendering() && !render->modelling(); }, 180000);
  render->set_mode(views::RpuFrame::Image);
  auto* smooth = floating("dock-rpu-render", 1200, 720);
  save(smooth, "rpu_derivatives");
  smooth->setFloating(false);
  w->open_file(original);
  w->set_target(original_target);
  wait_until([w] { return w->shown_generation() == w->service()->generation() && !w->service()->busy(); }, 20000);
}

}  // namespace

void take_screenshots(MainWindow* w, const QString& dir) {
  QTimer::singleShot(0, w, [w, dir] {
    QDir().mkpath(dir);
    w->resize(1600, 1000);
    const Tour tour{w, dir};
    const QByteArray only = qgetenv("PASSLAB_SHOTS");  // "studio", "rpu", "sampling", "marking", "mrt" or "tables": only that section
    const bool only_rpu = only == "rpu", only_sampling = only == "sampling", only_marking = only == "marking",
               only_studio = only == "studio", only_mrt = only == "mrt", only_tables = only == "tables";
    const bool all = !only_rpu && !only_sampling && !only_marking && !only_studio && !only_mrt && !only_tables;
    if ((all || only_studio) && !studio_tour(tour)) return;
    if (all || only_marking) marking_tour(tour);
    if (all || only_mrt) mrt_tour(tour);
    if (all || only_tables) tables_tour(tour);
    if (all || only_sampling) sampling_tour(tour);
    if (all || only_rpu) rpu_tour(tour);
    w->editor()->setModified(false);
    QApplication::quit();
  });
}


}  // namespace passlab::studio
