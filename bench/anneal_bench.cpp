// SPDX-License-Identifier: GPL-3.0-or-later
// Annealing's moves per second (core/partition/anneal.h) on Wood, from RDS's partition, on PC2
// (registers only) and PC6 (operations), 15p+5t+i: a fixed number of moves (100 per operation)
// on a fresh memoized backend per run (inside the optimal search it shares the search's memo,
// already large, where the moves run faster still: see core/partition/README.md).
//   anneal_bench [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "bench/fp_sample.h"
#include "core/partition/algorithms.h"
#include "core/partition/anneal.h"
#include "core/partition/memo.h"

namespace {

using namespace passlab;

void BM_Anneal(benchmark::State& state, const std::string& target_name) {
  const bench::FpSample& w = bench::fp_sample("wood");
  const auto target = partition::load_target(target_name, nullptr);
  const auto model = partition::parse_cost_model("15p+5t+i", nullptr);
  fp::FpBackend start_backend(*w.tdag, *target);
  const partition::Partition start = partition::rds(w.problem, start_backend, partition::AlgorithmOptions{*model, nullptr});
  partition::AnnealOptions options;
  options.end = std::chrono::steady_clock::time_point::max();  // the moves run out first
  options.steps_per_operation = 100;
  double cost = 0;
  for (auto _ : state) {
    fp::FpBackend backend(*w.tdag, *target);
    partition::MemoBackend memo(backend);
    std::vector<char> marks = start.marked;
    cost = partition::anneal(w.problem, memo, *model, marks, start.cost, options);
    benchmark::DoNotOptimize(marks);
  }
  double ops = 0;  // the operations annealing may flip: all but the output
  for (std::size_t n = 0; n < w.problem.is_op.size(); ++n) ops += w.problem.is_op[n] && n != w.problem.graph.root;
  const double moves = options.steps_per_operation * ops;
  state.counters["moves/s"] = benchmark::Counter(moves, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["cost"] = cost;
}

BENCHMARK_CAPTURE(BM_Anneal, wood_pc2, std::string("PC2"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Anneal, wood_pc6, std::string("PC6"))->Unit(benchmark::kMillisecond);

}  // namespace
