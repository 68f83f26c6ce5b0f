// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes as a target file (.json) through parse_target, then, for a
// target that parses, what a user's target file drives: its JSON written back must parse to the
// same target, and two samples (plastic.sl for a fragment-program target, the Figure 4 pin for a
// register-combiner one) partitioned by RDSh must give a partition the independent validator and
// the execution check accept, or no valid partition at all. A crash, sanitizer report, hang, a
// refusal without a message or an unsound partition is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/algorithms.h"
#include "core/partition/target.h"
#include "backends/registry/registry.h"

namespace {

using namespace passlab;

struct Sample {
  std::unique_ptr<driver::Program> prog;
  std::optional<dag::FragmentDag> dag;
};

Sample load(const char* rel) {
  Sample s;
  s.prog = driver::compile_file(std::string(PASSLAB_SAMPLES_DIR) + "/" + rel, {});
  if (!s.prog->ok()) std::abort();
  lang::DiagnosticList sink;
  s.dag = dag::flatten(*s.prog->module, s.prog->binding, sink);
  if (!s.dag) std::abort();
  return s;
}

bool same(const partition::TargetDesc& a, const partition::TargetDesc& b) {
  return a.name == b.name && a.description == b.description && a.backend == b.backend &&
         a.restore_uses_interpolant == b.restore_uses_interpolant && a.derivatives == b.derivatives &&
         a.limits.operations == b.limits.operations &&
         a.limits.registers == b.limits.registers && a.limits.textures == b.limits.textures &&
         a.limits.interpolants == b.limits.interpolants && a.limits.dependent_levels == b.limits.dependent_levels;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  static const Sample plastic = load("shaders/plastic.sl"), pin = load("combiners/fig4_pin.sl");
  lang::Diagnostics problems;
  const auto target = partition::parse_target(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json", &problems);
  if (!target) {
    if (!problems.has_errors()) std::abort();  // refused without saying why
    return 0;
  }
  const auto again = partition::parse_target(partition::target_to_json(*target), "again.json", nullptr);
  if (!again || !same(*target, *again)) std::abort();  // what it writes, it must read back

  const Sample& s = target->backend == "combiners" ? pin : plastic;
  lang::DiagnosticList refused;
  auto program = backends::make_program(*s.dag, *target, refused);
  if (!program) {
    if (!refused.has_errors()) std::abort();
    return 0;
  }
  auto backend = program->backend();
  const partition::Partition part = partition::rdsh(program->problem(), *backend, {});
  if (!part.valid) return 0;
  if (!program->check(part, {}, s.prog->binding).empty()) std::abort();  // a partition that is not sound
  (void)program->listings(part, nullptr);
  return 0;
}
