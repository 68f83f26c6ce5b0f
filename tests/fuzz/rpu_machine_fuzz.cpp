// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes as an RPU machine file (.json) through load_machine, then, for
// a machine that loads, what a user's machine file drives: the thesis's scheduling example
// compiled for it (scheduled, and paired where the machine pairs) and run on a chunk of four
// threads by the VM. A crash, sanitizer report, hang, a refusal without a message or an
// "internal compiler error" is a bug.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/rpu/compiler.h"
#include "backends/rpu/machine.h"
#include "tests/fuzz/rpu_chunk.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  using namespace passlab;
  lang::Diagnostics problems;
  auto machine = rpu::load_machine(fuzz::write_input(data, size, "machine.json"), &problems);
  if (!machine) {
    if (!problems.has_errors()) std::abort();  // refused without saying why
    return 0;
  }
  machine->max_steps = std::min<std::uint64_t>(machine->max_steps, 100000);
  machine->max_call_depth = std::min(machine->max_call_depth, 64);
  rpu::CompileOptions options;
  options.machine = &*machine;
  options.pair = machine->pairing;
  auto p = rpu::compile_files({std::string(PASSLAB_SAMPLES_DIR) + "/rpu/schedule_example.sl"}, options);
  for (const lang::Diagnostic& d : p->diagnostics.items())
    if (d.code == "internal-error") std::abort();
  if (!p->ok() || p->functions.empty()) return 0;
  fuzz::run_first_function(*p, *machine);
  return 0;
}
