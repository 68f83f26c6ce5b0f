// SPDX-License-Identifier: GPL-3.0-or-later
// The conformance tester: a fixed-seed batch of generated programs and transformed samples agree
// with the reference interpreter on every backend, the reduced failures it found stay fixed, and
// the machinery itself (generator, oracle, transformations, reducer) does what it says.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/driver/program.h"
#include "core/sim/render.h"
#include "core/sim/scene.h"
#include "session/conform/generator.h"
#include "session/conform/oracle.h"
#include "session/conform/reference_shader.h"
#include "session/conform/reducer.h"
#include "session/conform/syntax.h"
#include "session/conform/transform.h"

namespace passlab::conform {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string failures(const Report& r) {
  std::string out;
  for (const Check& c : r.checks)
    if (c.outcome == Outcome::Failed) out += "  " + c.backend + " (" + c.kind + "): " + c.detail + "\n";
  return out;
}

const Oracle& oracle() {
  static const Oracle o{OracleOptions{}};
  return o;
}

// ---- the fixed-seed batch (scripts/conform.sh runs the long one) -----------------------------

class Batch : public testing::TestWithParam<std::pair<Family, std::uint64_t>> {};

TEST_P(Batch, GeneratedProgramsAgreeWithTheReferenceOnEveryBackend) {
  ASSERT_TRUE(oracle().ok()) << oracle().error();
  const auto [family, first] = GetParam();
  for (std::uint64_t seed = first; seed < first + 10; ++seed) {
    GeneratorOptions g;
    g.seed = seed;
    g.family = family;
    const GeneratedProgram p = generate(g);
    Report r = oracle().check(p.name + ".sl", p.source);
    expect_acceptance(r, family);
    EXPECT_TRUE(r.front_end_ok || r.recursion) << p.name << ": the front end rejects a generated program\n" << r.front_end << p.source;
    EXPECT_FALSE(r.failed()) << p.name << " (passlab-cli conform --generate 1 --seed " << seed << " --family " << to_string(family)
                             << " --reduce)\n" << failures(r);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, Batch,
                         testing::Values(std::pair{Family::Fragment, 1ULL}, std::pair{Family::Fragment, 11ULL},
                                         std::pair{Family::Combiners, 1ULL}, std::pair{Family::Combiners, 11ULL},
                                         std::pair{Family::Rpu, 1ULL}, std::pair{Family::Rpu, 11ULL}),
                         [](const auto& info) { return std::string(to_string(info.param.first)) + "_" + std::to_string(info.param.second); });

// ---- the reduced failures, kept as regression tests -------------------------------------------

// Each file says where it came from, how it failed, and ("// accepts: fragment rpu") which
// families' backends must take it.
TEST(Regressions, ReducedFailuresStayFixed) {
  const std::filesystem::path dir = std::filesystem::path(PASSLAB_TESTDATA_DIR) / "conformance";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".sl") continue;
    ++files;
    const std::string text = read(e.path());
    Report r = oracle().check(e.path().string(), text);
    const std::size_t at = text.find("// accepts:");
    if (at != std::string::npos) {
      std::istringstream words(text.substr(at + 11, text.find('\n', at) - at - 11));
      for (std::string w; words >> w;)
        if (auto f = family_from_string(w)) expect_acceptance(r, *f);
    }
    EXPECT_TRUE(r.front_end_ok || r.recursion) << e.path() << "\n" << r.front_end;
    EXPECT_FALSE(r.failed()) << e.path() << "\n" << failures(r);
  }
  EXPECT_GE(files, 8);
}

// ---- the machinery ----------------------------------------------------------------------------

TEST(Generator, TheSameSeedGivesTheSameProgramAndOthersDiffer) {
  GeneratorOptions g;
  g.seed = 42;
  const std::string a = generate(g).source, b = generate(g).source;
  EXPECT_EQ(a, b);
  g.seed = 43;
  EXPECT_NE(generate(g).source, a);
}

TEST(Generator, ProgramsStayInsideTheirProfile) {
  std::string combiners, rpu;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    GeneratorOptions g;
    g.seed = seed;
    g.family = Family::Rpu;
    rpu += generate(g).source;
    g.family = Family::Combiners;
    const std::string comb = generate(g).source;
    for (const char* f : {"for (", "while (", "noise(", "exp("}) EXPECT_EQ(comb.find(f), std::string::npos) << f << "\n" << comb;
    combiners += comb;
  }
  EXPECT_NE(rpu.find("Du("), std::string::npos);  // the RPU differences across its pixel quads
  // The combiners' function tables: every function the generator knows them for appears.
  for (const char* f : {"sqrt(", "smoothstep(", "pow(", "mod(", "spline(", "sin(", "normalize(normalize", "0.25 / (1 + "})
    EXPECT_NE(combiners.find(f), std::string::npos) << f;
}

TEST(Generator, TheFamiliesTogetherUseEveryStatementForm) {
  std::string all;
  for (std::uint64_t seed = 1; seed <= 30; ++seed)
    for (Family f : {Family::Fragment, Family::Rpu}) {
      GeneratorOptions g;
      g.seed = seed;
      g.family = f;
      all += generate(g).source;
    }
  for (const char* form : {"if (", "} else {", "for (", "while (", "break;", "continue;", " ? ", "illuminance(", "output ", "[2] = ",
                           "return ", "setcomp(", "trace(", "rec", "uniform float"})
    EXPECT_NE(all.find(form), std::string::npos) << form;
}

TEST(ReferenceShader, RendersDerivativesFromTheNeighbouringPixels) {
  // On the conformance scene (a ball of flat triangles and a card), u and v are affine over every
  // triangle, so a pixel and its neighbours, even past the triangle's edge, give Du(u) = Dv(v) = 1
  // and Dv(u) = 0 up to rounding; area(P) is positive, du and dv being the pixel's steps of u and v.
  driver::ProgramOptions po;
  po.optimize = false;
  auto p = driver::compile_source("d.sl", "surface d() { Ci = color(Du(u), Dv(v), (area(P) > 0 && abs(Dv(u)) < 0.001) ? 1 : 0); }", po);
  ASSERT_TRUE(p->ok());
  lang::Diagnostics problems;
  const auto scene = sim::load_scene(std::string(PASSLAB_SOURCE_DIR) + "/resources/conform/raster.json", &problems);
  ASSERT_TRUE(scene);
  ir::EvalContext ctx;
  ReferenceShader ref(*p->module, p->binding.surface_params, ctx);
  EXPECT_EQ(ref.interpolants(), kReferenceInterpolants + kDerivativeInterpolants);
  sim::RenderOptions ro;
  ro.width = ro.height = 16;
  ro.threads = 1;
  std::string err;
  const std::vector<const sim::FragmentShader*> shaders(scene->objects.size(), &ref);
  const auto img = sim::render(*scene, shaders, ro, nullptr, &err);
  ASSERT_TRUE(img) << err;
  EXPECT_EQ(ref.failures(), 0) << ref.first_error();
  int covered = 0;
  for (int y = 0; y < img->height; ++y)
    for (int x = 0; x < img->width; ++x) {
      const auto c = img->at(x, y);
      if (c[0] == 0 && c[1] == 0) continue;  // the background
      ++covered;
      EXPECT_NEAR(c[0], 1, 1e-2f) << x << ", " << y;
      EXPECT_NEAR(c[1], 1, 1e-2f) << x << ", " << y;
      EXPECT_EQ(c[2], 1) << x << ", " << y;
    }
  EXPECT_GT(covered, 40);
}

TEST(Oracle, ADifferenceIsCaught) {
  // A "transformation" that is not one: the check must fail, naming the fragment.
  const std::string original = "surface a() { Ci = color(s, t, 0); }";
  const std::string changed = "surface a() { Ci = color(s, t * 1.001, 0); }";
  const Report r = oracle().check("a.sl", changed, &original);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.first_failure()->backend, "transform");
  EXPECT_EQ(r.first_failure()->kind, "mismatch");
  EXPECT_NE(r.first_failure()->detail.find("fragment"), std::string::npos);
  // ...while the same program agrees with itself.
  EXPECT_FALSE(oracle().check("a.sl", original, &original).failed());
}

TEST(Oracle, DomainErrorsAreNotComparedAndRefusalsAreCounted) {
  const Report r = oracle().check("d.sl", "surface d() { Ci = color(sqrt(s - 2)); }");
  EXPECT_FALSE(r.failed()) << failures(r);
  bool ir = false;
  for (const Check& c : r.checks)
    if (c.backend == "ir") {
      ir = true;
      EXPECT_EQ(c.compared, 0);
      EXPECT_GT(c.undefined, 0);
    }
  EXPECT_TRUE(ir);
  // The RPU keeps no matrix computed when the shader runs (as the thesis): a refusal with its
  // reason, not a failure.
  const Report t = oracle().check("t.sl", "surface t() { matrix m = matrix(s, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1); Ci = color(transform(m, P)); }");
  bool refused = false;
  for (const Check& c : t.checks) refused = refused || (c.backend == "rpu" && c.outcome == Outcome::Refused && !c.detail.empty());
  EXPECT_TRUE(refused);
  EXPECT_FALSE(t.failed()) << failures(t);
  // Its derivatives, across each hit's pixel quad, are compared with the reference's.
  const Report q = oracle().check("q.sl", "surface q() { Ci = color(Du(s * t) + Dv(s), area(P) * 100, 0); }");
  int compared = 0;
  for (const Check& c : q.checks)
    if (c.backend.rfind("rpu", 0) == 0) compared += c.compared;
  EXPECT_GT(compared, 0);
  EXPECT_FALSE(q.failed()) << failures(q);
}

TEST(Oracle, TheRpuComparesTextureLookups) {
  // The conformance scene's image ("marks") and a stand-in ("grain"), on every RPU configuration.
  const Report m = oracle().check("m.sl", "surface m() { Ci = color texture(\"marks\", s * 3, t) * color texture(\"grain\", s, t); }");
  int compared = 0;
  for (const Check& c : m.checks) compared += c.backend.rfind("rpu", 0) == 0 && c.outcome == Outcome::Agrees && c.compared > 0;
  EXPECT_GE(compared, 2);
  EXPECT_FALSE(m.failed()) << failures(m);
}

TEST(Oracle, SameFailureNeedsTheSameCheckKindAndSize) {
  Report a, b;
  a.checks.push_back(Check("fp PC1 RDS"));
  a.checks.back().outcome = Outcome::Failed;
  a.checks.back().kind = "mismatch";
  a.checks.back().difference = 0.5f;
  b = a;
  EXPECT_TRUE(same_failure(b, a));
  b.checks.back().difference = 1e-5f;  // slipped to a rounding difference
  EXPECT_FALSE(same_failure(b, a));
  b = a;
  b.checks.back().backend = "fp PC2 RDS";
  EXPECT_FALSE(same_failure(b, a));
}

TEST(Transform, SamplesKeepTheirMeaningOnEveryBackend) {
  const std::filesystem::path samples = PASSLAB_SAMPLES_DIR;
  for (const char* name : {"shaders/matte.sl", "shaders/plastic.sl", "shaders/brick.sl", "combiners/fig5.sl"}) {
    const std::filesystem::path path = samples / name;
    const std::string text = read(path);
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      TransformOptions o;
      o.seed = seed;
      const Transformed t = transform(path.string(), text, o);
      ASSERT_TRUE(t.ok) << name << ": " << t.error;
      EXPECT_NE(t.text, text) << name;
      const Report r = oracle().check(path.string(), t.text, &text);
      EXPECT_TRUE(r.front_end_ok) << name << "\n" << r.front_end;
      EXPECT_FALSE(r.failed()) << name << " transformed by seed " << seed << " (" << t.summary << ")\n" << failures(r) << t.text;
    }
  }
}

// The ceramic sample hashes cells with fract(sin(x) * 43758) and speckles where the hash passes
// 0.985: on 24-bit floats a pixel flips in about 1.5% of perturbed runs, which 48 runs often miss.
// Two of the transformations of seed 1000007 moved the VM onto such a flip (a difference of 0.05
// against a tolerance of 0.049); the oracle now confirms with 256 runs before failing.
TEST(Oracle, ARareFlipOfAPseudoRandomHashIsWithinTheTolerance) {
  const std::filesystem::path path = std::filesystem::path(PASSLAB_SAMPLES_DIR) / "rpu/ceramic.sl";
  std::string text = read(path);
  const auto edit = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  edit("float band = smoothstep(0.35, 0.65, ring);", "float a[2] = {smoothstep(0.35, 0.65, ring), smoothstep(0.35, 0.65, ring)}; float band = a[0];");
  edit("reflected = trace(P, R) * fresnel * Kr;", "reflected = (trace(P, R) + 0) * fresnel * Kr;");
  OracleOptions o;
  o.only = {"rpu"};
  o.include_paths = {(std::filesystem::path(PASSLAB_SAMPLES_DIR) / "include").string()};
  const Oracle rpu{o};
  ASSERT_TRUE(rpu.ok()) << rpu.error();
  const Report r = rpu.check(path.string(), text);
  EXPECT_FALSE(r.failed()) << failures(r);
  int compared = 0;
  for (const Check& c : r.checks) compared += c.compared;
  EXPECT_GT(compared, 4 * 100) << "the ceramic's pixels are compared, not left undefined";
}

TEST(Transform, EveryKindOfEditHappens) {
  const std::string text = read(std::filesystem::path(PASSLAB_SAMPLES_DIR) / "shaders/toon.sl");
  std::string summaries;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    TransformOptions o;
    o.seed = seed;
    summaries += transform(std::string(PASSLAB_SAMPLES_DIR) + "/shaders/toon.sl", text, o).summary + "; ";
  }
  for (const char* kind : {"identity", "function", "array", "dead code", "reorder"}) EXPECT_NE(summaries.find(kind), std::string::npos) << kind << ": " << summaries;
}

TEST(Reducer, ShrinksWhileTheFailureHoldsAndKeepsItParsing) {
  GeneratorOptions g;
  g.seed = 7;
  const std::string text = generate(g).source;
  ASSERT_NE(text.find("Ci ="), std::string::npos);
  // "Interesting": it still parses and still writes Ci from some noise() call.
  auto interesting = [](const std::string& t) { return parse("r.sl", t, {}).ok && t.find("noise(") != std::string::npos; };
  ASSERT_TRUE(interesting(text)) << "seed 7 no longer calls noise(): pick a seed that does\n" << text;
  ReduceStats stats;
  const std::string small = reduce(text, interesting, {}, &stats);
  EXPECT_TRUE(interesting(small));
  EXPECT_LT(small.size() * 4, text.size()) << small;
  EXPECT_GT(stats.accepted, 0);
  EXPECT_LE(stats.tests, ReduceOptions{}.max_tests);
}

// A failure inside a small function survives the function: its calls become its expression
// (without inlining, the function could only stay, as deleting it breaks the calls).
TEST(Reducer, InlinesAFunctionThatOnlyReturnsAnExpression) {
  const std::string text =
      "float twice(float a; float b) { return a * 2 + b; }\n"
      "surface r() {\n  float x = twice(s, t);\n  Ci = color(twice(x, 1));\n}\n";
  auto interesting = [](const std::string& t) { return parse("r.sl", t, {}).ok && t.find("* 2") != std::string::npos; };
  ASSERT_TRUE(interesting(text));
  const std::string small = reduce(text, interesting, {});
  EXPECT_TRUE(interesting(small));
  EXPECT_EQ(small.find("twice"), std::string::npos) << small;
}

}  // namespace
}  // namespace passlab::conform
