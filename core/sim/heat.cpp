// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/heat.h"

#include <algorithm>

namespace passlab::sim {

std::array<float, 3> heat_colour(double t) {
  static const float stops[5][3] = {{13, 8, 135}, {126, 3, 168}, {204, 71, 120}, {248, 149, 64}, {240, 249, 33}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const float f = static_cast<float>(t - i);
  std::array<float, 3> c{};
  for (int k = 0; k < 3; ++k) c[static_cast<std::size_t>(k)] = (stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f) / 255.0f;
  return c;
}

Image heat_image(const std::vector<float>& values, int width, int height, float max, const std::vector<char>* covered,
                 std::array<float, 4> empty) {
  Image out(width, height, empty);
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  if (values.size() < n) return out;
  for (std::size_t i = 0; i < n; ++i) {
    if (covered && (i >= covered->size() || !(*covered)[i])) continue;
    const auto c = heat_colour(max > 0 ? values[i] / max : 0.0);
    float* p = out.rgba.data() + i * 4;
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
    p[3] = 1;
  }
  return out;
}

}  // namespace passlab::sim
