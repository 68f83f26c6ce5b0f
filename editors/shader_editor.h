// SPDX-License-Identifier: GPL-3.0-or-later
// The shader editor: QScintilla with tree-sitter highlighting reparsed on every edit, folding,
// brace matching, diagnostics as squiggles and margin markers, hover and source highlights.
#pragma once

#include <memory>
#include <vector>

#include <Qsci/qsciscintilla.h>

#include "session/snapshot.h"
#include "editors/syntax_tree.h"

namespace passlab::editors {

class TreeSitterLexer;

class ShaderEditor : public QsciScintilla {
  Q_OBJECT

 public:
  explicit ShaderEditor(QWidget* parent = nullptr);
  ~ShaderEditor() override;

  void set_grammar(Grammar g);
  void set_dark(bool dark);
  // Squiggles and margin markers for the main file's diagnostics.
  void set_diagnostics(const std::vector<session::Message>& messages);
  // Highlights source spans (byte offset, length), e.g. of the DAG nodes selected elsewhere.
  void set_span_highlights(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& spans);
  int span_highlight_count() const { return static_cast<int>(spans_.size()); }
  void go_to(int line, int column);  // 1-based
  std::string text_utf8() const;
  const SyntaxTree& syntax() const;
  int diagnostic_marker_count() const;
  int squiggle_count() const;  // characters under an error or warning indicator
  std::vector<long> squiggled() const;  // their positions
  // Debugging (the RPU): breakpoint dots in the symbol margin, which clicks then toggle, and the
  // line a thread is about to execute (1-based lines; 0: none).
  void set_breakpoints_enabled(bool on);
  void set_breakpoint_lines(const std::vector<int>& lines);
  void set_execution_line(int line);
  int execution_line() const { return execution_line_; }

 signals:
  // Moving the cursor (mouse or keyboard) to another line: 1-based.
  void cursor_line_changed(int line);
  void hover_requested(int position, const QPoint& global_pos);
  // A click in the symbol margin while breakpoints are enabled (1-based line).
  void breakpoint_toggled(int line);

 private:
  void on_modified(int position, int type, const char* text, int length);

  TreeSitterLexer* lexer_;
  int last_line_ = -1;
  int execution_line_ = 0;
  std::vector<int> breakpoint_lines_;
  std::vector<session::Message> messages_;
  // What is drawn now, so that a change clears only those ranges: clearing the whole document
  // would repaint the whole editor on every keystroke.
  // Their positions follow the text as it is edited, as Scintilla moves the marks themselves.
  struct Mark {
    int kind;  // indicator
    long start, length;
    int line;
    int handle = -1;  // the margin marker's, for a diagnostic
    bool same_as(const Mark& o) const { return kind == o.kind && start == o.start && length == o.length && line == o.line; }
  };
  std::vector<Mark> squiggles_, spans_;
  void clear_mark(const Mark& m);  // with the current indicator
};

}  // namespace passlab::editors
