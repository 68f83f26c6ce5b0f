// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU code panel.
#include "views/rpu_code_panel.h"

#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QSplitter>
#include <QTextBlock>
#include <QVBoxLayout>

namespace passlab::views {

namespace {

class Margin : public QWidget {
 public:
  explicit Margin(CodeListing* code) : QWidget(code), code_(code) {}
  QSize sizeHint() const override { return {code_->margin_width(), 0}; }

 protected:
  void paintEvent(QPaintEvent* e) override { code_->paint_margin(e); }
  void mousePressEvent(QMouseEvent* e) override {
    const QTextCursor c = code_->cursorForPosition(QPoint(0, e->position().toPoint().y()));
    emit code_->margin_clicked(c.blockNumber());
  }

 private:
  CodeListing* code_;
};

}  // namespace

CodeListing::CodeListing(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setLineWrapMode(NoWrap);
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  QFont f("monospace");
  f.setStyleHint(QFont::Monospace);
  f.setPointSizeF(9.5);
  setFont(f);
  margin_ = new Margin(this);
  setViewportMargins(margin_width(), 0, 0, 0);
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& r, int dy) {
    if (dy) margin_->scroll(0, dy);
    else margin_->update(0, r.y(), margin_->width(), r.height());
  });
}

int CodeListing::margin_width() const { return 18; }

void CodeListing::set_code(const QString& text) {
  if (text == toPlainText()) return;
  setPlainText(text);
  breakpoints_.clear();
  arrow_ = -1;
  highlights_.clear();
  refresh_selections();
}

void CodeListing::set_marks(const std::set<int>& breakpoints, int arrow) {
  if (breakpoints == breakpoints_ && arrow == arrow_) return;
  const bool moved = arrow != arrow_;
  breakpoints_ = breakpoints;
  arrow_ = arrow;
  refresh_selections();
  margin_->update();
  if (moved && arrow >= 0) scroll_to(arrow);
}

void CodeListing::set_highlights(const std::vector<int>& lines) {
  if (lines == highlights_) return;
  highlights_ = lines;
  refresh_selections();
}

void CodeListing::scroll_to(int line) {
  const QTextBlock b = document()->findBlockByNumber(line);
  if (!b.isValid()) return;
  // Only when it is out of sight: keeps the listing still while stepping within the screen.
  const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
  if (r.top() >= 0 && r.bottom() <= viewport()->height()) return;
  QTextCursor c(b);
  setTextCursor(c);
  centerCursor();
}

void CodeListing::refresh_selections() {
  QList<QTextEdit::ExtraSelection> sel;
  const QColor lit = palette().color(QPalette::Highlight);
  for (int l : highlights_) {
    QTextEdit::ExtraSelection s;
    s.cursor = QTextCursor(document()->findBlockByNumber(l));
    QColor c = lit;
    c.setAlpha(60);
    s.format.setBackground(c);
    s.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel << s;
  }
  if (arrow_ >= 0) {
    QTextEdit::ExtraSelection s;
    s.cursor = QTextCursor(document()->findBlockByNumber(arrow_));
    s.format.setBackground(QColor(250, 210, 60, 140));
    s.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel << s;
  }
  setExtraSelections(sel);
}

void CodeListing::paint_margin(QPaintEvent* e) {
  QPainter p(margin_);
  p.fillRect(e->rect(), palette().color(QPalette::AlternateBase));
  p.setRenderHint(QPainter::Antialiasing);
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= e->rect().bottom()) {
    const int h = qRound(blockBoundingRect(block).height());
    const int n = block.blockNumber();
    const QRectF box(3, top + (h - 11) / 2.0, 11, 11);
    if (breakpoints_.count(n)) {
      p.setPen(QColor(120, 10, 30));
      p.setBrush(QColor(200, 30, 60));
      p.drawEllipse(box);
    }
    if (n == arrow_) {
      QPolygonF arrow({box.topLeft() + QPointF(1, 0), QPointF(box.right() + 2, box.center().y()), box.bottomLeft() + QPointF(1, 0)});
      p.setPen(QColor(120, 90, 0));
      p.setBrush(QColor(250, 200, 30));
      p.drawPolygon(arrow);
    }
    block = block.next();
    top += h;
  }
}

void CodeListing::resizeEvent(QResizeEvent* e) {
  QPlainTextEdit::resizeEvent(e);
  const QRect cr = contentsRect();
  margin_->setGeometry(cr.left(), cr.top(), margin_width(), cr.height());
}

void CodeListing::mouseReleaseEvent(QMouseEvent* e) {
  QPlainTextEdit::mouseReleaseEvent(e);
  if (e->button() == Qt::LeftButton && !textCursor().hasSelection()) emit line_clicked(textCursor().blockNumber());
}

void CodeListing::contextMenuEvent(QContextMenuEvent* e) { emit context_requested(cursorForPosition(e->pos()).blockNumber(), e->globalPos()); }

RpuCodePanel::RpuCodePanel(RpuSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto column = [&](QLabel*& title, CodeListing*& code, const QString& name) {
    auto* w = new QWidget(split);
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    title = new QLabel(name, w);
    title->setContentsMargins(4, 2, 4, 0);
    code = new CodeListing(w);
    l->addWidget(title);
    l->addWidget(code, 1);
    split->addWidget(w);
  };
  column(ir_title_, ir_, tr("IR"));
  column(asm_title_, asm_, tr("Assembly"));
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  ir_->setToolTip(tr("The optimised IR of the file being edited. Click a line to light its source and assembly."));
  asm_->setToolTip(tr("The assembly as loaded, by word address. Click the margin for a breakpoint; right-click to run to a word."));

  connect(ir_, &CodeListing::line_clicked, this, [this](int line) {
    const auto* b = session_->build();
    if (b && line >= 0 && static_cast<std::size_t>(line) < b->ir_source_line.size()) select_source_line(static_cast<int>(b->ir_source_line[line]), ir_);
  });
  connect(asm_, &CodeListing::line_clicked, this, [this](int line) {
    const auto* b = session_->build();
    if (!b || line < 0 || static_cast<std::size_t>(line) >= b->asm_line_word.size()) return;
    const int word = b->asm_line_word[line];
    if (word >= 0) select_source_line(static_cast<int>(b->word_source_line[static_cast<std::size_t>(word)]), asm_);
  });
  auto word_of = [this](int line) -> int {
    const auto* b = session_->build();
    if (!b || line < 0 || static_cast<std::size_t>(line) >= b->asm_line_word.size()) return -1;
    return b->asm_line_word[line];
  };
  connect(asm_, &CodeListing::margin_clicked, this, [this, word_of](int line) {
    if (const int w = word_of(line); w >= 0) session_->toggle_word_breakpoint(static_cast<std::uint32_t>(w));
  });
  connect(asm_, &CodeListing::context_requested, this, [this, word_of](int line, const QPoint& global) {
    const int w = word_of(line);
    if (w < 0) return;
    QMenu menu(this);
    const bool debugging = session_->debugger() != nullptr;
    menu.addAction(tr("Run to Word %1").arg(w), this, [this, w] { session_->run_to_word(static_cast<std::uint32_t>(w)); })->setEnabled(debugging);
    menu.addAction(tr("Run Back to Word %1").arg(w), this, [this, w] { session_->run_to_word(static_cast<std::uint32_t>(w), true); })->setEnabled(debugging);
    menu.addSeparator();
    menu.addAction(tr("Toggle Breakpoint"), this, [this, w] { session_->toggle_word_breakpoint(static_cast<std::uint32_t>(w)); });
    menu.exec(global);
  });
  connect(session_, &RpuSession::build_changed, this, [this] { rebuild(); });
  connect(session_, &RpuSession::debugger_changed, this, [this] { refresh(); });
  connect(session_, &RpuSession::breakpoints_changed, this, [this] { refresh(); });
  rebuild();
}

void RpuCodePanel::rebuild() {
  const auto* b = session_->build();
  shown_ = b;
  if (!b || !b->ok()) {
    ir_->set_code(b ? tr("; the program did not compile: see the diagnostics") : QString());
    asm_->set_code(QString());
    return;
  }
  ir_->set_code(QString::fromStdString(b->ir_text));
  asm_->set_code(QString::fromStdString(b->asm_text));
  ir_title_->setText(tr("IR · %1 lines").arg(b->ir_source_line.size()));
  asm_title_->setText(tr("Assembly · %1 words, %2 functions · %3").arg(b->word_asm_line.size()).arg(b->functions.size()).arg(QString::fromStdString(b->machine.name)));
  refresh();
}

void RpuCodePanel::refresh() {
  const auto* b = session_->build();
  if (!b || !b->ok()) return;
  std::set<int> marks;
  for (std::uint32_t w : session_->word_breakpoints())
    if (w < b->word_asm_line.size() && b->word_asm_line[w] >= 0) marks.insert(b->word_asm_line[w]);
  int arrow = -1;
  if (const rpu::Debugger* d = session_->debugger()) {
    const rpu::ThreadState& t = d->thread(d->lane());
    if (t.status == rpu::ThreadStatus::Running && t.pc < b->word_asm_line.size()) arrow = b->word_asm_line[t.pc];
  }
  asm_->set_marks(marks, arrow);
  // The IR lines of the source line being executed.
  std::set<int> none;
  int ir_arrow = -1;
  if (arrow >= 0) {
    const std::uint32_t line = b->word_source_line[static_cast<std::size_t>(b->asm_line_word[static_cast<std::size_t>(arrow)])];
    std::vector<int> lines = b->ir_lines_of(line);
    if (!lines.empty()) ir_arrow = lines.front();
  }
  ir_->set_marks(none, ir_arrow);
}

void RpuCodePanel::highlight_source_line(int line) { select_source_line(line, nullptr); }

void RpuCodePanel::select_source_line(int line, QObject* from) {
  const auto* b = session_->build();
  if (!b || !b->ok()) return;
  std::vector<int> asm_lines;
  if (line > 0)
    for (std::uint32_t w : b->words_on_line(static_cast<std::uint32_t>(line))) asm_lines.push_back(b->word_asm_line[w]);
  const std::vector<int> ir_lines = line > 0 ? b->ir_lines_of(static_cast<std::uint32_t>(line)) : std::vector<int>{};
  ir_->set_highlights(ir_lines);
  asm_->set_highlights(asm_lines);
  if (from != ir_ && !ir_lines.empty()) ir_->scroll_to(ir_lines.front());
  if (from != asm_ && !asm_lines.empty()) asm_->scroll_to(asm_lines.front());
  if (from) emit source_line_selected(line);
}

}  // namespace passlab::views
