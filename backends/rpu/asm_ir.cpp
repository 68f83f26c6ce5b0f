// SPDX-License-Identifier: GPL-3.0-or-later
// The compiler's assembly: operand helpers, what each instruction reads and writes, and text.
#include "backends/rpu/asm_ir.h"

#include <algorithm>
#include <functional>

namespace passlab::rpu {

Loc AsmFunction::new_vreg(RegClass c, std::string n, lang::Span s) {
  vregs.push_back({c, std::move(n), s});
  return static_cast<Loc>(vregs.size() - 1);
}

std::vector<std::uint32_t> AsmFunction::successors(std::uint32_t b) const {
  const Terminator& t = blocks[b].term;
  switch (t.kind) {
    case Terminator::Kind::Jump: return {t.target};
    case Terminator::Kind::Branch:
      if (t.target == t.other) return {t.target};
      return {t.target, t.other};
    case Terminator::Kind::Return: return {};
  }
  return {};
}

void AsmFunction::compute_preds() {
  for (AsmBlock& b : blocks) b.preds.clear();
  for (std::uint32_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].removed) continue;
    for (std::uint32_t s : successors(b)) blocks[s].preds.push_back(b);
  }
}

std::vector<std::uint32_t> AsmFunction::reverse_postorder() const {
  std::vector<std::uint32_t> post;
  std::vector<std::uint8_t> state(blocks.size(), 0);
  // Iterative depth-first search (deep straight-line code must not exhaust the stack).
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{0, 0}};
  state[0] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    std::vector<std::uint32_t> succ = successors(b);
    if (next < succ.size()) {
      std::uint32_t s = succ[next++];
      if (!state[s]) {
        state[s] = 1;
        stack.push_back({s, 0});
      }
      continue;
    }
    post.push_back(b);
    stack.pop_back();
  }
  std::reverse(post.begin(), post.end());
  return post;
}

void AsmFunction::remove_unreachable() {
  std::vector<bool> seen(blocks.size(), false);
  for (std::uint32_t b : reverse_postorder()) seen[b] = true;
  for (std::uint32_t b = 0; b < blocks.size(); ++b)
    if (!seen[b]) {
      blocks[b].removed = true;
      blocks[b].body.clear();
      blocks[b].term = {};
      blocks[b].term.kind = Terminator::Kind::Return;
    }
  compute_preds();
}

std::uint8_t class_mask(RegClass cls) { return cls == RegClass::Vector ? kMaskXYZ : kMaskW; }

Source vsrc(const AsmFunction& f, Loc v) {
  Source s = Source::reg(Bank::Virtual, v);
  s.swizzle = f.cls(v) == RegClass::Vector ? Swizzle{{0, 1, 2, 2}} : Swizzle::splat(3);
  return s;
}

Dest vdst(const AsmFunction& f, Loc v) { return {Bank::Virtual, v, class_mask(f.cls(v))}; }

Source rsrc(int reg, RegClass cls) {
  Source s = Source::reg(Bank::R, static_cast<std::uint32_t>(reg));
  s.swizzle = cls == RegClass::Vector ? Swizzle{{0, 1, 2, 2}} : Swizzle::splat(3);
  return s;
}

Dest rdst(int reg, RegClass cls) { return {Bank::R, static_cast<std::uint32_t>(reg), class_mask(cls)}; }

Source lane_of(const Source& s, int lane) {
  Source r = s;
  r.swizzle = Swizzle::splat(s.swizzle.lane[static_cast<std::size_t>(lane)]);
  return r;
}

void read_locs(const AsmFunction& f, const Source& s, std::uint8_t lanes, std::vector<Loc>& out) {
  if (!lanes) return;
  switch (s.bank) {
    case Bank::Virtual: out.push_back(s.index); return;
    case Bank::R:
      if (s.index == kJunk) return;
      if (lanes & kMaskXYZ) out.push_back(phys_unit(kUnitXYZ + s.index));
      if (lanes & kMaskW) out.push_back(phys_unit(kUnitW + s.index));
      return;
    case Bank::Special:
      for (Loc i = 0; i < 4; ++i)
        if (lanes & (1u << i)) out.push_back(phys_unit(kUnitS + i));
      return;
    case Bank::I: out.push_back(phys_unit(kUnitI + s.index)); return;
    case Bank::Hit: out.push_back(phys_unit(kUnitHit)); return;
    case Bank::HitTri: out.push_back(phys_unit(kUnitHitTri)); return;
    case Bank::HitObj: out.push_back(phys_unit(kUnitHitObj)); return;
    case Bank::A: out.push_back(phys_unit(kUnitA)); return;
    default: return;  // constants, literals, stack slots (only after call expansion)
  }
  (void)f;
}

void written_locs(const AsmFunction& f, const Dest& d, std::vector<Loc>& out) {
  switch (d.bank) {
    case Bank::Virtual: out.push_back(d.index); return;
    case Bank::R:
      if (d.index == kJunk) return;
      if (d.mask & kMaskXYZ) out.push_back(phys_unit(kUnitXYZ + d.index));
      if (d.mask & kMaskW) out.push_back(phys_unit(kUnitW + d.index));
      return;
    case Bank::A: out.push_back(phys_unit(kUnitA)); return;
    case Bank::I: out.push_back(phys_unit(kUnitI + d.index)); return;
    default: return;
  }
  (void)f;
}

namespace {

// A write that leaves some of a location's lanes as they were also reads it.
bool partial(const AsmFunction& f, const Dest& d) {
  if (d.bank == Bank::Virtual) return (d.mask & class_mask(f.cls(d.index))) != class_mask(f.cls(d.index));
  if (d.bank == Bank::R && d.index != kJunk) {
    const std::uint8_t xyz = d.mask & kMaskXYZ;
    return xyz != 0 && xyz != kMaskXYZ;
  }
  if (d.bank == Bank::A) return d.mask != kMaskAll;  // A is one location of four addresses
  return false;
}

void operation_uses(const AsmFunction& f, const Operation& op, const Condition* cond, std::vector<Loc>& out) {
  const std::uint8_t result = result_lanes(op, cond);
  for (int k = 0; k < source_count(op.op); ++k) read_locs(f, op.src[static_cast<std::size_t>(k)], source_lanes(op, k, result), out);
  if (op.op == Opcode::Load || op.op == Opcode::Load4 || op.op == Opcode::Store) read_locs(f, op.address, kMaskAll, out);
  if (is_arithmetic(op.op) && partial(f, op.dst)) written_locs(f, op.dst, out);
}

void operation_defs(const AsmFunction& f, const Operation& op, std::vector<Loc>& out) {
  if (op.op == Opcode::None) return;
  if (is_arithmetic(op.op) || op.op == Opcode::Load) written_locs(f, op.dst, out);
  if (op.op == Opcode::Load4)
    for (Loc i = 0; i < 4; ++i) out.push_back(phys_unit(kUnitI + i));
  if (op.special != SpecialFn::None)
    for (Loc i = 0; i < 4; ++i)
      if (op.dst.mask & (1u << i)) out.push_back(phys_unit(kUnitS + i));
  if (op.op == Opcode::Trace)
    for (Loc u : {kUnitHit, kUnitHitTri, kUnitHitObj}) out.push_back(phys_unit(u));
}

}  // namespace

void instr_uses(const AsmFunction& f, const AsmInstr& in, std::vector<Loc>& out) {
  operation_uses(f, in.word.primary, nullptr, out);
  operation_uses(f, in.word.secondary, nullptr, out);
  if (in.is_call()) {
    if (in.word.control.target_reg.bank != Bank::None) read_locs(f, in.word.control.target_reg, 1, out);
    out.insert(out.end(), in.call_uses.begin(), in.call_uses.end());
  }
}

void instr_defs(const AsmFunction& f, const AsmInstr& in, std::vector<Loc>& out) {
  operation_defs(f, in.word.primary, out);
  operation_defs(f, in.word.secondary, out);
  if (in.is_call()) {
    out.insert(out.end(), in.call_defs.begin(), in.call_defs.end());
    for (Loc u = kUnitS; u < kUnitCount; ++u) out.push_back(phys_unit(u));  // the callee may use them all
  }
}

void terminator_uses(const AsmFunction& f, const Terminator& t, std::vector<Loc>& out) {
  if (t.kind == Terminator::Kind::Branch) operation_uses(f, t.test, &t.cond, out);
  if (t.kind == Terminator::Kind::Return) out.insert(out.end(), t.uses.begin(), t.uses.end());
}

bool has_side_effects(const AsmInstr& in) {
  const Opcode op = in.word.primary.op;
  return in.is_call() || op == Opcode::Trace || op == Opcode::Store;
}

// ---- text ----------------------------------------------------------------------------------

std::string vreg_name(const AsmFunction& f, Loc v) {
  if (v >= f.vregs.size()) return "%?" + std::to_string(v);
  return (f.cls(v) == RegClass::Vector ? "%v" : "%f") + std::to_string(v);
}

std::string loc_name(const AsmFunction& f, Loc l) {
  if (!is_phys(l)) return vreg_name(f, l);
  const Loc u = l - kPhys;
  if (u < kUnitW) return "R" + std::to_string(u) + ".xyz";
  if (u < kUnitS) return "R" + std::to_string(u - kUnitW) + ".w";
  if (u < kUnitI) return std::string("S.") + "xyzw"[u - kUnitS];
  if (u < kUnitA) return "I" + std::to_string(u - kUnitI);
  if (u == kUnitA) return "A";
  if (u == kUnitHit) return "HIT";
  if (u == kUnitHitTri) return "HIT_TRI";
  return "HIT_OBJ";
}

TextOptions text_options(const AsmFunction& f) {
  TextOptions o;
  o.context = &f;
  o.name_virtual = [](std::uint32_t id, const void* ctx) { return vreg_name(*static_cast<const AsmFunction*>(ctx), id); };
  return o;
}

std::string to_text(const AsmFunction& f) {
  const TextOptions o = text_options(f);
  std::string s = f.label + ":  ; " + (f.shader ? "shader " : "function ") + f.name + "\n";
  for (std::uint32_t b = 0; b < f.blocks.size(); ++b) {
    const AsmBlock& blk = f.blocks[b];
    if (blk.removed) continue;
    s += "B" + std::to_string(b) + ":\n";
    for (const AsmInstr& in : blk.body) {
      std::string text = to_text(in.word, o);
      for (std::size_t pos = text.find('\n'); pos != std::string::npos; pos = text.find('\n', pos + 1)) text.insert(pos + 1, "    ");
      if (in.is_call()) text = "call " + (in.callee.empty() ? to_text(in.word.control.target_reg, o) : in.callee);
      s += "    " + text + "\n";
    }
    const Terminator& t = blk.term;
    switch (t.kind) {
      case Terminator::Kind::Jump: s += "    jmp B" + std::to_string(t.target) + "\n"; break;
      case Terminator::Kind::Branch:
        s += "    " + to_text(t.test, o) + " + jmp B" + std::to_string(t.target) + ", " + condition_text(t.cond) + "  ; else B" +
             std::to_string(t.other) + "\n";
        break;
      case Terminator::Kind::Return: s += "    return\n"; break;
    }
  }
  return s;
}

std::string to_text(const AsmProgram& p) {
  std::string s;
  for (const AsmFunction& f : p.functions) s += to_text(f) + "\n";
  return s;
}

}  // namespace passlab::rpu
