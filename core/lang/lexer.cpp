// SPDX-License-Identifier: GPL-3.0-or-later
// The hand-written lexer: one file's text to tokens (comments and line continuations removed).
#include "core/lang/lexer.h"

#include <array>
#include <cctype>
#include <cstdlib>

namespace passlab::lang {

const char* spelling(Tok t) {
  switch (t) {
    case Tok::Eof: return "end of file";
    case Tok::Identifier: return "identifier";
    case Tok::Number: return "number";
    case Tok::String: return "string";
    case Tok::LParen: return "(";
    case Tok::RParen: return ")";
    case Tok::LBrace: return "{";
    case Tok::RBrace: return "}";
    case Tok::LBracket: return "[";
    case Tok::RBracket: return "]";
    case Tok::Comma: return ",";
    case Tok::Semicolon: return ";";
    case Tok::Colon: return ":";
    case Tok::Question: return "?";
    case Tok::Dot: return ".";
    case Tok::Caret: return "^";
    case Tok::Plus: return "+";
    case Tok::Minus: return "-";
    case Tok::Star: return "*";
    case Tok::Slash: return "/";
    case Tok::Percent: return "%";
    case Tok::Bang: return "!";
    case Tok::Tilde: return "~";
    case Tok::Amp: return "&";
    case Tok::Pipe: return "|";
    case Tok::Less: return "<";
    case Tok::Greater: return ">";
    case Tok::LessEq: return "<=";
    case Tok::GreaterEq: return ">=";
    case Tok::EqEq: return "==";
    case Tok::NotEq: return "!=";
    case Tok::AndAnd: return "&&";
    case Tok::OrOr: return "||";
    case Tok::Assign: return "=";
    case Tok::PlusAssign: return "+=";
    case Tok::MinusAssign: return "-=";
    case Tok::StarAssign: return "*=";
    case Tok::SlashAssign: return "/=";
    case Tok::PlusPlus: return "++";
    case Tok::MinusMinus: return "--";
    case Tok::Hash: return "#";
    case Tok::HashHash: return "##";
    case Tok::Unknown: return "unknown character";
  }
  return "?";
}

bool is_keyword(std::string_view s) {
  static constexpr std::array<std::string_view, 30> words = {
      "float", "color", "point", "vector", "normal", "matrix", "string", "void",
      "uniform", "varying", "output", "extern",
      "surface", "light", "displacement", "volume", "imager",
      "if", "else", "for", "while", "break", "continue", "return",
      "illuminance", "illuminate", "solar", "gather", "texture", "environment"};
  // texture and environment are library calls; the shader kinds are keywords only where a
  // definition starts (PRMan and Aqsis accept `float light = ...` in a body), so not reserved.
  for (auto w : words)
    if (w == s)
      return w != "texture" && w != "environment" && w != "surface" && w != "light" && w != "displacement" &&
             w != "volume" && w != "imager";
  return false;
}

namespace {

class Lexer {
 public:
  Lexer(const SourceManager& sm, FileId file, DiagnosticSink& sink)
      : file_(file), text_(sm.file(file).text), sink_(sink) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    bool line_start = true;
    for (;;) {
      bool space = false;
      // Skip whitespace, comments and backslash-newline continuations.
      for (;;) {
        if (at_end()) break;
        char c = peek();
        if (c == '\n') {
          line_start = true;
          space = true;
          advance();
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
          space = true;
          advance();
        } else if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
          advance();
          if (peek() == '\r') advance();
          advance();
          space = true;
        } else if (c == '/' && peek(1) == '/') {
          while (!at_end() && peek() != '\n') advance();
          space = true;
        } else if (c == '/' && peek(1) == '*') {
          Span start = here(2);
          advance();
          advance();
          bool closed = false;
          while (!at_end()) {
            if (peek() == '*' && peek(1) == '/') {
              advance();
              advance();
              closed = true;
              break;
            }
            advance();
          }
          if (!closed) sink_.error("unterminated-comment", start, "unterminated /* comment");
          space = true;
        } else {
          break;
        }
      }
      Token t;
      t.at_line_start = line_start;
      t.leading_space = space;
      line_start = false;
      if (at_end()) {
        t.kind = Tok::Eof;
        t.span = here(0);
        out.push_back(std::move(t));
        return out;
      }
      lex_one(t);
      out.push_back(std::move(t));
    }
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  Span here(std::uint32_t length) const {
    return Span{file_, static_cast<std::uint32_t>(pos_), line_, col_, length};
  }

  void lex_one(Token& t) {
    Span start = here(0);
    std::size_t begin = pos_;
    char c = peek();
    auto finish = [&](Tok kind) {
      t.kind = kind;
      t.span = start;
      t.span.length = static_cast<std::uint32_t>(pos_ - begin);
      if (t.kind != Tok::String) t.text.assign(text_.substr(begin, pos_ - begin));
    };
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') advance();
      return finish(Tok::Identifier);
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
      while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      if (peek() == '.') {
        advance();
        while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (std::isdigit(static_cast<unsigned char>(peek(1))) ||
           ((peek(1) == '+' || peek(1) == '-') && std::isdigit(static_cast<unsigned char>(peek(2)))))) {
        advance();
        if (peek() == '+' || peek() == '-') advance();
        while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
      }
      if (peek() == 'f' || peek() == 'F') advance();  // C-style suffix, harmless
      finish(Tok::Number);
      std::string digits = t.text;
      if (!digits.empty() && (digits.back() == 'f' || digits.back() == 'F')) digits.pop_back();
      t.number = std::strtod(digits.c_str(), nullptr);
      if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
        std::size_t bad = pos_;
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') advance();
        Span s = start;
        s.length = static_cast<std::uint32_t>(pos_ - begin);
        sink_.error("bad-number", s,
                    "invalid suffix '" + std::string(text_.substr(bad, pos_ - bad)) + "' on number");
        t.span = s;
      }
      return;
    }
    if (c == '"') {
      advance();
      std::string value;
      bool closed = false;
      while (!at_end() && peek() != '\n') {
        char d = peek();
        if (d == '"') {
          advance();
          closed = true;
          break;
        }
        if (d == '\\') {
          advance();
          char e = at_end() ? '\0' : peek();
          switch (e) {
            case 'n': value += '\n'; break;
            case 't': value += '\t'; break;
            case '\\': value += '\\'; break;
            case '"': value += '"'; break;
            case '\n': break;  // continuation inside a string
            case '\0': break;
            default: value += e; break;
          }
          if (!at_end()) advance();
          continue;
        }
        value += d;
        advance();
      }
      finish(Tok::String);
      t.text = value;
      if (!closed) sink_.error("unterminated-string", t.span, "missing terminating '\"' character");
      return;
    }
    advance();
    auto two = [&](char next, Tok yes, Tok no) {
      if (peek() == next) {
        advance();
        return finish(yes);
      }
      finish(no);
    };
    switch (c) {
      case '(': return finish(Tok::LParen);
      case ')': return finish(Tok::RParen);
      case '{': return finish(Tok::LBrace);
      case '}': return finish(Tok::RBrace);
      case '[': return finish(Tok::LBracket);
      case ']': return finish(Tok::RBracket);
      case ',': return finish(Tok::Comma);
      case ';': return finish(Tok::Semicolon);
      case ':': return finish(Tok::Colon);
      case '?': return finish(Tok::Question);
      case '.': return finish(Tok::Dot);
      case '^': return finish(Tok::Caret);
      case '%': return finish(Tok::Percent);
      case '~': return finish(Tok::Tilde);
      case '#': return two('#', Tok::HashHash, Tok::Hash);
      case '*': return two('=', Tok::StarAssign, Tok::Star);
      case '/': return two('=', Tok::SlashAssign, Tok::Slash);
      case '!': return two('=', Tok::NotEq, Tok::Bang);
      case '<': return two('=', Tok::LessEq, Tok::Less);
      case '>': return two('=', Tok::GreaterEq, Tok::Greater);
      case '=': return two('=', Tok::EqEq, Tok::Assign);
      case '&': return two('&', Tok::AndAnd, Tok::Amp);
      case '|': return two('|', Tok::OrOr, Tok::Pipe);
      case '+':
        if (peek() == '+') { advance(); return finish(Tok::PlusPlus); }
        return two('=', Tok::PlusAssign, Tok::Plus);
      case '-':
        if (peek() == '-') { advance(); return finish(Tok::MinusMinus); }
        return two('=', Tok::MinusAssign, Tok::Minus);
      default: break;
    }
    // Consume the rest of a UTF-8 sequence so one bad character gives one diagnostic.
    while (!at_end() && (static_cast<unsigned char>(peek()) & 0xC0) == 0x80) advance();
    finish(Tok::Unknown);
    std::string shown = (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
                            ? std::string("'") + c + "'"
                            : "byte 0x" + [&] {
                                const char* hex = "0123456789abcdef";
                                unsigned char u = static_cast<unsigned char>(c);
                                return std::string{hex[u >> 4], hex[u & 15]};
                              }();
    sink_.error("unknown-character", t.span, "unexpected character " + shown);
  }

  FileId file_;
  std::string_view text_;
  DiagnosticSink& sink_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t col_ = 1;
};

}  // namespace

std::vector<Token> lex(const SourceManager& sm, FileId file, DiagnosticSink& sink) {
  return Lexer(sm, file, sink).run();
}

}  // namespace passlab::lang
