// SPDX-License-Identifier: GPL-3.0-or-later
// Writes the bowling pin's textures as PNG files: the projector slides its light setup names
// (proj_stars, proj_stripes, proj_dots, proj_grid) and the maps of its surface (pinbase, bruns,
// circle, coated, marks), and the maps of Mark & Proudfoot's Figure 4 pin (pinnormals,
// pindecals, pinbasemarks): `make_slides DIR`. The files in samples/textures are its output.
// (Texture t grows down the image; on the pin it grows upwards, so the pictures are upside down.)
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <string>

#include "core/sim/image.h"

using passlab::sim::Image;

namespace {

// A w x h slide: white-on-black coverage from `shape`, tinted.
Image slide(int w, int h, std::array<float, 3> tint, const std::function<float(float, float)>& shape) {
  Image im(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      // 4x4 samples per texel for smooth edges.
      float cover = 0;
      for (int sy = 0; sy < 4; ++sy)
        for (int sx = 0; sx < 4; ++sx) cover += shape((x + (sx + 0.5f) / 4) / w, (y + (sy + 0.5f) / 4) / h);
      cover /= 16;
      float* p = im.at(x, y);
      for (int c = 0; c < 3; ++c) p[c] = 0.05f + 0.95f * cover * tint[static_cast<std::size_t>(c)];
      p[3] = 1;
    }
  return im;
}

Image slide(int n, std::array<float, 3> tint, const std::function<float(float, float)>& shape) { return slide(n, n, tint, shape); }

// A w x h map of the pin's surface: white where `shape` is 0, red where it is 1.
Image paint(int w, int h, const std::function<float(float, float)>& shape) {
  Image im = slide(w, h, {1.0f, 1.0f, 1.0f}, shape);  // coverage of the red, in every channel
  for (std::size_t i = 0; i < im.rgba.size(); i += 4) {
    const float red = (im.rgba[i] - 0.05f) / 0.95f;
    im.rgba[i] = 1.0f;
    im.rgba[i + 1] = im.rgba[i + 2] = 1.0f - 0.85f * red;
  }
  return im;
}
Image paint(int n, const std::function<float(float, float)>& shape) { return paint(n, n, shape); }

float star(float u, float v) {
  // Five-pointed stars on a 4x4 grid.
  const float cu = std::fmod(u * 4, 1.0f) - 0.5f, cv = std::fmod(v * 4, 1.0f) - 0.5f;
  const float r = std::sqrt(cu * cu + cv * cv), a = std::atan2(cv, cu);
  const float edge = 0.18f + 0.12f * std::cos(5 * a);
  return r < edge ? 1.0f : 0.0f;
}

// The Figure 4 pin's maps are in its (s, t): s around the pin (0.75 faces the camera), t up it.

// A tangent-space normal map of round dimples, (N + 1) / 2 in RGB; alpha is the length of the
// normal averaged over the texel (4 x 4 samples), what the paper keeps "before renormalisation"
// so a mip-filtered bumpy texel darkens instead of shining.
Image normal_map(int n) {
  Image im(n, n);
  auto height = [](float u, float v) {  // a dimple in each of 2 x 2 cells per tile
    const float cu = std::fmod(u * 2, 1.0f) - 0.5f, cv = std::fmod(v * 2, 1.0f) - 0.5f;
    const float r2 = cu * cu + cv * cv;
    return r2 < 0.05f ? -(0.05f - r2) * 2.0f : 0.0f;
  };
  const float e = 0.5f / static_cast<float>(n * 4);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      float sum[3] = {0, 0, 0};
      for (int sy = 0; sy < 4; ++sy)
        for (int sx = 0; sx < 4; ++sx) {
          const float u = (x + (sx + 0.5f) / 4) / static_cast<float>(n), v = (y + (sy + 0.5f) / 4) / static_cast<float>(n);
          const float du = (height(u + e, v) - height(u - e, v)) / (2 * e) / static_cast<float>(n);
          const float dv = (height(u, v + e) - height(u, v - e)) / (2 * e) / static_cast<float>(n);
          float nx = -du * 16, ny = -dv * 16, nz = 1;
          const float len = std::sqrt(nx * nx + ny * ny + nz * nz);
          sum[0] += nx / len, sum[1] += ny / len, sum[2] += nz / len;
        }
      float* p = im.at(x, y);
      const float len = std::sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]) / 16;
      for (int c = 0; c < 3; ++c) p[c] = 0.5f + 0.5f * sum[c] / 16 / len;
      p[3] = len;
    }
  return im;
}

// The front label: a red diamond with a white rim, premultiplied, its coverage in alpha.
Image decals(int w, int h) {
  Image im(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float red = 0, white = 0;
      for (int sy = 0; sy < 4; ++sy)
        for (int sx = 0; sx < 4; ++sx) {
          const float u = (x + (sx + 0.5f) / 4) / static_cast<float>(w), v = (y + (sy + 0.5f) / 4) / static_cast<float>(h);
          const float d = std::fabs(u - 0.75f) * 2.2f + std::fabs(v - 0.4f);
          if (d < 0.09f) red += 1;
          else if (d < 0.11f) white += 1;
        }
      red /= 16, white /= 16;
      float* p = im.at(x, y);
      p[0] = 0.85f * red + white;
      p[1] = p[2] = 0.08f * red + white;
      p[3] = red + white;
    }
  return im;
}

// The body: white with two red stripes round the neck, scuff marks in alpha (1 where clean).
Image base_marks(int w, int h) {
  Image im(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float u = (x + 0.5f) / static_cast<float>(w), v = (y + 0.5f) / static_cast<float>(h);
      const bool stripe = (v > 0.700f && v < 0.725f) || (v > 0.745f && v < 0.770f);
      float* p = im.at(x, y);
      p[0] = stripe ? 0.80f : 0.95f;
      p[1] = p[2] = stripe ? 0.10f : 0.93f;
      const int cu = static_cast<int>(u * 40), cv = static_cast<int>(v * 40);
      const unsigned hsh = (static_cast<unsigned>(cu) * 73856093u) ^ (static_cast<unsigned>(cv) * 19349663u);
      const float fu = u * 40 - static_cast<float>(cu) - 0.5f, fv = v * 40 - static_cast<float>(cv) - 0.5f;
      p[3] = (hsh % 7 == 0) && fu * fu * 4 + fv * fv < 0.05f ? 0.75f : 1.0f;
    }
  return im;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_slides DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int n = 128;
  struct Out {
    const char* name;
    Image image;
  } outs[] = {
      {"proj_stars", slide(n, {1.0f, 0.85f, 0.2f}, star)},
      {"proj_stripes", slide(n, {0.2f, 0.6f, 1.0f}, [](float u, float) { return std::fmod(u * 6, 1.0f) < 0.5f ? 1.0f : 0.0f; })},
      {"proj_dots", slide(n, {1.0f, 0.3f, 0.3f},
                          [](float u, float v) {
                            const float cu = std::fmod(u * 5, 1.0f) - 0.5f, cv = std::fmod(v * 5, 1.0f) - 0.5f;
                            return cu * cu + cv * cv < 0.09f ? 1.0f : 0.0f;
                          })},
      {"proj_grid", slide(n, {0.3f, 1.0f, 0.4f},
                          [](float u, float v) { return std::fmod(u * 8, 1.0f) < 0.15f || std::fmod(v * 8, 1.0f) < 0.15f ? 1.0f : 0.0f; })},
      // Two red stripes round the neck (t 0.60-0.63 and 0.66-0.69 with this sample's shader space).
      // Narrow: the stripes do not change around the pin, and the map's width wraps the pin one and
      // a half times, so a wide one would be minified across it (and mip-mapped into a blur).
      {"pinbase", paint(8, 256, [](float, float v) { return (v > 0.60f && v < 0.63f) || (v > 0.66f && v < 0.69f) ? 1.0f : 0.0f; })},
      // The front label: a red diamond (the maps repeat, and this one's tile is about half the
      // pin's height, so its design stays small).
      {"bruns", paint(n, [](float u, float v) { return std::fabs(u - 0.5f) + std::fabs(v - 0.5f) < 0.12f ? 1.0f : 0.0f; })},
      // Over the front label: its tile is a seventh of the label's, so it is left plain.
      {"circle", paint(8, [](float, float) { return 0.0f; })},
      // The back label: a red band.
      {"coated", paint(n, [](float u, float v) { return u > 0.2f && u < 0.8f && v > 0.42f && v < 0.58f ? 1.0f : 0.0f; })},
      // Scuffs: small grey marks scattered by a hash.
      {"marks", slide(256, {1.0f, 1.0f, 1.0f}, [](float u, float v) {
         const int cu = static_cast<int>(u * 24), cv = static_cast<int>(v * 24);
         const unsigned h = (static_cast<unsigned>(cu) * 73856093u) ^ (static_cast<unsigned>(cv) * 19349663u);
         const float fu = u * 24 - static_cast<float>(cu) - 0.5f, fv = v * 24 - static_cast<float>(cv) - 0.5f;
         return (h % 7 == 0) && fu * fu + fv * fv * 6 < 0.05f ? 0.75f : 1.0f;
       })},
      {"pinnormals", normal_map(128)},
      {"pindecals", decals(256, 256)},
      {"pinbasemarks", base_marks(256, 256)},
  };
  for (const auto& o : outs) {
    std::string error;
    if (!passlab::sim::write_png(dir + "/" + o.name + ".png", o.image, &error)) {
      std::fprintf(stderr, "make_slides: %s\n", error.c_str());
      return 1;
    }
  }
  return 0;
}
