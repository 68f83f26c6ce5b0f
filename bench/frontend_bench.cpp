// SPDX-License-Identifier: GPL-3.0-or-later
// How long the compiler core takes on the samples: front end, IR pipeline, flattening.
#include <benchmark/benchmark.h>

#include "core/dag/flatten.h"
#include "core/driver/program.h"

namespace {

std::string sample(const std::string& name) { return std::string(PASSLAB_SAMPLES_DIR) + "/shaders/" + name + ".sl"; }

void BM_CompileToIr(benchmark::State& state, const std::string& name) {
  for (auto _ : state) {
    auto prog = passlab::driver::compile_file(sample(name), {});
    benchmark::DoNotOptimize(prog->module);
  }
}

void BM_CompileToDag(benchmark::State& state, const std::string& name) {
  for (auto _ : state) {
    auto prog = passlab::driver::compile_file(sample(name), {});
    passlab::lang::DiagnosticList sink;
    auto dag = passlab::dag::flatten(*prog->module, prog->binding, sink);
    benchmark::DoNotOptimize(dag);
  }
}

}  // namespace

BENCHMARK_CAPTURE(BM_CompileToIr, bowling_pin, std::string("bowling_pin"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileToIr, bump_pin, std::string("bump_pin"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileToIr, wood, std::string("wood"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileToDag, bowling_pin, std::string("bowling_pin"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileToDag, bump_pin, std::string("bump_pin"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileToDag, wood, std::string("wood"))->Unit(benchmark::kMillisecond);
