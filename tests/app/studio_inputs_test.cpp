// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI tests of what the window compiles for (QTest, offscreen): a target file with a mistake
// is listed at its place and not applied, what a target cannot run is underlined at its source,
// and the Output box compiles a shader's output parameter (an AOV) instead of Ci.
#include <algorithm>
#include <set>

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "app/studio/main_window.h"
#include "editors/shader_editor.h"
#include "tests/app/studio_test_support.h"
#include "views/diagnostics_panel.h"

using passlab::studio::MainWindow;
using passlab::studio::StudioOptions;
using passlab::studio::wait_for_panels;

class StudioInputsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  StudioOptions options() const { return passlab::studio::test_options(dir_); }
  static QString sample(const char* name) { return QString(PASSLAB_SAMPLES_DIR "/shaders/%1.sl").arg(name); }

 private slots:
  // A target file with a mistake is not applied; its problem is listed with the compile's messages,
  // at its place in the file, until a target applies.
  void aTargetThatDoesNotLoadIsListedAtItsPlace() {
    MainWindow w(options());
    w.set_target("PC5");
    QVERIFY(w.open_file(sample("bowling_pin")));
    w.show();
    QVERIFY(wait_for_panels(w));
    const int before = w.diagnostics()->count();
    const QString bad = dir_.filePath("bad_target.json");
    {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("{\n  \"name\": \"b\",\n  \"limits\": {\"registers\": -3}\n}\n");
    }
    w.set_target(bad);
    QCOMPARE(w.target_name(), QString("PC5"));
    QCOMPARE(w.diagnostics()->count(), before + 1);
    const QTreeWidgetItem* row = w.diagnostics()->list()->topLevelItem(before);
    QCOMPARE(row->text(1), QString("bad_target.json:3:14"));
    QCOMPARE(row->text(3), QString("target"));
    QVERIFY(row->text(2).contains("must not be negative"));
    QVERIFY(w.statusBar()->currentMessage().contains("bad_target.json:3:14: error:"));
    w.set_target("PC4");
    QCOMPARE(w.target_name(), QString("PC4"));
    QCOMPARE(w.diagnostics()->count(), before);
  }

  // What a target cannot run is a diagnostic at its source: listed and underlined in the editor.
  void whatATargetCannotRunIsUnderlined() {
    const QString shader = dir_.filePath("du.sl"), target = dir_.filePath("flat.json");
    for (const auto& [path, text] : {std::pair{shader, QByteArray("surface du()\n{\n  Ci = Du(s) * Cs;\n}\n")},
                                     std::pair{target, QByteArray(R"({"name": "flat", "derivatives": "none"})")}}) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    }
    MainWindow w(options());
    w.set_target(target);
    QCOMPARE(w.target_name(), QString("flat"));
    QVERIFY(w.open_file(shader));
    w.show();
    QVERIFY(QTest::qWaitFor([&] { return w.editor()->squiggle_count() > 0 && !w.service()->busy(); }, 20000));
    QCOMPARE(w.diagnostics()->count(), 1);
    const QTreeWidgetItem* row = w.diagnostics()->list()->topLevelItem(0);
    QCOMPARE(row->text(1), QString("du.sl:3:8"));
    QCOMPARE(row->text(3), QString("fp-target"));
    QVERIFY(row->text(2).contains("no screen-space derivatives"));
  }

  // The output box lists a shader's output parameters (AOVs): choosing one compiles it as the
  // fragment's colour, and every panel shows its program; a shader without outputs hides the box.
  void anOutputParameterCanBeCompiledInsteadOfCi() {
    const QString shader = dir_.filePath("aov.sl");
    {
      QFile f(shader);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("surface aov(output varying float mask = 0; output color spare = 0)\n{\n  float h = 0.5 + 0.5 * sin(20 * s);\n"
              "  mask = step(0.5, h);\n  Ci = Cs * h;\n}\n");
    }
    MainWindow w(options());
    w.set_target("PC5");
    QVERIFY(w.open_file(shader));
    w.show();
    QVERIFY(wait_for_panels(w));
    auto* box = w.findChild<QComboBox*>("output-box");
    auto* shown = w.findChild<QAction*>("output-action");  // the box's place in the toolbar
    QVERIFY(box && shown && shown->isVisible());
    QCOMPARE(box->count(), 4);  // Ci, the two output parameters, all of them at once
    QCOMPARE(box->itemData(1).toString(), QString("mask"));
    QCOMPARE(box->itemText(3), QString("All outputs"));
    auto reads_cs = [](const passlab::dag::FragmentDag& d) {
      return std::any_of(d.nodes.begin(), d.nodes.end(), [](const passlab::dag::Node& n) { return n.name == "Cs"; });
    };
    QVERIFY(reads_cs(*w.result()->snapshot->fragment_dag));
    const quint64 before = w.shown_generation();
    box->setCurrentIndex(1);
    QVERIFY(wait_for_panels(w, before));
    QCOMPARE(w.result()->snapshot->request.aov, std::string("mask"));
    QVERIFY(!reads_cs(*w.result()->snapshot->fragment_dag));  // mask's program, not Ci's
    QVERIFY(!w.result()->snapshot->runs.empty() && w.result()->snapshot->runs[0].partition.valid);
    // Every output at once: a shader of three outputs under one root, each saved by a pass.
    {
      const quint64 at = w.shown_generation();
      box->setCurrentIndex(3);
      QVERIFY(wait_for_panels(w, at));
      const auto& snap = *w.result()->snapshot;
      QVERIFY(snap.request.all_outputs);
      QCOMPARE(snap.fragment_dag->node(snap.fragment_dag->root).op, passlab::ir::Op::Outputs);
      QVERIFY(snap.problem.pseudo_root);
      const auto* rds = snap.run("rds");
      QVERIFY(rds && rds->partition.valid && rds->problems.empty());
      std::set<std::uint32_t> written;
      for (const auto& pass : rds->partition.passes) written.insert(pass.outputs.begin(), pass.outputs.end());
      for (std::uint32_t o : snap.problem.graph.children[snap.problem.graph.root]) QVERIFY(written.count(o));
      const QString all_project = dir_.filePath("all.passlab");
      QVERIFY(w.save_project_as(all_project));
      MainWindow again(options());
      QVERIFY(again.open_project(all_project));
      again.show();
      QVERIFY(wait_for_panels(again));
      QVERIFY(again.result()->snapshot->request.all_outputs);
      QCOMPARE(again.findChild<QComboBox*>("output-box")->currentText(), QString("All outputs"));
      const quint64 back = w.shown_generation();
      box->setCurrentIndex(1);
      QVERIFY(wait_for_panels(w, back));
    }
    // A project keeps the choice.
    const QString project = dir_.filePath("aov.passlab");
    QVERIFY(w.save_project_as(project));
    {
      MainWindow again(options());
      QVERIFY(again.open_project(project));
      again.show();
      QVERIFY(wait_for_panels(again));
      QVERIFY(again.project_problems().isEmpty());
      QCOMPARE(again.result()->snapshot->request.aov, std::string("mask"));
      QCOMPARE(again.findChild<QComboBox*>("output-box")->currentData().toString(), QString("mask"));
    }
    // Another shader starts from its Ci, and with no outputs the box goes.
    QVERIFY(w.open_file(sample("plastic")));
    QVERIFY(wait_for_panels(w, w.shown_generation()));
    QCOMPARE(w.result()->snapshot->request.aov, std::string());
    QVERIFY(!shown->isVisible());
  }
};

QTEST_MAIN(StudioInputsTest)
#include "studio_inputs_test.moc"
