// SPDX-License-Identifier: GPL-3.0-or-later
// The register-combiner compiler (Mark & Proudfoot 2001): one pass of a FragmentDag to the state
// of NVIDIA's register combiners and texture shaders, through the paper's five stages (stages.h).
// The driver runs them in order and reports the first constraint a pass breaks.
#pragma once

#include <string>
#include <vector>

#include "backends/combiners/compile_trace.h"
#include "backends/combiners/program.h"
#include "backends/combiners/stages.h"
#include "core/partition/target.h"

namespace passlab::combiners {

struct CompileOptions {
  bool trace = false;           // record every decision (CompileTrace)
  bool exact_schedule = false;  // stage 5 by exhaustive search (the fewest stages; for small passes)
  long exact_budget = 200000;
  // The final combiner computes the root where it can (A B + (1 - A) C + D, E x F); false: it
  // only chooses registers (out.rgb = D), as the paper's compiler does.
  bool final_arithmetic = true;
  // Products of several factors reordered to shorten their chain (reassociate.cpp); false: the
  // source's order, as the paper's compiler.
  bool reassociate = true;
  // A pass that fails with either from instruction selection on (the final combiner's reads keep
  // their registers to the end; folded constants take a register) is compiled again without both.
};

struct CompileResult {
  bool ok = false;
  Program program;
  Failure failure;                   // when !ok: the constraint, the message, the node
  std::vector<CompileEvent> trace;
  partition::Resources resources;    // operations = general stages, textures = units, interpolants = colour registers
  // Clamping the hardware will do where real arithmetic would not: FragmentDag nodes whose values
  // may leave [-1, 1] (the registers' range).
  std::vector<dag::NodeId> clamped;
  bool schedule_proven = true;  // exact_schedule: the stage count is proven minimal
};

// Compiles one pass. Never throws for what the hardware cannot do: that is a failure. Not
// constant time: linear in the pass, with small sorts.
CompileResult compile_pass(const PassSpec& pass, const Machine& m, const CompileOptions& options = {});

// The whole DAG as one pass (what fits in a single pass, or why not).
CompileResult compile_single(const dag::FragmentDag& dag, const std::vector<Interval>& ranges, const Machine& m,
                             const CompileOptions& options = {});

// The pass's resources in the shape of the partitioner's Table 5 (see CompileResult::resources).
partition::Resources resources_of(const Program& p, const Machine& m);

}  // namespace passlab::combiners
