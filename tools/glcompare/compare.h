// SPDX-License-Identifier: GPL-3.0-or-later
// How far two renders of the same scene are apart.
#pragma once

#include "core/sim/image.h"

namespace passlab::gl {

struct Difference {
  double max = 0;            // largest channel difference
  double mean = 0;           // mean channel difference
  double over_fraction = 0;  // fraction of pixels with a channel differing by more than `tolerance`
};

// Channels clamped to [0, 1] first (what reaches the screen).
Difference compare(const sim::Image& a, const sim::Image& b, double tolerance);

}  // namespace passlab::gl
