// SPDX-License-Identifier: GPL-3.0-or-later
// Studio GUI tests of the RPU target (QTest, offscreen): the RPU panels replace the fragment
// pipeline's, a pixel picked in the render is debugged by the thread that shaded it, stepping
// forwards N steps and back N returns the exact starting state, a breakpoint on a source line
// stops there, and the thesis's scheduling example shows its 11 cycles, stepped by the trace player.
#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsView>
#include <QLabel>
#include <QListWidget>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/studio/main_window.h"
#include "tests/app/studio_test_support.h"
#include "editors/shader_editor.h"
#include "views/rpu_chunk_view.h"
#include "views/rpu_code_panel.h"
#include "views/rpu_debugger_panel.h"
#include "views/rpu_decisions_panel.h"
#include "views/rpu_schedule_exercise.h"
#include "views/rpu_registers_view.h"
#include "views/rpu_render_panel.h"
#include "views/rpu_session.h"
#include "views/rpu_stack_view.h"
#include "views/trace_player.h"

using passlab::studio::MainWindow;
using passlab::studio::StudioOptions;
namespace rpu = passlab::rpu;
namespace views = passlab::views;

class StudioRpuTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  StudioOptions options() const { return passlab::studio::test_options(dir_); }
  static QString rpu_sample(const char* name) { return QString(PASSLAB_SAMPLES_DIR "/rpu/%1.sl").arg(name); }
  static bool dock_visible(MainWindow& w, const char* name) { return w.dock_widget(name)->isVisible(); }
  // Opens an RPU sample on the RPU target and waits for its program.
  static bool open_on_rpu(MainWindow& w, const char* sample, const char* target = "RPU") {
    w.set_target(target);
    if (!w.open_file(rpu_sample(sample))) return false;
    w.show();
    return QTest::qWaitFor([&] { return w.rpu_session()->build() && w.rpu_session()->build()->ok() && !w.service()->busy(); }, 30000);
  }
  // The move actions in toolbar order.
  static QAction* move_action(MainWindow& w, const QString& text) {
    for (QAction* a : w.rpu_debugger()->move_actions())
      if (a->text().contains(text)) return a;
    return nullptr;
  }
  // The registers view's cells, row by row.
  static QStringList register_texts(MainWindow& w) {
    QStringList out;
    auto* r = w.rpu_debugger()->registers();
    for (int row = 0; row < r->rowCount(); ++row) out << r->item(row, 0)->text() + "|" + r->item(row, 1)->text();
    return out;
  }

 private slots:
  void rpuTargetSwapsThePanelsAndBack() {
    MainWindow w(options());
    QVERIFY(open_on_rpu(w, "ceramic"));
    QVERIFY(w.rpu_mode());
    QVERIFY(dock_visible(w, "dock-rpu-debugger"));
    QVERIFY(!dock_visible(w, "dock-graphs"));
    QVERIFY(!dock_visible(w, "dock-passes"));
    // Source, IR and assembly: a source line lights its IR and assembly lines.
    const auto* b = w.rpu_session()->build();
    QVERIFY(w.rpu_code()->ir()->toPlainText().contains("ceramic"));
    QVERIFY(w.rpu_code()->assembly()->toPlainText().contains("SUBROUTINE_ENTRY_"));
    std::uint32_t line = 0;
    for (std::size_t pc = 0; pc < b->word_source_line.size() && !line; ++pc)
      if (b->word_source_line[pc] && !b->ir_lines_of(b->word_source_line[pc]).empty()) line = b->word_source_line[pc];
    QVERIFY(line > 0);
    w.editor()->setCursorPosition(static_cast<int>(line) - 1, 0);
    emit w.editor()->cursor_line_changed(static_cast<int>(line));
    QVERIFY(!w.rpu_code()->ir()->highlights().empty());
    QVERIFY(!w.rpu_code()->assembly()->highlights().empty());
    // The trace player plays the compiler's decisions.
    QVERIFY(w.trace()->event_count() > 0);
    // Back to a fragment target: the partitioning panels return.
    w.set_target("PC5");
    QVERIFY(!w.rpu_mode());
    QVERIFY(dock_visible(w, "dock-graphs"));
    QVERIFY(!dock_visible(w, "dock-rpu-debugger"));
  }

  void pickingAPixelDebugsTheThreadThatShadedIt() {
    MainWindow w(options());
    QVERIFY(open_on_rpu(w, "ceramic"));
    auto* dock = static_cast<QDockWidget*>(w.dock_widget("dock-rpu-render"));
    dock->raise();
    auto* render = w.rpu_render();
    QVERIFY(QTest::qWaitFor([&] { return render->frame() && !render->rendering(); }, 60000));
    // The machine model's figures (a second job after the frame), its heat map and its chart of
    // utilisation against chunks in flight.
    QVERIFY(QTest::qWaitFor([&] { return render->frame()->result.model.has_value() && !render->modelling(); }, 120000));
    QCOMPARE(render->frame()->result.sweep.size(), std::size(rpu::kInFlightSweep));
    QVERIFY(render->totals_text().contains("Machine model"));
    QCOMPARE(render->sweep_chart()->chart()->series().size(), 3);
    render->set_mode(views::RpuFrame::TraceShare);
    QVERIFY(!render->frame()->images[views::RpuFrame::TraceShare].isNull());
    render->set_mode(views::RpuFrame::Image);
    const auto& image = render->frame()->result.image;
    // A pixel on an object: the one whose colour is farthest from the background's.
    const auto* b = w.rpu_session()->build();
    int px = image.width / 2, py = image.height / 2;
    float best = -1;
    for (int y = 1; y < image.height; y += 7)
      for (int x = 1; x < image.width; x += 7) {
        float d = 0;
        for (int c = 0; c < 3; ++c) d += std::abs(image.at(x, y)[c] - b->scene.background[static_cast<std::size_t>(c)]);
        if (d > best) best = d, px = x, py = y;
      }
    QTest::mouseClick(render->image_view(), Qt::LeftButton, {}, render->image_view()->widget_point(QPoint(px, py)));
    QVERIFY(QTest::qWaitFor([&] { return w.rpu_session()->debugger() && !w.rpu_session()->recording(); }, 10000));
    const rpu::Debugger* d = w.rpu_session()->debugger();
    const auto& chunk = d->run().chunk;
    QCOMPARE(chunk.pixel[static_cast<std::size_t>(d->lane())][0], px);
    QCOMPARE(chunk.pixel[static_cast<std::size_t>(d->lane())][1], py);
    QVERIFY(w.rpu_debugger()->status_text().contains(QString("Pixel (%1, %2)").arg(px).arg(py)));
    // Run it to the end: the thread's colour (R0.xyz) is the pixel's.
    w.rpu_session()->seek(d->step_count());
    const rpu::ThreadState& t = d->thread(d->lane());
    QCOMPARE(static_cast<int>(t.status), static_cast<int>(rpu::ThreadStatus::Done));
    for (int c = 0; c < 3; ++c) QCOMPARE(std::clamp(t.reg[0][static_cast<std::size_t>(c)], 0.0f, 1.0f), image.at(px, py)[c]);
    // The chunk view shows the four lanes; clicking another lane follows its thread.
    if (d->lanes() > 1) {
      const int other = (d->lane() + 1) % d->lanes();
      QTest::mouseClick(w.rpu_debugger()->chunk(), Qt::LeftButton, {}, QPoint(40, w.rpu_debugger()->chunk()->cell_center(other, 0).y()));
      QCOMPARE(d->lane(), other);
    }
  }

  void steppingForwardNThenBackNRestoresTheStateExactly() {
    MainWindow w(options());
    QVERIFY(open_on_rpu(w, "ceramic"));
    const auto* b = w.rpu_session()->build();
    QVERIFY(w.rpu_session()->pick_pixel_now(b->width / 2, b->height / 2));
    const rpu::Debugger* d = w.rpu_session()->debugger();
    // Somewhere inside: into a call, so that the stack and window take part.
    QAction* into = move_action(w, "Into ▶");
    QAction* back = move_action(w, "◀ Into");
    QAction* over = move_action(w, "Over ▶");
    QAction* back_over = move_action(w, "◀ Over");
    QVERIFY(into && back && over && back_over);
    for (int i = 0; i < 25; ++i) into->trigger();
    const rpu::ThreadState start = d->thread(d->lane());
    const std::size_t position = d->position();
    const QStringList shown = register_texts(w);
    const QString status = w.rpu_debugger()->status_text();
    const int n = 60;
    std::size_t max_depth = 0;
    for (int i = 0; i < n; ++i) {
      into->trigger();
      max_depth = std::max(max_depth, d->depth());
    }
    QVERIFY(d->position() > position);
    // Something changed, and the views show it.
    QVERIFY(register_texts(w) != shown);
    for (int i = 0; i < n; ++i) back->trigger();
    QCOMPARE(d->position(), position);
    QVERIFY(d->thread(d->lane()) == start);
    QCOMPARE(register_texts(w), shown);
    // The same with step over and back over.
    for (int i = 0; i < 10; ++i) over->trigger();
    for (int i = 0; i < 10; ++i) back_over->trigger();
    QCOMPARE(d->position(), position);
    QVERIFY(d->thread(d->lane()) == start);
    QVERIFY(w.rpu_debugger()->status_text().contains(status.section("·", 0, 1)));
    // The stack view draws the window where the thread has it.
    QCOMPARE(w.rpu_debugger()->stack()->window_base(), start.base);
    QCOMPARE(w.rpu_debugger()->stack()->frame_count(), start.frames.size());
  }

  void aBreakpointOnASourceLineStopsThere() {
    MainWindow w(options());
    QVERIFY(open_on_rpu(w, "ceramic"));
    const auto* b = w.rpu_session()->build();
    QVERIFY(w.rpu_session()->pick_pixel_now(b->width / 2, b->height / 2));
    const rpu::Debugger* d = w.rpu_session()->debugger();
    // A line of the shader some thread of the chunk executes: the line of a word run late.
    std::uint32_t line = 0;
    for (std::size_t i = d->step_count(); i-- > 0 && !line;) {
      const std::uint32_t pc = d->step(i).pc;
      if (pc < b->word_source_line.size() && b->word_source_line[pc]) line = b->word_source_line[pc];
    }
    QVERIFY(line > 0);
    // A click in the editor's margin sets it; Continue stops before the line's first word.
    emit w.editor()->breakpoint_toggled(static_cast<int>(line));
    QVERIFY(w.rpu_session()->line_breakpoints().count(line));
    move_action(w, "Continue")->trigger();
    QCOMPARE(static_cast<int>(d->stop_reason()), static_cast<int>(rpu::StopReason::Breakpoint));
    const rpu::ThreadState& t = d->thread(d->lane());
    QCOMPARE(b->word_source_line[t.pc], line);
    QCOMPARE(w.editor()->execution_line(), static_cast<int>(line));
    QVERIFY(w.rpu_code()->assembly()->arrow() == b->word_asm_line[t.pc]);
    // The breakpoint is where the editor shows it, and going back from there returns to the start.
    const std::size_t stop = d->position();
    move_action(w, "◀◀ Back")->trigger();
    QVERIFY(d->position() < stop);
    // An assembly breakpoint (margin click) stops at its word.
    const std::uint32_t word = d->step(stop).pc;
    w.rpu_session()->clear_breakpoints();
    emit w.rpu_code()->assembly()->margin_clicked(b->word_asm_line[word]);
    QVERIFY(w.rpu_session()->word_breakpoints().count(word));
    move_action(w, "Restart")->trigger();
    move_action(w, "Continue")->trigger();
    QCOMPARE(static_cast<int>(d->stop_reason()), static_cast<int>(rpu::StopReason::Breakpoint));
    bool at_word = false;
    for (int l = 0; l < d->lanes(); ++l) at_word |= d->thread(l).pc == word;
    QVERIFY(at_word);
  }

  void theThesisSchedulingExampleShowsItsElevenCycles() {
    MainWindow w(options());
    QVERIFY(open_on_rpu(w, "schedule_example", "RPU (thesis example)"));
    auto* dec = w.rpu_decisions();
    QVERIFY(dec->select_function("fig91"));
    dec->tabs()->setCurrentIndex(0);
    auto* cycles = dec->cycle_table();
    // Eleven cycles: 1-4 issue, 5 and 6 stall, 7 and 8 issue, the last result ready after 11.
    QCOMPARE(cycles->rowCount(), 12);
    QCOMPARE(cycles->item(0, 0)->text(), QString("1"));
    QCOMPARE(cycles->item(4, 4)->text(), QString("stall"));
    QCOMPARE(cycles->item(5, 4)->text(), QString("stall"));
    QVERIFY(!cycles->item(6, 3)->text().isEmpty());
    QVERIFY(!cycles->item(7, 3)->text().isEmpty());
    for (int r = 8; r < 11; ++r) QVERIFY(cycles->item(r, 3)->text().isEmpty());
    QVERIFY(dec->findChildren<QLabel*>().size() > 0);
    bool summary = false;
    for (QLabel* l : dec->findChildren<QLabel*>()) summary |= l->text() == "11 cycles scheduled, 16 in program order";
    QVERIFY(summary);
    // Six instructions with the figure's path lengths (10, 8, 8, 8, 5, 3 in some order).
    auto* ins = dec->instruction_table();
    QCOMPARE(ins->rowCount(), 6);
    std::vector<int> paths;
    for (int r = 0; r < 6; ++r) paths.push_back(ins->item(r, 3)->text().toInt());
    std::sort(paths.begin(), paths.end());
    QCOMPARE(paths, (std::vector<int>{3, 5, 8, 8, 8, 10}));
    QCOMPARE(dec->dag_nodes(), 6);
    // The trace player steps the scheduler: a cycle event selects its row.
    const auto* run = w.result()->snapshot->run("rpu");
    QVERIFY(run);
    const int fig91 = w.rpu_session()->build()->function_index("SUBROUTINE_ENTRY_fig91");
    QVERIFY(fig91 >= 0);
    int event = -1;
    for (std::size_t i = 0; i < run->trace.size() && event < 0; ++i)
      if (run->trace[i].pass == fig91 && run->trace[i].stage == passlab::session::kRpuCycle && run->trace.nodes(run->trace[i]).size() == 2 &&
          run->trace.nodes(run->trace[i])[1] == 6)
        event = static_cast<int>(i);
    QVERIFY(event >= 0);
    dec->select_function("schedule_example");
    w.trace()->set_position(event);
    QCOMPARE(dec->function_label(), QString("SUBROUTINE_ENTRY_fig91"));
    QCOMPARE(dec->tabs()->currentIndex(), 0);
    QCOMPARE(cycles->currentRow(), 6);
    QVERIFY(w.trace()->reason_text().contains("cycle 7"));
    // A register-allocation event opens the interference graph and its row.
    int colour = -1;
    for (std::size_t i = 0; i < run->trace.size() && colour < 0; ++i)
      if (run->trace[i].pass == fig91 && run->trace[i].stage == passlab::session::kRpuColour) colour = static_cast<int>(i);
    QVERIFY(colour >= 0);
    w.trace()->set_position(colour);
    QCOMPARE(dec->tabs()->currentIndex(), 1);
    QVERIFY(dec->interference_nodes() > 0);
    QVERIFY(dec->colour_table()->currentRow() >= 0);
  }

  void theStudentSchedulesFigure91ByHand() {
    MainWindow w(options());
    QVERIFY(open_on_rpu(w, "schedule_example", "RPU (thesis example)"));
    auto* dec = w.rpu_decisions();
    QVERIFY(dec->select_function("fig91"));
    dec->tabs()->setCurrentIndex(3);
    auto* ex = dec->exercise();
    const auto& block = w.rpu_session()->build()->compiled().schedules.at(dec->function_label().toStdString()).pieces.front();
    // It starts in program order: the unscheduled 16 cycles, against the scheduler's 11.
    QCOMPARE(ex->order(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
    QVERIFY(ex->yours());
    QCOMPARE(ex->yours()->cycles, 16);
    QVERIFY2(ex->summary().contains("Yours: 16 cycles") && ex->summary().contains("5 cycles slower than the list scheduler"),
             qPrintable(ex->summary()));
    // An instruction moved above one it waits for: not a valid order, and why.
    int waits = -1;
    for (int i = 0; i < 6 && waits < 0; ++i)
      if (!block.deps[static_cast<std::size_t>(i)].empty()) waits = i;
    QVERIFY(waits > 0);
    std::vector<int> bad{waits};
    for (int i = 0; i < 6; ++i)
      if (i != waits) bad.push_back(i);
    ex->set_order(bad);
    QVERIFY(!ex->yours());
    QVERIFY2(ex->summary().contains("Not a valid order") && ex->summary().contains("which it must wait for"), qPrintable(ex->summary()));
    QCOMPARE(ex->cycle_table()->rowCount(), 0);
    // The scheduler's order: 11 cycles, its own table row by row.
    ex->set_order(block.order);
    QVERIFY(ex->yours());
    QCOMPARE(ex->yours()->cycles, 11);
    QVERIFY2(ex->summary().contains("as fast as the list scheduler"), qPrintable(ex->summary()));
    auto* theirs = dec->cycle_table();
    QCOMPARE(ex->cycle_table()->rowCount(), theirs->rowCount());
    for (int r = 0; r < theirs->rowCount(); ++r)
      for (int c = 0; c < theirs->columnCount(); ++c) QCOMPARE(ex->cycle_table()->item(r, c)->text(), theirs->item(r, c)->text());
    // Moving the last instruction one place earlier (Alt+Up) is timed at once.
    auto* list = ex->findChild<QListWidget*>("schedule-order");
    QVERIFY(list);
    list->setCurrentRow(5);
    ex->move_current(-1);
    QCOMPARE(list->currentRow(), 4);
    QCOMPARE(ex->order()[4], block.order[5]);
    QVERIFY(ex->summary().contains("Yours:") || ex->summary().contains("Not a valid order"));
  }
};

QTEST_MAIN(StudioRpuTest)
#include "studio_rpu_test.moc"
