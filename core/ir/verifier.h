// SPDX-License-Identifier: GPL-3.0-or-later
// The IR verifier: structural and SSA invariants, checked after every pass in tests.
#pragma once

#include <string>
#include <vector>

#include "core/ir/ir.h"

namespace passlab::ir {

// Returns one message per broken invariant (empty when the module is well formed): every live
// block ends in exactly one terminator, phis come first with one operand per predecessor, edges
// and predecessor lists agree, operands exist, are live and dominate their uses, and operand
// counts and types fit each operation.
std::vector<std::string> verify(const Module& m);
std::vector<std::string> verify(const Function& fn, const Module* m = nullptr);

}  // namespace passlab::ir
