// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI tests of the Sampling view (QTest, offscreen): opening it renders the shader with the
// scene's blur by decoupled sampling and shows the paper's measures; a click traces the pixel's
// visibility samples and the shading points they used; supersampling as the comparison shades
// every sample; a long render can be cancelled; the sweeps fill the charts.
#include <QComboBox>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTabWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"
#include "tests/app/studio_test_support.h"
#include "views/sampling_panel.h"

using passlab::studio::MainWindow;
using passlab::studio::StudioOptions;
namespace views = passlab::views;

class StudioSamplingTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  StudioOptions options() const { return passlab::studio::test_options(dir_); }
  // Opens a sample, shows the Sampling tab and waits for its first render.
  static bool open_sampling(MainWindow& w, const char* sample) {
    if (!w.open_file(QString(PASSLAB_SAMPLES_DIR "/shaders/%1.sl").arg(sample))) return false;
    w.show();
    static_cast<QDockWidget*>(w.dock_widget("dock-preview"))->raise();
    w.preview_tabs()->setCurrentWidget(w.sampling());
    return wait_render(w);
  }
  static bool wait_render(MainWindow& w) {
    return QTest::qWaitFor([&] { return !w.sampling()->busy() && !w.sampling()->image().isNull() && !w.service()->busy(); }, 60000);
  }
  static void choose(MainWindow& w, const char* box, int index) {
    auto* b = w.sampling()->findChild<QComboBox*>(box);
    QVERIFY(b);
    b->setCurrentIndex(index);
  }

 private slots:
  void openingTheViewRendersTheBlurredSceneWithThePapersMeasures() {
    MainWindow w(options());
    QVERIFY(open_sampling(w, "plastic"));
    views::SamplingPanel* s = w.sampling();
    QCOMPARE(s->findChild<QComboBox*>("sampling-scene")->currentText(), QString("ds_bats"));  // the blurred scenes first
    QCOMPARE(s->image().size(), QSize(256, 256));
    QCOMPARE(s->stats().spp, 27);
    QVERIFY(s->stats().shader_runs > 0);
    QVERIFY(s->stats().savings() > 4);  // far fewer runs than samples
    QVERIFY(s->findChild<QLabel*>("sampling-measures")->text().contains("shading rate"));
    // The heat map is another picture of the same render.
    choose(w, "sampling-view", 1);
    QTRY_VERIFY(!s->findChild<QLabel*>("sampling-state")->text().contains("Rendering"));
    // The error against the exact reference is rendered on demand, and the measures give its PSNR.
    QVERIFY(!s->findChild<QLabel*>("sampling-measures")->text().contains("exact reference"));
    choose(w, "sampling-view", 2);
    QVERIFY(QTest::qWaitFor([&] { return s->findChild<QLabel*>("sampling-measures")->text().contains("against the exact reference"); },
                            120000));
    QVERIFY(wait_render(w));
  }

  void clickingAPixelTracesItsSamplesAndTheirShadingPoints() {
    MainWindow w(options());
    QVERIFY(open_sampling(w, "plastic"));
    views::SamplingPanel* s = w.sampling();
    // A pixel in the middle of a bat: the covered pixel closest to the centre.
    const QImage before = s->image();
    QPoint pick(-1, -1);
    const QRgb background = before.pixel(0, 0);
    for (int r = 0; r < 128 && pick.x() < 0; ++r)
      for (int dx = -r; dx <= r && pick.x() < 0; ++dx)
        if (before.pixel(128 + dx, 128 + r / 2) != background) pick = QPoint(128 + dx, 128 + r / 2);
    QVERIFY(pick.x() >= 0);
    s->probe(pick);
    QVERIFY(wait_render(w));
    QCOMPARE(s->probed_pixel(), pick);
    QVERIFY(s->traced().size() >= 27);  // every sample of the pixel that hit something
    auto* table = s->findChild<QTableWidget*>("sampling-samples");
    QCOMPARE(table->rowCount(), static_cast<int>(s->traced().size()));
    int misses = 0;
    for (const auto& t : s->traced()) {
      QVERIFY(t.sx >= pick.x() && t.sx < pick.x() + 1);
      QVERIFY(std::isfinite(t.shading_points[0][0]));
      misses += !t.hit;
    }
    QVERIFY(misses < static_cast<int>(s->traced().size()));  // most of them reuse shading
    // The same picture as before the click: tracing changes nothing.
    QCOMPARE(s->image(), before);
  }

  void supersamplingShadesEverySampleAndARenderCanBeCancelled() {
    MainWindow w(options());
    QVERIFY(open_sampling(w, "plastic"));
    views::SamplingPanel* s = w.sampling();
    const long decoupled = s->stats().shader_runs;
    choose(w, "sampling-shading", 1);  // supersample
    QVERIFY(QTest::qWaitFor([&] { return s->busy(); }, 2000));
    QVERIFY(wait_render(w));
    QCOMPARE(s->stats().shader_runs, s->stats().samples_tested);
    QVERIFY(s->stats().shader_runs > 4 * decoupled);
    // Supersampling uses no cache, and the measures say so (they named a 4k cache's hit rate).
    const QString measures = s->findChild<QLabel*>("sampling-measures")->text();
    QVERIFY2(measures.contains("no shading cache") && !measures.contains("cache hit rate"), qPrintable(measures));
    // The hardware studies: its cost model against itself supersampled is 1x.
    const QString hardware = s->findChild<QLabel*>("sampling-hardware")->text();
    QVERIFY2(hardware.contains("tiles of 24×24 px") && hardware.contains("<b>1.00×</b>"), qPrintable(hardware));
    // 512 px at 64 spp takes seconds: Cancel stops it and says so.
    choose(w, "sampling-size", 2);
    choose(w, "sampling-spp", 5);
    QVERIFY(QTest::qWaitFor([&] { return s->findChild<QPushButton*>("sampling-cancel")->isEnabled(); }, 5000));
    QTest::mouseClick(s->findChild<QPushButton*>("sampling-cancel"), Qt::LeftButton);
    QVERIFY(QTest::qWaitFor([&] { return !s->busy(); }, 10000));
    QCOMPARE(s->findChild<QLabel*>("sampling-state")->text(), QString("Cancelled"));
  }

  void theSweepsFillTheCharts() {
    MainWindow w(options());
    QVERIFY(open_sampling(w, "matte"));
    views::SamplingPanel* s = w.sampling();
    choose(w, "sampling-size", 0);  // 128 px: a quick sweep
    QVERIFY(wait_render(w));
    QSignalSpy done(s, &views::SamplingPanel::sweep_done);
    s->run_sweep();
    QVERIFY(done.wait(240000));
    // 12 renders over spp and blur, 22 over cache sizes, 8 over scope, 8 over blur.
    QCOMPARE(static_cast<int>(s->sweep_rows().size()), 50);
    // A larger cache never shades more: savings grow with the cache to the unlimited one's.
    double smallest = -1, unlimited = -1;
    for (const auto& r : s->sweep_rows())
      if (r.axis == passlab::sim::SweepAxis::Cache && r.options.quads) {
        if (r.options.cache == 32) smallest = r.stats.savings();
        if (r.options.cache == 0) unlimited = r.stats.savings();
      }
    QVERIFY(smallest > 0 && unlimited > smallest);
    // Each blur scale's series says its blur area (the paper's measure): one pixel without blur.
    QStringList names;
    for (QAbstractSeries* series : s->findChild<QChartView*>("sampling-rate-chart")->chart()->series()) names << series->name();
    QVERIFY2(names.contains("blur ×0 · 1.0 px"), qPrintable(names.join(", ")));
    QVERIFY2(names.filter(QRegularExpression("^blur ×2 · \\d+ px$")).size() == 1, qPrintable(names.join(", ")));
    QVERIFY(s->findChild<QPushButton*>("sampling-sweep")->isEnabled());
  }
};

QTEST_MAIN(StudioSamplingTest)
#include "studio_sampling_test.moc"
