// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware the decoupled-sampling studies model (Ragan-Kelley et al., ACM TOG 2011, sections
// 5.3 and 5.4): memory sizes and per-operation work as data, with the sort-middle tile they imply.
// The renderer bins triangles into these tiles; hardware_study.h weighs its counts with them.
#pragma once

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

// The side of the largest square tile of pixels whose `spp` samples fit the model's tile memory.
int tile_side(int spp, const HardwareModel& m = {});

}  // namespace passlab::sim
