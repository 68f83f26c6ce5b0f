// SPDX-License-Identifier: GPL-3.0-or-later
// The ray-tracing unit's acceleration structure: a bounding-volume hierarchy of axis-aligned
// boxes over triangles (thesis §4.1), built offline with the binned surface-area heuristic.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/sim/math.h"

namespace passlab::rpu {

struct RayHit {
  bool hit = false;
  float t = 0, u = 0, v = 0;  // the point is (1 - u - v) a + u b + v c
  std::uint32_t triangle = 0;
  // The traversal's work, which the machine model turns into the trace unit's time: boxes
  // tested (a node's box, each child's on the way down) and triangles tested.
  std::uint32_t boxes = 0, triangles = 0;
};

class Bvh {
 public:
  Bvh() = default;
  // Builds over the triangles (not constant time: O(n log n)). Deterministic.
  explicit Bvh(const std::vector<std::array<sim::Vec3, 3>>& triangles);

  // The nearest hit with t_min < t < t_max along o + t d (d need not be unit length). Equal
  // distances go to the lower triangle index, so the answer never depends on traversal order.
  RayHit intersect(const sim::Vec3& o, const sim::Vec3& d, float t_min, float t_max) const;
  // The same by testing every triangle (the oracle for tests).
  RayHit intersect_all(const sim::Vec3& o, const sim::Vec3& d, float t_min, float t_max) const;

  std::size_t node_count() const { return nodes_.size(); }
  std::size_t triangle_count() const { return tris_.size(); }
  // The scene's bounding box (empty scene: zeros).
  sim::Vec3 lower() const;
  sim::Vec3 upper() const;

 private:
  struct Node {
    std::array<float, 3> lo{}, hi{};
    std::uint32_t first = 0;  // leaf: first index into order_; inner: the left child (right = +1)
    std::uint32_t count = 0;  // leaf: triangles; inner: 0
    std::uint8_t axis = 0;    // inner: the split axis (which child is nearer)
  };
  struct Tri {
    sim::Vec3 a, e1, e2;
    bool flat = false;  // no area (two corners equal, or all three on a line): never hit
  };
  void test(std::uint32_t index, const sim::Vec3& o, const sim::Vec3& d, float t_min, RayHit& best) const;

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> order_;
  std::vector<Tri> tris_;
};

}  // namespace passlab::rpu
