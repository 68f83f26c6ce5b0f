// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/raster.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace passlab::sim {

namespace {

constexpr int kSubpixelBits = 8;
constexpr float kSubpixel = 1 << kSubpixelBits;

// A corner of a (possibly clipped) triangle: its camera-space position and its barycentric
// coordinates in the original triangle.
struct Corner {
  Vec3 p;
  float b[3];
};

// Clips a triangle to z >= near (Sutherland-Hodgman on one plane): 0, 3 or 4 corners.
int clip_near(const std::array<Vec3, 3>& t, float near, Corner out[4]) {
  Corner in[3] = {{t[0], {1, 0, 0}}, {t[1], {0, 1, 0}}, {t[2], {0, 0, 1}}};
  int n = 0;
  for (int i = 0; i < 3; ++i) {
    const Corner& a = in[i];
    const Corner& b = in[(i + 1) % 3];
    const bool a_in = a.p.z >= near, b_in = b.p.z >= near;
    if (a_in) out[n++] = a;
    if (a_in != b_in) {
      const float f = (near - a.p.z) / (b.p.z - a.p.z);
      Corner c;
      c.p = a.p + (b.p - a.p) * f;
      c.p.z = near;
      for (int k = 0; k < 3; ++k) c.b[k] = a.b[k] + (b.b[k] - a.b[k]) * f;
      out[n++] = c;
    }
  }
  return n;
}

struct Snapped {
  std::int64_t x, y;  // fixed point, kSubpixelBits fractional bits
};

// Whether an edge from a to b (in a triangle of positive area, y down) is a top or left edge.
bool top_left(const Snapped& a, const Snapped& b) {
  const std::int64_t dx = b.x - a.x, dy = b.y - a.y;
  return (dy == 0 && dx > 0) || dy < 0;
}

// A corner (in front of the eye) on screen, snapped to the subpixel grid.
Snapped snap(const Vec3& p, const Projection& proj, float focal) {
  const float x = proj.width * 0.5f + p.x / p.z * focal;
  const float y = proj.height * 0.5f - p.y / p.z * focal;
  // Far outside the image: clamp (the edges stay straight only if both ends are real; such
  // slivers are rare and only affect pixels outside the viewport).
  const float lim = 1 << 20;
  return {std::llround(std::clamp(x, -lim, lim) * kSubpixel), std::llround(std::clamp(y, -lim, lim) * kSubpixel)};
}

// The standard sample positions, in sixteenths of a pixel from its centre.
const int kTwo[2][2] = {{4, 4}, {-4, -4}};
const int kFour[4][2] = {{-2, -6}, {6, -2}, {-6, 2}, {2, 6}};
const int kEight[8][2] = {{1, -3}, {-1, 3}, {5, 1}, {-3, -5}, {-5, 5}, {-7, -1}, {3, 7}, {7, -7}};
const int (*pattern_table(int samples))[2] { return samples == 2 ? kTwo : samples == 4 ? kFour : samples == 8 ? kEight : nullptr; }

// Rasterizes one (clipped) triangle's pixels inside `clip`. With multisampling (proj.samples > 1)
// each sample is tested; otherwise the centre.
void raster_triangle(const Corner c[3], std::uint32_t index, const Projection& proj, float focal, const PixelRect& clip,
                     std::vector<Fragment>& out) {
  Snapped s[3];
  for (int i = 0; i < 3; ++i) s[i] = snap(c[i].p, proj, focal);
  std::int64_t area = (s[1].x - s[0].x) * (s[2].y - s[0].y) - (s[1].y - s[0].y) * (s[2].x - s[0].x);
  int order[3] = {0, 1, 2};
  if (area == 0) return;
  if (area < 0) {  // make the area positive (clockwise on screen, y down)
    std::swap(order[1], order[2]);
    area = -area;
  }
  const Snapped a = s[order[0]], b = s[order[1]], d = s[order[2]];
  const Corner& ca = c[order[0]];
  const Corner& cb = c[order[1]];
  const Corner& cd = c[order[2]];
  const std::int64_t min_x = std::max<std::int64_t>(clip.x0, std::min({a.x, b.x, d.x}) >> kSubpixelBits);
  const std::int64_t max_x = std::min<std::int64_t>(clip.x1 - 1, std::max({a.x, b.x, d.x}) >> kSubpixelBits);
  const std::int64_t min_y = std::max<std::int64_t>(clip.y0, std::min({a.y, b.y, d.y}) >> kSubpixelBits);
  const std::int64_t max_y = std::min<std::int64_t>(clip.y1 - 1, std::max({a.y, b.y, d.y}) >> kSubpixelBits);
  if (min_x > max_x || min_y > max_y) return;
  // Edge functions are exact integers; a bias of -1 on non-top-left edges turns ">= 0" into the
  // fill rule.
  auto edge = [](const Snapped& p, const Snapped& q, std::int64_t x, std::int64_t y) {
    return (q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x);
  };
  const std::int64_t bias0 = top_left(b, d) ? 0 : -1, bias1 = top_left(d, a) ? 0 : -1, bias2 = top_left(a, b) ? 0 : -1;
  const float inv_area = 1.0f / static_cast<float>(area);
  const float iz[3] = {inv_area / ca.p.z, inv_area / cb.p.z, inv_area / cd.p.z};
  // The edge functions at the first pixel centre of a row, and their steps along x and y.
  const std::int64_t cx = (min_x << kSubpixelBits) + (1 << (kSubpixelBits - 1)), cy = (min_y << kSubpixelBits) + (1 << (kSubpixelBits - 1));
  constexpr std::int64_t one = 1 << kSubpixelBits;  // a pixel, in subpixels
  const std::int64_t step_x[3] = {(b.y - d.y) * one, (d.y - a.y) * one, (a.y - b.y) * one};
  const std::int64_t step_y[3] = {(d.x - b.x) * one, (a.x - d.x) * one, (b.x - a.x) * one};
  std::int64_t row[3] = {edge(b, d, cx, cy) + bias0, edge(d, a, cx, cy) + bias1, edge(a, b, cx, cy) + bias2};
  const std::int64_t bias[3] = {bias0, bias1, bias2};
  // Multisampling: each sample's edge functions are the centre's plus a constant offset.
  const int (*pattern)[2] = pattern_table(proj.samples);
  const int samples = pattern ? proj.samples : 0;
  std::int64_t offset[8][3] = {};
  for (int k = 0; k < samples; ++k) {
    const std::int64_t dx = pattern[k][0] * (one / 16), dy = pattern[k][1] * (one / 16);
    for (int e = 0; e < 3; ++e) offset[k][e] = step_x[e] / one * dx + step_y[e] / one * dy;
  }
  for (std::int64_t y = min_y; y <= max_y; ++y, row[0] += step_y[0], row[1] += step_y[1], row[2] += step_y[2]) {
    std::int64_t w[3] = {row[0], row[1], row[2]};
    for (std::int64_t x = min_x; x <= max_x; ++x, w[0] += step_x[0], w[1] += step_x[1], w[2] += step_x[2]) {
      std::uint8_t coverage = 1;
      if (samples == 0) {
        if ((w[0] | w[1] | w[2]) < 0) continue;  // outside an edge (by the fill rule's bias)
      } else {
        coverage = 0;
        for (int k = 0; k < samples; ++k)
          if (((w[0] + offset[k][0]) | (w[1] + offset[k][1]) | (w[2] + offset[k][2])) >= 0) coverage |= static_cast<std::uint8_t>(1u << k);
        if (!coverage) continue;
      }
      // Screen-space weights over z, normalised: the perspective-correct weights; their sum is 1/z.
      const float l0 = static_cast<float>(w[0] - bias[0]) * iz[0], l1 = static_cast<float>(w[1] - bias[1]) * iz[1],
                  l2 = static_cast<float>(w[2] - bias[2]) * iz[2];
      const float z = 1 / (l0 + l1 + l2);
      const float q0 = l0 * z, q1 = l1 * z, q2 = l2 * z;
      Fragment f;
      f.triangle = index;
      f.x = static_cast<std::uint16_t>(x);
      f.y = static_cast<std::uint16_t>(y);
      f.b1 = q0 * ca.b[1] + q1 * cb.b[1] + q2 * cd.b[1];
      f.b2 = q0 * ca.b[2] + q1 * cb.b[2] + q2 * cd.b[2];
      f.depth = z;
      f.coverage = coverage;
      out.push_back(f);
    }
  }
}

}  // namespace

std::vector<std::array<float, 2>> sample_pattern(int samples) {
  std::vector<std::array<float, 2>> out;
  if (samples == 1) out.push_back({0.5f, 0.5f});
  const int (*table)[2] = pattern_table(samples);
  for (int k = 0; table && k < samples; ++k) out.push_back({0.5f + table[k][0] / 16.0f, 0.5f + table[k][1] / 16.0f});
  return out;
}

float Projection::focal() const {
  const float half = std::tan(fov_degrees * std::numbers::pi_v<float> / 360.0f);
  return 0.5f * static_cast<float>(std::min(width, height)) / half;
}

bool front_facing(const std::array<Vec3, 3>& t) {
  const Vec3 n = cross(t[1] - t[0], t[2] - t[0]);
  return dot(n, t[0]) < 0;  // the normal points back towards the eye at the origin
}

void rasterize(const std::array<Vec3, 3>& t, std::uint32_t index, const Projection& proj, const PixelRect& clip,
               std::vector<Fragment>& out) {
  Corner c[4];
  const int n = clip_near(t, proj.near, c);
  if (n < 3) return;
  const float focal = proj.focal();
  raster_triangle(c, index, proj, focal, clip, out);
  if (n == 4) {
    const Corner rest[3] = {c[0], c[2], c[3]};
    raster_triangle(rest, index, proj, focal, clip, out);
  }
}

void rasterize(const std::vector<std::array<Vec3, 3>>& triangles, const Projection& proj, Cull cull,
               std::vector<Fragment>& out) {
  const PixelRect all{0, 0, proj.width, proj.height};
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    if (cull == Cull::Back && !front_facing(triangles[i])) continue;
    rasterize(triangles[i], static_cast<std::uint32_t>(i), proj, all, out);
  }
}

PixelRect screen_bounds(const std::array<Vec3, 3>& t, const Projection& proj) {
  Corner c[4];
  const int n = clip_near(t, proj.near, c);
  if (n < 3) return {0, 0, 0, 0};
  const float focal = proj.focal();
  std::int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = INT64_MIN, y1 = INT64_MIN;
  for (int i = 0; i < n; ++i) {
    const Snapped s = snap(c[i].p, proj, focal);
    x0 = std::min(x0, s.x >> kSubpixelBits);
    y0 = std::min(y0, s.y >> kSubpixelBits);
    x1 = std::max(x1, s.x >> kSubpixelBits);
    y1 = std::max(y1, s.y >> kSubpixelBits);
  }
  PixelRect r{static_cast<int>(std::clamp<std::int64_t>(x0, 0, proj.width)), static_cast<int>(std::clamp<std::int64_t>(y0, 0, proj.height)),
              static_cast<int>(std::clamp<std::int64_t>(x1 + 1, 0, proj.width)), static_cast<int>(std::clamp<std::int64_t>(y1 + 1, 0, proj.height))};
  if (r.x0 >= r.x1 || r.y0 >= r.y1) return {0, 0, 0, 0};
  return r;
}

}  // namespace passlab::sim
