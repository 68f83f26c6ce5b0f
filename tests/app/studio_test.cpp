// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI tests (QTest, offscreen): open a sample, edit it, diagnostics come and go, views
// follow, the compare panel agrees with passlab-cli, the trace player steps both ways, unsaved
// work survives a simulated crash, and the preview renders what the F-buffer and render to
// texture make of the passes.
#include <cmath>
#include <map>
#include <set>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QDoubleSpinBox>
#include <QGraphicsView>
#include <QImage>
#include <QSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QStatusBar>

#include "session/render_job.h"
#include "app/studio/main_window.h"
#include "tests/app/studio_test_support.h"
#include "editors/shader_editor.h"
#include "views/compare_panel.h"
#include "views/diagnostics_panel.h"
#include "views/graph_view.h"
#include "views/pass_graph_panel.h"
#include "views/passes_panel.h"
#include "views/preview_panel.h"
#include "views/studio_model.h"
#include "views/target_panel.h"
#include "views/timeline_panel.h"
#include "views/trace_player.h"
#include "views/work_pool.h"

using passlab::studio::MainWindow;
using passlab::studio::StudioOptions;

class StudioTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  StudioOptions options() const { return passlab::studio::test_options(dir_); }
  static QString sample(const char* name) { return QString(PASSLAB_SAMPLES_DIR "/shaders/%1.sl").arg(name); }
  static bool wait_for_panels(MainWindow& w, quint64 after = 0) { return passlab::studio::wait_for_panels(w, after); }
  // The nodes a partition marks as pass roots, as the DAG view draws them (marked_nodes()).
  static std::vector<std::uint32_t> pass_roots(const passlab::session::AlgorithmRun& run) {
    std::vector<std::uint32_t> out;
    for (const auto& p : run.partition.passes) out.push_back(p.root);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  // Brings the preview's tab to the front (it renders only when it can be seen).
  static void show_preview(MainWindow& w) { static_cast<QDockWidget*>(w.dock_widget("dock-preview"))->raise(); }
  // Waits until the preview's render in flight is done and its pictures are full size.
  static bool wait_for_preview(MainWindow& w, int side = 256) {
    auto* cancel = w.preview()->findChild<QPushButton*>("preview-cancel");
    return QTest::qWaitFor([&] {
      return !cancel->isEnabled() && w.preview()->fbuffer_image().width() == side && w.preview()->rtt_image().width() == side;
    }, 60000);
  }
  // The picture a frame buffer would hold: each channel clamped to [0, 1] and rounded, opaque.
  static QImage eight_bit(const passlab::sim::Image& image) {
    QImage out(image.width, image.height, QImage::Format_RGBX8888);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) {
        uchar* px = out.scanLine(y) + x * 4;
        for (int c = 0; c < 3; ++c) {
          const float v = image.at(x, y)[c];
          px[c] = !(v > 0) ? 0 : v >= 1 ? 255 : static_cast<uchar>(std::lround(v * 255));
        }
        px[3] = 255;
      }
    return out;
  }
  // A picture rendered here directly from the window's snapshot, at the preview's default size.
  static QImage render_directly(MainWindow& w, const passlab::sim::Scene& scene, passlab::sim::Storage storage,
                                const passlab::session::AlgorithmRun* run) {
    passlab::sim::RenderOptions o;
    o.width = o.height = 256;
    o.storage = storage;
    const auto out = passlab::session::render_snapshot(scene, *w.result()->snapshot, run, o);
    return out.image ? eight_bit(*out.image) : QImage();
  }
  // Opens a sample with the preview in front and waits for the panels and the preview's render.
  static bool open_with_preview(MainWindow& w, const char* name) {
    if (!w.open_file(sample(name))) return false;
    w.show();
    show_preview(w);
    return wait_for_panels(w) && wait_for_preview(w);
  }
  // Opens plastic.sl on the transparent scene with the preview in front, on PC5 where the shader
  // needs several passes, and waits for the render.
  static bool open_transparent_scene(MainWindow& w) {
    w.set_target("PC5");
    if (!w.open_file(sample("plastic"))) return false;
    w.show();
    show_preview(w);
    auto* scenes = w.preview()->findChild<QComboBox*>("preview-scene");
    const int transparent = scenes->findText("transparent");
    if (transparent <= 0) return false;
    scenes->setCurrentIndex(transparent);
    return wait_for_panels(w) && wait_for_preview(w) && w.passes()->current_run() &&
           w.passes()->current_run()->partition.passes.size() > 1;
  }

  // Wood on PC5 (383 nodes, 91 passes) in a window of the default size, every panel showing it.
  static bool open_wood(MainWindow& w) {
    w.set_target("PC5");
    w.resize(1500, 920);
    if (!w.open_file(sample("wood"))) return false;
    w.show();
    return wait_for_panels(w);
  }

 private slots:
  void opensASampleAndEveryPanelShowsIt() {
    MainWindow w(options());
    w.set_target("PC5");
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    const auto& s = *w.result()->snapshot;
    QVERIFY(s.has_dag());
    QCOMPARE(w.dag_view()->node_count(), static_cast<int>(s.graph().size()));
    QVERIFY(w.graph_view(1)->node_count() > 0);
    QVERIFY(w.graph_view(2)->node_count() > 0);
    QCOMPARE(w.passes()->pass_count(), static_cast<int>(s.run("rds")->partition.passes.size()));
    QVERIFY(w.passes()->listing_text().startsWith("!!ARBfp1.0"));
    QCOMPARE(w.diagnostics()->count(), 0);
    QVERIFY(w.trace()->event_count() > 0);
  }

  void diagnosticsAppearAndDisappearWhileTheViewsKeepTheLastGoodResult() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    const int nodes = w.dag_view()->node_count();
    const quint64 good = w.result()->snapshot->generation;
    auto* e = w.editor();
    e->setCursorPosition(30, 0);
    e->insert("    float broken = no_such_name + ;\n");
    QVERIFY(QTest::qWaitFor([&] { return w.diagnostics()->count() > 0 && !w.service()->busy(); }, 20000));
    QVERIFY(e->squiggle_count() > 0);
    QVERIFY(e->diagnostic_marker_count() > 0);
    QCOMPARE(w.result()->snapshot->generation, good);  // the panels keep the last good snapshot
    QCOMPARE(w.dag_view()->node_count(), nodes);
    QVERIFY(!w.passes()->table()->isEnabled());         // ...marked stale
    e->undo();
    QVERIFY(wait_for_panels(w, good));
    QCOMPARE(w.diagnostics()->count(), 0);
    QCOMPARE(e->squiggle_count(), 0);
    QVERIFY(w.passes()->table()->isEnabled());
  }

  void squigglesFollowTheTextAndLeaveNothingStaleBehind() {
    // The editor redraws only the marks that change; those it drew must move with every edit, at
    // either end of a mark too, so that the next diagnostics clear exactly what is on screen.
    passlab::editors::ShaderEditor e;
    e.setText("surface s() {\n  Ci = bad + Cs;\n}\n");
    auto error_at = [](std::uint32_t offset, std::uint32_t length, std::uint32_t line) {
      passlab::session::Message m;
      m.line = line;
      m.offset = offset;
      m.length = length;
      return std::vector<passlab::session::Message>{m};
    };
    auto range = [](long from, long n) {
      std::vector<long> v;
      for (long i = 0; i < n; ++i) v.push_back(from + i);
      return v;
    };
    const long bad = e.text().indexOf("bad");
    e.set_diagnostics(error_at(bad, 3, 2));
    QCOMPARE(e.squiggled(), range(bad, 3));
    QCOMPARE(e.diagnostic_marker_count(), 1);
    const std::vector<std::pair<long, QString>> edits = {
        {bad, "x"}, {bad + 4, "y"}, {0, "\n"}, {bad + 3, "zz"}, {bad - 3, "// "}};
    long at = bad, length = 3;
    for (const auto& [where, text] : edits) {
      e.SendScintilla(QsciScintillaBase::SCI_INSERTTEXT, where, text.toUtf8().constData());
      if (where <= at) at += text.size();
      else if (where < at + length) length += text.size();
      // The same diagnostic at its new place is already drawn there...
      e.set_diagnostics(error_at(static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length),
                                 static_cast<std::uint32_t>(e.text().left(at).count('\n') + 1)));
      QCOMPARE(e.squiggled(), range(at, length));
      QCOMPARE(e.diagnostic_marker_count(), 1);
    }
    // A deletion inside the mark shortens it...
    e.SendScintilla(QsciScintillaBase::SCI_DELETERANGE, at + 1, 2);
    length -= 2;
    e.set_diagnostics(error_at(static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length), 3));
    QCOMPARE(e.squiggled(), range(at, length));
    // ...and a fixed error leaves no mark anywhere.
    e.SendScintilla(QsciScintillaBase::SCI_DELETERANGE, at, length);
    e.set_diagnostics({});
    QCOMPARE(e.squiggle_count(), 0);
    QCOMPARE(e.diagnostic_marker_count(), 0);
  }

  void anEditThatChangesTheGraphUpdatesEveryView() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    const int before = w.dag_view()->node_count();
    const quint64 gen = w.result()->snapshot->generation;
    auto* e = w.editor();
    // Scale the final colour: one more multiply in the DAG.
    const int line = e->lines() - 2;
    e->setCursorPosition(line, 0);
    e->insert("    Ci *= 0.5;\n");
    QVERIFY(wait_for_panels(w, gen));
    QCOMPARE(w.diagnostics()->count(), 0);
    QVERIFY(w.dag_view()->node_count() > before);
    QCOMPARE(w.dag_view()->node_count(), static_cast<int>(w.result()->snapshot->graph().size()));
  }

  // The selection is one model the panels observe: a cursor move selects its line's nodes in
  // the graphs, the timeline and the pass graph too (which did not follow the cursor before), and
  // lights no source span; the same nodes selected in a graph light their spans in the editor.
  void theSelectionIsOneModelEveryPanelObserves() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    std::vector<std::uint32_t> ids;
    int line = 0;
    for (int l = 1; l <= w.editor()->lines() && ids.empty(); ++l) {
      ids = passlab::session::nodes_on_line(*w.result()->snapshot, static_cast<std::uint32_t>(l));
      line = l;
    }
    QVERIFY(!ids.empty());
    std::sort(ids.begin(), ids.end());
    w.graph_tabs()->setCurrentWidget(w.pass_graph());
    QTRY_VERIFY_WITH_TIMEOUT(!w.pass_graph()->laying_out() && w.pass_graph()->pass_view()->node_count() > 0, 20000);
    w.pass_graph()->pass_view()->select_nodes({});
    emit w.editor()->cursor_line_changed(line);
    auto selected = w.dag_view()->selected_nodes();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, ids);
    QVERIFY(!w.pass_graph()->pass_view()->selected_nodes().empty());
    QCOMPARE(w.editor()->span_highlight_count(), 0);
    emit w.dag_view()->nodes_selected(ids);
    QVERIFY(w.editor()->span_highlight_count() > 0);
  }

  // An edit after a pause compiles at once, and a replaced selection (a deletion, then an
  // insertion) compiles once, its final text; edits in a burst wait for the compile delay.
  void anEditAfterAPauseCompilesAtOnceAndABurstWaitsForTheDelay() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    auto* service = w.service();
    // The delay is long beside the waits below, so that a busy machine (or a sanitizer build)
    // cannot blur "at once" into "after the delay"; no wall-clock figure is asserted.
    service->set_delay(4000);
    QTest::qWait(4100);  // a pause: longer than the delay since the last compile started
    std::vector<std::string> started;
    QObject::connect(service, &passlab::studio::CompileService::compile_started, &w, [&] { started.push_back(w.editor()->text().toStdString()); });
    auto* e = w.editor();
    const int at = static_cast<int>(e->text().indexOf("Kd = ")) + 5;
    QVERIFY(at > 5);
    e->SendScintilla(QsciScintillaBase::SCI_SETSEL, at, at + 1);
    e->replaceSelectedText("2");
    QVERIFY(QTest::qWaitFor([&] { return !started.empty(); }, 2500));  // not after the 4 s delay
    QCOMPARE(started.size(), std::size_t{1});
    QCOMPARE(started.front(), e->text().toStdString());
    // A second edit right away is part of a burst: it waits for the delay.
    e->SendScintilla(QsciScintillaBase::SCI_SETSEL, at, at + 1);
    e->replaceSelectedText("3");
    QTest::qWait(1500);
    QCOMPARE(started.size(), std::size_t{1});
    QVERIFY(QTest::qWaitFor([&] { return started.size() == 2; }, 10000));
    QCOMPARE(started.back(), e->text().toStdString());
    QVERIFY(wait_for_panels(w, w.result()->snapshot->generation));
    QCOMPARE(w.result()->snapshot->request.text, e->text().toStdString());
  }

  // Qt's raster engine hands big fills to QThreadPool::globalInstance() and waits for them: a
  // compile or a search queued there would hold up every repaint until it ended.
  void backgroundWorkLeavesQtsGlobalPoolToThePainter() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("wood")));
    w.show();
    QVERIFY(wait_for_panels(w));
    QThreadPool* qt_pool = QThreadPool::globalInstance();
    QVERIFY(qt_pool->waitForDone(5000));  // whatever painting handed it is done
    w.service()->compile_now();
    QVERIFY(passlab::views::work_pool().activeThreadCount() > 0);
    QCOMPARE(qt_pool->activeThreadCount(), 0);
    w.service()->run_optimal(w.result()->snapshot, 0.5);
    QCOMPARE(qt_pool->activeThreadCount(), 0);
    QVERIFY(wait_for_panels(w, w.result()->snapshot->generation));
    w.service()->cancel_optimal();
    QVERIFY(passlab::views::work_pool().waitForDone(10000));
  }

  void aSmallEditKeepsTheDrawnNodesAndAHiddenTabCatchesUpWhenChosen() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    auto nodes = [&] {
      std::map<QGraphicsItem*, QPointF> out;
      for (auto* it : w.dag_view()->scene()->items())
        if (it->flags() & QGraphicsItem::ItemIsSelectable) out[it] = it->pos();
      return out;
    };
    const auto before = nodes();
    const quint64 gen = w.result()->snapshot->generation;
    auto* e = w.editor();
    e->setCursorPosition(e->lines() - 2, 0);
    e->insert("    Ci *= 0.5;\n");
    QVERIFY(wait_for_panels(w, gen));
    const auto after = nodes();
    QVERIFY(after.size() > before.size());
    // Every node that was drawn before is the same item at the same place (a small edit neither
    // moves nor redraws what did not change); only the new nodes are new items.
    int kept = 0;
    for (const auto& [item, pos] : before) {
      auto found = after.find(item);
      if (found != after.end() && found->second == pos) ++kept;
    }
    QCOMPARE(kept, static_cast<int>(before.size()));
    // The compare panel is behind the passes tab: it took no time over the result while typing,
    // and shows it as soon as its tab is chosen.
    QVERIFY(w.compare()->pending());
    static_cast<QDockWidget*>(w.dock_widget("dock-compare"))->raise();
    QVERIFY(QTest::qWaitFor([&] { return !w.compare()->pending(); }, 5000));
  }

  void comparePanelNumbersEqualTheCli() {
    MainWindow w(options());
    w.set_target("PC4");
    w.set_cost_model("15p+5t+i");
    QVERIFY(w.open_file(sample("brick")));
    w.show();
    QVERIFY(wait_for_panels(w));
    QProcess cli;
    cli.start(PASSLAB_CLI, {"partition", sample("brick"), "--target", "PC4", "--cost", "15p+5t+i", "--algo", "all",
                            "--budget", "20", "--format", "json"});
    QVERIFY(cli.waitForFinished(120000));
    const QJsonArray results = QJsonDocument::fromJson(cli.readAllStandardOutput()).object()["results"].toArray();
    QCOMPARE(results.size(), 3);
    // Run the optimal search from the panel and wait for it.
    QSignalSpy done(w.service(), &passlab::studio::CompileService::optimal_finished);
    emit w.compare()->optimal_requested(20);
    QVERIFY(done.wait(60000) || done.count() > 0);
    QVERIFY(QTest::qWaitFor([&] { return w.compare()->optimal_run() != nullptr; }, 5000));
    for (int c = 0; c < 3; ++c) {
      const QJsonObject r = results[c].toObject();
      QCOMPARE(w.compare()->cell(0, c), QString::number(r["cost"].toDouble(), 'f', 2));
      QCOMPARE(w.compare()->cell(1, c), QString::number(r["passes"].toInt()));
      QCOMPARE(w.compare()->cell(2, c), QString::number(r["restores"].toInt()));
      QCOMPARE(w.compare()->cell(3, c), QString::number(r["recomputed"].toInt()));
    }
    // Choosing the search's partition shows it in the passes table and colours the DAG by it.
    const auto optimal = w.compare()->optimal_run();
    w.passes()->set_algorithm("optimal");
    QCOMPARE(w.model()->run(), optimal.get());
    QCOMPARE(w.passes()->pass_count(), results[2].toObject()["passes"].toInt());
    QCOMPARE(w.dag_view()->marked_nodes(), pass_roots(*optimal));
    // Shown again (a theme change draws every panel anew), the result keeps its search.
    w.set_dark(true);
    QVERIFY(QTest::qWaitFor([&] { return !w.model()->delivering(); }, 5000));
    QCOMPARE(w.model()->run(), optimal.get());
    QCOMPARE(w.passes()->current_run(), optimal.get());
    QCOMPARE(w.dag_view()->marked_nodes(), pass_roots(*optimal));
    w.set_dark(false);
    w.passes()->set_algorithm("rdsh");
    QCOMPARE(w.model()->run(), w.result()->snapshot->run("rdsh"));
    QCOMPARE(w.passes()->pass_count(), results[0].toObject()["passes"].toInt());
    QCOMPARE(w.dag_view()->marked_nodes(), pass_roots(*w.result()->snapshot->run("rdsh")));
  }

  // The partition shown is the model's: choosing another algorithm recolours the DAG and redraws
  // the pass graph, and a new result keeps the choice. (Wood on PC5: RDSh 92 passes, RDS 91.)
  void theChosenPartitionIsShownByEveryGraph() {
    MainWindow w(options());
    w.set_target("PC5");
    QVERIFY(w.open_file(sample("wood")));
    w.show();
    QVERIFY(wait_for_panels(w));
    const auto* rds = w.result()->snapshot->run("rds");
    const auto* rdsh = w.result()->snapshot->run("rdsh");
    QVERIFY(pass_roots(*rds) != pass_roots(*rdsh));
    QCOMPARE(w.dag_view()->marked_nodes(), pass_roots(*rds));
    w.passes()->set_algorithm("rdsh");
    QCOMPARE(w.model()->run(), rdsh);
    QCOMPARE(w.dag_view()->marked_nodes(), pass_roots(*rdsh));
    QCOMPARE(w.passes()->pass_count(), static_cast<int>(rdsh->partition.passes.size()));
    w.graph_tabs()->setCurrentIndex(3);  // laid out on a worker
    QVERIFY(QTest::qWaitFor([&] { return !w.pass_graph()->laying_out(); }, 20000));
    QCOMPARE(w.pass_graph()->pass_view()->node_count(), static_cast<int>(rdsh->partition.passes.size()));
    // An edit: the panels take the new result with RDSh's partition of it.
    const quint64 before = w.shown_generation();
    w.editor()->append("\n");
    QVERIFY(wait_for_panels(w, before));
    QCOMPARE(w.model()->run(), w.result()->snapshot->run("rdsh"));
    QVERIFY(QTest::qWaitFor([&] { return !w.pass_graph()->laying_out(); }, 20000));
    QCOMPARE(w.pass_graph()->pass_view()->node_count(), static_cast<int>(w.model()->run()->partition.passes.size()));
    // The DAG view, on a tab behind the pass graph's, catches up with the edit when it is chosen
    // (whether it had before depends on how soon the edit's result came: on a busy machine under
    // a sanitizer, after the tab was left).
    w.graph_tabs()->setCurrentIndex(0);
    QTRY_COMPARE_WITH_TIMEOUT(w.dag_view()->marked_nodes(), pass_roots(*w.model()->run()), 20000);
  }

  // Wood (383 nodes, 91 passes): every graph shows the whole of itself when it first appears and
  // after a resize, until the user zooms; the compare panel's three graphs zoom together when
  // linked, and alone when not.
  void bigGraphsFitAndTheCompareViewsZoomTogether() {
    MainWindow w(options());
    QVERIFY(open_wood(w));
    auto* dag = w.dag_view();
    QVERIFY(QTest::qWaitFor([&] { return dag->node_count() == static_cast<int>(w.result()->snapshot->graph().size()); }, 20000));
    QVERIFY(dag->fitted());
    QVERIFY(dag->shows_whole_graph());
    w.resize(1200, 800);
    QVERIFY(QTest::qWaitFor([&] { return dag->shows_whole_graph(); }, 5000));
    dag->zoom_by(2.0);
    QVERIFY(!dag->fitted());
    QVERIFY(!dag->shows_whole_graph());

    static_cast<QDockWidget*>(w.dock_widget("dock-compare"))->raise();
    auto* c = w.compare();
    QVERIFY(QTest::qWaitFor([&] { return c->graph(0)->node_count() > 0 && c->graph(1)->node_count() > 0; }, 20000));
    QVERIFY(QTest::qWaitFor([&] { return c->graph(0)->shows_whole_graph() && c->graph(1)->shows_whole_graph(); }, 5000));
    const double fitted_zoom = c->graph(1)->zoom();
    c->graph(0)->zoom_by(2.0);
    QCOMPARE(c->graph(1)->zoom(), c->graph(0)->zoom());
    QCOMPARE(c->graph(2)->zoom(), c->graph(0)->zoom());
    QVERIFY(c->graph(1)->zoom() > 1.9 * fitted_zoom);
    auto* link = c->findChild<QCheckBox*>();
    QVERIFY(link);
    link->setChecked(false);
    const double linked = c->graph(1)->zoom();
    c->graph(0)->zoom_by(2.0);
    QCOMPARE(c->graph(1)->zoom(), linked);
    QVERIFY(c->graph(0)->zoom() > 1.9 * linked);
  }

  // Wood on PC5 has dozens of passes: the pass graph draws one node per pass, and clicking one
  // shows its subgraph and selects its nodes everywhere else.
  void thePassGraphShowsEveryPassAndAClickedPassesSubgraph() {
    MainWindow w(options());
    QVERIFY(open_wood(w));
    auto* panel = w.pass_graph();
    w.graph_tabs()->setCurrentWidget(panel);
    const auto* run = w.passes()->current_run();
    QVERIFY(run);
    const int passes = static_cast<int>(run->partition.passes.size());
    QVERIFY(passes > 40);
    QVERIFY(QTest::qWaitFor([&] { return !panel->laying_out() && panel->pass_view()->node_count() == passes; }, 20000));
    QVERIFY(panel->pass_view()->shows_whole_graph());
    // The minimap shows only when part of the graph is out of view: over a fitted graph it would
    // hide nodes.
    QVERIFY(!panel->pass_view()->shows_minimap());
    panel->pass_view()->zoom_by(3.0);
    QVERIFY(panel->pass_view()->shows_minimap());
    panel->pass_view()->fit();
    QVERIFY(!panel->pass_view()->shows_minimap());
    // The output pass is shown first.
    QCOMPARE(panel->shown_pass(), passes - 1);
    // A click on a pass in the middle (as the scene's selection does it).
    const int middle = passes / 2;
    const auto& pass = run->partition.passes[static_cast<std::size_t>(middle)];
    std::vector<std::vector<std::uint32_t>> picked;
    QObject::connect(panel, &passlab::views::PassGraphPanel::nodes_selected, panel, [&](const std::vector<std::uint32_t>& ids) { picked.push_back(ids); });
    auto* scene = panel->pass_view()->scene();
    scene->clearSelection();
    picked.clear();
    for (auto* item : scene->items())
      if (item->toolTip().startsWith(QString("pass %1 of").arg(middle + 1))) item->setSelected(true);
    QCOMPARE(picked.size(), std::size_t{1});
    QCOMPARE(panel->shown_pass(), middle);
    QCOMPARE(picked.front(), pass.members);
    QVERIFY(QTest::qWaitFor([&] { return !panel->laying_out(); }, 20000));
    // The subgraph: the pass's members and the values it restores.
    std::set<std::uint32_t> expected(pass.members.begin(), pass.members.end());
    expected.insert(pass.restores.begin(), pass.restores.end());
    QCOMPARE(panel->subgraph_view()->node_count(), static_cast<int>(expected.size()));
    QVERIFY(panel->subgraph_title().startsWith(QString("Pass %1 of %2").arg(middle + 1).arg(passes)));
    // The other views follow: the DAG selects the members, the passes table the pass.
    QCOMPARE(w.dag_view()->selected_nodes(), pass.members);
    QCOMPARE(w.passes()->table()->currentRow(), middle);
  }

  void tracePlayerStepsBothWaysAndDrivesTheDag() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    auto* t = w.trace();
    QVERIFY(t->event_count() > 10);
    QSignalSpy frames(t, &passlab::views::TracePlayer::frame_changed);
    t->set_position(0);
    const QString first = t->reason_text();
    t->step(1);
    QCOMPARE(t->position(), 1);
    QVERIFY(t->reason_text() != first);
    t->step(1);
    t->step(-1);
    QCOMPARE(t->position(), 1);
    t->step(-5);
    QCOMPARE(t->position(), 0);
    QCOMPARE(t->reason_text(), first);
    t->set_position(t->event_count() + 10);
    QCOMPARE(t->position(), t->event_count() - 1);
    QVERIFY(frames.count() >= 5);
    // Playing advances on its own.
    t->set_position(0);
    t->play(true);
    QVERIFY(QTest::qWaitFor([&] { return t->position() >= 2; }, 5000));
    t->play(false);
  }

  void aNewResultShowsItsPartitionNotTheStartOfItsTrace() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    // The DAG draws the partition's pass roots as marks.
    auto roots = [&] {
      std::vector<std::uint32_t> out;
      for (const auto& p : w.passes()->current_run()->partition.passes) out.push_back(p.root);
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
      return out;
    };
    QVERIFY(roots().size() > 1);
    QCOMPARE(w.dag_view()->marked_nodes(), roots());
    // Stepping the trace puts its marks so far on the DAG.
    auto* t = w.trace();
    t->set_position(3);
    const auto* run = w.result()->snapshot->run("rds");
    QVERIFY(run);
    const auto frame = passlab::views::trace_frame(run->trace, w.result()->snapshot->graph().size(), 3);
    std::vector<std::uint32_t> so_far;
    for (std::size_t id = 0; id < frame.marked.size(); ++id)
      if (frame.marked[id]) so_far.push_back(static_cast<std::uint32_t>(id));
    QCOMPARE(w.dag_view()->marked_nodes(), so_far);
    QVERIFY(so_far != roots());
    // An edit: the DAG shows the new partition whole again, and the player waits at the first event.
    auto* e = w.editor();
    const int at = static_cast<int>(e->text().indexOf("Kd = ")) + 5;
    QVERIFY(at > 5);
    const quint64 before = w.shown_generation();
    e->SendScintilla(QsciScintillaBase::SCI_SETSEL, at, at + 1);
    e->replaceSelectedText("2");
    QVERIFY(wait_for_panels(w, before));
    QCOMPARE(w.result()->snapshot->request.text, e->text().toStdString());
    QCOMPARE(w.dag_view()->marked_nodes(), roots());
    QCOMPARE(t->position(), 0);
    // Stepping again brings the focus back.
    t->step(1);
    QVERIFY(w.dag_view()->marked_nodes() != roots());
  }

  void timelineOpensTheCombinerStagesAndSelectsBothWays() {
    MainWindow w(options());
    w.set_target("geforce3");
    QVERIFY(w.open_file(QString(PASSLAB_SAMPLES_DIR "/combiners/fig4_pin.sl")));
    w.show();
    QVERIFY(wait_for_panels(w));
    auto* tl = w.timeline();
    QVERIFY(QTest::qWaitFor([&] { return tl->stage_columns() > 0; }, 10000));
    // The Figure 4 pin: one pass of six GeForce3 stages (the paper's compiler: eight).
    QCOMPARE(static_cast<int>(tl->timeline()->passes.size()), 1);
    QCOMPARE(tl->stage_columns(), 6);
    QVERIFY(tl->unit_labels(0, true).contains("DOT"));
    QVERIFY(w.passes()->listing_text().contains("!!RC1.0"));
    // Clicking a unit selects its nodes in the DAG and its source in the editor.
    auto* view = tl->findChild<QGraphicsView*>();
    QVERIFY(view);
    QGraphicsItem* dot = nullptr;
    for (QGraphicsItem* it : view->scene()->items())
      if (it->data(0).toString() == "unit" && it->toolTip().startsWith("DOT")) dot = it;
    QVERIFY(dot);
    std::vector<std::uint32_t> expected;
    for (const QVariant& v : dot->data(1).toList()) expected.push_back(v.toUInt());
    QVERIFY(!expected.empty());
    view->centerOn(dot);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(dot->sceneBoundingRect().center()));
    auto selected = w.dag_view()->selected_nodes();
    std::sort(selected.begin(), selected.end());
    std::sort(expected.begin(), expected.end());
    QCOMPARE(selected, expected);
    QVERIFY(w.editor()->span_highlight_count() > 0);
    QVERIFY(tl->lit_units() > 0);
    // The reverse: nodes selected in the DAG light the units that compute them.
    tl->select_nodes({});
    QCOMPARE(tl->lit_units(), 0);
    emit w.dag_view()->nodes_selected(expected);
    QVERIFY(tl->lit_units() > 0);
    // The trace player steps the code generation on the timeline.
    const auto* run = w.result()->snapshot->run("rds");
    int step = -1;
    for (std::size_t i = 0; i < run->trace.size() && step < 0; ++i)
      if (run->trace[i].kind == passlab::partition::EventKind::Codegen && run->trace[i].stage == 5) step = static_cast<int>(i);
    QVERIFY(step >= 0);
    w.trace()->set_position(step);
    QCOMPARE(tl->frame_stage(), 5);
    QVERIFY(w.trace()->reason_text().contains("pass 1"));
    w.trace()->set_position(0);  // a partitioning step: no stage
    QCOMPARE(tl->frame_stage(), -1);
    // Export, both formats.
    QString error;
    QVERIFY2(tl->export_file(dir_.filePath("timeline.svg"), &error), qPrintable(error));
    QFile svg(dir_.filePath("timeline.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    QVERIFY2(tl->export_file(dir_.filePath("timeline.png"), &error), qPrintable(error));
    QVERIFY(QImage(dir_.filePath("timeline.png")).width() > 1000);
    // GeForce1: the same pin in several passes of at most two stages, as many as the partition has.
    const quint64 before = w.shown_generation();
    w.set_target("geforce1");
    QVERIFY(wait_for_panels(w, before));
    const auto& passes = w.result()->snapshot->run("rds")->partition.passes;
    QVERIFY(passes.size() > 1);
    QCOMPARE(tl->timeline()->passes.size(), passes.size());
    // (A pass may have none: its final combiner computes all of it.)
    int most = 0;
    for (int p = 0; p < static_cast<int>(passes.size()); ++p) {
      tl->select_pass(p);
      QVERIFY(tl->stage_columns() <= 2);
      most = std::max(most, tl->stage_columns());
    }
    QCOMPARE(most, 2);
    // A target without combiners: passes only.
    const quint64 again = w.shown_generation();
    w.set_target("PC5");
    QVERIFY(wait_for_panels(w, again));
    QVERIFY(!tl->timeline()->passes.empty());
    QCOMPARE(tl->stage_columns(), 0);
  }

  void unsavedWorkSurvivesACrash() {
    const QString shader = dir_.filePath("pin.sl");
    QFile::remove(shader);
    QVERIFY(QFile::copy(sample("bowling_pin"), shader));
    QFile::setPermissions(shader, QFile::ReadOwner | QFile::WriteOwner);
    QString edited;
    {
      MainWindow w(options());
      QVERIFY(w.open_file(shader));
      w.editor()->setCursorPosition(0, 0);
      w.editor()->insert("/* work in progress */\n");
      edited = w.editor()->text();
      w.write_autosave();
      w.wait_for_autosave();
      // Simulate a crash: the process "dies" (its autosave now belongs to a dead pid) without
      // closing the window.
      QDir autosave(dir_.filePath("autosave"));
      const QStringList files = autosave.entryList({"session-*.sl"});
      QCOMPARE(files.size(), 1);
      QVERIFY(autosave.rename(files.front(), "session-999999999.sl"));
      QVERIFY(autosave.rename(files.front() + ".json", "session-999999999.sl.json"));
      w.editor()->setModified(false);
    }
    MainWindow w(options());
    const QStringList pending = w.pending_recoveries();
    QCOMPARE(pending.size(), 1);
    QVERIFY(w.recover_autosave(pending.front()));
    QCOMPARE(w.editor()->text(), edited);
    QVERIFY(w.editor()->isModified());
    QCOMPARE(w.file_path(), QFileInfo(shader).absoluteFilePath());
    QVERIFY(w.pending_recoveries().isEmpty());
    // Saving writes the file atomically and clears the autosave.
    QVERIFY(w.save());
    QFile f(shader);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), edited);
    QVERIFY(QDir(dir_.filePath("autosave")).entryList({"session-*.sl"}).isEmpty());
  }

  void theTargetEditorRepartitionsLiveAndSavesATargetFile() {
    MainWindow w(options());
    w.set_target("PC5");
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    const int passes_before = static_cast<int>(w.result()->snapshot->run("rds")->partition.passes.size());
    // Fewer operations per pass: more passes, each within the new limit.
    const quint64 gen = w.shown_generation();
    auto* ops = w.target_panel()->limit_box(0);
    ops->setValue(4);
    QVERIFY(wait_for_panels(w, gen));
    const auto& s = *w.result()->snapshot;
    QCOMPARE(s.request.target.limits.operations, 4);
    QCOMPARE(QString::fromStdString(s.request.target.name), QString("PC5-edited"));
    const auto& part = s.run("rds")->partition;
    QVERIFY(static_cast<int>(part.passes.size()) > passes_before);
    for (const auto& p : part.passes) QVERIFY(p.resources.operations <= 4);
    // A cost coefficient edited in the panel is the model the compare panel prices with.
    const quint64 gen2 = w.shown_generation();
    w.target_panel()->coefficient_box(0)->setValue(10);
    QVERIFY(wait_for_panels(w, gen2));
    QCOMPARE(QString::fromStdString(w.result()->snapshot->request.model.name), QString("10p+5t+i"));
    // Saved as a file that the CLI's loader reads back equal.
    const QString file = dir_.filePath("pc5-narrow.json");
    QVERIFY(w.save_target_as(file));
    passlab::lang::Diagnostics problems;
    auto back = passlab::partition::load_target(file.toStdString(), &problems);
    QVERIFY2(back.has_value(), problems.text().c_str());
    QCOMPARE(back->limits.operations, 4);
    QCOMPARE(back->limits.registers, 4);
    QCOMPARE(QString::fromStdString(w.target().source), QFileInfo(file).absoluteFilePath());
  }

  void aProjectKeepsEverythingAndOpensTolerantly() {
    const QString project = dir_.filePath("proj/wood.passlab");
    QDir().mkpath(dir_.filePath("proj"));
    {
      MainWindow w(options());
      w.set_target("PC5");
      QVERIFY(w.open_file(sample("wood")));
      w.show();
      QVERIFY(wait_for_panels(w));
      w.target_panel()->limit_box(1)->setValue(3);  // registers: an edited target, saved inline
      w.set_cost_model("10p+4t+i");
      w.passes()->set_algorithm("rdsh");
      w.set_rpu_scene(QString(PASSLAB_SAMPLES_DIR "/scenes/rpu_three_lights.json"));  // for when the target is the RPU
      QVERIFY(wait_for_panels(w));
      QVERIFY(w.save_project_as(project));
    }
    // Paths are relative to the project file.
    QFile f(project);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(o["shader"].toString().startsWith("../"));
    QVERIFY(o["shader"].toString().endsWith("shaders/wood.sl"));
    {
      MainWindow w(options());
      w.set_target("PC1");
      QVERIFY(w.open_project(project));
      w.show();
      QVERIFY(wait_for_panels(w));
      QVERIFY(w.project_problems().isEmpty());
      const auto& s = *w.result()->snapshot;
      QVERIFY(QString::fromStdString(s.request.path).endsWith("shaders/wood.sl"));
      QCOMPARE(s.request.target.limits.registers, 3);
      QCOMPARE(s.request.target.limits.operations, 6);
      QCOMPARE(QString::fromStdString(s.request.model.name), QString("10p+4t+i"));
      QCOMPARE(w.passes()->algorithm(), QString("rdsh"));
      QVERIFY(QString::fromStdString(w.service()->request().rpu.scene).endsWith("scenes/rpu_three_lights.json"));
    }
    // A broken project: the shader is gone, the target file and cost model are bad. Each is
    // reported; what remains (the inline target) opens.
    QJsonObject broken = o;
    broken["shader"] = "missing/nowhere.sl";
    broken["target_file"] = "no-such-target.json";
    broken["cost_model"] = "fast please";
    broken["rpu_scene"] = "gone/scene.json";
    const QString bad = dir_.filePath("proj/broken.passlab");
    QFile out(bad);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(broken).toJson());
    out.close();
    MainWindow w(options());
    QVERIFY(w.open_project(bad));
    QCOMPARE(w.project_problems().size(), 4);
    QVERIFY(w.project_problems().join("\n").contains("gone/scene.json"));
    QVERIFY(w.project_problems().join("\n").contains("nowhere.sl"));
    QVERIFY(w.project_problems().join("\n").contains("no-such-target.json"));
    QVERIFY(w.project_problems().join("\n").contains("fast please"));
    QCOMPARE(w.target().limits.registers, 3);
    // Not a project at all: refused with the location of the JSON error.
    const QString junk = dir_.filePath("proj/junk.passlab");
    QFile j(junk);
    QVERIFY(j.open(QIODevice::WriteOnly));
    j.write("{\n  \"passlab_project\": 1,\n  oops\n}");
    j.close();
    QVERIFY(!w.open_project(junk));
    QVERIFY(w.project_problems().join("\n").contains("junk.passlab:3:"));
  }

  void previewShowsTheSampleRendered() {
    MainWindow w(options());
    QVERIFY(open_with_preview(w, "bowling_pin"));
    const QImage image = w.preview()->fbuffer_image();
    QCOMPARE(image.size(), QSize(256, 256));  // samples/scenes/bowling_pin.json is square
    QCOMPARE(w.preview()->rtt_image().size(), QSize(256, 256));
    const auto bg = passlab::session::default_scene_for(sample("bowling_pin").toStdString()).background;
    passlab::sim::Image flat(1, 1, bg);
    const QRgb background = eight_bit(flat).pixel(0, 0);
    QCOMPARE(image.pixel(0, 0), background);
    int drawn = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) drawn += image.pixel(x, y) != background;
    QVERIFY2(drawn > 256 * 256 / 20, qPrintable(QString("only %1 pixels are not background").arg(drawn)));
    // An opaque scene: both storages give the same picture.
    QCOMPARE(w.preview()->rtt_image(), image);
    // Multisampling smooths the silhouette: the picture changes on edge pixels only.
    auto* msaa = w.preview()->findChild<QComboBox*>("preview-msaa");
    QVERIFY(msaa);
    msaa->setCurrentIndex(msaa->findData(4));
    QVERIFY(wait_for_preview(w));
    const QImage smooth = w.preview()->fbuffer_image();
    QCOMPARE(smooth.size(), image.size());
    int changed = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) changed += smooth.pixel(x, y) != image.pixel(x, y);
    QVERIFY2(changed > 50 && changed < drawn / 2, qPrintable(QString("%1 pixels changed").arg(changed)));
  }

  void previewRendersCombinerPassesWithTheCombinerSimulator() {
    MainWindow w(options());
    w.set_target("geforce1");
    QVERIFY(w.open_file(QString(PASSLAB_SAMPLES_DIR "/combiners/fig4_pin.sl")));
    w.show();
    show_preview(w);
    QVERIFY(wait_for_panels(w) && wait_for_preview(w));
    const auto* run = w.passes()->current_run();
    QVERIFY(run && run->partition.valid && run->partition.passes.size() > 1);
    passlab::lang::Diagnostics problems;
    const auto scene = passlab::sim::load_scene(PASSLAB_SAMPLES_DIR "/scenes/fig4_pin.json", &problems);
    QVERIFY(scene.has_value());
    const QImage fbuf = w.preview()->fbuffer_image();
    QCOMPARE(fbuf, render_directly(w, *scene, passlab::sim::Storage::FBuffer, run));
    // The pin is drawn, the same in both storages (the scene is opaque). The combiner passes
    // against the reference interpreter: tests/backends/combiners/simulator_test.cpp.
    QCOMPARE(w.preview()->rtt_image(), fbuf);
    int drawn = 0;
    for (int y = 0; y < fbuf.height(); ++y)
      for (int x = 0; x < fbuf.width(); ++x) drawn += fbuf.pixel(x, y) != fbuf.pixel(0, 0);
    QVERIFY2(drawn > fbuf.width() * fbuf.height() / 20, qPrintable(QString("only %1 pixels drawn").arg(drawn)));
    // Probing the pin follows its fragment through every combiner pass.
    auto* table = w.preview()->findChild<QTableWidget*>("preview-probe");
    auto* view = w.preview()->findChild<QWidget*>("preview-fbuffer");
    QVERIFY(view);
    QTest::mouseClick(view, Qt::LeftButton, {}, view->rect().center());
    QVERIFY(QTest::qWaitFor([&] { return table->rowCount() > 0; }, 30000));
    int fbuffer_rows = 0;
    for (int r = 0; r < table->rowCount(); ++r) fbuffer_rows += table->item(r, 0)->text() == "F-buffer";
    QCOMPARE(fbuffer_rows, static_cast<int>(run->partition.passes.size()));
  }

  void previewRenderToTextureBreaksWhereTransparentFragmentsOverlapAndTheFBufferDoesNot() {
    MainWindow w(options());
    QVERIFY(open_transparent_scene(w));
    const QImage rtt = w.preview()->rtt_image(), fbuf = w.preview()->fbuffer_image();
    int differing = 0;
    for (int y = 0; y < fbuf.height(); ++y)
      for (int x = 0; x < fbuf.width(); ++x) differing += rtt.pixel(x, y) != fbuf.pixel(x, y);
    QVERIFY2(differing > 100, qPrintable(QString("%1 pixels differ").arg(differing)));
    // The F-buffer's passes give the single pass's picture, rendered here directly.
    passlab::lang::Diagnostics problems;
    const auto scene = passlab::sim::load_scene(PASSLAB_SAMPLES_DIR "/scenes/transparent.json", &problems);
    QVERIFY(scene.has_value());
    const QImage single = render_directly(w, *scene, passlab::sim::Storage::SinglePass, nullptr);
    QVERIFY(!single.isNull());
    QCOMPARE(fbuf, single);
    QCOMPARE(rtt, render_directly(w, *scene, passlab::sim::Storage::RenderToTexture, w.passes()->current_run()));
  }

  void probingAPixelShowsItsFragmentsThroughEveryPass() {
    MainWindow w(options());
    QVERIFY(open_transparent_scene(w));
    auto* table = w.preview()->findChild<QTableWidget*>("preview-probe");
    QCOMPARE(table->rowCount(), 0);
    // The middle of the picture: both transparent spheres cover it, in front of the background.
    auto* view = w.preview()->findChild<QWidget*>("preview-rtt");
    QTest::mouseClick(view, Qt::LeftButton, {}, view->rect().center());
    QVERIFY(QTest::qWaitFor([&] { return table->rowCount() > 0; }, 30000));
    const int passes = static_cast<int>(w.passes()->current_run()->partition.passes.size());
    int rows[2] = {0, 0}, wrong = 0;
    for (int r = 0; r < table->rowCount(); ++r) {
      const bool fbuffer = table->item(r, 0)->text() == "F-buffer";
      ++rows[fbuffer];
      QVERIFY(table->item(r, 1)->text().toInt() >= 1 && table->item(r, 1)->text().toInt() <= passes);
      wrong += table->item(r, 5)->text().contains("differs");
      QVERIFY(!fbuffer || !table->item(r, 5)->text().contains("differs"));
    }
    QCOMPARE(rows[1], 2 * passes);  // each sphere's fragment in every pass
    QVERIFY(rows[0] > 0);
    QVERIFY(wrong > 0);  // render to texture restored the other sphere's value somewhere
  }

  void anEditDuringARenderEndsWithThePictureOfTheNewestSnapshot() {
    MainWindow w(options());
    QVERIFY(open_with_preview(w, "bowling_pin"));
    const QImage before = w.preview()->fbuffer_image();
    auto* cancel = w.preview()->findChild<QPushButton*>("preview-cancel");
    auto* e = w.editor();
    // Each edit arrives while the render of the one before is in flight (or still compiling).
    for (int i = 0; i < 4; ++i) {
      const quint64 gen = w.shown_generation();
      e->setCursorPosition(e->lines() - 2, 0);
      e->insert("    Ci *= 0.8;\n");
      QVERIFY(wait_for_panels(w, gen));
      QVERIFY(cancel->isEnabled());  // rendering this version now
      QTest::qWait(i * 15);
    }
    QVERIFY(wait_for_preview(w));
    const auto scene = passlab::session::default_scene_for(sample("bowling_pin").toStdString());
    const QImage newest = render_directly(w, scene, passlab::sim::Storage::FBuffer, w.passes()->current_run());
    QCOMPARE(w.preview()->fbuffer_image(), newest);
    QVERIFY(newest != before);
  }

  void exportsTheGraph() {
    MainWindow w(options());
    QVERIFY(w.open_file(sample("matte")));
    QVERIFY(wait_for_panels(w));
    QString error;
    for (const char* ext : {"svg", "png", "dot"}) {
      const QString path = dir_.filePath(QString("graph.%1").arg(ext));
      QVERIFY2(w.dag_view()->export_file(path, &error), qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 100);
    }
    QVERIFY(w.dag_view()->export_dot().contains("->"));
  }
};

QTEST_MAIN(StudioTest)
#include "studio_test.moc"
