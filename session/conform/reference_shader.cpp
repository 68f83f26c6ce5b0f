// SPDX-License-Identifier: GPL-3.0-or-later
// The reference interpreter as a shader the renderer runs.
#include "session/conform/reference_shader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/lang/stdlib.h"

namespace passlab::conform {

namespace {

using G = lang::Global;
using lang::BaseType;

constexpr G kTriples[] = {G::P, G::N, G::Ng, G::I, G::dPdu, G::dPdv, G::Cs, G::Os};
constexpr BaseType kTripleTypes[] = {BaseType::Point, BaseType::Normal, BaseType::Normal, BaseType::Vector,
                                     BaseType::Vector, BaseType::Vector, BaseType::Color, BaseType::Color};

std::uint64_t mix_bits(std::uint64_t h, float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  h ^= b + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

void pack_globals(const ir::FragmentInputs& in, float* out) {
  for (std::size_t k = 0; k < std::size(kTriples); ++k)
    for (int c = 0; c < 4; ++c) out[k * 4 + static_cast<std::size_t>(c)] = c < 3 ? in[kTriples[k]].f[static_cast<std::size_t>(c)] : 0.0f;
  float* st = out + std::size(kTriples) * 4;
  st[0] = in[G::s].f[0];
  st[1] = in[G::t].f[0];
  st[2] = in[G::u].f[0];
  st[3] = in[G::v].f[0];
  st[4] = in[G::du].f[0];
  st[5] = in[G::dv].f[0];
  st[6] = st[7] = 0;
}

ir::FragmentInputs unpack_globals(const float* const* in, int i) {
  float packed[kReferenceInterpolants * 4];
  for (std::size_t k = 0; k < kReferenceInterpolants; ++k)
    for (std::size_t c = 0; c < 4; ++c) packed[k * 4 + c] = in[k][c * sim::kBatch + static_cast<std::size_t>(i)];
  return unpack_globals(packed);
}

ir::FragmentInputs unpack_globals(const float* packed) {
  ir::FragmentInputs f;
  for (auto& v : f.globals) v = ir::Value::zero(BaseType::Float);
  const auto at = [&](std::size_t k, int c) { return packed[k * 4 + static_cast<std::size_t>(c)]; };
  for (std::size_t k = 0; k < std::size(kTriples); ++k) f[kTriples[k]] = ir::Value::triple(kTripleTypes[k], at(k, 0), at(k, 1), at(k, 2));
  const std::size_t st = std::size(kTriples);
  f[G::s] = ir::Value::scalar(at(st, 0));
  f[G::t] = ir::Value::scalar(at(st, 1));
  f[G::u] = ir::Value::scalar(at(st, 2));
  f[G::v] = ir::Value::scalar(at(st, 3));
  f[G::du] = ir::Value::scalar(at(st + 1, 0));
  f[G::dv] = ir::Value::scalar(at(st + 1, 1));
  f[G::Ps] = f[G::P];
  f[G::E] = ir::Value::triple(BaseType::Point, 0, 0, 0);
  for (G g : {G::Ci, G::Oi, G::Cl, G::Ol}) f[g] = ir::Value::zero(BaseType::Color);
  f[G::L] = ir::Value::zero(BaseType::Vector);
  return f;
}

ReferenceShader::ReferenceShader(const ir::Module& m, const std::map<std::string, ir::Value>& params, const ir::EvalContext& ctx,
                                 const ir::Perturbation* perturb, const dag::FragmentDag* if_converted)
    : m_(m), params_(params), ctx_(ctx), perturb_(perturb), if_converted_(if_converted) {
  for (const ir::Function& fn : m.functions)
    for (const ir::Instr& in : fn.values) {
      if (in.removed) continue;
      if (in.op == ir::Op::Builtin && lang::signature_of(static_cast<lang::Builtin>(in.aux)).derivative) derivatives_ = true;
      // du and dv are the pixel's steps of u and v, which the neighbours give.
      if (in.op == ir::Op::Global && (in.aux == static_cast<std::uint32_t>(G::du) || in.aux == static_cast<std::uint32_t>(G::dv))) derivatives_ = true;
    }
}

int ReferenceShader::interpolants() const { return kReferenceInterpolants + (derivatives_ ? kDerivativeInterpolants : 0); }

void ReferenceShader::corner(const ir::FragmentInputs& in, float* out) const {
  pack_globals(in, out);
  if (!derivatives_) return;
  // The difference interpolants' corners are the globals' again.
  for (std::size_t j = 0; j < kDerivativeInterpolants; ++j)
    std::copy(out + (j % kReferenceInterpolants) * 4, out + (j % kReferenceInterpolants) * 4 + 4, out + (kReferenceInterpolants + j) * 4);
}

void ReferenceShader::run(int, int n, const float* const* in, const float* const*, float* out, std::vector<float>&) const {
  for (int i = 0; i < n; ++i) {
    ir::FragmentInputs f = unpack_globals(in, i);
    ir::RunOptions ro;
    ro.max_steps = 2'000'000;  // a run past it is undefined (NaN), not slow
    ir::Neighbours next;
    ir::FragmentInputs& right = next.right;
    ir::FragmentInputs& below = next.below;
    if (derivatives_) {
      // The neighbours: each packed float plus its difference there.
      float r[kReferenceInterpolants * 4], b[kReferenceInterpolants * 4];
      const auto lane = [&](std::size_t k, std::size_t c) { return in[k][c * sim::kBatch + static_cast<std::size_t>(i)]; };
      for (std::size_t q = 0; q < kReferenceInterpolants * 4; ++q) {
        const float here = lane(q / 4, q % 4);
        r[q] = here + lane(kReferenceInterpolants + q / 4, q % 4);
        b[q] = here + lane(2 * kReferenceInterpolants + q / 4, q % 4);
      }
      right = unpack_globals(r);
      below = unpack_globals(b);
      // du and dv: how far u and v move across the pixel (the corners' are 0).
      const float du = std::fabs(right[G::u].f[0] - f[G::u].f[0]) + std::fabs(below[G::u].f[0] - f[G::u].f[0]);
      const float dv = std::fabs(right[G::v].f[0] - f[G::v].f[0]) + std::fabs(below[G::v].f[0] - f[G::v].f[0]);
      for (ir::FragmentInputs* x : {&f, &right, &below}) {
        (*x)[G::du] = ir::Value::scalar(du);
        (*x)[G::dv] = ir::Value::scalar(dv);
      }
      ro.right = &right;
      ro.below = &below;
    }
    ir::Perturbation p;
    if (perturb_) {
      p = *perturb_;
      std::uint64_t h = p.seed;
      for (int k = 0; k < kReferenceInterpolants; ++k)
        for (int c = 0; c < 4; ++c) h = mix_bits(h, in[k][static_cast<std::size_t>(c) * sim::kBatch + static_cast<std::size_t>(i)]);
      p.seed = h;
      ro.perturb = &p;
    }
    const ir::RunResult r = ir::interpret(m_, f, params_, ctx_, ro);
    float rgba[4];
    if (!r.ok || r.results.size() < 2) {
      if (failures_.fetch_add(1) == 0) first_error_ = r.ok ? "the shader returned no colour" : r.error;
      rgba[0] = rgba[1] = rgba[2] = rgba[3] = std::numeric_limits<float>::quiet_NaN();
    } else {
      bool undefined = r.nonfinite;
      if (!undefined && if_converted_)
        for (const ir::Value& v : dag::evaluate_all(*if_converted_, f, ctx_, derivatives_ ? &next : nullptr)) {
          if (v.type == lang::BaseType::String) continue;
          for (int c = 0; c < std::max(1, lang::component_count(v.type)); ++c) undefined = undefined || !std::isfinite(v.f[static_cast<std::size_t>(c)]);
        }
      if (undefined) nonfinite_.fetch_add(1);
      // The shader's results are (Ci, Oi) in result_names order; a fragment writes Ci and Oi's first channel.
      const ir::Function& fn = m_.shader();
      const ir::Value* ci = nullptr;
      const ir::Value* oi = nullptr;
      for (std::size_t k = 0; k < fn.result_names.size() && k < r.results.size(); ++k) {
        if (fn.result_names[k] == "Ci") ci = &r.results[k];
        if (fn.result_names[k] == "Oi") oi = &r.results[k];
      }
      for (int c = 0; c < 3; ++c) rgba[c] = ci ? ci->f[static_cast<std::size_t>(c)] : 0.0f;
      rgba[3] = oi ? oi->f[0] : 1.0f;
      if (undefined) rgba[0] = rgba[1] = rgba[2] = rgba[3] = std::numeric_limits<float>::quiet_NaN();
    }
    for (int c = 0; c < 4; ++c) out[static_cast<std::size_t>(c) * sim::kBatch + static_cast<std::size_t>(i)] = rgba[c];
  }
}

}  // namespace passlab::conform
