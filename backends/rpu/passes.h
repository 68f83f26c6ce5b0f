// SPDX-License-Identifier: GPL-3.0-or-later
// The assembly-level passes (thesis §7.4-7.7), one per file; compiler.cpp runs them in order:
// simplify -> forward -> dce, repeated until nothing changes, then register allocation.
#pragma once

#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"
#include "backends/rpu/liveness.h"
#include "backends/rpu/machine.h"

namespace passlab::rpu {

// Opcode simplification with source modifiers and constant folding (thesis §7.5):
// mul X, A, 2 -> mov X, 2*A; x+0, x*1, x*0 (not IEEE-safe, as the thesis says); operations on
// literals folded with the machine's arithmetic; branches on literals and branches to one place
// become jumps. Returns whether anything changed.
bool simplify_opcodes(AsmFunction& f, const Machine& m, AsmStats& stats);

// Forwarding (thesis §7.6): facts "A is B" (B with its swizzle, scale and sign, and, beyond the
// thesis, only some lanes of A: "A.w is B.y"), "A is B*C" and "A is dp3(B,C)" flow along edges
// while neither side is written; uses of A become B, add of a product becomes mad, and
// mov_rsq/mov_rcp of a dot product becomes dp3_rsq/dp3_rcp. No fact "A is B" is made when B is
// an ABI register (R), whose live range must stay short; S lanes, I registers, HIT and constants
// are forwarded (facts die when they are overwritten, calls included). Returns whether anything
// changed.
// What forwarding did to one instruction, for the Studio and --emit: its text before and
// after, and the facts it used.
struct ForwardNote {
  std::uint32_t block = 0;
  std::string before, after;
  std::vector<std::string> facts;  // "%v3 is %v1.xyz", "%v5 is %v2 * %v4", "%f7 is dp3(%v1, %v2)"
  std::string what;                // "operands", "mad", "dp3 with _rsq/_rcp"
};
bool forward(AsmFunction& f, const Machine& m, AsmStats& stats, std::vector<ForwardNote>* notes = nullptr);

// The facts that reach each instruction of `f` (after forwarding has converged): one line per
// instruction and branch, in block order.
struct FactLine {
  std::uint32_t block = 0;
  std::string text;
  std::vector<std::string> facts;
};
std::vector<FactLine> forwarding_facts(const AsmFunction& f, const Machine& m);

}  // namespace passlab::rpu
