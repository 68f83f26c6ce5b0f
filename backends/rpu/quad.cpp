// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/rpu/quad.h"

#include <cmath>

namespace passlab::rpu {

namespace {

struct V3 {
  float x, y, z;
};
V3 sub(const Vec4& a, const Vec4& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 cross(const V3& a, const V3& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
float dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

}  // namespace

bool takes_derivatives(const Program& program) {
  for (const Instruction& in : program.code)
    if (is_lane_crossing(in.primary.op) || (in.paired() && is_lane_crossing(in.secondary.op))) return true;
  return false;
}

std::optional<PlanePoint> plane_point(const Vec4& a, const Vec4& b, const Vec4& c, const Vec4& origin, const Vec4& direction) {
  // Möller-Trumbore as Bvh::test computes it, every step in the same order.
  const V3 e1 = sub(b, a), e2 = sub(c, a), d{direction[0], direction[1], direction[2]};
  const V3 p = cross(d, e2);
  const float det = dot(e1, p);
  if (det == 0 || !std::isfinite(det)) return std::nullopt;
  const float inv = 1.0f / det;
  const V3 s = sub(origin, a);
  const V3 q = cross(s, e1);
  PlanePoint out{dot(s, p) * inv, dot(d, q) * inv, dot(e2, q) * inv};
  if (!std::isfinite(out.u) || !std::isfinite(out.v) || !std::isfinite(out.t)) return std::nullopt;
  return out;
}

std::optional<PlanePoint> plane_point(const std::vector<Vec4>& memory, std::int64_t record, const Vec4& origin, const Vec4& direction) {
  const auto size = static_cast<std::int64_t>(memory.size());
  if (record < 0 || record >= size) return std::nullopt;
  const Vec4& tri = memory[static_cast<std::size_t>(record)];
  Vec4 corner[3];
  for (int k = 0; k < 3; ++k) {
    const float at = tri[static_cast<std::size_t>(k)];
    if (!(at >= 0) || at >= static_cast<float>(size)) return std::nullopt;
    corner[k] = memory[static_cast<std::size_t>(at)];
  }
  return plane_point(corner[0], corner[1], corner[2], origin, direction);
}

}  // namespace passlab::rpu
