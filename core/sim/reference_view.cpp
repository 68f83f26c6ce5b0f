// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/reference_view.h"

#include <algorithm>
#include <cmath>

namespace passlab::sim {

bool reference_view(const std::array<Vec3, 3>& p, const LensCamera& cam, ReferenceView* r, bool behind) {
  for (const Vec3& c : p)
    if (!(c.z >= cam.near) && !behind) return false;
  const Vec3 n = cross(p[1], p[2]);
  const double det = dot(p[0], n);
  const double scale = static_cast<double>(length(p[0])) * length(p[1]) * length(p[2]);
  if (!(std::abs(det) > 1e-9 * scale)) return false;
  for (int i = 0; i < 3; ++i) {
    const Vec3& c = p[static_cast<std::size_t>(i)];
    r->m[static_cast<std::size_t>(i)] = cam.focal * c.x + cam.cx() * c.z;
    r->m[static_cast<std::size_t>(3 + i)] = -cam.focal * c.y + cam.cy() * c.z;
    r->m[static_cast<std::size_t>(6 + i)] = c.z;
  }
  r->planes = {cross(p[1], p[2]), cross(p[2], p[0]), cross(p[0], p[1])};
  return true;
}

float screen_extent(const std::array<Vec3, 3>& p, const LensCamera& cam) {
  std::array<Vec3, 4> front;  // the clipped polygon: a triangle cut by a plane has at most 4 corners
  int n = 0;
  for (int i = 0; i < 3; ++i) {
    const Vec3& a = p[static_cast<std::size_t>(i)];
    const Vec3& b = p[static_cast<std::size_t>((i + 1) % 3)];
    if (a.z >= cam.near) front[static_cast<std::size_t>(n++)] = a;
    if ((a.z >= cam.near) != (b.z >= cam.near)) {
      const float f = (cam.near - a.z) / (b.z - a.z);
      front[static_cast<std::size_t>(n++)] = {a.x + f * (b.x - a.x), a.y + f * (b.y - a.y), cam.near};
    }
  }
  float extent = 0;
  for (int i = 0; i < n; ++i) {
    const Vec3& a = front[static_cast<std::size_t>(i)];
    const Vec3& b = front[static_cast<std::size_t>((i + 1) % n)];
    const float e = cam.focal * std::hypot(a.x / a.z - b.x / b.z, a.y / a.z - b.y / b.z);
    if (std::isfinite(e)) extent = std::max(extent, e);
  }
  return extent;
}

void barycentrics_at(const ReferenceView& ref, const LensCamera& cam, float gx, float gy, bool snap, float* b1, float* b2) {
  const Vec3 p{(gx - cam.cx()) / cam.focal, (cam.cy() - gy) / cam.focal, 1};
  float e[3] = {dot(ref.planes[0], p), dot(ref.planes[1], p), dot(ref.planes[2], p)};
  float sum = e[0] + e[1] + e[2];
  if (sum == 0 || !std::isfinite(sum)) {
    *b1 = *b2 = 1.0f / 3;
    return;
  }
  float b[3] = {e[0] / sum, e[1] / sum, e[2] / sum};
  if (snap && (b[0] < 0 || b[1] < 0 || b[2] < 0)) {  // onto the triangle
    for (float& x : b) x = std::max(0.0f, x);
    const float total = b[0] + b[1] + b[2];
    for (float& x : b) x /= total;
  }
  *b1 = b[1];
  *b2 = b[2];
}

}  // namespace passlab::sim
