// SPDX-License-Identifier: GPL-3.0-or-later
// The dominator tree, multiply-referenced nodes and the partial dominator tree on 100k-node
// graphs (the shapes of tests/core/dag/dominators_test.cpp: a chain, a comb, a ladder of
// diamonds), which the tests check for correctness and this measures (linear, not quadratic).
//   dominators_bench [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include <benchmark/benchmark.h>

#include <cstdint>

#include "core/dag/dominators.h"

namespace {

using namespace passlab::dag;

constexpr std::uint32_t kBig = 100000;

Graph chain() {
  Graph g;
  g.children.resize(kBig);
  for (std::uint32_t i = 0; i + 1 < kBig; ++i) g.children[i] = {i + 1};
  return g;
}

Graph comb() {
  Graph g;
  g.children.resize(kBig);
  for (std::uint32_t i = 1; i < kBig; ++i) g.children[0].push_back(i);
  for (std::uint32_t i = 1; i + 1 < kBig; ++i) g.children[i] = {i + 1};
  return g;
}

Graph ladder() {
  const std::uint32_t k = kBig / 3;
  Graph g;
  g.children.resize(3 * k + 1);
  for (std::uint32_t i = 0; i < k; ++i) {
    g.children[3 * i] = {3 * i + 1, 3 * i + 2};
    g.children[3 * i + 1] = {3 * i + 3};
    g.children[3 * i + 2] = {3 * i + 3};
  }
  return g;
}

void BM_Dominators(benchmark::State& state, Graph (*shape)()) {
  const Graph g = shape();
  for (auto _ : state) {
    DominatorTree t = dominators(g);
    std::vector<char> mr = multiply_referenced(g);
    PartialDominatorTree pdt = partial_dominator_tree(g, t, mr);
    benchmark::DoNotOptimize(pdt);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(g.children.size()));
}

BENCHMARK_CAPTURE(BM_Dominators, chain_100k, chain)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Dominators, comb_100k, comb)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Dominators, diamond_ladder_100k, ladder)->Unit(benchmark::kMillisecond);

}  // namespace
