// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 4 (Mark & Proudfoot §6): registers for the values that enter the top of the pipeline,
// greedy and driven by the machine's table: for every register and each class of pass input, the
// parts (RGB, ALPHA) it accepts; for each class, what the allocation may do (SPLIT, JOIN, BLUE,
// BIAS, REUSE; machine.h). Texture results sit in their unit's register, all of it. Interpolants
// go to the colour registers (GeForce1: a vector in V0 or V1, a scalar in V0's alpha or, read
// only by ALPHA combiners, a blue), then on GeForce3 through a free texture unit's pass-through.
// Constants: the registers hold [0, 1] only, so a constant with negative parts is stored negated
// or as (c + 1) / 2 and read back through -x or expand(); 0, 1, 1/2, -1/2 and -1 come free from
// the zero register through a mapping. Global constants (GeForce1, and the final combiner's on
// GeForce3) are placed here; GeForce3's per-stage constants wait for stage 5.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

namespace {

bool special(float v) { return v == 0.0f || v == 1.0f || v == 0.5f || v == -0.5f || v == -1.0f; }

// Folds a constant operand's mapping and component selection into its value.
void fold_constant(HDag& h, Operand& o, Part portion) {
  if (o.value == kNoH || h[o.value].op != HOp::Const) return;
  HNode c = h[o.value];
  std::array<float, 3> v = c.value;
  if (o.usage == Usage::Alpha && portion == Part::Rgb) v = {c.value[0], c.value[0], c.value[0]};
  if (o.usage == Usage::Blue) v = {c.value[2], c.value[2], c.value[2]};
  for (float& x : v) x = apply(o.map, x);
  if (portion == Part::Alpha) v = {v[0], v[0], v[0]};
  if (v == c.value && o.map == InMap::SignedIdentity && c.part == portion) return;
  c.value = v;
  c.part = portion;
  c.kids.clear();
  o.value = h.add(c);
  o.map = InMap::SignedIdentity;
  o.usage = portion == Part::Rgb ? Usage::Rgb : Usage::Alpha;
}

bool uniform_special(const HNode& c) {
  const int k = c.part == Part::Rgb ? 3 : 1;
  for (int i = 1; i < k; ++i)
    if (c.value[static_cast<std::size_t>(i)] != c.value[0]) return false;
  return special(c.value[0]);
}

struct Slot {
  int reg;
  Part part;
  bool blue;
};

}  // namespace

namespace {

// Stage 4 for one pass: the inputs' registers, in the order of their scarcity.
class InputAllocator {
 public:
  InputAllocator(HDag& h, std::vector<PartialCombiner>& pcs, const Machine& m, Failure& f, CompileTrace& t)
      : h(h), pcs(pcs), m(m), f(f), t(t), reads(h.inputs.size()), taken(m.registers.size(), {false, false}), blue_taken(m.registers.size(), false) {
    for (int u = static_cast<int>(h.units.size()); u < m.texture_units; ++u) units_free.push_back(u);
  }

  bool run() {
    gather_reads();
    place_textures();
    if (!place_interpolants()) return false;
    gather_constants();
    return place_constants();
  }

 private:
  // Which parts of each input are read, and how.
  struct Reads {
    bool rgb = false, alpha = false, rgb_portion_alpha = false;  // TRIPLE (or the final RGB) reads its alpha
  };

  bool fail(std::string constraint, std::string message, dag::NodeId at, bool has) {
    f = {std::move(constraint), std::move(message), at, has};
    t.add({CEvent::Fail, 4, has ? std::vector<dag::NodeId>{at} : std::vector<dag::NodeId>{}, -1, -1, -1, -1, Part::Rgb, f.constraint, f.message});
    return false;
  }

  void place(PassInput& in, int reg, Part part, bool blue, const char* why) {
    in.reg = reg;
    in.part = part;
    in.in_blue = blue;
    if (blue) blue_taken[static_cast<std::size_t>(reg)] = true;
    else taken[static_cast<std::size_t>(reg)][static_cast<std::size_t>(part)] = true;
    if (t.on())
      t.add({CEvent::Input, 4, {in.node}, -1, -1, in.unit, reg, part, fmt::format("{}{}", blue ? "blue of " : "", to_string(in.cls)), why});
  }

  // Which parts of each input the combiners read, and the constants they read.
  void gather_reads() {
    for (PartialCombiner& pc : pcs) {
      for (Operand* o : {&pc.a, &pc.b, &pc.c, &pc.d}) {
        if (o->value == kNoH) continue;
        const Part portion = part_of(pc.kind);
        fold_constant(h, *o, portion);
        const HNode& v = h[o->value];
        if (v.op == HOp::Const) {
          // 0, 1, 1/2, -1/2 and -1 come from the zero register through a mapping; the final
          // combiner maps only unsigned() and unsigned_invert(), so only 0 and 1 there.
          const bool free = uniform_special(v) && (!is_final(pc.kind) || v.value[0] == 0.0f || v.value[0] == 1.0f);
          if (!free) constants.push_back({o->value, is_final(pc.kind)});
          continue;
        }
        if (v.op != HOp::Input) continue;
        Reads& r = reads[static_cast<std::size_t>(v.input)];
        if (v.part == Part::Rgb) r.rgb = true;
        else r.alpha = true;
        if (v.part == Part::Alpha && portion == Part::Rgb) r.rgb_portion_alpha = true;
      }
    }
  }

  // Texture results: their unit's register, all of it (all-or-nothing).
  void place_textures() {
    for (PassInput& in : h.inputs) {
      if (in.cls != InputClass::Texture) continue;
      const int reg = m.texture_register(in.unit);
      in.reg = reg;
      taken[static_cast<std::size_t>(reg)] = {true, true};
      if (t.on()) t.add({CEvent::Input, 4, {in.node}, -1, -1, in.unit, reg, Part::Rgb, "texture", "a texture register belongs to its unit, all of it"});
    }
  }

  // A free texture unit passing its interpolated coordinates through (GeForce3); -1 if none.
  int pass_through(PassInput& in, Part part) {
    const std::size_t cls = static_cast<std::size_t>(InputClass::Interpolant);
    for (auto& [reg, unit] : pass_through_of_reg)
      if (!taken[static_cast<std::size_t>(reg)][static_cast<std::size_t>(part)]) return reg;
    if (!m.texture_shaders || units_free.empty()) return -1;
    const int unit = units_free.front();
    const int reg = m.texture_register(unit);
    if (reg < 0 || !(m.registers[static_cast<std::size_t>(reg)].accepts[cls] & (part == Part::Rgb ? kRgbBit : kAlphaBit))) return -1;
    units_free.erase(units_free.begin());
    TextureUnit u;
    u.op = UnitOp::PassThrough;
    u.nodes = {in.node};
    while (static_cast<int>(h.units.size()) < unit) h.units.push_back(TextureUnit{});
    h.units.push_back(u);
    pass_through_of_reg[reg] = unit;
    return reg;
  }

  // Interpolants: vectors first (RGB parts are the scarcer), then scalars.
  bool place_interpolants() {
    const std::size_t cls = static_cast<std::size_t>(InputClass::Interpolant);
    for (int pass = 0; pass < 2; ++pass) {
      for (PassInput& in : h.inputs) {
        if (in.cls != InputClass::Interpolant || in.triple != (pass == 0)) continue;
        const std::size_t k = static_cast<std::size_t>(&in - h.inputs.data());
        const Part part = in.triple ? Part::Rgb : Part::Alpha;
        const std::uint8_t bit = part == Part::Rgb ? kRgbBit : kAlphaBit;
        int chosen = -1;
        bool blue = false;
        for (std::size_t r = 0; r < m.registers.size() && chosen < 0; ++r)
          if ((m.registers[r].accepts[cls] & bit) && !taken[r][static_cast<std::size_t>(part)] && m.registers[r].texture_unit < 0) chosen = static_cast<int>(r);
        // A scalar only ALPHA combiners read may ride in the blue of an RGB part no one uses.
        if (chosen < 0 && !in.triple && m.rules[cls].blue && !reads[k].rgb_portion_alpha)
          for (std::size_t r = 0; r < m.registers.size() && chosen < 0; ++r)
            if ((m.registers[r].accepts[cls] & kRgbBit) && !taken[r][0] && !blue_taken[r] && m.registers[r].texture_unit < 0) {
              chosen = static_cast<int>(r);
              blue = true;
            }
        if (chosen < 0) {
          chosen = pass_through(in, part);
          if (chosen >= 0) {
            h.units[static_cast<std::size_t>(pass_through_of_reg[chosen])].nodes.push_back(in.node);
            place(in, chosen, part, false, "a free texture unit passes the interpolated value through (texture shader)");
            continue;
          }
          return fail("interpolants",
                      fmt::format("interpolants: no register part is left for {} (the colour registers{} are full)",
                                  in.triple ? "an interpolated vector" : "an interpolated scalar", m.texture_shaders ? " and free texture units" : ""),
                      in.node, true);
        }
        place(in, chosen, blue ? Part::Rgb : part, blue,
              blue ? "only ALPHA combiners read it, so it rides in the blue of a free RGB part"
                   : in.biased ? "stored as (x+1)/2: the colour interpolator clamps to [0, 1]" : "");
      }
    }
    return true;
  }

  // Constants, distinct by value and part. GeForce3 keeps its general combiners' constants for
  // stage 5 (per stage); the final combiner reads the global ones.
  void gather_constants() {
    std::map<std::tuple<int, float, float, float, bool>, int> by_value;
    for (auto [node, final_read] : constants) {
      HNode& c = h[node];
      const bool global = !m.per_stage_constants || final_read;
      const auto key = std::make_tuple(static_cast<int>(c.part), c.value[0], c.value[1], c.value[2], global);
      if (auto it = by_value.find(key); it != by_value.end()) {
        c.input = it->second;
        continue;
      }
      PassInput in;
      in.cls = InputClass::Constant;
      in.triple = c.part == Part::Rgb;
      in.value = c.value;
      in.node = c.origin;
      const int k = in.triple ? 3 : 1;
      bool nonneg = true, nonpos = true;
      for (int i = 0; i < k; ++i) {
        nonneg = nonneg && c.value[static_cast<std::size_t>(i)] >= 0.0f;
        nonpos = nonpos && c.value[static_cast<std::size_t>(i)] <= 0.0f;
      }
      in.negated = !nonneg && nonpos;
      in.biased = !nonneg && !nonpos;
      in.stage = global ? -1 : -2;
      h.inputs.push_back(in);
      c.input = static_cast<int>(h.inputs.size() - 1);
      by_value[key] = c.input;
    }
  }

  // The global constants' registers, vectors first.
  bool place_constants() {
    const std::size_t ccls = static_cast<std::size_t>(InputClass::Constant);
    for (int pass = 0; pass < 2; ++pass)
      for (PassInput& in : h.inputs) {
        if (in.cls != InputClass::Constant || in.stage != -1 || in.triple != (pass == 0)) continue;
        const Part part = in.triple ? Part::Rgb : Part::Alpha;
        const std::uint8_t bit = in.triple ? kRgbBit : kAlphaBit;
        int chosen = -1;
        bool blue = false;
        for (std::size_t r = 0; r < m.registers.size() && chosen < 0; ++r)
          if ((m.registers[r].accepts[ccls] & bit) && !taken[r][static_cast<std::size_t>(part)]) chosen = static_cast<int>(r);
        if (chosen < 0 && !in.triple && m.rules[ccls].blue)
          for (std::size_t r = 0; r < m.registers.size() && chosen < 0; ++r)
            if ((m.registers[r].accepts[ccls] & kRgbBit) && !taken[r][0] && !blue_taken[r]) chosen = static_cast<int>(r), blue = true;
        if (chosen < 0) {
          int rgb = 0, alpha = 0;
          for (const PassInput& x : h.inputs)
            if (x.cls == InputClass::Constant && x.stage == -1) (x.triple ? rgb : alpha)++;
          return fail("constants",
                      fmt::format("constants: {} vector and {} scalar constants need registers; {}'s constant registers hold fewer", rgb, alpha, m.name),
                      in.node, in.node != 0 || h.nodes.empty());
        }
        place(in, chosen, blue ? Part::Rgb : part, blue, in.biased ? "stored as (c+1)/2: constant registers hold [0, 1]" : in.negated ? "stored negated" : "");
      }
    return true;
  }

  HDag& h;
  std::vector<PartialCombiner>& pcs;
  const Machine& m;
  Failure& f;
  CompileTrace& t;
  std::vector<Reads> reads;
  std::vector<std::pair<HId, bool>> constants;  // constant nodes read, and whether by the final combiner
  std::vector<std::array<bool, 2>> taken;       // register parts in use: [register][part]
  std::vector<bool> blue_taken;
  std::vector<int> units_free;
  std::map<int, int> pass_through_of_reg;  // register -> its pass-through unit
};

}  // namespace

bool allocate_inputs(HDag& h, std::vector<PartialCombiner>& pcs, const Machine& m, Failure& f, CompileTrace& t) {
  return InputAllocator(h, pcs, m, f, t).run();
}

}  // namespace passlab::combiners
