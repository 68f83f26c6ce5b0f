// SPDX-License-Identifier: GPL-3.0-or-later
// The optimization pipeline: the passes in order, with a verifier after each one when asked.
#include "core/ir/pipeline.h"

#include <stdexcept>

#include "core/ir/verifier.h"

namespace passlab::ir {

namespace {

void check(const std::string& pass, const Module& m, const PipelineOptions& options) {
  if (options.verify) {
    auto errors = verify(m);
    if (!errors.empty()) throw std::logic_error("IR verifier failed after " + pass + ": " + errors.front());
  }
  if (options.after_pass) options.after_pass(pass, m);
}

}  // namespace

PassStats run_pipeline(Module& m, const PipelineOptions& options) {
  PassStats stats;
  check("lower", m, options);
  if (options.optimize) {
    if (options.inline_limit < 0) inline_calls(m, stats);
    else inline_small_calls(m, static_cast<std::size_t>(options.inline_limit), stats);
    check("inline", m, options);
    using FnPass = bool (*)(Function&, PassStats&);
    static const std::pair<const char*, FnPass> passes[] = {
        {"sccp", sccp}, {"simplify", simplify}, {"copy-prop", copy_propagate}, {"gvn", gvn}, {"dce", dce}};
    for (int round = 0; round < options.max_rounds; ++round) {
      bool changed = false;
      for (const auto& [name, pass] : passes) {
        for (auto& fn : m.functions) changed = pass(fn, stats) || changed;
        check(name, m, options);
      }
      ++stats["pipeline.rounds"];
      if (!changed) break;
    }
  }
  for (auto& fn : m.functions) compute_frequency(fn);
  check("frequency", m, options);
  return stats;
}

}  // namespace passlab::ir
