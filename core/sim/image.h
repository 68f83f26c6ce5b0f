// SPDX-License-Identifier: GPL-3.0-or-later
// RGBA float images and PNG files.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"

namespace passlab::sim {

struct Image {
  int width = 0, height = 0;
  std::vector<float> rgba;  // row-major from the top row, 4 floats per pixel, linear values

  Image() = default;
  Image(int w, int h, std::array<float, 4> fill = {0, 0, 0, 0});
  float* at(int x, int y) { return &rgba[(static_cast<std::size_t>(y) * width + x) * 4]; }
  const float* at(int x, int y) const { return &rgba[(static_cast<std::size_t>(y) * width + x) * 4]; }
};

// 8-bit RGBA PNG: each channel clamped to [0, 1] and rounded (no gamma: what the shader computed,
// as a frame buffer stores it). Written atomically (a temporary beside the file, then a rename).
// Deterministic: the same image gives the same bytes.
bool write_png(const std::string& path, const Image& image, std::string* error);
// Any PNG (grey, grey+alpha, palette, RGB, RGBA; 8 or 16 bits) as RGBA floats in [0, 1].
std::optional<Image> read_png(const std::string& path, lang::Diagnostics* problems);

}  // namespace passlab::sim
