// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU assembler: a hand-written line parser, then label resolution and the word rules.
#include "backends/rpu/assembler.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "backends/rpu/fp24.h"

namespace passlab::rpu {

std::optional<std::uint32_t> Program::entry(const std::string& name) const {
  auto it = labels.find(kEntryPrefix + name);
  if (it != labels.end()) return it->second;
  it = labels.find(name);
  if (it != labels.end()) return it->second;
  return std::nullopt;
}

std::string epts_text(const Program& p) {
  std::string s;
  for (const EntryPoint& e : p.entries) s += e.name + " " + std::to_string(e.address) + "\n";
  return s;
}

std::string constants_text(const std::map<std::uint32_t, Vec4>& constants) {
  std::string s;
  for (const auto& [index, v] : constants)
    s += ".const C" + std::to_string(index) + ", " + format_float(v[0]) + ", " + format_float(v[1]) + ", " + format_float(v[2]) + ", " + format_float(v[3]) + "\n";
  return s;
}

std::string listing_text(const Program& p) {
  std::multimap<std::uint32_t, std::string> at;
  for (const auto& [name, address] : p.labels) at.insert({address, name});
  std::string s = constants_text(p.constants);
  char buf[16];
  for (std::uint32_t a = 0; a <= p.code.size(); ++a) {
    auto [lo, hi] = at.equal_range(a);
    for (auto it = lo; it != hi; ++it) s += it->second + ":\n";
    if (a == p.code.size()) break;
    std::snprintf(buf, sizeof buf, "%04u  ", a);
    std::string text = to_text(p.code[a]);
    for (std::size_t pos = text.find('\n'); pos != std::string::npos; pos = text.find('\n', pos + 1)) text.insert(pos + 1, "      ");
    s += buf + text + "\n";
  }
  return s;
}

namespace {

struct Failure {};  // a diagnostic for this line has been reported

class LineParser {
 public:
  LineParser(std::string_view text, lang::FileId file, std::uint32_t line, std::uint32_t line_offset, lang::DiagnosticSink& sink)
      : s_(text), file_(file), line_(line), line_offset_(line_offset), sink_(sink) {}

  lang::Span span_at(std::size_t pos, std::size_t len = 1) const {
    return {file_, line_offset_ + static_cast<std::uint32_t>(pos), line_, static_cast<std::uint32_t>(pos + 1),
            static_cast<std::uint32_t>(std::max<std::size_t>(len, 1))};
  }
  [[noreturn]] void fail(std::size_t pos, const std::string& message, std::size_t len = 1) {
    sink_.error("rpu-asm", span_at(pos, len), message);
    throw Failure{};
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool at_end() {
    skip_space();
    return i_ >= s_.size();
  }
  std::size_t pos() {
    skip_space();
    return i_;
  }
  bool accept(std::string_view t) {
    skip_space();
    if (s_.substr(i_, t.size()) == t) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  void expect(std::string_view t, const char* what) {
    if (!accept(t)) fail(pos(), std::string("expected ") + what);
  }
  // Letters, digits and '_' (a name; no dots).
  std::string_view word() {
    skip_space();
    std::size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
    return s_.substr(b, i_ - b);
  }
  std::string_view peek_word() {
    std::size_t save = i_;
    std::string_view w = word();
    i_ = save;
    return w;
  }
  bool peek_number() {
    skip_space();
    std::size_t j = i_;
    if (j < s_.size() && (s_[j] == '-' || s_[j] == '+')) ++j;
    return j < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[j])) || s_[j] == '.');
  }
  float number() {
    skip_space();
    std::size_t b = i_;
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    std::string_view t = s_.substr(b, i_ - b);
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    float v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range && end == t.data() + t.size())
      fail(b, "'" + std::string(s_.substr(b, i_ - b)) + "' is outside the range of a float (write inf, or 0.0)", i_ - b);
    if (ec != std::errc() || end != t.data() + t.size()) fail(b, "'" + std::string(s_.substr(b, i_ - b)) + "' is not a number", i_ - b);
    return v;
  }
  long integer(const char* what) {
    skip_space();
    std::size_t b = i_;
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    std::string_view t = s_.substr(b, i_ - b);
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    long v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) fail(b, std::string("expected ") + what);
    return v;
  }

  // A register name and where it starts.
  struct Reg {
    Bank bank = Bank::None;
    std::uint32_t index = 0;
    bool lane_form = false;  // "A0".."A3": one lane of A
    std::size_t at = 0, length = 0;
  };
  Reg reg() {
    Reg r;
    r.at = pos();
    std::string_view w = word();
    r.length = w.size();
    if (w.empty()) fail(r.at, "expected a register or a number");
    auto numbered = [&](char prefix, Bank b, std::uint32_t count) {
      if (w.size() < 2 || w[0] != prefix) return false;
      std::uint32_t n = 0;
      for (char c : w.substr(1)) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        n = n * 10 + static_cast<std::uint32_t>(c - '0');
        if (n > 1000) break;
      }
      if (n >= count)
        fail(r.at, "there is no register " + std::string(w) + " (" + prefix + "0-" + prefix + std::to_string(count - 1) + ")", w.size());
      r.bank = b;
      r.index = n;
      return true;
    };
    if (w == "HIT") r.bank = Bank::Hit;
    else if (w == "HIT_TRI") r.bank = Bank::HitTri;
    else if (w == "HIT_OBJ") r.bank = Bank::HitObj;
    else if (w == "S") r.bank = Bank::Special;
    else if (w == "A") r.bank = Bank::A;
    else if (numbered('R', Bank::R, 16) || numbered('C', Bank::C, 32) || numbered('S', Bank::Stack, 8) || numbered('I', Bank::I, 4)) {
    } else if (numbered('A', Bank::A, 4)) r.lane_form = true;
    else fail(r.at, "unknown register '" + std::string(w) + "'", w.size());
    return r;
  }

  // ".xyz" after a register: lane letters, or none (nullopt).
  std::optional<std::string_view> lanes_suffix(std::size_t* at) {
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      *at = i_;
      std::size_t b = i_;
      while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
      std::string_view l = s_.substr(b, i_ - b);
      if (l.empty()) fail(b, "expected lane letters (x, y, z, w) after '.'");
      return l;
    }
    return std::nullopt;
  }
  static int lane_of(char c) {
    switch (c) {
      case 'x': return 0;
      case 'y': return 1;
      case 'z': return 2;
      case 'w': return 3;
      default: return -1;
    }
  }
  std::uint8_t mask_from(std::string_view l, std::size_t at) {
    std::uint8_t m = 0;
    int last = -1;
    for (std::size_t k = 0; k < l.size(); ++k) {
      int c = lane_of(l[k]);
      if (c < 0) fail(at + k, std::string("'") + l[k] + "' is not a lane (x, y, z or w)");
      if (c <= last) fail(at, "write-mask lanes must appear once each, in the order xyzw", l.size());
      last = c;
      m |= static_cast<std::uint8_t>(1u << c);
    }
    return m;
  }
  Swizzle swizzle_from(std::string_view l, std::size_t at) {
    if (l.size() > 4) fail(at, "a swizzle has at most four letters", l.size());
    Swizzle s;
    for (std::size_t k = 0; k < 4; ++k) {
      char ch = l[std::min(k, l.size() - 1)];
      int c = lane_of(ch);
      if (c < 0) fail(at + std::min(k, l.size() - 1), std::string("'") + ch + "' is not a lane (x, y, z or w)");
      s.lane[k] = static_cast<std::uint8_t>(c);
    }
    return s;
  }

  Dest dest() {
    Reg r = reg();
    Dest d;
    d.bank = r.bank;
    d.index = r.index;
    switch (r.bank) {
      case Bank::R:
      case Bank::Stack: break;
      case Bank::A:
        if (r.lane_form) fail(r.at, "write the address register as A with a mask (A.x), not A" + std::to_string(r.index), r.length);
        break;
      case Bank::C: fail(r.at, "constant registers are read-only", r.length);
      case Bank::I: fail(r.at, "I registers are written only by load", r.length);
      case Bank::Special: fail(r.at, "S is written by _rcp/_rsq; write the operation's own result to R15 (the junk register)", r.length);
      default: fail(r.at, register_name(r.bank, r.index) + " is read-only", r.length);
    }
    std::size_t at = 0;
    if (auto l = lanes_suffix(&at)) d.mask = mask_from(*l, at);
    return d;
  }

  Source source() {
    std::size_t at = pos();
    bool neg = false;
    if (s_.substr(i_, 1) == "-" && !(i_ + 1 < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '.'))) {
      neg = true;
      ++i_;
    }
    Source src;
    std::int8_t scale = 0;
    {
      // inf and nan, which folding can make.
      const std::string_view w = peek_word();
      if (w == "inf" || w == "nan") {
        word();
        const float v = w == "inf" ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
        return Source::lit(neg ? -v : v);
      }
    }
    if (peek_number()) {
      std::size_t num_at = pos();
      float v = number();
      if (!accept("*")) {
        src = Source::lit(neg ? -v : v);
        return src;
      }
      float mag = std::fabs(v);
      if (v < 0) neg = !neg;
      if (mag == 0.5f) scale = -1;
      else if (mag == 1.0f) scale = 0;
      else if (mag == 2.0f) scale = 1;
      else if (mag == 4.0f) scale = 2;
      else fail(num_at, "a source scale is 0.5, 1, 2 or 4 (with a sign)", i_ - num_at);
    }
    Reg r = reg();
    if (r.bank == Bank::HitTri || r.bank == Bank::HitObj) fail(r.at, register_name(r.bank, 0) + " holds an address: use it in load or store", r.length);
    if (r.bank == Bank::A) fail(r.at, "A holds addresses: use it in load or store", r.length);
    src.bank = r.bank;
    src.index = r.index;
    src.scale = scale;
    src.negate = neg;
    std::size_t lat = 0;
    if (auto l = lanes_suffix(&lat)) src.swizzle = swizzle_from(*l, lat);
    (void)at;
    return src;
  }

  Source address() {
    Reg r = reg();
    Source a;
    if (r.bank == Bank::HitTri || r.bank == Bank::HitObj) {
      a.bank = r.bank;
      return a;
    }
    if (r.bank == Bank::A) {
      a.bank = Bank::A;
      if (r.lane_form) {
        a.index = r.index;
        return a;
      }
      std::size_t at = 0;
      auto l = lanes_suffix(&at);
      if (!l || l->size() != 1 || lane_of((*l)[0]) < 0) fail(r.at, "name one lane of A: A0-A3 or A.x-A.w", r.length);
      a.index = static_cast<std::uint32_t>(lane_of((*l)[0]));
      return a;
    }
    fail(r.at, "an address is an A lane (A0-A3), HIT_TRI or HIT_OBJ", r.length);
  }

  Operation operation() {
    std::size_t at = pos();
    std::string_view w = word();
    if (w.empty()) fail(at, "expected an instruction");
    std::string_view base = w.substr(0, w.find('_'));
    Operation op;
    static const std::map<std::string_view, Opcode> ops = {
        {"mov", Opcode::Mov},   {"frac", Opcode::Frac},   {"add", Opcode::Add},   {"mul", Opcode::Mul},    {"mad", Opcode::Mad},
        {"dp2h", Opcode::Dp2h}, {"dp3", Opcode::Dp3},     {"dp3h", Opcode::Dp3h}, {"dp4", Opcode::Dp4},    {"ddx", Opcode::Ddx}, {"ddy", Opcode::Ddy}, {"trace", Opcode::Trace},
        {"load", Opcode::Load}, {"load4", Opcode::Load4}, {"store", Opcode::Store}};
    auto it = ops.find(base);
    if (it == ops.end()) fail(at, "unknown instruction '" + std::string(w) + "'", w.size());
    op.op = it->second;
    for (std::size_t p = base.size(); p < w.size();) {
      std::size_t next = w.find('_', p + 1);
      std::string_view mod = w.substr(p + 1, (next == std::string_view::npos ? w.size() : next) - p - 1);
      if (!is_arithmetic(op.op)) fail(at, std::string("'") + mnemonic(op.op) + "' takes no modifiers", w.size());
      if (mod == "sat" && !op.sat) op.sat = true;
      else if ((mod == "rcp" || mod == "rsq") && op.special == SpecialFn::None) op.special = mod == "rcp" ? SpecialFn::Rcp : SpecialFn::Rsq;
      else if (mod == "rcp" || mod == "rsq" || mod == "sat") fail(at, "at most one of _rcp/_rsq, and _sat once", w.size());
      else fail(at, "unknown modifier '_" + std::string(mod) + "' (use _sat, _rcp or _rsq)", w.size());
      p = next == std::string_view::npos ? w.size() : next;
    }
    switch (op.op) {
      case Opcode::Load: {
        Reg r = reg();
        if (r.bank != Bank::I) fail(r.at, "load writes an I register (I0-I3)", r.length);
        op.dst = {Bank::I, r.index, kMaskAll};
        expect(",", "','");
        op.address = address();
        expect(",", "','");
        op.offset = static_cast<std::int32_t>(integer("a word offset"));
        return op;
      }
      case Opcode::Load4:
        op.address = address();
        expect(",", "','");
        op.offset = static_cast<std::int32_t>(integer("a word offset"));
        return op;
      case Opcode::Store:
        op.address = address();
        expect(",", "','");
        op.offset = static_cast<std::int32_t>(integer("a word offset"));
        expect(",", "','");
        op.src[0] = source();
        return op;
      case Opcode::Trace:
        for (int k = 0; k < 3; ++k) {
          if (k) expect(",", "','");
          op.src[static_cast<std::size_t>(k)] = source();
        }
        return op;
      default: break;
    }
    op.dst = dest();
    if (op.dst.bank == Bank::A && (op.op != Opcode::Mov || op.sat || op.special != SpecialFn::None))
      fail(at, "the address register is written only by a plain mov", w.size());
    for (int k = 0; k < source_count(op.op); ++k) {
      expect(",", "','");
      op.src[static_cast<std::size_t>(k)] = source();
    }
    return op;
  }

  Condition condition() {
    Condition c;
    c.always = false;
    std::string_view w = peek_word();
    if (w == "and" || w == "or") {
      word();
      c.any = w == "or";
    }
    std::size_t at = pos();
    std::string_view lanes = word();
    if (lanes.empty()) fail(at, "expected the lanes to test (e.g. w or xyzw)");
    c.mask = mask_from(lanes, at);
    expect("(", "'(' and a test such as >=0");
    for (int k = 0; k < 2; ++k) {
      std::size_t tat = pos();
      Relation rel;
      if (accept("<=")) rel = Relation::Le;
      else if (accept(">=")) rel = Relation::Ge;
      else if (accept("!=")) rel = Relation::Ne;
      else if (accept("==") || accept("=")) rel = Relation::Eq;
      else if (accept("<")) rel = Relation::Lt;
      else if (accept(">")) rel = Relation::Gt;
      else fail(tat, "expected a test: <, <=, >, >=, = or != followed by 0 or 1");
      std::size_t nat = pos();
      long against = integer("0 or 1");
      if (against != 0 && against != 1) fail(nat, "lanes are tested against 0 or 1");
      c.tests[static_cast<std::size_t>(k)] = {rel, static_cast<std::uint8_t>(against)};
      c.count = static_cast<std::uint8_t>(k + 1);
      if (k == 0) {
        std::string_view j = peek_word();
        if (j == "and" || j == "or") {
          word();
          c.tests_or = j == "or";
          continue;
        }
        break;
      }
    }
    expect(")", "')'");
    return c;
  }

  // The control part after '+' (or alone on a line). Label references are resolved later.
  Control control(std::size_t* label_at) {
    Control c;
    std::size_t at = pos();
    std::string_view w = word();
    if (w == "jmp") {
      c.kind = ControlKind::Jmp;
      *label_at = pos();
      c.label = std::string(word());
      if (c.label.empty()) fail(*label_at, "expected a label after jmp");
    } else if (w == "call") {
      c.kind = ControlKind::Call;
      std::size_t t = pos();
      std::string_view name = peek_word();
      bool is_reg = false;
      {
        std::size_t save = i_;
        word();
        is_reg = i_ < s_.size() && s_[i_] == '.';
        i_ = save;
      }
      if (is_reg) {
        c.target_reg = source();
        const Swizzle& sw = c.target_reg.swizzle;
        if (sw.lane[0] != sw.lane[1] || sw.lane[1] != sw.lane[2] || sw.lane[2] != sw.lane[3] || c.target_reg.is_literal())
          fail(t, "call through a register names one lane holding the address, e.g. call HIT.w push 0");
      } else {
        *label_at = t;
        c.label = std::string(word());
        if (c.label.empty()) fail(t, "expected a label or a register lane after call");
        (void)name;
      }
      std::size_t pat = pos();
      if (word() != "push") fail(pat, "expected 'push n' after the call target");
      long n = integer("the stack shift n after push");
      if (n < 0 || n > 1 << 20) fail(pat, "push takes a shift from 0 up");
      c.push = static_cast<std::uint32_t>(n);
    } else if (w == "return") {
      c.kind = ControlKind::Return;
    } else {
      fail(at, "expected jmp, call or return", w.size());
    }
    accept(",");
    if (!at_end()) c.cond = condition();
    return c;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  lang::FileId file_;
  std::uint32_t line_;
  std::uint32_t line_offset_;
  lang::DiagnosticSink& sink_;
};

struct PendingLabel {
  std::size_t word;  // index of the instruction
  lang::Span span;
};

}  // namespace

std::optional<Program> assemble(const lang::SourceManager& sm, lang::FileId file, const AssembleOptions& options,
                                lang::DiagnosticSink& sink) {
  const Machine& machine = options.machine ? *options.machine : default_machine();
  const lang::SourceFile& src = sm.file(file);
  Program prog;
  std::map<std::string, lang::Span> label_spans;
  std::vector<PendingLabel> refs;
  bool ok = true;
  struct CountingSink : lang::DiagnosticSink {
    explicit CountingSink(lang::DiagnosticSink& s) : inner(s) {}
    void report(lang::Diagnostic d) override {
      if (d.severity == lang::Severity::Error) ++errors;
      inner.report(std::move(d));
    }
    lang::DiagnosticSink& inner;
    int errors = 0;
  } counting(sink);

  for (std::uint32_t ln = 1; ln <= src.line_count(); ++ln) {
    std::string_view text = src.line_text(ln);
    std::size_t semi = text.find(';');
    if (semi != std::string_view::npos) text = text.substr(0, semi);
    LineParser p(text, file, ln, src.line_starts[ln - 1], counting);
    try {
      // Labels: name ':' (several may precede one instruction).
      for (;;) {
        std::size_t save = p.i_;
        std::size_t at = p.pos();
        std::string_view w = p.word();
        if (!w.empty() && p.accept(":")) {
          std::string name(w);
          if (std::isdigit(static_cast<unsigned char>(name[0]))) p.fail(at, "a label starts with a letter or '_'", w.size());
          auto [it, fresh] = label_spans.insert({name, p.span_at(at, w.size())});
          if (!fresh) {
            counting.report({lang::Severity::Error, "rpu-asm", "label '" + name + "' is defined twice", p.span_at(at, w.size()),
                             {{it->second, "first defined here"}}});
          } else {
            prog.labels[name] = static_cast<std::uint32_t>(prog.code.size());
          }
          continue;
        }
        p.i_ = save;
        break;
      }
      if (p.at_end()) continue;
      std::size_t start = p.pos();
      if (p.accept(".const")) {
        // .const Cn, x, y, z, w: a constant the program sets when it is loaded.
        const std::size_t reg_at = p.pos();
        const std::string_view reg = p.word();
        int n = -1;
        if (reg.size() >= 2 && reg.size() <= 3 && reg[0] == 'C' && std::all_of(reg.begin() + 1, reg.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
          n = std::stoi(std::string(reg.substr(1)));
        if (n < 0 || n > 31) p.fail(reg_at, "'.const' sets a constant register, C0 to C31", std::max<std::size_t>(reg.size(), 1));
        Vec4 v{};
        for (float& x : v) {
          p.expect(",", "','");
          const bool neg = p.accept("-");
          const std::string_view w = p.peek_word();
          if (w == "inf" || w == "nan") {  // as listings print them
            p.word();
            x = w == "inf" ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
          } else if (p.peek_number()) {
            x = p.number();
          } else {
            p.fail(p.pos(), "expected a number");
          }
          if (neg) x = -x;
        }
        if (!p.at_end()) p.fail(p.pos(), "unexpected text after the constant");
        if (!prog.constants.emplace(static_cast<std::uint32_t>(n), v).second) p.fail(reg_at, "C" + std::to_string(n) + " is set twice", reg.size());
        continue;
      }
      if (p.accept("||")) {
        if (prog.code.empty()) p.fail(start, "'||' pairs with the instruction before it, and there is none", 2);
        Instruction& prev = prog.code.back();
        if (prev.paired()) p.fail(start, "that instruction already has a pair", 2);
        Operation second = p.operation();
        if (!p.at_end()) p.fail(p.pos(), "a paired half takes no control part; put it on the first line");
        std::string why = pair_problem(prev.primary, second, machine);
        if (!why.empty()) p.fail(start, "cannot pair: " + why, text.size() - start);
        prev.secondary = second;
        continue;
      }
      Instruction in;
      in.where = p.span_at(start, text.size() - start);
      std::string_view first = p.peek_word();
      std::size_t label_at = 0;
      if (first == "jmp" || first == "call" || first == "return") {
        in.control = p.control(&label_at);
        if (!in.control.cond.always)
          p.fail(start, "a condition tests the result of an operation: write 'op dest, ... + " + std::string(first) + " ..., cond'",
                 text.size() - start);
      } else {
        in.primary = p.operation();
        if (p.accept("+")) {
          std::size_t cat = p.pos();
          in.control = p.control(&label_at);
          if (!in.control.cond.always && !is_arithmetic(in.primary.op))
            p.fail(cat, std::string("'") + mnemonic(in.primary.op) + "' has no result for a condition to test");
        }
        if (!p.at_end()) p.fail(p.pos(), "unexpected text after the instruction");
      }
      if (in.control.kind == ControlKind::Jmp || (in.control.kind == ControlKind::Call && in.control.target_reg.bank == Bank::None))
        refs.push_back({prog.code.size(), p.span_at(label_at, in.control.label.size())});
      if (stack_reads(in) > 1) p.fail(start, "the stack has one read port: an instruction can read one stack slot (copy one to R first)", text.size() - start);
      if (machine.fp24)
        for (const Operation* op : {&in.primary, &in.secondary})
          for (int k = 0; k < source_count(op->op); ++k) {
            const Source& src = op->src[static_cast<std::size_t>(k)];
            const float v = src.literal_value();
            if (!src.is_literal() || !std::isfinite(v) || v == 0) continue;
            const float r = round_fp24(v);
            if (std::isinf(r))
              p.fail(start, "the literal " + format_float(v) + " is beyond the RPU's 24-bit floats (the largest is about 1.8e19): write inf if "
                            "infinity is meant, or assemble for an IEEE machine (--ieee)", text.size() - start);
            if (r == 0)
              p.fail(start, "the literal " + format_float(v) + " is below the RPU's smallest 24-bit float (about 2.2e-19) and would be 0: "
                            "write 0.0 if that is meant, or assemble for an IEEE machine (--ieee)", text.size() - start);
          }
      if (machine.literals_per_instruction >= 0 && literal_count(in) > machine.literals_per_instruction)
        p.fail(start, "this machine allows " + std::to_string(machine.literals_per_instruction) + " literal(s) per instruction", text.size() - start);
      prog.code.push_back(std::move(in));
    } catch (const Failure&) {
      ok = false;
    }
  }
  for (const PendingLabel& r : refs) {
    Control& c = prog.code[r.word].control;
    auto it = prog.labels.find(c.label);
    if (it == prog.labels.end()) {
      counting.error("rpu-asm", r.span, "undefined label '" + c.label + "'");
      continue;
    }
    c.target = it->second;
  }
  for (const auto& [name, address] : prog.labels)
    if (name.rfind(kEntryPrefix, 0) == 0) prog.entries.push_back({name.substr(std::string(kEntryPrefix).size()), address});
  std::stable_sort(prog.entries.begin(), prog.entries.end(), [](const EntryPoint& a, const EntryPoint& b) { return a.address < b.address; });
  if (!ok || counting.errors > 0) return std::nullopt;
  return prog;
}

}  // namespace passlab::rpu
