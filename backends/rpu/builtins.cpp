// SPDX-License-Identifier: GPL-3.0-or-later
// The standard library on the RPU (thesis §5.3): every function is expanded where it is called.
// The RPU has mov, frac, add, mul, mad, dot products and 1/x and 1/sqrt(x) as modifiers, and
// nothing else: min, max, abs, clamp and their kin branch lane by lane (the thesis's clamp of a
// vector: 15 opcodes, 6 branches); sqrt is 1/(1/sqrt(x)); the transcendental functions (pow,
// exp, log, sin, cos, tan, asin, acos, atan) are calls into a runtime library written in RSL
// (resources/rpu/runtime.sl), because their loops and branches are better called than inlined
// (the thesis's argument about chunks resynchronising at `return`).
#include <functional>

#include "backends/rpu/codegen_internal.h"
#include "core/lang/sema.h"

namespace passlab::rpu::detail {

namespace {

Source scaled(Source s, std::int8_t log2, bool negate) {
  s.scale = static_cast<std::int8_t>(s.scale + log2);
  if (negate) s.negate = !s.negate;
  return s;
}

// The lanes a value of this class occupies, one at a time: x, y, z or just w.
std::vector<int> lanes_of(RegClass cls) { return cls == RegClass::Vector ? std::vector<int>{0, 1, 2} : std::vector<int>{3}; }

const ir::Instr* literal_string(const ir::Function& fn, ir::ValueId v) {
  const ir::Instr& in = fn.at(v);
  return in.op == ir::Op::Const && in.type == lang::BaseType::String ? &in : nullptr;
}

}  // namespace

// A library call being expanded, with the small pieces its expansion shares.
struct FunctionCodegen::BuiltinCall {
  FunctionCodegen& g;
  const ir::Instr& in;
  lang::Builtin id;
  std::string name;
  std::optional<RegClass> result_class;
  RegClass cls;  // the result's class (scalar when it has none)

  Source arg(std::size_t i) { return g.use(in.args.at(i)); }
  Loc fresh(const char* n) { return g.temp(cls, n); }
  // if (x - y passes rel) skip, else run `body`: one branch around a block.
  void unless(const Source& x, const Source& y, Relation rel, const std::function<void()>& body) {
    const std::uint32_t run = g.new_block(), join = g.new_block();
    g.compare_branch(x, y, kMaskW, rel, join, run);
    g.set_block(run);
    body();
    g.jump(join);
    g.set_block(join);
  }
  static Dest lane_dest(Loc r, int lane) { return detail::lane_dest(r, lane); }
  Source reciprocal(const Source& x) { return g.special(SpecialFn::Rcp, x); }
  Source sqrt_of(const Source& x) { return g.special(SpecialFn::Rcp, g.special(SpecialFn::Rsq, x)); }
};

Source FunctionCodegen::builtin(const ir::Instr& in) {
  using B = lang::Builtin;
  const auto id = static_cast<B>(in.aux);
  const lang::Signature& sig = lang::signature_of(id);
  const std::string name = lang::to_string(id);
  if (sig.derivative) return derivative(in);  // derivatives.cpp
  if (sig.needs_lights) fail(in.span, "'" + name + "' reached code generation unexpanded", "internal-error");
  BuiltinCall bc{*this, in, id, name, class_of(in.type), class_of(in.type).value_or(RegClass::Scalar)};
  auto arg = [&](std::size_t i) { return bc.arg(i); };
  switch (id) {
    case B::Abs:
    case B::Sign:
    case B::Floor:
    case B::Ceil:
    case B::Round:
    case B::Mod:
    case B::Min:
    case B::Max:
    case B::Clamp:
    case B::Mix:
    case B::Step:
    case B::Smoothstep: return builtin_math(bc);
    case B::Radians:
    case B::Degrees:
    case B::Length:
    case B::Distance:
    case B::Normalize:
    case B::Faceforward:
    case B::Reflect:
    case B::Refract:
    case B::Transform:
    case B::Vtransform:
    case B::Ntransform:
    case B::Xcomp:
    case B::Ycomp:
    case B::Zcomp:
    case B::Comp:
    case B::Setcomp:
    case B::Setxcomp:
    case B::Setycomp:
    case B::Setzcomp: return builtin_geometry(bc);
    case B::Sqrt: return bc.sqrt_of(arg(0));
    case B::InverseSqrt: return special(SpecialFn::Rsq, arg(0));
    case B::Pow: return call_runtime("__rpu_pow", {arg(0), arg(1)}, in.span);
    case B::Exp: return call_runtime("__rpu_exp", {arg(0)}, in.span);
    case B::Log: return call_runtime("__rpu_log", {arg(0)}, in.span);
    case B::LogBase: return call_runtime("__rpu_logb", {arg(0), arg(1)}, in.span);
    case B::Sin: return call_runtime("__rpu_sin", {arg(0)}, in.span);
    case B::Cos: return call_runtime("__rpu_cos", {arg(0)}, in.span);
    case B::Tan: return call_runtime("__rpu_tan", {arg(0)}, in.span);
    case B::Asin: return call_runtime("__rpu_asin", {arg(0)}, in.span);
    case B::Acos: return call_runtime("__rpu_acos", {arg(0)}, in.span);
    case B::Atan: return call_runtime("__rpu_atan", {arg(0)}, in.span);
    case B::Atan2: return call_runtime("__rpu_atan2", {arg(0), arg(1)}, in.span);
    case B::Spline: return spline(bc);
    case B::Trace: return trace(arg(0), arg(1), in.span);
    case B::Visibility: return visibility(arg(0), arg(1));
    case B::Raylevel: return f_.shader ? vsrc(f_, level_) : Source::lit(0);
    case B::PerVertex: return arg(0);  // a ray has no vertices: the value at the hit itself
    default: break;
  }
  fail(in.span, "'" + name + "' is not supported on the RPU");
}

// transform, vtransform and ntransform by named coordinate systems (beyond the thesis, which
// rejects them): the spaces are the shader's light setup's, as on fragment targets (a standard
// space it leaves out is the camera's own). The matrix is known when compiling; its columns go
// into the program's constants, and each component of the result is one dot product with one:
// dp3h (the column's .w adds the translation) for a point, dp3 for a vector or a normal, whose
// matrix is the inverse transpose. A projective matrix divides by the fourth, through _rcp.
Source FunctionCodegen::transform(BuiltinCall& bc) {
  using B = lang::Builtin;
  const std::vector<ir::ValueId>& args = bc.in.args;
  const std::map<std::string, ir::Matrix>& spaces = links_.spaces.at(module_index_);
  auto to_current = [&](const std::string& name) {
    if (name == "current" || name == "camera") return ir::identity_matrix();
    auto it = spaces.find(name);
    if (it != spaces.end()) return it->second;
    if (!lang::is_standard_space(name)) {
      std::string known;
      for (const auto& [n, _] : spaces) known += (known.empty() ? "" : ", ") + n;
      fail(bc.in.span, "the light setup defines no coordinate system \"" + name + "\"" +
                           (known.empty() ? "; add it under \"spaces\"" : " (it defines: " + known + ")"),
           "unknown-space");
    }
    return ir::identity_matrix();
  };
  auto inverse = [&](const ir::Matrix& m, const std::string& what) {
    ir::Matrix inv = ir::identity_matrix();
    if (!ir::invert(m, &inv)) fail(bc.in.span, "the matrix of " + what + " cannot be inverted", "singular-space");
    return inv;
  };
  auto space = [&](std::size_t k) -> std::string {
    const ir::Instr* s = literal_string(fn_, args[k]);
    if (!s) {
      if (fn_.at(args[k]).type == lang::BaseType::Matrix)
        fail(bc.in.span, "'" + bc.name + "' by a matrix computed when the shader runs needs matrices, which the RPU compiler does not support "
                             "(named coordinate systems and constant matrices it does)");
      fail(bc.in.span, "'" + bc.name + "' to a coordinate system chosen when the shader runs is not supported on the RPU (name it in the shader)");
    }
    return s->text;
  };
  // p' = p * m, as the interpreter's transform() builds m: from named spaces, or a matrix the
  // optimiser has folded to a constant (matrix(...) of numbers, or a surface's own parameter).
  ir::Matrix m{};
  const ir::Instr& first = fn_.at(args[0]);
  if (args.size() == 2 && first.op == ir::Op::Const && first.type == lang::BaseType::Matrix && first.data.size() == 16)
    std::copy(first.data.begin(), first.data.end(), m.begin());
  else
    m = args.size() == 3 ? ir::multiply(to_current(space(0)), inverse(to_current(space(1)), "space '" + space(1) + "'"))
                         : inverse(to_current(space(0)), "space '" + space(0) + "'");
  if (bc.id == B::Ntransform) {
    const ir::Matrix inv = inverse(m, "the transform");
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) m[static_cast<std::size_t>(i * 4 + j)] = inv[static_cast<std::size_t>(j * 4 + i)];
  }
  const Source p = bc.arg(args.size() - 1);
  if (m == ir::identity_matrix()) return p;
  const bool point = bc.id == B::Transform;
  auto column = [&](int j) {
    const Vec4 c{m[static_cast<std::size_t>(j)], m[static_cast<std::size_t>(4 + j)], m[static_cast<std::size_t>(8 + j)], point ? m[static_cast<std::size_t>(12 + j)] : 0.0f};
    const std::optional<std::uint32_t> k = constants_.index(c);
    if (!k) fail(bc.in.span, "the program transforms by more matrix columns than its 28 constant registers (C2-C29) hold");
    return Source::reg(Bank::C, *k);
  };
  const Opcode dot = point ? Opcode::Dp3h : Opcode::Dp3;
  const Loc r = bc.fresh(point ? "transform" : bc.id == B::Vtransform ? "vtransform" : "ntransform");
  for (int j = 0; j < 3; ++j) emit(dot, j == 0 ? vdst(f_, r) : bc.lane_dest(r, j), column(j), p);
  if (!point || (m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1)) return vsrc(f_, r);
  const Loc w = temp(RegClass::Scalar, "w"), q = bc.fresh("transform");
  emit(Opcode::Dp3h, vdst(f_, w), column(3), p);
  emit(Opcode::Mul, vdst(f_, q), vsrc(f_, r), bc.reciprocal(vsrc(f_, w)));
  return vsrc(f_, q);
}

// spline (Catmull-Rom, RI 3.2; the other bases lower to selects before code generation), beyond
// the thesis: x saturates to [0, 1] (NaN to 0, as the interpreter's), a chain of branches finds
// the segment, and each segment evaluates its four knots' cubic by Horner's rule:
// ((d t + c) t + b) t + 2 p1, halved.
Source FunctionCodegen::spline(BuiltinCall& bc) {
  const int knots = static_cast<int>(bc.in.args.size()) - 1, segments = knots - 3;
  if (segments < 1) fail(bc.in.span, "a spline needs at least four knots");
  const Loc x = temp(RegClass::Scalar, "spline.x"), pos = temp(RegClass::Scalar, "spline.pos");
  mov(vdst(f_, x), bc.arg(0));
  f_.blocks[cur_].body.back().word.primary.sat = true;
  emit(Opcode::Mul, vdst(f_, pos), vsrc(f_, x), Source::lit(static_cast<float>(segments)));
  const Loc r = bc.fresh("spline");
  const std::uint32_t join = new_block();
  for (int s = 0; s < segments; ++s) {
    if (s + 1 < segments) {
      const std::uint32_t take = new_block(), next = new_block();
      compare_branch(vsrc(f_, pos), Source::lit(static_cast<float>(s + 1)), kMaskW, Relation::Lt, take, next);
      set_block(take);
      segment_cubic(bc, s, vsrc(f_, pos), r);
      jump(join);
      set_block(next);
    } else {
      segment_cubic(bc, s, vsrc(f_, pos), r);
      jump(join);
    }
  }
  set_block(join);
  return vsrc(f_, r);
}

void FunctionCodegen::segment_cubic(BuiltinCall& bc, int s, const Source& pos, Loc r) {
  const Source p0 = bc.arg(static_cast<std::size_t>(1 + s)), p1 = bc.arg(static_cast<std::size_t>(2 + s)), p2 = bc.arg(static_cast<std::size_t>(3 + s)),
               p3 = bc.arg(static_cast<std::size_t>(4 + s));
  const Loc t = temp(RegClass::Scalar, "spline.t");
  emit(Opcode::Add, vdst(f_, t), pos, Source::lit(static_cast<float>(-s)));
  auto v = [&](const char* name) { return bc.fresh(name); };
  const Loc b = v("spline.b"), c0 = v("spline.c"), c1 = v("spline.c"), c = v("spline.c"), d0 = v("spline.d"), d1 = v("spline.d"), d = v("spline.d");
  emit(Opcode::Add, vdst(f_, b), p2, negated(p0));                                       // p2 - p0
  emit(Opcode::Mad, vdst(f_, c0), p1, Source::lit(-5), scaled(p0, 1, false));          // 2 p0 - 5 p1
  emit(Opcode::Add, vdst(f_, c1), vsrc(f_, c0), scaled(p2, 2, false));                  // + 4 p2
  emit(Opcode::Add, vdst(f_, c), vsrc(f_, c1), negated(p3));                            // - p3
  emit(Opcode::Mad, vdst(f_, d0), p1, Source::lit(3), negated(p0));                     // 3 p1 - p0
  emit(Opcode::Mad, vdst(f_, d1), p2, Source::lit(-3), vsrc(f_, d0));                   // - 3 p2
  emit(Opcode::Add, vdst(f_, d), vsrc(f_, d1), p3);                                     // + p3
  const Loc h0 = v("spline.h"), h1 = v("spline.h"), h2 = v("spline.h");
  emit(Opcode::Mad, vdst(f_, h0), vsrc(f_, d), vsrc(f_, t), vsrc(f_, c));
  emit(Opcode::Mad, vdst(f_, h1), vsrc(f_, h0), vsrc(f_, t), vsrc(f_, b));
  emit(Opcode::Mad, vdst(f_, h2), vsrc(f_, h1), vsrc(f_, t), scaled(p1, 1, false));
  emit(Opcode::Mul, vdst(f_, r), vsrc(f_, h2), Source::lit(0.5f));
}

Source FunctionCodegen::absolute(const Source& x, RegClass cls) {
  const Loc r = temp(cls, "abs");
  mov(vdst(f_, r), x);
  for (int l : lanes_of(cls)) {
    const std::uint32_t run = new_block(), join = new_block();
    compare_branch(lane_of(vsrc(f_, r), l), Source::lit(0), kMaskW, Relation::Ge, join, run);
    cur_ = run;
    mov(lane_dest(r, l), negated(lane_of(vsrc(f_, r), l)));
    jump(join);
    cur_ = join;
  }
  return vsrc(f_, r);
}

// min, max, abs, clamp and their kin branch lane by lane; floor and its kin by frac; smoothstep
// and mix by multiply-adds.
Source FunctionCodegen::builtin_math(BuiltinCall& bc) {
  using B = lang::Builtin;
  switch (bc.id) {
    case B::Abs: return absolute(bc.arg(0), bc.cls);
    case B::Sign: {  // the thesis's sign: 1 for x >= 0 (zero has no reliable test on the hardware), else -1
      const Source x = bc.arg(0);
      const Loc r = bc.fresh("sign");
      mov(vdst(f_, r), Source::lit(1));
      for (int l : lanes_of(bc.cls)) bc.unless(lane_of(x, l), Source::lit(0), Relation::Ge, [&] { mov(bc.lane_dest(r, l), Source::lit(-1)); });
      return vsrc(f_, r);
    }
    case B::Floor: {
      const Source x = bc.arg(0);
      const Loc f = bc.fresh("frac"), r = bc.fresh("floor");
      emit(Opcode::Frac, vdst(f_, f), x);
      emit(Opcode::Add, vdst(f_, r), x, negated(vsrc(f_, f)));
      exact();
      return vsrc(f_, r);
    }
    case B::Ceil: {  // x + frac(-x)
      const Source x = bc.arg(0);
      const Loc f = bc.fresh("frac"), r = bc.fresh("ceil");
      emit(Opcode::Frac, vdst(f_, f), negated(x));
      emit(Opcode::Add, vdst(f_, r), x, vsrc(f_, f));
      exact();
      return vsrc(f_, r);
    }
    case B::Round: {  // halves away from zero: floor(x + 0.5), and -floor(-x + 0.5) below zero
      const Source x = bc.arg(0);
      const Loc a = bc.fresh("t"), f = bc.fresh("frac"), r = bc.fresh("round");
      emit(Opcode::Add, vdst(f_, a), x, Source::lit(0.5f));
      emit(Opcode::Frac, vdst(f_, f), vsrc(f_, a));
      emit(Opcode::Add, vdst(f_, r), vsrc(f_, a), negated(vsrc(f_, f)));
      exact();
      for (int l : lanes_of(bc.cls))
        bc.unless(lane_of(x, l), Source::lit(0), Relation::Ge, [&] {
          const Loc b = temp(RegClass::Scalar, "t"), g = temp(RegClass::Scalar, "frac");
          emit(Opcode::Add, vdst(f_, b), negated(lane_of(x, l)), Source::lit(0.5f));
          emit(Opcode::Frac, vdst(f_, g), vsrc(f_, b));
          emit(Opcode::Add, bc.lane_dest(r, l), negated(vsrc(f_, b)), vsrc(f_, g));
          exact();
        });
      return vsrc(f_, r);
    }
    case B::Mod: {  // a - b floor(a / b), the floor by frac, the last step one mad
      const Source a = bc.arg(0), b = bc.arg(1);
      const Loc inv = bc.fresh("rcp"), q = bc.fresh("q"), f = bc.fresh("frac"), fl = bc.fresh("floor"), r = bc.fresh("mod");
      if (bc.cls == RegClass::Scalar) {
        mov(vdst(f_, inv), bc.reciprocal(b));
      } else {
        for (int l : lanes_of(bc.cls)) mov(l == 0 ? vdst(f_, inv) : bc.lane_dest(inv, l), bc.reciprocal(lane_of(b, l)));
      }
      emit(Opcode::Mul, vdst(f_, q), a, vsrc(f_, inv));
      emit(Opcode::Frac, vdst(f_, f), vsrc(f_, q));
      emit(Opcode::Add, vdst(f_, fl), vsrc(f_, q), negated(vsrc(f_, f)));
      exact();
      emit(Opcode::Mad, vdst(f_, r), negated(b), vsrc(f_, fl), a);
      return vsrc(f_, r);
    }
    case B::Min:
    case B::Max: {
      const Loc r = bc.fresh(bc.id == B::Min ? "min" : "max");
      mov(vdst(f_, r), bc.arg(0));
      for (std::size_t k = 1; k < bc.in.args.size(); ++k) {
        const Source y = bc.arg(k);
        for (int l : lanes_of(bc.cls)) {
          // min: keep r unless y < r; max: keep r unless r < y.
          const Source rl = lane_of(vsrc(f_, r), l), yl = lane_of(y, l);
          if (bc.id == B::Min) bc.unless(yl, rl, Relation::Ge, [&] { mov(bc.lane_dest(r, l), yl); });
          else bc.unless(rl, yl, Relation::Ge, [&] { mov(bc.lane_dest(r, l), yl); });
        }
      }
      return vsrc(f_, r);
    }
    case B::Clamp: {  // min(max(x, lo), hi), two branches a lane
      const Source lo = bc.arg(1), hi = bc.arg(2);
      const Loc r = bc.fresh("clamp");
      mov(vdst(f_, r), bc.arg(0));
      // clamp(x, 0, 1) is the _sat modifier (beyond the thesis, whose compiler branched): NaN
      // goes to 0 either way. Simplification moves it onto the operation that computed x.
      if (lo.is_literal() && hi.is_literal() && lo.literal_value() == 0 && hi.literal_value() == 1) {
        f_.blocks[cur_].body.back().word.primary.sat = true;
        return vsrc(f_, r);
      }
      for (int l : lanes_of(bc.cls)) {
        bc.unless(lane_of(vsrc(f_, r), l), lane_of(lo, l), Relation::Ge, [&] { mov(bc.lane_dest(r, l), lane_of(lo, l)); });
        bc.unless(lane_of(hi, l), lane_of(vsrc(f_, r), l), Relation::Ge, [&] { mov(bc.lane_dest(r, l), lane_of(hi, l)); });
      }
      return vsrc(f_, r);
    }
    case B::Mix: {  // a + (b - a) t
      const Source a = bc.arg(0), b = bc.arg(1), t = bc.arg(2);
      const Loc d = bc.fresh("t"), r = bc.fresh("mix");
      emit(Opcode::Add, vdst(f_, d), b, negated(a));
      emit(Opcode::Mad, vdst(f_, r), vsrc(f_, d), t, a);
      return vsrc(f_, r);
    }
    case B::Step: {  // 0 below the edge, else 1
      const Source edge = bc.arg(0), x = bc.arg(1);
      const Loc r = bc.fresh("step");
      mov(vdst(f_, r), Source::lit(1));
      bc.unless(x, edge, Relation::Ge, [&] { mov(vdst(f_, r), Source::lit(0)); });
      return vsrc(f_, r);
    }
    case B::Smoothstep: {
      const Source lo = bc.arg(0), hi = bc.arg(1), x = bc.arg(2);
      const Loc r = bc.fresh("smoothstep");
      mov(vdst(f_, r), Source::lit(0));
      const std::uint32_t above_lo = new_block(), ramp = new_block(), top = new_block(), join = new_block();
      compare_branch(x, lo, kMaskW, Relation::Ge, above_lo, join);
      set_block(above_lo);
      compare_branch(x, hi, kMaskW, Relation::Ge, top, ramp);
      set_block(top);
      mov(vdst(f_, r), Source::lit(1));
      jump(join);
      set_block(ramp);
      const Loc num = bc.fresh("t"), den = bc.fresh("t"), t = bc.fresh("t"), u = bc.fresh("t"), t2 = bc.fresh("t");
      emit(Opcode::Add, vdst(f_, num), x, negated(lo));
      emit(Opcode::Add, vdst(f_, den), hi, negated(lo));
      emit(Opcode::Mul, vdst(f_, t), vsrc(f_, num), bc.reciprocal(vsrc(f_, den)));
      emit(Opcode::Add, vdst(f_, u), Source::lit(3), scaled(vsrc(f_, t), 1, true));  // 3 - 2t
      emit(Opcode::Mul, vdst(f_, t2), vsrc(f_, t), vsrc(f_, t));
      emit(Opcode::Mul, vdst(f_, r), vsrc(f_, t2), vsrc(f_, u));
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    default: break;
  }
  fail(bc.in.span, "'" + bc.name + "' is not supported on the RPU");
}

// Angles, lengths, directions, transforms and the components of triples.
Source FunctionCodegen::builtin_geometry(BuiltinCall& bc) {
  using B = lang::Builtin;
  switch (bc.id) {
    case B::Radians:
    case B::Degrees: {
      const Loc r = bc.fresh(bc.id == B::Radians ? "radians" : "degrees");
      emit(Opcode::Mul, vdst(f_, r), bc.arg(0), Source::lit(bc.id == B::Radians ? 0.017453292519943295f : 57.29577951308232f));
      return vsrc(f_, r);
    }
    case B::Length:
    case B::Distance: {
      Source v = bc.arg(0);
      if (bc.id == B::Distance) {
        const Loc d = temp(RegClass::Vector, "t");
        emit(Opcode::Add, vdst(f_, d), v, negated(bc.arg(1)));
        v = vsrc(f_, d);
      }
      const Loc dd = temp(RegClass::Scalar, "t");
      emit(Opcode::Dp3, vdst(f_, dd), v, v);
      return bc.sqrt_of(vsrc(f_, dd));
    }
    case B::Normalize: {
      const Source v = bc.arg(0);
      const Loc dd = temp(RegClass::Scalar, "t"), r = bc.fresh("normalized");
      emit(Opcode::Dp3, vdst(f_, dd), v, v);
      emit(Opcode::Mul, vdst(f_, r), v, special(SpecialFn::Rsq, vsrc(f_, dd)));
      return vsrc(f_, r);
    }
    case B::Faceforward: {  // N, flipped unless I points against Nref (default N)
      const Source n = bc.arg(0), i = bc.arg(1), ref = bc.in.args.size() > 2 ? bc.arg(2) : n;
      const Loc d = temp(RegClass::Scalar, "t"), r = bc.fresh("faceforward");
      emit(Opcode::Dp3, vdst(f_, d), i, ref);
      mov(vdst(f_, r), n);
      const std::uint32_t flip = new_block(), join = new_block();
      compare_branch(vsrc(f_, d), Source::lit(0), kMaskW, Relation::Ge, flip, join);
      set_block(flip);
      mov(vdst(f_, r), negated(n));
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    case B::Reflect: {  // I - 2 (I.N) N
      const Source i = bc.arg(0), n = bc.arg(1);
      const Loc d = temp(RegClass::Scalar, "t"), r = bc.fresh("reflect");
      emit(Opcode::Dp3, vdst(f_, d), i, n);
      emit(Opcode::Mad, vdst(f_, r), scaled(vsrc(f_, d), 1, true), n, i);
      return vsrc(f_, r);
    }
    case B::Refract: {
      const Source i = bc.arg(0), n = bc.arg(1), eta = bc.arg(2);
      const Loc d = temp(RegClass::Scalar, "t"), d2 = temp(RegClass::Scalar, "t"), e2 = temp(RegClass::Scalar, "t"),
                k = temp(RegClass::Scalar, "k"), r = bc.fresh("refract");
      emit(Opcode::Dp3, vdst(f_, d), i, n);
      emit(Opcode::Mad, vdst(f_, d2), negated(vsrc(f_, d)), vsrc(f_, d), Source::lit(1));  // 1 - d^2
      emit(Opcode::Mul, vdst(f_, e2), eta, eta);
      emit(Opcode::Mad, vdst(f_, k), negated(vsrc(f_, e2)), vsrc(f_, d2), Source::lit(1));  // 1 - eta^2 (1 - d^2)
      mov(vdst(f_, r), Source::lit(0));
      const std::uint32_t bend = new_block(), join = new_block();
      compare_branch(vsrc(f_, k), Source::lit(0), kMaskW, Relation::Ge, bend, join);
      set_block(bend);
      const Loc c = temp(RegClass::Scalar, "t"), ei = temp(RegClass::Vector, "t");
      emit(Opcode::Mad, vdst(f_, c), eta, vsrc(f_, d), bc.sqrt_of(vsrc(f_, k)));  // eta d + sqrt(k)
      emit(Opcode::Mul, vdst(f_, ei), i, eta);
      emit(Opcode::Mad, vdst(f_, r), negated(vsrc(f_, c)), n, vsrc(f_, ei));
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    case B::Transform:
    case B::Vtransform:
    case B::Ntransform: return transform(bc);
    case B::Xcomp: return lane_of(bc.arg(0), 0);
    case B::Ycomp: return lane_of(bc.arg(0), 1);
    case B::Zcomp: return lane_of(bc.arg(0), 2);
    case B::Comp: {
      if (fn_.at(bc.in.args[0]).type == lang::BaseType::Matrix) fail(bc.in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
      const Source v = bc.arg(0), i = bc.arg(1);
      if (i.is_literal()) {
        const float k = i.literal_value();
        if (k >= 0 && k < 3) return lane_of(v, static_cast<int>(k));
        return Source::lit(0);
      }
      // Out of [0, 3) reads zero, like the reference; else the lane the index truncates to.
      const Loc r = temp(RegClass::Scalar, "comp");
      mov(vdst(f_, r), Source::lit(0));
      const std::uint32_t join = new_block();
      std::uint32_t next = new_block();
      compare_branch(i, Source::lit(0), kMaskW, Relation::Ge, next, join);
      for (int l = 0; l < 3; ++l) {
        set_block(next);
        const std::uint32_t take = new_block();
        next = new_block();
        compare_branch(i, Source::lit(static_cast<float>(l + 1)), kMaskW, Relation::Ge, next, take);
        set_block(take);
        mov(vdst(f_, r), lane_of(v, l));
        jump(join);
      }
      set_block(next);
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    case B::Setcomp:
    case B::Setxcomp:
    case B::Setycomp:
    case B::Setzcomp: {
      const Source v = bc.arg(0), x = use(bc.in.args.back());
      const Loc r = temp(RegClass::Vector, "setcomp");
      mov(vdst(f_, r), v);
      const int fixed = bc.id == B::Setxcomp ? 0 : bc.id == B::Setycomp ? 1 : bc.id == B::Setzcomp ? 2 : -1;
      if (fixed >= 0) {
        mov(bc.lane_dest(r, fixed), lane_of(x, 3));
        return vsrc(f_, r);
      }
      const Source i = bc.arg(1);
      if (i.is_literal()) {
        const float k = i.literal_value();
        if (k >= 0 && k < 3) mov(bc.lane_dest(r, static_cast<int>(k)), lane_of(x, 3));
        return vsrc(f_, r);
      }
      const std::uint32_t join = new_block();
      std::uint32_t next = new_block();
      compare_branch(i, Source::lit(0), kMaskW, Relation::Ge, next, join);
      for (int l = 0; l < 3; ++l) {
        set_block(next);
        const std::uint32_t take = new_block();
        next = new_block();
        compare_branch(i, Source::lit(static_cast<float>(l + 1)), kMaskW, Relation::Ge, next, take);
        set_block(take);
        mov(bc.lane_dest(r, l), lane_of(x, 3));
        jump(join);
      }
      set_block(next);
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    default: break;
  }
  fail(bc.in.span, "'" + bc.name + "' is not supported on the RPU");
}

}  // namespace passlab::rpu::detail
