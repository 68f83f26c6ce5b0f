// SPDX-License-Identifier: GPL-3.0-or-later
// What every IR pass shares: its signature and the counters it records.
#pragma once

#include <map>
#include <string>

#include "core/ir/ir.h"

namespace passlab::ir {

// Counters a pass records ("sccp.folded" -> 12); tests, the CLI and the Studio read them.
using PassStats = std::map<std::string, long>;

// Each pass: one entry point, returns whether it changed anything.
bool inline_calls(Module& m, PassStats& stats);             // needs: acyclic call graph
// Targets that keep calls: inline, in every function, calls to non-recursive functions of at
// most `limit` instructions (0: none); every function stays.
bool inline_small_calls(Module& m, std::size_t limit, PassStats& stats);
bool sccp(Function& fn, PassStats& stats);                  // needs: nothing; removes dead edges
bool simplify(Function& fn, PassStats& stats);              // algebraic identities
bool copy_propagate(Function& fn, PassStats& stats);        // trivial phis, no-op converts
bool gvn(Function& fn, PassStats& stats);                   // needs: dominators (computes them)
bool dce(Function& fn, PassStats& stats);                   // unused values, unreachable blocks
void compute_frequency(Function& fn);                       // sets Instr::freq; needs dominators

}  // namespace passlab::ir
