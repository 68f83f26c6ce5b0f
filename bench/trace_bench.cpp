// SPDX-License-Identifier: GPL-3.0-or-later
// What recording the trace costs: the algorithms the Studio runs with every edit (RDSh and RDS:
// the registry's every-edit entries) on the samples (PC5, 15p+5t+i), without a trace and with the
// Studio's TraceLog, each run on a fresh backend as a compile in the Studio does.
// The target: RDS with the trace on Wood within 1.5x of RDS without it. RecordOnly times recording alone.
//   trace_bench [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include <benchmark/benchmark.h>

#include <string>

#include "bench/fp_sample.h"
#include "core/partition/registry.h"

namespace {

using namespace passlab;

void BM_Partition(benchmark::State& state, const std::string& name, const partition::Algorithm* algorithm, bool traced) {
  const bench::FpSample& s = bench::fp_sample(name);
  const auto target = partition::load_target("PC5", nullptr);
  const auto model = partition::parse_cost_model("15p+5t+i", nullptr);
  std::size_t events = 0;
  for (auto _ : state) {
    fp::FpBackend backend(*s.tdag, *target);
    partition::TraceLog log;
    partition::RunRequest request;
    request.options = {*model, traced ? &log : nullptr};
    auto part = algorithm->run(s.problem, backend, request);
    benchmark::DoNotOptimize(part);
    events = log.trace.size();
  }
  state.counters["events"] = static_cast<double>(events);
}

// Recording alone: N events of four nodes each into a fresh log (its chunks come from the pool),
// the cost per event with nothing else in the cache's way.
void BM_RecordOnly(benchmark::State& state) {
  std::vector<std::uint32_t> nodes{1, 2, 3, 4};
  for (auto _ : state) {
    partition::TraceLog log;
    partition::TraceEvent e;
    e.kind = partition::EventKind::ValidCheck;
    e.resources.operations = 5;
    for (int i = 0; i < state.range(0); ++i) log.record(e, nodes);
    benchmark::DoNotOptimize(log.trace.size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string sample : {"wood", "bowling_pin"})
    for (const partition::Algorithm& a : partition::algorithms()) {
      if (!a.every_edit) continue;
      for (const bool traced : {false, true})
        benchmark::RegisterBenchmark(("BM_Partition/" + sample + "_" + std::string(a.name) + (traced ? "_traced" : "")).c_str(),
                                     BM_Partition, sample, &a, traced)
            ->Unit(benchmark::kMillisecond);
    }
  benchmark::RegisterBenchmark("BM_RecordOnly", BM_RecordOnly)->Arg(2000)->Arg(78504)->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
