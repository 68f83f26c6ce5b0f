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
  float focal() const;     // pixels per unit of x/z
};

struct Fragment {
  std::uint32_t triangle = 0;  // index into the rasterized triangle list
  std::uint16_t x = 0, y = 0;  // pixel; its centre is (x + 0.5, y + 0.5)
  float b1 = 0, b2 = 0;        // perspective-correct barycentrics of corners 1 and 2 (corner 0: 1 - b1 - b2)
  float depth = 0;             // camera-space z at the pixel centre
};

enum class Cull : std::uint8_t { None, Back };

// Appends the fragments of each triangle, in the order given; pixels are covered by the
// top-left rule on vertex positions snapped to 1/256 pixel, so triangles that share an edge never
// both cover a pixel on it, and nothing depends on evaluation order. Triangles crossing the near
// plane are clipped. With Cull::Back, triangles whose face (by its corner order) turns away from
// the eye are skipped.
void rasterize(const std::vector<std::array<Vec3, 3>>& triangles, const Projection& proj, Cull cull,
               std::vector<Fragment>& out);

// Whether a triangle faces the eye (its corners counter-clockwise around the normal
// cross(p1 - p0, p2 - p0), which points to the viewer).
bool front_facing(const std::array<Vec3, 3>& t);

}  // namespace passlab::sim
