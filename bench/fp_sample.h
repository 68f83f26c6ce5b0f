// SPDX-License-Identifier: GPL-3.0-or-later
// A sample shader's fragment DAG selected for the fp backend, and the partitioning problem on
// it, built once per process (the benchmarks that time partitioning share it).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backends/fp/codegen.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"

namespace passlab::bench {

struct FpSample {
  std::unique_ptr<driver::Program> program;
  std::optional<dag::FragmentDag> fdag;
  std::optional<fp::TargetDag> tdag;
  partition::Problem problem;
};

// samples/shaders/<name>.sl, compiled on first use.
inline const FpSample& fp_sample(const std::string& name) {
  static std::map<std::string, std::unique_ptr<FpSample>> cache;
  auto& s = cache[name];
  if (!s) {
    s = std::make_unique<FpSample>();
    s->program = driver::compile_file(std::string(PASSLAB_SAMPLES_DIR) + "/shaders/" + name + ".sl", {});
    lang::DiagnosticList sink;
    s->fdag = dag::flatten(*s->program->module, s->program->binding, sink);
    s->tdag = fp::select(*s->fdag, nullptr);
    s->problem = fp::make_problem(*s->tdag);
  }
  return *s;
}

}  // namespace passlab::bench
