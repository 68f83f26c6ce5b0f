// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary RSL through the register-combiner compiler: front end, fragment DAG,
// the combiners' lowering and value ranges, then the whole shader compiled as one GeForce3 pass
// (Mark & Proudfoot's five stages; its listing, nvparse programs and JSON written) and run on one
// fragment by the simulator in both precisions, and RDSh's passes on GeForce1 compiled and run
// the same way. A crash, sanitizer report, hang, a value outside [0, 1] from the final combiner,
// or a valid partition whose passes do not compile is a bug; refusals are the expected outcome.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/combiners/backend.h"
#include "backends/combiners/compiler.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/simulate.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/algorithms.h"
#include "core/partition/target.h"
#include "core/lang/json_dump.h"

namespace {

using namespace passlab;

// Every input reads 0.25 (a scalar) or (0.25, 0.5, 0.75); textures and restores a fixed texel.
class FixedSource : public combiners::FragmentSource {
 public:
  std::array<float, 3> value(dag::NodeId) const override { return {0.25f, 0.5f, 0.75f}; }
  combiners::Rgba sample(const std::string&, int, const float*) const override { return {0.5f, 0.25f, 1.0f, 0.75f}; }
  combiners::Rgba restored(dag::NodeId) const override { return {0.5f, 0.5f, 0.5f, 0.5f}; }
};

struct Target {
  partition::TargetDesc desc;
  combiners::Machine machine;
};

Target load(const char* name) {
  auto t = partition::load_target(name, nullptr);
  if (!t) std::abort();
  auto m = combiners::parse_machine(*t, nullptr);
  if (!m) std::abort();
  return {*t, *m};
}

void check_rgba(const combiners::Rgba& c) {
  for (float x : c)
    if (!(x >= 0.0f && x <= 1.0f)) std::abort();  // the final combiner's output is unsigned, clamped
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  static const Target geforce3 = load("geforce3"), geforce1 = load("geforce1");
  driver::ProgramOptions options;
  options.verify = true;
  auto prog = driver::compile_source("fuzz.sl", std::string(reinterpret_cast<const char*>(data), size), options);
  if (!prog->ok() || !prog->module || prog->module->kind != lang::ShaderKind::Surface) return 0;
  lang::DiagnosticList sink;
  dag::FlattenOptions fo;
  fo.max_block_visits = 4096;
  fo.max_nodes = 20000;
  auto dag = dag::flatten(*prog->module, prog->binding, sink, fo);
  if (!dag) return 0;
  const dag::FragmentDag lowered = combiners::lower(*dag);
  const std::vector<combiners::Interval> ranges = combiners::intervals(lowered);
  FixedSource src;

  const combiners::CompileResult one = combiners::compile_single(lowered, ranges, geforce3.machine, {});
  if (one.ok) {
    (void)combiners::listing(one.program, geforce3.machine);
    (void)combiners::rc_program(one.program, geforce3.machine);
    (void)combiners::ts_program(one.program, geforce3.machine);
    (void)lang::dump_json(combiners::to_json(one.program, geforce3.machine));
    for (bool hw : {false, true}) check_rgba(combiners::simulate(one.program, geforce3.machine, src, {hw}));
  }

  combiners::CombinerBackend backend(lowered, geforce1.desc, geforce1.machine);
  const partition::Problem problem = combiners::make_problem(lowered);
  const partition::Partition part = partition::rdsh(problem, backend, {});
  if (!part.valid) return 0;
  const combiners::CompiledPartition passes = combiners::compile_partition(lowered, ranges, geforce1.machine, part);
  if (!passes.ok) std::abort();  // VALID said every pass fits
  for (bool hw : {false, true}) check_rgba(combiners::run_passes(passes, part, geforce1.machine, src, {hw}));
  return 0;
}
