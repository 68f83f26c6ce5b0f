// SPDX-License-Identifier: GPL-3.0-or-later
// The nvparse checker: a scanner as nvparse's (comments // # /* */, numbers without exponents,
// register names whose .rgb/.a/.b suffix is part of the word), then a recursive-descent parse of
// the RC1.0 or TS1.0 grammar with the checks nvparse and the drivers make.
#include "backends/combiners/nvparse_check.h"

#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace passlab::combiners {

namespace {

enum class Tok { Word, Number, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // a word (with its suffix), a number's spelling, or the punctuation character
  int line = 1;
};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const std::set<std::string>& register_names() {
  static const std::set<std::string> names = {"tex0", "tex1", "tex2", "tex3", "col0", "col1", "spare0", "spare1", "fog", "const0", "const1", "zero", "one", "out"};
  return names;
}

// Scans `text` after its header. Problems (unterminated comments, characters outside the
// language) go to `problems`.
std::vector<Token> scan(std::string_view text, std::vector<NvparseProblem>& problems) {
  std::vector<Token> out;
  int line = 1;
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return k < text.size() ? text[k] : '\0'; };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#' || (c == '/' && at(i + 1) == '/')) {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i == text.size()) problems.push_back({line, "a comment on the last line needs a newline after it (nvparse's scanner reads past the end)"});
      continue;
    }
    if (c == '/' && at(i + 1) == '*') {
      const int start = line;
      i += 2;
      while (i < text.size() && !(text[i] == '*' && at(i + 1) == '/')) line += text[i++] == '\n';
      if (i >= text.size()) {
        problems.push_back({start, "a /* comment that never ends"});
        break;
      }
      i += 2;
      continue;
    }
    const bool sign = (c == '-' || c == '+') && (std::isdigit(static_cast<unsigned char>(at(i + 1))) || (at(i + 1) == '.' && std::isdigit(static_cast<unsigned char>(at(i + 2)))));
    if (std::isdigit(static_cast<unsigned char>(c)) || sign || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
      std::size_t j = i + (sign ? 1 : 0);
      while (std::isdigit(static_cast<unsigned char>(at(j)))) ++j;
      if (at(j) == '.') {
        ++j;
        while (std::isdigit(static_cast<unsigned char>(at(j)))) ++j;
      }
      out.push_back({Tok::Number, std::string(text.substr(i, j - i)), line});
      i = j;
      continue;
    }
    if (word_char(c)) {
      std::size_t j = i;
      while (j < text.size() && word_char(text[j])) ++j;
      std::string w(text.substr(i, j - i));
      // A register's portion is part of its name, the longest of .rgb, .a and .b that follows.
      if (register_names().count(w) && at(j) == '.') {
        for (const char* suffix : {"rgb", "a", "b"}) {
          const std::string_view s(suffix);
          if (text.substr(j + 1, s.size()) == s) {
            w += "." + std::string(s);
            j += 1 + s.size();
            break;
          }
        }
      }
      out.push_back({Tok::Word, w, line});
      i = j;
      continue;
    }
    if (std::string_view("{}()[];,.*-+=").find(c) != std::string_view::npos) {
      out.push_back({Tok::Punct, std::string(1, c), line});
      ++i;
      continue;
    }
    problems.push_back({line, fmt::format("'{}' is not part of nvparse's language (nvparse would ignore it)", c)});
    ++i;
  }
  out.push_back({Tok::End, "", line});
  return out;
}

struct Failed {};  // a syntax error has been reported

class Parser {
 public:
  Parser(std::vector<Token> toks, std::vector<NvparseProblem>& problems) : t_(std::move(toks)), problems_(problems) {}

 protected:
  const Token& peek(std::size_t k = 0) const { return t_[std::min(pos_ + k, t_.size() - 1)]; }
  bool is(const char* text, std::size_t k = 0) const { return peek(k).kind != Tok::End && peek(k).text == text; }
  Token take() { return t_[std::min(pos_++, t_.size() - 1)]; }
  void error(int line, std::string message) { problems_.push_back({line, std::move(message)}); }
  [[noreturn]] void syntax(const std::string& expected) {
    const Token& k = peek();
    error(k.line, k.kind == Tok::End ? "expected " + expected + " before the end of the program"
                                     : fmt::format("expected {}, found '{}'", expected, k.text));
    throw Failed{};
  }
  Token expect(const char* text) {
    if (!is(text)) syntax(std::string("'") + text + "'");
    return take();
  }
  float number() {
    if (peek().kind != Tok::Number) syntax("a number (nvparse reads no exponents)");
    return std::stof(take().text);
  }

  std::vector<Token> t_;
  std::size_t pos_ = 0;
  std::vector<NvparseProblem>& problems_;
};

// ---- !!RC1.0 --------------------------------------------------------------------------------

// A register as written: its name and portion suffix ("" when bare).
struct Reg {
  std::string name, suffix;
  int line = 0;
};

Reg split(const Token& t) {
  const std::size_t dot = t.text.find('.');
  if (dot == std::string::npos) return {t.text, "", t.line};
  return {t.text.substr(0, dot), t.text.substr(dot + 1), t.line};
}

bool read_only(const std::string& r) { return r == "fog" || r == "const0" || r == "const1" || r == "zero" || r == "one"; }

class RcParser : public Parser {
 public:
  RcParser(std::vector<Token> toks, std::vector<NvparseProblem>& problems, const NvparseOptions& o, NvparseFacts& facts)
      : Parser(std::move(toks), problems), o_(o), facts_(facts) {}

  void run() {
    try {
      std::array<bool, 2> global{false, false};
      for (int k = 0; k < 2 && (is("const0") || is("const1")); ++k) constant(global, "global");
      int stages = 0;
      bool locals = false;
      std::vector<std::array<bool, 2>> stage_sets, stage_reads;
      while (is("{")) {
        const int line = take().line;
        ++stages;
        facts_.general_combiners = stages;
        if (stages == o_.general_combiners + 1)
          error(line, fmt::format("more than {} general combiner stage{} (the card has {})", o_.general_combiners, o_.general_combiners == 1 ? "" : "s",
                                  o_.general_combiners));
        std::array<bool, 2> local{false, false};
        for (int k = 0; k < 2 && (is("const0") || is("const1")); ++k) {
          if (!o_.per_stage_constants)
            error(peek().line, "a per-stage constant needs NV_register_combiners2 (nvparse ignores it on this card): set it before the first stage");
          constant(local, "local");
          locals = true;
        }
        reads_ = {false, false};
        std::set<std::string> seen;
        int portions = 0;
        while (is("rgb") || is("alpha")) {
          const Token p = take();
          if (!seen.insert(p.text).second) error(p.line, "the " + p.text + " portion is declared twice");
          portion(p.text == "rgb");
          ++portions;
        }
        if (portions == 0) syntax("'rgb {' or 'alpha {' (a stage needs a portion)");
        expect("}");
        stage_sets.push_back(local);
        stage_reads.push_back(reads_);
      }
      reads_ = {false, false};
      final_combiner();
      if (peek().kind != Tok::End) syntax("the end of the program (a file holds one program)");
      // Every constant read is set by this program: per stage when any stage sets its own (nvparse
      // copies the global ones into the others), else globally; the final combiner's globally.
      const bool per_stage = locals && o_.per_stage_constants;
      for (std::size_t s = 0; s < stage_reads.size(); ++s)
        for (int k = 0; k < 2; ++k)
          if (stage_reads[s][static_cast<std::size_t>(k)] && !global[static_cast<std::size_t>(k)] && !(per_stage && stage_sets[s][static_cast<std::size_t>(k)]))
            error(0, fmt::format("stage {} reads const{}, which the program does not set{}", s, k, per_stage ? " for that stage" : ""));
      for (int k = 0; k < 2; ++k)
        if (reads_[static_cast<std::size_t>(k)] && !global[static_cast<std::size_t>(k)])
          error(0, fmt::format("the final combiner reads const{}, which the program does not set before the first stage", k));
    } catch (const Failed&) {
    }
  }

 private:
  void constant(std::array<bool, 2>& set, const char* where) {
    const Token name = take();
    const std::size_t k = name.text == "const1" ? 1 : 0;
    if (set[k]) error(name.line, fmt::format("{} constant {} is set twice", where, name.text));
    set[k] = true;
    expect("=");
    expect("(");
    for (int i = 0; i < 4; ++i) {
      const float v = number();
      if (v < 0 || v > 1) error(name.line, fmt::format("{} = {}: GL clamps constant colours to [0, 1]", name.text, v));
      if (i < 3) expect(",");
    }
    expect(")");
    expect(";");
  }

  // A register operand; `final` allows color_sum and final_product.
  Reg reg(bool final) {
    const Token& k = peek();
    if (k.kind != Tok::Word) syntax("a register");
    const Reg r = split(k);
    const bool known = register_names().count(r.name) && r.name != "out";
    const bool final_only = r.name == "color_sum" || r.name == "final_product";
    if (!known && !(final && final_only) && r.name != "discard") syntax("a register");
    if (r.name == "one") error(k.line, "write unsigned_invert(zero) for 1: some nvparse versions pass 'one' to the driver unchanged");
    if (r.name == "discard" && !r.suffix.empty()) syntax("a register ('discard' takes no portion)");
    if (r.name == "const0") reads_[0] = true;
    if (r.name == "const1") reads_[1] = true;
    take();
    return r;
  }

  // A general combiner input: R, -R, expand(R), -expand(R), half_bias(R), -half_bias(R),
  // unsigned(R), unsigned_invert(R).
  Reg general_input(bool rgb) {
    bool neg = false;
    if (is("-")) {
      take();
      neg = true;
    }
    Reg r;
    if (is("expand") || is("half_bias") || is("unsigned") || is("unsigned_invert")) {
      const Token f = take();
      if (neg && (f.text == "unsigned" || f.text == "unsigned_invert")) {
        error(f.line, "'-" + f.text + "(…)' is not a mapping (negate a register, expand() or half_bias())");
        throw Failed{};
      }
      expect("(");
      r = reg(false);
      expect(")");
    } else {
      r = reg(false);
    }
    if (r.name == "discard") error(r.line, "reading from discard");
    if (rgb && r.suffix == "b") error(r.line, "the blue register (.b) is read in an rgb portion");
    if (!rgb && r.suffix == "rgb") error(r.line, "an rgb register is read in an alpha portion");
    if (r.name == "fog" && (r.suffix == "a" || (!rgb && r.suffix.empty())))
      error(r.line, "fog.a is the final combiner's (the general combiners have no fog alpha)");
    return r;
  }

  enum class Kind { Mul, Dot, Sum, Mux };

  void portion(bool rgb) {
    expect("{");
    std::vector<Kind> ops;
    std::set<std::string> written;
    while (peek().kind == Tok::Word && split(peek()).name != "out" && (register_names().count(split(peek()).name) || peek().text == "discard") && is("=", 1)) {
      const Reg out = split(take());
      take();  // =
      Kind kind = Kind::Mul;
      if (is("sum") || is("mux")) {
        kind = take().text == "sum" ? Kind::Sum : Kind::Mux;
        expect("(");
        expect(")");
      } else {
        general_input(rgb);
        if (is(".") || is("*")) {
          kind = take().text == "." ? Kind::Dot : Kind::Mul;
          general_input(rgb);
        }
      }
      expect(";");
      if (read_only(out.name)) error(out.line, "writing to a read-only register (" + out.name + ")");
      if (out.name != "discard" && !written.insert(out.name).second) error(out.line, "writing to " + out.name + " twice in one portion");
      if (rgb && out.suffix == "b") error(out.line, "the blue register (.b) is written in an rgb portion");
      if (!rgb && out.suffix == "rgb") error(out.line, "an rgb register is written in an alpha portion");
      if (!rgb && kind == Kind::Dot) error(out.line, "a dot product in an alpha portion");
      ops.push_back(kind);
    }
    // One or two products (dot or not), or two plain products and their sum or mux.
    const bool ok = (ops.size() == 1 && (ops[0] == Kind::Mul || ops[0] == Kind::Dot)) ||
                    (ops.size() == 2 && ops[0] != Kind::Sum && ops[0] != Kind::Mux && ops[1] != Kind::Sum && ops[1] != Kind::Mux) ||
                    (ops.size() == 3 && ops[0] == Kind::Mul && ops[1] == Kind::Mul && (ops[2] == Kind::Sum || ops[2] == Kind::Mux));
    if (!ok) {
      error(peek().line, ops.empty() ? "a portion needs a statement"
                                     : "nvparse writes sum() and mux() only after two products that are not dot products, and at most two products");
      throw Failed{};
    }
    if (is("scale_by_two") || is("scale_by_four") || is("scale_by_one_half") || is("bias_by_negative_one_half") ||
        is("bias_by_negative_one_half_scale_by_two")) {
      take();
      expect("(");
      expect(")");
      expect(";");
    }
    expect("}");
  }

  // A final combiner input: R, unsigned(R) or unsigned_invert(R).
  Reg final_input() {
    if (is("unsigned") || is("unsigned_invert")) {
      take();
      expect("(");
      const Reg r = reg(true);
      expect(")");
      return r;
    }
    if (is("-") || is("expand") || is("half_bias")) {
      error(peek().line, "the final combiner's inputs are unsigned: R, unsigned(R) or unsigned_invert(R)");
      throw Failed{};
    }
    return reg(true);
  }

  void final_combiner() {
    bool clamp = false, product = false, used_product = false;
    while (is("clamp_color_sum") || is("final_product")) {
      const Token k = take();
      if (k.text == "clamp_color_sum") {
        if (clamp) error(k.line, "clamp_color_sum() is given twice");
        clamp = true;
        expect("(");
        expect(")");
        expect(";");
        continue;
      }
      if (product) error(k.line, "final_product is set twice");
      product = true;
      expect("=");
      for (int i = 0; i < 2; ++i) {
        const Reg r = final_input();
        if (r.name == "color_sum" || r.name == "final_product" || r.name == "discard") error(r.line, "final_product cannot read " + r.name);
        if (r.suffix == "b") error(r.line, "final_product cannot read a blue register (.b)");
        if (i == 0) expect("*");
      }
      expect(";");
    }
    bool rgb = false, alpha = false;
    while (is("out.rgb") || is("out.a")) {
      const Token k = take();
      const bool is_rgb = k.text == "out.rgb";
      if ((is_rgb && rgb) || (!is_rgb && alpha)) error(k.line, k.text + " is set twice");
      (is_rgb ? rgb : alpha) = true;
      expect("=");
      std::vector<Reg> ins;
      if (!is_rgb) {
        ins.push_back(final_input());
        for (const Reg& r : ins) {
          if (r.name == "color_sum" || r.name == "final_product" || r.name == "discard") error(r.line, "out.a cannot read " + r.name);
          if (r.suffix == "rgb") error(r.line, "out.a cannot read an rgb register");
        }
      } else {
        auto lerp = [&] {
          take();
          expect("(");
          const Reg a = final_input();
          if (a.name == "color_sum") error(a.line, "lerp's first argument (variable A) cannot be color_sum");
          ins.push_back(a);
          expect(",");
          ins.push_back(final_input());
          expect(",");
          ins.push_back(final_input());
          expect(")");
        };
        if (is("lerp")) {
          lerp();
          if (is("+")) {
            take();
            ins.push_back(final_input());
          }
        } else {
          ins.push_back(final_input());
          if (is("*")) {
            take();
            ins.push_back(final_input());
            if (is("+")) {
              take();
              ins.push_back(final_input());
            }
          } else if (is("+")) {
            take();
            if (is("lerp")) lerp();
            else ins.push_back(final_input());
          }
        }
        for (const Reg& r : ins) {
          if (r.suffix == "b") error(r.line, "out.rgb cannot read a blue register (.b)");
          if (r.name == "discard") error(r.line, "out.rgb cannot read discard");
        }
      }
      for (const Reg& r : ins) used_product = used_product || r.name == "final_product";
      expect(";");
    }
    if (!rgb && !alpha) syntax("'out.rgb =' or 'out.a =' (the final combiner needs one)");
    if (used_product && !product) error(0, "final_product is read but never set");
  }

  const NvparseOptions& o_;
  NvparseFacts& facts_;
  std::array<bool, 2> reads_{false, false};
};

// ---- !!TS1.0 --------------------------------------------------------------------------------

enum class Args { None, Cull, Unit, Dot, Offset, OffsetScale, DotEye };

struct TsOp {
  Args args;
  int k = 0, n = 0;    // KofN of a dot-product group (0: none)
  bool output = true;  // whether the unit's result can be read
};

const std::map<std::string, TsOp>& ts_ops() {
  static const std::map<std::string, TsOp> ops = [] {
    std::map<std::string, TsOp> m;
    for (const char* s : {"nop", "cull_fragment"}) m[s] = {s[0] == 'n' ? Args::None : Args::Cull, 0, 0, false};
    for (const char* s : {"texture_1d", "texture_2d", "texture_rectangle", "texture_3d", "texture_cube_map", "pass_through"}) m[s] = {Args::None};
    m["offset_2d"] = m["offset_rectangle"] = {Args::Offset};
    m["offset_2d_scale"] = m["offset_rectangle_scale"] = {Args::OffsetScale};
    m["dependent_ar"] = m["dependent_gb"] = {Args::Unit};
    for (const char* f : {"dot_product_2d", "dot_product_rectangle", "dot_product_depth_replace"}) {
      m[std::string(f) + "_1of2"] = {Args::Dot, 1, 2, false};
      m[std::string(f) + "_2of2"] = {Args::Dot, 2, 2, true};
    }
    for (const char* f : {"dot_product_3d", "dot_product_cube_map", "dot_product_reflect_cube_map_eye_from_qs", "dot_product_reflect_cube_map_const_eye",
                          "dot_product_cube_map_and_reflect_cube_map_eye_from_qs", "dot_product_cube_map_and_reflect_cube_map_const_eye"}) {
      const std::string family(f);
      const bool eye = family.find("const_eye") != std::string::npos;
      const bool both = family.find("_and_") != std::string::npos;
      m[family + "_1of3"] = {eye ? Args::DotEye : Args::Dot, 1, 3, false};
      m[family + "_2of3"] = {Args::Dot, 2, 3, both};
      m[family + "_3of3"] = {Args::Dot, 3, 3, true};
    }
    return m;
  }();
  return ops;
}

// "dot_product_2d" of "dot_product_2d_1of2".
std::string family_of(const std::string& op) {
  const std::size_t n = op.size();
  return n > 5 && op[n - 5] == '_' && op.compare(n - 3, 2, "of") == 0 ? op.substr(0, n - 5) : op;
}

class TsParser : public Parser {
 public:
  TsParser(std::vector<Token> toks, std::vector<NvparseProblem>& problems, const NvparseOptions& o, NvparseFacts& facts)
      : Parser(std::move(toks), problems), o_(o), facts_(facts) {}

  void run() {
    struct Unit {
      std::string op;
      TsOp info;
      int ref = -1;
      int line = 0;
    };
    std::vector<Unit> units;
    try {
      while (peek().kind != Tok::End) {
        const Token name = take();
        auto it = ts_ops().find(name.text);
        if (name.kind != Tok::Word || it == ts_ops().end()) {
          error(name.line, fmt::format("'{}' is not a texture shader operation", name.text));
          throw Failed{};
        }
        Unit u{name.text, it->second, -1, name.line};
        ++facts_.texture_units;
        expect("(");
        switch (u.info.args) {
          case Args::None: break;
          case Args::Cull:
            for (int i = 0; i < 4; ++i) {
              if (!is("GEQUAL_TO_ZERO") && !is("LESS_THAN_ZERO")) syntax("GEQUAL_TO_ZERO or LESS_THAN_ZERO");
              take();
              if (i < 3) expect(",");
            }
            break;
          case Args::Unit: u.ref = unit(false); break;
          case Args::Dot: u.ref = unit(true); break;
          case Args::DotEye:
          case Args::Offset:
          case Args::OffsetScale: {
            u.ref = unit(u.info.args == Args::DotEye);
            const int count = u.info.args == Args::DotEye ? 3 : u.info.args == Args::Offset ? 4 : 6;
            for (int i = 0; i < count; ++i) {
              expect(",");
              number();
            }
            break;
          }
        }
        expect(")");
        expect(";");
        units.push_back(u);
      }
    } catch (const Failed&) {
      return;
    }
    if (units.empty()) error(0, "a texture shader program needs a statement");
    if (static_cast<int>(units.size()) > o_.texture_units) error(units[static_cast<std::size_t>(o_.texture_units)].line, fmt::format("more than {} texture units", o_.texture_units));
    for (std::size_t i = 0; i < units.size(); ++i) {
      const Unit& u = units[i];
      // A dot-product group: K of N in consecutive units of one family, complete (each unit
      // checks its neighbours: the one before is K-1 of N, the one after K+1 of N).
      const int first = static_cast<int>(i) - (u.info.n > 0 ? u.info.k - 1 : 0);
      if (u.info.n > 0) {
        auto member = [&](int at, int k) {
          return at >= 0 && at < static_cast<int>(units.size()) && units[static_cast<std::size_t>(at)].info.k == k &&
                 units[static_cast<std::size_t>(at)].info.n == u.info.n && family_of(units[static_cast<std::size_t>(at)].op) == family_of(u.op);
        };
        const int here = static_cast<int>(i);
        if (u.info.k > 1 && !member(here - 1, u.info.k - 1))
          error(u.line, fmt::format("{} needs {}_{}of{} in the unit before it", u.op, family_of(u.op), u.info.k - 1, u.info.n));
        if (u.info.k < u.info.n && !member(here + 1, u.info.k + 1))
          error(u.line, fmt::format("{} needs {}_{}of{} in the unit after it", u.op, family_of(u.op), u.info.k + 1, u.info.n));
      }
      if (u.ref < 0) continue;
      if (i == 0) error(u.line, u.op + " cannot be in unit 0: it reads an earlier unit");
      else if (u.ref >= first) error(u.line, fmt::format("{} in unit {} reads tex{}, which is not before its group (unit {})", u.op, i, u.ref, first));
      else if (!units[static_cast<std::size_t>(u.ref)].info.output)
        error(u.line, fmt::format("{} reads tex{}, whose {} has no output", u.op, u.ref, units[static_cast<std::size_t>(u.ref)].op));
    }
  }

 private:
  // tex0, tex1 or tex2 (the last unit cannot be read), or expand(texN) for dot products.
  int unit(bool expand_allowed) {
    bool expand = false;
    if (is("expand")) {
      if (!expand_allowed) syntax("tex0, tex1 or tex2 (expand() is for dot products)");
      take();
      expect("(");
      expand = true;
    }
    int r = -1;
    if (is("tex0")) r = 0;
    else if (is("tex1")) r = 1;
    else if (is("tex2")) r = 2;
    else syntax("tex0, tex1 or tex2");
    take();
    if (expand) expect(")");
    return r;
  }

  const NvparseOptions& o_;
  NvparseFacts& facts_;
};

}  // namespace

std::vector<NvparseProblem> check_nvparse(std::string_view text, const NvparseOptions& options, NvparseFacts* facts) {
  std::vector<NvparseProblem> problems;
  const bool rc = text.substr(0, 7) == "!!RC1.0", ts = text.substr(0, 7) == "!!TS1.0";
  if (!rc && !ts) {
    problems.push_back({1, "the program must begin with !!RC1.0 or !!TS1.0 (nvparse dispatches on its first characters; nothing may come before them)"});
    return problems;
  }
  std::vector<Token> toks = scan(text.substr(7), problems);
  for (const std::string_view header : {"!!RC1.0", "!!TS1.0", "!!VP1.0", "!!ARBvp1.0", "!!ARBfp1.0"})
    if (std::size_t at = text.find(header, 1); at != std::string_view::npos) {
      int line = 1;
      for (std::size_t k = 0; k < at; ++k) line += text[k] == '\n';
      problems.push_back({line, "a second program (" + std::string(header) + "): a file holds one"});
      break;
    }
  NvparseFacts ignored;
  NvparseFacts& f = facts ? *facts : ignored;
  f = {};
  if (rc) RcParser(std::move(toks), problems, options, f).run();
  else TsParser(std::move(toks), problems, options, f).run();
  return problems;
}

std::string to_text(const std::vector<NvparseProblem>& problems) {
  std::string out;
  for (const NvparseProblem& p : problems) out += (p.line > 0 ? std::to_string(p.line) + ": " : "") + p.message + "\n";
  return out;
}

}  // namespace passlab::combiners
