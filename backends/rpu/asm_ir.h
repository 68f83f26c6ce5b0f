// SPDX-License-Identifier: GPL-3.0-or-later
// The compiler's assembly (thesis ch. 7): RPU words whose registers may still be virtual, in a
// control-flow graph of blocks, with `call` as a pseudo-instruction that hides saving and
// restoring. Every stage from code generation to scheduling reads and writes this form; code
// output linearises it into the final listing.
//
// A virtual register is a vector value (the .xyz lanes of a register) or a scalar value (the
// .w lane), the two classes of the thesis's ABI. Operands are ordinary Sources and Dests with
// Bank::Virtual, so a vector value is read as `%v3.xyz` and a scalar as `%f2.w`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/rpu/isa.h"
#include "core/lang/source.h"

namespace passlab::rpu {

enum class RegClass : std::uint8_t { Vector, Scalar };

struct VirtualInfo {
  RegClass cls = RegClass::Vector;
  std::string name;  // what it holds, for listings: an RSL variable, a global, "t"
  lang::Span span;
};

// A location that liveness, forwarding and allocation reason about: a virtual register (its id)
// or a physical unit (kPhys + the unit number below).
using Loc = std::uint32_t;
inline constexpr Loc kPhys = 1u << 24;
// Physical units: R0-R15 .xyz, R0-R15 .w, S.x-S.w, I0-I3, A, HIT, HIT_TRI, HIT_OBJ.
inline constexpr Loc kUnitXYZ = 0, kUnitW = 16, kUnitS = 32, kUnitI = 36, kUnitA = 40, kUnitHit = 41, kUnitHitTri = 42,
                     kUnitHitObj = 43, kUnitCount = 44;
inline constexpr int kJunk = 15;        // R15: results nobody reads
inline constexpr int kAllocatable = 15;  // R0-R14, in each class

inline Loc phys_unit(Loc unit) { return kPhys + unit; }
inline bool is_phys(Loc l) { return l >= kPhys; }

struct AsmInstr {
  // The operation; a call is a word whose control part is the call (primary None).
  Instruction word;
  // Calls: the physical units the callee reads (arguments) and writes (results). Everything else
  // the callee may overwrite is preserved by the caller's saves around the call (code output);
  // the special registers (S, I, A, HIT) are not, so a call also clobbers them.
  std::vector<Loc> call_uses, call_defs;
  std::string callee;  // the called function's RSL name (listings); "" for a call through HIT.w
  lang::Span span;     // the RSL it came from
  // Rounds as written: forwarding fuses no product into it. floor(x) is x - frac(x), an integer
  // only when both sides read the same rounded x; a mad would subtract from the exact product
  // (on 24-bit floats ceil(-0.76) was 2e-6, and the ceil of that 1).
  bool exact = false;
  bool is_call() const { return word.control.kind == ControlKind::Call; }
};

struct Terminator {
  enum class Kind : std::uint8_t { Jump, Branch, Return } kind = Kind::Jump;
  Operation test;            // Branch: the operation whose result the condition tests
  Condition cond;            // Branch
  std::uint32_t target = 0;  // Jump: the block; Branch: taken when the condition holds
  std::uint32_t other = 0;   // Branch: taken when it does not
  std::vector<Loc> uses;     // Return: the result registers
  lang::Span span;
};

struct AsmBlock {
  std::vector<AsmInstr> body;
  Terminator term;
  std::vector<std::uint32_t> preds;  // filled by AsmFunction::compute_preds
  bool removed = false;
};

struct AsmFunction {
  std::string name;   // the RSL name
  std::string label;  // SUBROUTINE_ENTRY_<name>, unique in the program
  bool shader = false;
  lang::Span span;
  std::vector<VirtualInfo> vregs;
  std::vector<AsmBlock> blocks;  // blocks[0] is the entry
  std::vector<Loc> entry_defs;   // physical units that hold values on entry (arguments, HIT, ...)

  Loc new_vreg(RegClass cls, std::string name, lang::Span span = {});
  RegClass cls(Loc v) const { return vregs.at(v).cls; }
  std::vector<std::uint32_t> successors(std::uint32_t b) const;
  void compute_preds();
  // Blocks reachable from the entry, in reverse postorder.
  std::vector<std::uint32_t> reverse_postorder() const;
  // Drops blocks nothing reaches (marks them removed).
  void remove_unreachable();
};

struct AsmProgram {
  std::vector<AsmFunction> functions;
};

// ---- operands ------------------------------------------------------------------------------

// The standard reading of a virtual register: a vector value's .xyz (xyzz), a scalar's .w.
Source vsrc(const AsmFunction& f, Loc v);
// The full write of a virtual register: .xyz or .w.
Dest vdst(const AsmFunction& f, Loc v);
// Physical registers: R<n>.xyz / R<n>.w as a source and as a destination.
Source rsrc(int reg, RegClass cls);
Dest rdst(int reg, RegClass cls);
// One lane of an operand, in every lane (`mov R3.w, v.y`).
Source lane_of(const Source& s, int lane);
std::uint8_t class_mask(RegClass cls);

// The locations an operand reads (given the lanes of it that are read), and a destination
// writes; partial writes of a virtual register also read it. R15 and constants are not
// locations. `f` classifies virtual registers.
void read_locs(const AsmFunction& f, const Source& s, std::uint8_t lanes, std::vector<Loc>& out);
void written_locs(const AsmFunction& f, const Dest& d, std::vector<Loc>& out);
// Everything an instruction reads and writes (sources, special results, loads, trace, calls).
void instr_uses(const AsmFunction& f, const AsmInstr& in, std::vector<Loc>& out);
void instr_defs(const AsmFunction& f, const AsmInstr& in, std::vector<Loc>& out);
void terminator_uses(const AsmFunction& f, const Terminator& t, std::vector<Loc>& out);
// Whether the instruction must stay even if nothing reads what it writes.
bool has_side_effects(const AsmInstr& in);

// ---- text ----------------------------------------------------------------------------------

std::string vreg_name(const AsmFunction& f, Loc v);  // "%v3" (vector) or "%f2" (scalar)
std::string loc_name(const AsmFunction& f, Loc l);   // a vreg or "R3.xyz", "S.y", "I0" ...
TextOptions text_options(const AsmFunction& f);
// The function as a listing of blocks ("B3:") with virtual registers; what --emit writes.
std::string to_text(const AsmFunction& f);
std::string to_text(const AsmProgram& p);

}  // namespace passlab::rpu
