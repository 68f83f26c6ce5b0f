// SPDX-License-Identifier: GPL-3.0-or-later
// The reference interpreter: runs a module on one fragment. The semantic oracle for later stages.
#include "core/ir/interpreter.h"
#include "core/ir/derivatives.h"
#include "core/ir/splitmix.h"

#include <algorithm>
#include <cmath>

namespace passlab::ir {

namespace {

struct Stop {
  std::string message;
  lang::Span where;
};
// A neighbour's run (Interpreter::neighbour) reached the derivative it was run for: its operands.
struct Captured {
  std::vector<Value> operands;
};
// ... or branched otherwise on the way, or ended first: the derivative is undefined.
struct Diverged {};

class Interpreter {
 public:
  Interpreter(const Module& m, const FragmentInputs& in, const std::map<std::string, Value>& params, const EvalContext& ctx,
              const RunOptions& options)
      : m_(m), in_(in), params_(params), ctx_(ctx), options_(options) {
    if (options.perturb) {
      rng_.state = options.perturb->seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
      // A built-in's approximation errs the same way on the same input (a polynomial's error is a
      // function of its argument), so a sum of calls on one value adds its error up rather than
      // averaging it: in half of the runs each built-in errs by one amount on every call (the
      // conformance tester found sixteen atan(v, 0) * atan(v) summed past the random walk's bound).
      SplitMix64 r{rng_.state ^ 0xB0017EDULL};
      systematic_ = r.below(2) == 0;
      for (float& b : builtin_bias_) b = r.range(-1, 1);
    }
  }
  bool nonfinite() const { return nonfinite_; }

  // Runs the entry function (kept for the neighbours' runs a derivative makes).
  std::vector<Value> start(const Function& fn, const std::vector<Value>& args) {
    entry_ = &fn;
    entry_args_ = args;
    records_ = options_.right && options_.below;
    return run(fn, args, 0);
  }

  std::vector<Value> run(const Function& fn, const std::vector<Value>& args, int depth) {
    if (depth > options_.max_depth) throw Stop{"call depth exceeds " + std::to_string(options_.max_depth), {}};
    std::vector<Value> vals(fn.values.size());
    BlockId b = 0, prev = kNoBlockId;
    for (;;) {
      const Block& blk = fn.blocks.at(b);
      // Phis read their operands as of the edge taken, all at once.
      std::vector<std::pair<ValueId, Value>> phi_values;
      for (ValueId v : blk.instrs) {
        const Instr& in = fn.at(v);
        if (in.op != Op::Phi) break;
        std::size_t k = 0;
        while (k < blk.preds.size() && blk.preds[k] != prev) ++k;
        if (k == blk.preds.size()) throw Stop{"phi has no operand for the edge taken", in.span};
        phi_values.push_back({v, vals[in.args[k]]});
      }
      for (auto& [v, val] : phi_values) vals[v] = std::move(val);
      for (ValueId v : blk.instrs) {
        const Instr& in = fn.at(v);
        if (in.op == Op::Phi) continue;
        if (++steps_ > options_.max_steps)
          throw Stop{"evaluation exceeded " + std::to_string(options_.max_steps) + " steps (a loop that does not end?)", in.span};
        switch (in.op) {
          case Op::Br:
            prev = b;
            b = in.targets[0];
            goto next_block;
          case Op::CondBr: {
            const bool taken = vals[in.args[0]].truth();
            follow(taken);
            prev = b;
            b = taken ? in.targets[0] : in.targets[1];
            goto next_block;
          }
          case Op::Ret: {
            std::vector<Value> out;
            for (ValueId a : in.args) out.push_back(vals[a]);
            return out;
          }
          case Op::Arg: vals[v] = args.at(in.aux); break;
          case Op::Global:
            vals[v] = in_.globals.at(in.aux);
            vals[v].type = in.type;
            perturb(vals[v], -1, true);
            break;
          case Op::ShaderParam: {
            auto it = params_.find(in.text);
            vals[v] = it != params_.end() ? it->second : vals[in.args[0]];
            break;
          }
          case Op::Call: {
            std::vector<Value> call_args;
            for (ValueId a : in.args) call_args.push_back(vals[a]);
            std::vector<Value> r = run(m_.functions.at(in.aux), call_args, depth + 1);
            if (in.type == kTuple) {
              tuples_[{&fn, v}] = r;
              vals[v] = Value::zero(kTuple);
            } else {
              vals[v] = r.empty() ? Value::zero(in.type) : r[0];
            }
            break;
          }
          case Op::Extract: vals[v] = tuples_.at({&fn, in.args[0]}).at(in.aux); break;
          case Op::Builtin: {
            auto id = static_cast<lang::Builtin>(in.aux);
            const lang::Signature& sig = lang::signature_of(id);
            if (sig.derivative) {
              vals[v] = derive(in, vals);
              break;
            }
            if (sig.point_based || sig.renderer_query ||
                (sig.ray_traced && id != lang::Builtin::Trace && id != lang::Builtin::Visibility && id != lang::Builtin::Raylevel))
              throw Stop{std::string("'") + lang::to_string(id) + "' needs a renderer's " +
                             (sig.point_based ? "point clouds" : sig.renderer_query ? "texture files" : "global illumination") +
                             ", which the interpreter does not have",
                         in.span};
            if (sig.ray_traced) {
              if (!ctx_.rays) throw Stop{std::string("'") + lang::to_string(id) + "' casts rays, and no scene is given", in.span};
              if (id == lang::Builtin::Trace) vals[v] = cast(vals[in.args[0]], vals[in.args[1]]);
              else if (id == lang::Builtin::Visibility) vals[v] = Value::scalar(visibility(vals[in.args[0]], vals[in.args[1]]));
              else vals[v] = Value::scalar(ctx_.rays->level());
              break;
            }
            [[fallthrough]];
          }
          default: {
            std::vector<const Value*> ops;
            for (ValueId a : in.args) ops.push_back(&vals[a]);
            // A lookup's coordinates are numbers of the machine's format too, rounded wherever
            // they came from (a literal 1e6 included): a stand-in's bands, sin(2 pi fs s ...),
            // and noise's lattice cells depend on their last digits.
            std::vector<Value> coords;
            if (in.op == Op::Texture && options_.perturb) {
              coords.reserve(ops.size());
              for (std::size_t k = 1; k < ops.size(); ++k) {
                coords.push_back(*ops[k]);
                perturb(coords.back());
                ops[k] = &coords.back();
              }
            }
            vals[v] = evaluate(in.op, in.type, in.aux, in.text, in.data, ops, ctx_);
            if (!options_.perturb) {
              perturb(vals[v]);  // marks a result that is not finite; nothing more to work out
              break;
            }
            if (undefined_at_precision(in, ops)) nonfinite_ = true;
            // A built-in's approximation (Perturbation::builtin) is a backend's per-fragment code:
            // what is uniform, a fragment target folds on the host, exactly like the reference
            // (acos(1) * 1e6 is 0 there; erring by 7e-5 it was 70 in every perturbed run, which hid
            // the rounding that mattered; a generated program found it).
            const bool per_fragment = in.op == Op::Builtin && in.freq == Freq::Varying;
            perturb(vals[v], per_fragment ? static_cast<int>(in.aux) : -1, false, term_scale(in, ops), cancel_scale(in, ops),
                    exact_integers(in, ops, vals[v]));
            break;
          }
        }
      }
      throw Stop{"block without terminator", {}};
    next_block:;
    }
  }

 private:
  // Marks results that are not finite, and applies the Monte Carlo perturbation (RunOptions).
  // Whether a rounding function's argument is past the format's fractions (Perturbation::integral).
  // So are sin, cos and tan, whose range reduction is a mod by 2 pi (the RPU's runtime library
  // computes sin(1e6 + t) on 24-bit floats from 1e6 alone, and from no fraction of its turn).
  bool beyond_fractions(lang::Builtin b, const Value& x) const {
    using B = lang::Builtin;
    if (b != B::Floor && b != B::Ceil && b != B::Round && b != B::Mod && b != B::Sin && b != B::Cos && b != B::Tan) return false;
    const int n = std::max(1, lang::component_count(x.type));
    for (int i = 0; i < n; ++i)
      if (std::fabs(x.f[static_cast<std::size_t>(i)]) >= options_.perturb->integral) return true;
    return false;
  }

  // A branch taken: remembered where a derivative may need a neighbour to take the same way; on a
  // neighbour's run, checked against the fragment's own.
  void follow(bool taken) {
    if (main_) {
      if (branch_at_ >= main_->branches_.size() || (main_->branches_[branch_at_] != 0) != taken) throw Diverged{};
      ++branch_at_;
    } else if (records_) {
      branches_.push_back(taken ? 1 : 0);
    }
  }

  // A derivative builtin (RunOptions::right, below): its operands here, and on each neighbour as
  // the same program computes them up to the same derivative. On a neighbour's run, the
  // derivatives before that one are the fragment's own (one per pixel pair, as on hardware).
  Value derive(const Instr& in, const std::vector<Value>& vals) {
    std::vector<Value> ops;
    for (ValueId a : in.args) ops.push_back(vals[a]);
    const auto id = static_cast<lang::Builtin>(in.aux);
    if (main_) {
      const std::size_t k = deriv_at_++;
      if (!target_is_ray_ && k == target_) throw Captured{std::move(ops)};
      return main_->derivs_.at(k);
    }
    if (!options_.right || !options_.below)
      throw Stop{std::string("'") + lang::to_string(id) + "' needs screen-space derivatives: the neighbouring fragments, which this run was not given",
                 in.span};
    const std::size_t k = derivs_.size();
    bool defined = true;
    const std::vector<Value> right = neighbour(*options_.right, k, 1, &defined);
    const std::vector<Value> below = defined ? neighbour(*options_.below, k, 2, &defined) : std::vector<Value>{};
    Value r = Value::zero(in.type);
    if (!defined) {
      nonfinite_ = true;
    } else {
      using lang::Global;
      auto step = [&](const FragmentInputs& at, Global g) { return at[g].f[0] - in_[g].f[0]; };
      const ParameterSteps steps{step(*options_.right, Global::u), step(*options_.below, Global::u), step(*options_.right, Global::v),
                                 step(*options_.below, Global::v)};
      r = derivative(id, in.type, ops, right, below, steps, in_[lang::Global::du].f[0], in_[lang::Global::dv].f[0]);
      // area() is the length of a cross product: its squares pass a narrower format's range
      // before the length is back inside it (the RPU's dp3 of a normal 1e12 long is infinite).
      if (id == lang::Builtin::Area && options_.perturb && static_cast<double>(r.f[0]) * r.f[0] >= options_.perturb->overflow) nonfinite_ = true;
      perturb(r);
    }
    derivs_.push_back(r);
    return r;
  }

  // trace(P, R). With neighbours, the tracer learns the rays they cast at the same trace (their
  // runs up to it), so that what the ray hits can take derivatives too; on a neighbour's run, the
  // trace is a helper's (RayTracer::helper_trace), unless it is the one the run is for. Rays
  // (trace and visibility alike) are counted, as a machine counts the rays a thread casts.
  Value cast(const Value& P, const Value& R) {
    const std::size_t k = rays_++;
    if (main_) {
      if (target_is_ray_ && k == target_) throw Captured{{P, R}};
      return ctx_.rays->helper_trace(P, R);
    }
    if (!options_.right || !options_.below) return ctx_.rays->trace(P, R);
    RayTracer::NeighbourRays nb;
    for (int which = 1; which <= 2; ++which) {
      bool defined = true;
      const std::vector<Value> ray = neighbour(which == 1 ? *options_.right : *options_.below, k, which, &defined, true);
      if (!defined || ray.size() != 2) continue;
      (which == 1 ? nb.right : nb.below) = {ray[0], ray[1]};
    }
    return ctx_.rays->trace(P, R, nb);
  }
  float visibility(const Value& p1, const Value& p2) {
    const std::size_t k = rays_++;
    if (main_ && target_is_ray_ && k == target_) throw Diverged{};  // a shadow ray where the fragment traced
    return ctx_.rays->visibility(p1, p2);
  }

  // The operands of derivative number k (with `ray`, of ray number k: the trace's P and R) as
  // the program computes them on the fragment `at` (which: 1 right, 2 below; it seeds the run's
  // perturbation), or *defined false where it branches otherwise on the way.
  std::vector<Value> neighbour(const FragmentInputs& at, std::size_t k, int which, bool* defined, bool ray = false) {
    RunOptions o = options_;
    o.right = o.below = nullptr;
    Perturbation p;
    if (options_.perturb) {
      p = *options_.perturb;
      p.seed = p.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(which);
      o.perturb = &p;
    }
    o.max_steps = options_.max_steps - std::min(steps_, options_.max_steps);
    Interpreter n(m_, at, params_, ctx_, o);
    n.main_ = this;
    n.target_ = k;
    n.target_is_ray_ = ray;
    std::vector<Value> operands;
    try {
      n.run(*entry_, entry_args_, 0);
      *defined = false;  // it ended without reaching the derivative
    } catch (const Captured& c) {
      operands = c.operands;
    } catch (const Diverged&) {
      *defined = false;
    }
    steps_ += n.steps_;
    nonfinite_ = nonfinite_ || n.nonfinite_;
    return operands;
  }

  // Whether the precision the Perturbation describes leaves this operation's result undefined
  // (the result itself is checked against its range in perturb()).
  bool undefined_at_precision(const Instr& in, const std::vector<const Value*>& ops) const {
    if (ops.empty()) return false;
    if (in.op == Op::Builtin) {
      const auto id = static_cast<lang::Builtin>(in.aux);
      if (beyond_fractions(id, *ops[0])) return true;
      if (id == lang::Builtin::Sign && options_.perturb->sign_of_zero_undefined && has_zero(*ops[0])) return true;
      // atan(y, x) on its branch cut, y zero and x negative or -0, is pi or -pi (or 0 for x +0) by
      // the signs of the zeros, which machines give differently (round(-0.3) is -0 in C, +0 as
      // floor(x + 0.5); round(-1 / u) * 0 is -0 in C, and the fp target's atan2 tests x < 0).
      if (id == lang::Builtin::Atan2 && ops.size() == 2 && ops[0]->f[0] == 0 && std::signbit(ops[1]->f[0])) return true;
    }
    if ((in.op == Op::Eq || in.op == Op::Ne) && ops.size() == 2 && nearly_equal(*ops[0], *ops[1])) return true;
    // Nor does a lookup whose coordinates have no fractions: noise at s * 1e6 picks its lattice
    // cells by digits the format does not hold. An image's texel coordinates are s W and t H:
    // from half the format's integers on (2^22 in IEEE single) a machine's repeat, the texel
    // index modulo the size, has lost its units.
    if (in.op == Op::Texture) {
      const std::array<int, 2> size = ctx_.textures && !ops[0]->s.empty() ? ctx_.textures->image_size(ops[0]->s) : std::array<int, 2>{0, 0};
      int axis = 0;
      for (std::size_t k = 1; k < ops.size(); ++k)
        for (int i = 0; i < std::max(1, lang::component_count(ops[k]->type)); ++i, ++axis) {
          const float x = std::fabs(ops[k]->f[static_cast<std::size_t>(i)]);
          if (x >= options_.perturb->integral) return true;
          if (axis < 2 && size[static_cast<std::size_t>(axis)] > 0 && x * static_cast<float>(size[static_cast<std::size_t>(axis)]) >= 0.5f * options_.perturb->integral)
            return true;
        }
    }
    if (in.op == Op::Div && ops.size() == 2 && reciprocal_out_of_range(*ops[1])) return true;
    return squares_overflow(in, ops);
  }

  // Whether a divisor's reciprocal leaves the format's range (Perturbation::overflow, underflow):
  // machines divide by multiplying with a reciprocal (the RPU's rcp), so x / 1e19 is 0 on 24-bit
  // floats, whose magnitudes end at 2^64 and 2^-62, however close x is to 1e19.
  bool reciprocal_out_of_range(const Value& divisor) const {
    const Perturbation& p = *options_.perturb;
    if (p.underflow <= 0 && !std::isfinite(p.overflow)) return false;
    const int n = std::max(1, lang::component_count(divisor.type));
    for (int i = 0; i < n; ++i) {
      const float a = std::fabs(divisor.f[static_cast<std::size_t>(i)]);
      if (a == 0 || !std::isfinite(a)) continue;  // a division by zero or infinity is not finite anyway
      const float r = 1.0f / a;
      if (r >= p.overflow || r < p.underflow) return true;
    }
    return false;
  }

  // Whether a length, distance, normalisation or dot product sums its squares (its products) past
  // the format's range (Perturbation::overflow): its result may be in range, but a machine that
  // sums them in that format overflows (length of a vector of 1e10 on 24-bit floats; a length
  // whose three squares are each below 2^64 and sum past it, as the RPU's dp3 rounds the sum).
  bool squares_overflow(const Instr& in, const std::vector<const Value*>& ops) const {
    const float limit = options_.perturb->overflow;
    if (!std::isfinite(limit) || ops.empty()) return false;
    const bool builtin = in.op == Op::Builtin;
    const auto id = static_cast<lang::Builtin>(in.aux);
    const bool one = builtin && (id == lang::Builtin::Length || id == lang::Builtin::Normalize);
    const bool diff = builtin && id == lang::Builtin::Distance && ops.size() == 2;
    const bool dot = in.op == Op::Dot && ops.size() == 2;
    if (!one && !diff && !dot) return false;
    if (lang::component_count(ops[0]->type) != 3) return false;
    double sum = 0;  // of the terms' magnitudes: a partial sum may pass the range before others cancel it
    for (int i = 0; i < 3; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const double a = ops[0]->f[k], b = ops.size() > 1 ? ops[1]->f[k] : a;
      sum += std::fabs(one ? a * a : diff ? (a - b) * (a - b) : a * b);
    }
    return sum >= limit;
  }

  // Lane i of an operand, a float standing for all three of a triple's lanes.
  static float lane(const Value& v, int i) { return v.f[static_cast<std::size_t>(lang::component_count(v.type) > 1 ? i : 0)]; }
  // The length of a triple's first three components.
  static float length3(const Value& v) {
    float sq = 0;
    for (std::size_t i = 0; i < 3; ++i) sq += v.f[i] * v.f[i];
    return std::sqrt(sq);
  }

  static bool has_zero(const Value& x) {
    const int n = std::max(1, lang::component_count(x.type));
    for (int i = 0; i < n; ++i)
      if (x.f[static_cast<std::size_t>(i)] == 0) return true;
    return false;
  }

  // Whether two floats (or triples) differ by a rounding of the format (Perturbation::equality):
  // the largest difference of a component relative to the largest component.
  bool nearly_equal(const Value& a, const Value& b) const {
    const float eq = options_.perturb->equality;
    if (eq <= 0 || a.type == BaseType::String || a.type == BaseType::Bool || a.type == BaseType::Void) return false;
    const int n = std::max(1, std::min(lang::component_count(a.type), lang::component_count(b.type)));
    float scale = 0, diff = 0;
    for (int i = 0; i < n; ++i) {
      const float x = a.f[static_cast<std::size_t>(i)], y = b.f[static_cast<std::size_t>(i)];
      scale = std::max({scale, std::fabs(x), std::fabs(y)});
      diff = std::max(diff, std::fabs(x - y));
    }
    return diff > 0 && diff <= eq * scale;
  }

  // A dot or cross product rounds each of its products before they cancel: its error is relative
  // to the terms' size, |a| |b|, not to the result's (a x a is exactly zero in the interpreter, and
  // a fused multiply-add makes it the rounding of one product on the RPU's 24-bit floats). So is
  // mix(a, b, t)'s, to |a| |1 - t| + |b| |t|: the interpreter computes a (1 - t) + b t, which
  // cancels for t far outside [0, 1] (mix(P, P, -1e6)), the RPU a + (b - a) t, exact there.
  static float term_scale(const Instr& in, const std::vector<const Value*>& ops) {
    if (in.op == Op::Builtin && static_cast<lang::Builtin>(in.aux) == lang::Builtin::Mix && ops.size() == 3) {
      float r = 0;
      const int n = std::max(1, lang::component_count(in.type));
      for (int i = 0; i < n; ++i) {
        // ... or, for the RPU's form, |a| + (|a| + |b|) |t| (b - a rounds before t scales it:
        // mix(1e6 u, u, 1) is u here and u up to 1e6 u's rounding there).
        const float t = lane(*ops[2], i), a = std::fabs(lane(*ops[0], i)), b = std::fabs(lane(*ops[1], i));
        r = std::max({r, a * std::fabs(1 - t) + b * std::fabs(t), a + (a + b) * std::fabs(t)});
      }
      return std::isfinite(r) ? r : 0;
    }
    // distance(a, b) subtracts before it squares: relative to |a| + |b|.
    if (in.op == Op::Builtin && static_cast<lang::Builtin>(in.aux) == lang::Builtin::Distance && ops.size() == 2 &&
        lang::component_count(ops[0]->type) == 3 && lang::component_count(ops[1]->type) == 3) {
      const float r = length3(*ops[0]) + length3(*ops[1]);
      return std::isfinite(r) ? r : 0;
    }
    const Op op = in.op;
    if ((op != Op::Dot && op != Op::Cross) || ops.size() != 2) return 0;
    const float r = length3(*ops[0]) * length3(*ops[1]);
    return std::isfinite(r) ? r : 0;
  }

  // Whether an operation's result is an integer every float format holds exactly: a whole-number
  // constant, what floor, ceil, round, sign and step return, and sums, differences, products,
  // negations, selections, minima, maxima, absolute values and remainders of such integers, below
  // the format's fractions (Perturbation::integral; 2^24 in IEEE single). A loop counter
  // (`i += 1`) and an array index are such values; perturbing them changed which element a
  // truncated index picked and how often a loop ran, which no machine does.
  bool exact_integers(const Instr& in, const std::vector<const Value*>& ops, const Value& result) const {
    const float limit = std::min(options_.perturb->integral, 0x1p24f);
    auto integers = [&](const Value& x) {
      if (x.type == BaseType::String || x.type == BaseType::Void) return false;
      const int n = x.type == BaseType::Bool ? 1 : std::max(1, lang::component_count(x.type));
      for (int i = 0; i < n; ++i) {
        const float f = x.f[static_cast<std::size_t>(i)];
        if (!(std::fabs(f) < limit) || f != std::trunc(f)) return false;
      }
      return true;
    };
    if (!integers(result)) return false;
    using B = lang::Builtin;
    switch (in.op) {
      case Op::Const: return true;
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Neg: case Op::Select: break;
      case Op::Builtin:
        switch (static_cast<B>(in.aux)) {
          case B::Floor: case B::Ceil: case B::Round: case B::Sign: case B::Step: return true;
          case B::Min: case B::Max: case B::Abs: case B::Mod: case B::Clamp: break;
          default: return false;
        }
        break;
      default: return false;
    }
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (!(in.op == Op::Select && i == 0) && !integers(*ops[i])) return false;  // a select's condition is a bool
    return true;
  }

  // A sum or difference of values that cancel: the size of what cancelled, |a| + |b| (the largest
  // component's). Its rounding is relative to its result, but a result within the operands'
  // rounding of zero may be exactly zero on a machine (P - mix(P, P, s) is on the RPU).
  static float cancel_scale(const Instr& in, const std::vector<const Value*>& ops) {
    if ((in.op != Op::Add && in.op != Op::Sub) || ops.size() != 2) return 0;
    float r = 0;
    const int n = std::max(1, lang::component_count(in.type));
    for (int i = 0; i < n; ++i) r = std::max(r, std::fabs(lane(*ops[0], i)) + std::fabs(lane(*ops[1], i)));
    return std::isfinite(r) ? r : 0;
  }

  // `global`: an interpolated input, whose error is relative to the values it was interpolated
  // from: a scalar's to its unit range (s, t, u and v come from [0, 1]), so an exact 0 moves too.
  // `terms`: a scale the error is relative to at least (term_scale); `cancels`: what a sum cancelled
  // (cancel_scale). Either says when the result is zero up to rounding.
  void perturb(Value& val, int builtin = -1, bool global = false, float terms = 0, float cancels = 0, bool exact = false) {
    if (val.type == BaseType::String || val.type == BaseType::Void) return;
    const int n = val.type == BaseType::Bool ? 1 : lang::component_count(val.type);
    for (int i = 0; i < n; ++i) nonfinite_ = nonfinite_ || !std::isfinite(val.f[static_cast<std::size_t>(i)]);
    const Perturbation* p = options_.perturb;
    if (!p || val.type == BaseType::Bool) return;
    for (int i = 0; i < n; ++i) {
      const float a = std::fabs(val.f[static_cast<std::size_t>(i)]);
      nonfinite_ = nonfinite_ || a >= p->overflow || (a != 0 && a < p->underflow);
    }
    if (exact) return;  // exact_integers
    const float extra = builtin >= 0 && static_cast<std::size_t>(builtin) < p->builtin.size() ? p->builtin[static_cast<std::size_t>(builtin)] : 0.0f;
    // A triple's error is relative to its length, not to each component: a cross product's, or a
    // face normal's, exact zero is zero only up to the rounding of the terms that cancelled.
    float scale = 0;
    if (n == 3)
      for (int i = 0; i < 3; ++i) scale = std::max(scale, std::fabs(val.f[static_cast<std::size_t>(i)]));
    // A result its terms leave zero up to rounding may be exactly zero on a machine (the RPU's
    // mix(a, a, t) is a, so distance(a, mix(a, a, t)) and P - mix(P, P, s) are 0 there and a
    // rounding in the interpreter); a quarter of the runs take it, so what divides by it, or
    // normalises it, is seen to be undefined.
    const float zero = std::max(terms, cancels);
    if (zero > 0 && (n == 3 ? scale : std::fabs(val.f[0])) <= zero * p->relative && rng_.below(4) == 0) {
      for (int i = 0; i < n; ++i) val.f[static_cast<std::size_t>(i)] = 0;
      return;
    }
    for (int i = 0; i < n; ++i) {
      float& x = val.f[static_cast<std::size_t>(i)];
      const float size = std::max(terms, n == 3 ? scale : global ? std::max(std::fabs(x), 1.0f) : std::fabs(x));
      x = x + size * p->relative * rng_.range(-1, 1) + p->absolute * rng_.range(-1, 1);
      if (extra > 0) x += extra * (systematic_ ? builtin_bias_[static_cast<std::size_t>(builtin)] : rng_.range(-1, 1));
    }
  }

  static constexpr BlockId kNoBlockId = static_cast<BlockId>(-1);
  const Module& m_;
  const FragmentInputs& in_;
  const std::map<std::string, Value>& params_;
  const EvalContext& ctx_;
  const RunOptions& options_;
  std::uint64_t steps_ = 0;
  std::map<std::pair<const Function*, ValueId>, std::vector<Value>> tuples_;
  SplitMix64 rng_{1};
  bool systematic_ = false;  // built-ins err by builtin_bias_ this run, not independently per call
  std::array<float, static_cast<std::size_t>(lang::Builtin::Count)> builtin_bias_{};
  bool nonfinite_ = false;
  // Derivatives (derive()): the entry function and its arguments, the branches taken and the
  // derivatives worked out so far, in order. On a neighbour's run: the fragment's interpreter, the
  // derivative sought, and how far the branches and derivatives have been matched.
  const Function* entry_ = nullptr;
  std::vector<Value> entry_args_;
  bool records_ = false;
  std::vector<char> branches_;
  std::vector<Value> derivs_;
  const Interpreter* main_ = nullptr;
  std::size_t target_ = 0, branch_at_ = 0, deriv_at_ = 0;
  bool target_is_ray_ = false;  // a neighbour's run for ray number target_, not a derivative
  std::size_t rays_ = 0;        // rays cast so far (trace and visibility)
};

using Rng = SplitMix64;

}  // namespace

FragmentInputs random_fragment(std::uint64_t seed) {
  using lang::Global;
  Rng r{seed * 0x2545F4914F6CDD1DULL + 1};
  FragmentInputs f;
  for (auto& v : f.globals) v = Value::zero(BaseType::Float);
  auto triple = [&](BaseType t, float lo, float hi) { return Value::triple(t, r.range(lo, hi), r.range(lo, hi), r.range(lo, hi)); };
  Value P = Value::triple(BaseType::Point, r.range(-2, 2), r.range(-2, 2), r.range(4, 10));
  // A unit normal facing the camera (towards -z).
  Value N = triple(BaseType::Normal, -1, 1);
  N.f[2] = -std::fabs(N.f[2]) - 0.2f;
  float len = std::sqrt(N.f[0] * N.f[0] + N.f[1] * N.f[1] + N.f[2] * N.f[2]);
  for (int i = 0; i < 3; ++i) N.f[i] /= len;
  f[Global::P] = P;
  f[Global::Ps] = P;
  f[Global::N] = N;
  f[Global::Ng] = N;
  f[Global::E] = Value::triple(BaseType::Point, 0, 0, 0);
  f[Global::I] = Value::triple(BaseType::Vector, P.f[0], P.f[1], P.f[2]);
  f[Global::s] = Value::scalar(r.uniform());
  f[Global::t] = Value::scalar(r.uniform());
  f[Global::u] = Value::scalar(r.uniform());
  f[Global::v] = Value::scalar(r.uniform());
  f[Global::du] = Value::scalar(r.range(0.001f, 0.01f));
  f[Global::dv] = Value::scalar(r.range(0.001f, 0.01f));
  f[Global::dPdu] = triple(BaseType::Vector, -1, 1);
  f[Global::dPdv] = triple(BaseType::Vector, -1, 1);
  f[Global::Cs] = triple(BaseType::Color, 0, 1);
  f[Global::Os] = triple(BaseType::Color, 0.5f, 1);
  f[Global::Ci] = Value::zero(BaseType::Color);
  f[Global::Oi] = Value::zero(BaseType::Color);
  f[Global::Cl] = Value::zero(BaseType::Color);
  f[Global::Ol] = Value::zero(BaseType::Color);
  f[Global::L] = Value::zero(BaseType::Vector);
  f[Global::time] = Value::scalar(r.uniform());  // the time it is shaded at, in the unit of motion
  return f;
}

Neighbours random_neighbours(FragmentInputs& in, std::uint64_t seed) {
  using lang::Global;
  Rng r{seed * 0x9E3779B97F4A7C15ULL + 0x51ED27};
  Neighbours nb{in, in};
  const Value& ng = in[Global::Ng];
  // u and v move mostly along x and y respectively, so their steps are never degenerate.
  const float ux = r.range(0.002f, 0.008f), vx = r.range(-0.002f, 0.002f);
  const float uy = r.range(-0.002f, 0.002f), vy = r.range(0.002f, 0.008f);
  auto move = [&](FragmentInputs& f, float du, float dv) {
    // P along the plane through it with normal Ng, and I with it (the eye is at the origin).
    float d[3] = {r.range(-0.02f, 0.02f), r.range(-0.02f, 0.02f), r.range(-0.02f, 0.02f)};
    const float along = d[0] * ng.f[0] + d[1] * ng.f[1] + d[2] * ng.f[2];
    for (int i = 0; i < 3; ++i) d[i] -= along * ng.f[static_cast<std::size_t>(i)];
    for (Global g : {Global::P, Global::Ps, Global::I})
      for (int i = 0; i < 3; ++i) f[g].f[static_cast<std::size_t>(i)] += d[i];
    Value& n = f[Global::N];
    for (int i = 0; i < 3; ++i) n.f[static_cast<std::size_t>(i)] += r.range(-0.01f, 0.01f);
    const float len = std::sqrt(n.f[0] * n.f[0] + n.f[1] * n.f[1] + n.f[2] * n.f[2]);
    for (int i = 0; i < 3; ++i) n.f[static_cast<std::size_t>(i)] /= len;
    for (Global g : {Global::dPdu, Global::dPdv})
      for (int i = 0; i < 3; ++i) f[g].f[static_cast<std::size_t>(i)] += r.range(-0.01f, 0.01f);
    for (Global g : {Global::Cs, Global::Os})
      for (int i = 0; i < 3; ++i) {
        float& c = f[g].f[static_cast<std::size_t>(i)];
        c = std::clamp(c + r.range(-0.01f, 0.01f), 0.0f, 1.0f);
      }
    f[Global::s].f[0] += r.range(-0.008f, 0.008f);
    f[Global::t].f[0] += r.range(-0.008f, 0.008f);
    f[Global::u].f[0] += du;
    f[Global::v].f[0] += dv;
  };
  move(nb.right, ux, vx);
  move(nb.below, uy, vy);
  const float du = std::fabs(ux) + std::fabs(uy), dv = std::fabs(vx) + std::fabs(vy);
  for (FragmentInputs* f : {&in, &nb.right, &nb.below}) {
    (*f)[Global::du] = Value::scalar(du);
    (*f)[Global::dv] = Value::scalar(dv);
  }
  return nb;
}

RunResult interpret(const Module& m, const FragmentInputs& in, const std::map<std::string, Value>& params,
                    const EvalContext& ctx, const RunOptions& options) {
  return interpret_function(m, m.entry, {}, in, params, ctx, options);
}

RunResult interpret_function(const Module& m, std::size_t function, const std::vector<Value>& args, const FragmentInputs& in,
                             const std::map<std::string, Value>& params, const EvalContext& ctx, const RunOptions& options) {
  RunResult r;
  try {
    Interpreter it(m, in, params, ctx, options);
    r.results = it.start(m.functions.at(function), args);
    r.ok = true;
    r.nonfinite = it.nonfinite();
  } catch (const Stop& s) {
    r.error = s.message;
    r.where = s.where;
  }
  return r;
}

}  // namespace passlab::ir
