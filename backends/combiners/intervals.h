// SPDX-License-Identifier: GPL-3.0-or-later
// Interval arithmetic over a whole FragmentDag (Mark & Proudfoot §4): for every node, bounds on
// each of its components in real arithmetic. The compiler uses them to prove a value lies in
// [0, 1] (so a clamping input mapping changes nothing), to choose how a saved value is stored,
// and to warn where the registers' [-1, 1] will clamp.
#pragma once

#include <limits>
#include <vector>

#include "core/dag/fragment_dag.h"

namespace passlab::combiners {

struct Interval {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();

  static Interval point(float x) { return {x, x}; }
  static Interval unit() { return {0.0f, 1.0f}; }     // colours, textures
  static Interval signed_unit() { return {-1.0f, 1.0f}; }
  bool within(float a, float b) const { return lo >= a && hi <= b; }
  bool nonnegative() const { return lo >= 0.0f; }
  Interval clamped() const;  // what a register holds: intersected with [-1, 1]
  friend bool operator==(const Interval&, const Interval&) = default;
};

Interval hull(Interval a, Interval b);
Interval operator+(Interval a, Interval b);
Interval operator-(Interval a);
Interval operator*(Interval a, Interval b);

// Leaves: constants exactly; the colours Cs and Os in [0, 1] (RenderMan colours); normalised
// vectors in [-1, 1]; texture lookups and noise in [0, 1]; other interpolants unbounded.
// Not constant time: one pass over the nodes.
std::vector<Interval> intervals(const dag::FragmentDag& dag);

}  // namespace passlab::combiners
