// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes through preprocess -> parse -> sema -> IR (verified after every
// pass) -> fragment DAG -> one interpreter run. Any crash, sanitizer report, hang or broken IR
// invariant is a bug; diagnostics are the expected outcome for most inputs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/ir/interpreter.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  passlab::driver::ProgramOptions options;
  options.verify = true;
  auto prog = passlab::driver::compile_source("fuzz.sl", text, options);
  if (!prog->ok() || !prog->module) return 0;
  passlab::ir::EvalContext ctx;
  passlab::ir::RunOptions run;
  run.max_steps = 200000;
  (void)passlab::ir::interpret(*prog->module, passlab::ir::random_fragment(1), {}, ctx, run);
  if (prog->module->kind != passlab::lang::ShaderKind::Surface) return 0;
  passlab::lang::DiagnosticList sink;
  passlab::dag::FlattenOptions fo;
  fo.max_block_visits = 4096;
  fo.max_nodes = 100000;
  auto dag = passlab::dag::flatten(*prog->module, prog->binding, sink, fo);
  if (dag) (void)passlab::dag::evaluate(*dag, passlab::ir::random_fragment(2), ctx);
  return 0;
}
