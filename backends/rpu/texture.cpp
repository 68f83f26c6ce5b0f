// SPDX-License-Identifier: GPL-3.0-or-later
// texture(), environment() and shadow() on the RPU (beyond the thesis, which names texture loads
// but has no texture unit): every lookup the language has lowers to Op::Texture at (s, t), and
//
// - a name the scene gives an image reads that image in data memory (texture_memory.h) with the
//   reference renderer's filter: bilinear between the four texels around (s W - 1/2, t H - 1/2),
//   repeating at the edges. As for noise, the A register's four lanes address the four texels at
//   once, loaded into I0-I3 and weighed; the image's base is the loads' offset. The filter is
//   expanded once per image, in a runtime function that returns all four channels, and a lookup
//   elsewhere is a call of it.
// - a name without an image reads the procedural stand-in every evaluator uses
//   (ir::ProceduralTextures): channel c is 0.5 + 0.5 sin(2 pi (fs s + ft t) + phase), alpha 1,
//   with fs, ft and phase fixed by the name; the sines are a call into the runtime library.
//
// The name must be known when the program is compiled (the surface's parameters are compiled in,
// so a parameter naming a texture is), or be a choice between such names; a name computed
// otherwise when the shader runs is a diagnostic.
#include "backends/rpu/codegen_internal.h"
#include "core/ir/value.h"

namespace passlab::rpu::detail {

namespace {

// The channel lane i of a lookup reads (the interpreter's rule: from `first` on, the last repeating).
std::uint8_t channel(std::uint32_t first, int i) { return static_cast<std::uint8_t>(std::min<std::uint32_t>(3, std::min<std::uint32_t>(first, 3) + static_cast<std::uint32_t>(i))); }

}  // namespace

Source FunctionCodegen::texture(ir::ValueId v) {
  const ir::Instr& in = fn_.at(v);
  const ir::Instr& name = fn_.at(in.args.at(0));
  if (name.op == ir::Op::Const && name.text == "$noise") return noise(v);
  return texture_named(in, in.args.at(0), lookup_coordinates(in), true);
}

// The lookup of the map `name` names: a literal, or a choice between names made when the shader
// runs (`cond ? "a" : "b"`), which branches to the lookup of each.
//
// Lookups of one map at the same coordinates in one IR block (a colour and its alpha, or each
// channel of a channel chosen when the shader runs) share one filter: the first keeps all four
// channels, which the block's later instructions read (`top`: not inside such a branch, whose
// values would not reach them).
Source FunctionCodegen::texture_named(const ir::Instr& in, ir::ValueId name, const Source& st, bool top) {
  const ir::Instr& n = fn_.at(name);
  if (n.op == ir::Op::Const) {
    const std::pair<std::string, std::vector<ir::ValueId>> key{n.text, {in.args.begin() + 1, in.args.end()}};
    if (auto it = texels_.find(key); top && it != texels_.end() && it->second.first == ir_cur_)
      return pick_channels(in, it->second.second.rgb, it->second.second.alpha);
    const TextureImage* image = links_.textures ? links_.textures->find(n.text) : nullptr;
    Texels all;
    if (!image) {
      if (class_of(in.type).value_or(RegClass::Scalar) == RegClass::Scalar && channel(in.aux, 0) == 3) return Source::lit(1);
      all = {texture_band(in, n.text, st), Source::lit(1)};  // the stand-ins' alpha is 1
    } else if (module_index_ != links_.runtime_module) {
      // A call into the image's lookup function (texels_function): about 50 words once, and the
      // caller's registers stay its own.
      const std::string fn = texels_function(image->index);
      auto it = links_.runtime.find(fn);
      if (it == links_.runtime.end()) fail(in.span, "the RPU runtime library has no '" + fn + "'", "internal-error");
      runtime_used_.insert(fn);
      const std::vector<Source> r = call(it->second, fn, {{st, RegClass::Vector}}, {RegClass::Vector, RegClass::Scalar}, in.span);
      all = {r.at(0), r.at(1)};
    } else {
      int lookups = 0;
      for (ir::ValueId u : fn_.blocks[ir_cur_].instrs) {
        const ir::Instr& other = fn_.at(u);
        lookups += !other.removed && other.op == ir::Op::Texture && other.args == in.args;
      }
      if (!top || lookups < 2) return texture_image(in, *image, st, nullptr);
      texture_image(in, *image, st, &all);
    }
    if (top) texels_[key] = {ir_cur_, all};
    return pick_channels(in, all.rgb, all.alpha);
  }
  if (n.op != ir::Op::Select)
    fail(in.span, "on the RPU a texture's name must be known when the program is compiled (a literal, a surface's parameter, or a "
                  "choice between those); this one is computed when the shader runs");
  const Loc r = temp(class_of(in.type).value_or(RegClass::Scalar), "tex.either");
  const std::uint32_t yes = new_block(), no = new_block(), join = new_block();
  branch_on(n.args.at(0), yes, no);
  cur_ = yes;
  mov(vdst(f_, r), texture_named(in, n.args.at(1), st, false));
  jump(join);
  cur_ = no;
  mov(vdst(f_, r), texture_named(in, n.args.at(2), st, false));
  jump(join);
  cur_ = join;
  return vsrc(f_, r);
}

// The image's bilinear filter at st: the channels `in` reads, or all four into `all`.
Source FunctionCodegen::texture_image(const ir::Instr& in, const TextureImage& image, const Source& st, Texels* all) {
  const auto w = static_cast<float>(image.width), h = static_cast<float>(image.height);
  // `op` with a number that differs by axis: kx in x (and z), ky in y.
  auto by_axis = [&](Opcode op, const char* label, const Source& a, float kx, float ky, const Source& c = {}) {
    const Loc r = temp(RegClass::Vector, label);
    emit(op, vdst(f_, r), a, Source::lit(kx), c);
    if (ky != kx) emit(op, lane_dest(r, 1), a, Source::lit(ky), c);
    return r;
  };
  // Texel space, where texel (i, j)'s centre is (i, j): x = s W - 1/2, y = t H - 1/2.
  const Loc xy = by_axis(Opcode::Mad, "tex.xy", st, w, h, Source::lit(-0.5f));
  const Loc f = temp(RegClass::Vector, "tex.f"), cell = temp(RegClass::Vector, "tex.cell");
  emit(Opcode::Frac, vdst(f_, f), vsrc(f_, xy));
  emit(Opcode::Add, vdst(f_, cell), vsrc(f_, xy), negated(vsrc(f_, f)));
  // The column and row of the texels at the cell's corners, repeating: as for the noise lattice,
  // W sat(frac((c + 1/2) / W) - 1/(2W)), which is (c mod W) exactly when W is a power of two.
  auto power_of_two = [](int n) { return n > 0 && (n & (n - 1)) == 0; };
  const bool exact = power_of_two(image.width) && power_of_two(image.height);
  auto wrapped = [&](float next, const char* label) {
    const Loc k = temp(RegClass::Vector, label);
    emit(Opcode::Add, vdst(f_, k), vsrc(f_, cell), Source::lit(next + 0.5f));
    const Loc a = by_axis(Opcode::Mul, label, vsrc(f_, k), 1.0f / w, 1.0f / h);
    const Loc b = temp(RegClass::Vector, label);
    emit(Opcode::Frac, vdst(f_, b), vsrc(f_, a));
    const Loc c = by_axis(Opcode::Add, label, vsrc(f_, b), -0.5f / w, -0.5f / h);
    f_.blocks[cur_].body.back().word.primary.sat = true;
    if (w != h) f_.blocks[cur_].body[f_.blocks[cur_].body.size() - 2].word.primary.sat = true;
    const Loc r = by_axis(Opcode::Mul, label, vsrc(f_, c), w, h);
    if (exact) return vsrc(f_, r);
    // 1/W is not exact, so the index may miss its integer by a little, which y W + x would
    // multiply by W: rounded first, as floor(r + 1/2).
    const Loc half = temp(RegClass::Vector, label), part = temp(RegClass::Vector, label), whole = temp(RegClass::Vector, label);
    emit(Opcode::Add, vdst(f_, half), vsrc(f_, r), Source::lit(0.5f));
    emit(Opcode::Frac, vdst(f_, part), vsrc(f_, half));
    emit(Opcode::Add, vdst(f_, whole), vsrc(f_, half), negated(vsrc(f_, part)));
    return vsrc(f_, whole);
  };
  const Source i0 = wrapped(0, "tex.i0"), i1 = wrapped(1, "tex.i1");
  // y W + x of the four texels, (x0, y0), (x1, y0), (x0, y1) in .xyz and (x1, y1) in .w, and
  // their weights; the four loaded into I0-I3.
  const Corners c = cell_corners(i0, i1, vsrc(f_, f), w, "tex");
  load_corners(c.at, c.at3, static_cast<std::int32_t>(image.base));
  const RegClass cls = class_of(in.type).value_or(RegClass::Scalar);
  // The weighted sum of the four texels: of the channels this lookup reads, or of all four when
  // other lookups in this block share the filter.
  auto weighted = [&](RegClass into, Swizzle channels) {
    Source acc;
    for (int k = 0; k < 4; ++k) {
      const Source value = Source::reg(Bank::I, static_cast<std::uint32_t>(k), channels);
      const Source weight = k < 3 ? lane_of(c.w, k) : c.w3;
      const Loc sum = temp(into, "tex");
      if (k == 0) emit(Opcode::Mul, vdst(f_, sum), value, weight);
      else emit(Opcode::Mad, vdst(f_, sum), value, weight, acc);
      acc = vsrc(f_, sum);
    }
    return acc;
  };
  if (all) {
    *all = {weighted(RegClass::Vector, Swizzle::identity()), weighted(RegClass::Scalar, Swizzle::splat(3))};
    return all->rgb;
  }
  return weighted(cls, cls == RegClass::Vector ? Swizzle{{channel(in.aux, 0), channel(in.aux, 1), channel(in.aux, 2), channel(in.aux, 2)}}
                                                : Swizzle::splat(channel(in.aux, 0)));
}

// The channels `in` reads of an RGBA value: from channel in.aux on, the last repeating.
Source FunctionCodegen::pick_channels(const ir::Instr& in, const Source& rgb, const Source& alpha) {
  auto part = [&](std::uint8_t ch) { return ch == 3 ? alpha : lane_of(rgb, ch); };
  if (class_of(in.type).value_or(RegClass::Scalar) == RegClass::Scalar) {
    if (channel(in.aux, 0) == 3) return alpha;
    const Loc r = temp(RegClass::Scalar, "tex");
    mov(vdst(f_, r), part(channel(in.aux, 0)));
    return vsrc(f_, r);
  }
  if (channel(in.aux, 0) == 0) return rgb;
  const Loc r = temp(RegClass::Vector, "tex");
  for (int i = 0; i < 3; ++i) mov(i == 0 ? vdst(f_, r) : lane_dest(r, i), part(channel(in.aux, i)));
  return vsrc(f_, r);
}

// The stand-in's three channels at st.
Source FunctionCodegen::texture_band(const ir::Instr& in, const std::string& name, const Source& st) {
  // turns = fs s + ft t + phase / (2 pi) per channel; the runtime gives 0.5 + 0.5 sin(2 pi turns).
  const Loc turns = temp(RegClass::Vector, "tex.turns");
  for (int c = 0; c < 3; ++c) {
    const ir::ProceduralBand b = ir::procedural_band(name, c);
    const Dest d = c == 0 ? vdst(f_, turns) : lane_dest(turns, c);
    emit(Opcode::Mad, d, lane_of(st, 1), Source::lit(b.ft), Source::lit(b.phase * 0.15915494309189535f));
    emit(Opcode::Mad, lane_dest(turns, c), lane_of(st, 0), Source::lit(b.fs), lane_of(vsrc(f_, turns), c));
  }
  auto it = links_.runtime.find("__rpu_texture_band");
  if (it == links_.runtime.end()) fail(in.span, "the RPU runtime library has no '__rpu_texture_band'", "internal-error");
  runtime_used_.insert(it->first);
  return call(it->second, it->first, {{vsrc(f_, turns), RegClass::Vector}}, {RegClass::Vector}, in.span).at(0);
}

}  // namespace passlab::rpu::detail
