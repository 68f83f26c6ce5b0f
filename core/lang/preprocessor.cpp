// SPDX-License-Identifier: GPL-3.0-or-later
// The C-style preprocessor of RSL: directives, macro expansion with hide sets, #if evaluation.
//
// How it works. Each file is lexed once into tokens (lexer diagnostics are held back so that text
// inside `#if 0` is not complained about). Open files form a stack of frames; a frame also holds
// the conditional blocks opened in that file. `next_raw` walks the top frame, runs directives (a
// `#` that starts a physical line) and skips inactive lines, so directives are only ever
// recognised in real source, never in macro output.
//
// Macro expansion follows Prosser's hide-set algorithm (the one the C standard's wording was
// written from): every token carries the set of macro names it must not expand again. Expanding
// macro M from token T gives each result token hs(T) ∪ {M} (function-like: (hs(T) ∩ hs(')')) ∪
// {M}), then the result is pushed back in front of the input and rescanned; that is what makes
// `#define a a b a` stop. Arguments are expanded on their own before substitution unless they are
// operands of `#` or `##`.
//
// Limits, so that no input can hang or crash the compiler: every token a macro produces is charged
// to a budget (options.max_output_tokens), argument pre-expansion recursion is capped, #if
// expressions have a nesting cap, includes have a depth cap, a cycle check and a total cap.
#include "core/lang/preprocessor.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/lang/lexer.h"

namespace passlab::lang {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxArgNesting = 64;   // each level of f(g(h(...))) pre-expansion recurses once
constexpr int kMaxExprDepth = 256;   // parentheses and unary operators in #if
constexpr std::size_t kMaxIncludes = 20'000;

// Sorted ids of macro names; shared because whole expansions carry the same set.
using HideSet = std::vector<std::uint32_t>;
using HideSetPtr = std::shared_ptr<const HideSet>;

bool hs_contains(const HideSetPtr& hs, std::uint32_t id) {
  return hs && std::binary_search(hs->begin(), hs->end(), id);
}

HideSetPtr hs_union(const HideSetPtr& a, const HideSetPtr& b) {
  if (!a || a->empty() || a == b) return b ? b : a;
  if (!b || b->empty()) return a;
  auto out = std::make_shared<HideSet>();
  std::set_union(a->begin(), a->end(), b->begin(), b->end(), std::back_inserter(*out));
  return out;
}

HideSetPtr hs_intersect(const HideSetPtr& a, const HideSetPtr& b) {
  if (!a || !b) return nullptr;
  if (a == b) return a;
  auto out = std::make_shared<HideSet>();
  std::set_intersection(a->begin(), a->end(), b->begin(), b->end(), std::back_inserter(*out));
  return out;
}

struct PPToken {
  Token tok;
  HideSetPtr hs;
};

// Inside substitution an empty argument next to `##` is a placemarker; Eof never occurs there.
bool is_placemarker(const PPToken& t) { return t.tok.kind == Tok::Eof; }

struct Macro {
  std::string name;
  std::uint32_t id = 0;
  bool function_like = false;
  std::vector<std::string> params;
  std::vector<Token> body;
  std::vector<int> param_index;  // per body token: which parameter it names, or -1
  Span def_span;                 // the name in the #define
  HideSetPtr self;               // {id}
};

struct Lexed {
  std::vector<Token> tokens;
  std::vector<Diagnostic> diags;  // reported only if the text turns out to be active
  std::string guard;              // the include-guard macro if the whole file is #ifndef X ... #endif
};

struct Cond {
  Span open;
  std::string directive;  // "#if", "#ifdef", "#ifndef"
  bool parent_active = true;
  bool taken = false;  // some branch was chosen already
  bool seen_else = false;
  Span else_span;
  bool active = false;
};

struct Frame {
  FileId file = 0;
  std::shared_ptr<const Lexed> lexed;
  std::size_t pos = 0;
  std::size_t next_diag = 0;
  std::vector<Cond> conds;
  std::string key;    // canonical path, for cycles and #pragma once; empty for synthetic text
  Span included_at;
  bool is_file = true;  // false for the predefined macros' text, which is not an #include

  bool active() const { return conds.empty() || conds.back().active; }
};

class CollectSink : public DiagnosticSink {
 public:
  void report(Diagnostic d) override { items.push_back(std::move(d)); }
  std::vector<Diagnostic> items;
};

// How a token is written in source: string tokens hold their decoded value, so re-escape it.
std::string spell(const Token& t) {
  if (t.kind != Tok::String) return t.text;
  std::string s = "\"";
  for (char c : t.text) {
    if (c == '"' || c == '\\') s += '\\', s += c;
    else if (c == '\n') s += "\\n";
    else if (c == '\t') s += "\\t";
    else s += c;
  }
  return s + '"';
}

std::string detect_guard(const std::vector<Token>& t) {
  if (t.size() < 4 || !t[0].is(Tok::Hash) || !t[1].is_identifier("ifndef") || !t[2].is(Tok::Identifier) ||
      !(t[3].at_line_start || t[3].is(Tok::Eof)))
    return {};
  int depth = 0;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].is(Tok::Hash) || !t[i].at_line_start || t[i + 1].at_line_start) continue;
    const Token& d = t[i + 1];
    if (d.is_identifier("if") || d.is_identifier("ifdef") || d.is_identifier("ifndef")) {
      ++depth;
    } else if (depth == 1 && (d.is_identifier("else") || d.is_identifier("elif"))) {
      return {};
    } else if (d.is_identifier("endif") && --depth == 0) {
      std::size_t j = i + 2;
      while (!t[j].is(Tok::Eof) && !t[j].at_line_start) ++j;
      return t[j].is(Tok::Eof) ? t[2].text : std::string();
    }
  }
  return {};
}

// Integer constant expressions of #if, by precedence climbing. Reports the first error only.
class IfExpr {
 public:
  IfExpr(const std::vector<PPToken>& toks, Span where, DiagnosticSink& sink,
         const std::unordered_map<std::string, std::shared_ptr<const Macro>>& macros)
      : toks_(toks), where_(where), sink_(sink), macros_(macros) {}

  std::optional<std::int64_t> evaluate() {
    if (toks_.empty()) fail(where_, "#if with no expression");
    std::int64_t v = failed_ ? 0 : conditional(true);
    if (!failed_ && pos_ < toks_.size())
      fail(toks_[pos_].tok.span, "missing binary operator before '" + spell(toks_[pos_].tok) + "'");
    if (failed_) return std::nullopt;
    return v;
  }

 private:
  enum class Op { None, Mul, Div, Mod, Add, Sub, Shl, Shr, Lt, Gt, Le, Ge, Eq, Ne, BitAnd, Xor, BitOr, And, Or };

  struct Nest {  // counts recursion so that `((((...` cannot exhaust the stack
    explicit Nest(IfExpr& e) : e(e) { ++e.depth_; }
    ~Nest() { --e.depth_; }
    IfExpr& e;
  };

  std::int64_t fail(Span span, std::string message) {
    if (!failed_) sink_.error("bad-if-expression", span.valid() ? span : where_, std::move(message));
    failed_ = true;
    return 0;
  }
  bool at(Tok k) const { return pos_ < toks_.size() && toks_[pos_].tok.is(k); }
  Span here() const { return pos_ < toks_.size() ? toks_[pos_].tok.span : toks_.back().tok.span; }

  std::int64_t conditional(bool eval) {
    Nest n(*this);
    if (depth_ > kMaxExprDepth) return fail(here(), "#if expression nested too deeply");
    std::int64_t c = binary(1, eval);
    if (failed_ || !at(Tok::Question)) return c;
    ++pos_;
    std::int64_t a = conditional(eval && c != 0);
    if (failed_ || !at(Tok::Colon)) return fail(here(), "expected ':' in #if expression");
    ++pos_;
    std::int64_t b = conditional(eval && c == 0);
    return c != 0 ? a : b;
  }

  // The operator at pos_, its precedence (0 = none) and how many tokens spell it: the lexer has no
  // << and >> tokens, so two touching < or > make a shift.
  std::tuple<Op, int, int> peek_op() const {
    if (pos_ >= toks_.size()) return {Op::None, 0, 0};
    const Token& t = toks_[pos_].tok;
    bool doubled = pos_ + 1 < toks_.size() && toks_[pos_ + 1].tok.is(t.kind) && !toks_[pos_ + 1].tok.leading_space;
    switch (t.kind) {
      case Tok::OrOr: return {Op::Or, 1, 1};
      case Tok::AndAnd: return {Op::And, 2, 1};
      case Tok::Pipe: return {Op::BitOr, 3, 1};
      case Tok::Caret: return {Op::Xor, 4, 1};
      case Tok::Amp: return {Op::BitAnd, 5, 1};
      case Tok::EqEq: return {Op::Eq, 6, 1};
      case Tok::NotEq: return {Op::Ne, 6, 1};
      case Tok::Less: return doubled ? std::tuple{Op::Shl, 8, 2} : std::tuple{Op::Lt, 7, 1};
      case Tok::Greater: return doubled ? std::tuple{Op::Shr, 8, 2} : std::tuple{Op::Gt, 7, 1};
      case Tok::LessEq: return {Op::Le, 7, 1};
      case Tok::GreaterEq: return {Op::Ge, 7, 1};
      case Tok::Plus: return {Op::Add, 9, 1};
      case Tok::Minus: return {Op::Sub, 9, 1};
      case Tok::Star: return {Op::Mul, 10, 1};
      case Tok::Slash: return {Op::Div, 10, 1};
      case Tok::Percent: return {Op::Mod, 10, 1};
      default: return {Op::None, 0, 0};
    }
  }

  std::int64_t binary(int min_prec, bool eval) {
    std::int64_t lhs = unary(eval);
    for (;;) {
      auto [op, prec, width] = peek_op();
      if (failed_ || prec == 0 || prec < min_prec) return lhs;
      Span op_span = toks_[pos_].tok.span;
      pos_ += static_cast<std::size_t>(width);
      bool eval_rhs = eval && !(op == Op::Or && lhs != 0) && !(op == Op::And && lhs == 0);
      std::int64_t rhs = binary(prec + 1, eval_rhs);
      if (failed_) return 0;
      lhs = apply(op, lhs, rhs, eval_rhs, op_span);
    }
  }

  std::int64_t apply(Op op, std::int64_t a, std::int64_t b, bool eval, Span span) {
    using U = std::uint64_t;
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    switch (op) {
      case Op::Mul: return static_cast<std::int64_t>(U(a) * U(b));  // wraps instead of overflowing
      case Op::Add: return static_cast<std::int64_t>(U(a) + U(b));
      case Op::Sub: return static_cast<std::int64_t>(U(a) - U(b));
      case Op::Div:
      case Op::Mod:
        if (b == 0) return eval ? fail(span, "division by zero in #if expression") : 0;
        if (a == kMin && b == -1) return op == Op::Div ? a : 0;
        return op == Op::Div ? a / b : a % b;
      case Op::Shl: return b < 0 || b >= 64 ? 0 : static_cast<std::int64_t>(U(a) << b);
      case Op::Shr: return b < 0 || b >= 64 ? (a < 0 ? -1 : 0) : a >> b;
      case Op::Lt: return a < b;
      case Op::Gt: return a > b;
      case Op::Le: return a <= b;
      case Op::Ge: return a >= b;
      case Op::Eq: return a == b;
      case Op::Ne: return a != b;
      case Op::BitAnd: return a & b;
      case Op::Xor: return a ^ b;
      case Op::BitOr: return a | b;
      case Op::And: return a != 0 && b != 0;
      case Op::Or: return a != 0 || b != 0;
      case Op::None: break;
    }
    return 0;
  }

  std::int64_t unary(bool eval) {
    Nest n(*this);
    if (depth_ > kMaxExprDepth) return fail(here(), "#if expression nested too deeply");
    if (pos_ >= toks_.size()) return fail(here(), "expected a value at the end of the #if expression");
    const Token& t = toks_[pos_].tok;
    switch (t.kind) {
      case Tok::Plus: ++pos_; return unary(eval);
      case Tok::Minus: ++pos_; return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(unary(eval)));
      case Tok::Bang: ++pos_; return unary(eval) == 0;
      case Tok::Tilde: ++pos_; return ~unary(eval);
      case Tok::LParen: {
        ++pos_;
        std::int64_t v = conditional(eval);
        if (failed_ || !at(Tok::RParen)) return fail(here(), "expected ')' in #if expression");
        ++pos_;
        return v;
      }
      case Tok::Number: return number(t);
      case Tok::Identifier:
        if (t.text == "defined") return defined();
        ++pos_;
        return 0;  // identifiers that are not macros count as 0, as in C
      default: return fail(t.span, "unexpected '" + spell(t) + "' in #if expression");
    }
  }

  std::int64_t number(const Token& t) {
    ++pos_;
    std::uint64_t v = 0;
    for (char c : t.text) {
      if (c < '0' || c > '9') return fail(t.span, "#if needs an integer constant, not '" + t.text + "'");
      if (v > (std::uint64_t(std::numeric_limits<std::int64_t>::max()) - unsigned(c - '0')) / 10)
        return fail(t.span, "integer constant '" + t.text + "' is too large");
      v = v * 10 + unsigned(c - '0');
    }
    return static_cast<std::int64_t>(v);
  }

  // `defined X` or `defined(X)`; expand_list left X unexpanded, also when `defined` came from a
  // macro (which C leaves undefined and GCC accepts).
  std::int64_t defined() {
    Span s = toks_[pos_++].tok.span;
    bool paren = at(Tok::LParen);
    if (paren) ++pos_;
    if (!at(Tok::Identifier)) return fail(s, "'defined' requires a macro name");
    bool d = macros_.count(toks_[pos_++].tok.text) > 0;
    if (paren && !at(Tok::RParen)) return fail(s, "missing ')' after 'defined'");
    pos_ += paren ? 1 : 0;
    return d;
  }

  const std::vector<PPToken>& toks_;
  Span where_;
  DiagnosticSink& sink_;
  const std::unordered_map<std::string, std::shared_ptr<const Macro>>& macros_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool failed_ = false;
};

class Preprocessor {
 public:
  Preprocessor(SourceManager& sm, const PreprocessOptions& options, DiagnosticSink& sink)
      : sm_(sm), options_(options), sink_(sink) {}

  std::vector<Token> run(FileId main) {
    auto lexed = lex_file(main);
    Token eof = lexed->tokens.back();
    push_frame(main, canonical_key(sm_.file(main).path), Span{}, lexed);
    // Predefined macros are real #define lines, so their expansions point at real text.
    std::string text = "#define __PASSLAB__ 1\n";
    for (const auto& [name, value] : options_.defines) {
      std::string line = "#define " + name + " " + (value.empty() ? "1" : value);
      std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
      text += line + "\n";  // a line break in a value must not end its #define early
    }
    FileId id = sm_.add("<built-in>", std::move(text));
    push_frame(id, "", Span{}, lex_file(id));
    frames_.back().is_file = false;
    Input in;
    in.from_file = true;
    PPToken t;
    while (next_token(in, t)) {
      if (try_expand(in, t, 0)) continue;
      emit(std::move(t.tok));
    }
    out_.push_back(std::move(eof));
    return std::move(out_);
  }

 private:
  struct Input {
    std::vector<PPToken> stack;  // tokens to read before anything else; the next one is at the back
    bool from_file = false;      // then continue with the open files
  };

  // ---- files ------------------------------------------------------------------------------------

  std::shared_ptr<const Lexed> lex_file(FileId id) {
    auto& slot = lexed_[id];
    if (!slot) {
      auto l = std::make_shared<Lexed>();
      CollectSink held;
      l->tokens = lex(sm_, id, held);
      l->diags = std::move(held.items);
      l->guard = detect_guard(l->tokens);
      slot = std::move(l);
    }
    return slot;
  }

  void push_frame(FileId id, std::string key, Span included_at, std::shared_ptr<const Lexed> lexed) {
    Frame f;
    f.file = id;
    f.lexed = std::move(lexed);
    f.key = std::move(key);
    f.included_at = included_at;
    frames_.push_back(std::move(f));
  }

  static std::string canonical_key(const std::string& path) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(path), ec);
    return ec ? fs::path(path).lexically_normal().string() : p.string();
  }

  // Lexer diagnostics up to `upto` become visible only if that text is active.
  void flush_lex_diags(Frame& f, std::uint32_t upto, bool report) {
    const auto& ds = f.lexed->diags;
    for (; f.next_diag < ds.size() && ds[f.next_diag].span.offset < upto; ++f.next_diag)
      if (report) sink_.report(ds[f.next_diag]);
  }

  void end_frame() {
    Frame& f = frames_.back();
    flush_lex_diags(f, std::numeric_limits<std::uint32_t>::max(), f.active());
    for (const Cond& c : f.conds)
      sink_.error("unterminated-conditional", c.open, "unterminated '" + c.directive + "': missing '#endif'");
    frames_.pop_back();
  }

  // The next token of active source text, running directives on the way.
  bool next_raw(PPToken& out) {
    while (!frames_.empty() && !stopped_) {
      Frame& f = frames_.back();
      const Token& tok = f.lexed->tokens[f.pos];
      if (tok.is(Tok::Eof) || (tok.is(Tok::Hash) && tok.at_line_start)) {
        tok.is(Tok::Eof) ? end_frame() : run_directive();
        continue;
      }
      flush_lex_diags(f, tok.span.offset + std::max<std::uint32_t>(tok.span.length, 1), f.active());
      ++f.pos;
      if (!f.active()) continue;
      out = PPToken{tok, nullptr};
      return true;
    }
    return false;
  }

  bool next_token(Input& in, PPToken& t) {
    if (stopped_) return false;
    if (!in.stack.empty()) {
      t = std::move(in.stack.back());
      in.stack.pop_back();
      return true;
    }
    return in.from_file && next_raw(t);
  }

  void emit(Token t) {
    if (stopped_) return;
    if (out_.size() >= options_.max_output_tokens) return too_large(t.span);
    out_.push_back(std::move(t));
  }

  // ---- limits -----------------------------------------------------------------------------------

  void too_large(Span span) {
    if (stopped_) return;
    stopped_ = true;
    sink_.error("macro-expansion-too-large", span,
                "macro expansion too large (more than " + std::to_string(options_.max_output_tokens) +
                    " tokens); preprocessing stopped");
  }

  bool charge(std::size_t n, Span span) {
    work_ += n;
    if (work_ > options_.max_output_tokens) too_large(span);
    return !stopped_;
  }

  // ---- macro expansion --------------------------------------------------------------------------

  std::uint32_t intern(const std::string& name) {
    auto [it, added] = name_ids_.try_emplace(name, static_cast<std::uint32_t>(name_ids_.size()));
    return it->second;
  }

  // If `t` names a macro it may expand, replaces it by the expansion in front of `in`.
  bool try_expand(Input& in, const PPToken& t, int depth) {
    if (!t.tok.is(Tok::Identifier)) return false;
    auto it = macros_.find(t.tok.text);
    if (it == macros_.end()) return false;
    std::shared_ptr<const Macro> m = it->second;  // a #define inside the arguments must not free it
    if (hs_contains(t.hs, m->id)) return false;
    if (!m->function_like) {
      if (!charge(m->body.size() + 1, t.tok.span)) return true;
      std::vector<std::vector<PPToken>> no_args;
      push_front(in, substitute(*m, no_args, t, hs_union(t.hs, m->self), depth));
      return true;
    }
    PPToken paren;
    if (!next_token(in, paren)) return false;
    if (!paren.tok.is(Tok::LParen)) {  // a function-like macro's name alone is just a name
      in.stack.push_back(std::move(paren));
      return false;
    }
    std::vector<std::vector<PPToken>> args(1);
    PPToken close;
    for (int level = 0; next_token(in, close);) {
      if (close.tok.is(Tok::RParen) && level == 0) break;
      level += close.tok.is(Tok::LParen) ? 1 : close.tok.is(Tok::RParen) ? -1 : 0;
      if (close.tok.is(Tok::Comma) && level == 0) args.emplace_back();
      else args.back().push_back(std::move(close));
      close.tok.kind = Tok::Eof;  // so that running out of input is noticed below
    }
    if (!close.tok.is(Tok::RParen)) {
      if (!stopped_) sink_.error("macro-args", t.tok.span, "unterminated argument list invoking macro '" + m->name + "'");
      return true;
    }
    if (m->params.empty() && args.size() == 1 && args[0].empty()) args.clear();
    if (args.size() != m->params.size()) {
      sink_.error("macro-args", t.tok.span,
                  "macro '" + m->name + "' takes " + std::to_string(m->params.size()) + " argument" +
                      (m->params.size() == 1 ? "" : "s") + ", but " + std::to_string(args.size()) +
                      (args.size() == 1 ? " was" : " were") + " given");
      return true;
    }
    if (!charge(m->body.size() + 1, t.tok.span)) return true;
    HideSetPtr hs = hs_union(hs_intersect(t.hs, close.hs), m->self);
    push_front(in, substitute(*m, args, t, hs, depth));
    return true;
  }

  static void push_front(Input& in, std::vector<PPToken> toks) {
    in.stack.insert(in.stack.end(), std::make_move_iterator(toks.rbegin()), std::make_move_iterator(toks.rend()));
  }

  // Fully expands a token list on its own (macro arguments, #if and #include lines).
  // In #if lines (`in_if`), the operand of `defined` is left alone, even when `defined` came out of
  // a macro, so that IfExpr can answer it.
  std::vector<PPToken> expand_list(std::vector<PPToken> toks, int depth, bool in_if = false) {
    if (depth > kMaxArgNesting) {
      if (!nesting_reported_ && !toks.empty())
        sink_.error("macro-nesting", toks[0].tok.span, "macro arguments nested too deeply; not expanded further");
      nesting_reported_ = true;
      return toks;
    }
    if (!toks.empty() && !charge(toks.size(), toks[0].tok.span)) return {};  // rescanning is work too
    Input in;
    push_front(in, std::move(toks));
    std::vector<PPToken> out;
    PPToken t;
    while (next_token(in, t)) {
      if (in_if && t.tok.is_identifier("defined")) {
        out.push_back(std::move(t));
        for (int k = 0; k < 2 && next_token(in, t); ++k) {  // `X` or `(X`
          bool paren = t.tok.is(Tok::LParen);
          out.push_back(std::move(t));
          if (!paren) break;
        }
      } else if (!try_expand(in, t, depth)) {
        out.push_back(std::move(t));
      }
    }
    return out;
  }

  PPToken stringize(const std::vector<PPToken>& arg, const Token& hash, const PPToken& use) {
    PPToken r;
    r.tok.kind = Tok::String;
    for (std::size_t k = 0; k < arg.size(); ++k) {
      if (k > 0 && arg[k].tok.leading_space) r.tok.text += ' ';
      r.tok.text += spell(arg[k].tok);
    }
    r.tok.span = use.tok.span;
    r.tok.macro_definition = hash.span;
    r.tok.leading_space = hash.leading_space;
    return r;
  }

  // lhs ## rhs: re-lexes the joined spelling, which must be exactly one token.
  void paste(std::vector<PPToken>& out, PPToken rhs, const Token& op, const PPToken& use) {
    PPToken& lhs = out.back();
    if (is_placemarker(rhs)) return;
    if (is_placemarker(lhs)) {
      lhs = std::move(rhs);
      return;
    }
    std::string text = spell(lhs.tok) + spell(rhs.tok);
    SourceManager scratch;
    CollectSink quiet;
    std::vector<Token> toks = lex(scratch, scratch.add("<paste>", text), quiet);
    if (!quiet.items.empty() || toks.size() != 2) {
      sink_.error("bad-paste", use.tok.span,
                  "pasting '" + spell(lhs.tok) + "' and '" + spell(rhs.tok) + "' does not give a valid token");
      out.push_back(std::move(rhs));
      return;
    }
    Token r = std::move(toks[0]);
    r.span = use.tok.span;
    r.macro_definition = lhs.tok.macro_definition.valid() ? lhs.tok.macro_definition : op.span;
    r.leading_space = lhs.tok.leading_space;
    r.at_line_start = false;
    lhs = PPToken{std::move(r), nullptr};  // a new token: it starts with no hide set of its own
  }

  std::vector<PPToken> substitute(const Macro& m, const std::vector<std::vector<PPToken>>& args, const PPToken& use,
                                  const HideSetPtr& hs, int depth) {
    const auto& body = m.body;
    std::vector<std::optional<std::vector<PPToken>>> expanded(args.size());
    auto from_body = [&](const Token& bt) {
      PPToken p{bt, nullptr};
      p.tok.macro_definition = bt.span;
      p.tok.span = use.tok.span;
      return p;
    };
    auto raw_arg = [&](int p) {  // operands of ## are not expanded; an empty one is a placemarker
      return args[p].empty() ? std::vector<PPToken>{PPToken{}} : args[p];
    };
    auto is_stringize = [&](std::size_t i) {
      return m.function_like && i + 1 < body.size() && body[i].is(Tok::Hash) && m.param_index[i + 1] >= 0;
    };
    std::vector<PPToken> out;
    for (std::size_t i = 0; i < body.size();) {
      const Token& bt = body[i];
      if (is_stringize(i)) {
        out.push_back(stringize(args[m.param_index[i + 1]], bt, use));
        i += 2;
        continue;
      }
      if (bt.is(Tok::HashHash) && !out.empty() && i + 1 < body.size()) {
        std::vector<PPToken> rhs;
        std::size_t next = i + 2;
        if (m.param_index[i + 1] >= 0) {
          rhs = raw_arg(m.param_index[i + 1]);
        } else if (is_stringize(i + 1)) {
          rhs.push_back(stringize(args[m.param_index[i + 2]], body[i + 1], use));
          next = i + 3;
        } else {
          rhs.push_back(from_body(body[i + 1]));
        }
        if (!charge(rhs.size(), use.tok.span)) return {};
        paste(out, std::move(rhs[0]), bt, use);
        out.insert(out.end(), std::make_move_iterator(rhs.begin() + 1), std::make_move_iterator(rhs.end()));
        i = next;
        continue;
      }
      if (int p = m.param_index[i]; p >= 0) {
        bool pasted = i + 1 < body.size() && body[i + 1].is(Tok::HashHash);
        if (!pasted && !expanded[p]) expanded[p] = expand_list(args[p], depth + 1);
        std::vector<PPToken> piece = pasted ? raw_arg(p) : *expanded[p];
        if (!charge(piece.size(), use.tok.span)) return {};
        if (!piece.empty()) piece[0].tok.leading_space = bt.leading_space;
        out.insert(out.end(), std::make_move_iterator(piece.begin()), std::make_move_iterator(piece.end()));
        ++i;
        continue;
      }
      out.push_back(from_body(bt));
      ++i;
    }
    if (stopped_) return {};
    std::erase_if(out, is_placemarker);
    HideSetPtr last_in, last_out;  // argument tokens mostly share one hide set: union it once
    for (PPToken& t : out) {
      if (t.hs && t.hs != last_in) last_in = t.hs, last_out = hs_union(t.hs, hs);
      t.hs = t.hs ? last_out : hs;
      t.tok.at_line_start = false;
    }
    if (!out.empty()) {
      out[0].tok.at_line_start = use.tok.at_line_start;
      out[0].tok.leading_space = use.tok.leading_space;
    }
    return out;
  }

  // ---- directives -------------------------------------------------------------------------------

  void run_directive() {
    Frame& f = frames_.back();
    const auto& toks = f.lexed->tokens;
    Span hash = toks[f.pos].span;
    std::size_t i = f.pos + 1;
    std::vector<Token> line;
    while (!toks[i].is(Tok::Eof) && !toks[i].at_line_start) line.push_back(toks[i++]);
    bool active = f.active();
    flush_lex_diags(f, line.empty() ? hash.offset + 1 : line.back().span.offset + line.back().span.length, active);
    f.pos = i;
    // From here on `f` may dangle: #include pushes a frame.
    if (line.empty()) return;  // the null directive
    const Token& name = line[0];
    Span where = join(hash, name.span);
    std::vector<Token> args(line.begin() + 1, line.end());
    const std::string d = name.is(Tok::Identifier) ? name.text : std::string();
    if (d == "if" || d == "ifdef" || d == "ifndef") return do_if(d, where, args, active);
    if (d == "elif") return do_elif(where, args);
    if (d == "else" || d == "endif") return d == "else" ? do_else(where, args) : do_endif(where, args);
    if (!active) return;
    if (d == "define") return do_define(where, args);
    if (d == "undef") return do_undef(where, args);
    if (d == "include") return do_include(join(hash, line.back().span), args);
    if (d == "line") return do_line(where, args);
    if (d == "error" || d == "warning") {
      std::string text = args.empty() ? "#" + d : raw_text(args.front().span, args.back().span);
      Severity sev = d == "error" ? Severity::Error : Severity::Warning;
      return sink_.report({sev, d + "-directive", std::move(text), where, {}});
    }
    if (d == "pragma") {
      if (!args.empty() && args[0].is_identifier("once") && !frames_.back().key.empty())
        once_.insert(frames_.back().key);
      return;  // other pragmas mean nothing to Passlab
    }
    sink_.error("bad-directive", where, d.empty() ? "invalid preprocessing directive '#" + spell(name) + "'"
                                                  : "unknown directive '#" + d + "'");
  }

  std::string raw_text(Span first, Span last) const {
    const std::string& text = sm_.file(first.file).text;
    return text.substr(first.offset, last.offset + last.length - first.offset);
  }

  void extra_tokens(const std::vector<Token>& args, std::size_t used, const char* directive) {
    if (args.size() > used)
      sink_.warning("extra-tokens", args[used].span, std::string("extra tokens at end of ") + directive + " directive");
  }

  bool expect_name(const std::vector<Token>& args, Span where, const char* directive) {
    if (!args.empty() && args[0].is(Tok::Identifier)) return true;
    sink_.error("bad-directive", args.empty() ? where : args[0].span, std::string(directive) + " expects a macro name");
    return false;
  }

  void do_if(const std::string& d, Span where, const std::vector<Token>& args, bool active) {
    Cond c;
    c.open = where;
    c.directive = "#" + d;
    c.parent_active = active;
    if (active && d == "if") {
      c.active = eval_if(where, args);
    } else if (active && expect_name(args, where, c.directive.c_str())) {
      c.active = (macros_.count(args[0].text) > 0) == (d == "ifdef");
      extra_tokens(args, 1, c.directive.c_str());
    }
    c.taken = c.active;
    frames_.back().conds.push_back(std::move(c));
  }

  void do_elif(Span where, const std::vector<Token>& args) {
    auto& conds = frames_.back().conds;
    if (conds.empty()) return sink_.error("unmatched-else", where, "#elif without #if");
    Cond& c = conds.back();  // stays valid: evaluating #if never opens files
    if (c.seen_else) report_after_else(where, "#elif", c);
    c.active = !c.seen_else && c.parent_active && !c.taken && eval_if(where, args);
    c.taken = c.taken || c.active;
  }

  void do_else(Span where, const std::vector<Token>& args) {
    auto& conds = frames_.back().conds;
    if (conds.empty()) return sink_.error("unmatched-else", where, "#else without #if");
    Cond& c = conds.back();
    if (c.seen_else) report_after_else(where, "#else", c);
    if (c.parent_active && !c.seen_else) extra_tokens(args, 0, "#else");
    c.active = !c.seen_else && c.parent_active && !c.taken;
    c.taken = c.seen_else = true;
    c.else_span = where;
  }

  void report_after_else(Span where, const char* directive, const Cond& c) {
    Diagnostic d{Severity::Error, "else-after-else", std::string(directive) + " after #else", where, {}};
    d.notes.push_back({c.else_span, "the earlier #else is here"});
    sink_.report(std::move(d));
  }

  void do_endif(Span where, const std::vector<Token>& args) {
    auto& conds = frames_.back().conds;
    if (conds.empty()) return sink_.error("unmatched-endif", where, "#endif without #if");
    if (conds.back().parent_active) extra_tokens(args, 0, "#endif");
    conds.pop_back();
  }

  bool eval_if(Span where, const std::vector<Token>& args) {
    std::vector<PPToken> pp;
    for (const Token& t : args) pp.push_back({t, nullptr});
    std::vector<PPToken> expanded = expand_list(std::move(pp), 1, true);
    if (stopped_) return false;
    auto value = IfExpr(expanded, where, sink_, macros_).evaluate();
    return value && *value != 0;
  }

  void do_define(Span where, const std::vector<Token>& args) {
    if (!expect_name(args, where, "#define")) return;
    const Token& name = args[0];
    if (name.text == "defined")
      return sink_.error("bad-directive", name.span, "'defined' cannot be used as a macro name");
    auto m = std::make_shared<Macro>();
    m->name = name.text;
    m->id = intern(name.text);
    m->def_span = name.span;
    m->self = std::make_shared<HideSet>(HideSet{m->id});
    std::size_t i = 1;
    auto bad = [&](std::size_t at, const std::string& msg) {
      sink_.error("bad-directive", at < args.size() ? args[at].span : where, msg);
    };
    if (i < args.size() && args[i].is(Tok::LParen) && !args[i].leading_space) {  // `F(` not `F (`
      m->function_like = true;
      for (bool empty = ++i < args.size() && args[i].is(Tok::RParen); !empty; ++i) {
        if (i >= args.size() || !args[i].is(Tok::Identifier)) return bad(i, "expected a macro parameter name");
        if (std::find(m->params.begin(), m->params.end(), args[i].text) != m->params.end())
          return bad(i, "duplicate macro parameter '" + args[i].text + "'");
        m->params.push_back(args[i++].text);
        if (i < args.size() && args[i].is(Tok::RParen)) break;
        if (i >= args.size() || !args[i].is(Tok::Comma)) return bad(i, "expected ',' or ')' in the parameter list");
      }
      ++i;  // the ')'
    }
    m->body.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    for (Token& t : m->body) t.at_line_start = false;
    if (!m->body.empty()) m->body[0].leading_space = false;
    for (const Token& t : m->body) {
      auto p = std::find(m->params.begin(), m->params.end(), t.text);
      bool is_param = t.is(Tok::Identifier) && p != m->params.end();
      m->param_index.push_back(is_param ? static_cast<int>(p - m->params.begin()) : -1);
    }
    for (std::size_t k = 0; k < m->body.size(); ++k) {
      const Token& t = m->body[k];
      if (m->function_like && t.is(Tok::Hash) && (k + 1 >= m->body.size() || m->param_index[k + 1] < 0))
        return sink_.error("bad-directive", t.span, "'#' is not followed by a macro parameter");
      if (t.is(Tok::HashHash) && (k == 0 || k + 1 == m->body.size()))
        return sink_.error("bad-directive", t.span, "'##' cannot appear at either end of a macro expansion");
    }
    auto old = macros_.find(m->name);
    if (old != macros_.end() && !same_definition(*old->second, *m)) {
      Diagnostic d{Severity::Warning, "macro-redefined", "'" + m->name + "' redefined", name.span, {}};
      if (old->second->def_span.valid()) d.notes.push_back({old->second->def_span, "previous definition is here"});
      sink_.report(std::move(d));
    }
    macros_[m->name] = std::move(m);
  }

  static bool same_definition(const Macro& a, const Macro& b) {
    if (a.function_like != b.function_like || a.params != b.params || a.body.size() != b.body.size()) return false;
    for (std::size_t k = 0; k < a.body.size(); ++k) {
      const Token &x = a.body[k], &y = b.body[k];
      if (x.kind != y.kind || x.text != y.text || x.leading_space != y.leading_space) return false;
    }
    return true;
  }

  void do_undef(Span where, const std::vector<Token>& args) {
    if (!expect_name(args, where, "#undef")) return;
    macros_.erase(args[0].text);
    extra_tokens(args, 1, "#undef");
  }

  std::vector<Token> expand_line(const std::vector<Token>& args) {
    std::vector<PPToken> pp;
    for (const Token& t : args) pp.push_back({t, nullptr});
    std::vector<Token> out;
    for (PPToken& t : expand_list(std::move(pp), 1)) out.push_back(std::move(t.tok));
    return out;
  }

  // The file name of an #include line, or nullopt after reporting why there is none.
  std::optional<std::string> include_name(const std::vector<Token>& args, Span where) {
    std::vector<Token> toks = args;
    if (!toks.empty() && !toks[0].is(Tok::String) && !toks[0].is(Tok::Less)) toks = expand_line(args);
    auto bad = [&](const char* msg) {
      sink_.error("bad-directive", where, msg);
      return std::nullopt;
    };
    std::size_t used = 1;
    std::string name;
    if (!toks.empty() && toks[0].is(Tok::String)) {
      name = toks[0].text;
    } else if (!toks.empty() && toks[0].is(Tok::Less)) {
      std::size_t g = 1;
      while (g < toks.size() && !toks[g].is(Tok::Greater)) ++g;
      if (g == toks.size()) return bad("missing '>' in #include");
      const Token &lt = toks[0], &gt = toks[g];
      if (lt.span.file == gt.span.file && !lt.macro_definition.valid() && !gt.macro_definition.valid()) {
        name = sm_.file(lt.span.file).text.substr(lt.span.offset + 1, gt.span.offset - lt.span.offset - 1);
      } else {  // the name came out of a macro: rebuild it from the tokens
        for (std::size_t k = 1; k < g; ++k) name += (k > 1 && toks[k].leading_space ? " " : "") + spell(toks[k]);
      }
      used = g + 1;
    } else {
      return bad("#include expects \"FILENAME\" or <FILENAME>");
    }
    if (name.empty()) return bad("empty file name in #include");
    if (toks.size() > used && toks[used].span.valid())
      sink_.warning("extra-tokens", toks[used].span, "extra tokens at end of #include directive");
    return name;
  }

  std::optional<fs::path> find_include(const std::string& name) const {
    fs::path p(name), dir = fs::path(sm_.file(frames_.back().file).path).parent_path();
    std::vector<fs::path> candidates{dir / p};  // `/` keeps p alone when p is absolute
    for (const auto& ip : options_.include_paths) candidates.push_back(fs::path(ip) / p);
    for (const auto& c : candidates) {
      std::error_code ec;
      if (fs::is_regular_file(c, ec)) return c;
    }
    return std::nullopt;
  }

  void do_include(Span where, const std::vector<Token>& args) {
    auto name = include_name(args, where);
    if (!name) return;
    auto found = find_include(*name);
    if (!found) return sink_.error("include-not-found", where, "cannot find include file '" + *name + "'");
    std::string key = canonical_key(found->string());
    if (once_.count(key)) return;
    auto id_it = loaded_.find(key);
    if (id_it != loaded_.end()) {
      const std::string& guard = lex_file(id_it->second)->guard;
      if (!guard.empty() && macros_.count(guard)) return;  // it would expand to nothing
    }
    for (const Frame& f : frames_) {
      if (f.key != key) continue;
      Diagnostic d{Severity::Error, "include-cycle", "#include of '" + *name + "' forms a cycle", where, {}};
      if (f.included_at.valid()) d.notes.push_back({f.included_at, "'" + *name + "' was first included here"});
      return sink_.report(std::move(d));
    }
    auto depth = std::count_if(frames_.begin(), frames_.end(), [](const Frame& f) { return f.is_file; });
    if (depth > options_.max_include_depth)
      return sink_.error("include-depth", where,
                         "#include nested too deeply (limit " + std::to_string(options_.max_include_depth) + ")");
    if (id_it == loaded_.end()) {
      std::string error;
      auto id = sm_.load(found->string(), &error);
      if (!id) return sink_.error("include-not-found", where, "cannot read include file '" + *name + "': " + error);
      id_it = loaded_.emplace(key, *id).first;
    }
    auto lexed = lex_file(id_it->second);
    included_tokens_ += lexed->tokens.size();
    if (++includes_ > kMaxIncludes || included_tokens_ > options_.max_output_tokens) {
      stopped_ = true;
      return sink_.error("too-many-includes", where, "too much included text; preprocessing stopped");
    }
    push_frame(id_it->second, key, where, std::move(lexed));
  }

  void do_line(Span where, const std::vector<Token>& args) {
    std::vector<Token> toks = expand_line(args);
    auto bad = [&](Span s, const std::string& msg) { sink_.error("bad-directive", s.valid() ? s : where, msg); };
    if (toks.empty() || !toks[0].is(Tok::Number))
      return bad(toks.empty() ? where : toks[0].span, "#line expects a line number");
    std::uint64_t n = 0;
    for (char c : toks[0].text) {
      if (c < '0' || c > '9') return bad(toks[0].span, "#line expects a whole line number, not '" + toks[0].text + "'");
      n = std::min<std::uint64_t>(n * 10 + unsigned(c - '0'), 1ull << 32);
    }
    if (n == 0 || n > 2147483647u) return bad(toks[0].span, "#line number out of range (1 to 2147483647)");
    std::string file;
    if (toks.size() > 1) {
      if (!toks[1].is(Tok::String)) return bad(toks[1].span, "#line expects a file name in quotes after the number");
      file = toks[1].text;
      if (toks.size() > 2) return bad(toks[2].span, "extra tokens at end of #line directive");
    }
    // The directive names the line after it; a file included twice must not record it twice.
    std::uint32_t from = args.back().span.line + 1;
    if (line_directives_.insert({where.file, from}).second)
      sm_.add_line_directive(where.file, from, static_cast<std::uint32_t>(n), std::move(file));
  }

  SourceManager& sm_;
  const PreprocessOptions& options_;
  DiagnosticSink& sink_;
  std::vector<Frame> frames_;
  std::vector<Token> out_;
  std::unordered_map<std::string, std::shared_ptr<const Macro>> macros_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  std::unordered_map<FileId, std::shared_ptr<const Lexed>> lexed_;
  std::unordered_map<std::string, FileId> loaded_;  // canonical path -> file
  std::unordered_set<std::string> once_;
  std::set<std::pair<FileId, std::uint32_t>> line_directives_;
  std::size_t work_ = 0;
  std::size_t includes_ = 0;
  std::size_t included_tokens_ = 0;
  bool stopped_ = false;
  bool nesting_reported_ = false;
};

}  // namespace

std::vector<Token> preprocess(SourceManager& sm, FileId main, const PreprocessOptions& options, DiagnosticSink& sink) {
  return Preprocessor(sm, options, sink).run(main);
}

}  // namespace passlab::lang
