// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/reference_view.h"

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

}  // namespace passlab::sim
