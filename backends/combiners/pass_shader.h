// SPDX-License-Identifier: GPL-3.0-or-later
// A register-combiner program, whole or split into a partition's passes, as a shader the renderer
// runs: each fragment's interpolants and texture lookups feed the combiner simulator, pass by pass,
// with each pass's framebuffer RGBA kept as the intermediate later passes restore.
#pragma once

#include <vector>

#include "backends/combiners/backend.h"
#include "core/sim/shading.h"

namespace passlab::combiners {

class PassShader : public sim::FragmentShader {
 public:
  // `cp` compiled `part` (every pass fits); both must outlive the shader.
  PassShader(const dag::FragmentDag& d, const partition::Partition& part, const CompiledPartition& cp, const Machine& m,
             const ir::EvalContext& ctx, SimOptions options = {});

  int passes() const override { return static_cast<int>(cp_.passes.size()); }
  int interpolants() const override { return static_cast<int>(leaves_.size() + colours_.size() + lookups_.size()); }
  bool screen_derivatives(int k) const override { return k >= static_cast<int>(leaves_.size() + colours_.size()); }
  void corner(const ir::FragmentInputs& in, float* out) const override;
  unsigned interpolant_mask(int pass, int k) const override;
  int buffers() const override { return buffers_; }
  const std::vector<int>& restores(int pass) const override { return restores_[static_cast<std::size_t>(pass)]; }
  int saves(int pass) const override { return saves_[static_cast<std::size_t>(pass)]; }
  void run(int pass, int n, const float* const* in, const float* const* restored, float* out, std::vector<float>& scratch) const override;

 private:
  const dag::FragmentDag& d_;
  const CompiledPartition& cp_;
  const Machine& m_;
  ir::EvalContext ctx_;
  SimOptions options_;
  std::vector<dag::NodeId> leaves_;                 // interpolant and constant nodes the passes read, in interpolant order
  // Colour interpolants (V0, V1), after the leaves: clamped to [0, 1] at each corner (biased
  // first where `colour_biased_`), as GL clamps vertex colours before it interpolates them.
  std::vector<dag::NodeId> colours_;
  std::vector<char> colour_biased_;
  // 2D lookups of interpolated coordinates (their coordinate nodes), after the colours: derivative
  // interpolants (s, t, s, t) whose screen-space derivatives choose the mip levels.
  std::vector<std::vector<dag::NodeId>> lookups_;
  std::vector<std::vector<std::uint8_t>> reads_;    // per pass, per leaf, colour then lookup: components read
  std::vector<std::vector<int>> restores_;          // per pass: buffers read, in the order of restore_nodes_
  std::vector<std::vector<dag::NodeId>> restore_nodes_;
  std::vector<int> saves_;
  int buffers_ = 0;
};

}  // namespace passlab::combiners
