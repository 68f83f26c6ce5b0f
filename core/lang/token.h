// SPDX-License-Identifier: GPL-3.0-or-later
// Tokens of RSL and of its preprocessor.
#pragma once

#include <string>
#include <string_view>

#include "core/lang/source.h"

namespace passlab::lang {

enum class Tok {
  Eof,
  Identifier,  // keywords too: the parser tells them apart (see is_keyword)
  Number,
  String,
  LParen, RParen, LBrace, RBrace, LBracket, RBracket,
  Comma, Semicolon, Colon, Question, Dot, Caret,
  Plus, Minus, Star, Slash, Percent, Bang, Tilde, Amp, Pipe,
  Less, Greater, LessEq, GreaterEq, EqEq, NotEq, AndAnd, OrOr,
  Assign, PlusAssign, MinusAssign, StarAssign, SlashAssign,
  PlusPlus, MinusMinus,
  Hash, HashHash,
  Unknown,  // a character the language does not use; the lexer has reported it
};

const char* spelling(Tok t);  // "(", "+=", "identifier", ...

struct Token {
  Tok kind = Tok::Eof;
  std::string text;        // the characters as written (string tokens: the decoded value)
  double number = 0;       // Number tokens
  Span span;               // where the user sees it: for macro-expanded tokens, the expansion site
  Span macro_definition;   // for macro-expanded tokens: the token inside the #define
  bool at_line_start = false;  // first token on its (logical) line: directives need it
  bool leading_space = false;  // whitespace before it: function-like macros and pasting need it

  bool is(Tok k) const { return kind == k; }
  bool is_identifier(std::string_view s) const { return kind == Tok::Identifier && text == s; }
};

// RSL reserved words (types, storage classes, statements, shader kinds).
bool is_keyword(std::string_view s);

}  // namespace passlab::lang
