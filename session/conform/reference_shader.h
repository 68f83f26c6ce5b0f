// SPDX-License-Identifier: GPL-3.0-or-later
// The reference interpreter as a shader the renderer runs: each fragment's interpolated RSL
// globals go through the IR interpreter, so a render of the reference and a backend's render see
// the same rasterization, and differ only by what the backend computed.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "core/dag/fragment_dag.h"
#include "core/ir/interpreter.h"
#include "core/sim/shading.h"

namespace passlab::conform {

// The globals a fragment shader reads, as the renderer interpolates them (one 4-vector each):
// P, N, Ng, I, dPdu, dPdv, Cs, Os, (s, t, u, v), (du, dv, 0, 0).
constexpr int kReferenceInterpolants = 10;
// Their differences one pixel right, then one below.
constexpr int kDerivativeInterpolants = kReferenceInterpolants * 2;

class ReferenceShader : public sim::FragmentShader {
 public:
  // `m`, `params` and `if_converted` must outlive the shader. With `perturb`, each fragment's run
  // is perturbed by Monte Carlo arithmetic seeded from perturb->seed and the fragment's globals.
  // A fragment whose run meets a NaN or an infinity is NaN (undefined in RSL); with
  // `if_converted`, also one where some node of that DAG (which computes both sides of every
  // branch) is.
  ReferenceShader(const ir::Module& m, const std::map<std::string, ir::Value>& params, const ir::EvalContext& ctx,
                  const ir::Perturbation* perturb = nullptr, const dag::FragmentDag* if_converted = nullptr);

  int passes() const override { return 1; }
  int interpolants() const override;
  void corner(const ir::FragmentInputs& in, float* out) const override;
  // A shader that takes screen-space derivatives also gets the globals' differences a pixel right,
  // then below (kDerivativeInterpolants after the globals), from which each fragment's run is
  // given its neighbours (ir::RunOptions::right, below).
  int screen_difference(int k) const override {
    return k < kReferenceInterpolants ? 0 : k < 2 * kReferenceInterpolants ? 1 : 2;
  }
  // As a quad target's render has them (sim::FragmentShader::quad_differences): the neighbours are
  // the quad partners. The derivative functions need no more, being worked out from how u and v
  // change towards the same neighbours (ir/derivatives.h).
  bool quad_differences() const override { return quad_; }
  void set_quad_differences(bool on) { quad_ = on; }
  unsigned interpolant_mask(int, int) const override { return 0xF; }
  int buffers() const override { return 0; }
  const std::vector<int>& restores(int) const override { return no_restores_; }
  int saves(int) const override { return -1; }
  void run(int pass, int n, const float* const* in, const float* const* restored, float* out, std::vector<float>& scratch) const override;

  // Fragments the interpreter could not finish (they are NaN), and fragments whose run met a
  // NaN or an infinity somewhere (a domain error or an overflow: undefined in RSL).
  long failures() const { return failures_.load(); }
  long nonfinite() const { return nonfinite_.load(); }
  const std::string& first_error() const { return first_error_; }

 private:
  const ir::Module& m_;
  const std::map<std::string, ir::Value>& params_;
  ir::EvalContext ctx_;
  const ir::Perturbation* perturb_;
  const dag::FragmentDag* if_converted_;
  bool derivatives_ = false;  // the module calls Du, Dv, Deriv, area or calculatenormal, or reads du or dv
  bool quad_ = false;
  std::vector<int> no_restores_;
  mutable std::atomic<long> failures_{0}, nonfinite_{0};
  mutable std::string first_error_;
};

void pack_globals(const ir::FragmentInputs& in, float* out);
// From the interpolated 4-vectors (in[k][c * sim::kBatch + fragment]), or from one fragment's
// packed floats (4 per interpolant).
ir::FragmentInputs unpack_globals(const float* const* in, int fragment);
ir::FragmentInputs unpack_globals(const float* packed);

}  // namespace passlab::conform
