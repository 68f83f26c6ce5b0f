// SPDX-License-Identifier: GPL-3.0-or-later
// The pixel quad that gives a shader its screen-space derivatives on the RPU (Passlab's
// extension; the thesis shades one ray at a time and has none).
//
// A shader that takes a derivative is shaded for each pixel by a quad of its own, as a GPU
// shades a triangle's pixels in 2x2 quads: the pixel's thread (the anchor) and a helper thread
// for each of its two quad partners, the pixel beside it (right, or left in the quad's right
// column) and the one above or below it. A helper casts its partner's ray into the plane of the
// anchor's triangle (past the triangle's edges if need be, so a partner that missed or hit
// something else still helps), runs the same shader there in step with the anchor, and writes
// nothing. `ddx x` is x on the horizontal helper minus x on the anchor, `ddy` the same
// vertically, on every thread of the quad: the anchor's differences, as the reference
// interpreter defines them (a derivative of a derivative is 0).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/rpu/isa.h"
#include "backends/rpu/program.h"

namespace passlab::rpu {

// Whether a program takes screen-space differences (ddx or ddy anywhere): then every hit shades
// in a quad.
bool takes_derivatives(const Program& program);

// Where a ray meets the plane of a triangle: barycentrics (u, v) of the triangle's second and
// third corners and the distance t, by the same arithmetic as the trace unit's test (so a ray
// inside the triangle gets the trace unit's numbers), without its bounds. None when the ray runs
// parallel to the plane or the triangle has no area.
struct PlanePoint {
  float u = 0, v = 0, t = 0;
};
std::optional<PlanePoint> plane_point(const Vec4& a, const Vec4& b, const Vec4& c, const Vec4& origin, const Vec4& direction);

// The same for the triangle whose record is at `record` in a scene's data memory (its first word
// holds the three vertex addresses, each vertex's first word its position). None also when the
// record or a vertex lies outside memory.
std::optional<PlanePoint> plane_point(const std::vector<Vec4>& memory, std::int64_t record, const Vec4& origin, const Vec4& direction);

}  // namespace passlab::rpu
