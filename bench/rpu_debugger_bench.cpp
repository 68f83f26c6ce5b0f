// SPDX-License-Identifier: GPL-3.0-or-later
// rpu_debugger_bench: how fast the Studio's RPU debugger answers.
//
//   rpu_debugger_bench [--repeat N] [--steps N] [--shader FILE] [--scene FILE]
//
// Opens the Studio's main window (offscreen unless a display is set) on the RPU target with the
// bunny scene (256x256) shaded by samples/rpu/ceramic.sl (thousands of steps per chunk), waits for the RPU render, then
//  1. picks N pixels on the bunny the way a user does (a click on the render) and measures the
//     time from the click until the debugger holds that pixel's chunk and the window has
//     repainted every visible panel: "a debuggable thread";
//  2. from inside the surface shader, applies each move (step into, over, out, each alternating
//     with its reverse) --steps times and measures each from the action until the window has
//     painted what changed in every visible panel (editor, IR and assembly, chunk, registers,
//     stack), and again with the whole window repainted (an upper bound).
// Prints the median and 95th percentile of each, in milliseconds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"
#include "views/rpu_debugger_panel.h"
#include "views/rpu_render_panel.h"
#include "views/rpu_session.h"

namespace {

using passlab::studio::MainWindow;
namespace views = passlab::views;

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

void wait_until(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 5);
}

}  // namespace

int main(int argc, char** argv) {
  if (qgetenv("QT_QPA_PLATFORM").isEmpty() && qgetenv("DISPLAY").isEmpty()) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  int repeat = 5, steps = 40;
  std::string shader = PASSLAB_SOURCE_DIR "/samples/rpu/ceramic.sl";
  std::string scene = PASSLAB_SOURCE_DIR "/samples/scenes/rpu_bunny.json";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--steps" && i + 1 < argc) steps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--shader" && i + 1 < argc) shader = argv[++i];
    else if (a == "--scene" && i + 1 < argc) scene = argv[++i];
    else {
      std::fprintf(stderr, "usage: rpu_debugger_bench [--repeat N] [--steps N] [--shader FILE] [--scene FILE]\n");
      return 2;
    }
  }
  QTemporaryDir dir;
  passlab::studio::StudioOptions o;
  o.settings_file = dir.filePath("settings.ini");
  o.autosave_dir = dir.filePath("autosave");
  o.ask_before_recovery = false;
  MainWindow w(o);
  w.resize(1600, 1000);
  w.set_target("RPU");
  w.open_file(QString::fromStdString(shader));
  w.set_rpu_scene(QString::fromStdString(scene));
  w.show();
  views::RpuSession* session = w.rpu_session();
  wait_until([&] { return session->build() && session->build()->ok() && session->build()->scene_path == scene && !w.service()->busy(); }, 60000);
  if (!session->build() || !session->build()->ok()) {
    std::fprintf(stderr, "rpu_debugger_bench: the program did not compile\n");
    return 1;
  }
  static_cast<QDockWidget*>(w.dock_widget("dock-rpu-render"))->raise();
  views::RpuRenderPanel* render = w.rpu_render();
  wait_until([&] { return render->frame() && !render->rendering() && render->frame()->build == session->build_ptr(); }, 120000);
  if (!render->frame()) {
    std::fprintf(stderr, "rpu_debugger_bench: no render\n");
    return 1;
  }
  const auto& image = render->frame()->result.image;
  std::printf("RPU debugger: %s in %s, %dx%d (render %.0f ms)\n", shader.c_str(), scene.c_str(), image.width, image.height, render->frame()->ms);
  // Pixels on the bunny (not the background), spread over it.
  std::vector<QPoint> pixels;
  for (int y = 3; y < image.height && static_cast<int>(pixels.size()) < 400; y += 11)
    for (int x = 5; x < image.width; x += 13) {
      const float* p = image.at(x, y);
      if (p[0] + p[1] + p[2] > 0.05f) pixels.emplace_back(x, y);
    }
  if (pixels.empty()) {
    std::fprintf(stderr, "rpu_debugger_bench: nothing but background\n");
    return 1;
  }
  std::vector<double> pick;
  std::size_t steps_total = 0;
  for (int r = 0; r < repeat; ++r) {
    const QPoint px = pixels[static_cast<std::size_t>(r) * pixels.size() / static_cast<std::size_t>(repeat)];
    QElapsedTimer t;
    t.start();
    QTest::mouseClick(render->image_view(), Qt::LeftButton, {}, render->image_view()->widget_point(px));
    wait_until([&] { return session->debugger() && !session->recording() && session->pixel() == px; }, 30000);
    w.repaint();
    pick.push_back(t.nsecsElapsed() / 1e6);
    steps_total += session->debugger() ? session->debugger()->step_count() : 0;
  }
  std::printf("pick a pixel -> debuggable thread (click to repainted window), %d pixels, %zu steps per chunk on average:\n", repeat,
              steps_total / static_cast<std::size_t>(repeat));
  std::printf("  median %.1f ms, p95 %.1f ms, max %.1f ms\n", percentile(pick, 0.5), percentile(pick, 0.95), *std::max_element(pick.begin(), pick.end()));

  // Stepping: from inside the surface shader.
  const auto* b = session->build();
  const passlab::rpu::Debugger* d = session->debugger();
  for (int i = 0; i < 5000; ++i) {
    const auto* f = b->function_at(d->thread(d->lane()).pc);
    if (f && f->main_file && d->depth() > 0) break;
    session->move(views::RpuMove::Into);
  }
  const QList<QAction*>& moves = w.rpu_debugger()->move_actions();
  auto find = [&](const QString& text) {
    for (QAction* a : moves)
      if (a->text() == text) return a;
    return static_cast<QAction*>(nullptr);
  };
  struct Kind {
    QString forward, back;
  };
  const Kind kinds[] = {{"Into ▶", "◀ Into"}, {"Over ▶", "◀ Over"}, {"Out ▶", "◀ Out"}};
  // Each move is measured twice: until the window has painted what the move changed (the
  // regions the panels marked for update, as the event loop paints them), and with the whole
  // window repainted on top (an upper bound: every visible panel drawn again).
  std::vector<double> all, whole;
  std::printf("stepping (action to painted window), %d moves each way; medians and p95, ms:\n", steps);
  auto timed = [&](QAction* a, bool full) {
    QElapsedTimer t;
    t.start();
    a->trigger();
    QApplication::sendPostedEvents();
    QApplication::processEvents();
    if (full) w.repaint();
    return t.nsecsElapsed() / 1e6;
  };
  for (const Kind& k : kinds) {
    QAction* fwd = find(k.forward);
    QAction* bwd = find(k.back);
    std::vector<double> f, g, fw, gw;
    for (int round = 0; round < 2; ++round)
      for (int i = 0; i < steps; ++i) (round ? fw : f).push_back(timed(fwd, round == 1)), (round ? gw : g).push_back(timed(bwd, round == 1));
    all.insert(all.end(), f.begin(), f.end());
    all.insert(all.end(), g.begin(), g.end());
    whole.insert(whole.end(), fw.begin(), fw.end());
    whole.insert(whole.end(), gw.begin(), gw.end());
    std::printf("  %-8s %5.2f (p95 %5.2f), whole window %5.2f (p95 %5.2f) | %-8s %5.2f (p95 %5.2f), whole window %5.2f (p95 %5.2f)\n",
                qPrintable(k.forward), percentile(f, 0.5), percentile(f, 0.95), percentile(fw, 0.5), percentile(fw, 0.95), qPrintable(k.back),
                percentile(g, 0.5), percentile(g, 0.95), percentile(gw, 0.5), percentile(gw, 0.95));
  }
  std::printf("  all moves: median %.2f ms, p95 %.2f ms, max %.2f ms; whole window repainted: median %.2f ms, p95 %.2f ms\n", percentile(all, 0.5),
              percentile(all, 0.95), *std::max_element(all.begin(), all.end()), percentile(whole, 0.5), percentile(whole, 0.95));
  return 0;
}
