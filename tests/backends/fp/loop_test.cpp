// SPDX-License-Identifier: GPL-3.0-or-later
// Dynamic loops on the fp backend (a target with "loops", NV_fragment_program2's REP and BRK):
// the loop selected as one node over its body, its cost in VALID, its listing, and every way of
// running it (the target DAG, the passes of each algorithm, the renderer's batches) agreeing with
// the DAG, which agrees with the interpreter (tests/core/dag/flatten_test.cpp).
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "backends/fp/codegen.h"
#include "backends/fp/execute.h"
#include "backends/fp/pass_shader.h"
#include "core/dag/flatten.h"
#include "core/partition/algorithms.h"
#include "core/partition/validate.h"
#include "tests/support/batches.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

struct Looped {
  std::unique_ptr<driver::Program> prog;
  std::optional<dag::FragmentDag> dag;
  std::optional<fp::TargetDag> target;
  partition::TargetDesc desc;
};

// The Julia sample (samples/shaders/julia.sl) flattened and selected for `target`.
Looped julia(const std::string& target) {
  Looped l;
  lang::Diagnostics e;
  auto t = partition::load_target(target, &e);
  EXPECT_TRUE(t) << e.text();
  l.desc = *t;
  l.prog = test::compile_sample("julia");
  EXPECT_TRUE(l.prog->ok());
  dag::FlattenOptions o;
  o.dynamic_loops = l.desc.dynamic_loops;
  lang::DiagnosticList sink;
  l.dag = dag::flatten(*l.prog->module, l.prog->binding, sink, o);
  EXPECT_TRUE(l.dag);
  lang::Diagnostic refused;
  if (l.dag) l.target = fp::select(*l.dag, &refused, l.desc);
  EXPECT_TRUE(l.target) << refused.message;
  return l;
}

std::vector<fp::TNodeId> operations(const fp::TargetDag& t) {
  std::vector<fp::TNodeId> all;
  for (const auto& n : t.nodes)
    if (t.is_operation(n.id)) all.push_back(n.id);
  return all;
}

TEST(FpLoops, TheJuliaSetIsOneLoopInOnePassOnNv40AndHundredsOfInstructionsOnNv30) {
  Looped l = julia("nv40");
  ASSERT_TRUE(l.target);
  int loops = 0;
  for (const fp::TNode& n : l.target->nodes) loops += n.kind == fp::TKind::Loop;
  EXPECT_EQ(loops, 1);  // i is the one value read after the loop (the packing of results into one node)
  const fp::PassProgram p = fp::generate_pass(*l.target, l.target->root, operations(*l.target), l.desc.limits, false);
  EXPECT_TRUE(p.failure.empty()) << p.failure;
  EXPECT_LT(p.resources.operations, 64);  // the loop's 25, the lights' and the colour's
  fp::ListingContext lc;
  const std::string listing = fp::listing(*l.target, p, lc);
  for (const char* line : {"OPTION NV_fragment_program2;", "REP {255};", "MOVC RC.x,", "BRK (EQ.x);", "ENDREP;"})
    EXPECT_NE(listing.find(line), std::string::npos) << line << " in\n" << listing;
  // The listing's instruction lines are what VALID counted.
  int lines = 0;
  for (std::size_t at = 0; at < listing.size();) {
    const std::size_t end = listing.find('\n', at);
    const std::string line = listing.substr(at, end - at);
    at = end + 1;
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#' || line[first] == '!' || line.rfind("OPTION", first) == first ||
        line.rfind("TEMP", first) == first || line.rfind("ATTRIB", first) == first || line.rfind("PARAM", first) == first ||
        (line.rfind("END", first) == first && line.find("ENDREP") == std::string::npos))
      continue;
    ++lines;
  }
  EXPECT_EQ(lines, p.resources.operations) << listing;
  // ...and its registers, the loop's among them, are the temporaries VALID counted.
  int highest = -1;
  for (std::size_t at = listing.find(" r"); at != std::string::npos; at = listing.find(" r", at + 1)) {
    std::size_t end = at + 2;
    while (end < listing.size() && std::isdigit(static_cast<unsigned char>(listing[end]))) ++end;
    if (end > at + 2) highest = std::max(highest, std::stoi(listing.substr(at + 2, end - at - 2)));
  }
  EXPECT_EQ(highest + 1, p.resources.registers) << listing;

  Looped unrolled = julia("nv30");
  ASSERT_TRUE(unrolled.target);
  EXPECT_GT(operations(*unrolled.target).size(), 7u * static_cast<std::size_t>(p.resources.operations));
}

TEST(FpLoops, EveryWayOfRunningTheLoopAgreesWithTheDag) {
  Looped l = julia("nv40");
  ASSERT_TRUE(l.target);
  const fp::TargetDag& t = *l.target;
  ir::EvalContext ctx;
  std::vector<ir::FragmentInputs> frags;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) frags.push_back(ir::random_fragment(seed));
  std::vector<fp::Vec4> whole;
  for (const auto& in : frags) {
    const ir::Value want = dag::evaluate(*l.dag, in, ctx);
    whole.push_back(fp::evaluate_all(t, *l.dag, in, ctx)[t.root]);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(whole.back()[k], want.f[k], 1e-5f);
  }
  // A target whose passes hold 24 instructions: the loop's pass is cut from the colour's.
  partition::TargetDesc small = l.desc;
  small.limits.operations = 24;
  lang::Diagnostics e;
  const partition::CostModel model = *partition::parse_cost_model("15p+5t+i", &e);
  const partition::Problem problem = fp::make_problem(t);
  fp::FpBackend backend(t, small);
  partition::OptimalOptions oo;
  oo.budget_seconds = 0.5;
  for (const partition::Partition& part : {partition::rdsh(problem, backend, {model, nullptr}), partition::rds(problem, backend, {model, nullptr}),
                                           partition::optimal(problem, backend, {model, nullptr}, oo)}) {
    SCOPED_TRACE(part.algorithm);
    ASSERT_TRUE(part.valid);
    EXPECT_GT(part.passes.size(), 1u);
    const auto problems = partition::validate(problem, backend, part, model);
    EXPECT_TRUE(problems.empty()) << problems.front();
    for (std::size_t i = 0; i < frags.size(); i += 10) {
      const fp::ExecutionResult run = fp::run_passes(t, *l.dag, part, frags[i], ctx);
      ASSERT_TRUE(run.ok) << run.error;
      EXPECT_EQ(std::memcmp(run.output.data(), whole[i].data(), sizeof(fp::Vec4)), 0) << "fragment " << i;
    }
    // The renderer's passes, a batch at a time, bit for bit.
    const fp::PassShader shader(t, *l.dag, part, ctx);
    const auto got = test::run_batches(shader, frags);
    for (std::size_t i = 0; i < frags.size(); ++i) EXPECT_EQ(std::memcmp(got[i].data(), whole[i].data(), sizeof(fp::Vec4)), 0) << "fragment " << i;
    // As GLSL, each pass with a loop has its loop as a function with the target's count.
    bool loop = false;
    for (int p = 0; p < shader.passes(); ++p) loop = loop || shader.glsl(p, nullptr, nullptr).find("for (int pass = 0; pass < 255; ++pass)") != std::string::npos;
    EXPECT_TRUE(loop);
  }
}

TEST(FpLoops, TargetsSayWhetherTheyHaveDynamicLoops) {
  lang::Diagnostics e;
  for (const std::string& name : partition::preset_targets()) {
    auto t = partition::load_target(name, &e);
    ASSERT_TRUE(t) << e.text();
    EXPECT_EQ(t->dynamic_loops, name == "nv40" ? 255 : 0) << name;
  }
  auto loops = partition::parse_target(R"({"name": "x", "loops": {"max_iterations": 64}})", "", &e);
  ASSERT_TRUE(loops) << e.text();
  EXPECT_EQ(loops->dynamic_loops, 64);
  EXPECT_NE(partition::target_to_json(*loops).find("\"max_iterations\": 64"), std::string::npos);
  lang::Diagnostics bad;
  EXPECT_FALSE(partition::parse_target(R"({"name": "x", "loops": {"max_iterations": 0}})", "x.json", &bad));
  EXPECT_NE(bad.text().find("\"loops\" must be null"), std::string::npos) << bad.text();
}

}  // namespace
}  // namespace passlab
