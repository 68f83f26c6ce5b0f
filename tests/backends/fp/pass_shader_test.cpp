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
#include "tests/support/samples.h"

namespace passlab {
namespace {

constexpr int B = sim::kBatch;

class PassShaderSample : public ::testing::TestWithParam<std::string> {};

// Runs every pass of `shader` over `frags`, kBatch at a time, and returns each fragment's colour.
std::vector<fp::Vec4> run_batches(const fp::PassShader& shader, const std::vector<ir::FragmentInputs>& frags) {
  const int k = shader.interpolants();
  std::vector<fp::Vec4> result(frags.size());
  std::vector<std::vector<float>> buffers(static_cast<std::size_t>(shader.buffers()), std::vector<float>(frags.size() * 4));
  std::vector<float> scratch, corner(static_cast<std::size_t>(k) * 4);
  for (std::size_t at = 0; at < frags.size(); at += B) {
    const int n = static_cast<int>(std::min<std::size_t>(B, frags.size() - at));
    std::vector<std::vector<float>> values;
    for (int j = 0; j < n; ++j) {
      shader.corner(frags[at + static_cast<std::size_t>(j)], corner.data());
      values.push_back(corner);
    }
    for (int p = 0; p < shader.passes(); ++p) {
      // Only the interpolant components the pass reads are given; the others, and the lanes past
      // n, hold junk, as they may in the renderer.
      std::vector<float> in(static_cast<std::size_t>(k) * 4 * B, 1e30f);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < k; ++i)
          for (int c = 0; c < 4; ++c)
            if (shader.interpolant_mask(p, i) & (1u << c))
              in[(static_cast<std::size_t>(i) * 4 + static_cast<std::size_t>(c)) * B + static_cast<std::size_t>(j)] = values[static_cast<std::size_t>(j)][static_cast<std::size_t>(i * 4 + c)];
      std::vector<const float*> in_ptr;
      for (int i = 0; i < k; ++i) in_ptr.push_back(in.data() + static_cast<std::size_t>(i) * 4 * B);
      const auto& restores = shader.restores(p);
      std::vector<float> rest(restores.size() * 4 * B, -7.0f), out(4 * B);
      std::vector<const float*> rest_ptr;
      for (std::size_t r = 0; r < restores.size(); ++r) {
        for (int j = 0; j < n; ++j)
          for (int c = 0; c < 4; ++c)
            rest[(r * 4 + static_cast<std::size_t>(c)) * B + static_cast<std::size_t>(j)] =
                buffers[static_cast<std::size_t>(restores[r])][(at + static_cast<std::size_t>(j)) * 4 + static_cast<std::size_t>(c)];
        rest_ptr.push_back(rest.data() + r * 4 * B);
      }
      shader.run(p, n, in_ptr.data(), rest_ptr.data(), out.data(), scratch);
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < 4; ++c) {
          const float v = out[static_cast<std::size_t>(c) * B + static_cast<std::size_t>(j)];
          if (shader.saves(p) >= 0) buffers[static_cast<std::size_t>(shader.saves(p))][(at + static_cast<std::size_t>(j)) * 4 + static_cast<std::size_t>(c)] = v;
          if (p + 1 == shader.passes()) result[at + static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] = v;
        }
    }
  }
  return result;
}

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
