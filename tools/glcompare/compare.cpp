// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/glcompare/compare.h"

#include <algorithm>
#include <cmath>

namespace passlab::gl {

Difference compare(const sim::Image& a, const sim::Image& b, double tolerance) {
  Difference d;
  if (a.width != b.width || a.height != b.height) {
    d.max = d.mean = d.over_fraction = 1;
    return d;
  }
  const std::size_t pixels = static_cast<std::size_t>(a.width) * a.height;
  double sum = 0;
  std::size_t over = 0;
  for (std::size_t p = 0; p < pixels; ++p) {
    double worst = 0;
    for (int c = 0; c < 4; ++c) {
      const double x = std::clamp<double>(a.rgba[p * 4 + c], 0, 1), y = std::clamp<double>(b.rgba[p * 4 + c], 0, 1);
      const double e = std::isnan(x) != std::isnan(y) ? 1 : std::isnan(x) ? 0 : std::fabs(x - y);
      worst = std::max(worst, e);
      sum += e;
    }
    d.max = std::max(d.max, worst);
    over += worst > tolerance;
  }
  d.mean = sum / static_cast<double>(pixels * 4);
  d.over_fraction = static_cast<double>(over) / static_cast<double>(pixels);
  return d;
}

}  // namespace passlab::gl
