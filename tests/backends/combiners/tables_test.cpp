// SPDX-License-Identifier: GPL-3.0-or-later
// Function tables (tables.h): what the combiners cannot compute, looked up in generated textures.
// Each shader here keeps its values in the registers' range, so the passes RDS makes must give
// the reference's colour exactly in float arithmetic and within a few 1/255 in the hardware's
// precision (8-bit texels, tables indexed by 8-bit saved values) on most of 1,000 random
// fragments; and where a table cannot serve, the compiler says why.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/combiners/backend.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/nvparse_check.h"
#include "backends/combiners/pass_shader.h"
#include "backends/combiners/tables.h"
#include "core/partition/algorithms.h"
#include "tests/backends/combiners/support.h"
#include "tests/support/batches.h"

namespace passlab::combiners {
namespace {

using ::testing::HasSubstr;

struct Outcome {
  bool valid = false;
  std::string failure;          // why each pass that does not fit does not, a line each
  std::vector<TextureUnit> units;  // every pass's, in order
  int passes = 0, checked = 0, exact_bad = 0;
  float worst = 0;              // hardware precision, over the channels
  double mean = 0;
  std::string listing;          // every pass's programs
};

Outcome run(const std::string& source, const std::string& machine) {
  Outcome out;
  const auto c = test::combiner_partition(source, machine);
  if (!c) return out;
  const test::CombinerShader& s = c->shader;
  const dag::FragmentDag& d = c->lowered;
  const Machine& m = test::machine(machine);
  const partition::Partition& part = c->part;
  out.valid = part.valid;
  out.passes = static_cast<int>(part.passes.size());
  for (const partition::Pass& p : part.passes)
    if (!p.failure.empty()) out.failure += p.failure + "\n";
  if (!part.valid) return out;
  const CompiledPartition& cp = c->compiled;
  EXPECT_TRUE(cp.ok) << cp.failure;
  if (!cp.ok) return out;
  const std::vector<char> exact = unclamped_nodes(d, cp);
  NvparseOptions no;
  no.general_combiners = m.general_stages;
  no.per_stage_constants = m.per_stage_constants;
  no.texture_units = m.texture_units;
  for (std::size_t i = 0; i < cp.passes.size(); ++i) {
    const Program& p = cp.passes[i].program;
    out.units.insert(out.units.end(), p.units.begin(), p.units.end());
    for (const ListingFile& f : listing_files(p, m, {&d, static_cast<int>(i), static_cast<int>(cp.passes.size())})) {
      out.listing += f.text;
      const std::vector<NvparseProblem> problems = check_nvparse(f.text, no);
      EXPECT_TRUE(problems.empty()) << to_text(problems) << f.text;
    }
  }
  double sum = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const ir::FragmentInputs in = ir::random_fragment(seed);
    const std::vector<ir::Value> all = dag::evaluate_all(d, in, s.ctx);
    if (!test::clamping_changes_nothing(d, in, s.ctx, all, &exact)) continue;
    ++out.checked;
    test::ReferenceSource src(d, in, s.ctx);
    const Rgba got = run_passes(cp, part, m, src);
    SimOptions hw;
    hw.hardware_precision = true;
    const Rgba low = run_passes(cp, part, m, src, hw);
    for (std::size_t k = 0; k < 4; ++k) {
      const float want = std::clamp(all[d.root].f[k], 0.0f, 1.0f);
      if (std::fabs(got[k] - want) > 1e-4f && ++out.exact_bad <= 3)
        ADD_FAILURE() << "fragment " << seed << " channel " << k << ": " << got[k] << ", reference " << want;
      out.worst = std::max(out.worst, std::fabs(low[k] - want));
      sum += std::fabs(low[k] - want);
    }
  }
  out.mean = out.checked ? sum / (4.0 * out.checked) : 0.0;
  return out;
}

const TextureUnit* find(const Outcome& o, UnitOp op) {
  for (const TextureUnit& u : o.units)
    if (u.op == op) return &u;
  return nullptr;
}

TEST(Tables, ASineOfASavedValueIsADependentLookup) {
  // sin(2 pi x) of a dot product: one pass saves x, the next looks the sine up at it (x's texel
  // read as (alpha, red)), 2 pi x never clamped.
  const Outcome o = run("surface t() { float x = normalize(N) . normalize(I); Ci = Cs * (.5 + .5 * sin(6.2832 * x)); Oi = 1; }", "geforce3");
  ASSERT_TRUE(o.valid) << o.failure;
  EXPECT_EQ(o.passes, 2);
  const TextureUnit* u = find(o, UnitOp::DependentAR);
  ASSERT_NE(u, nullptr);
  ASSERT_TRUE(u->table);
  EXPECT_EQ(u->table->text, "sin(6.2832 * x)");
  EXPECT_EQ(u->table->index, TableIndex::Dependent);
  EXPECT_EQ(u->table->argument_encoding, Encoding::Biased);
  EXPECT_EQ(u->table->encoding, Encoding::Biased);
  EXPECT_THAT(o.listing, HasSubstr("dependent_ar(tex0);"));
  EXPECT_GE(o.checked, 900);
  EXPECT_EQ(o.exact_bad, 0);
  // x is saved in 8 bits as (x + 1) / 2 after 8-bit cube maps and 9-bit registers: an error of
  // a step or two in x moves sin(2 pi x) by 2 pi times that, halved by the .5 and scaled by Cs.
  EXPECT_LE(o.worst, 12.0f / 255);
  EXPECT_LE(o.mean, 2.0 / 255);
}

TEST(Tables, ANormalizeOfASavedVectorIsACubeMapOfThreeDotProducts) {
  // H = normalize(L + V) of two unit vectors: the sum (scaled by 1/2 into the registers' range,
  // which leaves its direction) is saved, then three texture-shader dot products with the
  // constant coordinates (1,0,0), (0,1,0), (0,0,1) index the normalisation cube map.
  const Outcome o = run(
      "surface t() { vector H = normalize(normalize(N) - normalize(I)); Ci = color(.5 + .5 * xcomp(H), .5 + .5 * ycomp(H), .5 + .5 * zcomp(H)); "
      "Oi = 1; }",
      "geforce3");
  ASSERT_TRUE(o.valid) << o.failure;
  const TextureUnit* u = find(o, UnitOp::DotProductCubeMap);
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(u->expand_previous);
  EXPECT_THAT(o.listing, HasSubstr("dot_product_cube_map_1of3(expand(tex0));"));
  EXPECT_THAT(o.listing, HasSubstr("dot_product_cube_map_3of3(expand(tex0));"));
  EXPECT_GE(o.checked, 900);
  EXPECT_EQ(o.exact_bad, 0);
  EXPECT_LE(o.worst, 6.0f / 255);
  // GeForce1 has no texture shaders: it says so rather than compute a wrong direction.
  const Outcome g1 = run(
      "surface t() { vector H = normalize(normalize(N) - normalize(I)); Ci = color(.5 + .5 * xcomp(H), .5 + .5 * ycomp(H), .5 + .5 * zcomp(H)); "
      "Oi = 1; }",
      "geforce1");
  EXPECT_FALSE(g1.valid);
  EXPECT_THAT(g1.failure, HasSubstr("no texture shaders"));
}

TEST(Tables, APassThatSavesANormalisedVectorSavesItsTexelAsItIs) {
  // The cube map's texel already holds (n + 1)/2, the encoding a signed vector is saved in: the
  // pass that saves H is the final combiner alone, no general stage re-encoding it.
  const auto c = test::combiner_partition(
      "surface t() { vector H = normalize(normalize(N) - normalize(I)); Ci = color(pow(max(0, H . normalize(N)), 7.3)); Oi = 1; }", "geforce3");
  ASSERT_TRUE(c && c->part.valid);
  ASSERT_TRUE(c->compiled.ok) << c->compiled.failure;
  bool saved = false;
  for (std::size_t p = 0; p < c->part.passes.size(); ++p) {
    const Program& prog = c->compiled.passes[p].program;
    const dag::Node& root = c->lowered.node(c->part.passes[p].root);
    if (!prog.writes_intermediate || root.op != ir::Op::Builtin || root.aux != static_cast<std::uint32_t>(lang::Builtin::Normalize)) continue;
    saved = true;
    EXPECT_TRUE(prog.stages.empty()) << "pass " << p + 1 << " has " << prog.stages.size() << " stages";
    EXPECT_EQ(prog.encoding, Encoding::Biased);
  }
  EXPECT_TRUE(saved);
}

TEST(Tables, APeriodicFunctionOfAnInterpolantIsATableOnBothCards) {
  // smoothstep of mod(4 s, 1): one table of the composition, looked up at the interpolated 4 s
  // with GL_REPEAT over one period; GeForce1 can do it (no dependent read).
  for (const char* machine : {"geforce1", "geforce3"}) {
    const Outcome o = run("surface t() { Ci = Cs * smoothstep(.2, .8, mod(s * 4, 1)); Oi = 1; }", machine);
    ASSERT_TRUE(o.valid) << machine << ": " << o.failure;
    EXPECT_EQ(o.passes, 1) << machine;
    const TextureUnit* u = find(o, UnitOp::Table1D);
    ASSERT_NE(u, nullptr) << machine;
    const FunctionTable& t = *u->table;
    EXPECT_EQ(t.text, "smoothstep(0.2, 0.8, mod(x, 1))");
    EXPECT_TRUE(t.periodic);
    EXPECT_FLOAT_EQ(t.domain.hi - t.domain.lo, 1.0f);
    EXPECT_THAT(o.listing, HasSubstr("texture matrix s ="));
    EXPECT_GE(o.checked, 900) << machine;
    EXPECT_EQ(o.exact_bad, 0) << machine;
    // The table's own error at its 256 texels over a period, within a jump's texel.
    EXPECT_LE(o.mean, 1.0 / 255) << machine;
    EXPECT_LE(t.max_error, 4.0f / 255) << describe(t);
  }
}

TEST(Tables, AFunctionOfAFunctionIsOneTable) {
  // spline(sqrt(a)) of a texel: one dependent lookup of the composition, a colour table.
  const Outcome o = run(
      "surface t() { float a = float texture(\"marks\", s, t); Ci = color spline(sqrt(a), color(1,0,0), color(1,0,0), color(0,1,0), "
      "color(0,0,1), color(0,0,1)); Oi = 1; }",
      "geforce3");
  ASSERT_TRUE(o.valid) << o.failure;
  int tables = 0;
  for (const TextureUnit& u : o.units) tables += u.table != nullptr;
  EXPECT_EQ(tables, 1);
  const TextureUnit* u = find(o, UnitOp::DependentAR);
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(u->table->triple);
  EXPECT_THAT(u->table->text, HasSubstr("spline(sqrt(x)"));
  // A float lookup is its red: dependent_ar reads it as t, so the table is a column.
  EXPECT_EQ(u->table->channel, 0);
  EXPECT_EQ(table_layout(*u->table), "1x256");
  EXPECT_THAT(describe(*u->table), HasSubstr("the previous unit's r: 1x256"));
  EXPECT_GE(o.checked, 900);
  EXPECT_EQ(o.exact_bad, 0);
  // In the hardware's precision the texel itself has 8 bits: near 0, where sqrt is steepest, half
  // a step of it moves sqrt by up to sqrt(0.5/255) = 11/255. The table adds only its rounding.
  EXPECT_LE(o.worst, 12.0f / 255);
  EXPECT_LE(o.mean, 1.0 / 255);
}

TEST(Tables, TheFilterAndTextureMatrixPutTheTexelsWhereTheFunctionIs) {
  // A smooth function of a bounded interpolant: linear filtering, the domain's ends on the end
  // texels' centres. A jump (floor) over a period: nearest, each texel a cell of the domain.
  const Outcome smooth = run("surface t() { float x = clamp(s, 0, 1); Ci = Cs * sqrt(x); Oi = 1; }", "geforce1");
  ASSERT_TRUE(smooth.valid) << smooth.failure;
  const TextureUnit* u = find(smooth, UnitOp::Table1D);
  ASSERT_NE(u, nullptr);
  const FunctionTable& t = *u->table;
  EXPECT_FALSE(t.periodic);
  EXPECT_EQ(t.domain, (Interval{0, 1}));
  EXPECT_TRUE(t.linear);
  const auto [scale, offset] = texture_matrix(t);
  EXPECT_FLOAT_EQ(scale * 0 + offset, 0.5f / 256);
  EXPECT_FLOAT_EQ(scale * 1 + offset, 1 - 0.5f / 256);
  for (int i = 0; i <= 16; ++i) {  // at every point, within the table's measured error
    const float x = static_cast<float>(i) / 16;
    const float got = table_lookup(t, x, true)[0], want = std::sqrt(x);
    EXPECT_LE(std::fabs(got - want), t.max_error + 1e-6f) << x;
  }
  EXPECT_EQ(table_lookup(t, 0.25f, false)[0], 0.5f);  // float: the function itself

  const Outcome jump = run("surface t() { float f = s * 4 - floor(s * 4); Ci = Cs * f; Oi = 1; }", "geforce1");
  ASSERT_TRUE(jump.valid) << jump.failure;
  const TextureUnit* j = find(jump, UnitOp::Table1D);
  ASSERT_NE(j, nullptr);
  EXPECT_TRUE(j->table->periodic);
  EXPECT_FALSE(j->table->linear);
  EXPECT_LE(j->table->max_error, 1.0f / 255);  // half a texel of a unit slope, no jump error
}

TEST(Tables, TheRenderersShaderGivesEveryUnitWhatItReads) {
  // The renderer's batches carry only the interpolants a pass reads: a table's coordinate, a
  // projective lookup's q. Through them the passes compute what the simulator computes per fragment.
  const std::string source =
      "surface t() { float q = 2 + s; color slide = color texture(\"slide\", t / q, (1 - s) / q);"
      " float x = normalize(N) . normalize(I); vector H = normalize(normalize(N) - normalize(I));"
      " Ci = slide * smoothstep(.2, .8, mod(s * 4, 1)) * (.5 + .5 * sin(6.2832 * x)) + .2 * color(.5 + .5 * xcomp(H), .5, .5); Oi = 1; }";
  const auto c = test::combiner_partition(source, "geforce3");
  ASSERT_TRUE(c && c->part.valid);
  ASSERT_TRUE(c->compiled.ok) << c->compiled.failure;
  const Machine& m = test::machine("geforce3");
  const dag::FragmentDag& d = c->lowered;
  const partition::Partition& part = c->part;
  const CompiledPartition& cp = c->compiled;
  const test::CombinerShader& s = c->shader;
  bool projective = false, coordinate = false, dependent = false, cube = false;
  for (const CompileResult& r : cp.passes)
    for (const TextureUnit& u : r.program.units) {
      projective = projective || u.projective;
      coordinate = coordinate || u.op == UnitOp::Table1D;
      dependent = dependent || u.op == UnitOp::DependentAR;
      cube = cube || u.op == UnitOp::DotProductCubeMap;
    }
  EXPECT_TRUE(projective && coordinate && dependent && cube);
  std::vector<ir::FragmentInputs> frags;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) frags.push_back(ir::random_fragment(seed));
  const PassShader shader(d, part, cp, m, s.ctx, {});
  const std::vector<std::array<float, 4>> got = test::run_batches(shader, frags);
  for (std::size_t i = 0; i < frags.size(); ++i) {
    test::ReferenceSource src(d, frags[i], s.ctx);
    const Rgba want = run_passes(cp, part, m, src);
    for (std::size_t k = 0; k < 4; ++k) ASSERT_NEAR(got[i][k], want[k], 1e-5f) << "fragment " << i + 1 << " channel " << k;
  }
}

TEST(Tables, AStepATableAndACombinerBothReadIsClampedForTheCombiner) {
  // x = 3 t is folded into sin(x)'s table (never clamped there) and read by a combiner too
  // (clamped in its register): where 3 t > 1 the colour is not the reference's, so the check
  // must not hold the passes to it, and the compiler warns of that clamp, not of the table's.
  const std::string source = "surface t() { float x = 3 * float texture(\"marks\", s, t); Ci = color(.5 + .5 * sin(x), .25 * x, 0); Oi = 1; }";
  const Outcome o = run(source, "geforce3");
  ASSERT_TRUE(o.valid) << o.failure;
  EXPECT_NE(find(o, UnitOp::DependentAR), nullptr);
  EXPECT_EQ(o.exact_bad, 0);
  EXPECT_GE(o.checked, 100);
  test::CombinerShader s = test::combiner_shader(source);
  ASSERT_TRUE(s.dag);
  const dag::FragmentDag d = lower(*s.dag);
  const std::vector<Interval> ranges = intervals(d);
  const CompileResult one = compile_single(d, ranges, test::machine("geforce3"), {});
  ASSERT_TRUE(one.ok) << one.failure.message;
  ASSERT_EQ(one.clamped.size(), 1u);  // 3 t, which the combiner computes
  EXPECT_EQ(d.node(one.clamped[0]).op, ir::Op::Mul);
  // Only inside the table, 3 t is never clamped: no warning.
  test::CombinerShader s2 = test::combiner_shader("surface t() { Ci = .5 + .5 * sin(3 * float texture(\"marks\", s, t)); Oi = 1; }");
  ASSERT_TRUE(s2.dag);
  const dag::FragmentDag d2 = lower(*s2.dag);
  const CompileResult two = compile_single(d2, intervals(d2), test::machine("geforce3"), {});
  ASSERT_TRUE(two.ok) << two.failure.message;
  EXPECT_TRUE(two.clamped.empty());
}

TEST(Tables, WhereATableCannotServeTheCompilerSaysWhy) {
  // GeForce1: no dependent reads.
  const Outcome g1 = run("surface t() { float x = normalize(N) . normalize(I); Ci = Cs * (.5 + .5 * sin(x)); Oi = 1; }", "geforce1");
  EXPECT_FALSE(g1.valid);
  EXPECT_THAT(g1.failure, HasSubstr("dependent texture read"));
  // A function of an interpolant that may take any value and repeats nothing.
  const Outcome unbounded = run("surface t() { Ci = Cs * (floor(s * 4) / 4); Oi = 1; }", "geforce3");
  EXPECT_FALSE(unbounded.valid);
  EXPECT_THAT(unbounded.failure, HasSubstr("may take any value"));
}

}  // namespace
}  // namespace passlab::combiners
