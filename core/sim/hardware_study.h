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

namespace passlab::sim {

struct HardwareModel {
  long tile_bytes = 128 * 1024;    // a sort-middle tile's sample memory (the paper's 128 kB)
  int sample_bytes = 8;            // per visibility sample: 4 bytes of colour, 4 of depth
  int cache_entry_bytes = 4;       // per shading sample in the cache (the paper's "16 kB for 4k")
  int bin_entry_bytes = 64;        // a triangle's record in one tile's bin (assumed: set-up corners)
  // Work in instruction-equivalents (one shader instruction = 1).
  double vertex_per_triangle = 32;  // transform and set-up of a triangle (assumed)
  double raster_per_sample = 4;     // one visibility sample's edge tests and depth (assumed)
  double decouple_per_sample = 4;   // the map to the shading grid: one perspective-correct 2D
                                    // interpolant (section 5.3.4), for every visible sample
  double shade_per_run_default = 32;  // a shading sample when the shader's length is not known
};

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

// The side of the largest square tile of pixels whose `spp` samples fit the model's tile memory.
int tile_side(int spp, const HardwareModel& m = {});

}  // namespace passlab::sim
