// SPDX-License-Identifier: GPL-3.0-or-later
// The rasterizer: triangles in camera space to fragments at pixel centres, in a deterministic
// order (triangle by triangle, row by row), with perspective-correct barycentrics.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/sim/math.h"

namespace passlab::sim {

// A pinhole camera at the origin of camera space looking down +z (RenderMan's camera space).
struct Projection {
  int width = 0, height = 0;
  float fov_degrees = 40;  // across the smaller image dimension
  float near = 1e-3f;      // geometry closer than this is clipped away
  int samples = 1;         // coverage samples per pixel: 1 (the centre), 2, 4 or 8
  float focal() const;     // pixels per unit of x/z
};

// The coverage sample positions within a pixel (0 to 1 from its top-left corner) for 1, 2, 4
// or 8 samples: the centre, then the standard multisample patterns (those of Direct3D 10.1, in
// sixteenths of a pixel). Empty for other counts.
std::vector<std::array<float, 2>> sample_pattern(int samples);

struct Fragment {
  std::uint32_t triangle = 0;  // index into the rasterized triangle list
  std::uint16_t x = 0, y = 0;  // pixel; its centre is (x + 0.5, y + 0.5)
  float b1 = 0, b2 = 0;        // perspective-correct barycentrics of corners 1 and 2 (corner 0: 1 - b1 - b2)
  float depth = 0;             // camera-space z at the pixel centre
  std::uint8_t coverage = 1;   // bit i: the triangle covers sample i (Projection::samples)
};

enum class Cull : std::uint8_t { None, Back };

// Pixels [x0, x1) x [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x0 >= x1 || y0 >= y1; }
};

// Appends the fragments of each triangle, in the order given; samples are covered by the
// top-left rule on vertex positions snapped to 1/256 pixel, so triangles that share an edge never
// both cover a sample on it, and nothing depends on evaluation order. A pixel with a covered
// sample gives a fragment, its values (barycentrics, depth) taken at the pixel centre. Triangles crossing the near
// plane are clipped. With Cull::Back, triangles whose face (by its corner order) turns away from
// the eye are skipped.
void rasterize(const std::vector<std::array<Vec3, 3>>& triangles, const Projection& proj, Cull cull,
               std::vector<Fragment>& out);

// One triangle's fragments within `clip` (a screen tile, say), as `index`: the same fragments,
// in the same order, as rasterizing it whole and keeping those inside.
void rasterize(const std::array<Vec3, 3>& t, std::uint32_t index, const Projection& proj, const PixelRect& clip,
               std::vector<Fragment>& out);

// The pixels a triangle's fragments can lie in (empty if none).
PixelRect screen_bounds(const std::array<Vec3, 3>& t, const Projection& proj);

// Whether a triangle faces the eye (its corners counter-clockwise around the normal
// cross(p1 - p0, p2 - p0), which points to the viewer).
bool front_facing(const std::array<Vec3, 3>& t);

}  // namespace passlab::sim
