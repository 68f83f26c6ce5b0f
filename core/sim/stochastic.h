// SPDX-License-Identifier: GPL-3.0-or-later
// Stochastic rasterization of visibility samples (x, y, u, v, t) for motion and defocus blur
// (Ragan-Kelley et al. 2011, §5.1 and Appendix A): the sample pattern, and triangles classified
// once as static, moving, defocused or both, each tested with the edge functions of its class.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/sim/math.h"
#include "core/sim/raster.h"

namespace passlab::sim {

// A thin-lens camera with a shutter, in RenderMan camera space (eye at the origin looking down
// +z, y up). The image plane point of screen position (sx, sy) is ((sx - cx) / focal,
// (cy - sy) / focal); the lens point (u, v) of the unit disc sits at aperture * (u, v, 0).
struct LensCamera {
  int width = 0, height = 0;
  float focal = 1;       // pixels per unit of x/z
  float near = 1e-3f;    // samples nearer than this are not drawn
  float aperture = 0;    // lens radius; 0: a pinhole
  float focus = 1;       // camera z of the plane in focus
  float shutter0 = 0, shutter1 = 1;  // the span of the unit of motion a sample's t in [0, 1) covers
  float cx() const { return 0.5f * static_cast<float>(width); }
  float cy() const { return 0.5f * static_cast<float>(height); }
  // The diameter, in pixels, of the circle of confusion of a point at camera z.
  float circle_of_confusion(float z) const;
  // The paper's blur area of a point at `open` when the shutter opens and `close` when it closes
  // (camera space): the pixels it reaches, its circle of confusion d (the mean of the two ends')
  // swept along its trail L on screen, max(1, pi d^2 / 4) + L max(1, d), at most the image; NaN
  // when it is behind the eye at either end.
  double blur_area(const Vec3& open, const Vec3& close) const;
};

// The visibility samples of every pixel: the same N (x, y) offsets in each pixel, and lens and
// time values from 3D jittered grids (one sample per cell of an n x n x n grid when N = n³, a
// Latin hypercube otherwise), drawn afresh for each pixel of a 32 x 32 block and repeated
// every 32 pixels; or, `shared`, drawn once for every pixel (sample k of every pixel sees the same
// lens point and time: spp pinhole frames, as an accumulation buffer renders). Deterministic for a
// seed.
class SamplePattern {
 public:
  explicit SamplePattern(int spp, std::uint32_t seed = 0, bool shared = false);
  int spp() const { return spp_; }
  // Sample k's position in its pixel, 0 to 1 from the top-left corner (never on a border).
  const std::array<float, 2>& xy(int k) const { return xy_[static_cast<std::size_t>(k)]; }
  // Sample k of pixel (x, y): the lens point (u, v) in the unit disc and the time t in [0, 1).
  const std::array<float, 3>& uvt(int x, int y, int k) const { return uvt_[index(x, y, k)]; }
  // Strata for culling: lens and time are cut into strata() parts each; sample k of pixel (x, y)
  // lies in cell(x, y, k) = iu + m (iv + m it) (m = strata()), whose lens points lie in
  // lens_range(iu, iv) = {u0, u1, v0, v1} and times in [it / m, (it + 1) / m].
  int strata() const { return strata_; }
  int cell(int x, int y, int k) const { return cell_[index(x, y, k)]; }
  const std::array<float, 4>& lens_range(int iu, int iv) const { return lens_range_[static_cast<std::size_t>(iv * strata_ + iu)]; }
  // The samples of pixel (x, y) grouped by cell: those of cell c are by_cell(x, y)[i] for i in
  // [cell_start(x, y)[c], cell_start(x, y)[c + 1]), in increasing k.
  const std::uint8_t* by_cell(int x, int y) const { return by_cell_.data() + index(x, y, 0); }
  const std::uint16_t* cell_start(int x, int y) const {
    return cell_start_.data() + (static_cast<std::size_t>(y & 31) * 32 + static_cast<std::size_t>(x & 31)) * static_cast<std::size_t>(cells() + 1);
  }
  int cells() const { return strata_ * strata_ * strata_; }
  // With at most 64 samples a pixel: for pixel (x, y), a word per cell with the bits of its samples.
  const std::uint64_t* cell_samples(int x, int y) const {
    return cell_samples_.data() + (static_cast<std::size_t>(y & 31) * 32 + static_cast<std::size_t>(x & 31)) * static_cast<std::size_t>(cells());
  }
  // The same in structure-of-arrays form for testing a pixel's samples at once: each sample's
  // offset in x and y, and for pixel (x, y) its samples' u, v and t.
  const float* offset_x() const { return ox_.data(); }
  const float* offset_y() const { return oy_.data(); }
  const float* lens_u(int x, int y) const { return us_.data() + index(x, y, 0); }
  const float* lens_v(int x, int y) const { return vs_.data() + index(x, y, 0); }
  const float* time(int x, int y) const { return ts_.data() + index(x, y, 0); }

 private:
  std::size_t index(int x, int y, int k) const {
    return (static_cast<std::size_t>(y & 31) * 32 + static_cast<std::size_t>(x & 31)) * static_cast<std::size_t>(spp_) + static_cast<std::size_t>(k);
  }
  void measure_lens_cells();
  int spp_;
  int strata_ = 1;
  std::vector<std::array<float, 2>> xy_;
  std::vector<std::array<float, 3>> uvt_;
  std::vector<std::uint8_t> cell_, by_cell_;
  std::vector<float> ox_, oy_, us_, vs_, ts_;
  std::vector<std::uint16_t> cell_start_;
  std::vector<std::uint64_t> cell_samples_;
  std::vector<std::array<float, 4>> lens_range_;
};

enum class Blur : std::uint8_t { Static, Moving, Defocused, Both };
const char* to_string(Blur b);

// A triangle ready to be sampled. Its corners in "clip" form are (X, Y, W) = (x + a u k, y + a v k,
// z) with k = z / focus - 1 (the thin lens's shear; a is the aperture), moving linearly from the
// shutter's opening to its closing. The edge function of corner i is e_i = n_i . (px, py, 1) with
// n_i = c_j x c_k (Olano and Greer's homogeneous rasterization); its form depends on the class:
// static: n_i; moving: a_i + b_i t + c_i t² (time-continuous); defocused: (A v + B, C u + D,
// E u + F v + G) (the paper's aperture-continuous 4D edge functions); both: the corners are
// warped to the sample and crossed.
struct TriangleSetup {
  Blur kind = Blur::Static;
  bool cull_back = false;
  std::array<Vec3, 3> open{}, move{};  // camera-space corners at the shutter's opening; their change to its closing
  std::array<float, 3> lens{};         // per corner: aperture * (z / focus - 1) at the opening (static in z)
  std::array<std::array<float, 9>, 3> edge{};  // per corner's edge: the coefficients of its class's form
  PixelRect bounds;                     // pixels any sample may cover (empty: none)
};

TriangleSetup setup_triangle(const std::array<Vec3, 3>& start, const std::array<Vec3, 3>& end, bool cull_back,
                             const LensCamera& camera);

// The pixels the triangle may cover for samples of each stratum cell (pattern.strata()³ of them,
// indexed as SamplePattern::cell): the paper's culling of samples by the strata's sub-rectangles.
void strata_bounds(const TriangleSetup& s, const LensCamera& camera, const SamplePattern& pattern, PixelRect* out);

// Where a sample hits a triangle: barycentrics of corners 1 and 2 (of the material point, the
// same at every lens position and time) and the camera z of the hit.
struct Hit {
  float b1 = 0, b2 = 0, z = 0;
};

// Whether the triangle covers image-plane point (px, py) seen from lens point (u, v) at time t.
// Edges shared by two triangles of one class give each sample on them to exactly one.
bool cover(const TriangleSetup& s, const LensCamera& camera, float px, float py, float u, float v, float t, Hit* hit);

// Tests every sample of pixel (x, y) against the triangle at once (the arithmetic vectorized):
// writes the covered samples' indices, in increasing order, to ks and their hits to hits (room for
// pattern.spp() each) and returns how many. The same decisions as cover() sample by sample.
// With `only` (a bit per sample, 4 words), tests just the samples whose bits are set (of the
// pixel's pattern.spp()).
int cover_pixel(const TriangleSetup& s, const LensCamera& camera, const SamplePattern& pattern, int x, int y, Hit* hits,
                std::uint8_t* ks, const std::uint64_t* only = nullptr);

// The same test by brute force, for checking: the corners moved to time t, projected through
// the lens point onto the screen, and tested there with 2D edge functions.
bool cover_warped(const std::array<Vec3, 3>& start, const std::array<Vec3, 3>& end, bool cull_back, const LensCamera& camera,
                  float px, float py, float u, float v, float t, Hit* hit);

}  // namespace passlab::sim
