// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI tests of the lecture hall (QTest, offscreen): presentation mode enlarges the fonts,
// thickens the graphs, raises the contrast, keeps only the current panel on screen and points with
// a laser, and puts everything back; every chart and graph can be copied and exported as SVG and
// PNG; the panel with the focus can be copied to the clipboard.
#include <QApplication>
#include <QChartView>
#include <QClipboard>
#include <QDockWidget>
#include <QFile>
#include <QGraphicsView>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"
#include "editors/shader_editor.h"
#include "tests/app/studio_test_support.h"
#include "views/compare_panel.h"
#include "views/graph_view.h"
#include "views/view_export.h"

using passlab::studio::MainWindow;
namespace views = passlab::views;

class StudioLectureTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  static bool open_pin(MainWindow& w) {
    w.set_target("PC5");
    w.resize(1500, 920);
    if (!w.open_file(PASSLAB_SAMPLES_DIR "/shaders/bowling_pin.sl")) return false;
    w.show();
    return passlab::studio::wait_for_panels(w);
  }
  static QDockWidget* dock(MainWindow& w, const char* name) { return static_cast<QDockWidget*>(w.dock_widget(name)); }

 private slots:
  void presentationModeShowsThePanelLargeAndPutsEverythingBack() {
    MainWindow w(passlab::studio::test_options(dir_));
    QVERIFY(open_pin(w));
    const double size = QApplication::font().pointSizeF();
    const QColor window = QApplication::palette().color(QPalette::Window);
    QVERIFY(dock(w, "dock-passes")->isVisible());
    QVERIFY(w.editor()->isVisible());
    w.set_presentation(true, dock(w, "dock-graphs"));
    QVERIFY(w.presentation());
    QCOMPARE(QApplication::font().pointSizeF(), size * 1.6);
    QVERIFY(w.dag_view()->presentation());
    const QColor paper = QApplication::palette().color(QPalette::Window);
    QVERIFY(paper == Qt::white || paper == Qt::black);  // high contrast
    QVERIFY(dock(w, "dock-graphs")->isVisible());
    QVERIFY(!dock(w, "dock-passes")->isVisible());
    QVERIFY(!dock(w, "dock-diagnostics")->isVisible());
    QVERIFY(!w.editor()->isVisible());  // the panel has the window
    QVERIFY(QApplication::overrideCursor());  // the laser pointer
    w.set_presentation(false);
    QVERIFY(!w.presentation());
    QCOMPARE(QApplication::font().pointSizeF(), size);
    QCOMPARE(QApplication::palette().color(QPalette::Window), window);
    QVERIFY(!w.dag_view()->presentation());
    QVERIFY(dock(w, "dock-passes")->isVisible());
    QVERIFY(dock(w, "dock-diagnostics")->isVisible());
    QVERIFY(w.editor()->isVisible());
    QVERIFY(!QApplication::overrideCursor());
  }

  void everyChartAndGraphCopiesAndExports() {
    MainWindow w(passlab::studio::test_options(dir_));
    QVERIFY(open_pin(w));
    // Every drawing in the window has the menu: the graphs, the timeline, the charts.
    const auto all = w.findChildren<QGraphicsView*>();
    QVERIFY(all.size() >= 10);
    for (QGraphicsView* v : all) QVERIFY2(v->property("passlab-export-title").isValid(), qPrintable(v->objectName()));
    // The compare panel's chart and DAG, as SVG and PNG.
    dock(w, "dock-compare")->raise();
    w.compare()->cell(0, 0);  // shown
    QChartView* chart = w.compare()->findChild<QChartView*>();
    QVERIFY(chart);
    QCOMPARE(chart->property("passlab-export-title").toString(), QString("Cost breakdown"));
    QString error;
    const QString svg = dir_.filePath("chart.svg"), png = dir_.filePath("chart.png");
    QVERIFY2(views::export_view(chart, svg, &error), qPrintable(error));
    QVERIFY2(views::export_view(chart, png, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("<svg"));
    const QImage picture(png);
    QVERIFY(picture.width() > 200 && picture.height() > 200);
    QVERIFY(picture.pixelColor(2, 2) == QColor(Qt::white));  // the margin is paper, not black
    const QString dag = dir_.filePath("dag.png");
    QVERIFY2(views::export_view(w.dag_view()->findChild<QGraphicsView*>(), dag, &error), qPrintable(error));
    QVERIFY(!QImage(dag).isNull());
    // Edit ▸ Copy View as Image: the panel with the focus.
    QApplication::clipboard()->clear();
    w.dag_view()->setFocus();
    w.dag_view()->findChild<QGraphicsView*>()->setFocus();
    w.copy_view_image();
    const QImage copied = QApplication::clipboard()->image();
    QVERIFY(!copied.isNull());
    QCOMPARE(copied.size(), dock(w, "dock-graphs")->widget()->size() * dock(w, "dock-graphs")->widget()->devicePixelRatioF());
  }
};

QTEST_MAIN(StudioLectureTest)
#include "studio_lecture_test.moc"
