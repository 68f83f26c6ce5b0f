// SPDX-License-Identifier: GPL-3.0-or-later
// Property: for every sample, the fragment DAG computes what the reference interpreter computes
// on the unoptimized IR, and so does the optimized IR, on 1,000 random fragments each.
#include <cmath>

#include <gtest/gtest.h>

#include "core/dag/flatten.h"
#include "core/ir/interpreter.h"
#include "core/lang/diagnostic.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

// Equal, or both NaN, or within a relative 1e-5 (the DAG folds on the host in the same float
// arithmetic, so differences are rare and tiny; the tolerance only absorbs select-merged paths
// that evaluate a transcendental at a slightly different stage).
bool close(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  return std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::max(std::fabs(a), std::fabs(b)));
}

class SampleProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleProperty, DagEqualsInterpreterOnRandomFragments) {
  auto reference = test::compile_sample(GetParam(), /*optimize=*/false);
  auto optimized = test::compile_sample(GetParam(), /*optimize=*/true);
  ASSERT_TRUE(reference->ok()) << lang::format_text(reference->diagnostics.items(), *reference->sources);
  ASSERT_TRUE(optimized->ok()) << lang::format_text(optimized->diagnostics.items(), *optimized->sources);
  lang::DiagnosticList sink;
  auto dag = dag::flatten(*optimized->module, optimized->binding, sink);
  ASSERT_TRUE(dag) << lang::format_text(sink.items(), *optimized->sources);

  ir::EvalContext ctx;
  ctx.spaces = reference->binding.spaces;
  std::map<std::string, ir::Value> params = reference->binding.surface_params;
  int mismatches = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    ir::RunResult want = ir::interpret(*reference->module, in, params, ctx);
    ASSERT_TRUE(want.ok) << want.error;
    ir::RunResult opt = ir::interpret(*optimized->module, in, params, ctx);
    ASSERT_TRUE(opt.ok) << opt.error;
    ir::Value got = dag::evaluate(*dag, in, ctx);
    const ir::Value& ci = want.results[0];
    const ir::Value& oi = want.results[1];
    for (int c = 0; c < 3; ++c) {
      bool ok = close(got.f[c], ci.f[c]) && close(opt.results[0].f[c], ci.f[c]);
      if (!ok && ++mismatches <= 5)
        ADD_FAILURE() << GetParam() << " seed " << seed << " channel " << c << ": interpreter " << ci.f[c]
                      << ", optimized IR " << opt.results[0].f[c] << ", DAG " << got.f[c];
    }
    if (!close(got.f[3], oi.f[0]) && ++mismatches <= 5)
      ADD_FAILURE() << GetParam() << " seed " << seed << " alpha: interpreter " << oi.f[0] << ", DAG " << got.f[3];
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleProperty, ::testing::ValuesIn(test::sample_surfaces()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace passlab
