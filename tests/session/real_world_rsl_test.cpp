// SPDX-License-Identifier: GPL-3.0-or-later
// Real-world RSL (issue 18): one shader per cause that turned published shaders away, each
// accepted by the front end with exactly the warnings a real compiler gives, run by the reference
// interpreter, and, where the fragment pipeline applies, flattened to a DAG that computes what the
// interpreter does, partitioned, and run as passes. See tests/data/rsl/README.md.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/ir/interpreter.h"
#include "core/partition/algorithms.h"
#include "core/partition/target.h"
#include "backends/registry/registry.h"

namespace passlab {
namespace {

std::string data(const std::string& name) { return std::string(PASSLAB_TESTDATA_DIR) + "/rsl/" + name; }

struct Case {
  std::string file;
  std::string refused;              // "": a surface the fragment pipeline runs; else the DAG's one diagnostic
  std::set<std::string> warnings;   // the codes expected, each at least once; no others
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

std::unique_ptr<driver::Program> compile(const std::string& file, bool optimize) {
  driver::ProgramOptions o;
  o.optimize = optimize;
  o.verify = true;
  return driver::compile_file(data(file), o);
}

bool close(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-4f * std::max(1.0f, std::max(std::fabs(a), std::fabs(b)));
}

class RealWorldRsl : public ::testing::TestWithParam<Case> {};

TEST_P(RealWorldRsl, IsAcceptedInterpretedAndWhereItAppliesLoweredAndPartitioned) {
  const Case& c = GetParam();
  auto reference = compile(c.file, false);
  ASSERT_TRUE(reference->ok()) << lang::format_text(reference->diagnostics.items(), *reference->sources);
  std::set<std::string> warned;
  for (const auto& d : reference->diagnostics.items())
    if (d.severity == lang::Severity::Warning) warned.insert(d.code);
  EXPECT_EQ(warned, c.warnings) << lang::format_text(reference->diagnostics.items(), *reference->sources);
  ASSERT_TRUE(reference->module);

  auto optimized = compile(c.file, true);
  ASSERT_TRUE(optimized->ok() && optimized->module);
  ir::EvalContext ctx;
  ctx.spaces = reference->binding.spaces;
  const auto& params = reference->binding.surface_params;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ir::RunResult r = ir::interpret(*reference->module, ir::random_fragment(seed), params, ctx);
    if (c.refused == "needs-ray-tracing") {  // without a scene to trace, it stops and says why
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.error.find("rays"), std::string::npos) << r.error;
    } else {
      ASSERT_TRUE(r.ok) << r.error;
    }
  }

  lang::DiagnosticList sink;
  auto dag = dag::flatten(*optimized->module, optimized->binding, sink);
  if (!c.refused.empty()) {
    ASSERT_FALSE(dag);
    ASSERT_EQ(sink.items().size(), 1u);
    EXPECT_EQ(sink.items()[0].code, c.refused);
    EXPECT_TRUE(sink.items()[0].span.valid()) << "the diagnostic points at the shader";
    return;
  }
  ASSERT_TRUE(dag) << lang::format_text(sink.items(), *optimized->sources);

  int mismatches = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    ir::RunResult want = ir::interpret(*reference->module, in, params, ctx);
    ASSERT_TRUE(want.ok) << want.error;
    ir::Value got = dag::evaluate(*dag, in, ctx);
    for (int k = 0; k < 3; ++k)
      if (!close(got.f[k], want.results[0].f[k]) && ++mismatches <= 5)
        ADD_FAILURE() << c.file << " seed " << seed << " channel " << k << ": interpreter " << want.results[0].f[k] << ", DAG " << got.f[k];
  }
  EXPECT_EQ(mismatches, 0);

  auto target = partition::load_target("PC5", nullptr);
  ASSERT_TRUE(target);
  lang::DiagnosticList refused;
  auto program = backends::make_program(*dag, *target, refused);
  ASSERT_TRUE(program) << (refused.items().empty() ? "" : refused.items().front().message);
  auto backend = program->backend();
  partition::AlgorithmOptions ao;
  partition::Partition part = partition::rdsh(program->problem(), *backend, ao);
  ASSERT_TRUE(part.valid);
  EXPECT_GE(part.passes.size(), 1u);
  std::vector<std::string> problems = program->check(part, ao.model, optimized->binding);
  EXPECT_TRUE(problems.empty()) << problems.front();
}

INSTANTIATE_TEST_SUITE_P(
    Causes, RealWorldRsl,
    ::testing::Values(Case{"local_functions.sl", "", {}},
                      Case{"arrays.sl", "", {}},
                      Case{"library.sl", "", {}},
                      Case{"volume_fog.sl", "no-fragment-meaning", {}},
                      Case{"imager_background.sl", "no-fragment-meaning", {}},
                      Case{"shadowing_locals.sl", "", {"shadows-global"}},
                      Case{"named_spaces.sl", "", {}},
                      Case{"writes_p_and_n.sl", "", {}},
                      Case{"untyped_triples.sl", "", {}},
                      Case{"channel_expressions.sl", "", {}},
                      Case{"functions_assign_globals.sl", "", {}},
                      Case{"bool_as_number.sl", "", {"bool-as-number"}},
                      Case{"area_lookups.sl", "", {}},
                      Case{"kind_globals.sl", "", {}},
                      Case{"uniform_promoted.sl", "", {"uniform-promoted"}},
                      Case{"contextual_names.sl", "", {}},
                      Case{"ray_traced.sl", "needs-ray-tracing", {}}),
    [](const auto& info) {
      std::string n = info.param.file.substr(0, info.param.file.find('.'));
      return n;
    });

// A light reads its own P (the origin of its space) and the normal of what it lights (Ns); as a
// shader of its own it checks and interprets.
TEST(RealWorldRsl, ALightSeesItsPositionAndTheNormalItLights) {
  auto light = compile("ns_light.sl", false);
  ASSERT_TRUE(light->ok()) << lang::format_text(light->diagnostics.items(), *light->sources);
  ir::EvalContext ctx;
  ir::RunResult r = ir::interpret(*light->module, ir::random_fragment(3), {}, ctx);
  ASSERT_TRUE(r.ok) << r.error;
}

// gather checks (the front end accepts it) and lowering refuses it, at the statement.
TEST(RealWorldRsl, GatherChecksAndLoweringRefusesItAtTheStatement) {
  driver::ProgramOptions front;
  front.lower = false;
  auto checked = driver::compile_file(data("gather.sl"), front);
  EXPECT_TRUE(checked->ok()) << lang::format_text(checked->diagnostics.items(), *checked->sources);
  auto lowered = compile("gather.sl", true);
  ASSERT_EQ(lowered->diagnostics.items().size(), 1u);
  EXPECT_EQ(lowered->diagnostics.items()[0].code, "needs-ray-tracing");
  EXPECT_EQ(lowered->diagnostics.items()[0].span.line, 5);
}

// A coordinate system the light setup does not define is reported when binding, naming those it does.
TEST(RealWorldRsl, AnUnknownNamedSpaceIsReportedAtBindingWithTheNamesDefined) {
  auto prog = compile("named_spaces.sl", true);
  ASSERT_TRUE(prog->ok());
  ir::Binding binding = prog->binding;
  binding.spaces.erase("paint");
  binding.spaces["brush"] = ir::identity_matrix();
  lang::DiagnosticList sink;
  EXPECT_FALSE(dag::flatten(*prog->module, binding, sink));
  ASSERT_EQ(sink.items().size(), 1u);
  EXPECT_EQ(sink.items()[0].code, "unknown-space");
  EXPECT_NE(sink.items()[0].message.find("\"paint\""), std::string::npos) << sink.items()[0].message;
  EXPECT_NE(sink.items()[0].message.find("brush"), std::string::npos) << sink.items()[0].message;
  EXPECT_EQ(sink.items()[0].span.line, 4) << "at the transform that names it";
}

}  // namespace
}  // namespace passlab
