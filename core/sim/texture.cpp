// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/texture.h"

#include <algorithm>
#include <cmath>

namespace passlab::sim {

namespace {

// The next smaller mip level: a box filter over 2x2 texels (odd edges repeat their last texel).
Image half(const Image& a) {
  Image b(std::max(1, a.width / 2), std::max(1, a.height / 2));
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const int x0 = std::min(2 * x, a.width - 1), x1 = std::min(2 * x + 1, a.width - 1);
        const int y0 = std::min(2 * y, a.height - 1), y1 = std::min(2 * y + 1, a.height - 1);
        b.at(x, y)[c] = 0.25f * (a.at(x0, y0)[c] + a.at(x1, y0)[c] + a.at(x0, y1)[c] + a.at(x1, y1)[c]);
      }
  return b;
}

std::array<float, 4> bilinear(const Image& im, float s, float t) {
  // Texel centres at (i + 0.5) / size; coordinates wrap.
  float x = s * im.width - 0.5f, y = t * im.height - 0.5f;
  if (!(std::fabs(x) < 1e9f)) x = 0;  // NaN, infinite or huge coordinates read texel 0
  if (!(std::fabs(y) < 1e9f)) y = 0;
  const float fx = std::floor(x), fy = std::floor(y);
  const float ax = x - fx, ay = y - fy;
  auto wrap = [](long i, int n) { return static_cast<int>(((i % n) + n) % n); };
  const int x0 = wrap(static_cast<long>(fx), im.width), x1 = wrap(static_cast<long>(fx) + 1, im.width);
  const int y0 = wrap(static_cast<long>(fy), im.height), y1 = wrap(static_cast<long>(fy) + 1, im.height);
  std::array<float, 4> r;
  for (int c = 0; c < 4; ++c) {
    const float top = im.at(x0, y0)[c] * (1 - ax) + im.at(x1, y0)[c] * ax;
    const float bottom = im.at(x0, y1)[c] * (1 - ax) + im.at(x1, y1)[c] * ax;
    r[c] = top * (1 - ay) + bottom * ay;
  }
  return r;
}

// Between levels floor(lod) and the next, linearly.
std::array<float, 4> trilinear(const std::vector<Image>& chain, float s, float t, float lod) {
  lod = std::clamp(lod, 0.0f, static_cast<float>(chain.size() - 1));
  const int l0 = static_cast<int>(lod), l1 = std::min(l0 + 1, static_cast<int>(chain.size()) - 1);
  const float f = lod - static_cast<float>(l0);
  const auto a = bilinear(chain[static_cast<std::size_t>(l0)], s, t), b = bilinear(chain[static_cast<std::size_t>(l1)], s, t);
  std::array<float, 4> r;
  for (std::size_t c = 0; c < 4; ++c) r[c] = a[c] * (1 - f) + b[c] * f;
  return r;
}

}  // namespace

bool TextureSet::load(const std::map<std::string, std::string>& files, lang::Diagnostics* problems) {
  bool ok = true;
  for (const auto& [name, path] : files) {
    auto image = read_png(path, problems);
    if (!image) {
      ok = false;
      continue;
    }
    add(name, std::move(*image));
  }
  return ok;
}

void TextureSet::add(const std::string& name, Image image) {
  std::vector<Image> chain;
  chain.push_back(std::move(image));
  while (chain.back().width > 1 || chain.back().height > 1) chain.push_back(half(chain.back()));
  textures_[name] = std::move(chain);
}

std::array<float, 4> TextureSet::sample(const std::string& name, int dims, const float* coords) const {
  auto it = textures_.find(name);
  if (it == textures_.end()) return fallback_.sample(name, dims, coords);
  return bilinear(it->second.front(), coords[0], dims > 1 ? coords[1] : 0.0f);
}

std::array<float, 4> TextureSet::sample_lod(const std::string& name, float s, float t, float lod) const {
  auto it = textures_.find(name);
  if (it == textures_.end()) {
    const float c[2] = {s, t};
    return fallback_.sample(name, 2, c);
  }
  return trilinear(it->second, s, t, lod);
}

float TextureSet::level_of_detail(const float* grad, int width, int height) {
  const float w = static_cast<float>(width), h = static_cast<float>(height);
  const float along_x = std::hypot(grad[0] * w, grad[1] * h), along_y = std::hypot(grad[2] * w, grad[3] * h);
  const float rho = std::max(along_x, along_y);
  if (std::isinf(rho)) return 1e6f;  // a footprint past the horizon: the coarsest level
  return rho > 0 && std::isfinite(rho) ? std::log2(rho) : 0.0f;
}

namespace {

std::array<float, 4> filtered(const std::vector<Image>& chain, float s, float t, const float* grad) {
  const float lod = TextureSet::level_of_detail(grad, chain.front().width, chain.front().height);
  return lod <= 0 ? bilinear(chain.front(), s, t) : trilinear(chain, s, t, lod);
}

}  // namespace

std::array<float, 4> TextureSet::sample_grad(const std::string& name, float s, float t, const float* grad) const {
  auto it = textures_.find(name);
  if (it == textures_.end()) {
    const float c[2] = {s, t};
    return fallback_.sample(name, 2, c);
  }
  return filtered(it->second, s, t, grad);
}

void TextureSet::sample_grad_batch(const std::string& name, int n, const float* s, const float* t, const float* const grad[4],
                                   float* const rgb[3]) const {
  auto it = textures_.find(name);
  if (it == textures_.end()) {
    ir::TextureSampler::sample_grad_batch(name, n, s, t, grad, rgb);
    return;
  }
  for (int i = 0; i < n; ++i) {
    const float g[4] = {grad[0][i], grad[1][i], grad[2][i], grad[3][i]};
    const std::array<float, 4> v = filtered(it->second, s[i], t[i], g);
    for (int c = 0; c < 3; ++c) rgb[c][i] = v[static_cast<std::size_t>(c)];
  }
}

}  // namespace passlab::sim
