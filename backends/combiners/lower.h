// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 2, first half, for the whole shader before it is partitioned: the library functions the
// combiners compute in several steps written as the primitive operations they are made of
// (faceforward, reflect, pow by a whole number, mix, step, abs, scalar min/max/clamp), so the
// partitioner can put the steps in different passes: a faceforward needs three combiner stages
// (the dot product, the MUX control, the MUX), more than a GeForce1 pass has, but its dot product
// in one pass and its MUX in the next fit. What the rewrite would do per pass is unchanged.
#pragma once

#include "core/dag/fragment_dag.h"

namespace passlab::combiners {

// The same shader with those functions expanded (same values; the vertex program is kept). With
// `texture_units` > 0 (the machine's), operations whose operands could need more units than a
// pass has are then decomposed (decompose.cpp).
dag::FragmentDag lower(const dag::FragmentDag& d, int texture_units = 0);

// A select whose operands (its condition's included) could need more than `texture_units` units
// becomes s = (condition ? 1 : 0) and a s + b (1 - s), each operation reading at most two.
dag::FragmentDag decompose(const dag::FragmentDag& d, int texture_units);

}  // namespace passlab::combiners
