// SPDX-License-Identifier: GPL-3.0-or-later
// The BVH: binned SAH construction and an iterative, nearest-child-first traversal.
#include "backends/rpu/bvh.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace passlab::rpu {

namespace {

using sim::Vec3;

constexpr int kBins = 16;
constexpr std::uint32_t kLeafSize = 4;
constexpr std::uint32_t kMaxDepth = 100;  // deeper nodes become leaves: traversal's stack holds 128

struct Box {
  std::array<float, 3> lo{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  std::array<float, 3> hi{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  void grow(const Vec3& p) {
    const float c[3] = {p.x, p.y, p.z};
    for (int i = 0; i < 3; ++i) {
      lo[static_cast<std::size_t>(i)] = std::min(lo[static_cast<std::size_t>(i)], c[i]);
      hi[static_cast<std::size_t>(i)] = std::max(hi[static_cast<std::size_t>(i)], c[i]);
    }
  }
  void grow(const Box& b) {
    for (std::size_t i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], b.lo[i]);
      hi[i] = std::max(hi[i], b.hi[i]);
    }
  }
  float area() const {
    if (lo[0] > hi[0]) return 0;
    const float x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
    return 2 * (x * y + y * z + z * x);
  }
};

float axis_of(const Vec3& v, int a) { return a == 0 ? v.x : a == 1 ? v.y : v.z; }

}  // namespace

Bvh::Bvh(const std::vector<std::array<Vec3, 3>>& triangles) {
  const auto n = static_cast<std::uint32_t>(triangles.size());
  tris_.reserve(n);
  std::vector<Box> boxes(n);
  std::vector<Vec3> centre(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto& t = triangles[i];
    // A triangle without area (a sphere's poles have them) has a determinant that is zero only
    // up to rounding: Möller-Trumbore then divides by it and reports hits anywhere (the
    // conformance tester saw one at t = 1, u = v = 0, for a ray the reference missed).
    const Vec3 e1 = t[1] - t[0], e2 = t[2] - t[0];
    const Vec3 n = sim::cross(e1, e2);
    const bool flat = !(sim::dot(n, n) > 1e-12f * sim::dot(e1, e1) * sim::dot(e2, e2));
    tris_.push_back({t[0], e1, e2, flat});
    for (const Vec3& p : t) boxes[i].grow(p);
    centre[i] = (t[0] + t[1] + t[2]) * (1.0f / 3);
  }
  order_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order_[i] = i;
  if (n == 0) return;
  struct Work {
    std::uint32_t node, first, count, depth;
  };
  nodes_.push_back({});
  std::vector<Work> stack{{0, 0, n, 0}};
  while (!stack.empty()) {
    const Work w = stack.back();
    stack.pop_back();
    Box bounds, cbounds;
    for (std::uint32_t k = w.first; k < w.first + w.count; ++k) {
      bounds.grow(boxes[order_[k]]);
      cbounds.grow(centre[order_[k]]);
    }
    Node& node = nodes_[w.node];
    node.lo = bounds.lo;
    node.hi = bounds.hi;
    node.first = w.first;
    node.count = w.count;
    if (w.count <= kLeafSize || w.depth >= kMaxDepth) continue;
    // The cheapest split over the bins of every axis (surface-area heuristic).
    int best_axis = -1, best_bin = 0;
    float best_cost = bounds.area() * static_cast<float>(w.count);  // cost of a leaf
    for (int axis = 0; axis < 3; ++axis) {
      const float lo = cbounds.lo[static_cast<std::size_t>(axis)], hi = cbounds.hi[static_cast<std::size_t>(axis)];
      if (!(hi > lo)) continue;
      const float scale = kBins / (hi - lo);
      Box bin_box[kBins];
      std::uint32_t bin_count[kBins] = {};
      for (std::uint32_t k = w.first; k < w.first + w.count; ++k) {
        const std::uint32_t i = order_[k];
        const int b = std::min(kBins - 1, static_cast<int>((axis_of(centre[i], axis) - lo) * scale));
        ++bin_count[b];
        bin_box[b].grow(boxes[i]);
      }
      float right_area[kBins];
      std::uint32_t right_count[kBins];
      Box acc;
      std::uint32_t cnt = 0;
      for (int b = kBins - 1; b > 0; --b) {
        acc.grow(bin_box[b]);
        cnt += bin_count[b];
        right_area[b] = acc.area();
        right_count[b] = cnt;
      }
      Box left;
      std::uint32_t lcnt = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        left.grow(bin_box[b]);
        lcnt += bin_count[b];
        if (lcnt == 0 || right_count[b + 1] == 0) continue;
        const float cost = 0.125f * bounds.area() + left.area() * static_cast<float>(lcnt) + right_area[b + 1] * static_cast<float>(right_count[b + 1]);
        if (cost < best_cost) {
          best_cost = cost;
          best_axis = axis;
          best_bin = b;
        }
      }
    }
    std::uint32_t mid;
    if (best_axis >= 0) {
      const float lo = cbounds.lo[static_cast<std::size_t>(best_axis)], hi = cbounds.hi[static_cast<std::size_t>(best_axis)];
      const float scale = kBins / (hi - lo);
      auto begin = order_.begin() + w.first, end = begin + w.count;
      auto split = std::stable_partition(begin, end, [&](std::uint32_t i) {
        return std::min(kBins - 1, static_cast<int>((axis_of(centre[i], best_axis) - lo) * scale)) <= best_bin;
      });
      mid = static_cast<std::uint32_t>(split - order_.begin());
    } else if (w.count > 2 * kLeafSize * 4) {
      // Many triangles with one centre (or a leaf cheaper than any split but too big): halve.
      mid = w.first + w.count / 2;
      best_axis = 0;
    } else {
      continue;
    }
    node.count = 0;
    node.axis = static_cast<std::uint8_t>(best_axis);
    const auto left = static_cast<std::uint32_t>(nodes_.size());
    node.first = left;
    nodes_.push_back({});
    nodes_.push_back({});
    stack.push_back({left + 1, mid, w.first + w.count - mid, w.depth + 1});
    stack.push_back({left, w.first, mid - w.first, w.depth + 1});
  }
}

void Bvh::test(std::uint32_t index, const Vec3& o, const Vec3& d, float t_min, RayHit& best) const {
  // Möller-Trumbore, two-sided.
  const Tri& tr = tris_[index];
  if (tr.flat) return;
  const Vec3 p = sim::cross(d, tr.e2);
  const float det = sim::dot(tr.e1, p);
  if (det == 0 || !std::isfinite(det)) return;
  const float inv = 1.0f / det;
  const Vec3 s = o - tr.a;
  const float u = sim::dot(s, p) * inv;
  if (!(u >= 0 && u <= 1)) return;
  const Vec3 q = sim::cross(s, tr.e1);
  const float v = sim::dot(d, q) * inv;
  if (!(v >= 0 && u + v <= 1)) return;
  const float t = sim::dot(tr.e2, q) * inv;
  if (!(t > t_min)) return;
  if (t < best.t || (best.hit && t == best.t && index < best.triangle)) {
    best.hit = true;
    best.t = t;
    best.u = u;
    best.v = v;
    best.triangle = index;
  }
}

RayHit Bvh::intersect(const Vec3& o, const Vec3& d, float t_min, float t_max) const {
  RayHit best;
  best.t = t_max;
  if (nodes_.empty()) return best;
  const float inv[3] = {1.0f / d.x, 1.0f / d.y, 1.0f / d.z};
  const float org[3] = {o.x, o.y, o.z};
  auto enter = [&](const Node& nd, float limit) {
    ++best.boxes;
    float t0 = t_min, t1 = limit;
    for (std::size_t a = 0; a < 3; ++a) {
      float near = (nd.lo[a] - org[a]) * inv[a], far = (nd.hi[a] - org[a]) * inv[a];
      if (near > far) std::swap(near, far);
      if (std::isnan(near)) near = -std::numeric_limits<float>::infinity();  // 0 * inf: the ray lies in the slab's plane
      if (std::isnan(far)) far = std::numeric_limits<float>::infinity();
      t0 = std::max(t0, near);
      t1 = std::min(t1, far * (1 + 2e-7f));
      if (t0 > t1) return false;
    }
    return true;
  };
  std::uint32_t stack[128];
  int top = 0;
  if (!enter(nodes_[0], best.t)) return best;
  stack[top++] = 0;
  while (top > 0) {
    const Node& nd = nodes_[stack[--top]];
    if (nd.count) {
      for (std::uint32_t k = nd.first; k < nd.first + nd.count; ++k) test(order_[k], o, d, t_min, best);
      best.triangles += nd.count;
      continue;
    }
    const std::uint32_t near_child = nd.first + (axis_of(d, nd.axis) < 0 ? 1u : 0u);
    const std::uint32_t far_child = nd.first + nd.first + 1 - near_child;
    // Push the far child first so the near one is tested first; a box beyond the best hit is
    // skipped (equal distance still enters, for the lower-index rule).
    if (enter(nodes_[far_child], best.t)) stack[top++] = far_child;
    if (enter(nodes_[near_child], best.t)) stack[top++] = near_child;
  }
  return best;
}

RayHit Bvh::intersect_all(const Vec3& o, const Vec3& d, float t_min, float t_max) const {
  RayHit best;
  best.t = t_max;
  for (std::uint32_t i = 0; i < tris_.size(); ++i) test(i, o, d, t_min, best);
  best.triangles = static_cast<std::uint32_t>(tris_.size());
  return best;
}

Vec3 Bvh::lower() const { return nodes_.empty() ? Vec3{} : Vec3{nodes_[0].lo[0], nodes_[0].lo[1], nodes_[0].lo[2]}; }
Vec3 Bvh::upper() const { return nodes_.empty() ? Vec3{} : Vec3{nodes_[0].hi[0], nodes_[0].hi[1], nodes_[0].hi[2]}; }

}  // namespace passlab::rpu
