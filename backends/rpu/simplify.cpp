// SPDX-License-Identifier: GPL-3.0-or-later
// Opcode simplification and constant folding at assembly level (thesis §7.5): a multiply by a
// power of two becomes a source scale, identities disappear, literals fold.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/rpu/arith.h"
#include "backends/rpu/passes.h"

namespace passlab::rpu {

namespace {

// A literal's scale and sign folded into its value, so equal literals compare equal.
bool normalize_literal(Source& s) {
  if (!s.is_literal() || (s.scale == 0 && !s.negate && s.swizzle.is_identity())) return false;
  s = Source::lit(s.literal_value());
  return true;
}

// Multiplies a source by a power of two (or its negation); false when the scale would leave
// the hardware's 0.5 .. 4 range.
bool fold_factor(Source& s, float k) {
  const float mag = std::fabs(k);
  int log2 = 0;
  if (mag == 0.5f) log2 = -1;
  else if (mag == 1.0f) log2 = 0;
  else if (mag == 2.0f) log2 = 1;
  else if (mag == 4.0f) log2 = 2;
  else return false;
  const int scale = s.scale + log2;
  if (scale < -1 || scale > 2) return false;
  s.scale = static_cast<std::int8_t>(scale);
  if (k < 0) s.negate = !s.negate;
  return true;
}

Vec4 splat(const Source& s) {
  const float v = s.literal_value();
  return {v, v, v, v};
}

void to_mov(Operation& o, const Source& s) {
  o.op = Opcode::Mov;
  o.src = {s, Source{}, Source{}};
}

bool simplify_operation(Operation& o, const Machine& m, AsmStats& stats) {
  if (!is_arithmetic(o.op)) return false;
  bool changed = false;
  const int n = source_count(o.op);
  for (int k = 0; k < n; ++k) changed = normalize_literal(o.src[static_cast<std::size_t>(k)]) || changed;
  bool all_literal = true;
  for (int k = 0; k < n; ++k) all_literal = all_literal && o.src[static_cast<std::size_t>(k)].is_literal();
  if (all_literal && !is_lane_crossing(o.op)) {
    if (o.op == Opcode::Mov && !o.sat) return changed;
    if (o.special != SpecialFn::None) return changed;  // forwarding learns the S lane's value
    const Vec4 r = compute(m.fp24, o.op, o.sat, splat(o.src[0]), n > 1 ? splat(o.src[1]) : Vec4{}, n > 2 ? splat(o.src[2]) : Vec4{});
    to_mov(o, Source::lit(r[0]));
    o.sat = false;
    ++stats["simplify.folded"];
    return true;
  }
  auto lit = [&](int k, float* v) {
    const Source& s = o.src[static_cast<std::size_t>(k)];
    if (!s.is_literal()) return false;
    *v = s.literal_value();
    return true;
  };
  float v = 0;
  switch (o.op) {
    case Opcode::Mul:
      for (int p = 0; p < 2; ++p) {
        if (!lit(p, &v) || o.src[static_cast<std::size_t>(1 - p)].is_literal()) continue;
        if (v == 0) {  // x * 0 -> 0: not IEEE-safe (inf * 0 is NaN), as the thesis notes
          to_mov(o, Source::lit(0));
          ++stats["simplify.identities"];
          return true;
        }
        Source other = o.src[static_cast<std::size_t>(1 - p)];
        if (fold_factor(other, v)) {
          to_mov(o, other);
          ++stats["simplify.modifiers"];
          return true;
        }
      }
      break;
    case Opcode::Add:
      for (int p = 0; p < 2; ++p)
        if (lit(p, &v) && v == 0) {
          to_mov(o, o.src[static_cast<std::size_t>(1 - p)]);
          ++stats["simplify.identities"];
          return true;
        }
      break;
    case Opcode::Mad:
      for (int p = 0; p < 2; ++p) {
        if (!lit(p, &v)) continue;
        if (v == 0) {
          to_mov(o, o.src[2]);
          ++stats["simplify.identities"];
          return true;
        }
        Source other = o.src[static_cast<std::size_t>(1 - p)];
        if (!other.is_literal() && fold_factor(other, v)) {
          o.op = Opcode::Add;
          o.src = {other, o.src[2], Source{}};
          ++stats["simplify.modifiers"];
          return true;
        }
      }
      if (lit(2, &v) && v == 0) {
        o.op = Opcode::Mul;
        o.src[2] = {};
        ++stats["simplify.identities"];
        return true;
      }
      break;
    default: break;
  }
  return changed;
}

// `op T, ...` then `mov_sat X, T`, where T is defined and read nowhere else, becomes
// `op_sat X, ...` (beyond the thesis): clamp(x, 0, 1) of a computed x is one word. Only within a
// block, and only when nothing between the two touches X.
bool fold_saturation(AsmFunction& f, AsmStats& stats) {
  std::vector<int> reads(f.vregs.size(), 0), defs(f.vregs.size(), 0);
  std::vector<Loc> locs;
  auto count = [&](std::vector<int>& into) {
    for (Loc l : locs)
      if (!is_phys(l) && l < into.size()) ++into[l];
    locs.clear();
  };
  for (const AsmBlock& b : f.blocks) {
    if (b.removed) continue;
    for (const AsmInstr& in : b.body) {
      instr_uses(f, in, locs);
      count(reads);
      instr_defs(f, in, locs);
      count(defs);
    }
    terminator_uses(f, b.term, locs);
    count(reads);
  }
  auto touches = [&](const AsmInstr& in, Loc x) {
    locs.clear();
    instr_uses(f, in, locs);
    instr_defs(f, in, locs);
    const bool hit = std::find(locs.begin(), locs.end(), x) != locs.end();
    locs.clear();
    return hit;
  };
  bool changed = false;
  for (AsmBlock& b : f.blocks) {
    if (b.removed) continue;
    for (std::size_t j = 0; j < b.body.size(); ++j) {
      const AsmInstr& mov = b.body[j];
      const Operation& o = mov.word.primary;
      if (mov.is_call() || o.op != Opcode::Mov || !o.sat || o.special != SpecialFn::None || o.dst.bank != Bank::Virtual) continue;
      const Source& t = o.src[0];
      if (t.bank != Bank::Virtual || t.scale != 0 || t.negate || t.index >= reads.size() || reads[t.index] != 1 || defs[t.index] != 1) continue;
      const Loc x = o.dst.index;
      if (x == t.index) continue;
      for (std::size_t k = j; k-- > 0;) {
        AsmInstr& def = b.body[k];
        Operation& d = def.word.primary;
        const bool defines = !def.is_call() && d.dst.bank == Bank::Virtual && d.dst.index == t.index;
        if (!defines) {
          if (touches(def, x) || touches(def, t.index)) break;
          continue;
        }
        bool lanes_kept = true;  // the mov reads each lane of T it writes (a dot product's lanes are all one)
        for (int l = 0; l < 4; ++l)
          if ((o.dst.mask & (1u << l)) && t.swizzle.lane[static_cast<std::size_t>(l)] != l && !is_dot(d.op)) lanes_kept = false;
        if (is_arithmetic(d.op) && d.special == SpecialFn::None && d.dst.mask == o.dst.mask && lanes_kept) {
          d.dst = o.dst;
          d.sat = true;
          b.body.erase(b.body.begin() + static_cast<std::ptrdiff_t>(j));
          --j;
          ++stats["simplify.saturate"];
          changed = true;
        }
        break;
      }
    }
  }
  return changed;
}

}  // namespace

bool simplify_opcodes(AsmFunction& f, const Machine& m, AsmStats& stats) {
  bool changed = fold_saturation(f, stats);
  for (AsmBlock& b : f.blocks) {
    if (b.removed) continue;
    for (AsmInstr& in : b.body) {
      if (in.is_call()) continue;
      changed = simplify_operation(in.word.primary, m, stats) || changed;
    }
    Terminator& t = b.term;
    if (t.kind != Terminator::Kind::Branch) continue;
    changed = simplify_operation(t.test, m, stats) || changed;
    bool literal = true;
    for (int k = 0; k < source_count(t.test.op); ++k) literal = literal && t.test.src[static_cast<std::size_t>(k)].is_literal();
    if (literal || t.target == t.other) {
      // A branch decided when compiling (or going one place either way) is a jump.
      std::uint32_t to = t.target;
      if (literal && t.target != t.other) {
        const int n = source_count(t.test.op);
        const Vec4 r = compute(m.fp24, t.test.op, t.test.sat, splat(t.test.src[0]), n > 1 ? splat(t.test.src[1]) : Vec4{},
                               n > 2 ? splat(t.test.src[2]) : Vec4{});
        to = t.cond.holds(r) ? t.target : t.other;
      }
      Terminator j;
      j.kind = Terminator::Kind::Jump;
      j.target = to;
      j.span = t.span;
      t = j;
      ++stats["simplify.branches"];
      changed = true;
    }
  }
  if (changed) f.remove_unreachable();
  return changed;
}

}  // namespace passlab::rpu
