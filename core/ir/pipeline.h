// SPDX-License-Identifier: GPL-3.0-or-later
// The optimization pipeline: the passes in order, with a verifier after each one when asked.
#pragma once

#include <functional>
#include <string>

#include "core/ir/passes/pass.h"

namespace passlab::ir {

struct PipelineOptions {
  bool optimize = true;  // false: only frequency analysis (the IR as lowered)
  bool verify = false;   // run the verifier after every pass; a failure throws std::logic_error
  int max_rounds = 8;    // the scalar passes repeat until nothing changes or this many rounds
  // -1: inline every call into the shader (fragment targets); 0 or more: keep calls (the RPU),
  // inlining only callees of at most this many instructions.
  int inline_limit = -1;
  // Called after each pass with its name (tests dump or check the IR here).
  std::function<void(const std::string&, const Module&)> after_pass;
};

// inline -> { sccp -> simplify -> copy-prop -> gvn -> dce }* -> frequency.
PassStats run_pipeline(Module& m, const PipelineOptions& options = {});

}  // namespace passlab::ir
