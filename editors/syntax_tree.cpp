// SPDX-License-Identifier: GPL-3.0-or-later
// Tree-sitter parsing and token classification for the shader editor.
#include "editors/syntax_tree.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <tree_sitter/api.h>

#include "core/lang/ast.h"
#include "core/lang/stdlib.h"

extern "C" const TSLanguage* tree_sitter_c(void);
extern "C" const TSLanguage* tree_sitter_glsl(void);

namespace passlab::editors {

namespace {

const std::set<std::string_view>& rsl_keywords() {
  static const std::set<std::string_view> k{"surface", "light", "displacement", "volume", "imager", "illuminance",
                                            "illuminate", "solar", "uniform", "varying", "output", "extern",
                                            "if", "else", "for", "while", "return", "break", "continue", "gather"};
  return k;
}

const std::set<std::string_view>& rsl_types() {
  static const std::set<std::string_view> t{"float", "color", "point", "vector", "normal", "matrix", "string", "void"};
  return t;
}

bool is_global(std::string_view name) {
  for (int g = 0; g < static_cast<int>(lang::Global::Count); ++g)
    if (name == lang::to_string(static_cast<lang::Global>(g))) return true;
  return name == "PI" || name == "ncomps" || name == "time";
}

TSPoint point_at(const std::string& text, std::uint32_t offset) {
  TSPoint p{0, 0};
  std::uint32_t line_start = 0;
  for (std::uint32_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') {
      ++p.row;
      line_start = i + 1;
    }
  p.column = offset - line_start;
  return p;
}

}  // namespace

const char* to_string(Style s) {
  static const char* names[] = {"default", "comment", "keyword", "type", "number", "string", "preprocessor",
                                "global", "builtin", "function", "operator", "error"};
  return names[static_cast<int>(s)];
}

SyntaxTree::SyntaxTree(Grammar g) : grammar_(g) {
  parser_ = ts_parser_new();
  ts_parser_set_language(parser_, g == Grammar::Glsl ? tree_sitter_glsl() : tree_sitter_c());
  parse(false);
}

SyntaxTree::~SyntaxTree() {
  if (tree_) ts_tree_delete(tree_);
  ts_parser_delete(parser_);
}

void SyntaxTree::reset(std::string text) {
  text_ = std::move(text);
  parse(false);
}

void SyntaxTree::replace(std::uint32_t start, std::uint32_t old_length, std::string_view inserted) {
  start = std::min<std::uint32_t>(start, static_cast<std::uint32_t>(text_.size()));
  old_length = std::min<std::uint32_t>(old_length, static_cast<std::uint32_t>(text_.size()) - start);
  TSInputEdit edit;
  edit.start_byte = start;
  edit.old_end_byte = start + old_length;
  edit.new_end_byte = start + static_cast<std::uint32_t>(inserted.size());
  edit.start_point = point_at(text_, start);
  edit.old_end_point = point_at(text_, start + old_length);
  text_.replace(start, old_length, inserted);
  edit.new_end_point = point_at(text_, edit.new_end_byte);
  if (tree_) ts_tree_edit(tree_, &edit);
  parse(tree_ != nullptr);
}

void SyntaxTree::parse(bool incremental) {
  TSTree* next = ts_parser_parse_string(parser_, incremental ? tree_ : nullptr, text_.data(),
                                        static_cast<std::uint32_t>(text_.size()));
  if (tree_) ts_tree_delete(tree_);
  tree_ = next;
  ++reparses_;
  if (incremental) ++incremental_;
}

std::vector<Token> SyntaxTree::tokens(std::uint32_t begin, std::uint32_t end) const {
  std::vector<Token> out;
  if (!tree_) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree_));
  auto emit = [&](TSNode n, Style s) {
    std::uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b <= begin || a >= end || b <= a) return;
    if (!out.empty() && a < out.back().start + out.back().length) return;  // keep tokens disjoint
    out.push_back({a, b - a, s});
  };
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    const std::uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    bool skip_children = b <= begin || a >= end;
    if (!skip_children) {
      const char* type = ts_node_type(n);
      const bool named = ts_node_is_named(n);
      const bool leaf = ts_node_child_count(n) == 0;
      if (std::strcmp(type, "comment") == 0) {
        emit(n, Style::Comment);
        skip_children = true;
      } else if (std::strcmp(type, "string_literal") == 0 || std::strcmp(type, "char_literal") == 0 ||
                 std::strcmp(type, "system_lib_string") == 0) {
        emit(n, Style::String);
        skip_children = true;
      } else if (std::strcmp(type, "number_literal") == 0) {
        emit(n, Style::Number);
      } else if (std::strcmp(type, "primitive_type") == 0 || std::strcmp(type, "type_identifier") == 0) {
        std::string_view word(text_.data() + a, b - a);
        emit(n, rsl_keywords().count(word) ? Style::Keyword : Style::Type);
      } else if (leaf && (std::strcmp(type, "identifier") == 0 || std::strcmp(type, "field_identifier") == 0)) {
        std::string_view word(text_.data() + a, b - a);
        Style s = Style::Default;
        if (grammar_ == Grammar::Rsl && rsl_keywords().count(word)) s = Style::Keyword;
        else if (grammar_ == Grammar::Rsl && rsl_types().count(word)) s = Style::Type;
        else if (grammar_ == Grammar::Rsl && is_global(word)) s = Style::Global;
        else if (grammar_ == Grammar::Rsl && lang::is_builtin_name(word)) s = Style::Builtin;
        else {
          TSNode parent = ts_node_parent(n);
          if (!ts_node_is_null(parent) && std::strcmp(ts_node_type(parent), "call_expression") == 0 &&
              ts_node_start_byte(ts_node_child_by_field_name(parent, "function", 8)) == a)
            s = Style::Function;
        }
        if (s != Style::Default) emit(n, s);
      } else if (leaf && !named) {
        if (type[0] == '#') emit(n, Style::Preprocessor);
        else if ((type[0] >= 'a' && type[0] <= 'z') || type[0] == '_') emit(n, Style::Keyword);
        else if (std::strchr("+-*/%=<>!&|^.?:~", type[0])) emit(n, Style::Operator);
      } else if (leaf && std::strcmp(type, "preproc_arg") == 0) {
        emit(n, Style::Preprocessor);
      }
    }
    if (!skip_children && ts_tree_cursor_goto_first_child(&cursor)) continue;
    if (ts_tree_cursor_goto_next_sibling(&cursor)) continue;
    bool up = false;
    while (ts_tree_cursor_goto_parent(&cursor)) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        up = true;
        break;
      }
    }
    if (!up) break;
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::vector<SyntaxTree::LineFold> SyntaxTree::folds() const {
  std::size_t lines = static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1;
  std::vector<LineFold> out(lines);
  // Braces outside comments and strings, found from the token stream.
  std::vector<Token> skip;
  for (const Token& t : tokens(0, static_cast<std::uint32_t>(text_.size())))
    if (t.style == Style::Comment || t.style == Style::String) skip.push_back(t);
  std::size_t k = 0, line = 0;
  int depth = 0;
  for (std::uint32_t i = 0; i < text_.size(); ++i) {
    while (k < skip.size() && skip[k].start + skip[k].length <= i) ++k;
    const bool inside = k < skip.size() && skip[k].start <= i;
    const char c = text_[i];
    if (c == '\n') {
      ++line;
      if (line < lines) out[line].depth = depth;
      continue;
    }
    if (inside) continue;
    if (c == '{') {
      ++depth;
      out[line].header = true;
    } else if (c == '}' && depth > 0) {
      --depth;
    }
  }
  // A line that opens and closes its block is not a fold header.
  for (std::size_t l = 0; l + 1 < lines; ++l) out[l].header = out[l].header && out[l + 1].depth > out[l].depth;
  return out;
}

}  // namespace passlab::editors
