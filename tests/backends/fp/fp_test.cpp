// SPDX-License-Identifier: GPL-3.0-or-later
// The fp backend: instruction selection against the DAG's semantics, code generation, and every
// partition of every sample on every paper PC validated and executed pass by pass.
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "backends/fp/codegen.h"
#include "backends/fp/execute.h"
#include "core/dag/flatten.h"
#include "core/partition/algorithms.h"
#include "core/partition/validate.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

struct Compiled {
  std::unique_ptr<driver::Program> prog;
  std::optional<dag::FragmentDag> dag;
  std::optional<fp::TargetDag> target;
  ir::EvalContext ctx;
};

// A compiled program flattened and selected for the fp ISA (target empty when it refuses).
Compiled select_program(std::unique_ptr<driver::Program> prog) {
  Compiled c;
  c.prog = std::move(prog);
  EXPECT_TRUE(c.prog->ok());
  lang::DiagnosticList sink;
  c.dag = dag::flatten(*c.prog->module, c.prog->binding, sink);
  EXPECT_TRUE(c.dag);
  lang::Diagnostic refused;
  if (c.dag) c.target = fp::select(*c.dag, &refused);
  EXPECT_TRUE(c.target) << refused.message;
  c.ctx.spaces = c.prog->binding.spaces;
  return c;
}
Compiled compile(const std::string& sample) { return select_program(test::compile_sample(sample)); }
Compiled compile_text(const std::string& source) { return select_program(driver::compile_source("test.sl", source, {})); }

bool near(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= 2e-3f * std::max(1.0f, std::fabs(b));
}

class FpSample : public ::testing::TestWithParam<std::string> {};

TEST_P(FpSample, SelectedInstructionsComputeTheDag) {
  Compiled c = compile(GetParam());
  ASSERT_TRUE(c.target);
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    ir::Value want = dag::evaluate(*c.dag, in, c.ctx);
    fp::Vec4 got = fp::evaluate_all(*c.target, *c.dag, in, c.ctx)[c.target->root];
    for (int k = 0; k < 4; ++k)
      if (!near(got[k], want.f[k]) && ++differ <= 5)
        ADD_FAILURE() << GetParam() << " seed " << seed << " lane " << k << ": instructions " << got[k] << ", DAG " << want.f[k];
  }
  EXPECT_EQ(differ, 0);
}

TEST_P(FpSample, OnePassListingOnTheUnlimitedTarget) {
  Compiled c = compile(GetParam());
  ASSERT_TRUE(c.target);
  lang::Diagnostics e;
  auto pc8 = partition::load_target("PC8", &e);
  ASSERT_TRUE(pc8) << e.text();
  std::vector<fp::TNodeId> all;
  for (const auto& n : c.target->nodes)
    if (c.target->is_operation(n.id)) all.push_back(n.id);
  fp::PassProgram p = fp::generate_pass(*c.target, c.target->root, all, pc8->limits, false);
  EXPECT_TRUE(p.failure.empty());
  EXPECT_EQ(p.resources.operations, static_cast<int>(all.size()));
  EXPECT_EQ(p.resources.restores, 0);
  std::string text = fp::listing(*c.target, p, {});
  EXPECT_EQ(text.rfind("!!ARBfp1.0\n", 0), 0u);
  EXPECT_NE(text.find("result.color"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "END\n");
  std::size_t tex = 0;
  for (std::size_t at = 0; (at = text.find("\nTEX ", at)) != std::string::npos; ++at) ++tex;
  EXPECT_EQ(static_cast<int>(tex), p.resources.texture_fetches);
}

// Every algorithm on every paper PC: the validator passes and running the passes with save and
// restore gives, bit for bit, what the single pass computes, on 1,000 random fragments.
TEST_P(FpSample, EveryPartitionValidatesAndExecutes) {
  Compiled c = compile(GetParam());
  ASSERT_TRUE(c.target);
  partition::Problem problem = fp::make_problem(*c.target);
  lang::Diagnostics e;
  partition::CostModel model = *partition::parse_cost_model("15p+5t+i", &e);
  std::vector<ir::FragmentInputs> frags;
  std::vector<fp::Vec4> whole;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    frags.push_back(ir::random_fragment(seed));
    whole.push_back(fp::evaluate_all(*c.target, *c.dag, frags.back(), c.ctx)[c.target->root]);
  }
  for (int pc = 1; pc <= 8; ++pc) {
    auto target = partition::load_target("PC" + std::to_string(pc), &e);
    ASSERT_TRUE(target) << e.text();
    fp::FpBackend backend(*c.target, *target);
    partition::Partition h = partition::rdsh(problem, backend, {model, nullptr});
    partition::Partition r = partition::rds(problem, backend, {model, nullptr});
    partition::OptimalOptions oo;
    oo.budget_seconds = 0.2;
    oo.incumbent = r.cost <= h.cost ? &r : &h;
    partition::Partition o = partition::optimal(problem, backend, {model, nullptr}, oo);
    for (const partition::Partition* part : {&h, &r, &o}) {
      SCOPED_TRACE(GetParam() + " PC" + std::to_string(pc) + " " + part->algorithm);
      EXPECT_TRUE(part->valid);
      auto problems = partition::validate(problem, backend, *part, model);
      EXPECT_TRUE(problems.empty()) << problems.front();
      EXPECT_LE(o.cost, part->cost);
      int wrong = 0;
      for (std::size_t f = 0; f < frags.size(); ++f) {
        fp::ExecutionResult run = fp::run_passes(*c.target, *c.dag, *part, frags[f], c.ctx);
        ASSERT_TRUE(run.ok) << run.error;
        if (std::memcmp(run.output.data(), whole[f].data(), sizeof(fp::Vec4)) != 0) ++wrong;
      }
      EXPECT_EQ(wrong, 0);
    }
    if (pc == 8) {
      EXPECT_EQ(o.passes.size(), 1u);
    }
  }
}

// The optimal search cuts a node it leaves unmarked when the register floor of its subregion
// (Check::member_registers) exceeds the limit, so that floor must hold in every pass holding the
// node below its root, whatever the marks: checked over random markings, dense and sparse.
TEST_P(FpSample, MemberRegisterFloorHoldsInEveryPassHoldingTheSubregion) {
  Compiled c = compile(GetParam());
  ASSERT_TRUE(c.target);
  partition::Problem problem = fp::make_problem(*c.target);
  lang::Diagnostics e;
  auto target = partition::load_target("PC2", &e);
  ASSERT_TRUE(target) << e.text();
  fp::FpBackend backend(*c.target, *target);
  partition::CostModel model = *partition::parse_cost_model("15p+5t+i", &e);
  std::mt19937 rng(5);
  const std::size_t n = problem.graph.children.size();
  long checked = 0, tight = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const unsigned per_mille = 5 + rng() % 300;
    std::vector<char> marks(n, 0);
    for (std::size_t k = 0; k < n; ++k) marks[k] = problem.is_op[k] && rng() % 1000 < per_mille;
    partition::Partition part = partition::make_partition(problem, backend, marks, model);
    for (const partition::Pass& pass : part.passes)
      for (partition::NodeId x : pass.members) {
        if (x == pass.root) continue;
        const int floor = backend.valid(x, partition::subregion(problem, x, part.marked)).member_registers;
        ASSERT_LE(floor, pass.resources.registers) << GetParam() << " n" << x << " in the pass of n" << pass.root;
        ++checked;
        tight += floor == pass.resources.registers && floor >= 3;
      }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(tight, 0);  // the floor is reached, not only held
}

// A derivative of a value computed per fragment on a target without DDX: the lookup again at the
// neighbour's coordinates, which the rasterizer delivers packed as one interpolant ("right(s,t)"),
// and the instructions compute what the DAG does with the same neighbours.
TEST(FpDerivatives, ALookupOnePixelOverReadsOnePackedInterpolantThere) {
  Compiled c = compile_text(R"(surface bump() {
    float h = float texture("grain", s, t);
    Ci = color(Du(h), Dv(h), h);
  })");
  ASSERT_TRUE(c.target);
  const auto& d = c.dag;
  const auto& t = c.target;
  std::set<std::string> interpolants;
  for (const fp::TNode& n : t->nodes)
    if (n.kind == fp::TKind::Interpolant) interpolants.insert(n.name);
  EXPECT_TRUE(interpolants.count("right(s,t)")) << ::testing::PrintToString(interpolants);
  EXPECT_TRUE(interpolants.count("below(s,t)")) << ::testing::PrintToString(interpolants);
  ir::EvalContext ctx;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    const ir::Neighbours next = ir::random_neighbours(in, seed);
    const ir::Value want = dag::evaluate(*d, in, ctx, &next);
    const fp::Vec4 got = fp::evaluate_all(*t, *d, in, ctx, &next)[t->root];
    for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(near(got[k], want.f[k])) << "seed " << seed << ": " << got[k] << " vs " << want.f[k];
    EXPECT_TRUE(std::isnan(fp::evaluate_all(*t, *d, in, ctx)[t->root][0]));  // without neighbours: undefined
  }
  // A target without derivatives refuses it, at the derivative.
  lang::Diagnostic refused;
  EXPECT_FALSE(fp::select(*d, &refused, partition::Derivatives::None));
  EXPECT_EQ(refused.span.line, 3u);
}

// On a quad target (NV30's DDX and DDY) a derivative of a value computed per fragment is one
// instruction, the quad partner computing the value in lockstep: fewer instructions than the
// recomputation, the same values as the DAG with the same neighbours. On a small quad target, a
// value too large for one pass with its DDX is recomputed instead, and every algorithm's DDX
// passes compute the value they difference (VALID refuses a restore there).
TEST(FpDerivatives, AQuadTargetDifferencesAValueAcrossItsQuadInOneInstruction) {
  Compiled c = compile_text(R"(surface bump(float Km = 0.1) {
    float g = float texture("grain", s, t);
    float h = Km * g + 0.05 * sin(20 * s * t);
    normal Nb = normalize(calculatenormal(P + normalize(N) * h));
    Ci = color(Du(g), Dv(h), 0.5) + color(Nb) * 0.5 + Du(sqrt(s * s + t * t + h * h));
  })");
  ASSERT_TRUE(c.target);
  const auto& d = c.dag;
  lang::Diagnostics e;
  auto nv30 = partition::load_target("nv30", &e);
  ASSERT_TRUE(nv30) << e.text();
  lang::Diagnostic refused;
  auto quad = fp::select(*d, &refused, *nv30);
  ASSERT_TRUE(quad) << refused.message;
  int differences = 0;
  for (const fp::TNode& n : quad->nodes) {
    differences += n.kind == fp::TKind::Instruction && fp::is_quad_difference(n.op);
    EXPECT_FALSE(n.kind == fp::TKind::Interpolant && n.difference >= 3) << n.name;  // nothing recomputed one pixel over
  }
  EXPECT_GE(differences, 4);
  EXPECT_LT(quad->size(), c.target->size());
  ir::EvalContext ctx;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    const ir::Neighbours next = ir::random_neighbours(in, seed);
    const ir::Value want = dag::evaluate(*d, in, ctx, &next);
    const fp::Vec4 got = fp::evaluate_all(*quad, *d, in, ctx, &next)[quad->root];
    for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(near(got[k], want.f[k])) << "seed " << seed << ": " << got[k] << " vs " << want.f[k];
    EXPECT_TRUE(std::isnan(fp::evaluate_all(*quad, *d, in, ctx)[quad->root][0]));  // without the partners: undefined
  }

  auto small = partition::load_target("PC5", &e);
  ASSERT_TRUE(small) << e.text();
  small->derivatives = partition::Derivatives::Quad;
  auto t = fp::select(*d, &refused, *small);
  ASSERT_TRUE(t) << refused.message;
  int kept = 0, recomputed = 0;
  for (const fp::TNode& n : t->nodes) {
    kept += n.kind == fp::TKind::Instruction && fp::is_quad_difference(n.op);
    recomputed += n.kind == fp::TKind::Interpolant && n.difference >= 3;
  }
  EXPECT_GT(kept, 0);        // Du(g): a lookup fits a PC5 pass
  EXPECT_GT(recomputed, 0);  // the bumped normal's value does not
  partition::Problem problem = fp::make_problem(*t);
  partition::CostModel model = *partition::parse_cost_model("15p+5t+i", &e);
  fp::FpBackend backend(*t, *small);
  partition::OptimalOptions oo;
  oo.budget_seconds = 0.5;
  for (const partition::Partition& part :
       {partition::rdsh(problem, backend, {model, nullptr}), partition::rds(problem, backend, {model, nullptr}),
        partition::optimal(problem, backend, {model, nullptr}, oo)}) {
    SCOPED_TRACE(part.algorithm);
    auto problems = partition::validate(problem, backend, part, model);
    EXPECT_TRUE(problems.empty()) << problems.front();
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      ir::FragmentInputs in = ir::random_fragment(seed);
      const ir::Neighbours next = ir::random_neighbours(in, seed);
      const fp::Vec4 whole = fp::evaluate_all(*t, *d, in, ctx, &next)[t->root];
      fp::ExecutionResult run = fp::run_passes(*t, *d, part, in, ctx, &next);
      ASSERT_TRUE(run.ok) << run.error;
      EXPECT_EQ(std::memcmp(run.output.data(), whole.data(), sizeof(fp::Vec4)), 0) << "seed " << seed;
    }
  }
  // A pass that restores a DDX's value does not fit.
  for (const fp::TNode& n : t->nodes) {
    if (n.kind != fp::TKind::Instruction || !fp::is_quad_difference(n.op)) continue;
    const partition::Check check = backend.valid(n.id, {n.id});
    EXPECT_FALSE(check.ok);
    EXPECT_NE(check.failure.find("restored from an earlier pass"), std::string::npos) << check.failure;
    // ...and the partition model never asks for one: a DDX's pass computes what is under it,
    // marked or not (Problem::inline_operands).
    std::vector<char> marks(t->size(), 0);
    marks[n.src[0].node] = marks[t->root] = 1;
    const std::vector<partition::NodeId> members = partition::subregion(problem, n.id, marks);
    EXPECT_TRUE(std::binary_search(members.begin(), members.end(), n.src[0].node));
    break;
  }
}

// A known matrix transforms a point computed per fragment with its rows as constants (it was
// refused as "a matrix value reached the fragment program").
TEST(FpMatrices, AKnownMatrixTransformsAPointComputedPerFragment) {
  Compiled c = compile_text(R"(surface w() {
    Ci = color(transform(matrix(0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 1), normalize(P) * s));
  })");
  ASSERT_TRUE(c.target);
  const auto& d = c.dag;
  const auto& t = c.target;
  ir::EvalContext ctx;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    const ir::Value want = dag::evaluate(*d, in, ctx);
    const fp::Vec4 got = fp::evaluate_all(*t, *d, in, ctx)[t->root];
    for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(near(got[k], want.f[k])) << "seed " << seed << ": " << got[k] << " vs " << want.f[k];
  }
}

// Passes of several render targets: every value a pass writes, and the colour, are what the
// single pass computes for them, bit for bit; the listing writes result.color[k].
void expect_executes(const Compiled& c, const partition::Problem& problem, fp::FpBackend& backend, const partition::Partition& part,
                     const partition::CostModel& model) {
  SCOPED_TRACE(part.algorithm);
  ASSERT_TRUE(part.valid);
  auto problems = partition::validate(problem, backend, part, model);
  EXPECT_TRUE(problems.empty()) << problems.front();
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const ir::FragmentInputs in = ir::random_fragment(seed);
    const std::vector<fp::Vec4> whole = fp::evaluate_all(*c.target, *c.dag, in, c.ctx);
    fp::ExecutionResult run = fp::run_passes(*c.target, *c.dag, part, in, c.ctx);
    ASSERT_TRUE(run.ok) << run.error;
    ASSERT_EQ(std::memcmp(run.output.data(), whole[c.target->root].data(), sizeof(fp::Vec4)), 0) << seed;
    for (const auto& [node, value] : run.saved) ASSERT_EQ(std::memcmp(value.data(), whole[node].data(), sizeof(fp::Vec4)), 0) << "n" << node;
  }
}

TEST(FpMrt, MergedPassesOfWoodOnAFourTargetPresetExecuteAndListEveryOutput) {
  Compiled c = compile("wood");
  ASSERT_TRUE(c.target);
  const partition::Problem problem = fp::make_problem(*c.target);
  lang::Diagnostics e;
  const partition::CostModel model = *partition::parse_cost_model("15p+5t+i", &e);
  auto target = partition::load_target("ps_2_0_mrt4", &e);
  ASSERT_TRUE(target) << e.text();
  fp::FpBackend backend(*c.target, *target);
  const partition::Partition rds = partition::rds(problem, backend, {model, nullptr});
  for (const partition::Partition& part : {partition::rds_merge(problem, backend, {model, nullptr}), partition::mrds(problem, backend, {model, nullptr})}) {
    expect_executes(c, problem, backend, part, model);
    EXPECT_LT(part.passes.size(), rds.passes.size()) << part.algorithm;
    EXPECT_LT(part.cost, rds.cost) << part.algorithm;
    bool several = false;
    for (const partition::Pass& pass : part.passes) {
      EXPECT_LE(pass.outputs.size(), 4u);
      if (pass.outputs.size() < 2) continue;
      several = true;
      fp::PassWorkspace ws;
      fp::PassProgram prog;
      fp::generate_pass(*c.target, pass.outputs, pass.members, target->limits, target->restore_uses_interpolant, ws, prog);
      EXPECT_EQ(prog.resources, pass.resources);
      const std::string text = fp::listing(*c.target, prog, {});
      EXPECT_NE(text.find("OPTION ARB_draw_buffers;"), std::string::npos);
      for (std::size_t k = 0; k < pass.outputs.size(); ++k)
        EXPECT_NE(text.find("result.color[" + std::to_string(k) + "]"), std::string::npos) << text;
    }
    EXPECT_TRUE(several) << part.algorithm << " merged no passes";
  }
}

// A shader with several outputs (its colour and output parameters, --all-outputs): each output is
// written by a pass, on one render target a pass each at least, on four fewer passes.
TEST(FpMrt, AShaderOfSeveralOutputsWritesEachOfThem) {
  auto prog = test::compile_sample("plastic_aovs");
  ASSERT_TRUE(prog->ok());
  lang::DiagnosticList sink;
  dag::FlattenOptions fo;
  fo.all_outputs = true;
  Compiled c;
  c.dag = dag::flatten(*prog->module, prog->binding, sink, fo);
  ASSERT_TRUE(c.dag);
  EXPECT_EQ(c.dag->node(c.dag->root).op, ir::Op::Outputs);
  lang::Diagnostic refused;
  c.target = fp::select(*c.dag, &refused);
  ASSERT_TRUE(c.target) << refused.message;
  c.ctx.spaces = prog->binding.spaces;
  c.prog = std::move(prog);
  ASSERT_EQ(c.target->outputs.size(), 5u);  // the colour and four output parameters
  EXPECT_EQ(c.target->outputs.front(), c.target->root);
  const partition::Problem problem = fp::make_problem(*c.target);
  EXPECT_TRUE(problem.pseudo_root);
  lang::Diagnostics e;
  const partition::CostModel model = *partition::parse_cost_model("15p+5t+i", &e);
  std::size_t one_target_passes = 0;
  for (const char* name : {"PC6", "PC8", "ps_2_0_mrt4"}) {
    SCOPED_TRACE(name);
    auto target = partition::load_target(name, &e);
    ASSERT_TRUE(target) << e.text();
    fp::FpBackend backend(*c.target, *target);
    const partition::Partition part = target->limits.render_targets == 1 ? partition::rds(problem, backend, {model, nullptr})
                                                                         : partition::mrds(problem, backend, {model, nullptr});
    expect_executes(c, problem, backend, part, model);
    std::set<fp::TNodeId> written;
    for (const partition::Pass& pass : part.passes) written.insert(pass.outputs.begin(), pass.outputs.end());
    for (fp::TNodeId o : c.target->outputs) EXPECT_TRUE(written.count(o)) << "n" << o;
    EXPECT_TRUE(std::count(part.passes.back().outputs.begin(), part.passes.back().outputs.end(), c.target->root)) << "the colour's pass is last";
    if (target->limits.render_targets == 1) {
      EXPECT_GE(part.passes.size(), 5u);
      if (std::string(name) == "PC8") one_target_passes = part.passes.size();
    } else {
      EXPECT_LT(part.passes.size(), one_target_passes);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, FpSample, ::testing::ValuesIn(test::sample_surfaces()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace passlab
