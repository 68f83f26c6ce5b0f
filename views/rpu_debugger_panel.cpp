// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU debugger panel.
#include "views/rpu_debugger_panel.h"

#include <QAction>
#include <QLabel>
#include <QSplitter>
#include <QToolBar>
#include <QVBoxLayout>

#include "views/rpu_chunk_view.h"
#include "views/rpu_registers_view.h"
#include "views/rpu_stack_view.h"

namespace passlab::views {

RpuDebuggerPanel::RpuDebuggerPanel(RpuSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* bar = new QToolBar(this);
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  bar->setIconSize(QSize(14, 14));
  struct Move {
    QString text, tip;
    QKeySequence key;
    RpuMove move;
  };
  const Move moves[] = {
      {tr("◀◀ Back"), tr("Continue backwards to the previous breakpoint (or the start)"), QKeySequence(tr("Shift+F6")), RpuMove::BackContinue},
      {tr("◀ Out"), tr("Step back out: to the call of the current function"), QKeySequence(tr("Ctrl+Shift+F11")), RpuMove::BackOut},
      {tr("◀ Over"), tr("Step back over: to the previous word at this call depth"), QKeySequence(tr("Shift+F10")), RpuMove::BackOver},
      {tr("◀ Into"), tr("Step back: undo the thread's last word"), QKeySequence(tr("Shift+F11")), RpuMove::BackInto},
      {tr("Into ▶"), tr("Step into: run the thread's next word"), QKeySequence(tr("F11")), RpuMove::Into},
      {tr("Over ▶"), tr("Step over: run to the next word at this call depth"), QKeySequence(tr("F10")), RpuMove::Over},
      {tr("Out ▶"), tr("Step out: run until the current function returns"), QKeySequence(tr("Ctrl+F11")), RpuMove::Out},
      {tr("Continue ▶▶"), tr("Continue to the next breakpoint (or the end)"), QKeySequence(tr("F6")), RpuMove::Continue},
      {tr("To NaN"), tr("Run until a word makes a NaN"), QKeySequence(), RpuMove::ToNaN},
      {tr("To fault"), tr("Run until a thread faults"), QKeySequence(), RpuMove::ToFault},
      {tr("Restart"), tr("Back to the start of the chunk"), QKeySequence(tr("Ctrl+Shift+F6")), RpuMove::Restart},
  };
  for (const Move& m : moves) {
    auto* a = new QAction(m.text, this);
    a->setToolTip(m.tip + (m.key.isEmpty() ? QString() : QString(" (%1)").arg(m.key.toString(QKeySequence::NativeText))));
    a->setStatusTip(m.tip);
    if (!m.key.isEmpty()) a->setShortcut(m.key);
    a->setShortcutContext(Qt::WindowShortcut);
    const RpuMove move = m.move;
    connect(a, &QAction::triggered, this, [this, move] { session_->move(move); });
    bar->addAction(a);
    moves_ << a;
    if (move == RpuMove::BackInto || move == RpuMove::Continue || move == RpuMove::ToFault) bar->addSeparator();
  }
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setContentsMargins(6, 2, 6, 2);
  chunk_ = new RpuChunkView(session, this);
  registers_ = new RpuRegistersView(session, this);
  stack_ = new RpuStackView(session, this);
  auto* right = new QSplitter(Qt::Horizontal, this);
  right->addWidget(registers_);
  right->addWidget(stack_);
  right->setStretchFactor(0, 1);
  right->setStretchFactor(1, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chunk_);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
  connect(session_, &RpuSession::debugger_changed, this, [this] { refresh_status(); });
  connect(session_, &RpuSession::recording_changed, this, [this] { refresh_status(); });
  connect(session_, &RpuSession::build_changed, this, [this] { refresh_status(); });
  refresh_status();
}

QString RpuDebuggerPanel::status_text() const { return status_->text(); }

void RpuDebuggerPanel::refresh_status() {
  const rpu::Debugger* d = session_->debugger();
  for (QAction* a : moves_) a->setEnabled(d != nullptr);
  if (!d) {
    const auto* b = session_->build();
    status_->setText(session_->recording() ? tr("Recording the chunk…")
                     : b && b->ok()        ? tr("Click a pixel of the RPU render to debug the thread that shaded it.")
                                           : tr("No RPU program: see the diagnostics."));
    return;
  }
  const auto* b = session_->build();
  const rpu::ThreadState& t = d->thread(d->lane());
  const auto& px = d->run().chunk.pixel[static_cast<std::size_t>(d->lane())];
  QString where;
  if (t.status == rpu::ThreadStatus::Running && b) {
    const session::RpuFunction* f = b->function_at(t.pc);
    const std::uint32_t line = t.pc < b->word_source_line.size() ? b->word_source_line[t.pc] : 0;
    where = tr("word %1%2%3").arg(t.pc).arg(f ? tr(" in %1").arg(QString::fromStdString(f->name)) : QString())
                .arg(line ? tr(", line %1").arg(line) : QString());
  } else {
    where = t.status == rpu::ThreadStatus::Done ? tr("done: its colour is written") : tr("faulted");
  }
  status_->setText(tr("<b>Pixel (%1, %2)</b> · chunk %3, lane %4 · step %5/%6 · %7 · depth %8 — <i>%9</i>")
                       .arg(px[0]).arg(px[1]).arg(d->run().chunk.index).arg(d->lane()).arg(d->position()).arg(d->step_count())
                       .arg(where).arg(t.frames.size()).arg(QString::fromStdString(d->stop_message()).toHtmlEscaped()));
}

}  // namespace passlab::views
