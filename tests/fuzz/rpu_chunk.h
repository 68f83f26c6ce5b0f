// SPDX-License-Identifier: GPL-3.0-or-later
// What the RPU fuzz targets do with a program that compiled: its first function run by the VM on
// one chunk of four threads, each with its own r0, on `machine`.
#pragma once

#include <array>
#include <cstddef>

#include "backends/rpu/compiler.h"
#include "backends/rpu/vm.h"

namespace passlab::fuzz {

inline void run_first_function(const rpu::CompiledProgram& p, const rpu::Machine& machine) {
  rpu::VmOptions o;
  o.machine = &machine;
  rpu::Vm vm(*p.program, o);
  std::array<rpu::ThreadState, 4> threads;
  for (int i = 0; i < 4; ++i) {
    threads[static_cast<std::size_t>(i)] = rpu::thread_at(p.functions.front().address);
    threads[static_cast<std::size_t>(i)].r(0) = {static_cast<float>(i), 1, -1, static_cast<float>(i) * 0.5f};
  }
  rpu::VmStats stats;
  vm.run_chunk(threads, stats);
}

}  // namespace passlab::fuzz
