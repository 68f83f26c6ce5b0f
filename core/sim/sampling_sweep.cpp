// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/sampling_sweep.h"

#include <fmt/format.h>

namespace passlab::sim {

const char* to_string(SweepAxis a) {
  switch (a) {
    case SweepAxis::Spp: return "spp";
    case SweepAxis::Cache: return "cache";
    case SweepAxis::Scope: return "scope";
    case SweepAxis::Blur: return "blur";
    case SweepAxis::Direction: return "direction";
  }
  return "?";
}

bool parse_sweep_axis(const std::string& name, SweepAxis* out) {
  for (SweepAxis a : {SweepAxis::Spp, SweepAxis::Cache, SweepAxis::Scope, SweepAxis::Blur, SweepAxis::Direction})
    if (name == to_string(a)) {
      *out = a;
      return true;
    }
  return false;
}

std::vector<SweepRow> sweep(const Scene& scene, const std::vector<const FragmentShader*>& shaders, const DecoupledOptions& base,
                            const std::vector<SweepAxis>& axes, const std::function<bool(int, int)>& step, std::string* error) {
  DecoupledOptions plain = base;
  plain.capture = nullptr;
  plain.progress = nullptr;
  plain.shuffle = 0;
  std::vector<SweepRow> plan;
  const float blurs[] = {0, 0.5f, 1, 2};
  for (SweepAxis axis : axes) {
    auto add = [&](DecoupledOptions o) { plan.push_back({axis, o, {}}); };
    switch (axis) {
      case SweepAxis::Spp:
        for (int spp : {8, 27, 64})
          for (float blur : blurs) {
            DecoupledOptions o = plain;
            o.spp = spp;
            o.blur = blur;
            add(o);
          }
        break;
      case SweepAxis::Cache:
        for (bool quads : {true, false})
          for (long size : {32L, 64L, 128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L, 16384L, 0L}) {
            DecoupledOptions o = plain;
            o.quads = quads;
            o.cache = size;
            add(o);
          }
        break;
      case SweepAxis::Scope:
        for (CacheScope scope : {CacheScope::Global, CacheScope::Tile})
          for (float blur : blurs) {
            DecoupledOptions o = plain;
            o.scope = scope;
            o.blur = blur;
            add(o);
          }
        break;
      case SweepAxis::Blur:
        for (float blur : {0.0f, 0.25f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f}) {
          DecoupledOptions o = plain;
          o.blur = blur;
          add(o);
        }
        break;
      case SweepAxis::Direction:
        for (CacheScope scope : {CacheScope::Global, CacheScope::Tile})
          for (float angle : {0.0f, 45.0f, 90.0f, 135.0f}) {
            DecoupledOptions o = plain;
            o.scope = scope;
            o.motion_angle = angle;
            add(o);
          }
        break;
    }
  }
  std::vector<SweepRow> done;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (step && !step(static_cast<int>(i), static_cast<int>(plan.size()))) break;
    SweepRow row = plan[i];
    row.options.cancel = base.cancel;
    if (!render_decoupled(scene, shaders, row.options, &row.stats, error)) {
      if (base.cancel && base.cancel->load()) break;
      return {};
    }
    row.options.cancel = nullptr;
    done.push_back(row);
  }
  return done;
}

std::string sweep_csv(const std::vector<SweepRow>& rows, bool timing) {
  std::string out =
      "axis,shading,spp,blur,cache,scope,block,reconstruct,rate,adaptive,width,height,covered_pixels,samples_tested,shader_runs,"
      "shading_rate,savings,blur_area,cache_lookups,cache_hits,cache_misses,cache_evictions,hit_rate,passes,slot_passes,seen_pixels,motion_angle";
  if (timing) out += ",milliseconds";
  out += '\n';
  for (const SweepRow& r : rows) {
    const DecoupledOptions& o = r.options;
    const DecoupledStats& s = r.stats;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{:.3f},{:.3f},{},{},{},{},{:.4f},{},{},{:.3f},{}", to_string(r.axis),
                       to_string(o.shading), o.spp, o.blur, o.cache, to_string(o.scope), o.quads ? "quad" : "sample",
                       to_string(o.reconstruct), o.rate, o.adaptive ? 1 : 0, s.width, s.height, s.covered_pixels, s.samples_tested,
                       s.shader_runs, s.shading_rate(), s.savings(), s.blur_area, s.cache.lookups, s.cache.hits, s.cache.misses,
                       s.cache.evictions, s.cache.hit_rate(), s.passes, s.slot_passes, s.seen_pixels, o.motion_angle);
    if (timing) out += fmt::format(",{:.1f}", s.milliseconds);
    out += '\n';
  }
  return out;
}

}  // namespace passlab::sim
