// Writes the bowling pin's textures as PNG files: the projector slides its light setup names
// (proj_stars, proj_stripes, proj_dots, proj_grid) and the maps of its surface (pinbase, bruns,
// circle, coated, marks): `make_slides DIR`. The files in samples/textures are its output.
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
