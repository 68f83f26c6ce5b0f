// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU instruction set (Węgrzanowski 2006, ch. 2): opcodes, operands with swizzles and
// power-of-two scales, write masks, _sat/_rcp/_rsq, paired control with lane conditions, 3/1 and
// 2/2 pairs, and the text of the thesis's assembly syntax.
//
// One instruction word holds a primary operation (arithmetic, trace, load or store), optionally
// a second arithmetic half paired with it (3/1: xyz + w, or 2/2: xy + zw; the thesis names the
// pairs, Passlab executes them), and optionally a control part (jmp, call, return) whose
// condition tests the lanes of the primary's result:
//
//   add R15.w, 0.0, -R2.w + jmp L17, w (>=0)
//   mul R0.xyz, R1.yzx, R2.zxy
//   || add R3.w, R3.w, 1.0
//
// The same structures describe the compiler's assembly with virtual registers (Bank::Virtual),
// so every stage after code generation prints and reads like the final listing.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>

#include "core/lang/source.h"

namespace passlab::rpu {

using Vec4 = std::array<float, 4>;

enum class Opcode : std::uint8_t {
  None,  // no primary operation: a word that only jumps, calls or returns
  Mov, Frac, Add, Mul, Mad, Dp2h, Dp3, Dp3h, Dp4,
  Ddx, Ddy,  // Passlab's extension: the difference across the pixel quad (see derivatives in vm.h)
  Trace,  // trace origin, direction, arguments
  Load,   // load Ii, address, n
  Load4,  // load4 address, n
  Store,  // store address, n, source
};
const char* mnemonic(Opcode op);
int source_count(Opcode op);  // register sources (Load/Load4: 0, Store: 1, Trace: 3)
inline bool is_arithmetic(Opcode op) { return op >= Opcode::Mov && op <= Opcode::Ddy; }
// An operation whose result on one thread reads another thread's registers: never folded (its
// value is a difference across the quad, not a function of its operands).
inline bool is_lane_crossing(Opcode op) { return op == Opcode::Ddx || op == Opcode::Ddy; }
inline bool is_dot(Opcode op) { return op >= Opcode::Dp2h && op <= Opcode::Dp4; }

// Where an operand lives. Stack is the visible window S0-S7 of the data stack; Special is the
// S register that _rcp/_rsq write (S.x-S.w); A holds four integer addresses (A0-A3 = A.x-A.w);
// HitTri and HitObj hold addresses, usable only as the address of a load or store. Virtual is a
// compiler value before register allocation: a vector value lives in the .xyz lanes of a
// register, a scalar value in its .w lane.
enum class Bank : std::uint8_t { None, R, C, Stack, Special, I, A, Hit, HitTri, HitObj, Literal, Virtual };
constexpr int kLanes = 4;
constexpr std::uint8_t kMaskXYZ = 0x7, kMaskW = 0x8, kMaskAll = 0xF;

struct Swizzle {
  std::array<std::uint8_t, 4> lane{0, 1, 2, 3};  // destination lane i reads source lane lane[i]
  static Swizzle identity() { return {}; }
  static Swizzle splat(std::uint8_t c) { return {{c, c, c, c}}; }
  bool is_identity() const { return lane == std::array<std::uint8_t, 4>{0, 1, 2, 3}; }
  // The swizzle that reads through `inner` first: (this.then(inner)).lane[i] = inner.lane[lane[i]].
  Swizzle then(const Swizzle& inner) const;
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
};

struct Source {
  Bank bank = Bank::None;
  std::uint32_t index = 0;  // register number, stack slot, A lane, or virtual register id
  Swizzle swizzle;
  std::int8_t scale = 0;    // log2 of the multiplier: -1 (0.5), 0, 1 (2) or 2 (4)
  bool negate = false;
  float literal = 0;        // Bank::Literal: the value in every lane (before scale and sign)

  static Source reg(Bank b, std::uint32_t i, Swizzle s = {}) { return {b, i, s, 0, false, 0}; }
  static Source lit(float v) { return {Bank::Literal, 0, {}, 0, false, v}; }
  bool is_literal() const { return bank == Bank::Literal; }
  // The multiplier applied to every lane: ±0.5, ±1, ±2 or ±4.
  float factor() const;
  // The literal's value after scale and sign.
  float literal_value() const { return literal * factor(); }
  bool same_register(const Source& o) const { return bank == o.bank && index == o.index; }
  // Literals compare as encodings: a NaN literal equals itself, so analyses that iterate to a
  // fixed point over operations reach it (forwarding ran forever on a constant sqrt(-3)).
  friend bool operator==(const Source& a, const Source& b) {
    return a.bank == b.bank && a.index == b.index && a.swizzle == b.swizzle && a.scale == b.scale && a.negate == b.negate &&
           std::bit_cast<std::uint32_t>(a.literal) == std::bit_cast<std::uint32_t>(b.literal);
  }
};

struct Dest {
  Bank bank = Bank::None;  // R, Stack (saves), A (addresses), Virtual, or None (no register)
  std::uint32_t index = 0;
  std::uint8_t mask = kMaskAll;
  friend bool operator==(const Dest&, const Dest&) = default;
};

enum class SpecialFn : std::uint8_t { None, Rcp, Rsq };

// One operation: a primary or the second half of a pair.
struct Operation {
  Opcode op = Opcode::None;
  Dest dst;                       // arithmetic and Load (I register); none for Trace/Store/Load4
  std::array<Source, 3> src{};
  bool sat = false;
  SpecialFn special = SpecialFn::None;  // 1/x or 1/sqrt(x) of the result's w into S, under dst.mask
  Source address;                 // Load/Load4/Store: an A lane, HitTri or HitObj
  std::int32_t offset = 0;        // Load/Load4/Store: words past the address
  friend bool operator==(const Operation&, const Operation&) = default;
};

// A lane test against 0 or 1: (<0), (>=0), (=0), (<1) ...
enum class Relation : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
struct Test {
  Relation rel = Relation::Ge;
  std::uint8_t against = 0;  // 0 or 1
  friend bool operator==(const Test&, const Test&) = default;
};
bool passes(Test t, float x);

// When a paired control part runs: each lane selected by `mask` is tested (one test, or two
// joined by `tests_or`), then `any` asks whether some selected lane passed, else all of them.
struct Condition {
  bool always = true;
  bool any = false;
  std::uint8_t mask = 0;
  std::uint8_t count = 0;  // tests used: 1 or 2
  std::array<Test, 2> tests{};
  bool tests_or = false;
  // Evaluates the condition on a result (`always`: true).
  bool holds(const Vec4& result) const;
  // The condition that holds exactly when this one does not.
  Condition negated() const;
  static Condition lane(std::uint8_t mask, Relation rel, std::uint8_t against = 0, bool any = false);
  friend bool operator==(const Condition&, const Condition&) = default;
};

enum class ControlKind : std::uint8_t { None, Jmp, Call, Return };

struct Control {
  ControlKind kind = ControlKind::None;
  std::string label;        // Jmp/Call to a label (as written)
  std::uint32_t target = 0; // the label's address once assembled
  Source target_reg;        // Call through a register lane (e.g. HIT.w): bank != None
  std::uint32_t push = 0;   // Call: the stack-window shift
  Condition cond;
  friend bool operator==(const Control&, const Control&) = default;
};

struct Instruction {
  Operation primary;
  Operation secondary;  // the other half of a 3/1 or 2/2 pair; op None when unpaired
  Control control;
  lang::Span where;  // the assembly text it came from (assembled) or the RSL it came from (compiled)
  bool paired() const { return secondary.op != Opcode::None; }
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

// ---- text ----------------------------------------------------------------------------------

// "R3", "C31", "S2", "S", "I0", "A", "HIT", "HIT_TRI", "HIT_OBJ"; virtual registers print as
// "%v12" (vector) or "%f7" (scalar) through the callback the compiler installs.
std::string register_name(Bank bank, std::uint32_t index);
// Shortest text that reads back as the same float, always with a '.' ("5.0", "1.8", "-0.2").
std::string format_float(float x);
std::string mask_text(std::uint8_t mask);  // "" for xyzw, else ".xz" ...
std::string swizzle_text(const Swizzle& s);  // "" for identity, else ".yzx", ".w" (last letter repeats)
std::string condition_text(const Condition& c);

// Names for virtual registers, supplied by whoever prints them (the compiler knows each one's
// class). Without one they print as "%r<id>".
using VirtualNamer = std::string (*)(std::uint32_t id, const void* context);
struct TextOptions {
  VirtualNamer name_virtual = nullptr;
  const void* context = nullptr;
};

std::string to_text(const Source& s, const TextOptions& o = {});
std::string to_text(const Dest& d, const TextOptions& o = {});
std::string to_text(const Operation& op, const TextOptions& o = {});
// The whole word on one line, a paired second half on a following "|| " line.
std::string to_text(const Instruction& in, const TextOptions& o = {});

// The lanes of the result an operation needs: its write mask, w when it has _rcp/_rsq, and the
// lanes a paired condition tests.
std::uint8_t result_lanes(const Operation& op, const Condition* cond);
// The lanes of source `k` that an operation reads, given the result lanes it needs.
std::uint8_t source_lanes(const Operation& op, int k, std::uint8_t result);

}  // namespace passlab::rpu
