// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU assembler: the thesis's assembly syntax to a Program, every mistake a diagnostic with
// its line and column.
//
// Syntax, one word per line (a ';' starts a comment; labels end with ':'):
//   op[_sat][_rcp|_rsq] dest, src, ...      mov frac add mul mad dp2h dp3 dp3h dp4
//   trace origin, direction, arguments
//   load Ii, Aj|HIT_TRI|HIT_OBJ, n          load4 Aj, n          store Aj, n, src
//   primary + jmp L [,] cond                 primary + call L|Rk.x push n [,] cond
//   primary + return cond                    jmp L     call L push n     return
//   || op dest, src, ...                     the other half of a 3/1 or 2/2 pair
// Registers: R0-R15, C0-C31, S0-S7 (stack window), S (rcp/rsq results), I0-I3, A (A0-A3),
// HIT, HIT_TRI, HIT_OBJ. Sources: [-][0.5*|2*|4*]reg[.swizzle] (the last letter repeats) or a
// number. Conditions: [and|or] lanes (test [and|or test]), tests <0 <=0 >0 >=0 =0 !=0 and the
// same against 1.
#pragma once

#include <optional>

#include "backends/rpu/machine.h"
#include "backends/rpu/program.h"
#include "core/lang/diagnostic.h"
#include "core/lang/source.h"

namespace passlab::rpu {

struct AssembleOptions {
  const Machine* machine = nullptr;  // limits (literals, pairs); null: the default machine
};

// Assembles `file` of `sm`. Returns nullopt when any error was reported (all of them are).
std::optional<Program> assemble(const lang::SourceManager& sm, lang::FileId file, const AssembleOptions& options,
                                lang::DiagnosticSink& sink);

}  // namespace passlab::rpu
