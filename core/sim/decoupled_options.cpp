// SPDX-License-Identifier: GPL-3.0-or-later
// The decoupled renderer's options and measures: their names, the cache a mode uses, and the
// error of an image against a reference (the renderer itself is in decoupled.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/sim/decoupled.h"

namespace passlab::sim {

const char* to_string(Shading s) {
  switch (s) {
    case Shading::Decoupled: return "decoupled";
    case Shading::Supersample: return "supersample";
    case Shading::Msaa: return "msaa";
    case Shading::Opportunistic: return "opportunistic";
    case Shading::Exact: return "exact";
  }
  return "?";
}
const char* to_string(CacheScope s) { return s == CacheScope::Global ? "global" : "tile"; }
const char* to_string(Reconstruct r) { return r == Reconstruct::Nearest ? "nearest" : "bilinear"; }

int shading_block(const DecoupledOptions& o) {
  return o.quads && (o.shading == Shading::Decoupled || o.shading == Shading::Msaa) ? 4 : 1;
}

long cache_samples(const DecoupledOptions& o) {
  if (o.shading == Shading::Supersample || o.shading == Shading::Msaa || o.shading == Shading::Exact) return kNoCache;
  if (o.cache <= 0) return 0;
  const long block = shading_block(o);
  return std::max(1L, o.cache / block) * block;  // as ShadingCache sizes itself
}

std::string cache_summary(const DecoupledOptions& o, const DecoupledStats& s) {
  const long cache = cache_samples(o);
  if (o.shading == Shading::Supersample) return "no shading cache (every sample shaded)";
  if (o.shading == Shading::Exact) return "no shading cache (every sample shaded at its own lens point and time)";
  if (o.shading == Shading::Msaa) return fmt::format("per-pixel reuse {:.1f}%", 100 * s.cache.hit_rate());
  return fmt::format("cache hit rate {:.1f}% ({} {} samples)", 100 * s.cache.hit_rate(), to_string(o.scope),
                     cache == 0 ? std::string("unlimited") : std::to_string(cache));
}

ImageError image_error(const Image& image, const Image& reference) {
  ImageError e;
  if (image.width != reference.width || image.height != reference.height || image.rgba.empty()) return e;
  double sum = 0;
  for (std::size_t i = 0; i < image.rgba.size(); ++i) {
    if (i % 4 == 3) continue;
    const double d = static_cast<double>(image.rgba[i]) - reference.rgba[i];
    sum += d * d;
    e.max_abs = std::max(e.max_abs, std::abs(d));
  }
  e.rmse = std::sqrt(sum / (static_cast<double>(image.rgba.size()) / 4 * 3));
  e.psnr = e.rmse > 0 ? 20 * std::log10(1 / e.rmse) : std::numeric_limits<double>::infinity();
  return e;
}

std::vector<float> error_map(const Image& image, const Image& reference) {
  std::vector<float> out;
  if (image.width != reference.width || image.height != reference.height) return out;
  out.resize(image.rgba.size() / 4);
  for (std::size_t p = 0; p < out.size(); ++p)
    for (std::size_t c = 0; c < 3; ++c) out[p] = std::max(out[p], std::abs(image.rgba[p * 4 + c] - reference.rgba[p * 4 + c]));
  return out;
}

}  // namespace passlab::sim
