// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU assembly verifier: what every stage after code generation relies on, checked after each
// stage of the compiler (in tests and debug builds; CompileOptions::verify) and on an assembled
// program, so a malformed word is an internal error naming the function, block and instruction,
// not a VM fault or a wrong picture later.
#pragma once

#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"
#include "backends/rpu/machine.h"
#include "backends/rpu/program.h"

namespace passlab::rpu {

// A function of the compiler's assembly IR. Blocks' jumps and branches lead to blocks that exist;
// each operation reads and writes registers that exist (R0-R15, C0-C31, S0-S7, I0-I3, A lanes),
// with as many sources as its opcode takes, swizzles and scales the hardware has and a non-empty
// write mask; virtual registers are declared, and after register allocation (`allocated`) none is
// left; paired words pair arithmetic operations. At most `limit` messages, each naming its place.
std::vector<std::string> verify(const AsmFunction& f, bool allocated, std::size_t limit = 20);

// An assembled program: the same per operation (no virtual registers), jumps and calls to words
// that exist, labels and entry points in range, and each paired word a pair `m` can issue.
std::vector<std::string> verify(const Program& p, const Machine& m, std::size_t limit = 20);

}  // namespace passlab::rpu
