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

namespace passlab::rpu::detail {

namespace {

Source negated(Source s) {
  s.negate = !s.negate;
  return s;
}

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

Source FunctionCodegen::builtin(const ir::Instr& in) {
  using B = lang::Builtin;
  const auto id = static_cast<B>(in.aux);
  const lang::Signature& sig = lang::signature_of(id);
  const std::string name = lang::to_string(id);
  if (sig.derivative) fail(in.span, "'" + name + "' needs screen-space derivatives; the RPU shades one ray at a time");
  if (sig.needs_lights) fail(in.span, "'" + name + "' reached code generation unexpanded", "internal-error");
  auto arg = [&](std::size_t i) { return use(in.args.at(i)); };
  const std::optional<RegClass> result_class = class_of(in.type);
  const RegClass cls = result_class.value_or(RegClass::Scalar);
  auto fresh = [&](const char* n) { return temp(cls, n); };
  // if (x - y passes rel) skip, else run `body`: one branch around a block.
  auto unless = [&](const Source& x, const Source& y, Relation rel, const std::function<void()>& body) {
    const std::uint32_t run = new_block(), join = new_block();
    compare_branch(x, y, kMaskW, rel, join, run);
    set_block(run);
    body();
    jump(join);
    set_block(join);
  };
  auto lane_dest = [&](Loc r, int lane) { return Dest{Bank::Virtual, r, static_cast<std::uint8_t>(1u << lane)}; };
  auto reciprocal = [&](const Source& x) { return special(SpecialFn::Rcp, x); };
  auto sqrt_of = [&](const Source& x) { return special(SpecialFn::Rcp, special(SpecialFn::Rsq, x)); };

  switch (id) {
    case B::Abs: {
      const Loc r = fresh("abs");
      mov(vdst(f_, r), arg(0));
      for (int l : lanes_of(cls)) unless(lane_of(vsrc(f_, r), l), Source::lit(0), Relation::Ge, [&] { mov(lane_dest(r, l), negated(lane_of(vsrc(f_, r), l))); });
      return vsrc(f_, r);
    }
    case B::Sign: {  // the thesis's sign: 1 for x >= 0 (zero has no reliable test on the hardware), else -1
      const Source x = arg(0);
      const Loc r = fresh("sign");
      mov(vdst(f_, r), Source::lit(1));
      for (int l : lanes_of(cls)) unless(lane_of(x, l), Source::lit(0), Relation::Ge, [&] { mov(lane_dest(r, l), Source::lit(-1)); });
      return vsrc(f_, r);
    }
    case B::Floor: {
      const Source x = arg(0);
      const Loc f = fresh("frac"), r = fresh("floor");
      emit(Opcode::Frac, vdst(f_, f), x);
      emit(Opcode::Add, vdst(f_, r), x, negated(vsrc(f_, f)));
      exact();
      return vsrc(f_, r);
    }
    case B::Ceil: {  // x + frac(-x)
      const Source x = arg(0);
      const Loc f = fresh("frac"), r = fresh("ceil");
      emit(Opcode::Frac, vdst(f_, f), negated(x));
      emit(Opcode::Add, vdst(f_, r), x, vsrc(f_, f));
      exact();
      return vsrc(f_, r);
    }
    case B::Round: {  // halves away from zero: floor(x + 0.5), and -floor(-x + 0.5) below zero
      const Source x = arg(0);
      const Loc a = fresh("t"), f = fresh("frac"), r = fresh("round");
      emit(Opcode::Add, vdst(f_, a), x, Source::lit(0.5f));
      emit(Opcode::Frac, vdst(f_, f), vsrc(f_, a));
      emit(Opcode::Add, vdst(f_, r), vsrc(f_, a), negated(vsrc(f_, f)));
      exact();
      for (int l : lanes_of(cls))
        unless(lane_of(x, l), Source::lit(0), Relation::Ge, [&] {
          const Loc b = temp(RegClass::Scalar, "t"), g = temp(RegClass::Scalar, "frac");
          emit(Opcode::Add, vdst(f_, b), negated(lane_of(x, l)), Source::lit(0.5f));
          emit(Opcode::Frac, vdst(f_, g), vsrc(f_, b));
          emit(Opcode::Add, lane_dest(r, l), negated(vsrc(f_, b)), vsrc(f_, g));
          exact();
        });
      return vsrc(f_, r);
    }
    case B::Mod: {  // a - b floor(a / b), the floor by frac, the last step one mad
      const Source a = arg(0), b = arg(1);
      const Loc inv = fresh("rcp"), q = fresh("q"), f = fresh("frac"), fl = fresh("floor"), r = fresh("mod");
      if (cls == RegClass::Scalar) {
        mov(vdst(f_, inv), reciprocal(b));
      } else {
        for (int l : lanes_of(cls)) mov(l == 0 ? vdst(f_, inv) : lane_dest(inv, l), reciprocal(lane_of(b, l)));
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
      const Loc r = fresh(id == B::Min ? "min" : "max");
      mov(vdst(f_, r), arg(0));
      for (std::size_t k = 1; k < in.args.size(); ++k) {
        const Source y = arg(k);
        for (int l : lanes_of(cls)) {
          // min: keep r unless y < r; max: keep r unless r < y.
          const Source rl = lane_of(vsrc(f_, r), l), yl = lane_of(y, l);
          if (id == B::Min) unless(yl, rl, Relation::Ge, [&] { mov(lane_dest(r, l), yl); });
          else unless(rl, yl, Relation::Ge, [&] { mov(lane_dest(r, l), yl); });
        }
      }
      return vsrc(f_, r);
    }
    case B::Clamp: {  // min(max(x, lo), hi), two branches a lane
      const Source lo = arg(1), hi = arg(2);
      const Loc r = fresh("clamp");
      mov(vdst(f_, r), arg(0));
      for (int l : lanes_of(cls)) {
        unless(lane_of(vsrc(f_, r), l), lane_of(lo, l), Relation::Ge, [&] { mov(lane_dest(r, l), lane_of(lo, l)); });
        unless(lane_of(hi, l), lane_of(vsrc(f_, r), l), Relation::Ge, [&] { mov(lane_dest(r, l), lane_of(hi, l)); });
      }
      return vsrc(f_, r);
    }
    case B::Mix: {  // a + (b - a) t
      const Source a = arg(0), b = arg(1), t = arg(2);
      const Loc d = fresh("t"), r = fresh("mix");
      emit(Opcode::Add, vdst(f_, d), b, negated(a));
      emit(Opcode::Mad, vdst(f_, r), vsrc(f_, d), t, a);
      return vsrc(f_, r);
    }
    case B::Step: {  // 0 below the edge, else 1
      const Source edge = arg(0), x = arg(1);
      const Loc r = fresh("step");
      mov(vdst(f_, r), Source::lit(1));
      unless(x, edge, Relation::Ge, [&] { mov(vdst(f_, r), Source::lit(0)); });
      return vsrc(f_, r);
    }
    case B::Smoothstep: {
      const Source lo = arg(0), hi = arg(1), x = arg(2);
      const Loc r = fresh("smoothstep");
      mov(vdst(f_, r), Source::lit(0));
      const std::uint32_t above_lo = new_block(), ramp = new_block(), top = new_block(), join = new_block();
      compare_branch(x, lo, kMaskW, Relation::Ge, above_lo, join);
      set_block(above_lo);
      compare_branch(x, hi, kMaskW, Relation::Ge, top, ramp);
      set_block(top);
      mov(vdst(f_, r), Source::lit(1));
      jump(join);
      set_block(ramp);
      const Loc num = fresh("t"), den = fresh("t"), t = fresh("t"), u = fresh("t"), t2 = fresh("t");
      emit(Opcode::Add, vdst(f_, num), x, negated(lo));
      emit(Opcode::Add, vdst(f_, den), hi, negated(lo));
      emit(Opcode::Mul, vdst(f_, t), vsrc(f_, num), reciprocal(vsrc(f_, den)));
      emit(Opcode::Add, vdst(f_, u), Source::lit(3), scaled(vsrc(f_, t), 1, true));  // 3 - 2t
      emit(Opcode::Mul, vdst(f_, t2), vsrc(f_, t), vsrc(f_, t));
      emit(Opcode::Mul, vdst(f_, r), vsrc(f_, t2), vsrc(f_, u));
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    case B::Sqrt: return sqrt_of(arg(0));
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
    case B::Radians:
    case B::Degrees: {
      const Loc r = fresh(id == B::Radians ? "radians" : "degrees");
      emit(Opcode::Mul, vdst(f_, r), arg(0), Source::lit(id == B::Radians ? 0.017453292519943295f : 57.29577951308232f));
      return vsrc(f_, r);
    }
    case B::Length:
    case B::Distance: {
      Source v = arg(0);
      if (id == B::Distance) {
        const Loc d = temp(RegClass::Vector, "t");
        emit(Opcode::Add, vdst(f_, d), v, negated(arg(1)));
        v = vsrc(f_, d);
      }
      const Loc dd = temp(RegClass::Scalar, "t");
      emit(Opcode::Dp3, vdst(f_, dd), v, v);
      return sqrt_of(vsrc(f_, dd));
    }
    case B::Normalize: {
      const Source v = arg(0);
      const Loc dd = temp(RegClass::Scalar, "t"), r = fresh("normalized");
      emit(Opcode::Dp3, vdst(f_, dd), v, v);
      emit(Opcode::Mul, vdst(f_, r), v, special(SpecialFn::Rsq, vsrc(f_, dd)));
      return vsrc(f_, r);
    }
    case B::Faceforward: {  // N, flipped unless I points against Nref (default N)
      const Source n = arg(0), i = arg(1), ref = in.args.size() > 2 ? arg(2) : n;
      const Loc d = temp(RegClass::Scalar, "t"), r = fresh("faceforward");
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
      const Source i = arg(0), n = arg(1);
      const Loc d = temp(RegClass::Scalar, "t"), r = fresh("reflect");
      emit(Opcode::Dp3, vdst(f_, d), i, n);
      emit(Opcode::Mad, vdst(f_, r), scaled(vsrc(f_, d), 1, true), n, i);
      return vsrc(f_, r);
    }
    case B::Refract: {
      const Source i = arg(0), n = arg(1), eta = arg(2);
      const Loc d = temp(RegClass::Scalar, "t"), d2 = temp(RegClass::Scalar, "t"), e2 = temp(RegClass::Scalar, "t"),
                k = temp(RegClass::Scalar, "k"), r = fresh("refract");
      emit(Opcode::Dp3, vdst(f_, d), i, n);
      emit(Opcode::Mad, vdst(f_, d2), negated(vsrc(f_, d)), vsrc(f_, d), Source::lit(1));  // 1 - d^2
      emit(Opcode::Mul, vdst(f_, e2), eta, eta);
      emit(Opcode::Mad, vdst(f_, k), negated(vsrc(f_, e2)), vsrc(f_, d2), Source::lit(1));  // 1 - eta^2 (1 - d^2)
      mov(vdst(f_, r), Source::lit(0));
      const std::uint32_t bend = new_block(), join = new_block();
      compare_branch(vsrc(f_, k), Source::lit(0), kMaskW, Relation::Ge, bend, join);
      set_block(bend);
      const Loc c = temp(RegClass::Scalar, "t"), ei = temp(RegClass::Vector, "t");
      emit(Opcode::Mad, vdst(f_, c), eta, vsrc(f_, d), sqrt_of(vsrc(f_, k)));  // eta d + sqrt(k)
      emit(Opcode::Mul, vdst(f_, ei), i, eta);
      emit(Opcode::Mad, vdst(f_, r), negated(vsrc(f_, c)), n, vsrc(f_, ei));
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    case B::Transform:
    case B::Vtransform:
    case B::Ntransform: {
      // Only the camera's own space: every other one needs a matrix.
      for (std::size_t k = 0; k + 1 < in.args.size(); ++k) {
        const ir::Instr* s = literal_string(fn_, in.args[k]);
        if (!s) fail(in.span, "'" + name + "' with a matrix or a computed space name needs matrices, which the RPU compiler does not support");
        if (s->text != "current" && s->text != "camera")
          fail(in.span, "coordinate system \"" + s->text + "\" needs a matrix, which the RPU compiler does not support (only \"current\" and \"camera\")");
      }
      return arg(in.args.size() - 1);
    }
    case B::Xcomp: return lane_of(arg(0), 0);
    case B::Ycomp: return lane_of(arg(0), 1);
    case B::Zcomp: return lane_of(arg(0), 2);
    case B::Comp: {
      if (fn_.at(in.args[0]).type == lang::BaseType::Matrix) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
      const Source v = arg(0), i = arg(1);
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
      const Source v = arg(0), x = use(in.args.back());
      const Loc r = temp(RegClass::Vector, "setcomp");
      mov(vdst(f_, r), v);
      const int fixed = id == B::Setxcomp ? 0 : id == B::Setycomp ? 1 : id == B::Setzcomp ? 2 : -1;
      if (fixed >= 0) {
        mov(lane_dest(r, fixed), lane_of(x, 3));
        return vsrc(f_, r);
      }
      const Source i = arg(1);
      if (i.is_literal()) {
        const float k = i.literal_value();
        if (k >= 0 && k < 3) mov(lane_dest(r, static_cast<int>(k)), lane_of(x, 3));
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
        mov(lane_dest(r, l), lane_of(x, 3));
        jump(join);
      }
      set_block(next);
      jump(join);
      set_block(join);
      return vsrc(f_, r);
    }
    case B::Spline: fail(in.span, "'spline' is not supported on the RPU");
    case B::Trace: return trace(arg(0), arg(1), in.span);
    case B::Visibility: return visibility(arg(0), arg(1));
    case B::Raylevel: return f_.shader ? vsrc(f_, level_) : Source::lit(0);
    case B::PerVertex: return arg(0);  // a ray has no vertices: the value at the hit itself
    default: break;
  }
  fail(in.span, "'" + name + "' is not supported on the RPU");
}

}  // namespace passlab::rpu::detail
