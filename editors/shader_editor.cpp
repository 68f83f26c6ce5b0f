// SPDX-License-Identifier: GPL-3.0-or-later
// The shader editor and its tree-sitter lexer.
#include "editors/shader_editor.h"

#include <algorithm>

#include <QFontDatabase>
#include <QToolTip>
#include <Qsci/qscilexercustom.h>

namespace passlab::editors {

namespace {

constexpr int kErrorIndicator = 8, kWarningIndicator = 9, kSpanIndicator = 10;
constexpr int kErrorMarker = 1, kWarningMarker = 2, kBreakpointMarker = 3, kExecutionMarker = 4, kExecutionLineMarker = 5;

}  // namespace

// A QScintilla lexer whose styles come from the tree-sitter syntax tree.
class TreeSitterLexer : public QsciLexerCustom {
 public:
  explicit TreeSitterLexer(QObject* parent) : QsciLexerCustom(parent) { apply_theme(false); }
  const char* language() const override { return "RSL"; }
  QString description(int style) const override {
    return style >= 0 && style < static_cast<int>(Style::Count) ? QString(to_string(static_cast<Style>(style))) : QString();
  }
  void styleText(int start, int end) override {
    if (!editor() || end <= start) return;
    startStyling(start);
    int pos = start;
    for (const Token& t : tree->tokens(static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end))) {
      int a = std::max<int>(static_cast<int>(t.start), pos), b = std::min<int>(static_cast<int>(t.start + t.length), end);
      if (b <= a) continue;
      if (a > pos) setStyling(a - pos, static_cast<int>(Style::Default));
      setStyling(b - a, static_cast<int>(t.style));
      pos = b;
    }
    if (end > pos) setStyling(end - pos, static_cast<int>(Style::Default));
    // Fold levels from the brace structure: recomputed once per reparse, not per styled range.
    if (folded_at_ == tree->reparses()) return;
    folded_at_ = tree->reparses();
    const auto folds = tree->folds();
    for (std::size_t l = 0; l < folds.size(); ++l) {
      long level = 0x400 + folds[l].depth;  // SC_FOLDLEVELBASE
      if (folds[l].header) level |= 0x2000;  // SC_FOLDLEVELHEADERFLAG
      if (editor()->SendScintilla(QsciScintillaBase::SCI_GETFOLDLEVEL, static_cast<unsigned long>(l)) != level)
        editor()->SendScintilla(QsciScintillaBase::SCI_SETFOLDLEVEL, static_cast<unsigned long>(l), level);
    }
  }
  void apply_theme(bool dark) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const QColor paper = dark ? QColor(30, 32, 36) : QColor(255, 255, 255);
    struct Entry {
      Style s;
      QColor light, dark;
      bool bold;
    };
    const Entry entries[] = {
        {Style::Default, {30, 30, 30}, {220, 223, 228}, false},   {Style::Comment, {110, 120, 110}, {130, 145, 130}, false},
        {Style::Keyword, {0, 60, 170}, {120, 170, 255}, true},    {Style::Type, {0, 120, 130}, {90, 210, 210}, true},
        {Style::Number, {150, 60, 0}, {240, 170, 100}, false},    {Style::String, {170, 30, 30}, {240, 140, 130}, false},
        {Style::Preprocessor, {120, 40, 150}, {210, 150, 240}, false}, {Style::Global, {140, 0, 110}, {240, 120, 210}, false},
        {Style::Builtin, {20, 110, 30}, {130, 220, 130}, false},  {Style::Function, {90, 70, 0}, {230, 210, 120}, false},
        {Style::Operator, {70, 70, 70}, {180, 180, 180}, false},  {Style::Error, {200, 0, 0}, {255, 90, 90}, false},
    };
    for (const auto& e : entries) {
      QFont f = mono;
      f.setBold(e.bold);
      setFont(f, static_cast<int>(e.s));
      setColor(dark ? e.dark : e.light, static_cast<int>(e.s));
      setPaper(paper, static_cast<int>(e.s));
    }
    setDefaultPaper(paper);
    setDefaultColor(dark ? QColor(220, 223, 228) : QColor(30, 30, 30));
    setDefaultFont(mono);
  }
  std::unique_ptr<SyntaxTree> tree = std::make_unique<SyntaxTree>(Grammar::Rsl);
  long folded_at_ = -1;  // the reparse whose fold levels were last set
};

ShaderEditor::ShaderEditor(QWidget* parent) : QsciScintilla(parent) {
  setUtf8(true);
  lexer_ = new TreeSitterLexer(this);
  setLexer(lexer_);
  setMarginType(0, NumberMargin);
  setMarginWidth(0, "00000");
  setMarginLineNumbers(0, true);
  setMarginType(1, SymbolMargin);
  setMarginWidth(1, 16);
  setMarginSensitivity(1, false);
  setFolding(BoxedTreeFoldStyle, 2);
  setBraceMatching(SloppyBraceMatch);
  setAutoIndent(true);
  setIndentationsUseTabs(false);
  setIndentationWidth(4);
  setTabWidth(4);
  setCaretLineVisible(true);
  setEolMode(EolUnix);
  markerDefine(QsciScintilla::Circle, kErrorMarker);
  setMarkerBackgroundColor(QColor(220, 40, 40), kErrorMarker);
  markerDefine(QsciScintilla::Circle, kWarningMarker);
  setMarkerBackgroundColor(QColor(230, 160, 20), kWarningMarker);
  markerDefine(QsciScintilla::Circle, kBreakpointMarker);
  setMarkerBackgroundColor(QColor(200, 30, 60), kBreakpointMarker);
  setMarkerForegroundColor(QColor(120, 10, 30), kBreakpointMarker);
  markerDefine(QsciScintilla::RightArrow, kExecutionMarker);
  setMarkerBackgroundColor(QColor(250, 200, 30), kExecutionMarker);
  setMarkerForegroundColor(QColor(120, 90, 0), kExecutionMarker);
  markerDefine(QsciScintilla::Background, kExecutionLineMarker);
  setMarkerBackgroundColor(QColor(250, 220, 90, 110), kExecutionLineMarker);
  connect(this, &QsciScintilla::marginClicked, this, [this](int margin, int line, Qt::KeyboardModifiers) {
    if (margin == 1) emit breakpoint_toggled(line + 1);
  });
  indicatorDefine(SquiggleIndicator, kErrorIndicator);
  setIndicatorForegroundColor(QColor(220, 30, 30), kErrorIndicator);
  indicatorDefine(SquiggleIndicator, kWarningIndicator);
  setIndicatorForegroundColor(QColor(220, 150, 0), kWarningIndicator);
  indicatorDefine(FullBoxIndicator, kSpanIndicator);
  setIndicatorForegroundColor(QColor(60, 150, 240, 90), kSpanIndicator);
  SendScintilla(SCI_SETMOUSEDWELLTIME, 450);
  // Keep every line's layout (shaping text is most of a repaint's cost; shaders are small), so a
  // keystroke or a highlight change repaints without laying out the visible lines again.
  SendScintilla(SCI_SETLAYOUTCACHE, 3 /* SC_CACHE_DOCUMENT */);
  connect(this, &QsciScintillaBase::SCN_MODIFIED, this,
          [this](int pos, int type, const char* text, int length, int, int, int, int, int, int) {
            on_modified(pos, type, text, length);
          });
  connect(this, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
    if (line != last_line_) {
      last_line_ = line;
      emit cursor_line_changed(line + 1);
    }
  });
  connect(this, &QsciScintillaBase::SCN_DWELLSTART, this, [this](int pos, int x, int y) {
    if (pos >= 0) emit hover_requested(pos, mapToGlobal(QPoint(x, y)));
  });
  connect(this, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });
}

ShaderEditor::~ShaderEditor() = default;

void ShaderEditor::on_modified(int position, int type, const char* text, int length) {
  if (!(type & (SC_MOD_INSERTTEXT | SC_MOD_DELETETEXT))) return;
  const bool insert = type & SC_MOD_INSERTTEXT;
  if (insert) lexer_->tree->replace(static_cast<std::uint32_t>(position), 0, std::string_view(text, static_cast<std::size_t>(length)));
  else lexer_->tree->replace(static_cast<std::uint32_t>(position), static_cast<std::uint32_t>(length), {});
  // Drawn marks move with the text, in Scintilla and here alike.
  const long pos = position, n = length;
  // Text typed at either end of a mark stays outside it, as in Scintilla (clearing a mark also
  // clears a character either side, so a boundary case can never leave a stale mark behind).
  auto move = [&](long x, bool end) {
    if (insert) return x > pos || (x == pos && !end) ? x + n : x;
    return x <= pos ? x : (x >= pos + n ? x - n : pos);
  };
  for (auto* marks : {&squiggles_, &spans_})
    for (Mark& m : *marks) {
      const long a = move(m.start, false), b = std::max(a, move(m.start + m.length, true));
      m.start = a;
      m.length = b - a;
    }
}

void ShaderEditor::set_grammar(Grammar g) {
  if (g == lexer_->tree->grammar()) return;
  auto next = std::make_unique<SyntaxTree>(g);
  next->reset(lexer_->tree->text());
  lexer_->tree = std::move(next);
  lexer_->folded_at_ = -1;
  recolor();
}

void ShaderEditor::set_dark(bool dark) {
  lexer_->apply_theme(dark);
  setMarginsBackgroundColor(dark ? QColor(40, 42, 48) : QColor(240, 240, 240));
  setMarginsForegroundColor(dark ? QColor(150, 150, 160) : QColor(110, 110, 110));
  setCaretLineBackgroundColor(dark ? QColor(45, 48, 56) : QColor(245, 247, 252));
  setCaretForegroundColor(dark ? QColor(230, 230, 230) : QColor(0, 0, 0));
  setFoldMarginColors(dark ? QColor(40, 42, 48) : QColor(235, 235, 235), dark ? QColor(40, 42, 48) : QColor(235, 235, 235));
  setMatchedBraceBackgroundColor(dark ? QColor(70, 90, 70) : QColor(200, 240, 200));
  recolor();
}

std::string ShaderEditor::text_utf8() const { return text().toStdString(); }
const SyntaxTree& ShaderEditor::syntax() const { return *lexer_->tree; }

void ShaderEditor::clear_mark(const Mark& m) {
  const long len = SendScintilla(SCI_GETLENGTH);
  const long a = std::clamp(m.start - 1, 0L, len), b = std::clamp(m.start + m.length + 1, a, len);
  SendScintilla(SCI_INDICATORCLEARRANGE, static_cast<unsigned long>(a), b - a);
}

void ShaderEditor::set_diagnostics(const std::vector<session::Message>& messages) {
  messages_ = messages;
  const long len = SendScintilla(SCI_GETLENGTH);
  std::vector<Mark> next;
  for (const auto& m : messages) {
    if (!m.in_main_file || m.line == 0 || m.severity == lang::Severity::Note) continue;
    const long start = std::min<long>(m.offset, len);
    next.push_back({m.severity == lang::Severity::Error ? kErrorIndicator : kWarningIndicator, start,
                    std::max<long>(1, std::min<long>(m.length, len - start)), static_cast<int>(m.line) - 1});
  }
  // Margin markers move with their lines.
  for (Mark& q : squiggles_) q.line = static_cast<int>(SendScintilla(SCI_MARKERLINEFROMHANDLE, q.handle));
  // The same marks again (the common case while typing) are left alone.
  if (std::equal(next.begin(), next.end(), squiggles_.begin(), squiggles_.end(),
                 [](const Mark& a, const Mark& b) { return a.same_as(b); }))
    return;
  for (const Mark& q : squiggles_) {
    SendScintilla(SCI_SETINDICATORCURRENT, q.kind);
    clear_mark(q);
    SendScintilla(SCI_MARKERDELETEHANDLE, q.handle);
  }
  for (Mark& q : next) {
    q.handle = markerAdd(q.line, q.kind == kErrorIndicator ? kErrorMarker : kWarningMarker);
    SendScintilla(SCI_SETINDICATORCURRENT, q.kind);
    SendScintilla(SCI_INDICATORFILLRANGE, static_cast<unsigned long>(q.start), q.length);
  }
  squiggles_ = std::move(next);
}

void ShaderEditor::set_span_highlights(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& spans) {
  const long len = SendScintilla(SCI_GETLENGTH);
  std::vector<Mark> next;
  for (const auto& [offset, length] : spans)
    if (offset < len) next.push_back({kSpanIndicator, static_cast<long>(offset), std::min<long>(length, len - offset), 0});
  if (std::equal(next.begin(), next.end(), spans_.begin(), spans_.end(), [](const Mark& a, const Mark& b) { return a.same_as(b); }))
    return;
  SendScintilla(SCI_SETINDICATORCURRENT, kSpanIndicator);
  for (const Mark& m : spans_) clear_mark(m);
  for (const Mark& m : next) SendScintilla(SCI_INDICATORFILLRANGE, static_cast<unsigned long>(m.start), m.length);
  spans_ = std::move(next);
}

void ShaderEditor::set_breakpoints_enabled(bool on) {
  setMarginSensitivity(1, on);
  if (!on) {
    set_breakpoint_lines({});
    set_execution_line(0);
  }
}

void ShaderEditor::set_breakpoint_lines(const std::vector<int>& lines) {
  if (lines == breakpoint_lines_) return;
  markerDeleteAll(kBreakpointMarker);
  for (int l : lines)
    if (l > 0) markerAdd(l - 1, kBreakpointMarker);
  breakpoint_lines_ = lines;
}

void ShaderEditor::set_execution_line(int line) {
  if (line == execution_line_) return;
  markerDeleteAll(kExecutionMarker);
  markerDeleteAll(kExecutionLineMarker);
  execution_line_ = line;
  if (line <= 0) return;
  markerAdd(line - 1, kExecutionMarker);
  markerAdd(line - 1, kExecutionLineMarker);
  ensureLineVisible(line - 1);
}

void ShaderEditor::go_to(int line, int column) {
  setCursorPosition(std::max(0, line - 1), std::max(0, column - 1));
  ensureLineVisible(std::max(0, line - 1));
  setFocus();
}

int ShaderEditor::diagnostic_marker_count() const {
  int n = 0;
  for (int l = 0; l < lines(); ++l)
    if (const_cast<ShaderEditor*>(this)->markersAtLine(l) & ((1 << kErrorMarker) | (1 << kWarningMarker))) ++n;
  return n;
}

int ShaderEditor::squiggle_count() const { return static_cast<int>(squiggled().size()); }

std::vector<long> ShaderEditor::squiggled() const {
  auto* self = const_cast<ShaderEditor*>(this);
  const long len = self->SendScintilla(SCI_GETLENGTH);
  std::vector<long> out;
  for (long p = 0; p < len; ++p)
    if (self->SendScintilla(SCI_INDICATORVALUEAT, kErrorIndicator, p) || self->SendScintilla(SCI_INDICATORVALUEAT, kWarningIndicator, p))
      out.push_back(p);
  return out;
}

}  // namespace passlab::editors
