// SPDX-License-Identifier: GPL-3.0-or-later
// Screen-space derivatives on the RPU (Passlab's extension; see quad.h for the quad that runs
// them). A shader that takes one differences its values across its pixel quad with `ddx` and
// `ddy`, and the chain rule turns those differences into RSL's derivatives exactly as the
// reference interpreter does (core/ir/derivatives.h):
//
//   Du(x) = (X vy - Y vx) / det,   Dv(x) = (ux Y - uy X) / det,   det = ux vy - uy vx,
//
// X = ddx x and Y = ddy x; ux, uy, vx, vy the differences of u and v, taken once at the shader's
// entry. du and dv are |ux| + |uy| and |vx| + |vy|, how far u and v move across a pixel.
#include "backends/rpu/codegen_internal.h"

namespace passlab::rpu::detail {

bool FunctionCodegen::takes_derivatives() const {
  for (const ir::Instr& in : fn_.values) {
    if (in.removed) continue;
    if (in.op == ir::Op::Builtin && lang::signature_of(static_cast<lang::Builtin>(in.aux)).derivative) return true;
    if (in.op == ir::Op::Global && (static_cast<lang::Global>(in.aux) == lang::Global::du || static_cast<lang::Global>(in.aux) == lang::Global::dv))
      return true;
  }
  return false;
}

void FunctionCodegen::derivative_prologue() {
  using G = lang::Global;
  const Source u = global(G::u, span_), v = global(G::v, span_);
  ux_ = temp(RegClass::Scalar, "ddx.u");
  uy_ = temp(RegClass::Scalar, "ddy.u");
  vx_ = temp(RegClass::Scalar, "ddx.v");
  vy_ = temp(RegClass::Scalar, "ddy.v");
  emit(Opcode::Ddx, vdst(f_, ux_), u);
  emit(Opcode::Ddy, vdst(f_, uy_), u);
  emit(Opcode::Ddx, vdst(f_, vx_), v);
  emit(Opcode::Ddy, vdst(f_, vy_), v);
  const Loc a = temp(RegClass::Scalar, "t"), b = temp(RegClass::Scalar, "t"), det = temp(RegClass::Scalar, "det");
  emit(Opcode::Mul, vdst(f_, a), vsrc(f_, ux_), vsrc(f_, vy_));
  emit(Opcode::Mul, vdst(f_, b), vsrc(f_, uy_), vsrc(f_, vx_));
  emit(Opcode::Add, vdst(f_, det), vsrc(f_, a), negated(vsrc(f_, b)));
  exact();
  rdet_ = temp(RegClass::Scalar, "1/det");
  mov(vdst(f_, rdet_), special(SpecialFn::Rcp, vsrc(f_, det)));
  derivatives_ready_ = true;
  // du and dv here too, where every use sees them: area() asks for them wherever it is taken
  // (the body of one light of an illuminance loop, say), and a global is computed once.
  global(G::du, span_);
  global(G::dv, span_);
}

Source FunctionCodegen::pixel_step(bool along_u) {
  if (!derivatives_ready_) fail(span_, "du and dv are differences across the pixel quad, which only a surface shader has on the RPU");
  const Loc r = temp(RegClass::Scalar, along_u ? "du" : "dv");
  const Source x = absolute(vsrc(f_, along_u ? ux_ : vx_), RegClass::Scalar);
  const Source y = absolute(vsrc(f_, along_u ? uy_ : vy_), RegClass::Scalar);
  emit(Opcode::Add, vdst(f_, r), x, y);
  return vsrc(f_, r);
}

Source FunctionCodegen::partial(bool along_u, const Source& x, RegClass cls) {
  const Loc dx = temp(cls, "ddx"), dy = temp(cls, "ddy"), a = temp(cls, "t"), b = temp(cls, "t"), r = temp(cls, along_u ? "Du" : "Dv");
  emit(Opcode::Ddx, vdst(f_, dx), x);
  emit(Opcode::Ddy, vdst(f_, dy), x);
  auto w = [&](Loc s) { return lane_of(vsrc(f_, s), 3); };
  // Both products rounded, then subtracted as written (no mad): Dv(u) = (ux uy - uy ux) / det is
  // then exactly 0, as the reference has it, and Deriv leaves its term out; a mad would leave the
  // product's rounding error, and Deriv would divide by it.
  if (along_u) {  // (X vy - Y vx) / det
    emit(Opcode::Mul, vdst(f_, a), vsrc(f_, dx), w(vy_));
    emit(Opcode::Mul, vdst(f_, b), vsrc(f_, dy), w(vx_));
  } else {  // (ux Y - uy X) / det
    emit(Opcode::Mul, vdst(f_, a), vsrc(f_, dy), w(ux_));
    emit(Opcode::Mul, vdst(f_, b), vsrc(f_, dx), w(uy_));
  }
  emit(Opcode::Add, vdst(f_, r), vsrc(f_, a), negated(vsrc(f_, b)));
  exact();
  emit(Opcode::Mul, vdst(f_, r), vsrc(f_, r), w(rdet_));
  return vsrc(f_, r);
}

Source FunctionCodegen::derivative(const ir::Instr& in) {
  using B = lang::Builtin;
  const auto id = static_cast<B>(in.aux);
  if (!derivatives_ready_)
    fail(in.span, "'" + std::string(lang::to_string(id)) +
                      "' takes differences across the pixel quad, which on the RPU only a surface shader has (main and functions kept as "
                      "calls shade no pixel quad); take it in the shader and pass the result");
  const RegClass cls = class_of(in.type).value_or(RegClass::Scalar);
  // a ^ b with both products rounded before they are subtracted (not the thesis's mul + mad): the
  // normal of a surface whose differences are parallel, calculatenormal(point(f)) of a float f
  // say, is then exactly 0, as the reference has it, not the mad's rounding error.
  auto cross = [&](const Source& a, const Source& b, const char* name) {
    const Loc t = temp(RegClass::Vector, "t"), t2 = temp(RegClass::Vector, "t"), r = temp(RegClass::Vector, name);
    emit(Opcode::Mul, vdst(f_, t), swizzled(a, {{1, 2, 0, 0}}), swizzled(b, {{2, 0, 1, 1}}));
    emit(Opcode::Mul, vdst(f_, t2), swizzled(a, {{2, 0, 1, 1}}), swizzled(b, {{1, 2, 0, 0}}));
    emit(Opcode::Add, vdst(f_, r), vsrc(f_, t), negated(vsrc(f_, t2)));
    exact();
    return vsrc(f_, r);
  };
  switch (id) {
    case B::Du:
    case B::Dv: return partial(id == B::Du, use(in.args.at(0)), cls);
    case B::Deriv: {
      // Du(num) / Du(den) + Dv(num) / Dv(den), a term whose denominator is 0 left out.
      const Source num = use(in.args.at(0)), den = use(in.args.at(1));
      const Source nu = partial(true, num, cls), nv = partial(false, num, cls);
      const Source eu = partial(true, den, RegClass::Scalar), ev = partial(false, den, RegClass::Scalar);
      const Loc r = temp(cls, "Deriv");
      mov(vdst(f_, r), Source::lit(0));
      for (int k = 0; k < 2; ++k) {
        const Source& n = k ? nv : nu;
        const Source& e = k ? ev : eu;
        const std::uint32_t add = new_block(), join = new_block();
        compare_branch(e, Source::lit(0), kMaskW, Relation::Eq, join, add);
        cur_ = add;
        emit(Opcode::Mad, vdst(f_, r), n, special(SpecialFn::Rcp, e), vsrc(f_, r));
        jump(join);
        cur_ = join;
      }
      return vsrc(f_, r);
    }
    case B::Calculatenormal: {
      const Source p = use(in.args.at(0));
      return cross(partial(true, p, RegClass::Vector), partial(false, p, RegClass::Vector), "calculatenormal");
    }
    case B::Area: {
      // length(Du(P) du ^ Dv(P) dv)
      const Source p = use(in.args.at(0));
      const Source du = global(lang::Global::du, in.span), dv = global(lang::Global::dv, in.span);
      const Loc a = temp(RegClass::Vector, "Du.du"), b = temp(RegClass::Vector, "Dv.dv");
      emit(Opcode::Mul, vdst(f_, a), partial(true, p, RegClass::Vector), lane_of(du, 3));
      emit(Opcode::Mul, vdst(f_, b), partial(false, p, RegClass::Vector), lane_of(dv, 3));
      const Source n = cross(vsrc(f_, a), vsrc(f_, b), "n");
      const Loc d = temp(RegClass::Scalar, "t");
      emit(Opcode::Dp3, vdst(f_, d), n, n);
      const Loc r = temp(RegClass::Scalar, "area");
      mov(vdst(f_, r), special(SpecialFn::Rcp, special(SpecialFn::Rsq, vsrc(f_, d))));
      return vsrc(f_, r);
    }
    default: break;
  }
  fail(in.span, "'" + std::string(lang::to_string(id)) + "' is not supported on the RPU");
}

}  // namespace passlab::rpu::detail
