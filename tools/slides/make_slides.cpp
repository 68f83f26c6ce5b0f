// Writes the projector slides the bowling pin's light setup names (proj_stars, proj_stripes,
// proj_dots, proj_grid) as PNG files: `make_slides DIR`. The files in samples/textures are its output.
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <string>

#include "core/sim/image.h"

using passlab::sim::Image;

namespace {

// A slide: white-on-black coverage from `shape`, tinted.
Image slide(int n, std::array<float, 3> tint, const std::function<float(float, float)>& shape) {
  Image im(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      // 4x4 samples per texel for smooth edges.
      float cover = 0;
      for (int sy = 0; sy < 4; ++sy)
        for (int sx = 0; sx < 4; ++sx) cover += shape((x + (sx + 0.5f) / 4) / n, (y + (sy + 0.5f) / 4) / n);
      cover /= 16;
      float* p = im.at(x, y);
      for (int c = 0; c < 3; ++c) p[c] = 0.05f + 0.95f * cover * tint[static_cast<std::size_t>(c)];
      p[3] = 1;
    }
  return im;
}

float star(float u, float v) {
  // Five-pointed stars on a 4x4 grid.
  const float cu = std::fmod(u * 4, 1.0f) - 0.5f, cv = std::fmod(v * 4, 1.0f) - 0.5f;
  const float r = std::sqrt(cu * cu + cv * cv), a = std::atan2(cv, cu);
  const float edge = 0.18f + 0.12f * std::cos(5 * a);
  return r < edge ? 1.0f : 0.0f;
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
