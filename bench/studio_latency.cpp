// SPDX-License-Identifier: GPL-3.0-or-later
// studio_latency: edit-to-updated-panels latency and UI-thread stalls of the Studio.
//
//   studio_latency [--edits N] [--load N] [--studio PASSLAB] [--out FILE.md] [--explain] SHADER...
//
// --load N starts N busy processes (each spinning on a core, as a build beside the Studio does)
// before measuring and stops them at the end; they die with the bench if it is killed.
// --studio PASSLAB also times PASSLAB --startup-time SHADER, three runs per shader: the cold start
// of the real program, under the same load.
//
// For each shader it opens the Studio's main window (offscreen unless a display is set), records
// the time from creating the window to every panel showing the first snapshot (cold start in this
// process: the application is already up), then
//  1. applies N edits, each changing a numeric literal the way a user would (select it, type the
//     new value), and measures the time from the edit to the moment every panel shows the
//     snapshot of that edit and the window has repainted;
//  2. types a new statement one character every 40 ms (faster than anyone types), passing through
//     versions with syntax errors, and records every UI-thread stall: a 2 ms probe timer that
//     fires late by more than 16 ms means the event loop was blocked that long;
//  3. partitions by hand (Partition ▸ Partition It Yourself, starting from RDS's marks, with the
//     Compare panel in front): clicks N of the marked nodes in the DAG view, each click
//     unmarking or marking one, and measures the time from the click to the window having
//     repainted every figure that shows the partition (the DAG, the passes table, the timeline,
//     Compare's table, chart and Yours column, the marking bar).
// An edit after a pause compiles at once (the compile delay applies to bursts of typing).
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>
#include <vector>

#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTimer>

#include "app/studio/main_window.h"
#include "editors/shader_editor.h"
#include "app/studio/marking.h"
#include "views/graph_view.h"
#include "views/studio_model.h"

namespace {

using passlab::studio::MainWindow;

// The UI thread's context switches so far: voluntary (it blocked: a lock, the disk) and
// involuntary (it was preempted).
std::pair<long, long> thread_switches() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return {u.ru_nvcsw, u.ru_nivcsw};
}

// The UI thread's own CPU time: an event's wall time beyond it was spent waiting (on the display
// server, the disk) or preempted.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// With --explain, every event that keeps the UI thread longer than 16 ms is printed with its receiver
// (and, indented, the events over 4 ms nested inside it), to find what a stall was.
class TimedApplication : public QApplication {
 public:
  using QApplication::QApplication;
  bool explain = false;
  // The top-level events over 1 ms, with their start on `wall`: what filled a stall.
  struct Recent {
    double begin, ms, cpu;  // cpu: the UI thread's own CPU time; ms - cpu is time it waited or was preempted
    int type;
    long blocked, preempted;  // context switches during the event
    QString receiver;
  };
  QElapsedTimer wall;
  std::vector<Recent> recent;
  bool notify(QObject* receiver, QEvent* event) override {
    if (!explain) return QApplication::notify(receiver, event);
    ++depth_;
    QElapsedTimer t;
    t.start();
    const double cpu0 = thread_cpu_ms();
    const auto [vol0, invol0] = thread_switches();
    const int type = event->type();
    const double begin = wall.isValid() ? wall.nsecsElapsed() / 1e6 : 0;
    // Named before the event: it may delete its receiver (a deferred delete does).
    const QString name = QString("%1 '%2'").arg(receiver->metaObject()->className(), receiver->objectName());
    const char* parent = receiver->parent() ? receiver->parent()->metaObject()->className() : "-";
    const bool r = QApplication::notify(receiver, event);
    const double ms = t.nsecsElapsed() / 1e6;
    const double cpu = thread_cpu_ms() - cpu0;
    const auto [vol1, invol1] = thread_switches();
    if (depth_ == 1 && ms > 1.0 && wall.isValid()) recent.push_back({begin, ms, cpu, type, vol1 - vol0, invol1 - invol0, name});
    if (recent.size() > 400) recent.erase(recent.begin(), recent.begin() + 200);
    if (ms > (depth_ > 1 ? 4 : 16))
      std::fprintf(stderr, "%*sslow event %d to %s (parent %s): %.1f ms (cpu %.1f, blocked %ld, preempted %ld times)\n", 2 * (depth_ - 1), "",
                   type, qPrintable(name), parent, ms, cpu, vol1 - vol0, invol1 - invol0);
    --depth_;
    return r;
  }

 private:
  int depth_ = 0;
};

// Records the largest gaps between ticks of a fast timer: each is time the UI thread was busy.
class StallProbe : public QObject {
 public:
  StallProbe() {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(2);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const double now = clock_.nsecsElapsed() / 1e6;
      const double gap = now - last_ - 2.0;
      if (gap > worst_) worst_ = gap;
      if (gap > 16.0) {
        ++stalls_;
        auto* app = static_cast<TimedApplication*>(QCoreApplication::instance());
        if (app->explain) {
          const double base = app->wall.nsecsElapsed() / 1e6 - now;  // probe clock -> wall clock
          std::fprintf(stderr, "stall of %.1f ms, filled by:\n", gap);
          for (const auto& e : app->recent)
            if (e.begin >= last_ + base - 1)
              std::fprintf(stderr, "  +%.1f event %d to %s: %.1f ms (cpu %.1f, blocked %ld, preempted %ld times)\n",
                           e.begin - last_ - base, e.type, qPrintable(e.receiver), e.ms, e.cpu, e.blocked, e.preempted);
        }
      }
      last_ = now;
    });
  }
  void start() {
    clock_.start();
    last_ = 0;
    worst_ = 0;
    stalls_ = 0;
    timer_.start();
  }
  void stop() { timer_.stop(); }
  double worst() const { return worst_; }
  int stalls() const { return stalls_; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  double last_ = 0, worst_ = 0;
  int stalls_ = 0;
};

// Waits until the window reports panels showing a generation newer than `after`.
bool wait_panels(MainWindow& w, quint64 after, int timeout_ms, quint64* shown = nullptr) {
  QEventLoop loop;
  quint64 got = 0;
  auto c = QObject::connect(&w, &MainWindow::panels_updated, &loop, [&](quint64 g) {
    if (g > after) {
      got = g;
      loop.quit();
    }
  });
  QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
  loop.exec();
  QObject::disconnect(c);
  if (shown) *shown = got;
  return got > after;
}

// Lets the event loop run for `ms`, sleeping between events as the Studio's own loop does (a loop
// around processEvents() would spin and take a core from the compile workers).
void run_events_for(int ms) {
  QEventLoop loop;
  QTimer::singleShot(ms, Qt::PreciseTimer, &loop, &QEventLoop::quit);
  loop.exec();
}

// N processes that spin until killed; started before Qt makes threads. Each dies with the bench.
std::vector<pid_t> start_load(int n) {
  std::vector<pid_t> children;
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    if (pid > 0) children.push_back(pid);
  }
  return children;
}

void stop_load(const std::vector<pid_t>& children) {
  for (pid_t pid : children) kill(pid, SIGKILL);
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
}

// PASSLAB --startup-time SHADER: the milliseconds it prints; nothing (and why, on stderr) when the
// program did not finish or did not print them.
std::optional<double> studio_startup(const QString& passlab, const QString& shader) {
  QProcess p;
  p.start(passlab, {"--startup-time", shader});
  if (!p.waitForFinished(300000)) {
    p.kill();
    std::cerr << "studio_latency: " << passlab.toStdString() << " --startup-time did not finish in 5 minutes\n";
    return std::nullopt;
  }
  const QString out = QString::fromUtf8(p.readAllStandardOutput());
  const auto m = QRegularExpression(R"(after (\d+) ms)").match(out);
  if (!m.hasMatch()) {
    std::cerr << "studio_latency: " << passlab.toStdString() << " --startup-time printed no time (exit " << p.exitCode()
              << "): " << out.toStdString() << QString::fromUtf8(p.readAllStandardError()).toStdString() << '\n';
    return std::nullopt;
  }
  return m.captured(1).toDouble();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

struct Row {
  QString sample;
  int nodes = 0;
  std::vector<double> latency, compile, partition, layout, published;
  std::vector<double> arrived;  // from the edit to the result reaching the UI thread
  std::vector<double> repaint;  // the window's repaint once every panel has the result
  std::vector<std::pair<QString, std::vector<double>>> stages;  // each panel's UI time taking the result
  double typing_worst = 0;
  int typing_stalls = 0;
  int typing_chars = 0;
  double edit_worst = 0;
  double cold_ms = 0;
  std::vector<double> marking;  // a click in the DAG view to every figure of the partition repainted
  std::vector<double> startup;  // --studio: the real program's cold start, per run
  int startup_failures = 0;     // runs that printed no time (said on stderr)
};

Row measure(const QString& shader, int edits) {
  Row row;
  row.sample = QFileInfo(shader).completeBaseName();
  QTemporaryDir tmp;
  passlab::studio::StudioOptions o;
  o.settings_file = tmp.filePath("settings.ini");
  o.autosave_dir = tmp.filePath("autosave");
  QElapsedTimer cold;
  cold.start();
  MainWindow w(o);
  w.resize(1500, 920);
  w.show();
  w.open_file(shader);
  if (!wait_panels(w, 0, 120000)) {
    std::fprintf(stderr, "%s: no first snapshot\n", qPrintable(shader));
    return row;
  }
  QCoreApplication::sendPostedEvents(&w, QEvent::UpdateRequest);
  row.cold_ms = cold.nsecsElapsed() / 1e6;
  QCoreApplication::processEvents();
  if (w.result() && w.result()->graphs[0]) row.nodes = static_cast<int>(w.result()->graphs[0]->nodes.size());
  auto* ed = w.editor();
  // The literal to edit: the diffuse weight's default (a fragment-rate constant of the DAG), or
  // else the first number with a decimal point in the body.
  const QString text = ed->text();
  QRegularExpression kd(R"(\bKd\s*=\s*\K\d*\.?\d+)");
  QRegularExpression number(R"((?<![\w.])\d+\.\d+)");
  auto m = kd.match(text);
  if (!m.hasMatch()) m = number.match(text, std::max(0, static_cast<int>(text.indexOf('{'))));
  if (!m.hasMatch()) {
    std::fprintf(stderr, "%s: no numeric literal to edit\n", qPrintable(shader));
    return row;
  }
  const int start = static_cast<int>(m.capturedStart());
  QString current = m.captured();
  StallProbe probe;
  probe.start();
  for (int i = 0; i < edits; ++i) {
    // Alternate between two values so that every edit changes the graph's constants.
    const QString next = (i % 2 == 0) ? current + "5" : m.captured();
    const quint64 before = w.service()->generation();
    QElapsedTimer t;
    t.start();
    double compiled_at = -1;
    auto spy = QObject::connect(w.service(), &passlab::studio::CompileService::compiled, &w, [&] { if (compiled_at < 0) compiled_at = t.nsecsElapsed() / 1e6; });
    ed->SendScintilla(QsciScintillaBase::SCI_SETSEL, start, start + current.toUtf8().size());
    ed->replaceSelectedText(next);
    current = next;
    // Until the panels show the edited text (not a version from the middle of the edit).
    quint64 shown = before;
    bool ok = true;
    while (ok && !(w.result() && shown > before && w.result()->snapshot->request.text == ed->text().toStdString()))
      ok = wait_panels(w, shown, 20000, &shown);
    if (!ok) {
      std::fprintf(stderr, "%s: edit %d timed out\n", qPrintable(shader), i);
      break;
    }
    // The panels' new contents on screen: the repaint the event loop would do next, now.
    const double before_paint = t.nsecsElapsed() / 1e6;
    QCoreApplication::sendPostedEvents(&w, QEvent::UpdateRequest);
    row.latency.push_back(t.nsecsElapsed() / 1e6);
    row.repaint.push_back(row.latency.back() - before_paint);
    QObject::disconnect(spy);
    row.arrived.push_back(compiled_at);
    // --explain: what the UI thread did between the edit and the panels (events over 1 ms).
    if (auto* app = static_cast<TimedApplication*>(QCoreApplication::instance()); app->explain) {
      const double edit_at = app->wall.nsecsElapsed() / 1e6 - row.latency.back();
      std::fprintf(stderr, "edit %d: %.1f ms, result on the UI thread at %.1f\n", i, row.latency.back(), compiled_at);
      for (const auto& e : app->recent)
        if (e.begin >= edit_at)
          std::fprintf(stderr, "  +%.1f event %d to %s: %.1f ms (cpu %.1f)\n", e.begin - edit_at, e.type,
                       qPrintable(e.receiver), e.ms, e.cpu);
    }
    if (auto r = w.result()) {
      row.compile.push_back(r->snapshot->compile_ms);
      row.partition.push_back(r->snapshot->partition_ms);
      row.layout.push_back(r->layout_ms);
      row.published.push_back(r->snapshot->compile_ms + r->snapshot->partition_ms + r->layout_ms);
    }
    for (const auto& taken : w.model()->take_ms()) {
      auto it = std::find_if(row.stages.begin(), row.stages.end(), [&](const auto& st) { return st.first == taken.first; });
      if (it == row.stages.end()) it = row.stages.insert(row.stages.end(), {taken.first, {}});
      it->second.push_back(taken.second);
    }
    // A pause between edits, as between a user's keystrokes that change a value.
    run_events_for(150);
  }
  probe.stop();
  row.edit_worst = probe.worst();

  // Typing: a statement that changes the graph, one character every 40 ms.
  const QString statement = "\n  Ci = Ci * 0.97 + Cs * 0.03;";
  const int close = static_cast<int>(ed->text().lastIndexOf('}'));
  int at = static_cast<int>(ed->text().left(close).toUtf8().size());
  probe.start();
  // Typed as key events, the way a keyboard delivers them (the editor handles them itself).
  ed->setFocus();
  ed->SendScintilla(QsciScintillaBase::SCI_GOTOPOS, at);
  for (QChar c : statement) {
    QKeyEvent press(QEvent::KeyPress, 0, Qt::NoModifier, QString(c));
    QKeyEvent release(QEvent::KeyRelease, 0, Qt::NoModifier, QString(c));
    QCoreApplication::sendEvent(ed, &press);
    QCoreApplication::sendEvent(ed, &release);
    ++row.typing_chars;
    run_events_for(40);
  }
  const quint64 before = w.service()->generation() - 1;
  wait_panels(w, before, 20000);
  run_events_for(300);
  probe.stop();
  row.typing_worst = probe.worst();
  row.typing_stalls = probe.stalls();

  // Partitioning by hand: each click marks or unmarks a node and every figure follows at once.
  static_cast<QDockWidget*>(w.dock_widget("dock-compare"))->raise();
  w.marking()->set_on(true);
  w.marking()->start_from("rds");
  run_events_for(300);
  std::vector<std::uint32_t> marked;
  for (const auto& m : w.marking()->marks().marks()) marked.push_back(m.node);
  for (int i = 0; i < edits && !marked.empty(); ++i) {
    const std::uint32_t node = marked[static_cast<std::size_t>(i / 2) % marked.size()];  // unmarked, then marked again
    QElapsedTimer t;
    t.start();
    w.dag_view()->click_node(node);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
    row.marking.push_back(t.nsecsElapsed() / 1e6);
    run_events_for(100);
  }
  w.marking()->set_on(false);
  w.editor()->setModified(false);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  // The load first, before Qt starts threads of its own.
  int load = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--load") == 0) load = std::atoi(argv[i + 1]);
  const std::vector<pid_t> busy = start_load(load);
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  TimedApplication app(argc, argv);
  app.wall.start();
  QApplication::setApplicationName("passlab-bench");
  int edits = 21;
  QString out, studio;
  QStringList shaders;
  bool usage = false;
  const QStringList args = QCoreApplication::arguments().mid(1);
  for (int i = 0; i < args.size(); ++i) {
    if (args[i] == "--edits" && i + 1 < args.size()) edits = args[++i].toInt();
    else if (args[i] == "--out" && i + 1 < args.size()) out = args[++i];
    else if (args[i] == "--load" && i + 1 < args.size()) ++i;  // read above
    else if (args[i] == "--studio" && i + 1 < args.size()) studio = args[++i];
    else if (args[i] == "--explain") app.explain = true;
    else if (args[i].startsWith("-")) usage = true;  // --help, or an option we do not know
    else shaders << args[i];
  }
  for (const QString& s : shaders) {
    if (!QFileInfo(s).isFile()) {
      std::fprintf(stderr, "studio_latency: %s: no such file\n", qPrintable(s));
      stop_load(busy);
      return 2;
    }
  }
  if (usage || shaders.isEmpty()) {
    std::fprintf(stderr, "usage: studio_latency [--edits N] [--load N] [--studio PASSLAB] [--out FILE.md] [--explain] SHADER...\n");
    stop_load(busy);
    return 2;
  }
  QString table =
      QString("Load: %1 busy process%2.\n\n").arg(load).arg(load == 1 ? "" : "es") +
      "| Sample | DAG nodes | Cold start, in process (ms) | Cold start, passlab (ms) | Edits | Median latency (ms) | 90th pct (ms) | Max (ms) | Worst UI stall, edits (ms) | "
      "Typing: chars | Worst UI stall, typing (ms) | Stalls > 16 ms | Marking a node: median (ms) | max (ms) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  QString breakdown;
  for (const QString& s : shaders) {
    Row r = measure(s, edits);
    for (int run = 0; run < 3 && !studio.isEmpty(); ++run) {
      if (auto ms = studio_startup(studio, s)) r.startup.push_back(*ms);
      else ++r.startup_failures;
    }
    const double mx = r.latency.empty() ? 0 : *std::max_element(r.latency.begin(), r.latency.end());
    QString startup = "–";
    if (!r.startup.empty()) {
      startup.clear();
      for (double ms : r.startup) startup += QString(startup.isEmpty() ? "%1" : ", %1").arg(ms, 0, 'f', 0);
      startup += QString(" (median %1)").arg(median(r.startup), 0, 'f', 0);
    }
    if (r.startup_failures > 0)
      startup = (r.startup.empty() ? QString() : startup + ", ") + QString("%1 failed").arg(r.startup_failures);
    const double mark_max = r.marking.empty() ? 0 : *std::max_element(r.marking.begin(), r.marking.end());
    table += QString("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 | %9 | %10 | %11 | %12 | %13 | %14 |\n")
                 .arg(r.sample)
                 .arg(r.nodes)
                 .arg(r.cold_ms, 0, 'f', 0)
                 .arg(startup)
                 .arg(r.latency.size())
                 .arg(median(r.latency), 0, 'f', 1)
                 .arg(percentile(r.latency, 0.9), 0, 'f', 1)
                 .arg(mx, 0, 'f', 1)
                 .arg(r.edit_worst, 0, 'f', 1)
                 .arg(r.typing_chars)
                 .arg(r.typing_worst, 0, 'f', 1)
                 .arg(r.typing_stalls)
                 .arg(median(r.marking), 0, 'f', 1)
                 .arg(mark_max, 0, 'f', 1);
    breakdown += QString("%1%2: compile %3, partition %4, layout %5")
                     .arg(breakdown.isEmpty() ? "" : "; ")
                     .arg(r.sample)
                     .arg(median(r.compile), 0, 'f', 1)
                     .arg(median(r.partition), 0, 'f', 1)
                     .arg(median(r.layout), 0, 'f', 1);
    breakdown += QString(", result on the UI thread after %1").arg(median(r.arrived), 0, 'f', 1);
    breakdown += ", panels taking it";
    for (const auto& st : r.stages) breakdown += QString(" %1 %2").arg(st.first).arg(median(st.second), 0, 'f', 1);
    breakdown += QString(", repaint %1").arg(median(r.repaint), 0, 'f', 1);
  }
  table += QString("\nWhere the time goes (medians, ms): %1\n").arg(breakdown);
  stop_load(busy);
  std::fputs(table.toUtf8().constData(), stdout);
  if (!out.isEmpty()) {
    QSaveFile f(out);
    if (!f.open(QIODevice::WriteOnly) || f.write(table.toUtf8()) < 0 || !f.commit()) {
      std::fprintf(stderr, "cannot write %s\n", qPrintable(out));
      return 1;
    }
  }
  return 0;
}
