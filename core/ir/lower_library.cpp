// SPDX-License-Identifier: GPL-3.0-or-later
// Lowering's library: RSL's built-in functions that lower to operations every evaluator already
// has (spline bases, colour spaces, queries, output parameters, ...).

#include "core/ir/lower_internal.h"

#include <algorithm>
#include <cmath>

namespace passlab::ir::lowering {

// spline with a basis name or an array of knots. Catmull-Rom stays the library's spline; the
// other bases choose their segment's control points with selects and weight them by the basis
// polynomials (RI 3.2 §15.4: b-spline and Catmull-Rom step one knot, Hermite two, Bezier three;
// linear interpolates the knots between the first and the last, as Catmull-Rom does).
ValueId FunctionLowering::spline(const CallExpr& c) {
  const Span& sp = c.span;
  const BaseType type = c.type.base;
  std::size_t first = 0;
  std::string basis = "catmull-rom";
  if (c.args[0]->type.base == BaseType::String) {
    first = 1;
    if (c.args[0]->kind != ExprKind::String) m_.fail(c.args[0]->span, "basis-not-constant", "a spline's basis must be a string written in the shader");
    basis = static_cast<const StringExpr&>(*c.args[0]).value;
  }
  ValueId x = expr(*c.args[first]);
  std::vector<ValueId> knots;
  if (c.args.back()->type.is_array()) knots = array_values(*c.args.back());
  else
    for (std::size_t i = first + 1; i < c.args.size(); ++i) knots.push_back(convert(expr(*c.args[i]), type, c.args[i]->span));
  for (ValueId& k : knots) k = convert(k, type, sp);
  const int n = static_cast<int>(knots.size());
  if (basis == "catmull-rom" || basis == "catmullrom") {
    std::vector<ValueId> args{x};
    args.insert(args.end(), knots.begin(), knots.end());
    return builtin(Builtin::Spline, type, args, sp);
  }
  int step = 1, points = 4, offset = 0, segments = n - 3;
  if (basis == "linear") points = 2, offset = 1;
  else if (basis == "hermite") step = 2, segments = (n - 2) / 2;
  else if (basis == "bezier") step = 3, segments = (n - 1) / 3;
  if (segments < 1 || (basis == "bezier" && (n - 1) % 3 != 0) || (basis == "hermite" && n % 2 != 0))
    m_.fail(sp, "spline-knots",
            "a " + basis + " spline of " + std::to_string(n) + " knots has no whole segments" +
                (basis == "bezier" ? " (it takes 3k + 1 knots)" : basis == "hermite" ? " (it takes an even number)" : ""));
  auto f = [&](float v) { return constant(v); };
  auto fl = [&](Op o, ValueId a, ValueId b) { return emit(o, BaseType::Float, {a, b}, sp); };
  ValueId pos = fl(Op::Mul, builtin(Builtin::Clamp, BaseType::Float, {x, f(0), f(1)}, sp), f(static_cast<float>(segments)));
  ValueId seg = builtin(Builtin::Min, BaseType::Float, {builtin(Builtin::Floor, BaseType::Float, {pos}, sp), f(static_cast<float>(segments - 1))}, sp);
  ValueId u = fl(Op::Sub, pos, seg), u2 = fl(Op::Mul, u, u), u3 = fl(Op::Mul, u2, u), v = fl(Op::Sub, f(1), u);
  std::vector<ValueId> w;
  if (basis == "linear") {
    w = {v, u};
  } else if (basis == "hermite") {  // P0, T0, P1, T1
    w = {fl(Op::Add, fl(Op::Sub, fl(Op::Mul, f(2), u3), fl(Op::Mul, f(3), u2)), f(1)),
         fl(Op::Add, fl(Op::Sub, u3, fl(Op::Mul, f(2), u2)), u), fl(Op::Add, fl(Op::Mul, f(-2), u3), fl(Op::Mul, f(3), u2)),
         fl(Op::Sub, u3, u2)};
  } else if (basis == "bezier") {
    w = {fl(Op::Mul, fl(Op::Mul, v, v), v), fl(Op::Mul, f(3), fl(Op::Mul, u, fl(Op::Mul, v, v))),
         fl(Op::Mul, f(3), fl(Op::Mul, u2, v)), u3};
  } else {  // b-spline
    const float sixth = 1.0f / 6;
    w = {fl(Op::Mul, fl(Op::Mul, fl(Op::Mul, v, v), v), f(sixth)),
         fl(Op::Mul, fl(Op::Add, fl(Op::Sub, fl(Op::Mul, f(3), u3), fl(Op::Mul, f(6), u2)), f(4)), f(sixth)),
         fl(Op::Mul, fl(Op::Add, fl(Op::Add, fl(Op::Add, fl(Op::Mul, f(-3), u3), fl(Op::Mul, f(3), u2)), fl(Op::Mul, f(3), u)), f(1)), f(sixth)),
         fl(Op::Mul, u3, f(sixth))};
  }
  ValueId out = kNoValue;
  for (int j = 0; j < points; ++j) {
    ValueId cp = knots[static_cast<std::size_t>(offset + j)];
    for (int s = 1; s < segments; ++s) {
      ValueId is = emit(Op::Eq, BaseType::Bool, {seg, f(static_cast<float>(s))}, sp);
      cp = emit(Op::Select, type, {is, knots[static_cast<std::size_t>(s * step + offset + j)], cp}, sp);
    }
    ValueId term = emit(Op::Mul, type, {cp, convert(w[static_cast<std::size_t>(j)], type, sp)}, sp);
    out = out == kNoValue ? term : emit(Op::Add, type, {out, term}, sp);
  }
  return out;
}

// ---- the library functions lowered to the operations every evaluator already has ----

void FunctionLowering::write_output(const Expr& arg, ValueId v, const Span& sp) {
  const auto& n = static_cast<const NameExpr&>(arg);
  write(key(n.symbol), convert(v, n.symbol->type.base, sp));
}

// One library call being lowered, with the small expansions its function's lowering shares.
struct LibraryCall {
  FunctionLowering& L;
  const CallExpr& c;
  const Signature& sig;
  const Span& sp;
  BaseType type;

  ValueId arg(std::size_t i) { return L.expr(*c.args[i]); }
  ValueId f(float x) { return L.constant(x); }
  ValueId bin(Op o, ValueId a, ValueId b) { return L.emit(o, L.fn_.at(a).type == BaseType::Float ? L.fn_.at(b).type : L.fn_.at(a).type, {a, b}, sp); }
  ValueId fl(Op o, ValueId a, ValueId b) { return L.emit(o, BaseType::Float, {a, b}, sp); }
  ValueId call1(Builtin id, ValueId a) { return L.builtin(id, L.fn_.at(a).type, {a}, sp); }
  ValueId comp(ValueId v, int i) { return L.builtin(Builtin::Comp, BaseType::Float, {v, f(static_cast<float>(i))}, sp); }
  ValueId sel(ValueId cond, ValueId a, ValueId b) { return L.emit(Op::Select, L.fn_.at(a).type, {cond, a, b}, sp); }
  ValueId fract(ValueId v) { return bin(Op::Sub, v, call1(Builtin::Floor, v)); }
  // shadow(name, P) and environment(name, R), or their area forms with four corners (RI 3.2
  // §15.7), read at the corners' centre like texture's (no area filtering).
  ValueId centre(BaseType t) {
    ValueId sum = L.convert(arg(1), t, sp);
    if (sig.args.size() != 5) return sum;
    for (std::size_t i = 2; i < 5; ++i) sum = L.emit(Op::Add, t, {sum, L.convert(arg(i), t, sp)}, sp);
    return L.emit(Op::Mul, t, {sum, L.convert(f(0.25f), t, sp)}, sp);
  }
  ValueId lattice(std::vector<ValueId> coords) {
    coords.insert(coords.begin(), L.constant(Value::string("$noise"), sp));
    return L.emit(Op::Texture, type, std::move(coords), sp);
  }
  // The fourth coordinate of 4D noise moves along a fixed irrational direction of the 3D lattice:
  // smooth in all four, though not independent along that diagonal (documented in the manual).
  ValueId fold4(ValueId p, ValueId w, float k) {
    ValueId dir = L.constant(Value::triple(BaseType::Point, 0.5773f * k, 0.6180f * k, 0.4142f * k));
    return bin(Op::Add, p, bin(Op::Mul, dir, L.convert(w, BaseType::Point, sp)));
  }
};

ValueId FunctionLowering::library(const CallExpr& c, const Signature& sig) {
  const Span& sp = c.span;
  const BaseType type = c.type.base;
  LibraryCall lc{*this, c, sig, sp, type};
  auto arg = [&](std::size_t i) { return lc.arg(i); };
  auto f = [&](float x) { return lc.f(x); };
  switch (sig.id) {
    case Builtin::Noise:
    case Builtin::Cellnoise:
    case Builtin::Random:
    case Builtin::Pnoise: return lower_noise(lc);
    case Builtin::Shadow:
    case Builtin::Environment:
    case Builtin::Depth:
    case Builtin::Ctransform:
    case Builtin::Filterstep: return lower_lookups(lc);
    case Builtin::Fresnel:
    case Builtin::Ptlined:
    case Builtin::RotatePoint:
    case Builtin::Specularbrdf: return lower_geometry(lc);
    case Builtin::MTranslate:
    case Builtin::MScale:
    case Builtin::MRotate: return lower_matrix(lc);
    case Builtin::Determinant: return builtin(Builtin::Determinant, BaseType::Float, {arg(0)}, sp);
    case Builtin::Printf: return f(0);  // a fragment has nowhere to print; the arguments have no effect
    case Builtin::Arraylength: {
      const Symbol* s = static_cast<const NameExpr&>(*c.args[0]).symbol;
      if (auto length = lengths_.find(s); length != lengths_.end()) return read(length->second);
      auto it = arrays_.find(s);
      if (it == arrays_.end()) break;
      return f(static_cast<float>(it->second.size()));
    }
    case Builtin::Push:
    case Builtin::Pop:
    case Builtin::Resize: return resize_array(c, sig.id);
    case Builtin::Format:
    case Builtin::Concat:
    case Builtin::Match: {
      std::vector<ValueId> args;
      for (std::size_t i = 0; i < c.args.size(); ++i) args.push_back(arg(i));
      return builtin(sig.id, type, args, sp);
    }
    default: break;
  }
  m_.fail(sp, "internal", std::string("no lowering for '") + to_string(sig.id) + "'");
}

ValueId FunctionLowering::lower_noise(LibraryCall& lc) {
  switch (lc.sig.id) {
    case Builtin::Noise:  // noise(point, float)
      return lc.lattice({lc.fold4(lc.arg(0), lc.arg(1), 1.0f)});
    case Builtin::Cellnoise: {
      // The noise lattice read at a cell's integer corner: one value in [0, 1) per unit cell.
      std::vector<ValueId> coords;
      if (lc.sig.args[0] == ArgKind::Point) {
        ValueId p = lc.call1(Builtin::Floor, lc.arg(0));
        if (lc.sig.args.size() == 2) p = lc.bin(Op::Add, p, lc.bin(Op::Mul, constant(Value::triple(BaseType::Point, 7, 13, 19)),
                                                         convert(lc.call1(Builtin::Floor, lc.arg(1)), BaseType::Point, lc.sp)));
        coords.push_back(p);
      } else {
        for (std::size_t i = 0; i < lc.c.args.size(); ++i) coords.push_back(lc.call1(Builtin::Floor, lc.arg(i)));
      }
      return lc.lattice(coords);
    }
    case Builtin::Random: {
      if (lc.c.uniform_random) {
        // One value for every point, a hash of the call's place in the file (a renderer gives one
        // per grid; Passlab shades the image as one): the same on every run and target.
        Value v = Value::zero(lc.type);
        for (int k = 0; k < std::max(1, lang::component_count(lc.type)); ++k) {
          std::uint64_t h = (static_cast<std::uint64_t>(lc.c.span.offset) << 2 | static_cast<std::uint64_t>(k)) + 0x9E3779B97F4A7C15ull;
          h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
          h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
          h ^= h >> 31;
          v.f[static_cast<std::size_t>(k)] = static_cast<float>(h >> 40) * 0x1p-24f;  // [0, 1)
        }
        return constant(v, lc.sp);
      }
      // A hash of the shading point, not a stream: the same fragment gets the same value on every
      // run and every target. Two lattice cells at incommensurate scales, summed modulo 1 (still
      // uniform), so the lattice's 32-cell period never shows; each call site its own offset.
      ValueId P = convert(read(key(global_symbol(unit_, Global::P))), BaseType::Point, lc.sp);
      const float salt = static_cast<float>(lc.c.span.offset % 997);
      ValueId a = lc.lattice({lc.call1(Builtin::Floor, lc.bin(Op::Add, lc.bin(Op::Mul, P, constant(Value::triple(BaseType::Point, 4099, 4099, 4099))),
                                                    constant(Value::triple(BaseType::Point, salt, 0, 0))))});
      ValueId b = lc.lattice({lc.call1(Builtin::Floor, lc.bin(Op::Add, lc.bin(Op::Mul, P, constant(Value::triple(BaseType::Point, 6451, 6451, 6451))),
                                                    constant(Value::triple(BaseType::Point, 0, salt, 0))))});
      return lc.fract(lc.bin(Op::Add, a, b));
    }
    case Builtin::Pnoise: {
      // noise made periodic: along each axis, with c = mod(x, period) and w = c / period, the blend
      // (1 - w) noise(lc.c) + w noise(c - period) repeats every period and stays continuous. One
      // lookup per corner of the 1-, 2- or 3-cube of shifts. A period of 0 is not periodic.
      std::vector<ValueId> x, per;
      if (lc.sig.args[0] == ArgKind::Point) {
        ValueId p = lc.arg(0), q = lc.arg(1);
        for (int i = 0; i < 3; ++i) {
          x.push_back(lc.comp(p, i));
          per.push_back(lc.comp(q, i));
        }
      } else {
        const std::size_t d = lc.c.args.size() / 2;
        for (std::size_t i = 0; i < d; ++i) x.push_back(lc.arg(i));
        for (std::size_t i = 0; i < d; ++i) per.push_back(lc.arg(d + i));
      }
      const std::size_t d = x.size();
      std::vector<ValueId> cc(d), w(d), periodic(d);
      for (std::size_t i = 0; i < d; ++i) {
        periodic[i] = emit(Op::Gt, BaseType::Bool, {builtin(Builtin::Abs, BaseType::Float, {per[i]}, lc.sp), lc.f(0)}, lc.sp);
        ValueId safe = lc.sel(periodic[i], per[i], lc.f(1));
        cc[i] = lc.sel(periodic[i], builtin(Builtin::Mod, BaseType::Float, {x[i], safe}, lc.sp), x[i]);
        w[i] = lc.sel(periodic[i], lc.fl(Op::Div, cc[i], safe), lc.f(0));
        per[i] = safe;
      }
      ValueId out = kNoValue;
      for (std::size_t corner = 0; corner < (std::size_t{1} << d); ++corner) {
        std::vector<ValueId> at;
        ValueId weight = lc.f(1);
        for (std::size_t i = 0; i < d; ++i) {
          const bool shifted = (corner >> i) & 1;
          at.push_back(shifted ? lc.fl(Op::Sub, cc[i], per[i]) : cc[i]);
          weight = lc.fl(Op::Mul, weight, shifted ? w[i] : lc.fl(Op::Sub, lc.f(1), w[i]));
        }
        if (d == 3) at = {emit(Op::MakeTriple, BaseType::Point, at, lc.sp)};
        ValueId term = lc.bin(Op::Mul, lc.lattice(at), convert(weight, lc.type, lc.sp));
        out = out == kNoValue ? term : lc.bin(Op::Add, out, term);
      }
      return out;
    }
    default: break;
  }
  m_.fail(lc.sp, "internal", std::string("no lowering for '") + to_string(lc.sig.id) + "'");
}

ValueId FunctionLowering::lower_lookups(LibraryCall& lc) {
  switch (lc.sig.id) {
    case Builtin::Shadow: {
      // A depth map: the point projected by the map's camera, which the light setup names as a
      // coordinate system of the map's name (x, y in [0, 1], z its depth), its depth read and
      // compared. 1 is in shadow. "bias" is honoured; blur, samples and width are hints.
      ValueId name = lc.arg(0);
      ValueId q = builtin(Builtin::Transform, BaseType::Point, {name, lc.centre(BaseType::Point)}, lc.sp);
      ValueId bias = lc.f(0);
      for (std::size_t i = lc.sig.args.size(); i + 1 < lc.c.args.size(); i += 2)
        if (lc.c.args[i]->kind == ExprKind::String && static_cast<const StringExpr&>(*lc.c.args[i]).value == "bias")
          bias = convert(lc.arg(i + 1), BaseType::Float, lc.sp);
      ValueId d = emit(Op::Texture, BaseType::Float, {name, lc.comp(q, 0), lc.comp(q, 1)}, lc.sp);
      return lc.sel(emit(Op::Gt, BaseType::Bool, {lc.comp(q, 2), lc.fl(Op::Add, d, bias)}, lc.sp), lc.f(1), lc.f(0));
    }
    case Builtin::Environment: {
      // A latitude-longitude map: s around the y axis (s = 0.5 looks down -z), t from +y (0) to -y (1).
      ValueId R = lc.call1(Builtin::Normalize, lc.centre(BaseType::Vector));
      ValueId s_ = lc.fl(Op::Add, lc.f(0.5f), lc.fl(Op::Mul, builtin(Builtin::Atan2, BaseType::Float, {lc.comp(R, 0), emit(Op::Neg, BaseType::Float, {lc.comp(R, 2)}, lc.sp)}, lc.sp),
                                           lc.f(0.15915494f)));
      ValueId y = builtin(Builtin::Clamp, BaseType::Float, {lc.comp(R, 1), lc.f(-1), lc.f(1)}, lc.sp);
      ValueId t_ = lc.fl(Op::Mul, builtin(Builtin::Acos, BaseType::Float, {y}, lc.sp), lc.f(0.31830989f));
      return channels(lc.c, lc.type, [&](std::uint32_t k) { return emit(Op::Texture, lc.type, {lc.arg(0), s_, t_}, lc.sp, k); });
    }
    case Builtin::Depth: {
      // z in NDC space, which the light setup may define; by default the camera-space depth.
      ValueId q = builtin(Builtin::Transform, BaseType::Point, {constant(Value::string("NDC"), lc.sp), convert(lc.arg(0), BaseType::Point, lc.sp)}, lc.sp);
      return lc.comp(q, 2);
    }
    case Builtin::Ctransform: {
      if (lc.c.args.size() == 2) return color_space(lc.arg(1), lc.arg(0), false, lc.sp);
      return color_space(color_space(lc.arg(2), lc.arg(0), true, lc.sp), lc.arg(1), false, lc.sp);
    }
    case Builtin::Filterstep: {
      // Without screen-space derivatives the filter width is zero: a step; with an interval
      // [s1, s2], the box-filtered step over it.
      ValueId edge = lc.arg(0), s1 = lc.arg(1);
      ValueId step = builtin(Builtin::Step, BaseType::Float, {edge, s1}, lc.sp);
      if (lc.sig.args.size() == 2) return step;
      ValueId s2 = lc.arg(2);
      ValueId ramp = builtin(Builtin::Clamp, BaseType::Float, {lc.fl(Op::Div, lc.fl(Op::Sub, s2, edge), lc.fl(Op::Sub, s2, s1)), lc.f(0), lc.f(1)}, lc.sp);
      return lc.sel(emit(Op::Gt, BaseType::Bool, {s2, s1}, lc.sp), ramp, step);
    }
    default: break;
  }
  m_.fail(lc.sp, "internal", std::string("no lowering for '") + to_string(lc.sig.id) + "'");
}

ValueId FunctionLowering::lower_geometry(LibraryCall& lc) {
  switch (lc.sig.id) {
    case Builtin::Fresnel: {
      // RI 3.2 §15.6: Kr and Kt by the Fresnel equations for unpolarized light; eta is the ratio
      // of the indices (incident over transmitted); total internal reflection gives Kr = 1.
      ValueId I = lc.call1(Builtin::Normalize, convert(lc.arg(0), BaseType::Vector, lc.sp));
      ValueId N = lc.call1(Builtin::Normalize, convert(lc.arg(1), BaseType::Vector, lc.sp));
      ValueId eta = lc.arg(2);
      ValueId ci = emit(Op::Neg, BaseType::Float, {emit(Op::Dot, BaseType::Float, {I, N}, lc.sp)}, lc.sp);
      ValueId k = lc.fl(Op::Sub, lc.f(1), lc.fl(Op::Mul, lc.fl(Op::Mul, eta, eta), lc.fl(Op::Sub, lc.f(1), lc.fl(Op::Mul, ci, ci))));
      ValueId tir = emit(Op::Lt, BaseType::Bool, {k, lc.f(0)}, lc.sp);
      ValueId ct = builtin(Builtin::Sqrt, BaseType::Float, {builtin(Builtin::Max, BaseType::Float, {k, lc.f(0)}, lc.sp)}, lc.sp);
      ValueId ec = lc.fl(Op::Mul, eta, ci), et = lc.fl(Op::Mul, eta, ct);
      ValueId rs = lc.fl(Op::Div, lc.fl(Op::Sub, ec, ct), lc.fl(Op::Add, ec, ct));
      ValueId rp = lc.fl(Op::Div, lc.fl(Op::Sub, ci, et), lc.fl(Op::Add, ci, et));
      ValueId kr = lc.sel(tir, lc.f(1), lc.fl(Op::Mul, lc.f(0.5f), lc.fl(Op::Add, lc.fl(Op::Mul, rs, rs), lc.fl(Op::Mul, rp, rp))));
      write_output(*lc.c.args[3], kr, lc.sp);
      write_output(*lc.c.args[4], lc.fl(Op::Sub, lc.f(1), kr), lc.sp);
      if (lc.c.args.size() >= 7) {
        write_output(*lc.c.args[5], builtin(Builtin::Reflect, BaseType::Vector, {I, N}, lc.sp), lc.sp);
        write_output(*lc.c.args[6], builtin(Builtin::Refract, BaseType::Vector, {I, N, eta}, lc.sp), lc.sp);
      }
      return lc.f(0);
    }
    case Builtin::Ptlined: {  // the distance from Q to the segment P0-P1
      ValueId p0 = lc.arg(0), p1 = lc.arg(1), q = lc.arg(2);
      ValueId d = emit(Op::Sub, BaseType::Vector, {p1, p0}, lc.sp), w = emit(Op::Sub, BaseType::Vector, {q, p0}, lc.sp);
      ValueId dd = emit(Op::Dot, BaseType::Float, {d, d}, lc.sp);
      ValueId t = lc.sel(emit(Op::Gt, BaseType::Bool, {dd, lc.f(0)}, lc.sp), lc.fl(Op::Div, emit(Op::Dot, BaseType::Float, {w, d}, lc.sp), lc.sel(emit(Op::Gt, BaseType::Bool, {dd, lc.f(0)}, lc.sp), dd, lc.f(1))), lc.f(0));
      t = builtin(Builtin::Clamp, BaseType::Float, {t, lc.f(0), lc.f(1)}, lc.sp);
      ValueId nearest = emit(Op::Add, BaseType::Point, {p0, emit(Op::Mul, BaseType::Vector, {d, convert(t, BaseType::Vector, lc.sp)}, lc.sp)}, lc.sp);
      return builtin(Builtin::Distance, BaseType::Float, {q, nearest}, lc.sp);
    }
    case Builtin::RotatePoint: {  // Q turned by angle about the axis through P0 and P1 (Rodrigues)
      ValueId q = lc.arg(0), angle = lc.arg(1), p0 = lc.arg(2), p1 = lc.arg(3);
      ValueId a = lc.call1(Builtin::Normalize, emit(Op::Sub, BaseType::Vector, {p1, p0}, lc.sp));
      ValueId v = emit(Op::Sub, BaseType::Vector, {q, p0}, lc.sp);
      ValueId cs = builtin(Builtin::Cos, BaseType::Float, {angle}, lc.sp), sn = builtin(Builtin::Sin, BaseType::Float, {angle}, lc.sp);
      auto scaled = [&](ValueId vec, ValueId k) { return emit(Op::Mul, BaseType::Vector, {vec, convert(k, BaseType::Vector, lc.sp)}, lc.sp); };
      ValueId turned = emit(Op::Add, BaseType::Vector,
                            {emit(Op::Add, BaseType::Vector, {scaled(v, cs), scaled(emit(Op::Cross, BaseType::Vector, {a, v}, lc.sp), sn)}, lc.sp),
                             scaled(a, lc.fl(Op::Mul, emit(Op::Dot, BaseType::Float, {a, v}, lc.sp), lc.fl(Op::Sub, lc.f(1), cs)))},
                            lc.sp);
      return emit(Op::Add, BaseType::Point, {p0, turned}, lc.sp);
    }
    case Builtin::Specularbrdf: {  // pow(max(0, N.H), 1/roughness): what specular() sums, per light
      ValueId H = lc.call1(Builtin::Normalize, emit(Op::Add, BaseType::Vector, {lc.call1(Builtin::Normalize, lc.arg(0)), lc.arg(2)}, lc.sp));
      ValueId nh = builtin(Builtin::Max, BaseType::Float, {lc.f(0), emit(Op::Dot, BaseType::Float, {convert(lc.arg(1), BaseType::Vector, lc.sp), H}, lc.sp)}, lc.sp);
      return convert(builtin(Builtin::Pow, BaseType::Float, {nh, lc.fl(Op::Div, lc.f(1), lc.arg(3))}, lc.sp), BaseType::Color, lc.sp);
    }
    default: break;
  }
  m_.fail(lc.sp, "internal", std::string("no lowering for '") + to_string(lc.sig.id) + "'");
}

ValueId FunctionLowering::lower_matrix(LibraryCall& lc) {
  switch (lc.sig.id) {
    case Builtin::MTranslate:
    case Builtin::MScale:
    case Builtin::MRotate: {
      // Postconcatenated (RI 3.2 §15.4): points go through m, then the new transformation
      // (row vectors, p' = p m T, like every matrix here).
      ValueId m = lc.arg(0);
      std::vector<ValueId> e(16, lc.f(0));
      for (int i = 0; i < 4; ++i) e[static_cast<std::size_t>(i * 5)] = lc.f(1);
      if (lc.sig.id == Builtin::MTranslate) {
        ValueId t = lc.arg(1);
        for (int i = 0; i < 3; ++i) e[static_cast<std::size_t>(12 + i)] = lc.comp(t, i);
      } else if (lc.sig.id == Builtin::MScale) {
        ValueId k = lc.arg(1);
        for (int i = 0; i < 3; ++i) e[static_cast<std::size_t>(i * 5)] = lc.comp(k, i);
      } else {
        ValueId a = lc.call1(Builtin::Normalize, lc.arg(2));
        ValueId cs = builtin(Builtin::Cos, BaseType::Float, {lc.arg(1)}, lc.sp), sn = builtin(Builtin::Sin, BaseType::Float, {lc.arg(1)}, lc.sp);
        ValueId t = lc.fl(Op::Sub, lc.f(1), cs);
        ValueId x = lc.comp(a, 0), y = lc.comp(a, 1), z = lc.comp(a, 2);
        auto tt = [&](ValueId p, ValueId q) { return lc.fl(Op::Mul, t, lc.fl(Op::Mul, p, q)); };
        auto s_ = [&](ValueId p) { return lc.fl(Op::Mul, sn, p); };
        // The column-vector rotation, transposed for row vectors: R[i][j] = M[j][i].
        ValueId M[3][3] = {{lc.fl(Op::Add, tt(x, x), cs), lc.fl(Op::Sub, tt(x, y), s_(z)), lc.fl(Op::Add, tt(x, z), s_(y))},
                           {lc.fl(Op::Add, tt(x, y), s_(z)), lc.fl(Op::Add, tt(y, y), cs), lc.fl(Op::Sub, tt(y, z), s_(x))},
                           {lc.fl(Op::Sub, tt(x, z), s_(y)), lc.fl(Op::Add, tt(y, z), s_(x)), lc.fl(Op::Add, tt(z, z), cs)}};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) e[static_cast<std::size_t>(i * 4 + j)] = M[j][i];
      }
      return emit(Op::MatMul, BaseType::Matrix, {m, emit(Op::MakeMatrix, BaseType::Matrix, e, lc.sp)}, lc.sp);
    }
    default: break;
  }
  m_.fail(lc.sp, "internal", std::string("no lowering for '") + to_string(lc.sig.id) + "'");
}

// Message passing (RI 3.2 §15.9). Lights are inlined where they are used, so what they pass is
// known: lightsource() in an illuminance body reads the visited light's parameter as the light
// computed it; surface() in a light reads the surface's parameter. Passlab runs no displacement or
// atmosphere shader beside a surface and defines no attributes or options: those report "not
// found" (0) and leave the variable alone, as renderers do for names they do not know.
ValueId FunctionLowering::query(const CallExpr& c, const Signature& sig) {
  const Span& sp = c.span;
  const auto& var = static_cast<const NameExpr&>(*c.args.back());
  const Symbol* target = var.symbol;
  auto found = [&](ValueId v) {
    if (target->type.is_array() || !is_assignable(target->type.base, fn_.at(v).type)) return constant(0.0f);
    write(key(target), convert(v, target->type.base, sp));
    return constant(1.0f);
  };
  if (c.args[0]->kind != ExprKind::String) return constant(0.0f);  // a name known only when running: none found
  const std::string& name = static_cast<const StringExpr&>(*c.args[0]).value;
  auto param_of = [&](const ShaderDecl* shader) -> const Symbol* {
    if (!shader) return nullptr;
    for (const Param& p : shader->params)
      if (p.name == name && !p.symbol->type.is_array()) return p.symbol;
    return nullptr;
  };
  switch (sig.id) {
    case Builtin::Lightsource:
      if (current_light_)
        if (const Symbol* p = param_of(current_light_->shader)) return found(read(key(p)));
      return constant(0.0f);
    case Builtin::SurfaceParam:
      if (light_unit_)
        if (const Symbol* p = param_of(unit_.shader())) return found(read(key(p)));
      return constant(0.0f);
    case Builtin::Rendererinfo:
      if (name == "renderer") return found(constant(Value::string("Passlab"), sp));
      return constant(0.0f);
    default: return constant(0.0f);
  }
}

// Colour spaces (RI 3.2 §15.3's ctransform and `color "space" (...)`): hsv, hsl, xyz (CIE XYZ,
// linear sRGB primaries, D65), xyY and YIQ, to or from rgb. A space named by a constant lowers
// to its own arithmetic; one that is known only at binding (a string parameter) lowers to every
// conversion under a select chain, which binding folds to one.
ValueId FunctionLowering::color_space(ValueId c, ValueId space, bool to_rgb, const Span& sp) {
  const Instr& in = fn_.at(space);
  if (in.op == Op::Const) {
    if (!is_color_space(in.text))
      m_.fail(sp, "unknown-color-space", "unknown color space \"" + in.text + "\"; Passlab knows rgb, hsv, hsl, xyz, xyY and YIQ");
    return color_space(c, in.text, to_rgb, sp);
  }
  ValueId out = c;  // rgb, and any name binding does not know (reported there)
  for (const char* name : {"hsv", "hsl", "xyz", "xyY", "YIQ"}) {
    ValueId is = emit(Op::Eq, BaseType::Bool, {space, constant(Value::string(name), sp)}, sp);
    out = emit(Op::Select, BaseType::Color, {is, color_space(c, name, to_rgb, sp), out}, sp);
  }
  return out;
}

ValueId FunctionLowering::color_space(ValueId c, const std::string& name, bool to_rgb, const Span& sp) {
  const std::string space = canonical_color_space(name);
  auto f = [&](float x) { return constant(x); };
  auto fl = [&](Op o, ValueId a, ValueId b) { return emit(o, BaseType::Float, {a, b}, sp); };
  auto comp = [&](ValueId v, int i) { return builtin(Builtin::Comp, BaseType::Float, {v, f(static_cast<float>(i))}, sp); };
  auto rgb = [&](ValueId r, ValueId g, ValueId b) { return emit(Op::MakeTriple, BaseType::Color, {r, g, b}, sp); };
  auto linear = [&](const float (&m)[9]) {
    ValueId v[3];
    for (int row = 0; row < 3; ++row) {
      ValueId acc = fl(Op::Mul, comp(c, 0), f(m[row * 3]));
      for (int k = 1; k < 3; ++k) acc = fl(Op::Add, acc, fl(Op::Mul, comp(c, k), f(m[row * 3 + k])));
      v[row] = acc;
    }
    return rgb(v[0], v[1], v[2]);
  };
  auto sel = [&](ValueId cond, ValueId a, ValueId b) { return emit(Op::Select, fn_.at(a).type, {cond, a, b}, sp); };
  auto mx3 = [&](ValueId a, ValueId b, ValueId d) {
    return builtin(Builtin::Max, BaseType::Float, {builtin(Builtin::Max, BaseType::Float, {a, b}, sp), d}, sp);
  };
  auto mn3 = [&](ValueId a, ValueId b, ValueId d) {
    return builtin(Builtin::Min, BaseType::Float, {builtin(Builtin::Min, BaseType::Float, {a, b}, sp), d}, sp);
  };
  // The hue of an rgb colour in [0, 1), with its largest and smallest components.
  auto hue = [&](ValueId r, ValueId g, ValueId b, ValueId hi, ValueId d) {
    ValueId safe = sel(emit(Op::Gt, BaseType::Bool, {d, f(0)}, sp), d, f(1));
    ValueId hr = builtin(Builtin::Mod, BaseType::Float, {fl(Op::Div, fl(Op::Sub, g, b), safe), f(6)}, sp);
    ValueId hg = fl(Op::Add, fl(Op::Div, fl(Op::Sub, b, r), safe), f(2));
    ValueId hb = fl(Op::Add, fl(Op::Div, fl(Op::Sub, r, g), safe), f(4));
    ValueId h = sel(emit(Op::Eq, BaseType::Bool, {hi, r}, sp), hr, sel(emit(Op::Eq, BaseType::Bool, {hi, g}, sp), hg, hb));
    return sel(emit(Op::Gt, BaseType::Bool, {d, f(0)}, sp), fl(Op::Div, h, f(6)), f(0));
  };
  if (space == "rgb") return c;
  if (space == "xyz") {
    static constexpr float from[9] = {3.2406f, -1.5372f, -0.4986f, -0.9689f, 1.8758f, 0.0415f, 0.0557f, -0.2040f, 1.0570f};
    static constexpr float to[9] = {0.4124f, 0.3576f, 0.1805f, 0.2126f, 0.7152f, 0.0722f, 0.0193f, 0.1192f, 0.9505f};
    return linear(to_rgb ? from : to);
  }
  if (space == "YIQ") {
    static constexpr float from[9] = {1, 0.956f, 0.621f, 1, -0.272f, -0.647f, 1, -1.106f, 1.703f};
    static constexpr float to[9] = {0.299f, 0.587f, 0.114f, 0.596f, -0.274f, -0.322f, 0.211f, -0.523f, 0.312f};
    return linear(to_rgb ? from : to);
  }
  if (space == "xyY") {
    if (to_rgb) {  // (x, y, Y) -> XYZ -> rgb
      ValueId x = comp(c, 0), y = comp(c, 1), Y = comp(c, 2);
      ValueId k = sel(emit(Op::Ne, BaseType::Bool, {y, f(0)}, sp), fl(Op::Div, Y, y), f(0));
      ValueId X = fl(Op::Mul, x, k), Z = fl(Op::Mul, fl(Op::Sub, fl(Op::Sub, f(1), x), y), k);
      return color_space(rgb(X, Y, Z), "xyz", true, sp);
    }
    ValueId xyz = color_space(c, "xyz", false, sp);
    ValueId X = comp(xyz, 0), Y = comp(xyz, 1), Z = comp(xyz, 2);
    ValueId sum = fl(Op::Add, fl(Op::Add, X, Y), Z);
    ValueId nz = emit(Op::Ne, BaseType::Bool, {sum, f(0)}, sp);
    return rgb(sel(nz, fl(Op::Div, X, sum), f(0)), sel(nz, fl(Op::Div, Y, sum), f(0)), Y);
  }
  // hsv and hsl, hue in [0, 1).
  if (to_rgb) {
    ValueId h = comp(c, 0), s_ = comp(c, 1), v = comp(c, 2);
    ValueId ch[3];
    static constexpr float hsv_n[3] = {5, 3, 1}, hsl_n[3] = {0, 8, 4};
    for (int i = 0; i < 3; ++i) {
      if (space == "hsv") {  // v - v s max(0, min(k, 4 - k, 1)), k = (n + 6h) mod 6
        ValueId k = builtin(Builtin::Mod, BaseType::Float, {fl(Op::Add, f(hsv_n[i]), fl(Op::Mul, h, f(6))), f(6)}, sp);
        ValueId m = builtin(Builtin::Max, BaseType::Float, {f(0), mn3(k, fl(Op::Sub, f(4), k), f(1))}, sp);
        ch[i] = fl(Op::Sub, v, fl(Op::Mul, fl(Op::Mul, v, s_), m));
      } else {  // l - a max(-1, min(k - 3, 9 - k, 1)), k = (n + 12h) mod 12, a = s min(l, 1 - l)
        ValueId k = builtin(Builtin::Mod, BaseType::Float, {fl(Op::Add, f(hsl_n[i]), fl(Op::Mul, h, f(12))), f(12)}, sp);
        ValueId a = fl(Op::Mul, s_, builtin(Builtin::Min, BaseType::Float, {v, fl(Op::Sub, f(1), v)}, sp));
        ValueId m = builtin(Builtin::Max, BaseType::Float, {f(-1), mn3(fl(Op::Sub, k, f(3)), fl(Op::Sub, f(9), k), f(1))}, sp);
        ch[i] = fl(Op::Sub, v, fl(Op::Mul, a, m));
      }
    }
    return rgb(ch[0], ch[1], ch[2]);
  }
  ValueId r = comp(c, 0), g = comp(c, 1), b = comp(c, 2);
  ValueId hi = mx3(r, g, b), lo = mn3(r, g, b), d = fl(Op::Sub, hi, lo);
  ValueId h = hue(r, g, b, hi, d);
  if (space == "hsv") {
    ValueId s_ = sel(emit(Op::Gt, BaseType::Bool, {hi, f(0)}, sp), fl(Op::Div, d, sel(emit(Op::Gt, BaseType::Bool, {hi, f(0)}, sp), hi, f(1))), f(0));
    return rgb(h, s_, hi);
  }
  ValueId l = fl(Op::Mul, fl(Op::Add, hi, lo), f(0.5f));
  ValueId den = fl(Op::Sub, f(1), builtin(Builtin::Abs, BaseType::Float, {fl(Op::Sub, fl(Op::Mul, l, f(2)), f(1))}, sp));
  ValueId ok = emit(Op::Gt, BaseType::Bool, {den, f(0)}, sp);
  ValueId s_ = sel(ok, fl(Op::Div, d, sel(ok, den, f(1))), f(0));
  return rgb(h, s_, l);
}

}  // namespace passlab::ir::lowering
