// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary RSL through the whole RPU compiler (front end, IR, code generation,
// the assembly passes, allocation, scheduling, output, the assembler), then its first function
// run on the VM with small budgets. Any crash, sanitizer report, hang or "internal compiler
// error" is a bug; diagnostics are the expected outcome for most inputs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/rpu/compiler.h"
#include "tests/fuzz/rpu_chunk.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  using namespace passlab;
  std::unique_ptr<rpu::CompiledProgram> p = rpu::compile_sources({{"fuzz.sl", std::string(reinterpret_cast<const char*>(data), size)}}, {});
  for (const lang::Diagnostic& d : p->diagnostics.items())
    if (d.code == "internal-error") std::abort();  // the compiler's own bug, not the input's
  if (!p->ok() || p->functions.empty()) return 0;
  static const rpu::Machine machine = [] {
    rpu::Machine m = rpu::default_machine();
    m.max_steps = 50000;
    m.max_call_depth = 64;
    return m;
  }();
  fuzz::run_first_function(*p, machine);
  return 0;
}
