// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU instruction set: names, lane arithmetic of swizzles and conditions, and the text form.
#include "backends/rpu/isa.h"

#include <bit>
#include <charconv>
#include <cmath>

namespace passlab::rpu {

const char* mnemonic(Opcode op) {
  switch (op) {
    case Opcode::None: return "";
    case Opcode::Mov: return "mov";
    case Opcode::Frac: return "frac";
    case Opcode::Add: return "add";
    case Opcode::Mul: return "mul";
    case Opcode::Mad: return "mad";
    case Opcode::Dp2h: return "dp2h";
    case Opcode::Dp3: return "dp3";
    case Opcode::Dp3h: return "dp3h";
    case Opcode::Dp4: return "dp4";
    case Opcode::Ddx: return "ddx";
    case Opcode::Ddy: return "ddy";
    case Opcode::Trace: return "trace";
    case Opcode::Load: return "load";
    case Opcode::Load4: return "load4";
    case Opcode::Store: return "store";
  }
  return "?";
}

int source_count(Opcode op) {
  switch (op) {
    case Opcode::Mov:
    case Opcode::Frac:
    case Opcode::Ddx:
    case Opcode::Ddy:
    case Opcode::Store: return 1;
    case Opcode::Add:
    case Opcode::Mul:
    case Opcode::Dp2h:
    case Opcode::Dp3:
    case Opcode::Dp3h:
    case Opcode::Dp4: return 2;
    case Opcode::Mad:
    case Opcode::Trace: return 3;
    default: return 0;
  }
}

Swizzle Swizzle::then(const Swizzle& inner) const {
  Swizzle out;
  for (int i = 0; i < 4; ++i) out.lane[static_cast<std::size_t>(i)] = inner.lane[lane[static_cast<std::size_t>(i)]];
  return out;
}

float Source::factor() const {
  const float f = std::ldexp(1.0f, scale);
  return negate ? -f : f;
}

bool passes(Test t, float x) {
  const float k = static_cast<float>(t.against);
  // Each relation and its negation are exact complements, NaN included, so a branch can be
  // inverted when code is laid out without changing what it does.
  switch (t.rel) {
    case Relation::Lt: return x < k;
    case Relation::Ge: return !(x < k);
    case Relation::Gt: return x > k;
    case Relation::Le: return !(x > k);
    case Relation::Eq: return x == k;
    case Relation::Ne: return !(x == k);
  }
  return false;
}

namespace {

Relation opposite(Relation r) {
  switch (r) {
    case Relation::Lt: return Relation::Ge;
    case Relation::Ge: return Relation::Lt;
    case Relation::Gt: return Relation::Le;
    case Relation::Le: return Relation::Gt;
    case Relation::Eq: return Relation::Ne;
    case Relation::Ne: return Relation::Eq;
  }
  return r;
}

const char* relation_text(Relation r) {
  switch (r) {
    case Relation::Lt: return "<";
    case Relation::Le: return "<=";
    case Relation::Gt: return ">";
    case Relation::Ge: return ">=";
    case Relation::Eq: return "=";
    case Relation::Ne: return "!=";
  }
  return "?";
}

constexpr char kLaneLetters[] = "xyzw";

}  // namespace

bool Condition::holds(const Vec4& result) const {
  if (always) return true;
  bool all_pass = true, some_pass = false;
  for (int i = 0; i < 4; ++i) {
    if (!(mask & (1u << i))) continue;
    const float x = result[static_cast<std::size_t>(i)];
    bool p = passes(tests[0], x);
    if (count > 1) p = tests_or ? (p || passes(tests[1], x)) : (p && passes(tests[1], x));
    all_pass = all_pass && p;
    some_pass = some_pass || p;
  }
  return any ? some_pass : all_pass;
}

Condition Condition::negated() const {
  Condition c = *this;
  if (always) {  // never: an impossible test on no lanes would read oddly; test w against both
    c.always = false;
    c.any = false;
    c.mask = kMaskW;
    c.count = 2;
    c.tests = {Test{Relation::Lt, 0}, Test{Relation::Ge, 0}};
    c.tests_or = false;
    return c;
  }
  c.any = !any;
  for (std::size_t i = 0; i < count; ++i) c.tests[i].rel = opposite(tests[i].rel);
  c.tests_or = !tests_or;
  return c;
}

Condition Condition::lane(std::uint8_t mask, Relation rel, std::uint8_t against, bool any) {
  Condition c;
  c.always = false;
  c.any = any;
  c.mask = mask;
  c.count = 1;
  c.tests[0] = {rel, against};
  return c;
}

// ---- text ----------------------------------------------------------------------------------

std::string register_name(Bank bank, std::uint32_t index) {
  switch (bank) {
    case Bank::R: return "R" + std::to_string(index);
    case Bank::C: return "C" + std::to_string(index);
    case Bank::Stack: return "S" + std::to_string(index);
    case Bank::Special: return "S";
    case Bank::I: return "I" + std::to_string(index);
    case Bank::A: return "A";
    case Bank::Hit: return "HIT";
    case Bank::HitTri: return "HIT_TRI";
    case Bank::HitObj: return "HIT_OBJ";
    case Bank::Virtual: return "%r" + std::to_string(index);
    default: return "?";
  }
}

std::string format_float(float x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string mask_text(std::uint8_t mask) {
  if (mask == kMaskAll) return "";
  std::string s = ".";
  for (int i = 0; i < 4; ++i)
    if (mask & (1u << i)) s += kLaneLetters[i];
  return s;
}

std::string swizzle_text(const Swizzle& s) {
  if (s.is_identity()) return "";
  int n = 4;
  while (n > 1 && s.lane[static_cast<std::size_t>(n - 1)] == s.lane[static_cast<std::size_t>(n - 2)]) --n;
  std::string out = ".";
  for (int i = 0; i < n; ++i) out += kLaneLetters[s.lane[static_cast<std::size_t>(i)]];
  return out;
}

std::string condition_text(const Condition& c) {
  if (c.always) return "";
  std::string s;
  if (std::popcount(static_cast<unsigned>(c.mask)) > 1) s += c.any ? "or " : "and ";
  for (int i = 0; i < 4; ++i)
    if (c.mask & (1u << i)) s += kLaneLetters[i];
  s += " (";
  for (std::size_t i = 0; i < c.count; ++i) {
    if (i) s += c.tests_or ? " or " : " and ";
    s += relation_text(c.tests[i].rel);
    s += std::to_string(c.tests[i].against);
  }
  return s + ")";
}

namespace {

std::string name_of(Bank bank, std::uint32_t index, const TextOptions& o) {
  if (bank == Bank::Virtual && o.name_virtual) return o.name_virtual(index, o.context);
  return register_name(bank, index);
}

std::string address_text(const Source& a, const TextOptions& o) {
  if (a.bank == Bank::A) return "A" + std::to_string(a.index);
  return name_of(a.bank, a.index, o);
}

}  // namespace

std::string to_text(const Source& s, const TextOptions& o) {
  if (s.bank == Bank::Literal) return format_float(s.literal_value());
  std::string out;
  if (s.negate) out += "-";
  if (s.scale == -1) out += "0.5*";
  if (s.scale == 1) out += "2*";
  if (s.scale == 2) out += "4*";
  out += name_of(s.bank, s.index, o);
  if (s.bank == Bank::Special || s.bank == Bank::A) {
    // S and A are read lane by lane: always name the lanes ("S.x").
    out += s.swizzle.is_identity() ? "" : swizzle_text(s.swizzle);
  } else {
    out += swizzle_text(s.swizzle);
  }
  return out;
}

std::string to_text(const Dest& d, const TextOptions& o) { return name_of(d.bank, d.index, o) + mask_text(d.mask); }

std::string to_text(const Operation& op, const TextOptions& o) {
  std::string s = mnemonic(op.op);
  switch (op.op) {
    case Opcode::None: return "";
    case Opcode::Load: return s + " " + to_text(op.dst, o) + ", " + address_text(op.address, o) + ", " + std::to_string(op.offset);
    case Opcode::Load4: return s + " " + address_text(op.address, o) + ", " + std::to_string(op.offset);
    case Opcode::Store:
      return s + " " + address_text(op.address, o) + ", " + std::to_string(op.offset) + ", " + to_text(op.src[0], o);
    case Opcode::Trace:
      return s + " " + to_text(op.src[0], o) + ", " + to_text(op.src[1], o) + ", " + to_text(op.src[2], o);
    default: break;
  }
  if (op.sat) s += "_sat";
  if (op.special == SpecialFn::Rcp) s += "_rcp";
  if (op.special == SpecialFn::Rsq) s += "_rsq";
  s += " " + to_text(op.dst, o);
  for (int k = 0; k < source_count(op.op); ++k) s += ", " + to_text(op.src[static_cast<std::size_t>(k)], o);
  return s;
}

std::string to_text(const Instruction& in, const TextOptions& o) {
  std::string s = to_text(in.primary, o);
  const Control& c = in.control;
  if (c.kind != ControlKind::None) {
    std::string ctl;
    switch (c.kind) {
      case ControlKind::Jmp: ctl = "jmp " + c.label; break;
      case ControlKind::Call:
        ctl = "call " + (c.target_reg.bank != Bank::None ? to_text(c.target_reg, o) : c.label) + " push " + std::to_string(c.push);
        break;
      case ControlKind::Return: ctl = "return"; break;
      default: break;
    }
    if (!c.cond.always) ctl += (c.kind == ControlKind::Return ? " " : ", ") + condition_text(c.cond);
    s = s.empty() ? ctl : s + " + " + ctl;
  }
  if (in.paired()) s += "\n|| " + to_text(in.secondary, o);
  return s;
}

std::uint8_t result_lanes(const Operation& op, const Condition* cond) {
  std::uint8_t lanes = op.dst.bank == Bank::None ? 0 : op.dst.mask;
  if (op.special != SpecialFn::None) lanes |= kMaskW;
  if (cond && !cond->always) lanes |= cond->mask;
  return lanes;
}

std::uint8_t source_lanes(const Operation& op, int k, std::uint8_t result) {
  std::uint8_t positions = 0;  // which positions of the swizzled source are read
  switch (op.op) {
    case Opcode::Mov:
    case Opcode::Frac:
    case Opcode::Ddx:
    case Opcode::Ddy:
    case Opcode::Add:
    case Opcode::Mul:
    case Opcode::Mad: positions = result; break;
    case Opcode::Dp2h: positions = k == 0 ? 0x7 : 0x3; break;
    case Opcode::Dp3: positions = 0x7; break;
    case Opcode::Dp3h: positions = k == 0 ? 0xF : 0x7; break;
    case Opcode::Dp4: positions = 0xF; break;
    case Opcode::Trace: positions = k == 2 ? 0xF : 0x7; break;
    case Opcode::Store: positions = 0xF; break;
    default: return 0;
  }
  if (is_dot(op.op) && result == 0) positions = 0;
  const Source& s = op.src[static_cast<std::size_t>(k)];
  std::uint8_t lanes = 0;
  for (int i = 0; i < 4; ++i)
    if (positions & (1u << i)) lanes |= static_cast<std::uint8_t>(1u << s.swizzle.lane[static_cast<std::size_t>(i)]);
  return lanes;
}

}  // namespace passlab::rpu
