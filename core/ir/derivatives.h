// SPDX-License-Identifier: GPL-3.0-or-later
// RSL's derivative functions from screen-space differences, the way a rasterizer has them: a value
// one pixel to the right minus its value here (X), one pixel below minus here (Y), and the same
// differences of the surface parameters u and v. By the chain rule, X = Du(x) ux + Dv(x) vx and
// Y = Du(x) uy + Dv(x) vy, so
//
//   Du(x) = (X vy - Y vx) / det,   Dv(x) = (ux Y - uy X) / det,   det = ux vy - uy vx,
//
// exact for a value affine in u and v (P on a flat, evenly parametrised patch) and a first-order
// difference otherwise, like a renderer's finite differences over its grid. From them, as the RI
// specification defines them: area(P) = length(Du(P) du ^ Dv(P) dv); calculatenormal(P) =
// Du(P) ^ Dv(P); Deriv(num, den) = Du(num) / Du(den) + Dv(num) / Dv(den), a term whose
// denominator is zero (den does not change that way) left out. Where the parametrisation does not
// move across the pixel (det = 0) the results are not finite, and say nothing.
#pragma once

#include <vector>

#include "core/ir/value.h"

namespace passlab::ir {

// How u and v change one pixel to the right (ux, vx) and one below (uy, vy).
struct ParameterSteps {
  float ux = 0, uy = 0, vx = 0, vy = 0;
};

// A derivative builtin (Du, Dv, Deriv, area, calculatenormal) of operands `here`, given the same
// operands on the fragments to the right and below, `du` and `dv` (the globals here), as `type`.
Value derivative(lang::Builtin id, BaseType type, const std::vector<Value>& here, const std::vector<Value>& right,
                 const std::vector<Value>& below, const ParameterSteps& steps, float du, float dv);

}  // namespace passlab::ir
