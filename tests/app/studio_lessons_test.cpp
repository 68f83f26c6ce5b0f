// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI test of the lessons (QTest, offscreen): every step of every lesson in samples/lessons
// is played forwards (its actions carried out without a problem) and back; every question is
// checked both ways: a fit question rejects a partition that does not fit, naming the limit, and
// accepts RDS's marks (or the optimal search's, where it asks for less than RDS); a scheduling
// question rejects program order and accepts the list scheduler's; an answer question accepts its
// answer, where the Studio shows the fact the answer is read from (compared here), and rejects
// another.
#include <QDockWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"
#include "app/studio/marking.h"
#include "tests/app/studio_test_support.h"
#include "views/lessons_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_schedule_exercise.h"
#include "views/rpu_session.h"
#include "views/sampling_panel.h"
#include "views/studio_model.h"

using passlab::studio::MainWindow;
namespace session = passlab::session;

class StudioLessonsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  static bool settled(MainWindow& w) {
    return QTest::qWaitFor([&] {
      return w.lesson_idle() && !w.service()->busy() && w.shown_generation() == w.service()->generation() && !w.model()->delivering() &&
             !w.rpu_session()->recording();
    }, 60000);
  }
  // The fact an answer question reads from the Studio, as the Studio shows it now ("" where it is
  // read elsewhere: a sweep, a picture).
  static QString fact(MainWindow& w, const QString& lesson, const QString& step) {
    const auto& s = *w.result()->snapshot;
    if (lesson.startsWith("01") && step == "One pass is not enough")
      return QString::number(w.model()->yours_run()->partition.passes.front().resources.operations);
    if (lesson.startsWith("01") && step == "RDS and the optimal search") return QString::number(s.run("rds")->partition.cost);
    if (lesson.startsWith("02") && step == "Eight stages") return QString::number(s.run("rds")->timeline.passes.front().stages.size());
    if (lesson.startsWith("02") && step == "A GeForce 256") return QString::number(s.run("rds")->partition.passes.size());
    if (lesson.startsWith("03") && step == "The list scheduler")
      return QString::number(w.rpu_session()->build()->compiled().schedules.at(w.rpu_decisions()->function_label().toStdString()).pieces.front().cycles);
    if (lesson.startsWith("05") && step == "Shading rate") {
      if (!QTest::qWaitFor([&] { return !w.sampling()->busy() && !w.sampling()->image().isNull(); }, 60000)) return "no render";
      return QString::number(w.sampling()->stats().spp);
    }
    return {};
  }
  static void check(MainWindow& w, const session::LessonQuestion& q, const QString& answer, bool right, const QString& where) {
    w.lessons()->set_answer(answer);
    w.lessons()->check();
    const QString v = w.lessons()->verdict();
    QVERIFY2(v.contains(right ? "#1a7f2a" : "#c01818"), qPrintable(where + ": " + v));
    Q_UNUSED(q);
  }

 private slots:
  void everyLessonPlaysEveryStepAndChecksItsQuestions() {
    MainWindow w(passlab::studio::test_options(dir_));
    w.resize(1500, 920);
    w.show();
    QVERIFY2(w.lesson_problems().isEmpty(), qPrintable(w.lesson_problems().join("\n")));
    auto* panel = w.lessons();
    QCOMPARE(panel->lessons().size(), std::size_t{5});
    for (int l = 0; l < static_cast<int>(panel->lessons().size()); ++l) {
      const session::Lesson& lesson = panel->lessons()[static_cast<std::size_t>(l)];
      const QString name = QString::fromStdString(lesson.path).section('/', -1);
      panel->open_lesson(l);
      for (int k = 0; k < static_cast<int>(lesson.steps.size()); ++k) {
        if (k > 0) panel->next();
        const session::LessonStep& step = lesson.steps[static_cast<std::size_t>(k)];
        const QString where = QString("%1, step %2 (%3)").arg(name).arg(k + 1).arg(QString::fromStdString(step.title));
        QCOMPARE(panel->step(), k);
        QVERIFY2(settled(w), qPrintable(where + ": the step's actions never finished"));
        QVERIFY2(w.lesson_problems().isEmpty(), qPrintable(where + ": " + w.lesson_problems().join("\n")));
        QVERIFY2(panel->text().contains(QString::fromStdString(step.title)), qPrintable(where));
        if (!step.question) continue;
        const session::LessonQuestion& q = *step.question;
        if (q.kind == "fit") {
          w.marking()->clear();
          check(w, q, {}, false, where);
          QVERIFY2(w.lessons()->verdict().contains("does not fit") && w.lessons()->verdict().contains(" &gt; "),
                   qPrintable(w.lessons()->verdict()));  // the limit, with its numbers
          w.marking()->start_from("rds");
          const double rds = w.result()->snapshot->run("rds")->partition.cost;
          const bool rds_enough = !q.options.count("max-cost") || rds <= std::stod(q.options.at("max-cost"));
          if (!rds_enough) {
            QVERIFY2(QTest::qWaitFor([&] { return w.model()->optimal_run() != nullptr; }, 60000), qPrintable(where + ": no optimal run"));
            w.marking()->start_from("optimal");
          }
          check(w, q, {}, true, where);
        } else if (q.kind == "schedule") {
          auto* ex = w.rpu_decisions()->exercise();
          ex->set_order({0, 1, 2, 3, 4, 5});
          check(w, q, {}, false, where);
          const auto& block = w.rpu_session()->build()->compiled().schedules.at(w.rpu_decisions()->function_label().toStdString()).pieces.front();
          ex->set_order(block.order);
          check(w, q, {}, true, where);
        } else {
          const QString expected = QString::fromStdString(q.options.at("expect")).section('|', 0, 0);
          if (const QString shown = fact(w, name, QString::fromStdString(step.title)); !shown.isEmpty())
            QVERIFY2(session::check_answer(q, shown.toStdString()).ok, qPrintable(where + ": the Studio shows " + shown + ", the lesson expects " + expected));
          check(w, q, expected, true, where);
          check(w, q, "0", false, where);
        }
      }
      // And back to the start.
      for (int k = static_cast<int>(lesson.steps.size()) - 1; k > 0; --k) {
        panel->previous();
        QCOMPARE(panel->step(), k - 1);
        QVERIFY(settled(w));
        QVERIFY2(w.lesson_problems().isEmpty(), qPrintable(w.lesson_problems().join("\n")));
      }
    }
  }
};

QTEST_MAIN(StudioLessonsTest)
#include "studio_lessons_test.moc"
