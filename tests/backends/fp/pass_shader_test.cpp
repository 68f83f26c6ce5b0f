// SPDX-License-Identifier: GPL-3.0-or-later
// The simulator's batched evaluator against fp::evaluate_all, the reference semantics: the same
// bits for every sample, whole and pass by pass, on batches full and partial.
#include <cstring>

#include <gtest/gtest.h>

#include "backends/fp/codegen.h"
#include "backends/fp/execute.h"
#include "backends/fp/pass_shader.h"
#include "core/dag/flatten.h"
#include "core/partition/algorithms.h"
#include "tests/support/batches.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

class PassShaderSample : public ::testing::TestWithParam<std::string> {};

std::vector<fp::Vec4> run_batches(const fp::PassShader& shader, const std::vector<ir::FragmentInputs>& frags) { return test::run_batches(shader, frags); }

TEST_P(PassShaderSample, BatchesComputeTheBitsOfTheReferenceEvaluator) {
  auto prog = test::compile_sample(GetParam());
  ASSERT_TRUE(prog->ok());
  lang::DiagnosticList sink;
  auto dag = dag::flatten(*prog->module, prog->binding, sink);
  ASSERT_TRUE(dag);
  lang::Diagnostic refused;
  auto target = fp::select(*dag, &refused);
  ASSERT_TRUE(target) << refused.message;
  ir::EvalContext ctx;
  ctx.spaces = prog->binding.spaces;
  std::vector<ir::FragmentInputs> frags;
  std::vector<fp::Vec4> want;
  for (std::uint64_t seed = 1; seed <= 203; ++seed) {  // three full batches and a partial one
    frags.push_back(ir::random_fragment(seed));
    want.push_back(fp::evaluate_all(*target, *dag, frags.back(), ctx)[target->root]);
  }
  auto check = [&](const fp::PassShader& shader, const std::string& what) {
    const std::vector<fp::Vec4> got = run_batches(shader, frags);
    int wrong = 0;
    for (std::size_t f = 0; f < frags.size(); ++f)
      if (std::memcmp(got[f].data(), want[f].data(), sizeof(fp::Vec4)) != 0 && ++wrong <= 3)
        ADD_FAILURE() << what << " fragment " << f << ": (" << got[f][0] << ", " << got[f][1] << ", " << got[f][2] << ", "
                      << got[f][3] << ") but the reference gives (" << want[f][0] << ", " << want[f][1] << ", " << want[f][2]
                      << ", " << want[f][3] << ")";
    EXPECT_EQ(wrong, 0) << what;
  };
  check(fp::PassShader(*target, *dag, ctx), GetParam() + " in one pass");
  partition::Problem problem = fp::make_problem(*target);
  const partition::CostModel model = *partition::parse_cost_model("15p+5t+i", nullptr);
  for (const char* pc : {"PC1", "PC4"}) {
    auto limits = partition::load_target(pc, nullptr);
    ASSERT_TRUE(limits) << pc;
    fp::FpBackend backend(*target, *limits);
    const partition::Partition part = partition::rds(problem, backend, {model, nullptr});
    ASSERT_TRUE(part.valid);
    check(fp::PassShader(*target, *dag, part, ctx), GetParam() + " in " + std::to_string(part.passes.size()) + " passes on " + pc);
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, PassShaderSample, ::testing::ValuesIn(test::sample_surfaces()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace passlab
