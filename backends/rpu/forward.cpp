// SPDX-License-Identifier: GPL-3.0-or-later
// Forwarding (thesis §7.6): a forward data flow of facts about what registers hold, then uses
// rewritten with the facts that reach them; repeated until nothing changes.
//
// Facts: "A is B" from `mov A, B` (B with its modifiers; for the lanes mov wrote), "A is B*C"
// from `mul`, "A is dp3(B,C)" from `dp3`, and "S.l is k" when _rcp/_rsq of a literal is known.
// A fact reaches a point when it holds on every path there: it flows out of a block when it
// flows into it from every predecessor and nothing in the block writes A, B or C.
#include <algorithm>
#include <bit>
#include <optional>

#include "backends/rpu/arith.h"
#include "backends/rpu/passes.h"

namespace passlab::rpu {

namespace {

struct Fact {
  enum class Kind : std::uint8_t { Copy, Product, Dot } kind = Kind::Copy;
  Loc a = 0;               // a virtual register, or an S lane (physical) for literal facts
  std::uint8_t lanes = 0;  // the lanes of A it speaks for
  Source b, c;
  friend bool operator==(const Fact&, const Fact&) = default;
};
using Facts = std::vector<Fact>;

bool reads_any(const AsmFunction& f, const Source& s, const std::vector<Loc>& locs) {
  if (s.bank == Bank::None || s.is_literal()) return false;
  std::vector<Loc> r;
  read_locs(f, s, kMaskAll, r);
  for (Loc l : r)
    if (std::find(locs.begin(), locs.end(), l) != locs.end()) return true;
  return false;
}

void kill(const AsmFunction& f, Facts& facts, const std::vector<Loc>& written) {
  if (written.empty()) return;
  facts.erase(std::remove_if(facts.begin(), facts.end(),
                             [&](const Fact& x) {
                               return std::find(written.begin(), written.end(), x.a) != written.end() || reads_any(f, x.b, written) ||
                                      reads_any(f, x.c, written);
                             }),
              facts.end());
}

bool reads_loc(const AsmFunction& f, const Source& s, Loc l) { return reads_any(f, s, {l}); }

// Updates `facts` across one instruction: what it overwrites dies, what it establishes is born.
void transfer(const AsmFunction& f, const Machine& m, const AsmInstr& in, Facts& facts) {
  std::vector<Loc> defs;
  instr_defs(f, in, defs);
  kill(f, facts, defs);
  if (in.is_call()) return;
  const Operation& o = in.word.primary;
  if (!is_arithmetic(o.op)) return;
  if (o.special != SpecialFn::None && !is_lane_crossing(o.op)) {
    bool literal = true;
    for (int k = 0; k < source_count(o.op); ++k) literal = literal && o.src[static_cast<std::size_t>(k)].is_literal();
    if (literal) {
      auto splat = [](const Source& s) { const float v = s.literal_value(); return Vec4{v, v, v, v}; };
      const int n = source_count(o.op);
      const Vec4 r = compute(m.fp24, o.op, o.sat, splat(o.src[0]), n > 1 ? splat(o.src[1]) : Vec4{}, n > 2 ? splat(o.src[2]) : Vec4{});
      const float s = special_result(m.fp24, o.special, r[3]);
      for (Loc l = 0; l < 4; ++l)
        if (o.dst.mask & (1u << l)) facts.push_back({Fact::Kind::Copy, phys_unit(kUnitS + l), static_cast<std::uint8_t>(1u << l), Source::lit(s), {}});
    }
    return;
  }
  if (o.sat || o.dst.bank != Bank::Virtual) return;
  const Loc a = o.dst.index;
  if (o.op == Opcode::Mov) {
    const Source& b = o.src[0];
    if (b.bank == Bank::R || b.bank == Bank::Stack || reads_loc(f, b, a)) return;  // an ABI register keeps a short life
    facts.push_back({Fact::Kind::Copy, a, o.dst.mask, b, {}});
  } else if (o.op == Opcode::Mul || o.op == Opcode::Dp3) {
    if (reads_loc(f, o.src[0], a) || reads_loc(f, o.src[1], a)) return;
    facts.push_back({o.op == Opcode::Mul ? Fact::Kind::Product : Fact::Kind::Dot, a, o.dst.mask, o.src[0], o.src[1]});
  }
}

const Fact* find(const Facts& facts, Fact::Kind kind, Loc a, std::uint8_t lanes) {
  for (const Fact& x : facts)
    if (x.kind == kind && x.a == a && (lanes & ~x.lanes) == 0) return &x;
  return nullptr;
}

// `use` reads register A; A is `b` (on the lanes read): the same read of b.
std::optional<Source> compose(const Source& use, const Source& b) {
  if (b.is_literal()) return Source::lit(b.literal_value() * use.factor());
  Source r = b;
  r.swizzle = use.swizzle.then(b.swizzle);
  const int scale = use.scale + b.scale;
  if (scale < -1 || scale > 2) return std::nullopt;
  r.scale = static_cast<std::int8_t>(scale);
  r.negate = use.negate != b.negate;
  return r;
}

// The lanes of register `s` that an operation reads through it.
std::uint8_t read_lanes(const Operation& o, int k, const Condition* cond) { return source_lanes(o, k, result_lanes(o, cond)); }

bool literals_ok(const Operation& o, const Machine& m) {
  if (m.literals_per_instruction < 0) return true;
  int n = 0;
  for (int k = 0; k < source_count(o.op); ++k) n += o.src[static_cast<std::size_t>(k)].is_literal();
  return n <= m.literals_per_instruction;
}

bool rewrite(Operation& o, const Condition* cond, const Facts& facts, const Machine& m, AsmStats& stats, std::vector<const Fact*>* used,
             std::string* what, bool exact) {
  if (!is_arithmetic(o.op) && o.op != Opcode::Trace && o.op != Opcode::Store) return false;
  bool changed = false;
  for (int k = 0; k < source_count(o.op); ++k) {
    Source& s = o.src[static_cast<std::size_t>(k)];
    const std::uint8_t lanes = read_lanes(o, k, cond);
    if (!lanes) continue;
    std::optional<Source> next;
    const Fact* by = nullptr;
    if (s.bank == Bank::Virtual) {
      if (const Fact* x = find(facts, Fact::Kind::Copy, s.index, lanes)) next = compose(s, x->b), by = x;
    } else if (s.bank == Bank::Special && std::popcount(static_cast<unsigned>(lanes)) == 1) {
      const Loc lane = static_cast<Loc>(std::countr_zero(static_cast<unsigned>(lanes)));
      if (const Fact* x = find(facts, Fact::Kind::Copy, phys_unit(kUnitS + lane), lanes)) next = compose(s, x->b), by = x;
    }
    if (!next) continue;
    const Source saved = s;
    s = *next;
    if (!literals_ok(o, m)) {
      s = saved;
      continue;
    }
    ++stats["forward.operands"];
    if (used) used->push_back(by);
    if (what) *what = "operands";
    changed = true;
  }
  // mul + add -> mad (not into an add that must round as written: AsmInstr::exact)
  if (o.op == Opcode::Add && !exact) {
    for (int p = 0; p < 2; ++p) {
      const Source& s = o.src[static_cast<std::size_t>(p)];
      if (s.bank != Bank::Virtual) continue;
      const Fact* x = find(facts, Fact::Kind::Product, s.index, read_lanes(o, p, cond));
      if (!x) continue;
      // Not when the other addend is the product itself: a mad rounds a * b once, so
      // a * b - round(a * b) is the rounding error, not 0 (on 24-bit floats Ng == Ng was false).
      const Source& other = o.src[static_cast<std::size_t>(1 - p)];
      if (other.bank == Bank::Virtual && other.index == s.index) continue;
      std::optional<Source> b = compose(s, x->b);
      Source c = x->c;
      c.swizzle = s.swizzle.then(x->c.swizzle);
      if (!b) continue;
      Operation fused = o;
      fused.op = Opcode::Mad;
      fused.src = {*b, c, o.src[static_cast<std::size_t>(1 - p)]};
      if (!literals_ok(fused, m)) continue;
      o = fused;
      ++stats["forward.mad"];
      if (used) used->push_back(x);
      if (what) *what = "mad";
      return true;
    }
  }
  // dp3 + mov_rsq -> dp3_rsq (and _rcp): the dot product is the same in every lane.
  if (o.op == Opcode::Mov && o.special != SpecialFn::None && o.src[0].bank == Bank::Virtual) {
    const Source& s = o.src[0];
    if (const Fact* x = find(facts, Fact::Kind::Dot, s.index, read_lanes(o, 0, cond))) {
      Source b = x->b;
      const int scale = b.scale + s.scale;
      if (scale >= -1 && scale <= 2) {
        b.scale = static_cast<std::int8_t>(scale);
        b.negate = b.negate != s.negate;
        Operation fused = o;
        fused.op = Opcode::Dp3;
        fused.src = {b, x->c, Source{}};
        if (literals_ok(fused, m)) {
          o = fused;
          ++stats["forward.dp3_special"];
          if (used) used->push_back(x);
          if (what) *what = "dp3 with _rsq/_rcp";
          return true;
        }
      }
    }
  }
  return changed;
}

Facts meet(const std::vector<const Facts*>& ins) {
  if (ins.empty()) return {};
  Facts out = *ins[0];
  for (std::size_t i = 1; i < ins.size(); ++i)
    out.erase(std::remove_if(out.begin(), out.end(), [&](const Fact& x) { return std::find(ins[i]->begin(), ins[i]->end(), x) == ins[i]->end(); }),
              out.end());
  return out;
}

std::string fact_text(const AsmFunction& f, const Fact& x) {
  const TextOptions to = text_options(f);
  std::string a = loc_name(f, x.a);
  if (!is_phys(x.a)) a += mask_text(x.lanes);
  switch (x.kind) {
    case Fact::Kind::Copy: return a + " is " + to_text(x.b, to);
    case Fact::Kind::Product: return a + " is " + to_text(x.b, to) + " * " + to_text(x.c, to);
    case Fact::Kind::Dot: return a + " is dp3(" + to_text(x.b, to) + ", " + to_text(x.c, to) + ")";
  }
  return "";
}

// The facts flowing into each block, to a fixed point.
std::vector<std::optional<Facts>> facts_in(const AsmFunction& f, const Machine& m, const std::vector<std::uint32_t>& order) {
  std::vector<std::optional<Facts>> in(f.blocks.size()), out(f.blocks.size());
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t b : order) {
      Facts facts;
      if (b != 0) {
        std::vector<const Facts*> known;
        for (std::uint32_t p : f.blocks[b].preds)
          if (out[p]) known.push_back(&*out[p]);
        facts = meet(known);
      }
      in[b] = facts;
      for (const AsmInstr& instr : f.blocks[b].body) transfer(f, m, instr, facts);
      if (!out[b] || !(*out[b] == facts)) {
        out[b] = std::move(facts);
        changed = true;
      }
    }
  }
  return in;
}

}  // namespace

std::vector<FactLine> forwarding_facts(const AsmFunction& f, const Machine& m) {
  AsmFunction g = f;
  g.compute_preds();
  const std::vector<std::uint32_t> order = g.reverse_postorder();
  const std::vector<std::optional<Facts>> in = facts_in(g, m, order);
  std::vector<std::uint32_t> blocks = order;
  std::sort(blocks.begin(), blocks.end());
  std::vector<FactLine> lines;
  const TextOptions to = text_options(g);
  for (std::uint32_t b : blocks) {
    Facts facts = in[b] ? *in[b] : Facts{};
    auto line = [&](std::string text) {
      FactLine l;
      l.block = b;
      l.text = std::move(text);
      for (const Fact& x : facts) l.facts.push_back(fact_text(g, x));
      lines.push_back(std::move(l));
    };
    for (const AsmInstr& instr : g.blocks[b].body) {
      line(to_text(instr.word, to));
      transfer(g, m, instr, facts);
    }
    const Terminator& t = g.blocks[b].term;
    if (t.kind == Terminator::Kind::Branch) line("branch on " + to_text(t.test, to) + " " + condition_text(t.cond));
  }
  return lines;
}

bool forward(AsmFunction& f, const Machine& m, AsmStats& stats, std::vector<ForwardNote>* notes) {
  bool any = false;
  for (int round = 0; round < 64; ++round) {
    f.compute_preds();
    const std::vector<std::uint32_t> order = f.reverse_postorder();
    std::vector<std::optional<Facts>> in(f.blocks.size()), out(f.blocks.size());
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t b : order) {
        Facts facts;
        if (b != 0) {
          std::vector<const Facts*> known;
          for (std::uint32_t p : f.blocks[b].preds)
            if (out[p]) known.push_back(&*out[p]);  // unvisited predecessors: no constraint yet
          facts = meet(known);
        }
        in[b] = facts;
        for (const AsmInstr& instr : f.blocks[b].body) transfer(f, m, instr, facts);
        if (!out[b] || !(*out[b] == facts)) {
          out[b] = std::move(facts);
          changed = true;
        }
      }
    }
    bool changed = false;
    const TextOptions to = text_options(f);
    for (std::uint32_t b : order) {
      Facts facts = *in[b];
      // Rewrites one operation; with `notes`, says what changed and by which facts.
      auto apply = [&](Operation& op, const Condition* cond, bool exact) {
        if (!notes) return rewrite(op, cond, facts, m, stats, nullptr, nullptr, exact);
        const std::string before = to_text(op, to);
        std::vector<const Fact*> used;
        std::string what;
        if (!rewrite(op, cond, facts, m, stats, &used, &what, exact)) return false;
        ForwardNote note{b, before, to_text(op, to), {}, what};
        for (const Fact* x : used)
          if (x) note.facts.push_back(fact_text(f, *x));
        notes->push_back(std::move(note));
        return true;
      };
      for (AsmInstr& instr : f.blocks[b].body) {
        if (!instr.is_call()) changed = apply(instr.word.primary, nullptr, instr.exact) || changed;
        transfer(f, m, instr, facts);
      }
      Terminator& t = f.blocks[b].term;
      if (t.kind == Terminator::Kind::Branch) changed = apply(t.test, &t.cond, false) || changed;
    }
    any = any || changed;
    if (!changed) break;
  }
  return any;
}

}  // namespace passlab::rpu
