// SPDX-License-Identifier: GPL-3.0-or-later
// The paper's hardware studies from a decoupled render's counts (Ragan-Kelley, Lehtinen, Chen,
// Doggett and Durand, "Decoupled Sampling for Graphics Pipelines", ACM TOG 2011, sections 5.3 and
// 5.4): bin spread in a sort-middle pipeline whose tiles hold at most 128 kB of samples, the
// shading cache's traffic, the framebuffer's, and the end-to-end cost model that weighs
// rasterization, the decoupling map and shading against each other. A model, not a simulation of
// a chip: its weights are data (HardwareModel), stated where the paper is silent.
#pragma once

#include <string>

#include "core/sim/decoupled.h"
#include "core/sim/hardware_model.h"

namespace passlab::sim {

struct HardwareStudy {
  // Sort-middle binning.
  int tile_side = 0;              // pixels: the largest square tile whose samples fit tile_bytes
  double bin_spread = 0;          // tiles a drawn triangle (its blurred bounds) touches, on average
  double bin_bytes = 0;           // bin storage: entries x bin_entry_bytes
  // Traffic (bytes).
  double cache_write_bytes = 0;   // shading samples written to the shading cache
  double cache_read_bytes = 0;    // visible samples' lookups (bilinear: each tap)
  double framebuffer_bytes = 0;   // depth read per sample tested, depth and colour written per sample kept
  // The cost model (instruction-equivalents), by stage, as the paper's Figure 13.
  double vertex = 0, raster = 0, decouple = 0, shade = 0;
  double total() const { return vertex + raster + decouple + shade; }
};

// The study of one render with options `o` and its statistics `s` (which carry the counts).
HardwareStudy hardware_study(const DecoupledOptions& o, const DecoupledStats& s, const HardwareModel& m = {});

// The same frame supersampled, under the same model: every sample the render tested shaded at
// itself (as Shading::Supersample does), no map to a grid and no shading cache.
HardwareStudy supersampling_study(const DecoupledOptions& o, const DecoupledStats& s, const HardwareModel& m = {});

}  // namespace passlab::sim
