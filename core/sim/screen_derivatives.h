// SPDX-License-Identifier: GPL-3.0-or-later
// Screen-space derivatives of interpolated values, exact for values affine over a triangle: a ray
// through the eye meets the triangle's plane at barycentrics proportional to its dot products with
// the corners' planes through the eye (p1 x p2, p2 x p0, p0 x p1), so the barycentrics one step
// to the right and one below are exact, and so are the differences of the values.
#pragma once

#include <array>
#include <cstddef>

#include "core/sim/math.h"

namespace passlab::sim {

// Barycentrics of the point where `ray` (from the eye) meets the triangle's plane.
inline void plane_weights(const std::array<Vec3, 3>& planes, const Vec3& ray, float q[3]) {
  const float d[3] = {dot(ray, planes[0]), dot(ray, planes[1]), dot(ray, planes[2])};
  const float sum = d[0] + d[1] + d[2];
  for (int i = 0; i < 3; ++i) q[i] = sum != 0 ? d[i] / sum : 0.0f;
}

// A derivative interpolant (corner values (a, b, a, b)) at a point with barycentrics q, given
// those one step right (qx) and one step down (qy): (da/dx, db/dx, da/dy, db/dy), written to
// out[0], out[stride], out[2 stride], out[3 stride].
inline void derivative_values(const float q[3], const float qx[3], const float qy[3], const float* v0, const float* v1, const float* v2,
                              float* out, std::size_t stride) {
  for (int comp = 0; comp < 4; ++comp) {
    const float* dq = comp < 2 ? qx : qy;
    out[static_cast<std::size_t>(comp) * stride] = (dq[0] - q[0]) * v0[comp] + (dq[1] - q[1]) * v1[comp] + (dq[2] - q[2]) * v2[comp];
  }
}

// A difference interpolant (FragmentShader::screen_difference `d`) at a point with barycentrics
// q, given those one step right (qx) and one step down (qy): each of its four components there
// minus here (d 1: right, 2: below), or there (3: right, 4: below). The value there is the
// fragment's interpolated value (weights w, the rasterizer's) plus that difference, so that a
// value computed there minus the same computed here differences the same inputs as elsewhere.
inline void difference_values(int d, const float w[3], const float q[3], const float qx[3], const float qy[3], const float* v0,
                              const float* v1, const float* v2, float* out, std::size_t stride) {
  const float* qd = d == 1 || d == 3 ? qx : qy;
  for (int comp = 0; comp < 4; ++comp) {
    const float change = (qd[0] - q[0]) * v0[comp] + (qd[1] - q[1]) * v1[comp] + (qd[2] - q[2]) * v2[comp];
    out[static_cast<std::size_t>(comp) * stride] = d <= 2 ? change : v0[comp] * w[0] + v1[comp] * w[1] + v2[comp] * w[2] + change;
  }
}

}  // namespace passlab::sim
