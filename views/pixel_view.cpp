// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/pixel_view.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace passlab::views {

uchar to_byte(float v) {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return static_cast<uchar>(std::lround(v * 255));
}

// The picture of an image's RGB, opaque: clamped to [0, 1], or with the image's smallest..largest
// finite value mapped to 0..1 (`normalize`) so that small values can be seen.
QImage to_qimage(const sim::Image& image, bool normalize, std::pair<float, float>* range) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < image.rgba.size(); ++i)
    if (i % 4 != 3 && std::isfinite(image.rgba[i])) {
      lo = std::min(lo, image.rgba[i]);
      hi = std::max(hi, image.rgba[i]);
    }
  if (lo > hi) lo = hi = 0;
  if (range) *range = {lo, hi};
  const float offset = normalize && hi > lo ? lo : 0, scale = normalize && hi > lo ? 1 / (hi - lo) : 1;
  QImage out(image.width, image.height, QImage::Format_RGBX8888);
  for (int y = 0; y < image.height; ++y) {
    uchar* line = out.scanLine(y);
    for (int x = 0; x < image.width; ++x) {
      const float* p = image.at(x, y);
      for (int c = 0; c < 3; ++c) line[x * 4 + c] = to_byte((p[c] - offset) * scale);
      line[x * 4 + 3] = 255;
    }
  }
  return out;
}

}  // namespace passlab::views
