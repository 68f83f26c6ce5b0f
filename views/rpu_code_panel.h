// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU code panel: the shader's IR and its assembly side by side. A line of one (or of the
// source) highlights its lines in the others; the assembly's margin holds breakpoints and the
// arrow of the word the selected thread executes next.
#pragma once

#include <functional>
#include <set>
#include <vector>

#include <QPlainTextEdit>
#include <QWidget>

#include "views/rpu_session.h"

class QLabel;

namespace passlab::views {

// A read-only code listing with a margin (breakpoint dots, an arrow) and highlighted lines.
class CodeListing : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit CodeListing(QWidget* parent = nullptr);
  void set_code(const QString& text);
  // 0-based lines; -1: none.
  void set_marks(const std::set<int>& breakpoints, int arrow);
  void set_highlights(const std::vector<int>& lines);
  const std::vector<int>& highlights() const { return highlights_; }
  int arrow() const { return arrow_; }
  int margin_width() const;
  void paint_margin(QPaintEvent* e);
  void scroll_to(int line);

 signals:
  void margin_clicked(int line);
  void line_clicked(int line);
  void context_requested(int line, const QPoint& global);

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;

 private:
  void refresh_selections();
  QWidget* margin_;
  std::set<int> breakpoints_;
  int arrow_ = -1;
  std::vector<int> highlights_;
};

class RpuCodePanel : public QWidget {
  Q_OBJECT

 public:
  RpuCodePanel(RpuSession* session, QWidget* parent = nullptr);
  // Lines of the main file selected elsewhere (the editor's cursor): their IR and assembly lit.
  void highlight_source_line(int line);
  CodeListing* ir() const { return ir_; }
  CodeListing* assembly() const { return asm_; }
  // Refreshes the arrow and marks (the session calls it through its signals).
  void refresh();

 signals:
  void source_line_selected(int line);

 private:
  void rebuild();
  void select_source_line(int line, QObject* from);

  RpuSession* session_;
  CodeListing* ir_;
  CodeListing* asm_;
  QLabel* ir_title_;
  QLabel* asm_title_;
  const session::RpuBuild* shown_ = nullptr;
};

}  // namespace passlab::views
