// SPDX-License-Identifier: GPL-3.0-or-later
// The combiner simulator against the reference interpreter, and multipass on GeForce1 and
// GeForce3 for every sample: each shader is lowered and partitioned by RDS; where the hardware can
// run it, every pass compiles and the passes, each restoring what earlier ones wrote, reproduce
// the reference on 1,000 random fragments and 1,000 fragments of the sample's scene wherever the
// registers' [-1, 1] changes nothing (there the hardware clamps by design), exactly in float
// arithmetic and within 16/255 (2/255 on average) in the hardware's precision; where it cannot, the failure names an
// operation, a constant or a resource at a place in the source.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/combiners/backend.h"
#include "backends/combiners/lower.h"
#include "core/partition/algorithms.h"
#include "core/partition/validate.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/nvparse_check.h"
#include "backends/combiners/pass_shader.h"
#include "backends/combiners/tables.h"
#include "core/sim/texture.h"
#include "tests/backends/combiners/support.h"

namespace passlab::combiners {
namespace {

struct Sample {
  std::string shader;  // relative to samples/
  std::string scene;   // relative to samples/
};

std::vector<Sample> samples() {
  std::vector<Sample> out;
  for (const char* dir : {"shaders", "combiners"})
    for (const auto& e : std::filesystem::directory_iterator(test::sample_path(dir)))
      if (e.path().extension() == ".sl") {
        const std::string stem = e.path().stem().string();
        out.push_back({std::string(dir) + "/" + stem + ".sl", "scenes/" + stem + ".json"});
      }
  std::sort(out.begin(), out.end(), [](const Sample& a, const Sample& b) { return a.shader < b.shader; });
  return out;
}

struct Case {
  Sample sample;
  std::string machine;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  std::string s = i.param.sample.shader + "_" + i.param.machine;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Sample& s : samples())
    for (const char* m : {"geforce1", "geforce3"}) out.push_back({s, m});
  return out;
}

class Multipass : public ::testing::TestWithParam<Case> {};

TEST_P(Multipass, PassesReproduceTheReferenceOrTheFailureIsLocated) {
  const Case& c = GetParam();
  test::CombinerShader s = test::combiner_sample(c.sample.shader);
  ASSERT_TRUE(s.dag);
  const Machine& m = test::machine(c.machine);
  const dag::FragmentDag d = lower(*s.dag, m.texture_units);  // as the target's program lowers it
  const std::vector<Interval> ranges = intervals(d);
  lang::Diagnostics problems;
  const auto target = partition::load_target(c.machine, &problems);
  ASSERT_TRUE(target) << problems.text();
  const partition::Problem problem = make_problem(d);
  CombinerBackend backend(d, *target, m);
  partition::AlgorithmOptions ao;
  const partition::Partition part = partition::rds(problem, backend, ao);
  if (!part.valid) {
    // Every pass that does not fit says why, at a node of the source, and never as the compiler's own error.
    int failing = 0;
    for (const partition::Pass& p : part.passes) {
      if (p.failure.empty()) continue;
      ++failing;
      EXPECT_EQ(p.failure.find("internal"), std::string::npos) << c.sample.shader << ": " << p.failure;
      const CompileResult r = compile_pass(pass_spec(d, ranges, p), m);
      ASSERT_FALSE(r.ok);
      ASSERT_TRUE(r.failure.has_node) << p.failure;
      EXPECT_FALSE(d.node(r.failure.node).spans.empty()) << p.failure;
    }
    EXPECT_GT(failing, 0);
    for (const partition::Pass& p : part.passes)
      if (!p.failure.empty()) {
        std::printf("%s does not run on %s: %s\n", c.sample.shader.c_str(), c.machine.c_str(), p.failure.c_str());
        break;
      }
    return;  // what the hardware cannot do is reported, located: that is the expected outcome
  }
  EXPECT_TRUE(partition::validate(problem, backend, part, {}).empty());
  const CompiledPartition cp = compile_partition(d, ranges, m, part);
  ASSERT_TRUE(cp.ok) << cp.failure;
  for (const CompileResult& r : cp.passes) {
    EXPECT_LE(static_cast<int>(r.program.stages.size()), m.general_stages);
    EXPECT_LE(static_cast<int>(r.program.units.size()), m.texture_units);
  }
  // Every program emitted loads in nvparse as written.
  NvparseOptions no;
  no.general_combiners = m.general_stages;
  no.per_stage_constants = m.per_stage_constants;
  no.texture_units = m.texture_units;
  for (std::size_t i = 0; i < cp.passes.size(); ++i)
    for (const ListingFile& f : listing_files(cp.passes[i].program, m, {&d, static_cast<int>(i), static_cast<int>(cp.passes.size())})) {
      const std::vector<NvparseProblem> problems = check_nvparse(f.text, no);
      EXPECT_TRUE(problems.empty()) << c.sample.shader << " pass " << i + 1 << " (" << f.extension << "):\n" << to_text(problems) << f.text;
    }

  // What function tables compute without the registers' clamp (tables.h).
  const std::vector<char> exact = unclamped_nodes(d, cp);
  std::vector<ir::FragmentInputs> fragments = test::scene_fragments(c.sample.scene, 1000, 7);
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) fragments.push_back(ir::random_fragment(seed));
  // The shaders written for the combiners keep every error within 16/255; the RenderMan samples'
  // hard edges (toon's step() and its 0.04-wide smoothsteps, read through 8-bit saved values)
  // move by up to a step of the value they threshold, so there a few fragments near an edge flip.
  const bool written_for_combiners = c.sample.shader.rfind("combiners/", 0) == 0;
  int in_range = 0, every_step_count = 0, exact_bad = 0, precise_bad = 0, over = 0;
  float worst = 0;
  double sum = 0;
  for (std::size_t i = 0; i < fragments.size(); ++i) {
    const std::vector<ir::Value> all = dag::evaluate_all(d, fragments[i], s.ctx);
    if (!test::clamping_changes_nothing(d, fragments[i], s.ctx, all, &exact)) continue;
    ++in_range;
    // Exact in float where no step leaves the range; where only the colour is unchanged by the
    // clamps, the precision statistics below hold.
    const bool every_step = test::clamping_changes_nothing(d, fragments[i], s.ctx, all, &exact, true);
    every_step_count += every_step;
    test::ReferenceSource src(d, fragments[i], s.ctx);
    const Rgba got = run_passes(cp, part, m, src);
    SimOptions hw;
    hw.hardware_precision = true;
    const Rgba low = run_passes(cp, part, m, src, hw);
    for (int k = 0; k < 4; ++k) {
      const float want = std::clamp(all[d.root].f[static_cast<std::size_t>(k)], 0.0f, 1.0f);
      const float e = std::fabs(got[static_cast<std::size_t>(k)] - want), p = std::fabs(low[static_cast<std::size_t>(k)] - want);
      worst = std::max(worst, p);
      sum += p;
      if (every_step && e > 1e-4f && ++exact_bad <= 3) ADD_FAILURE() << c.sample.shader << " fragment " << i << " channel " << k << ": " << got[static_cast<std::size_t>(k)] << ", reference " << want;
      if (p > 16.0f / 255) ++over;
      if (p > 16.0f / 255 && written_for_combiners && ++precise_bad <= 3)
        ADD_FAILURE() << c.sample.shader << " fragment " << i << " channel " << k << " in the hardware's precision: " << low[static_cast<std::size_t>(k)] << ", reference " << want;
    }
  }
  // In the hardware's precision (8-bit inputs and intermediates, 9-bit registers) an error stays
  // within 16/255 (a tenth power by squaring magnifies a texel's rounding ten times) and is
  // 2/255 on average.
  if (in_range) {
    EXPECT_LE(sum / (4.0 * in_range), 2.0 / 255) << c.sample.shader;
    EXPECT_LE(over, in_range * 4 / 100) << c.sample.shader << ": channels over 16/255";  // at most 1% of them
  }
  std::printf("%s on %s: %d fragments where clamping changes nothing (%d where it changes no step); hardware precision: worst %.1f/255, "
              "mean %.2f/255, %d channels over 16/255\n",
              c.sample.shader.c_str(), c.machine.c_str(), in_range, every_step_count, worst * 255, in_range ? sum / (4.0 * in_range) * 255 : 0.0, over);
  // The shaders written for the combiners keep their values in range on their own scenes.
  if (written_for_combiners) {
    EXPECT_GE(every_step_count, 500) << c.sample.shader;
  }
  RecordProperty("in_range", in_range);
  RecordProperty("worst_hardware_error", static_cast<int>(worst * 255 + 0.5f));
}

INSTANTIATE_TEST_SUITE_P(Samples, Multipass, ::testing::ValuesIn(cases()), name_of);

TEST(Decompose, ASelectOfFourValuesIsSplitSoGeForce1CanRunIt) {
  // a b >= c e ? a c : b e reads four computed values: whichever pass computes the select restores
  // some through texture units, and GeForce1 has two. Decomposed into s = (a b >= c e ? 1 : 0) and
  // a c s + b e (1 - s), every operation reads two, and RDS finds passes.
  const std::string src = "surface t() { float a = float texture(\"a\"[3], s, t), b = float texture(\"b\"[3], s, t);"
                          "float c = float texture(\"c\"[3], s, t), e = float texture(\"e\"[3], s, t);"
                          "Ci = color(a * b >= c * e ? a * c : b * e); Oi = 1; }";
  test::CombinerShader s = test::combiner_shader(src);
  ASSERT_TRUE(s.dag);
  const Machine& m = test::machine("geforce1");
  const auto target = partition::load_target("geforce1", nullptr);
  {
    const dag::FragmentDag whole = lower(*s.dag);  // not decomposed
    CombinerBackend backend(whole, *target, m);
    EXPECT_FALSE(partition::rds(make_problem(whole), backend, {}).valid);
  }
  const auto c = test::combiner_partition(src, "geforce1");
  ASSERT_TRUE(c && c->part.valid);
  ASSERT_TRUE(c->compiled.ok) << c->compiled.failure;
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const ir::FragmentInputs in = ir::random_fragment(seed);
    const std::vector<ir::Value> all = dag::evaluate_all(c->lowered, in, c->shader.ctx);
    if (!test::clamping_changes_nothing(c->lowered, in, c->shader.ctx, all, nullptr, true)) continue;
    ++compared;
    test::ReferenceSource ref(c->lowered, in, c->shader.ctx);
    const Rgba got = run_passes(c->compiled, c->part, m, ref);
    const std::vector<ir::Value> original = dag::evaluate_all(*s.dag, in, s.ctx);
    EXPECT_NEAR(got[0], std::clamp(original[s.dag->root].f[0], 0.0f, 1.0f), 1e-4f) << "seed " << seed;
  }
  EXPECT_GT(compared, 100);
}

TEST(Simulator, APlainLookupIsMipMappedByItsFootprint) {
  // A render gives each 2D lookup of interpolated coordinates a derivative interpolant (s, t, s, t);
  // its screen-space derivatives choose the mip levels, as GL's trilinear filtering does. A
  // footprint of 16 texels a pixel reads level 4, not level 0.
  const auto c = test::combiner_partition("surface t(string tex = \"pindecals\") { Ci = color texture(tex, s, t); Oi = 1; }", "geforce3");
  ASSERT_TRUE(c && c->part.valid && c->compiled.ok);
  sim::TextureSet textures;
  lang::Diagnostics problems;
  ASSERT_TRUE(textures.load({{"pindecals", test::sample_path("textures/pindecals.png")}}, &problems)) << problems.text();
  ir::EvalContext ctx = c->shader.ctx;
  ctx.textures = &textures;
  const Machine& m = test::machine("geforce3");
  const PassShader shader(c->lowered, c->part, c->compiled, m, ctx, {});
  const int k = shader.interpolants();
  ASSERT_GE(k, 1);
  EXPECT_TRUE(shader.screen_derivatives(k - 1));
  EXPECT_FALSE(shader.screen_derivatives(0));
  EXPECT_EQ(shader.interpolant_mask(0, k - 1), 0xFu);
  const int size = textures.image_size("pindecals")[0];
  ASSERT_GT(size, 64);
  const float texel = 1.0f / static_cast<float>(size);
  const float grad[4] = {16 * texel, 0, 0, 16 * texel};  // ds/dx, dt/dx, ds/dy, dt/dy
  // A place where level 4 differs from level 0.
  float ps = 0, pt = 0, apart = 0;
  for (int i = 1; i < 20 && apart < 1e-2f; ++i)
    for (int j = 1; j < 20 && apart < 1e-2f; ++j) {
      ps = static_cast<float>(i) / 20, pt = static_cast<float>(j) / 20;
      const float st[2] = {ps, pt};
      const std::array<float, 4> a = textures.sample_grad("pindecals", ps, pt, grad), b = textures.sample("pindecals", 2, st);
      apart = 0;
      for (std::size_t comp = 0; comp < 3; ++comp) apart = std::max(apart, std::fabs(a[comp] - b[comp]));
    }
  ASSERT_GE(apart, 1e-2f);
  ir::FragmentInputs in = ir::random_fragment(3);
  in[lang::Global::s] = ir::Value::scalar(ps);
  in[lang::Global::t] = ir::Value::scalar(pt);
  std::vector<float> corner(static_cast<std::size_t>(k) * 4);
  shader.corner(in, corner.data());
  EXPECT_FLOAT_EQ(corner[static_cast<std::size_t>(k - 1) * 4 + 0], ps);
  EXPECT_FLOAT_EQ(corner[static_cast<std::size_t>(k - 1) * 4 + 3], pt);
  constexpr std::size_t B = sim::kBatch;
  std::vector<float> lanes(static_cast<std::size_t>(k) * 4 * B, 0.0f);
  std::vector<const float*> ptr;
  for (int i = 0; i < k; ++i) {
    for (std::size_t comp = 0; comp < 4; ++comp) lanes[(static_cast<std::size_t>(i) * 4 + comp) * B] = corner[static_cast<std::size_t>(i) * 4 + comp];
    ptr.push_back(lanes.data() + static_cast<std::size_t>(i) * 4 * B);
  }
  for (std::size_t comp = 0; comp < 4; ++comp) lanes[(static_cast<std::size_t>(k - 1) * 4 + comp) * B] = grad[comp];
  std::vector<float> out(4 * B), scratch;
  shader.run(0, 1, ptr.data(), nullptr, out.data(), scratch);
  const std::array<float, 4> want = textures.sample_grad("pindecals", ps, pt, grad);
  for (std::size_t comp = 0; comp < 3; ++comp) EXPECT_NEAR(out[comp * B], want[comp], 1e-5f) << comp;
}

}  // namespace
}  // namespace passlab::combiners

namespace passlab::combiners {
namespace {

TEST(Simulator, ColoursAreClampedAtTheVerticesThenInterpolated) {
  // GL clamps a vertex's primary and secondary colours to [0, 1] before it interpolates them: a
  // signed colour interpolant is biased to (x + 1)/2 and clamped at each corner. Between corners
  // of 2s - 1/2 at s = 0 and s = 1 (biased 0.25 and 1.25, clamped to 1), the middle reads
  // (0.25 + 1)/2 = 0.625, expanded 0.25; clamping after interpolating would give 0.5.
  const auto c = test::combiner_partition("surface t() { Ci = color(2 * s - .5); Oi = 1; }", "geforce3");
  ASSERT_TRUE(c && c->part.valid);
  ASSERT_EQ(c->part.passes.size(), 1u);
  ASSERT_TRUE(c->compiled.ok) << c->compiled.failure;
  const Machine& m = test::machine("geforce3");
  const dag::FragmentDag& d = c->lowered;
  const partition::Partition& part = c->part;
  const CompiledPartition& cp = c->compiled;
  const test::CombinerShader& s = c->shader;
  bool colour = false;
  for (const PassInput& in : cp.passes[0].program.inputs)
    colour = colour || (in.cls == InputClass::Interpolant && in.reg >= 0 && in.biased && m.registers[static_cast<std::size_t>(in.reg)].texture_unit < 0);
  ASSERT_TRUE(colour) << "2s - 1/2 should ride in a colour register, biased";
  const PassShader shader(d, part, cp, m, s.ctx, {});
  ir::FragmentInputs a = ir::random_fragment(1), b = a;
  a[lang::Global::s] = ir::Value::scalar(0.0f);
  b[lang::Global::s] = ir::Value::scalar(1.0f);
  const std::size_t k = static_cast<std::size_t>(shader.interpolants());
  std::vector<float> ca(k * 4), cb(k * 4);
  shader.corner(a, ca.data());
  shader.corner(b, cb.data());
  constexpr std::size_t B = sim::kBatch;
  std::vector<float> in(k * 4 * B, 0.0f);
  std::vector<const float*> ptr;
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t c = 0; c < 4; ++c) in[(i * 4 + c) * B] = 0.5f * (ca[i * 4 + c] + cb[i * 4 + c]);  // the middle of the edge
    ptr.push_back(in.data() + i * 4 * B);
  }
  std::vector<float> out(4 * B), scratch;
  shader.run(0, 1, ptr.data(), nullptr, out.data(), scratch);
  EXPECT_NEAR(out[0], 0.25f, 1e-5f);
  EXPECT_NEAR(out[B], 0.25f, 1e-5f);
}

}  // namespace
}  // namespace passlab::combiners
