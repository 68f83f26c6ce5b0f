// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI tests of partitioning by hand (QTest, offscreen): choosing "Yours" turns the DAG view's
// clicks into marks; every panel shows the partition the marks make, each pass with the limit it
// breaks; clicking RDS's marks reaches RDS's cost in the passes panel, the Compare panel's "Yours"
// column and the marking bar; undo and redo step through the marks; marks follow their nodes
// through an edit, save with the project and come back with it; marks files import and export;
// a hint names one better mark.
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"
#include "app/studio/marking.h"
#include "editors/shader_editor.h"
#include "tests/app/studio_test_support.h"
#include "views/compare_panel.h"
#include "views/graph_view.h"
#include "views/pass_graph_panel.h"
#include "views/marking_bar.h"
#include "views/passes_panel.h"
#include "views/studio_model.h"
#include "views/timeline_panel.h"

using passlab::studio::MainWindow;
using passlab::studio::StudioOptions;
namespace views = passlab::views;

class StudioMarkingTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  StudioOptions options() const { return passlab::studio::test_options(dir_); }
  static QString sample(const char* name) { return QString(PASSLAB_SAMPLES_DIR "/shaders/%1.sl").arg(name); }
  static bool open_pin(MainWindow& w) {
    w.set_target("PC5");
    w.resize(1500, 920);
    if (!w.open_file(sample("bowling_pin"))) return false;
    w.show();
    return passlab::studio::wait_for_panels(w);
  }
  static void choose_yours(MainWindow& w) {
    auto* box = w.passes()->findChild<QComboBox*>();
    QVERIFY(box);
    const int i = box->findData("yours");
    QVERIFY(i >= 0);
    box->setCurrentIndex(i);
  }
  static std::vector<std::uint32_t> rds_marks(MainWindow& w) {
    std::vector<std::uint32_t> out;
    const auto* rds = w.result()->snapshot->run("rds");
    for (std::uint32_t id = 0; id < rds->partition.marked.size(); ++id)
      if (rds->partition.marked[id] && id != w.result()->snapshot->problem.graph.root) out.push_back(id);
    return out;
  }

 private slots:
  void clickingRdsMarksReachesRdsCostInEveryPanel() {
    MainWindow w(options());
    QVERIFY(open_pin(w));
    choose_yours(w);
    QVERIFY(w.model()->marking());
    QVERIFY(w.marking_bar()->isVisible());
    QVERIFY(w.dag_view()->marking());
    QCOMPARE(w.graph_tabs()->currentIndex(), 0);  // the DAG is where one marks
    // No marks: one pass computes everything, and it says which limit it breaks.
    const auto* run = w.passes()->current_run();
    QVERIFY(run);
    QCOMPARE(QString::fromStdString(run->algorithm), QString("yours"));
    QCOMPARE(run->partition.passes.size(), std::size_t{1});
    QVERIFY(!run->partition.valid);
    QVERIFY2(w.passes()->table()->item(0, 9)->text().contains(" > "), qPrintable(w.passes()->table()->item(0, 9)->text()));
    QVERIFY2(w.marking_bar()->summary().contains("1 pass does not fit"), qPrintable(w.marking_bar()->summary()));
    // RDS's marks, clicked one by one where the DAG view draws them.
    const auto marks = rds_marks(w);
    QVERIFY(marks.size() > 3);
    for (std::uint32_t id : marks) w.dag_view()->click_node(id);
    QVERIFY(w.dag_view()->selected_nodes().empty());  // a click while marking marks; it does not select
    run = w.passes()->current_run();
    const auto* rds = w.result()->snapshot->run("rds");
    QVERIFY(run->partition.valid);
    QCOMPARE(run->partition.cost, rds->partition.cost);
    QCOMPARE(w.passes()->pass_count(), static_cast<int>(rds->partition.passes.size()));
    QCOMPARE(w.dag_view()->marked_nodes().size(), rds->partition.passes.size());  // drawn as pass roots
    QVERIFY2(w.marking_bar()->summary().contains("every pass fits"), qPrintable(w.marking_bar()->summary()));
    QVERIFY2(w.marking_bar()->comparison().contains("RDS"), qPrintable(w.marking_bar()->comparison()));
    // The Compare panel's last column is yours, with RDS's numbers.
    static_cast<QDockWidget*>(w.dock_widget("dock-compare"))->raise();
    QCOMPARE(w.compare()->cell(0, 3), w.compare()->cell(0, 1));
    QCOMPARE(w.compare()->cell(1, 3), w.compare()->cell(1, 1));
    // A theme change draws the same result again, with your partition.
    w.set_dark(true);
    QVERIFY(QTest::qWaitFor([&] { return !w.model()->delivering(); }, 5000));
    QVERIFY(w.passes()->current_run() && w.passes()->current_run()->algorithm == "yours");
    QCOMPARE(w.passes()->current_run()->partition.cost, rds->partition.cost);
    w.set_dark(false);
    // Undo takes the last click back; redo puts it again.
    QVERIFY(w.marking()->marks().can_undo());
    w.marking()->undo();
    QCOMPARE(w.marking()->marks().marks().size(), marks.size() - 1);
    QVERIFY(w.passes()->current_run()->partition.cost != rds->partition.cost || !w.passes()->current_run()->partition.valid);
    w.marking()->redo();
    QCOMPARE(w.passes()->current_run()->partition.cost, rds->partition.cost);
    // Clicking a marked node unmarks it.
    w.dag_view()->click_node(marks.front());
    QVERIFY(!w.marking()->marks().marked(marks.front()));
    // Done: the panels show RDS again, the marks stay.
    w.marking()->set_on(false);
    QVERIFY(!w.marking_bar()->isVisible());
    QVERIFY(!w.dag_view()->marking());
    QCOMPARE(QString::fromStdString(w.passes()->current_run()->algorithm), QString("rds"));
    QCOMPARE(w.marking()->marks().marks().size(), marks.size() - 1);
  }

  void clickingAPassInThePassGraphMergesItIntoItsReaders() {
    MainWindow w(options());
    QVERIFY(open_pin(w));
    w.marking()->set_on(true);
    w.marking()->start_from("rds");
    const std::size_t marks = w.marking()->marks().marks().size();
    const std::size_t passes = w.passes()->current_run()->partition.passes.size();
    w.graph_tabs()->setCurrentIndex(3);
    QVERIFY(QTest::qWaitFor([&] { return !w.pass_graph()->laying_out() && w.pass_graph()->pass_view()->node_count() > 0; }, 20000));
    QVERIFY(w.pass_graph()->pass_view()->marking());
    w.pass_graph()->pass_view()->click_node(0);  // the first pass: a saved value, not the output
    QCOMPARE(w.marking()->marks().marks().size(), marks - 1);
    QVERIFY(w.passes()->current_run()->partition.passes.size() < passes);
  }

  void marksFollowAnEditAndComeBackWithTheProject() {
    const QString project = dir_.filePath("pin.passlab");
    {
      MainWindow w(options());
      QVERIFY(open_pin(w));
      w.marking()->set_on(true);
      w.marking()->start_from("rds");
      const double cost = w.passes()->current_run()->partition.cost;
      const std::size_t n = w.marking()->marks().marks().size();
      // The same sum written the other way round renumbers the DAG; the marks follow their nodes.
      const quint64 before = w.shown_generation();
      QString text = w.editor()->text();
      const QString from = "Ci = (Base * Label) * (Marks * Cd) + Cspec;";
      QVERIFY(text.contains(from));
      text.replace(from, "Ci = Cspec + (Base * Label) * (Marks * Cd);");
      const QString original = w.editor()->text();
      w.editor()->setText(text);
      QVERIFY(passlab::studio::wait_for_panels(w, before));
      QCOMPARE(w.marking()->marks().marks().size(), n);
      QVERIFY(w.passes()->current_run()->partition.valid);
      QCOMPARE(w.passes()->current_run()->partition.cost, cost);
      // And back, to the text the project's shader file holds.
      const quint64 edited = w.shown_generation();
      w.editor()->setText(original);
      QVERIFY(passlab::studio::wait_for_panels(w, edited));
      QCOMPARE(w.marking()->marks().marks().size(), n);
      QVERIFY(w.save_project_as(project));
    }
    MainWindow w(options());
    QVERIFY(w.open_project(project));
    w.show();
    QVERIFY(passlab::studio::wait_for_panels(w));
    QVERIFY(w.project_problems().isEmpty());
    QVERIFY(w.model()->marking());  // the project was saved while marking
    QVERIFY(w.marking_bar()->isVisible());
    const auto* run = w.passes()->current_run();
    QVERIFY(run && run->algorithm == "yours");
    QVERIFY(run->partition.valid);
    QCOMPARE(run->partition.cost, w.result()->snapshot->run("rds")->partition.cost);
  }

  void marksFilesImportAndExport() {
    MainWindow w(options());
    QVERIFY(open_pin(w));
    w.marking()->set_on(true);
    w.marking()->start_from("rds");
    const QString file = dir_.filePath("pin.marks.json");
    QVERIFY(w.export_marks(file));
    w.marking()->clear();
    QVERIFY(w.marking()->marks().marks().empty());
    QVERIFY(w.import_marks(file));
    QCOMPARE(w.passes()->current_run()->partition.cost, w.result()->snapshot->run("rds")->partition.cost);
    // A mark on an input is refused with its place in the file, and the marks stay as they were.
    const std::size_t n = w.marking()->marks().marks().size();
    std::uint32_t input = 0;
    while (w.result()->snapshot->problem.is_op[input]) ++input;
    QFile bad(dir_.filePath("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(QString("{\"format\": \"passlab-marks\", \"version\": 1,\n \"marks\": [%1]}\n").arg(input).toUtf8());
    bad.close();
    QVERIFY(!w.import_marks(bad.fileName()));
    QCOMPARE(w.marking()->marks().marks().size(), n);
  }

  void aReasonTypedForAMarkIsSavedWithIt() {
    MainWindow w(options());
    QVERIFY(open_pin(w));
    w.marking()->set_on(true);
    const std::uint32_t node = rds_marks(w).front();
    w.dag_view()->click_node(node);
    QCOMPARE(w.marking_bar()->reason_node(), static_cast<long>(node));  // the bar asks why
    w.marking_bar()->set_reason_text("read by both labels");
    QVERIFY(w.marking()->marks().reason(node));
    QCOMPARE(*w.marking()->marks().reason(node), std::string("read by both labels"));
    const QString file = dir_.filePath("reasons.json");
    QVERIFY(w.export_marks(file));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("\"reason\": \"read by both labels\""));
    w.dag_view()->click_node(node);  // unmarked: nothing left to ask about
    QCOMPARE(w.marking_bar()->reason_node(), -1L);
  }

  void marksDoNotFollowToAnotherShaderOpenedOnTheRpu() {
    MainWindow w(options());
    QVERIFY(open_pin(w));
    w.marking()->set_on(true);
    w.marking()->start_from("rds");
    QVERIFY(!w.marking()->marks().marks().empty());
    w.set_target("RPU");
    QVERIFY(passlab::studio::wait_for_panels(w, w.shown_generation()));
    QVERIFY(w.open_file(sample("plastic")));
    QVERIFY(passlab::studio::wait_for_panels(w, w.shown_generation()));
    const quint64 rpu = w.shown_generation();
    w.set_target("PC5");
    QVERIFY(passlab::studio::wait_for_panels(w, rpu));
    QVERIFY(w.marking()->marks().marks().empty());  // the pin's node ids mean nothing on plastic
  }

  void aHintNamesOneBetterMark() {
    MainWindow w(options());
    QVERIFY(open_pin(w));
    w.marking()->set_on(true);
    QVERIFY(w.marking_bar()->hint().isEmpty());  // off until asked
    w.marking()->hint();
    QVERIFY2(w.marking_bar()->hint().startsWith("Hint: Mark n"), qPrintable(w.marking_bar()->hint()));
    QCOMPARE(w.model()->selection().size(), std::size_t{1});  // the node is selected in every view
    const std::uint32_t node = w.model()->selection().front();
    w.dag_view()->click_node(node);
    QVERIFY(w.marking()->marks().marked(node));
    QVERIFY(w.marking_bar()->hint().isEmpty());  // a change of the marks answers it
  }
};

QTEST_MAIN(StudioMarkingTest)
#include "studio_marking_test.moc"
