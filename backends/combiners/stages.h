// SPDX-License-Identifier: GPL-3.0-or-later
// The compiler's five stages (Mark & Proudfoot §3), one file each, in the order compiler.cpp runs
// them. Each returns false with a Failure naming the constraint the pass breaks.
#pragma once

#include <string>
#include <vector>

#include "backends/combiners/compile_trace.h"
#include "backends/combiners/program.h"

namespace passlab::combiners {

struct Failure {
  std::string constraint;  // "stages", "texture-units", "interpolants", "registers", "constants",
                           // "constant-range", "unsupported", "dependent-texture"
  std::string message;     // one line, for VALID's answer and diagnostics
  dag::NodeId node = 0;    // where in the FragmentDag (its spans locate it in the source)
  bool has_node = false;
};

// 1. Texture units: plain lookups, normalisation cube maps, restores, texture-shader patterns
//    (texture_units.cpp).
bool extract_texture_units(const PassSpec& pass, const Machine& m, HDag& h, Failure& f, CompileTrace& t);
// 2. Rewrite into hardware operations, then recognise mappings (rewrite.cpp, mapping.cpp).
bool rewrite(const PassSpec& pass, const Machine& m, HDag& h, Failure& f, CompileTrace& t);
bool recognise_mappings(const PassSpec& pass, HDag& h, Failure& f, CompileTrace& t);
// Between the two (reassociate.cpp): products of several factors reordered so the chain is as
// short as its latest factor allows, exactly (only where no partial product can be clamped).
void reassociate(const PassSpec& pass, HDag& h, CompileTrace& t);
// 3. Instruction selection into partial combiners (select.cpp). `final_arithmetic`: the root may
//    be computed by the final combiner's A B + (1 - A) C + D and E x F (false: out.rgb = D, as in
//    the paper).
bool select_combiners(HDag& h, const Machine& m, std::vector<PartialCombiner>& out, Failure& f, CompileTrace& t,
                      bool final_arithmetic = true);
// 4. Registers for pass inputs (input_alloc.cpp).
bool allocate_inputs(HDag& h, std::vector<PartialCombiner>& pcs, const Machine& m, Failure& f, CompileTrace& t);
// 5. Stages, temporaries and per-stage constants (schedule.cpp); fills `p`. Greedy by default;
// `exact` searches for the fewest stages (small passes), `*proven` false if its budget ran out.
struct ScheduleOptions {
  bool exact = false;
  long budget = 200000;  // exact: assignments tried
};
bool schedule(HDag& h, std::vector<PartialCombiner>& pcs, const Machine& m, bool final_pass, Program& p, Failure& f,
              CompileTrace& t, const ScheduleOptions& options = {}, bool* proven = nullptr);

// Hardware-range intervals of the hardware DAG's nodes (after stage 2 and every rewrite).
void compute_ranges(const PassSpec& pass, HDag& h);

}  // namespace passlab::combiners
