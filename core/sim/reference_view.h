// SPDX-License-Identifier: GPL-3.0-or-later
// How decoupled sampling maps a triangle's samples to shading points (Ragan-Kelley et al.,
// section 3.2, "the standard mapping" and its degeneracies): the triangle seen from the lens
// centre at one end of the shutter, as a projective map from barycentrics to the screen, or a
// grid on its barycentric coordinates where no view shows it.
#pragma once

#include <array>

#include "core/sim/math.h"
#include "core/sim/stochastic.h"

namespace passlab::sim {

// How a triangle maps its samples to shading points.
struct ReferenceView {
  int view = 0;              // 0: the shutter's opening through the lens centre; 1: its closing; 2: none (a barycentric grid)
  bool partial = false;      // view 0 of a moving triangle crossing the near plane: a sample whose point was
                             // behind it at the opening uses the barycentric grid
  std::array<float, 9> m{};  // barycentrics -> (sx w, sy w, w) on screen from the view
  std::array<Vec3, 3> planes{};  // the view's corner planes through the eye (barycentrics of screen points)
  float step = 1;            // grid spacing in pixels
  int grid = 16;             // barycentric grid: cells along each side
};

// The view of a triangle from the lens centre at one end of the shutter, if it is a valid one:
// every corner in front of the eye and the triangle not seen edge on.
// `behind`: corners may lie behind the near plane. The mapping still holds for every point of
// the triangle in front of the eye, which is all a view that is the only one (a pinhole, nothing
// moving) ever samples.
bool reference_view(const std::array<Vec3, 3>& p, const LensCamera& cam, ReferenceView* r, bool behind = false);

// The longest edge on screen of the part of triangle `p` in front of the near plane (its edges
// cut there, and the cut itself), from the lens centre; 0 if it is all behind.
float screen_extent(const std::array<Vec3, 3>& p, const LensCamera& cam);

// Barycentrics of screen point (gx, gy) seen from a triangle's view; `snap` moves a point outside
// the triangle onto it (the barycentrics clamped and renormalized). Thirds where the view's ray is
// parallel to the triangle's plane.
void barycentrics_at(const ReferenceView& ref, const LensCamera& cam, float gx, float gy, bool snap, float* b1, float* b2);

}  // namespace passlab::sim
