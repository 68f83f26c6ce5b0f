// SPDX-License-Identifier: GPL-3.0-or-later
// Heat maps: per-pixel figures as a perceptually ordered ramp (dark blue, purple, orange, pale
// yellow), as profilers draw them; shared by the CLI's and the Studio's pictures.
#pragma once

#include <array>
#include <vector>

#include "core/sim/image.h"

namespace passlab::sim {

// The ramp's colour at t in [0, 1] (clamped), RGB in [0, 1].
std::array<float, 3> heat_colour(double t);

// values (width * height, row-major from the top) over [0, max] as the ramp; pixels where
// `covered` is given and 0 are left as `empty`.
Image heat_image(const std::vector<float>& values, int width, int height, float max, const std::vector<char>* covered = nullptr,
                 std::array<float, 4> empty = {0, 0, 0, 1});

}  // namespace passlab::sim
