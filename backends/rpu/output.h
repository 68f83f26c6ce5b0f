// SPDX-License-Identifier: GPL-3.0-or-later
// Code output (thesis ch. 10): calls expanded with their saves and restores, the block graph
// linearised depth first, jumps to the next line and unused labels dropped.
//
// Call expansion: every register half live both before and after a call is copied into the
// caller's stack window before it and back after it. A slot is a 4-vector: a register whose two
// halves both live across takes one, a lone .xyz shares one with a lone .w, and the other
// scalars go four to a slot (the thesis gives each value a slot). The call pushes the smallest
// shift that moves every saved slot out of the callee's window: the number of slots.
#pragma once

#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"
#include "backends/rpu/liveness.h"
#include "core/lang/diagnostic.h"

namespace passlab::rpu {

struct Listing {
  std::string text;                 // assembly, one word per line (a pair on two lines)
  std::vector<lang::Span> spans;    // per word, in order: the RSL it came from
};

// Appends `f` (registers allocated) to `out`, with a spill stub after it for each call that keeps
// more than 8 slots. Labels are L<n> with n from `next_label`, so they are unique in the program.
void output_function(const AsmFunction& f, int& next_label, Listing& out, AsmStats& stats);

}  // namespace passlab::rpu
