// SPDX-License-Identifier: GPL-3.0-or-later
// Syntax highlighting with tree-sitter, Qt-free: the tree-sitter-c grammar with RSL keywords,
// types, globals and builtins layered on (or tree-sitter-glsl), reparsed incrementally per edit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct TSParser;
struct TSTree;

namespace passlab::editors {

enum class Style : std::uint8_t {
  Default, Comment, Keyword, Type, Number, String, Preprocessor, Global, Builtin, Function, Operator, Error,
  Count
};
const char* to_string(Style s);

struct Token {
  std::uint32_t start = 0, length = 0;  // bytes
  Style style = Style::Default;
};

enum class Grammar : std::uint8_t { Rsl, Glsl };

class SyntaxTree {
 public:
  explicit SyntaxTree(Grammar g = Grammar::Rsl);
  ~SyntaxTree();
  SyntaxTree(const SyntaxTree&) = delete;
  SyntaxTree& operator=(const SyntaxTree&) = delete;

  Grammar grammar() const { return grammar_; }
  // Replaces the whole text and parses from scratch.
  void reset(std::string text);
  // One edit: `old_length` bytes at `start` become `inserted`; the tree is edited and reparsed
  // incrementally (tree-sitter reuses every subtree the edit did not touch).
  void replace(std::uint32_t start, std::uint32_t old_length, std::string_view inserted);
  const std::string& text() const { return text_; }
  // Tokens overlapping [begin, end), in order, non-overlapping.
  std::vector<Token> tokens(std::uint32_t begin, std::uint32_t end) const;
  // Brace depth at the start of each line and whether a block opens on it (for folding).
  struct LineFold {
    int depth = 0;
    bool header = false;
  };
  std::vector<LineFold> folds() const;
  long reparses() const { return reparses_; }
  long incremental_reparses() const { return incremental_; }

 private:
  void parse(bool incremental);

  Grammar grammar_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  std::string text_;
  long reparses_ = 0, incremental_ = 0;
};

}  // namespace passlab::editors
