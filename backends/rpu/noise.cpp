// SPDX-License-Identifier: GPL-3.0-or-later
// noise() on the RPU (beyond the thesis, which leaves noise out): the lattice that every evaluator
// filters lives in data memory (memory_map.h), and a lookup is the trilinear filter written out
// in RPU instructions. noise, pnoise, cellnoise and random all lower to such lookups.
//
// For the point p, with c = floor(p) and f = p - c, corner (dx, dy, dz) of the cell is the word
// ((c.z + dz) mod 32) * 1024 + ((c.y + dy) mod 32) * 32 + (c.x + dx) mod 32, weighted by
// (wx * wy) * wz with w = 1 - f or f. The A register's four lanes address four corners at once:
// the four of z = c.z, loaded into I0-I3 and summed, then the four of z = c.z + 1. Indices stay
// below 2^15, which 24-bit floats hold exactly.
#include "backends/rpu/codegen_internal.h"
#include "backends/rpu/memory_map.h"

namespace passlab::rpu::detail {

// A lookup's coordinates (a point, or one to three floats; missing axes read 0) as one vector.
Source FunctionCodegen::lookup_coordinates(const ir::Instr& in) {
  if (in.args.size() == 2 && cls_of(in.args[1]) == RegClass::Vector) return use(in.args[1]);
  const Loc t = temp(RegClass::Vector, "lookup.at");
  mov(vdst(f_, t), Source::lit(0));
  int axis = 0;
  for (std::size_t k = 1; k < in.args.size() && axis < 3; ++k) {
    const Source a = use(in.args[k]);
    if (cls_of(in.args[k]) == RegClass::Scalar) mov(lane_dest(t, axis++), a);
    else
      for (int i = 0; i < 3 && axis < 3; ++i) mov(lane_dest(t, axis++), lane_of(a, i));
  }
  return vsrc(f_, t);
}

FunctionCodegen::Corners FunctionCodegen::cell_corners(const Source& i0, const Source& i1, const Source& f, float stride, const std::string& label) {
  const Loc xs = temp(RegClass::Vector, (label + ".x").c_str()), ys = temp(RegClass::Vector, (label + ".y").c_str());
  mov(vdst(f_, xs), lane_of(i0, 0));
  mov(lane_dest(xs, 1), lane_of(i1, 0));
  mov(vdst(f_, ys), lane_of(i0, 1));
  mov(lane_dest(ys, 2), lane_of(i1, 1));
  const Loc xy = temp(RegClass::Vector, (label + ".xy").c_str()), xy3 = temp(RegClass::Scalar, (label + ".xy").c_str());
  emit(Opcode::Mad, vdst(f_, xy), vsrc(f_, ys), Source::lit(stride), vsrc(f_, xs));
  emit(Opcode::Mad, vdst(f_, xy3), lane_of(i1, 1), Source::lit(stride), lane_of(i1, 0));
  const Loc wx = temp(RegClass::Vector, (label + ".wx").c_str()), wy = temp(RegClass::Vector, (label + ".wy").c_str());
  emit(Opcode::Add, vdst(f_, wx), Source::lit(1), negated(lane_of(f, 0)));
  mov(lane_dest(wx, 1), lane_of(f, 0));
  emit(Opcode::Add, vdst(f_, wy), Source::lit(1), negated(lane_of(f, 1)));
  mov(lane_dest(wy, 2), lane_of(f, 1));
  const Loc wxy = temp(RegClass::Vector, (label + ".wxy").c_str()), wxy3 = temp(RegClass::Scalar, (label + ".wxy").c_str());
  emit(Opcode::Mul, vdst(f_, wxy), vsrc(f_, wx), vsrc(f_, wy));
  emit(Opcode::Mul, vdst(f_, wxy3), lane_of(f, 0), lane_of(f, 1));
  return {vsrc(f_, xy), vsrc(f_, xy3), vsrc(f_, wxy), vsrc(f_, wxy3)};
}

void FunctionCodegen::load_corners(const Source& at, const Source& at3, std::int32_t offset) {
  mov({Bank::A, 0, kMaskXYZ}, at);
  mov({Bank::A, 0, kMaskW}, at3);
  for (std::uint32_t k = 0; k < 4; ++k) load(k, Source::reg(Bank::A, k), offset);
}

Source FunctionCodegen::noise(ir::ValueId v) {
  const ir::Instr& in = fn_.at(v);
  const Source p = lookup_coordinates(in);
  // Outside the runtime library a lookup is a call into it (__rpu_noise1/3, whose noise() is
  // expanded here): about 50 words once, and the caller's registers stay its own (pnoise's eight
  // lookups inline ran out of .w registers).
  if (module_index_ != links_.runtime_module && in.aux == 0) {
    const RegClass cls = cls_of(v);
    const std::string name = cls == RegClass::Vector ? "__rpu_noise3" : "__rpu_noise1";
    auto it = links_.runtime.find(name);
    if (it == links_.runtime.end()) fail(in.span, "the RPU runtime library has no '" + name + "'", "internal-error");
    runtime_used_.insert(name);
    return call(it->second, name, {{p, RegClass::Vector}}, {cls}, in.span).at(0);
  }
  const Loc f = temp(RegClass::Vector, "noise.f"), cell = temp(RegClass::Vector, "noise.cell");
  emit(Opcode::Frac, vdst(f_, f), p);
  emit(Opcode::Add, vdst(f_, cell), p, negated(vsrc(f_, f)));
  // The cell's lattice indices (c mod 32) and the next ones ((c + 1) mod 32), each taken as
  // 32 sat(frac((c + 0.5) / 32) - 1/64). c can miss an integer by an ulp (p - frac(p) rounds):
  // the half keeps such a c from wrapping to 32, and the A register rounds the sum to the
  // address. _sat keeps every index in [0, 32) where c is too large for a half to count, or NaN:
  // a lookup never leaves the lattice.
  auto wrapped = [&](float next, const char* name) {
    const Loc h = temp(RegClass::Vector, name), a = temp(RegClass::Vector, name), b = temp(RegClass::Vector, name),
              c = temp(RegClass::Vector, name), r = temp(RegClass::Vector, name);
    emit(Opcode::Add, vdst(f_, h), vsrc(f_, cell), Source::lit(next + 0.5f));
    emit(Opcode::Mul, vdst(f_, a), vsrc(f_, h), Source::lit(1.0f / kNoiseSize));
    emit(Opcode::Frac, vdst(f_, b), vsrc(f_, a));
    emit(Opcode::Add, vdst(f_, c), vsrc(f_, b), Source::lit(-0.5f / kNoiseSize));
    f_.blocks[cur_].body.back().word.primary.sat = true;
    emit(Opcode::Mul, vdst(f_, r), vsrc(f_, c), Source::lit(static_cast<float>(kNoiseSize)));
    return vsrc(f_, r);
  };
  const Source i0 = wrapped(0, "noise.i0"), i1 = wrapped(1, "noise.i1");
  // x + 32 y of the four corners of a z layer, and their weights (wx * wy) in a layer.
  const Corners c = cell_corners(i0, i1, vsrc(f_, f), static_cast<float>(kNoiseSize), "noise");
  const Loc wz0 = temp(RegClass::Scalar, "noise.wz");
  emit(Opcode::Add, vdst(f_, wz0), Source::lit(1), negated(lane_of(vsrc(f_, f), 2)));
  const Source wz[2] = {vsrc(f_, wz0), lane_of(vsrc(f_, f), 2)};
  const Source iz[2] = {lane_of(i0, 2), lane_of(i1, 2)};

  // The channels read: the first `in.aux` and those after it, as the interpreter reads them.
  const RegClass cls = cls_of(v);
  const auto first = static_cast<std::uint8_t>(std::min<std::uint32_t>(in.aux, 3));
  auto channel = [&](std::uint8_t c) { return static_cast<std::uint8_t>(std::min(3, first + c)); };
  const Swizzle channels = cls == RegClass::Vector ? Swizzle{{channel(0), channel(1), channel(2), channel(2)}} : Swizzle::splat(first);
  Source acc;
  for (int dz = 0; dz < 2; ++dz) {
    const Loc at = temp(RegClass::Vector, "noise.at"), at3 = temp(RegClass::Scalar, "noise.at");
    emit(Opcode::Mad, vdst(f_, at), iz[dz], Source::lit(static_cast<float>(kNoiseSize * kNoiseSize)), c.at);
    emit(Opcode::Mad, vdst(f_, at3), iz[dz], Source::lit(static_cast<float>(kNoiseSize * kNoiseSize)), c.at3);
    load_corners(vsrc(f_, at), vsrc(f_, at3), static_cast<std::int32_t>(kNoiseLattice));
    const Loc w = temp(RegClass::Vector, "noise.w"), w3 = temp(RegClass::Scalar, "noise.w");
    emit(Opcode::Mul, vdst(f_, w), c.w, wz[dz]);
    emit(Opcode::Mul, vdst(f_, w3), c.w3, wz[dz]);
    for (int k = 0; k < 4; ++k) {
      const Source value = Source::reg(Bank::I, static_cast<std::uint32_t>(k), channels);
      const Source weight = k < 3 ? lane_of(vsrc(f_, w), k) : vsrc(f_, w3);
      const Loc sum = temp(cls, "noise");
      if (dz == 0 && k == 0) emit(Opcode::Mul, vdst(f_, sum), value, weight);
      else emit(Opcode::Mad, vdst(f_, sum), value, weight, acc);
      acc = vsrc(f_, sum);
    }
  }
  return acc;
}

}  // namespace passlab::rpu::detail
