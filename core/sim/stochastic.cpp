// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/stochastic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/ir/splitmix.h"
#include "core/ir/value.h"  // PASSLAB_HOT_CLONES

namespace passlab::sim {

namespace {

using Random = ir::SplitMix64;  // the sample tables' generator

// Shirley and Chiu's concentric map from the unit square to the unit disc.
std::array<float, 2> concentric_disc(float a, float b) {
  const float x = 2 * a - 1, y = 2 * b - 1;
  if (x == 0 && y == 0) return {0, 0};
  constexpr float quarter = std::numbers::pi_v<float> / 4;
  if (std::abs(x) > std::abs(y)) return {x * std::cos(quarter * y / x), x * std::sin(quarter * y / x)};
  return {y * std::sin(quarter * x / y), y * std::cos(quarter * x / y)};
}

int cube_root(int n) {
  for (int r = 1; r * r * r <= n; ++r)
    if (r * r * r == n) return r;
  return 0;
}

// The clip-space corner (X, Y, W) of camera-space point p seen from lens point (u, v).
[[gnu::always_inline]] inline Vec3 sheared(const Vec3& p, const LensCamera& c, float u, float v) {
  const float k = c.aperture * (p.z / c.focus - 1);
  return {p.x + u * k, p.y + v * k, p.z};
}

// Which side claims a sample exactly on an edge: of the two triangles sharing it, whose oriented
// edge normals are exact negatives, exactly one.
bool claims_tie(const Vec3& n) { return n.x > 0 || (n.x == 0 && n.y > 0); }

// A sample's hit from its edge values oriented by the determinant's sign (all ≥ 0, ties
// settled): W = |det| / their sum, in front of the near plane; barycentrics are their shares.
inline bool hit_from(float e0, float e1, float e2, float det, float near, Hit* hit) {
  const float sum = e0 + e1 + e2;
  const float z = std::abs(det) / sum;
  if (!(z >= near) || !(sum > 0) || !std::isfinite(z)) return false;
  const float inv = 1 / sum;
  hit->b1 = e1 * inv;
  hit->b2 = e2 * inv;
  hit->z = z;
  return true;
}

// The coverage decision from the three edge normals and the determinant of the clip corners,
// with few branches (which way a sample goes is unpredictable): the edge values oriented by the
// determinant's sign, all tested at once; ties (a value of exactly 0) go the slow way.
inline bool decide(const Vec3 n[3], float det, bool cull_back, const LensCamera& camera, float px, float py, Hit* hit) {
  const float sign = det < 0 ? -1.0f : 1.0f;
  const float e0 = sign * (n[0].x * px + n[0].y * py + n[0].z), e1 = sign * (n[1].x * px + n[1].y * py + n[1].z),
              e2 = sign * (n[2].x * px + n[2].y * py + n[2].z);
  const bool outside = (e0 < 0) | (e1 < 0) | (e2 < 0) | (det == 0) | (cull_back & (det > 0));
  if (outside) return false;  // edge on, a back face (front faces have det < 0), or outside an edge
  if ((e0 == 0) | (e1 == 0) | (e2 == 0)) {
    const float e[3] = {e0, e1, e2};
    for (int i = 0; i < 3; ++i)
      if (e[i] == 0 && !claims_tie(n[i] * sign)) return false;
  }
  return hit_from(e0, e1, e2, det, camera.near, hit);
}

// A class's edge normals n_i (e_i = n_i . (px, py, 1)) seen from lens point (u, v) at time t, and
// the determinant of the clip corners (c_0 . n_0): what cover() and cover_pixel() both evaluate,
// so that they decide alike to the bit. (Written out without loops or arrays so that a pixel's
// samples vectorize.)
struct Edges {
  Vec3 n0, n1, n2;
  float det;
};
template <Blur K>
[[gnu::always_inline]] inline Edges edges_at(const TriangleSetup& s, const LensCamera& camera, float u, float v, float t) {
  const auto& a = s.edge[0];
  const auto& b = s.edge[1];
  const auto& c = s.edge[2];
  Edges r;
  Vec3 c0;
  if constexpr (K == Blur::Static) {
    r.n0 = {a[0], a[1], a[2]};
    r.n1 = {b[0], b[1], b[2]};
    r.n2 = {c[0], c[1], c[2]};
    c0 = s.open[0];
  } else if constexpr (K == Blur::Moving) {
    r.n0 = {a[0] + t * (a[3] + t * a[6]), a[1] + t * (a[4] + t * a[7]), a[2] + t * (a[5] + t * a[8])};
    r.n1 = {b[0] + t * (b[3] + t * b[6]), b[1] + t * (b[4] + t * b[7]), b[2] + t * (b[5] + t * b[8])};
    r.n2 = {c[0] + t * (c[3] + t * c[6]), c[1] + t * (c[4] + t * c[7]), c[2] + t * (c[5] + t * c[8])};
    c0 = s.open[0] + s.move[0] * t;
  } else if constexpr (K == Blur::Defocused) {
    r.n0 = {a[0] + a[1] * v, a[2] + a[3] * u, a[4] + a[5] * u + a[6] * v};
    r.n1 = {b[0] + b[1] * v, b[2] + b[3] * u, b[4] + b[5] * u + b[6] * v};
    r.n2 = {c[0] + c[1] * v, c[2] + c[3] * u, c[4] + c[5] * u + c[6] * v};
    c0 = {s.open[0].x + u * s.lens[0], s.open[0].y + v * s.lens[0], s.open[0].z};
  } else {
    c0 = sheared(s.open[0] + s.move[0] * t, camera, u, v);
    const Vec3 c1 = sheared(s.open[1] + s.move[1] * t, camera, u, v), c2 = sheared(s.open[2] + s.move[2] * t, camera, u, v);
    r.n0 = cross(c1, c2);
    r.n1 = cross(c2, c0);
    r.n2 = cross(c0, c1);
  }
  r.det = dot(c0, r.n0);
  return r;
}

// Samples' edge values and determinants for class K, into the arrays (vectorized): n samples of
// pixel (x, y) with offsets ox, oy in the pixel, lens points us, vs and times ts.
struct SampleSet {
  int n;
  const float *ox, *oy, *us, *vs, *ts;
};
template <Blur K>
inline void pixel_edges(const TriangleSetup& s, const LensCamera& camera, const SampleSet& set, int x, int y, float* __restrict e0,
                        float* __restrict e1, float* __restrict e2, float* __restrict dt) {
  const float* __restrict ox = set.ox;
  const float* __restrict oy = set.oy;
  const float* __restrict us = set.us;
  const float* __restrict vs = set.vs;
  const float* __restrict ts = set.ts;
  const float inv = 1.0f / camera.focal, cx = camera.cx(), cy = camera.cy();
  const float fx = static_cast<float>(x), fy = static_cast<float>(y);
  for (int k = 0; k < set.n; ++k) {
    const float px = (fx + ox[k] - cx) * inv, py = (cy - (fy + oy[k])) * inv;
    const Edges g = edges_at<K>(s, camera, us[k], vs[k], ts[k]);
    e0[k] = g.n0.x * px + g.n0.y * py + g.n0.z;
    e1[k] = g.n1.x * px + g.n1.y * py + g.n1.z;
    e2[k] = g.n2.x * px + g.n2.y * py + g.n2.z;
    dt[k] = g.det;
  }
}


}  // namespace

float LensCamera::circle_of_confusion(float z) const {
  if (aperture <= 0 || z <= 0) return 0;
  return 2 * aperture * focal * std::abs(1 / focus - 1 / z);
}

double LensCamera::blur_area(const Vec3& open, const Vec3& close) const {
  if (!(open.z > 0 && close.z > 0)) return std::numeric_limits<double>::quiet_NaN();
  const double d = 0.5 * (static_cast<double>(circle_of_confusion(open.z)) + circle_of_confusion(close.z));
  const double trail = static_cast<double>(focal) * std::hypot(static_cast<double>(open.x) / open.z - static_cast<double>(close.x) / close.z,
                                                               static_cast<double>(open.y) / open.z - static_cast<double>(close.y) / close.z);
  return std::min(std::max(1.0, std::numbers::pi * d * d / 4) + trail * std::max(1.0, d), static_cast<double>(width) * height);
}

SamplePattern::SamplePattern(int spp, std::uint32_t seed, bool shared) : spp_(std::max(1, spp)) {
  // Positions: the standard multisample patterns where they exist, else the R2 sequence
  // (Roberts 2018), kept a thirty-second of a pixel from the borders.
  const std::vector<std::array<float, 2>> standard = sample_pattern(spp_);
  if (!standard.empty()) {
    xy_ = standard;
  } else {
    const double g = 1.32471795724474602596, a1 = 1 / g, a2 = 1 / (g * g);
    for (int k = 0; k < spp_; ++k) {
      const double x = std::fmod(0.5 + a1 * (k + 1), 1.0), y = std::fmod(0.5 + a2 * (k + 1), 1.0);
      xy_.push_back({static_cast<float>(1.0 / 32 + x * 30 / 32), static_cast<float>(1.0 / 32 + y * 30 / 32)});
    }
  }
  const int n = cube_root(spp_);
  strata_ = n > 0 ? n : std::max(1, static_cast<int>(std::lround(std::cbrt(static_cast<double>(spp_)))));
  uvt_.resize(static_cast<std::size_t>(32 * 32) * static_cast<std::size_t>(spp_));
  cell_.resize(uvt_.size());
  std::vector<int> cells(static_cast<std::size_t>(spp_)), pu(cells.size()), pv(cells.size()), pt(cells.size());
  for (int pixel = 0; pixel < 32 * 32; ++pixel) {
    Random rng{(static_cast<std::uint64_t>(seed) << 32) ^ static_cast<std::uint64_t>(shared ? 0 : pixel) * 0x2545f4914f6cdd1dull};
    for (int k = 0; k < spp_; ++k) cells[static_cast<std::size_t>(k)] = pu[static_cast<std::size_t>(k)] = pv[static_cast<std::size_t>(k)] = pt[static_cast<std::size_t>(k)] = k;
    rng.shuffle(cells);
    rng.shuffle(pu);
    rng.shuffle(pv);
    rng.shuffle(pt);
    for (int k = 0; k < spp_; ++k) {
      float a, b, t;
      if (n > 0) {  // a jittered 3D grid: sample k takes cell cells[k] of n x n x n
        const int c = cells[static_cast<std::size_t>(k)];
        a = (static_cast<float>(c % n) + rng.uniform()) / static_cast<float>(n);
        b = (static_cast<float>(c / n % n) + rng.uniform()) / static_cast<float>(n);
        t = (static_cast<float>(c / (n * n)) + rng.uniform()) / static_cast<float>(n);
      } else {  // a Latin hypercube: each of u, v and t stratified into spp strata
        const float inv = 1.0f / static_cast<float>(spp_);
        a = (static_cast<float>(pu[static_cast<std::size_t>(k)]) + rng.uniform()) * inv;
        b = (static_cast<float>(pv[static_cast<std::size_t>(k)]) + rng.uniform()) * inv;
        t = (static_cast<float>(pt[static_cast<std::size_t>(k)]) + rng.uniform()) * inv;
      }
      const auto disc = concentric_disc(a, b);
      const std::size_t at = static_cast<std::size_t>(pixel) * static_cast<std::size_t>(spp_) + static_cast<std::size_t>(k);
      uvt_[at] = {disc[0], disc[1], std::min(t, 0.99999994f)};
      // The coarse stratum (m per dimension) the sample's lens point and time fall in.
      auto coarse = [&](float x) { return std::min(strata_ - 1, static_cast<int>(x * static_cast<float>(strata_))); };
      cell_[at] = static_cast<std::uint8_t>(coarse(a) + strata_ * (coarse(b) + strata_ * coarse(std::min(t, 0.99999994f))));
    }
  }
  measure_lens_cells();
  for (const auto& p : xy_) {
    ox_.push_back(p[0]);
    oy_.push_back(p[1]);
  }
  for (const auto& p : uvt_) {
    us_.push_back(p[0]);
    vs_.push_back(p[1]);
    ts_.push_back(p[2]);
  }
  // Each pixel's samples grouped by cell (spp <= 256, so a sample index fits a byte).
  const int n_cells = strata_ * strata_ * strata_;
  by_cell_.resize(uvt_.size());
  cell_start_.assign(static_cast<std::size_t>(32 * 32) * static_cast<std::size_t>(n_cells + 1), 0);
  for (int pixel = 0; pixel < 32 * 32; ++pixel) {
    std::uint16_t* start = cell_start_.data() + static_cast<std::size_t>(pixel) * static_cast<std::size_t>(n_cells + 1);
    const std::size_t base = static_cast<std::size_t>(pixel) * static_cast<std::size_t>(spp_);
    for (int k = 0; k < spp_; ++k) ++start[cell_[base + static_cast<std::size_t>(k)] + 1];
    for (int c = 0; c < n_cells; ++c) start[c + 1] = static_cast<std::uint16_t>(start[c + 1] + start[c]);
    std::vector<std::uint16_t> next(start, start + n_cells);
    for (int k = 0; k < spp_; ++k) by_cell_[base + next[cell_[base + static_cast<std::size_t>(k)]]++] = static_cast<std::uint8_t>(k);
  }
  if (spp_ <= 64) {
    cell_samples_.assign(static_cast<std::size_t>(32 * 32) * static_cast<std::size_t>(n_cells), 0);
    for (int pixel = 0; pixel < 32 * 32; ++pixel)
      for (int k = 0; k < spp_; ++k) {
        const std::size_t at = static_cast<std::size_t>(pixel) * static_cast<std::size_t>(spp_) + static_cast<std::size_t>(k);
        cell_samples_[static_cast<std::size_t>(pixel) * static_cast<std::size_t>(n_cells) + cell_[at]] |= std::uint64_t{1} << k;
      }
  }
}

// The lens cells' extents on the disc: each square cell's image under the concentric map,
// bounded by mapping its outline finely, padded by more than the map moves between the points.
void SamplePattern::measure_lens_cells() {
  lens_range_.assign(static_cast<std::size_t>(strata_ * strata_), {0, 0, 0, 0});
  const float step = 1.0f / static_cast<float>(strata_);
  constexpr int kPoints = 64;
  for (int iv = 0; iv < strata_; ++iv)
    for (int iu = 0; iu < strata_; ++iu) {
      std::array<float, 4> r{1e9f, -1e9f, 1e9f, -1e9f};
      for (int e = 0; e < 4; ++e)
        for (int i = 0; i <= kPoints; ++i) {
          const float f = static_cast<float>(i) / kPoints;
          const float a = static_cast<float>(iu) * step + (e == 0 ? f * step : e == 1 ? step : e == 2 ? f * step : 0.0f);
          const float b = static_cast<float>(iv) * step + (e == 0 ? 0.0f : e == 1 ? f * step : e == 2 ? step : f * step);
          const auto d = concentric_disc(std::min(a, 1.0f), std::min(b, 1.0f));
          r[0] = std::min(r[0], d[0]);
          r[1] = std::max(r[1], d[0]);
          r[2] = std::min(r[2], d[1]);
          r[3] = std::max(r[3], d[1]);
        }
      const float pad = 2.0f * step / kPoints;
      lens_range_[static_cast<std::size_t>(iv * strata_ + iu)] = {std::max(-1.0f, r[0] - pad), std::min(1.0f, r[1] + pad),
                                                                    std::max(-1.0f, r[2] - pad), std::min(1.0f, r[3] + pad)};
    }
}

const char* to_string(Blur b) {
  switch (b) {
    case Blur::Static: return "static";
    case Blur::Moving: return "moving";
    case Blur::Defocused: return "defocused";
    case Blur::Both: return "both";
  }
  return "?";
}

// The pixels the triangle may cover at times [t0, t1] of the shutter through lens points
// [u0, u1] x [v0, v1]. Every point the triangle takes in that time is a convex combination of its
// corners at the two ends, so its part in front of the near plane lies in the hull of those six
// corners (where in front) and of where the segments between them cross the plane. Through a
// lens point the projection is linear-fractional, so its extremes are at those points and at the
// corners of the lens rectangle.
PixelRect bounds_over(const TriangleSetup& s, const LensCamera& camera, float t0, float t1, float u0, float u1, float v0, float v1) {
  Vec3 ends[6];
  for (int i = 0; i < 3; ++i) {
    ends[i] = s.open[static_cast<std::size_t>(i)] + s.move[static_cast<std::size_t>(i)] * t0;
    ends[3 + i] = s.open[static_cast<std::size_t>(i)] + s.move[static_cast<std::size_t>(i)] * t1;
  }
  const bool moving = s.kind == Blur::Moving || s.kind == Blur::Both;
  const int distinct = moving ? 6 : 3;
  Vec3 hull[6 + 15];
  int n = 0;
  for (int i = 0; i < distinct; ++i) {
    if (ends[i].z >= camera.near) hull[n++] = ends[i];
    for (int j = i + 1; j < distinct; ++j)
      if ((ends[i].z < camera.near) != (ends[j].z < camera.near)) {
        const float f = (camera.near - ends[i].z) / (ends[j].z - ends[i].z);
        Vec3 p = ends[i] + (ends[j] - ends[i]) * f;
        p.z = camera.near;
        hull[n++] = p;
      }
  }
  if (n == 0) return {0, 0, 0, 0};
  float x0 = std::numeric_limits<float>::infinity(), y0 = x0, x1 = -x0, y1 = -x0;
  const bool lens = camera.aperture > 0;
  for (int h = 0; h < n; ++h)
    for (int l = 0; l < (lens ? 4 : 1); ++l) {
      const Vec3 c = lens ? sheared(hull[h], camera, l & 1 ? u1 : u0, l & 2 ? v1 : v0) : hull[h];
      const float sx = camera.cx() + camera.focal * c.x / c.z, sy = camera.cy() - camera.focal * c.y / c.z;
      x0 = std::min(x0, sx);
      x1 = std::max(x1, sx);
      y0 = std::min(y0, sy);
      y1 = std::max(y1, sy);
    }
  const float w = static_cast<float>(camera.width), h = static_cast<float>(camera.height);
  // (NaN from a degenerate corner falls to the whole image.)
  PixelRect r{static_cast<int>(std::clamp(std::floor(x0), 0.0f, w)), static_cast<int>(std::clamp(std::floor(y0), 0.0f, h)),
              static_cast<int>(std::clamp(std::floor(x1) + 1, 0.0f, w)), static_cast<int>(std::clamp(std::floor(y1) + 1, 0.0f, h))};
  if (std::isnan(x0) || std::isnan(x1) || std::isnan(y0) || std::isnan(y1)) r = {0, 0, camera.width, camera.height};
  return r.empty() ? PixelRect{0, 0, 0, 0} : r;
}

TriangleSetup setup_triangle(const std::array<Vec3, 3>& start, const std::array<Vec3, 3>& end, bool cull_back, const LensCamera& camera) {
  TriangleSetup s;
  s.cull_back = cull_back;
  bool moving = false;
  for (int i = 0; i < 3; ++i) {
    s.open[static_cast<std::size_t>(i)] = lerp(start[static_cast<std::size_t>(i)], end[static_cast<std::size_t>(i)], camera.shutter0);
    const Vec3 close = lerp(start[static_cast<std::size_t>(i)], end[static_cast<std::size_t>(i)], camera.shutter1);
    s.move[static_cast<std::size_t>(i)] = close - s.open[static_cast<std::size_t>(i)];
    moving = moving || !(s.move[static_cast<std::size_t>(i)] == Vec3{0, 0, 0});
  }
  bool defocused = false;
  for (int i = 0; i < 3; ++i) {
    s.lens[static_cast<std::size_t>(i)] = camera.aperture * (s.open[static_cast<std::size_t>(i)].z / camera.focus - 1);
    defocused = defocused || s.lens[static_cast<std::size_t>(i)] != 0;
  }
  if (camera.aperture > 0 && moving) defocused = true;
  s.kind = moving ? (defocused ? Blur::Both : Blur::Moving) : (defocused ? Blur::Defocused : Blur::Static);
  for (int i = 0; i < 3; ++i) {
    const std::size_t j = static_cast<std::size_t>((i + 1) % 3), k = static_cast<std::size_t>((i + 2) % 3);
    auto& e = s.edge[static_cast<std::size_t>(i)];
    const Vec3& a = s.open[j];
    const Vec3& b = s.open[k];
    switch (s.kind) {
      case Blur::Static: {
        const Vec3 n = cross(a, b);
        e = {n.x, n.y, n.z, 0, 0, 0, 0, 0, 0};
        break;
      }
      case Blur::Moving: {  // (a + t da) x (b + t db) = a x b + t (da x b + a x db) + t² (da x db)
        const Vec3& da = s.move[j];
        const Vec3& db = s.move[k];
        const Vec3 n0 = cross(a, b), n1 = cross(da, b) + cross(a, db), n2 = cross(da, db);
        e = {n0.x, n0.y, n0.z, n1.x, n1.y, n1.z, n2.x, n2.y, n2.z};
        break;
      }
      case Blur::Defocused: {  // with ka, kb the corners' lens shears (see the header)
        const float ka = s.lens[j], kb = s.lens[k];
        e = {a.y * b.z - a.z * b.y, ka * b.z - a.z * kb,   // x: B + A v
             a.z * b.x - a.x * b.z, a.z * kb - ka * b.z,   // y: D + C u
             a.x * b.y - a.y * b.x, ka * b.y - a.y * kb,   // z: G + E u + F v
             a.x * kb - ka * b.x, 0, 0};
        break;
      }
      case Blur::Both: break;  // warped per sample
    }
  }
  s.bounds = bounds_over(s, camera, 0, 1, -1, 1, -1, 1);
  return s;
}

bool cover(const TriangleSetup& s, const LensCamera& camera, float px, float py, float u, float v, float t, Hit* hit) {
  Edges g;
  switch (s.kind) {
    case Blur::Static: g = edges_at<Blur::Static>(s, camera, u, v, t); break;
    case Blur::Moving: g = edges_at<Blur::Moving>(s, camera, u, v, t); break;
    case Blur::Defocused: g = edges_at<Blur::Defocused>(s, camera, u, v, t); break;
    case Blur::Both: g = edges_at<Blur::Both>(s, camera, u, v, t); break;
  }
  const Vec3 n[3] = {g.n0, g.n1, g.n2};
  return decide(n, g.det, s.cull_back, camera, px, py, hit);
}

bool cover_warped(const std::array<Vec3, 3>& start, const std::array<Vec3, 3>& end, bool cull_back, const LensCamera& camera,
                  float px, float py, float u, float v, float t, Hit* hit) {
  // In double precision, from scratch: the corners at the sample's time through its lens point.
  const double time = camera.shutter0 + static_cast<double>(t) * (camera.shutter1 - camera.shutter0);
  double X[3], Y[3], W[3];
  for (int i = 0; i < 3; ++i) {
    const auto& a = start[static_cast<std::size_t>(i)];
    const auto& b = end[static_cast<std::size_t>(i)];
    const double x = a.x + (static_cast<double>(b.x) - a.x) * time, y = a.y + (static_cast<double>(b.y) - a.y) * time,
                 z = a.z + (static_cast<double>(b.z) - a.z) * time;
    const double k = camera.aperture * (z / camera.focus - 1);
    X[i] = x + u * k;
    Y[i] = y + v * k;
    W[i] = z;
    if (W[i] < camera.near) return false;  // (this reference handles triangles in front of the eye)
  }
  // On the image plane (x/w, y/w): 2D barycentrics, then perspective-correct ones.
  double sx[3], sy[3];
  for (int i = 0; i < 3; ++i) {
    sx[i] = X[i] / W[i];
    sy[i] = Y[i] / W[i];
  }
  auto signed_area = [](double ax, double ay, double bx, double by, double cx, double cy) { return (bx - ax) * (cy - ay) - (cx - ax) * (by - ay); };
  const double area = signed_area(sx[0], sy[0], sx[1], sy[1], sx[2], sy[2]);
  if (area == 0) return false;
  const double l[3] = {signed_area(px, py, sx[1], sy[1], sx[2], sy[2]) / area, signed_area(sx[0], sy[0], px, py, sx[2], sy[2]) / area,
                       signed_area(sx[0], sy[0], sx[1], sy[1], px, py) / area};
  if (l[0] < 0 || l[1] < 0 || l[2] < 0) return false;
  const double det = X[0] * (Y[1] * W[2] - W[1] * Y[2]) + Y[0] * (W[1] * X[2] - X[1] * W[2]) + W[0] * (X[1] * Y[2] - Y[1] * X[2]);
  if (cull_back && det > 0) return false;
  const double q[3] = {l[0] / W[0], l[1] / W[1], l[2] / W[2]};
  const double sum = q[0] + q[1] + q[2];
  hit->b1 = static_cast<float>(q[1] / sum);
  hit->b2 = static_cast<float>(q[2] / sum);
  hit->z = static_cast<float>(1 / sum);
  return true;
}

void strata_bounds(const TriangleSetup& s, const LensCamera& camera, const SamplePattern& pattern, PixelRect* out) {
  const int m = pattern.strata();
  const bool lens = camera.aperture > 0 && (s.kind == Blur::Defocused || s.kind == Blur::Both);
  const bool time = s.kind == Blur::Moving || s.kind == Blur::Both;
  for (int it = 0; it < m; ++it)
    for (int iv = 0; iv < m; ++iv)
      for (int iu = 0; iu < m; ++iu) {
        const int cell = iu + m * (iv + m * it);
        if (!lens && !time) {
          out[cell] = s.bounds;
          continue;
        }
        if ((!lens && (iu > 0 || iv > 0)) || (!time && it > 0)) {  // the same as a cell computed already
          out[cell] = out[lens ? iu + m * iv : (time ? m * m * it : 0)];
          continue;
        }
        const auto& r = pattern.lens_range(iu, iv);
        const float t0 = time ? static_cast<float>(it) / static_cast<float>(m) : 0.0f, t1 = time ? static_cast<float>(it + 1) / static_cast<float>(m) : 1.0f;
        out[cell] = lens ? bounds_over(s, camera, t0, t1, r[0], r[1], r[2], r[3]) : bounds_over(s, camera, t0, t1, 0, 0, 0, 0);
        // Within the whole triangle's bounds (both are conservative).
        PixelRect& b = out[cell];
        b = {std::max(b.x0, s.bounds.x0), std::max(b.y0, s.bounds.y0), std::min(b.x1, s.bounds.x1), std::min(b.y1, s.bounds.y1)};
        if (b.empty()) b = {0, 0, 0, 0};
      }
}

PASSLAB_HOT_CLONES int cover_pixel(const TriangleSetup& s, const LensCamera& camera, const SamplePattern& pattern, int x, int y,
                                    Hit* hits, std::uint8_t* ks, const std::uint64_t* only) {
  alignas(32) float e0[256], e1[256], e2[256], dt[256];
  // The samples to test: all of the pixel's, or those in `only`, gathered (in increasing k).
  alignas(32) float gx[256], gy[256], gu[256], gv[256], gt[256];
  std::uint8_t index[256];
  SampleSet set{pattern.spp(), pattern.offset_x(), pattern.offset_y(), pattern.lens_u(x, y), pattern.lens_v(x, y), pattern.time(x, y)};
  if (only) {
    int m = 0;
    for (int w = 0; w < 4 && w * 64 < set.n; ++w)
      for (std::uint64_t bits = set.n - w * 64 >= 64 ? only[w] : only[w] & ((std::uint64_t{1} << (set.n - w * 64)) - 1); bits; bits &= bits - 1) {
        const int k = w * 64 + __builtin_ctzll(bits);
        gx[m] = set.ox[k];
        gy[m] = set.oy[k];
        gu[m] = set.us[k];
        gv[m] = set.vs[k];
        gt[m] = set.ts[k];
        index[m++] = static_cast<std::uint8_t>(k);
      }
    set = {m, gx, gy, gu, gv, gt};
  }
  const int n = set.n;
  switch (s.kind) {
    case Blur::Static: pixel_edges<Blur::Static>(s, camera, set, x, y, e0, e1, e2, dt); break;
    case Blur::Moving: pixel_edges<Blur::Moving>(s, camera, set, x, y, e0, e1, e2, dt); break;
    case Blur::Defocused: pixel_edges<Blur::Defocused>(s, camera, set, x, y, e0, e1, e2, dt); break;
    case Blur::Both: pixel_edges<Blur::Both>(s, camera, set, x, y, e0, e1, e2, dt); break;
  }
  // Which are inside (ties and the near plane settled below), as bits.
  std::uint64_t inside[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const float sign = dt[i] < 0 ? -1.0f : 1.0f;
    e0[i] *= sign;
    e1[i] *= sign;
    e2[i] *= sign;
    const bool in = (e0[i] >= 0) & (e1[i] >= 0) & (e2[i] >= 0) & (dt[i] != 0) & !(s.cull_back & (dt[i] > 0));
    inside[i >> 6] |= static_cast<std::uint64_t>(in) << (i & 63);
  }
  int count = 0;
  for (int w = 0; w < 4; ++w)
    for (std::uint64_t bits = inside[w]; bits; bits &= bits - 1) {
      const int i = w * 64 + __builtin_ctzll(bits);
      const int k = only ? index[i] : i;
      if ((e0[i] == 0) | (e1[i] == 0) | (e2[i] == 0)) {  // on an edge: the tie rule, as cover() decides it
        const float px = (static_cast<float>(x) + pattern.offset_x()[k] - camera.cx()) * (1.0f / camera.focal);
        const float py = (camera.cy() - (static_cast<float>(y) + pattern.offset_y()[k])) * (1.0f / camera.focal);
        const auto& uvt = pattern.uvt(x, y, k);
        if (cover(s, camera, px, py, uvt[0], uvt[1], uvt[2], &hits[count])) ks[count++] = static_cast<std::uint8_t>(k);
        continue;
      }
      if (hit_from(e0[i], e1[i], e2[i], dt[i], camera.near, &hits[count])) ks[count++] = static_cast<std::uint8_t>(k);
    }
  return count;
}

}  // namespace passlab::sim
