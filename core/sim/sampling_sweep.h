// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps of decoupled sampling over its parameters (the paper's Figure 10): samples per pixel,
// cache size, cache scope and blur amount, each row one render's measures, written as CSV.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/sim/decoupled.h"

namespace passlab::sim {

enum class SweepAxis { Spp, Cache, Scope, Blur, Direction };
const char* to_string(SweepAxis a);
bool parse_sweep_axis(const std::string& name, SweepAxis* out);

struct SweepRow {
  SweepAxis axis = SweepAxis::Spp;
  DecoupledOptions options;  // what was rendered (capture, cancel and progress cleared)
  DecoupledStats stats;
};

// The renders of each axis, the other parameters as in `base`:
//   spp:   8, 27 and 64 samples per pixel, each at blur 0, 0.5, 1 and 2;
//   cache: 32 to 16384 shading samples and unlimited, quads and single samples;
//   scope: global and per-tile caches at blur 0, 0.5, 1 and 2;
//   blur:  blur 0 to 4;
//   direction: the motion turned by 0, 45, 90 and 135 degrees on screen, global and per-tile caches
//          (the paper: motion trails cross the space-filling traversal).
// `step` is told before each render (index, count); returning false stops the sweep (what was
// done is returned). An error (a render that failed) empties the result and sets *error.
std::vector<SweepRow> sweep(const Scene& scene, const std::vector<const FragmentShader*>& shaders, const DecoupledOptions& base,
                            const std::vector<SweepAxis>& axes, const std::function<bool(int, int)>& step, std::string* error);

// The rows as CSV with a header; figures that vary from run to run (times) only when `timing`.
std::string sweep_csv(const std::vector<SweepRow>& rows, bool timing);

}  // namespace passlab::sim
