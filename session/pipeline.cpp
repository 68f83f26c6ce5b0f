// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/pipeline.h"

#include "backends/registry/registry.h"
#include "core/dag/flatten.h"

namespace passlab::session {

namespace {

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

}  // namespace

Compiled compile(const ShaderSource& source, const driver::ProgramOptions& options, const partition::TargetDesc* target,
                 const std::atomic<bool>* cancel) {
  Compiled c;
  c.program = source.text ? driver::compile_source(source.path, *source.text, options) : driver::compile_file(source.path, options);
  if (cancelled(cancel)) {
    c.cancelled = true;
    return c;
  }
  if (!c.program->ok() || !c.program->module) return c;
  dag::FlattenOptions flatten;
  flatten.aov = options.aov;
  flatten.all_outputs = options.all_outputs;
  if (target) flatten.dynamic_loops = target->dynamic_loops;  // the target decides what stays a loop
  if (std::optional<dag::FragmentDag> d = dag::flatten(*c.program->module, c.program->binding, c.program->diagnostics, flatten))
    c.dag = std::make_shared<const dag::FragmentDag>(std::move(*d));
  if (!c.dag || !target) return c;
  if (cancelled(cancel)) {
    c.cancelled = true;
    return c;
  }
  std::unique_ptr<backends::TargetProgram> program = backends::make_program(*c.dag, *target, c.program->diagnostics);
  if (program) {
    // The program refers to the DAG: its owner keeps the DAG alive as long as the program lives.
    std::shared_ptr<const dag::FragmentDag> keep = c.dag;
    c.target = std::shared_ptr<const backends::TargetProgram>(program.release(), [keep](const backends::TargetProgram* p) { delete p; });
  }
  return c;
}

}  // namespace passlab::session
