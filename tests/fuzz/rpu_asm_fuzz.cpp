// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes through the RPU assembler, then whatever assembles run on the
// VM (a chunk of four threads, small step and call budgets, a little writable memory). Any crash,
// sanitizer report or hang is a bug; diagnostics and faults are the expected outcome.
#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/rpu/assembler.h"
#include "backends/rpu/vm.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  using namespace passlab;
  lang::SourceManager sm;
  const lang::FileId file = sm.add("fuzz.s", std::string(reinterpret_cast<const char*>(data), size));
  lang::DiagnosticList diags;
  std::optional<rpu::Program> p = rpu::assemble(sm, file, {}, diags);
  (void)lang::format_text(diags.items(), sm);
  if (!p || p->code.empty()) return 0;
  static const rpu::Machine machine = [] {
    rpu::Machine m = rpu::default_machine();
    m.max_steps = 20000;
    m.max_call_depth = 64;
    return m;
  }();
  rpu::VmOptions o;
  o.machine = &machine;
  rpu::Vm vm(*p, o);
  std::vector<rpu::Vec4> memory(64);
  vm.set_memory(&memory, true);
  std::array<rpu::ThreadState, 4> threads;
  for (int i = 0; i < 4; ++i) {
    threads[static_cast<std::size_t>(i)] = rpu::thread_at(0);
    threads[static_cast<std::size_t>(i)].r(1) = {static_cast<float>(i) - 1.5f, 2, 0.5f, static_cast<float>(i)};
  }
  rpu::VmStats stats;
  rpu::Recording rec;
  vm.run_chunk(threads, stats, size % 2 ? &rec : nullptr);
  return 0;
}
