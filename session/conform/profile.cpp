// SPDX-License-Identifier: GPL-3.0-or-later
// The profile of each backend family.
#include "session/conform/profile.h"

namespace passlab::conform {

const char* to_string(Family f) {
  switch (f) {
    case Family::Fragment: return "fragment";
    case Family::Combiners: return "combiners";
    case Family::Rpu: return "rpu";
  }
  return "?";
}

std::optional<Family> family_from_string(std::string_view name) {
  for (Family f : {Family::Fragment, Family::Combiners, Family::Rpu})
    if (name == to_string(f)) return f;
  return std::nullopt;
}

Profile profile_for(Family f) {
  Profile p;
  p.family = f;
  switch (f) {
    case Family::Fragment:
      p.derivatives = true;
      p.matrices = true;
      p.long_loops = true;
      break;
    case Family::Combiners:
      // What Mark & Proudfoot's mapping covers: products, sums, dot products of unit vectors,
      // MUXes, texture lookups at interpolated coordinates; values in [-1, 1].
      p.transcendental = false;
      p.arrays = false;
      p.vectors = false;
      p.loops = false;
      p.user_functions = false;
      p.light_loops = false;  // L is computed per fragment, and normalize() of it needs a cube map of a computed vector
      p.max_constant = 1;
      p.edge_constants = false;
      break;
    case Family::Rpu:
      // The RPU runs loops per lane, recursion and rays, and noise and texture images from data
      // memory (its conformance scene gives "marks" an image; the other names are stand-ins).
      // Derivatives: differences across each hit's pixel quad (backends/rpu/quad.h).
      p.varying_loops = true;
      p.derivatives = true;
      p.recursion = true;
      p.rays = true;
      p.sign = false;
      break;
  }
  return p;
}

}  // namespace passlab::conform
