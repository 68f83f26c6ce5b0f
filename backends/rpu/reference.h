// SPDX-License-Identifier: GPL-3.0-or-later
// The reference renderer: a scene's main and surface shaders run by the IR interpreter (the
// semantic oracle every Passlab target is checked against), with rays cast in C++ through the
// same BVH and hit attributes read from the same scene records. It is the check the thesis
// names as future work (§13.4): per-pixel comparison with a software RenderMan instead of human
// inspection of hashes. Slow (an interpreter), for tests and `passlab-cli rpu render --reference`.
#pragma once

#include <atomic>

#include "backends/rpu/scene_program.h"
#include "backends/rpu/scene_data.h"
#include "core/ir/interpreter.h"
#include "core/sim/image.h"

namespace passlab::rpu {

struct ReferenceOptions {
  int width = 0, height = 0;  // 0: the scene's
  int threads = 0;
  const std::atomic<bool>* cancel = nullptr;
  // Monte Carlo arithmetic for every shader run (the conformance oracle's tolerance); each pixel's
  // runs are seeded from perturb->seed and the pixel.
  const ir::Perturbation* perturb = nullptr;
  std::uint64_t max_steps = 50'000'000;  // per pixel's run (the interpreter's step limit): past it, undefined
};

struct ReferenceResult {
  sim::Image image;
  // Per pixel (row-major): some shader run for it met a NaN or an infinity (a domain error or an
  // overflow: undefined in RSL, so a backend may give anything there), or could not finish.
  std::vector<std::uint8_t> undefined;
  std::uint64_t errors = 0;   // pixels the interpreter could not finish (magenta)
  std::string first_error;
};

ReferenceResult reference_render(const SceneProgram& program, const SceneData& data, const sim::Scene& scene, const ReferenceOptions& options);

}  // namespace passlab::rpu
