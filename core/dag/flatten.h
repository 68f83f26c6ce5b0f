// SPDX-License-Identifier: GPL-3.0-or-later
// Flattening: an optimized shader module, bound to its lights, into one FragmentDag.
#pragma once

#include <optional>

#include "core/dag/fragment_dag.h"
#include "core/ir/binding.h"
#include "core/lang/diagnostic.h"

namespace passlab::dag {

struct FlattenOptions {
  int max_block_visits = 65536;     // per block: a loop running longer is reported, not unrolled
  std::size_t max_nodes = 500000;   // the DAG may not grow past this
  int max_branch_depth = 256;       // nested varying branches (a varying loop exit nests per iteration)
  bool hoist_vertex_work = true;    // affine subexpressions become per-vertex interpolants (RTSL-style)
  // Du, Dv, Deriv, area, calculatenormal, du and dv as screen-space differences (ir::Op::ScreenDiff)
  // and the chain rule (ir/derivatives.h), which targets compute or refuse; off: they are refused
  // here (`needs-derivatives`), and du and dv are the interpolated globals.
  bool derivatives = true;
  // A string that differs per fragment (a texture's name chosen by a varying condition) is one of
  // a known set; each string it may be costs a lookup or comparison per use.
  std::size_t max_string_choices = 16;
  // "": the fragment's colour is Ci and Oi. Else the output parameter of that name (an AOV, which a
  // renderer writes to its own image) is the colour, opaque: its program, partitioned and rendered.
  std::string aov;
  // The colour (Ci and Oi) and every output parameter that is a float or a colour-like triple,
  // each an RGBA of its own (an AOV opaque, as with `aov`), under an ir::Op::Outputs root: a
  // shader with several outputs, which passes of several render targets write. Output parameters
  // of other types are left out with a warning; a shader without output parameters keeps its one
  // output. Not with `aov`.
  bool all_outputs = false;
  // A target with dynamic loops (NV_fragment_program2's REP and BRK; partition::TargetDesc::
  // dynamic_loops): a loop whose exit depends on values that differ per fragment is kept as a
  // loop (ir::Op::Loop, dag::LoopBody) of at most this many passes through its test, instead of
  // being unrolled under predicates. 0: every loop is unrolled.
  int dynamic_loops = 0;
};

// Executes the surface shader symbolically over one fragment (see flatten.cpp for the method):
// uniform work is evaluated on the host, loops with constant trip counts unroll, branches on
// varying values become selects, and every noise() is a lookup of the noise texture. Reports
// and returns nullopt for shaders a fragment pipeline cannot run (varying loop conditions,
// derivatives, non-surface shaders).
std::optional<FragmentDag> flatten(const ir::Module& m, const ir::Binding& binding, lang::DiagnosticSink& sink,
                                   const FlattenOptions& options = {});

}  // namespace passlab::dag
