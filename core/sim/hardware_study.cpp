// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/hardware_study.h"

#include <algorithm>
#include <cmath>

namespace passlab::sim {

HardwareStudy hardware_study(const DecoupledOptions& o, const DecoupledStats& s, const HardwareModel& m) {
  HardwareStudy h;
  h.tile_side = s.bin_tile;
  h.bin_spread = s.binned_triangles ? static_cast<double>(s.bin_entries) / static_cast<double>(s.binned_triangles) : 0.0;
  h.bin_bytes = static_cast<double>(s.bin_entries) * m.bin_entry_bytes;
  if (cache_samples(o) != kNoCache || o.shading == Shading::Msaa) {  // (MSAA memoizes per pixel, without a limit)
    h.cache_write_bytes = static_cast<double>(s.shader_runs) * m.cache_entry_bytes;
    h.cache_read_bytes = static_cast<double>(s.cache.lookups) * m.cache_entry_bytes;
  }
  const double sample_half = m.sample_bytes / 2.0;  // depth, or colour
  h.framebuffer_bytes = static_cast<double>(s.depth_tests) * sample_half + static_cast<double>(s.samples_tested) * m.sample_bytes;
  h.vertex = static_cast<double>(s.triangles[0] + s.triangles[1] + s.triangles[2] + s.triangles[3]) * m.vertex_per_triangle;
  h.raster = static_cast<double>(s.depth_tests) * m.raster_per_sample;
  // Supersampling and the ground truth shade each sample where it is: no map to a grid.
  const bool decoupled = o.shading == Shading::Decoupled || o.shading == Shading::Msaa || o.shading == Shading::Opportunistic;
  h.decouple = decoupled ? static_cast<double>(s.samples_tested) * m.decouple_per_sample : 0.0;
  const double per_run = s.run_operations > 0 ? static_cast<double>(s.run_operations) : m.shade_per_run_default;
  h.shade = static_cast<double>(s.shader_runs) * per_run;
  return h;
}

HardwareStudy supersampling_study(const DecoupledOptions& o, const DecoupledStats& s, const HardwareModel& m) {
  DecoupledOptions ss = o;
  ss.shading = Shading::Supersample;
  DecoupledStats counts = s;
  counts.shader_runs = s.samples_tested;
  counts.cache = {};
  return hardware_study(ss, counts, m);
}

}  // namespace passlab::sim
