// SPDX-License-Identifier: GPL-3.0-or-later
// Stochastic rasterization and the shading cache: the 4D (and time-continuous) edge functions
// agree with warping the triangle to the sample, shared edges stay watertight, strata culling
// never drops a covered sample, the sample pattern is the jittered grid it claims, and the LRU
// cache's hits, misses and evictions on sequences worked out by hand.
#include <random>

#include <gtest/gtest.h>

#include "core/sim/decoupled.h"
#include "core/sim/shading_cache.h"
#include "core/sim/stochastic.h"

namespace passlab::sim {
namespace {

LensCamera camera(float aperture) {
  LensCamera c;
  c.width = c.height = 64;
  c.focal = 80;
  c.aperture = aperture;
  c.focus = 5;
  return c;
}

std::array<Vec3, 3> random_triangle(std::mt19937& rng) {
  std::uniform_real_distribution<float> xy(-1.5f, 1.5f), z(3, 8);
  return {Vec3{xy(rng), xy(rng), z(rng)}, Vec3{xy(rng), xy(rng), z(rng)}, Vec3{xy(rng), xy(rng), z(rng)}};
}

// Whether a sample is within `eps` (in barycentrics) of an edge of the warped triangle, where the
// two computations may round differently.
bool near_edge(const Hit& h, float eps) { return h.b1 < eps || h.b2 < eps || 1 - h.b1 - h.b2 < eps; }

TEST(EdgeFunctions, AgreeWithDirectWarpingOnRandomTrianglesAndSamples) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0, 1), screen(-0.5f, 0.5f);
  int checked[4] = {}, hits[4] = {};
  for (int trial = 0; trial < 400; ++trial) {
    const bool moving = trial % 2 == 1, defocus = trial % 4 >= 2;
    const LensCamera cam = camera(defocus ? 0.4f : 0.0f);
    const auto start = random_triangle(rng);
    auto end = start;
    if (moving)
      for (auto& p : end) p = p + Vec3{screen(rng), screen(rng), screen(rng)};
    const TriangleSetup s = setup_triangle(start, end, false, cam);
    const int kind = static_cast<int>(s.kind);
    EXPECT_EQ(s.kind, moving ? (defocus ? Blur::Both : Blur::Moving) : (defocus ? Blur::Defocused : Blur::Static));
    for (int i = 0; i < 200; ++i) {
      const float px = screen(rng), py = screen(rng), t = unit(rng);
      float u = 2 * unit(rng) - 1, v = 2 * unit(rng) - 1;
      if (u * u + v * v > 1) u = v = 0;
      Hit a, b;
      const bool fast = cover(s, cam, px, py, u, v, t, &a);
      const bool slow = cover_warped(start, end, false, cam, px, py, u, v, t, &b);
      if (fast != slow && near_edge(fast ? a : b, 1e-4f)) continue;
      ++checked[kind];
      ASSERT_EQ(fast, slow) << to_string(s.kind) << " trial " << trial << " sample " << i;
      if (!fast) continue;
      ++hits[kind];
      EXPECT_NEAR(a.b1, b.b1, 1e-3f);
      EXPECT_NEAR(a.b2, b.b2, 1e-3f);
      EXPECT_NEAR(a.z, b.z, 1e-3f * b.z);
    }
  }
  for (int k = 0; k < 4; ++k) {
    EXPECT_GT(checked[k], 15000) << to_string(static_cast<Blur>(k));
    EXPECT_GT(hits[k], 300) << to_string(static_cast<Blur>(k));  // the comparison saw many hits, too
  }
}

TEST(EdgeFunctions, BackFacesAreCulledPerSampleAsATriangleTurns) {
  const LensCamera cam = camera(0);
  // Seen from the eye the corners go clockwise at the start; the triangle flips over in time.
  const std::array<Vec3, 3> start{Vec3{-1, -1, 5}, Vec3{0, 1, 5}, Vec3{1, -1, 5}};
  const std::array<Vec3, 3> end{Vec3{1, -1, 5}, Vec3{0, 1, 5}, Vec3{-1, -1, 5}};
  const TriangleSetup s = setup_triangle(start, end, true, cam);
  Hit h;
  const bool early = cover(s, cam, 0, -0.05f, 0, 0, 0.1f, &h), late = cover(s, cam, 0, -0.05f, 0, 0, 0.9f, &h);
  EXPECT_NE(early, late);
  EXPECT_EQ(early, cover_warped(start, end, true, cam, 0, -0.05f, 0, 0, 0.1f, &h));
  EXPECT_EQ(late, cover_warped(start, end, true, cam, 0, -0.05f, 0, 0, 0.9f, &h));
}

// Two triangles of a quad, with a lens and with motion: every sample inside the quad is covered
// by exactly one of them, those on the shared diagonal included.
TEST(EdgeFunctions, SharedEdgesGiveEverySampleToExactlyOneTriangle) {
  for (const bool moving : {false, true})
    for (const float aperture : {0.0f, 0.3f}) {
      const LensCamera cam = camera(aperture);
      const Vec3 a{-1, -1, 4}, b{1, -1, 6}, c{1, 1, 4}, d{-1, 1, 6};
      const Vec3 shift = moving ? Vec3{0.4f, 0.1f, 0.5f} : Vec3{0, 0, 0};
      const std::array<Vec3, 3> t1{a, b, c}, t2{a, c, d};
      const std::array<Vec3, 3> e1{a + shift, b + shift, c + shift}, e2{a + shift, c + shift, d + shift};
      const TriangleSetup s1 = setup_triangle(t1, e1, false, cam), s2 = setup_triangle(t2, e2, false, cam);
      int both = 0, on_diagonal = 0;
      for (int i = 0; i <= 400; ++i) {
        // Points on the diagonal a-c as seen through the lens point (0, 0) at t = 0 (exact ties
        // when still), and a grid around it.
        const float f = static_cast<float>(i) / 400;
        const Vec3 p = a + (c - a) * f;
        for (int j = -2; j <= 2; ++j) {
          const float px = p.x / p.z + static_cast<float>(j) * 1e-3f, py = p.y / p.z;
          Hit h;
          const bool in1 = cover(s1, cam, px, py, 0, 0, 0, &h), in2 = cover(s2, cam, px, py, 0, 0, 0, &h);
          both += in1 && in2;
          on_diagonal += j == 0 && (in1 || in2);
        }
      }
      EXPECT_EQ(both, 0) << "moving " << moving << " aperture " << aperture;
      EXPECT_GE(on_diagonal, 390);  // (the diagonal's ends may fall outside by rounding)
    }
}

// The renderer tests a pixel's samples at once (vectorized); it must decide exactly as cover().
TEST(EdgeFunctions, APixelAtOnceDecidesAsSampleBySample) {
  std::mt19937 rng(5);
  const SamplePattern pattern(27, 9);
  std::uniform_real_distribution<float> shift(-0.6f, 0.6f);
  long hits = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const LensCamera cam = camera(trial % 4 >= 2 ? 0.4f : 0.0f);
    const auto start = random_triangle(rng);
    auto end = start;
    if (trial % 2)
      for (auto& p : end) p = p + Vec3{shift(rng), shift(rng), shift(rng)};
    const TriangleSetup s = setup_triangle(start, end, trial % 3 == 0, cam);
    for (int y = s.bounds.y0; y < s.bounds.y1; y += 2)
      for (int x = s.bounds.x0; x < s.bounds.x1; x += 2) {
        Hit at_once[256];
        std::uint8_t ks[256];
        const int n = cover_pixel(s, cam, pattern, x, y, at_once, ks);
        int next = 0;
        for (int k = 0; k < pattern.spp(); ++k) {
          const auto& uvt = pattern.uvt(x, y, k);
          const float px = (static_cast<float>(x) + pattern.xy(k)[0] - cam.cx()) * (1.0f / cam.focal);
          const float py = (cam.cy() - (static_cast<float>(y) + pattern.xy(k)[1])) * (1.0f / cam.focal);
          Hit one;
          const bool covered = cover(s, cam, px, py, uvt[0], uvt[1], uvt[2], &one);
          const bool listed = next < n && ks[next] == k;
          ASSERT_EQ(covered, listed) << to_string(s.kind) << " pixel " << x << "," << y << " sample " << k;
          if (!covered) continue;
          EXPECT_NEAR(at_once[next].b1, one.b1, 1e-6f);
          EXPECT_NEAR(at_once[next].b2, one.b2, 1e-6f);
          EXPECT_NEAR(at_once[next].z, one.z, 1e-6f * one.z);
          ++next;
          ++hits;
        }
        EXPECT_EQ(next, n);
        // Testing only some samples (the renderer's strata culling) lists exactly those of them
        // that the whole pixel's test listed, with the same hits.
        const std::uint64_t only[4] = {(0x5a5a5a5a5a5a5a5aull >> (x & 7)) ^ static_cast<std::uint64_t>(y), 0, 0, 0};
        Hit some[256];
        std::uint8_t some_ks[256];
        const int m = cover_pixel(s, cam, pattern, x, y, some, some_ks, only);
        int expected = 0;
        for (int i = 0; i < n; ++i) {
          if (!(only[0] >> ks[i] & 1)) continue;
          ASSERT_LT(expected, m);
          EXPECT_EQ(some_ks[expected], ks[i]);
          EXPECT_EQ(some[expected].z, at_once[i].z);
          EXPECT_EQ(some[expected].b1, at_once[i].b1);
          ++expected;
        }
        EXPECT_EQ(expected, m);
      }
  }
  EXPECT_GT(hits, 5000);
}

TEST(StrataBounds, NeverCullACoveredSample) {
  std::mt19937 rng(11);
  const SamplePattern pattern(27);
  for (int trial = 0; trial < 60; ++trial) {
    LensCamera cam = camera(trial % 2 ? 0.5f : 0.0f);
    const auto start = random_triangle(rng);
    auto end = start;
    if (trial % 3) end[0] = end[0] + Vec3{0.8f, 0.2f, 0.5f};
    const TriangleSetup s = setup_triangle(start, end, false, cam);
    std::vector<PixelRect> boxes(static_cast<std::size_t>(pattern.cells()));
    strata_bounds(s, cam, pattern, boxes.data());
    for (int y = 0; y < cam.height; ++y)
      for (int x = 0; x < cam.width; ++x)
        for (int k = 0; k < pattern.spp(); ++k) {
          const auto& uvt = pattern.uvt(x, y, k);
          const float px = (static_cast<float>(x) + pattern.xy(k)[0] - cam.cx()) / cam.focal;
          const float py = (cam.cy() - static_cast<float>(y) - pattern.xy(k)[1]) / cam.focal;
          Hit h;
          if (!cover(s, cam, px, py, uvt[0], uvt[1], uvt[2], &h)) continue;
          const PixelRect& b = boxes[static_cast<std::size_t>(pattern.cell(x, y, k))];
          ASSERT_TRUE(x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1) << "trial " << trial << " pixel " << x << "," << y << " sample " << k;
        }
  }
}

TEST(SamplePattern, TwentySevenSamplesFillAThreeByThreeByThreeJitteredGrid) {
  const SamplePattern p(27, 3);
  EXPECT_EQ(p.strata(), 3);
  for (int y = 0; y < 32; y += 7)
    for (int x = 0; x < 32; x += 5) {
      std::vector<int> per_cell(27, 0);
      for (int k = 0; k < 27; ++k) {
        ++per_cell[static_cast<std::size_t>(p.cell(x, y, k))];
        const auto& uvt = p.uvt(x, y, k);
        EXPECT_LE(uvt[0] * uvt[0] + uvt[1] * uvt[1], 1.0f + 1e-6f);
        EXPECT_GE(uvt[2], 0.0f);
        EXPECT_LT(uvt[2], 1.0f);
        const float t_lo = static_cast<float>(p.cell(x, y, k) / 9) / 3;
        EXPECT_GE(uvt[2], t_lo);
        EXPECT_LT(uvt[2], t_lo + 1.0f / 3);
      }
      for (int c : per_cell) EXPECT_EQ(c, 1);
      // The pattern repeats every 32 pixels, and differs between neighbours.
      EXPECT_EQ(p.uvt(x, y, 4), p.uvt(x + 32, y + 64, 4));
      EXPECT_NE(p.uvt(x, y, 4), p.uvt(x + 1, y, 4));
    }
  for (int k = 0; k < 27; ++k) {
    EXPECT_GT(p.xy(k)[0], 0.0f);
    EXPECT_LT(p.xy(k)[0], 1.0f);
  }
  // Eight samples: the standard multisample positions, so no-blur decoupled sampling is MSAA 8x.
  EXPECT_EQ(SamplePattern(8).xy(3), sample_pattern(8)[3]);
}

ShadingKey key(int n) { return {7, 0, n, -n}; }

TEST(ShadingCache, LeastRecentlyUsedOnAHandComputedSequence) {
  ShadingCache c(3);  // three samples, one per entry
  // A B C: three misses. A: hit (A is now the most recent). D: miss, evicts B.
  // B: miss, evicts C. C: miss, evicts A. A: miss, evicts D. C: hit.
  const char* sequence = "ABCADBCAC";
  const char* expected = "mmmhmmmmh";
  for (int i = 0; sequence[i]; ++i) {
    const auto r = c.lookup(key(sequence[i]), static_cast<std::uint32_t>(i));
    EXPECT_EQ(r.hit, expected[i] == 'h') << "lookup " << i << " of " << sequence[i];
  }
  EXPECT_EQ(c.stats().lookups, 9);
  EXPECT_EQ(c.stats().hits, 2);
  EXPECT_EQ(c.stats().misses, 7);
  EXPECT_EQ(c.stats().evictions, 4);
  EXPECT_EQ(c.entries(), 3);
  EXPECT_TRUE(c.contains(key('C')) && c.contains(key('A')) && c.contains(key('B')));
  EXPECT_FALSE(c.contains(key('D')));
  // A hit returns what the miss stored (the first run of the entry).
  EXPECT_EQ(c.lookup(key('B'), 99).value, 5u);
  EXPECT_NEAR(c.stats().hit_rate(), 3.0 / 10, 1e-12);
}

TEST(ShadingCache, QuadEntriesTakeFourSamplesAndUnlimitedNeverEvicts) {
  ShadingCache quads(8, 4);  // eight samples: two quads
  EXPECT_FALSE(quads.lookup(key(1), 0).hit);
  EXPECT_FALSE(quads.lookup(key(2), 4).hit);
  EXPECT_FALSE(quads.lookup(key(3), 8).hit);  // evicts quad 1
  EXPECT_FALSE(quads.lookup(key(1), 12).hit);
  EXPECT_TRUE(quads.lookup(key(3), 16).hit);
  EXPECT_EQ(quads.stats().evictions, 2);
  ShadingCache unlimited(0);
  for (int i = 0; i < 5000; ++i) unlimited.lookup(key(i), 0);
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(unlimited.lookup(key(i), 0).hit);
  EXPECT_EQ(unlimited.stats().evictions, 0);
  EXPECT_EQ(unlimited.entries(), 5000);
  // Many entries in and out through a small cache keep the table consistent (deletion by
  // backward shift).
  ShadingCache small(64);
  std::mt19937 rng(3);
  std::vector<int> recent;
  for (int i = 0; i < 20000; ++i) {
    const int k = static_cast<int>(rng() % 200);
    const bool hit = small.lookup(key(k), 0).hit;
    const auto at = std::find(recent.begin(), recent.end(), k);
    EXPECT_EQ(hit, at != recent.end()) << i;
    if (at != recent.end()) recent.erase(at);
    recent.insert(recent.begin(), k);
    if (recent.size() > 64) recent.pop_back();
  }
}

TEST(DecoupledStats, TheMeasuresAreThePapersRatios) {
  DecoupledStats s;
  s.covered_pixels = 1000;
  s.shader_runs = 1670;
  s.samples_tested = 27000;
  EXPECT_DOUBLE_EQ(s.shading_rate(), 1.67);
  EXPECT_NEAR(s.savings(), 27000.0 / 1670, 1e-12);
  CacheStats a{10, 7, 3, 1}, b{5, 1, 4, 2};
  a += b;
  EXPECT_EQ(a.lookups, 15);
  EXPECT_EQ(a.misses, 7);
  EXPECT_NEAR(a.hit_rate(), 8.0 / 15, 1e-12);
  EXPECT_EQ(DecoupledStats{}.shading_rate(), 0.0);
}

}  // namespace
}  // namespace passlab::sim
