// SPDX-License-Identifier: GPL-3.0-or-later
// Interpreter tests: builtin semantics through tiny shaders, each value worked out by hand in a
// comment; every shader also runs optimized, and both runs must agree bit for bit.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/driver/program.h"
#include "core/ir/interpreter.h"
#include "core/ir/printer.h"
#include "core/lang/diagnostic.h"

namespace passlab::ir {
namespace {

using ::testing::HasSubstr;
using lang::Global;

std::unique_ptr<driver::Program> compile(const std::string& source, bool optimize, const std::string& lights = "") {
  driver::ProgramOptions o;
  o.optimize = optimize;
  o.verify = true;
  o.lights_path = lights;
  auto p = driver::compile_source("snippet.sl", source, o);
  if (!p->ok() || !p->module)
    throw std::runtime_error("snippet does not compile:\n" + lang::format_text(p->diagnostics.items(), *p->sources));
  return p;
}

RunResult run(const driver::Program& p, const FragmentInputs& in, const RunOptions& options = {}) {
  EvalContext ctx;
  ctx.spaces = p.binding.spaces;
  return interpret(*p.module, in, p.binding.surface_params, ctx, options);
}

bool same_bits(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// Ci of `source` on one fragment, from the unoptimized IR; the optimized IR must agree exactly
// (SCCP folds with the interpreter's own evaluator).
Value shade(const std::string& source, const FragmentInputs& in = random_fragment(1), const std::string& lights = "",
            bool compare_optimized = true) {
  auto plain = compile(source, false, lights);
  auto opt = compile(source, true, lights);
  RunResult a = run(*plain, in), b = run(*opt, in);
  if (!a.ok || !b.ok) throw std::runtime_error("run failed: " + a.error + b.error);
  for (int c = 0; c < 3 && compare_optimized; ++c)
    if (!same_bits(a.results[0].f[c], b.results[0].f[c]))
      throw std::runtime_error("optimized IR disagrees on Ci[" + std::to_string(c) + "]: " + std::to_string(a.results[0].f[c]) +
                               " vs " + std::to_string(b.results[0].f[c]) + "\n" + print(*opt->module));
  return a.results[0];
}

std::string surface(const std::string& body) { return "surface t() {\n" + body + "\n}\n"; }
// What compiling `source` reports, as text ("" when it compiles cleanly).
std::string diagnostics_of(const std::string& source) {
  auto p = driver::compile_source("snippet.sl", source, {});
  return lang::format_text(p->diagnostics.items(), *p->sources);
}
// Shades `vector r = <expr>` and returns r through Ci.
Value shade_vector(const std::string& expr, const std::string& lights = "", bool compare_optimized = true) {
  return shade(surface("vector r = " + expr + "; Ci = color(xcomp(r), ycomp(r), zcomp(r));"), random_fragment(1), lights,
               compare_optimized);
}

#define EXPECT_RGB(v, r, g, b)        \
  do {                                \
    Value v_ = (v);                   \
    EXPECT_FLOAT_EQ(v_.f[0], (r));    \
    EXPECT_FLOAT_EQ(v_.f[1], (g));    \
    EXPECT_FLOAT_EQ(v_.f[2], (b));    \
  } while (0)

// ---- arithmetic builtins ---------------------------------------------------------------------

TEST(Builtins, ModIsNonNegativeForPositiveDivisor) {
  // a - b * floor(a / b): mod(-1, 3) = -1 + 3 = 2, unlike C's fmod (-1).
  EXPECT_RGB(shade(surface("Ci = color(mod(-1, 3), mod(5, 3), mod(-4.5, 3));")), 2, 2, 1.5f);
  EXPECT_RGB(shade(surface("Ci = color(mod(6, 3), mod(0.5, 1), mod(-0.25, 1));")), 0, 0.5f, 0.75f);
}

TEST(Builtins, Smoothstep) {
  // t * t * (3 - 2t): 0.25 -> 0.0625 * 2.5 = 0.15625; symmetric about the middle.
  EXPECT_RGB(shade(surface("Ci = color(smoothstep(0, 1, .5), smoothstep(0, 1, .25), smoothstep(0, 1, .75));")), 0.5f, 0.15625f,
             0.84375f);
  EXPECT_RGB(shade(surface("Ci = color(smoothstep(0, 1, -1), smoothstep(2, 4, 5), smoothstep(2, 4, 3));")), 0, 1, 0.5f);
}

TEST(Builtins, StepIsOneFromTheEdgeOn) {
  EXPECT_RGB(shade(surface("Ci = color(step(0.5, 0.4), step(0.5, 0.5), step(0.5, 0.6));")), 0, 1, 1);
}

TEST(Builtins, Mix) {
  EXPECT_RGB(shade(surface("Ci = color(mix(0, 10, 0.25), mix(4, 8, 0), mix(4, 8, 1));")), 2.5f, 4, 8);
  EXPECT_RGB(shade(surface("Ci = mix(color(0, 0, 0), color(2, 4, 8), 0.5);")), 1, 2, 4);
  // A colour blend factor mixes per channel.
  EXPECT_RGB(shade(surface("Ci = mix(color(0, 0, 0), color(2, 4, 8), color(0, 0.5, 1));")), 0, 2, 8);
}

TEST(Builtins, Clamp) {
  EXPECT_RGB(shade(surface("Ci = color(clamp(2, 0, 1), clamp(-1, 0, 1), clamp(0.25, 0, 1));")), 1, 0, 0.25f);
  EXPECT_RGB(shade(surface("Ci = clamp(color(-1, 0.5, 3), color(0, 0, 0), color(1, 1, 1));")), 0, 0.5f, 1);
}

TEST(Builtins, MinMaxAreVariadicAndComponentwise) {
  EXPECT_RGB(shade(surface("Ci = color(min(3, 1, 2), max(3, 1, 2, 5), min(4, 7));")), 1, 5, 4);
  EXPECT_RGB(shade(surface("Ci = min(color(1, 5, 3), color(2, 2, 2));")), 1, 2, 2);
  EXPECT_RGB(shade(surface("Ci = max(color(1, 5, 3), color(2, 2, 2), color(0, 0, 9));")), 2, 5, 9);
}

// ---- geometry ----------------------------------------------------------------------------------

TEST(Geometry, NormalizeLengthDistance) {
  EXPECT_RGB(shade_vector("normalize(vector(3, 0, 4))"), 0.6f, 0, 0.8f);
  EXPECT_RGB(shade(surface("Ci = color(length(vector(3, 0, 4)), distance(point(1, 1, 1), point(4, 5, 1)), 0);")), 5, 5, 0);
}

TEST(Geometry, Reflect) {
  // I - 2 (I.N) N: a ray going down-right bounces up-right off a floor.
  EXPECT_RGB(shade_vector("reflect(vector(1, -1, 0), vector(0, 1, 0))"), 1, 1, 0);
  EXPECT_RGB(shade_vector("reflect(vector(0, 0, 1), vector(0, 0, -1))"), 0, 0, -1);
}

TEST(Geometry, FaceforwardTurnsAgainstTheIncidentRay) {
  EXPECT_RGB(shade_vector("faceforward(vector(0, 0, 1), vector(0, 0, 1))"), 0, 0, -1);   // flipped
  EXPECT_RGB(shade_vector("faceforward(vector(0, 0, -1), vector(0, 0, 1))"), 0, 0, -1);  // kept
  // With Nref the test uses Nref, and N is flipped as a whole.
  EXPECT_RGB(shade_vector("faceforward(vector(1, 2, 3), vector(0, 0, 1), vector(0, 0, 1))"), -1, -2, -3);
}

TEST(Geometry, CrossAndDotOperators) {
  EXPECT_RGB(shade_vector("vector(1, 0, 0) ^ vector(0, 1, 0)"), 0, 0, 1);
  EXPECT_RGB(shade_vector("vector(0, 1, 0) ^ vector(1, 0, 0)"), 0, 0, -1);
  EXPECT_RGB(shade_vector("vector(2, 3, 4) ^ vector(5, 6, 7)"), 3 * 7 - 4 * 6, 4 * 5 - 2 * 7, 2 * 6 - 3 * 5);
  EXPECT_RGB(shade(surface("Ci = color(vector(1, 2, 3) . vector(4, 5, 6), N . N, 0);")), 32, 1, 0);
}

// ---- named spaces ----------------------------------------------------------------------------

class SpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("passlab_ir_spaces_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    lights_ = (dir_ / "spaces.lights.json").string();
    // shader -> current: scale x by 2, then translate by (1, 2, 3). Row-major, points are row
    // vectors (p * M), so the translation is the last row.
    std::ofstream(lights_) << R"({ "lights": [],
      "spaces": { "shader": [2,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1] } })";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string lights_;
};

// The expected values below are checked on the unoptimized IR only: SCCP folds transforms of
// constant operands without the bound spaces (see SpaceTest.OptimizerKnowsTheSpaces).
TEST_F(SpaceTest, TransformToShaderUsesTheInverse) {
  // current -> shader undoes M: ((5 - 1) / 2, 6 - 2, 7 - 3).
  EXPECT_RGB(shade_vector("vector transform(\"shader\", point(5, 6, 7))", lights_, false), 2, 4, 4);
  // Vectors ignore the translation.
  EXPECT_RGB(shade_vector("vtransform(\"shader\", vector(2, 4, 6))", lights_, false), 1, 4, 6);
  // Normals go by the inverse transpose of current -> shader, which is M's transpose.
  EXPECT_RGB(shade_vector("vector ntransform(\"shader\", normal(1, 1, 1))", lights_, false), 2, 1, 1);
}

TEST_F(SpaceTest, FromShaderToCurrentAppliesTheMatrix) {
  // p * M = (2 * 1 + 1, 1 + 2, 1 + 3).
  EXPECT_RGB(shade_vector("vector transform(\"shader\", \"current\", point(1, 1, 1))", lights_, false), 3, 3, 4);
  EXPECT_RGB(shade_vector("vector point \"shader\" (1, 1, 1)", lights_, false), 3, 3, 4);
  // "current" and "camera" are the identity, as is a space the setup does not name.
  EXPECT_RGB(shade_vector("vector transform(\"camera\", point(5, 6, 7))", lights_), 5, 6, 7);
  EXPECT_RGB(shade_vector("vector transform(\"nowhere\", point(5, 6, 7))", lights_), 5, 6, 7);
}

TEST_F(SpaceTest, VaryingPointsThroughTheSpaceAgreeOptimized) {
  // Nothing to fold here, so the optimized IR must agree (shade checks it) and match by hand.
  FragmentInputs in = random_fragment(5);
  Value q = shade(surface("point q = transform(\"shader\", P); Ci = color(xcomp(q), ycomp(q), zcomp(q));"), in, lights_);
  const Value& P = in[Global::P];
  EXPECT_FLOAT_EQ(q.f[0], (P.f[0] - 1) / 2);
  EXPECT_FLOAT_EQ(q.f[1], P.f[1] - 2);
  EXPECT_FLOAT_EQ(q.f[2], P.f[2] - 3);
}

// SCCP folds transform("shader", <constant point>) with an empty EvalContext, so the bound
// "shader" space is treated as the identity: the optimized IR gives (5, 6, 7), not (2, 4, 4).
// SCCP leaves named-space transforms to the binding (the flattener folds them).
TEST_F(SpaceTest, OptimizerKnowsTheSpaces) {
  EXPECT_RGB(shade_vector("vector transform(\"shader\", point(5, 6, 7))", lights_), 2, 4, 4);
  EXPECT_RGB(shade_vector("vector point \"shader\" (0, 0, 0)", lights_), 1, 2, 3);
}

TEST_F(SpaceTest, RoundTripReturnsThePoint) {
  FragmentInputs in = random_fragment(7);
  Value ci = shade(surface("point q = transform(\"shader\", \"current\", transform(\"shader\", P));\n"
                           "Ci = color(xcomp(q), ycomp(q), zcomp(q));"),
                   in, lights_);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(ci.f[c], in[Global::P].f[c], 1e-5f);
}

// ---- spline ------------------------------------------------------------------------------------

TEST(Spline, CatmullRomThroughTheKnots) {
  // Four knots, one segment from the 2nd knot to the 3rd.
  EXPECT_RGB(shade(surface("Ci = color(spline(0.5, 0, 0, 1, 1), spline(0, 0, 2, 5, 9), spline(1, 0, 2, 5, 9));")), 0.5f, 2, 5);
  // Five knots, two segments: x = 0.5 is the 3rd knot exactly.
  EXPECT_RGB(shade(surface("Ci = color(spline(0.5, 0, 1, 7, 3, 4), spline(-3, 0, 2, 5, 9), spline(4, 0, 2, 5, 9));")), 7, 2, 5);
  // 0.5 * ((2 * 2) + (-0 + 5) * 0.5 + (0 - 10 + 20 - 9) * 0.25 + (-0 + 6 - 15 + 9) * 0.125) = 3.375
  EXPECT_RGB(shade(surface("Ci = color(spline(0.5, 0, 2, 5, 9), 0, 0);")), 3.375f, 0, 0);
  // Per channel; blue's knots 0, 4, 4, 4 give 0.5 * (8 + 2 - 2 + 0.5) = 4.25.
  EXPECT_RGB(shade(surface("Ci = spline(0.5, color(0, 0, 0), color(0, 2, 4), color(1, 5, 4), color(1, 9, 4));")), 0.5f, 3.375f,
             4.25f);
}

// ---- textures and noise ------------------------------------------------------------------------

TEST(Texture, NoiseIsDeterministicAndInRange) {
  std::string src = surface("float a = noise(P); float b = noise(s, t); float c = noise(s * 7); Ci = color(a, b, c);");
  auto p = compile(src, false);
  float lo = 1, hi = 0;
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    FragmentInputs in = random_fragment(seed);
    RunResult a = run(*p, in), b = run(*p, in);
    ASSERT_TRUE(a.ok && b.ok);
    for (int c = 0; c < 3; ++c) {
      EXPECT_TRUE(same_bits(a.results[0].f[c], b.results[0].f[c]));
      EXPECT_GE(a.results[0].f[c], 0.0f);
      EXPECT_LE(a.results[0].f[c], 1.0f);
      lo = std::min(lo, a.results[0].f[c]);
      hi = std::max(hi, a.results[0].f[c]);
    }
  }
  EXPECT_GT(hi - lo, 0.2f) << "noise should vary across fragments";
}

TEST(Texture, NoiseLatticeRepeatsEvery32) {
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    Value v = shade(surface("float x = s * 5; Ci = color(noise(x), noise(x + 32), noise(x + 0.5));"), random_fragment(seed));
    EXPECT_NEAR(v.f[0], v.f[1], 1e-4f);
  }
}

TEST(Texture, NamedTexturesAreDeterministicStandIns) {
  std::string src = surface("color a = texture(\"wood.tx\"); color b = texture(\"wood.tx\", s, t); "
                            "color c = texture(\"brick.tx\"); Ci = a; Oi = color(comp(b, 0), comp(c, 0), comp(c, 1));");
  auto p = compile(src, false);
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    RunResult r = run(*p, random_fragment(seed)), again = run(*p, random_fragment(seed));
    ASSERT_TRUE(r.ok) << r.error;
    const Value &a = r.results[0], &o = r.results[1];
    for (int c = 0; c < 3; ++c) {
      EXPECT_TRUE(same_bits(a.f[c], again.results[0].f[c]));
      EXPECT_GE(a.f[c], 0.0f);
      EXPECT_LE(a.f[c], 1.0f);
    }
    // texture(name) reads at (s, t): the same as spelling the coordinates out.
    EXPECT_EQ(a.f[0], o.f[0]);
    differ += a.f[0] != o.f[1];
  }
  EXPECT_GT(differ, 16) << "different names should give different images";
}

// ---- parameters and limits -----------------------------------------------------------------------

TEST(Interpreter, ShaderParametersTakeBoundValuesElseDefaults) {
  auto p = compile("surface t(float Kd = 0.5; color tint = color(1, 2, 3)) { Ci = Kd * tint; }\n", false);
  EvalContext ctx;
  RunResult r = interpret(*p->module, random_fragment(1), {}, ctx);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_RGB(r.results[0], 0.5f, 1, 1.5f);
  r = interpret(*p->module, random_fragment(1), {{"Kd", Value::scalar(2)}}, ctx);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_RGB(r.results[0], 2, 4, 6);
  // Results come in result_names order: Ci, then Oi (opaque when untouched).
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_RGB(r.results[1], 1, 1, 1);
}

TEST(Interpreter, EndlessLoopHitsTheStepLimit) {
  const std::string src = surface("while (1) {} Ci = 1;");
  for (bool optimize : {false, true}) {
    auto p = compile(src, optimize);
    RunOptions small;
    small.max_steps = 10'000;
    RunResult r = run(*p, random_fragment(1), small);
    EXPECT_FALSE(r.ok);
    EXPECT_THAT(r.error, HasSubstr("exceeded 10000 steps"));
    EXPECT_TRUE(r.results.empty());
  }
  // The default limit ends it too.
  auto p = compile(src, true);
  auto start = std::chrono::steady_clock::now();
  RunResult r = run(*p, random_fragment(1));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("steps"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(Interpreter, FiniteLoopsFitTheirBudget) {
  auto p = compile(surface("float acc = 0; float i; for (i = 0; i < 100; i += 1) acc += i; Ci = acc;"), false);
  RunOptions o;
  o.max_steps = 5'000;
  RunResult r = run(*p, random_fragment(1), o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.results[0].f[0], 4950.0f);
  o.max_steps = 100;  // ... and a budget too small for it stops it
  EXPECT_FALSE(run(*p, random_fragment(1), o).ok);
}

// ---- lights ------------------------------------------------------------------------------------

// A fragment whose normal is `n` (normalized), for the default distant light, which shines along
// (0.3, -0.5, 1): a surface facing it has N = -(0.3, -0.5, 1) / |...|.
FragmentInputs facing(float x, float y, float z) {
  FragmentInputs in = random_fragment(3);
  float len = std::sqrt(x * x + y * y + z * z);
  in[Global::N] = Value::triple(lang::BaseType::Normal, x / len, y / len, z / len);
  in[Global::Ng] = in[Global::N];
  return in;
}

TEST(Lights, DiffuseOverTheDefaultLights) {
  const std::string src = surface("Ci = diffuse(normalize(N));");
  EXPECT_RGB(shade(src, facing(-0.3f, 0.5f, -1)), 1, 1, 1);  // head on: cos = 1, white light
  EXPECT_RGB(shade(src, facing(0.3f, -0.5f, 1)), 0, 0, 0);   // facing away: no contribution
  Value oblique = shade(src, facing(0, 0, -1));              // cos = 1 / |(0.3, -0.5, 1)|
  EXPECT_NEAR(oblique.f[0], 1 / std::sqrt(0.09f + 0.25f + 1), 1e-6f);
}

TEST(Lights, IlluminanceLoopSeesTheDistantLight) {
  const std::string src = surface(
      "normal Nf = normalize(N); color c = 0;\n"
      "illuminance (P, Nf, PI / 2) { c += Cl * (normalize(L) . Nf); }\n"
      "Ci = c;");
  Value lit = shade(src, facing(-0.3f, 0.5f, -1));
  EXPECT_NEAR(lit.f[0], 1, 1e-6f);
  EXPECT_NEAR(lit.f[2], 1, 1e-6f);
  EXPECT_RGB(shade(src, facing(0.3f, -0.5f, 1)), 0, 0, 0);  // outside the cone
}

TEST(Lights, AmbientIsTheDimAmbientLight) {
  EXPECT_RGB(shade(surface("Ci = ambient();")), 0.1f, 0.1f, 0.1f);
}

}  // namespace
}  // namespace passlab::ir

namespace passlab::ir {
namespace {

TEST(Builtins, TextureChannelsStartWhereTheNameSays) {
  // texture("name"[k]): a float reads channel k, a colour channels k to k + 2. The stand-in
  // texture has alpha 1, so channel 3 is 1 and a colour from channel 1 ends in it.
  const Value rgb = shade(surface("Ci = color texture(\"x\", 0.3, 0.6);"));
  const Value from1 = shade(surface("Ci = color texture(\"x\"[1], 0.3, 0.6);"));
  EXPECT_RGB(from1, rgb.f[1], rgb.f[2], 1.0f);
  const Value each = shade(surface("Ci = color(float texture(\"x\"[0], 0.3, 0.6), float texture(\"x\"[2], 0.3, 0.6), "
                                   "float texture(\"x\"[3], 0.3, 0.6));"));
  EXPECT_RGB(each, rgb.f[0], rgb.f[2], 1.0f);
}

TEST(Builtins, TextureChannelChosenWhenTheShaderRunsReadsThatChannelOrZero) {
  // texture(name[k]) with k an expression, as published shaders pass a parameter: k rounded
  // down; a channel the map does not have is filled with 0.
  const Value rgb = shade(surface("Ci = color texture(\"x\", 0.3, 0.6);"));
  auto channel = [](const std::string& k, const char* type = "float") {
    return shade(surface("float k = " + k + "; Ci = " + type + " texture(\"x\"[k], 0.3, 0.6);")).f[0];
  };
  EXPECT_EQ(channel("s * 0"), rgb.f[0]);
  EXPECT_EQ(channel("1.7 + s * 0"), rgb.f[1]);
  EXPECT_EQ(channel("2 + s * 0"), rgb.f[2]);
  EXPECT_EQ(channel("3 + s * 0"), 1.0f);
  EXPECT_EQ(channel("4 + s * 0"), 0.0f);
  EXPECT_EQ(channel("-0.5 + s * 0"), 0.0f);
  EXPECT_EQ(channel("1 + s * 0", "color"), rgb.f[1]);
  EXPECT_EQ(channel("2 + s * 0", "color"), 0.0f);  // a colour from channel 2 would need a fifth
  EXPECT_EQ(shade(surface("float k = 5 + s * 0; Ci = float texture(\"x\"[k], 0.3, 0.6, \"fill\", 0.25);")).f[0], 0.25f);
  // A uniform parameter, environment() too, and the array of names a [ ] may also mean.
  EXPECT_EQ(shade("surface ch(float c = 2) { Ci = float texture(\"x\"[c], 0.3, 0.6); }").f[0], rgb.f[2]);
  EXPECT_EQ(shade(surface("float k = 1; Ci = color environment(\"x\"[k], vector(0, 0, 1));")).f[0],
            shade(surface("Ci = color environment(\"x\"[1], vector(0, 0, 1));")).f[0]);
  EXPECT_EQ(shade(surface("string m[2] = {\"y\", \"x\"}; float k = 1; Ci = color texture(m[k], 0.3, 0.6);")).f[0], rgb.f[0]);
}

TEST(Builtins, ARandomAUniformVariableReceivesIsOneValueForEveryPoint) {
  // As renderers compile `uniform float r = random()`; BMRT's urand() is always uniform.
  const std::string src = surface("uniform float r = random() * 0.5 + 0.25; float v = random(); uniform color c = color random();\n"
                                  "Ci = color(r, v, urand()) + c * 0;");
  const Value a = shade(src, random_fragment(1)), b = shade(src, random_fragment(2));
  EXPECT_EQ(a.f[0], b.f[0]);
  EXPECT_NE(a.f[1], b.f[1]);
  EXPECT_EQ(a.f[2], b.f[2]);
  EXPECT_GE(a.f[0], 0.25f);
  EXPECT_LT(a.f[0], 0.75f);
  EXPECT_GE(a.f[2], 0.0f);
  EXPECT_LT(a.f[2], 1.0f);
}

TEST(Builtins, EnvironmentAndShadowOverFourCornersReadAtTheirCentre) {
  EXPECT_NEAR(shade(surface("vector d = vector(0.2, 0.1, 1); Ci = color environment(\"x\", d - vector(0.1, 0, 0), d + vector(0.1, 0, 0), "
                            "d - vector(0, 0.05, 0), d + vector(0, 0.05, 0), \"blur\", 0.1);")).f[0],
              shade(surface("Ci = color environment(\"x\", vector(0.2, 0.1, 1));")).f[0], 1e-5f);
  EXPECT_NEAR(shade(surface("Ci = shadow(\"x\", P - 0.5, P + 0.5, P - 0.25, P + 0.25, \"bias\", 0.1);")).f[0],
              shade(surface("Ci = shadow(\"x\", P, \"bias\", 0.1);")).f[0], 1e-5f);
}

TEST(Builtins, TextureChannelIsAFloatAndAWrittenOneIsInRange) {
  for (const char* bad : {"Ci = texture(\"x\"[\"r\"], s, t);", "Ci = texture(\"x\"[P], s, t);", "Ci = color texture(\"x\"[2], s, t);",
                          "Ci = float texture(\"x\"[4], s, t);", "Ci = shadow(\"x\"[1], P);", "Ci = noise(P)[1];"}) {
    driver::ProgramOptions o;
    auto p = driver::compile_source("snippet.sl", surface(bad), o);
    EXPECT_FALSE(p->ok()) << bad;
  }
}

}  // namespace
}  // namespace passlab::ir

// ---- real-world RSL: local functions, extern, the rest of the library --------------------------

namespace passlab::ir {
namespace {

TEST(Functions, AFunctionOfTheFileMayAssignTheShadersGlobals) {
  // RI 3.2-era helpers set Ci and Oi themselves; through another function too. They read the
  // globals as the shader left them (Ci = 0.5 before the call).
  const Value c = shade("void paint(color c) { Oi = 0.5; Ci = Ci * Oi + c; }\n"
                        "void twice(color c) { paint(c); paint(c); }\n"
                        "surface t() { Ci = 0.5; twice(color(0.25, 0.5, 1)); }\n");
  EXPECT_RGB(c, (0.5f * 0.5f + 0.25f) * 0.5f + 0.25f, (0.25f + 0.5f) * 0.5f + 0.5f, (0.25f + 1) * 0.5f + 1);
}

TEST(Functions, AShaderMayNotCallAFunctionThatAssignsAGlobalItCannot) {
  auto p = driver::compile_source("snippet.sl", "void paint() { Ci = 1; }\nlight l() { paint(); Cl = 1; }\n", {});
  ASSERT_FALSE(p->ok());
  EXPECT_NE(lang::format_text(p->diagnostics.items(), *p->sources).find("'paint' assigns 'Ci', which a light shader cannot"), std::string::npos)
      << lang::format_text(p->diagnostics.items(), *p->sources);
}

TEST(LocalFunctions, ReadAndWriteTheEnclosingVariablesAndBindEveryArgumentFirst) {
  // twice(twice(1.5)): the inner call binds x = 1.5 and returns 3, the outer binds x = 3 and
  // returns 6; each call counts, so count = 2; put() sees count through lexical scope: o = 3 + 2.
  EXPECT_RGB(shade(surface("float count = 0;\n"
                           "float twice(float x) { count += 1; return 2 * x; }\n"
                           "float r = twice(twice(1.5));\n"
                           "float o;\n"
                           "void put(output float y; float v) { y = v + count; }\n"
                           "put(o, 3);\n"
                           "Ci = color(r, count, o);")),
             6, 2, 5);
}

TEST(LocalFunctions, ReturnFromInsideALoopAndAnInnerFunctionHidesAnOuterOne) {
  // first(): the loop returns at i = 3 (3 * 3 = 9 > 5). The inner g hides the file's g.
  EXPECT_RGB(shade("float g() { return 100; }\n"
                   "surface t() {\n"
                   "  float first() { float i; for (i = 0; i < 10; i += 1) if (i * i > 5) return i; return -1; }\n"
                   "  float g() { return 7; }\n"
                   "  Ci = color(first(), g(), 0);\n"
                   "}\n"),
             3, 7, 0);
}

TEST(LocalFunctions, AnExternDeclarationReadsTheGlobal) {
  const FragmentInputs in = random_fragment(4);
  const Value v = shade("float f() { extern float t; extern point P; return t + xcomp(P); }\n"
                        "surface s() { Ci = color(f()); }\n",
                        in);
  EXPECT_FLOAT_EQ(v.f[0], in[Global::t].f[0] + in[Global::P].f[0]);
}

TEST(Globals, EveryKindHasTimeAndNcompsAndASurfaceSeesPsAndWritesP) {
  const FragmentInputs in = random_fragment(2);
  // `time` is the time the renderer shades at (here the fragment's), the shutter length 0.
  ASSERT_GT(in[Global::time].f[0], 0.0f);
  EXPECT_RGB(shade(surface("Ci = color(time, dtime, ncomps);"), in), in[Global::time].f[0], 0, 3);
  const Value v = shade(surface("point a = Ps; P += vector(1, 2, 3); Ci = color(xcomp(a), xcomp(P), zcomp(P));"), in);
  EXPECT_RGB(v, in[Global::P].f[0], in[Global::P].f[0] + 1, in[Global::P].f[2] + 3);
}

TEST(Library, CellnoiseIsOneValueInZeroToOnePerUnitCell) {
  const Value a = shade(surface("Ci = color(cellnoise(2.1), cellnoise(2.9), cellnoise(3.1));"));
  EXPECT_EQ(a.f[0], a.f[1]);
  EXPECT_NE(a.f[1], a.f[2]);
  for (int seed = 1; seed <= 20; ++seed) {
    const Value c = shade(surface("Ci = cellnoise(P * 3);"), random_fragment(static_cast<std::uint64_t>(seed)));
    for (int k = 0; k < 3; ++k) {
      EXPECT_GE(c.f[k], 0.0f);
      EXPECT_LT(c.f[k], 1.0f);
    }
  }
  const Value p = shade(surface("Ci = color(cellnoise(point(1.2, 5.5, -3.1)), cellnoise(point(1.9, 5.01, -3.9)), "
                                "cellnoise(point(1.2, 5.5, -3.1), 2.5));"));
  EXPECT_EQ(p.f[0], p.f[1]);
  EXPECT_NE(p.f[0], p.f[2]);
}

TEST(Library, RandomIsUniformPerCallSiteAndTheSameOnEveryRun) {
  const std::string src = surface("Ci = color(random(), random(), 0);");
  double sum = 0;
  int differ = 0;
  for (int seed = 1; seed <= 200; ++seed) {
    const FragmentInputs in = random_fragment(static_cast<std::uint64_t>(seed));
    const Value a = shade(src, in), b = shade(src, in);
    EXPECT_EQ(a.f[0], b.f[0]);
    EXPECT_GE(a.f[0], 0.0f);
    EXPECT_LT(a.f[0], 1.0f);
    differ += a.f[0] != a.f[1];
    sum += a.f[0];
  }
  EXPECT_GT(differ, 190) << "two calls give two streams";
  EXPECT_NEAR(sum / 200, 0.5, 0.07);
}

TEST(Library, FresnelAtNormalIncidenceAndTotalInternalReflection) {
  // Head on, eta = 1/1.5: rs = (eta - 1)/(eta + 1) = -0.2, rp = 0.2, Kr = (0.04 + 0.04) / 2.
  const Value head_on = shade(surface("float kr, kt; fresnel(vector(0, 0, 1), normal(0, 0, -1), 1 / 1.5, kr, kt);"
                                      "Ci = color(kr, kt, kr + kt);"));
  EXPECT_NEAR(head_on.f[0], 0.04f, 1e-6f);
  EXPECT_NEAR(head_on.f[1], 0.96f, 1e-6f);
  EXPECT_FLOAT_EQ(head_on.f[2], 1.0f);
  // Grazing from the dense side (eta = 1.5): sin²t = 2.25 (1 - cos²i) > 1, all reflected.
  const Value tir = shade(surface("float kr, kt; vector R, T; fresnel(vector(1, 0, 0.2), normal(0, 0, -1), 1.5, kr, kt, R, T);"
                                  "Ci = color(kr, kt, zcomp(R));"));
  EXPECT_RGB(tir, 1, 0, -0.2f / std::sqrt(1.04f));
}

TEST(Library, ColourSpacesToAndFromRgb) {
  EXPECT_RGB(shade(surface("Ci = color \"hsv\" (0, 1, 1);")), 1, 0, 0);
  EXPECT_RGB(shade(surface("Ci = color \"hsv\" (1.0 / 3, 1, 1);")), 0, 1, 0);
  EXPECT_RGB(shade(surface("Ci = color \"hsv\" (2.0 / 3, 0.5, 0.5);")), 0.25f, 0.25f, 0.5f);
  EXPECT_RGB(shade(surface("Ci = color \"hsl\" (0, 1, 0.5);")), 1, 0, 0);
  // rgb (0, 0.5, 1): the largest is blue, so h = ((r - g) / d + 4) / 6 = 3.5 / 6.
  const Value hsv = shade(surface("Ci = ctransform(\"hsv\", color(0, 0.5, 1));"));
  EXPECT_NEAR(hsv.f[0], 3.5f / 6, 1e-6f);
  EXPECT_FLOAT_EQ(hsv.f[1], 1);
  EXPECT_FLOAT_EQ(hsv.f[2], 1);
  for (const char* space : {"hsv", "hsl", "xyz", "XYZ", "xyY", "YIQ"}) {
    const Value back = shade(surface(std::string("Ci = ctransform(\"") + space + "\", \"rgb\", ctransform(\"" + space +
                                     "\", color(0.3, 0.5, 0.7)));"));
    EXPECT_NEAR(back.f[0], 0.3f, 2e-3f) << space;
    EXPECT_NEAR(back.f[1], 0.5f, 2e-3f) << space;
    EXPECT_NEAR(back.f[2], 0.7f, 2e-3f) << space;
  }
  // A space held in a string parameter: every conversion under a select, folded by the optimizer.
  EXPECT_RGB(shade("surface s(string sp = \"hsv\") { Ci = ctransform(sp, \"rgb\", color(0, 1, 1)); }"), 1, 0, 0);
}

TEST(Library, FilterstepIsAStepOrTheBoxFilteredStepOverAnInterval) {
  EXPECT_RGB(shade(surface("Ci = color(filterstep(0.5, 0.4), filterstep(0.5, 0.6), filterstep(0.5, 0.4, 0.6));")), 0, 1, 0.5f);
  EXPECT_RGB(shade(surface("Ci = color(filterstep(0.5, 0.6, 0.6), filterstep(0.5, 0.0, 1.0, \"width\", 2), 0);")), 1, 0.5f, 0);
}

TEST(Library, StringsFormatConcatenateAndMatch) {
  EXPECT_RGB(shade(surface("Ci = color(format(\"%s.%d\", \"map\", 3) == \"map.3\", concat(\"a\", \"b\", \"c\") == \"abc\", "
                           "format(\"%.2f|%p\", 0.5, point(1, 2, 3)) == \"0.50|1 2 3\");")),
             1, 1, 1);
  EXPECT_RGB(shade(surface("Ci = color(match(\"^ma.*p$\", \"map\"), match(\"x\", \"map\"), match(\"a*\", \"\"));")), 1, 0, 1);
  EXPECT_RGB(shade(surface("Ci = color(match(\"b.e\", \"abcde\"), match(\"^b\", \"abc\"), match(\"c$\", \"abc\"));")), 0, 0, 1);
  EXPECT_RGB(shade(surface("printf(\"%f\\n\", s); Ci = color(match(\"ab*c\", \"xacx\"), match(\"ab*c\", \"abbbc\"), 0);")), 1, 1, 0);
}

TEST(Library, FourDimensionalNoiseIsSmoothInItsFourthCoordinate) {
  const Value v = shade(surface("Ci = color(noise(P, 0.25), noise(P, 0.2501), noise(P, 3.5));"));
  EXPECT_NEAR(v.f[0], v.f[1], 1e-3f);
  EXPECT_NE(v.f[0], v.f[2]);
}

}  // namespace
}  // namespace passlab::ir

// ---- arrays and spline bases -------------------------------------------------------------------

namespace passlab::ir {
namespace {

TEST(Arrays, ConstantAndComputedIndicesAgreeAndAComputedOneIsClampedAndTruncated) {
  // s * 0 keeps the index computed (a chain of selects) while its value stays exact.
  EXPECT_RGB(shade(surface("float a[3] = {10, 20, 30}; Ci = color(a[1.7], a[s * 0 + 1.7], a[2]);")), 20, 20, 30);
  EXPECT_RGB(shade(surface("float a[3] = {10, 20, 30}; Ci = color(a[s * 0 - 1], a[s * 0 + 5], arraylength(a));")), 10, 30, 3);
}

TEST(Arrays, ElementsAreWrittenByConstantAndComputedIndices) {
  EXPECT_RGB(shade(surface("float a[3]; a[0] = 1; a[s * 0 + 2] = 5; a[1] = a[0] + a[2]; a[s * 0 + 1] *= 2;"
                           "Ci = color(a[0], a[1], a[2]);")),
             1, 12, 5);
  EXPECT_RGB(shade(surface("color c[2] = {color(1, 2, 3), 0}; c[1] = c[0] * 2; Ci = c[1];")), 2, 4, 6);
}

TEST(Arrays, PassWholeToFunctionsOfAnyLengthAndComeBackThroughOutputs) {
  EXPECT_RGB(shade("float sum(float a[]) { float t = 0, i; for (i = 0; i < arraylength(a); i += 1) t += a[i]; return t; }\n"
                   "void twice(output float a[]) { float i; for (i = 0; i < arraylength(a); i += 1) a[i] *= 2; }\n"
                   "surface s(float w[4] = {1, 2, 3, 4}) {\n"
                   "  float v[4] = w;\n"
                   "  twice(v);\n"
                   "  float three[3] = {1, 1, 1};\n"
                   "  Ci = color(sum(w), sum(v), sum(three));\n"
                   "}\n"),
             10, 20, 3);
}

// PRMan's resizable arrays: `color a[];` starts empty; push appends, pop drops and returns the
// last element, resize sets the length; arraylength counts what is in use, in the shader and in
// a function the array is passed to. A length that depends on the fragment works too.
TEST(Arrays, AResizableArrayGrowsAndShrinksWithPushPopAndResize) {
  EXPECT_RGB(shade("float sum(float a[]) { float t = 0, i; for (i = 0; i < arraylength(a); i += 1) t += a[i]; return t; }\n"
                   "surface t(float n = 4) {\n"
                   "  float a[];\n"
                   "  float i, empty = arraylength(a);\n"
                   "  for (i = 1; i <= n; i += 1) push(a, i * 10);\n"  // 10 20 30 40
                   "  float last = pop(a);\n"                         // 10 20 30
                   "  resize(a, arraylength(a) + 1);\n"
                   "  a[3] = last + 1;\n"                             // 10 20 30 41
                   "  Ci = color(sum(a), arraylength(a) + empty, last);\n"
                   "}\n"),
             101, 4, 40);
  // Assigned whole, it takes the value's length; passed to an output parameter, it comes back.
  EXPECT_RGB(shade("void twice(output float a[]) { float i; for (i = 0; i < arraylength(a); i += 1) a[i] *= 2; }\n"
                   "surface t() { float b[3] = {1, 2, 3}; float a[]; push(a, 5); twice(a); float c[]; c = b; push(c, 4);\n"
                   "  Ci = color(a[0], arraylength(a), arraylength(c) * 10 + c[3]); }\n"),
             10, 1, 44);
  // Pushes under a varying condition: each fragment's own length.
  FragmentInputs in = random_fragment(1);
  in[lang::Global::s] = Value::scalar(0.7f);
  EXPECT_RGB(shade(surface("color c[]; push(c, color(1, 2, 3)); if (s > 0.5) push(c, 5); Ci = c[arraylength(c) - 1] * arraylength(c);"), in),
             10, 10, 10);
}

TEST(Arrays, OnlyAResizableArrayChangesLength) {
  const auto errors = [](const std::string& src) { return diagnostics_of(surface(src)); };
  EXPECT_NE(errors("float a[3]; push(a, 1); Ci = a[0];").find("'a' has a fixed length of 3 [resizable-array]"), std::string::npos);
  EXPECT_NE(errors("float x; push(x, 1); Ci = x;").find("[resizable-array]"), std::string::npos);
  EXPECT_NE(errors("float a[]; push(a, \"no\"); Ci = a[0];").find("[type-mismatch]"), std::string::npos);
  std::string many = "float a[]; float i;";
  for (int k = 0; k <= lang::Type::kResizableCapacity; ++k) many += " push(a, 1);";
  EXPECT_NE(errors(many + " Ci = a[0];").find("a resizable array holds at most 64 elements"), std::string::npos);
}

TEST(Arrays, AShaderParameterBindsElementByElement) {
  auto plain = compile("surface s(float w[2] = {1, 2}) { Ci = color(w[0], w[1], 0); }", false);
  std::map<std::string, Value> params{{"w[1]", Value::scalar(7)}};
  EvalContext ctx;
  RunResult r = interpret(*plain->module, random_fragment(1), params, ctx);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_RGB(r.results[0], 1, 7, 0);
}

TEST(Spline, TheBasesByName) {
  // linear: between the second and the second-last knots; b-spline: equal knots give that value
  // (its weights sum to one); bezier (0, 0, 1, 1) at 1/2: 3/8 + 1/8; hermite from 0 to 1 with
  // flat tangents at 1/2: -2/8 + 3/4.
  EXPECT_RGB(shade(surface("Ci = color(spline(\"linear\", 0.5, 0, 1, 3, 9), spline(\"b-spline\", 0.3, 2, 2, 2, 2, 2), "
                           "spline(\"bezier\", 0.5, 0, 0, 1, 1));")),
             2, 2, 0.5f);
  EXPECT_RGB(shade(surface("Ci = color(spline(\"hermite\", 0.5, 0, 0, 1, 0), spline(\"catmull-rom\", 0.25, 0, 1, 2, 3, 4), "
                           "spline(0.25, 0, 1, 2, 3, 4));")),
             0.5f, 1.5f, 1.5f);
  // Knots in an array, and thirteen of them (the corpus's case).
  EXPECT_RGB(shade(surface("float k[5] = {0, 1, 2, 3, 4}; color c[4] = {0, 1, 2, 3};"
                           "Ci = color(spline(0.25, k), comp(spline(\"linear\", 0.5, c), 0), "
                           "spline(\"catmull-rom\", 0.5, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10));")),
             1.5f, 1.5f, 5);
}

}  // namespace
}  // namespace passlab::ir

// ---- message passing, renderer queries, periodic noise -------------------------------------------

namespace passlab::ir {
namespace {

TEST(MessagePassing, LightsourceReadsTheVisitedLightsParameter) {
  // The default distant light has intensity 1 and no __nonspecular.
  const std::string src = surface(
      "normal Nf = normalize(N); float k = -1, ns = -1, got = 0, none = 0;\n"
      "illuminance (P, Nf, PI / 2) { got = lightsource(\"intensity\", k); none = lightsource(\"__nonspecular\", ns); }\n"
      "Ci = color(got + 10 * none, k, ns);");
  EXPECT_RGB(shade(src, facing(-0.3f, 0.5f, -1)), 1, 1, -1);
}

TEST(MessagePassing, ALightReadsTheSurfacesParameterAndRendererQueriesAnswer) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("passlab_ir_messages_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "msg.sl") << "light msg() {\n  float kd = 5;\n  float found = surface(\"Kd\", kd);\n"
                                   "  illuminate(point(0, 0, 0)) { Cl = color(kd, found, surface(\"nothing\", kd)); }\n}\n";
  std::ofstream(dir / "msg.lights.json") << R"({ "lights": [ { "shader": "msg.sl" } ] })";
  const Value v = shade("surface s(float Kd = 0.25) {\n"
                        "  color c = 0;\n"
                        "  illuminance (P) { c += Cl; }\n"
                        "  string who = \"\";\n"
                        "  float is = rendererinfo(\"renderer\", who), other = 0, attr = attribute(\"identifier:name\", other);\n"
                        "  Ci = c + color(0, is * (who == \"Passlab\" ? 10 : 0), attr);\n"
                        "}\n",
                        random_fragment(1), (dir / "msg.lights.json").string());
  std::filesystem::remove_all(dir);
  EXPECT_RGB(v, 0.25f, 11, 0);
}

TEST(Library, PeriodicNoiseRepeatsWithItsPeriodAndStaysInRange) {
  for (int seed = 1; seed <= 10; ++seed) {
    const FragmentInputs in = random_fragment(static_cast<std::uint64_t>(seed));
    const Value v = shade(surface("Ci = color(pnoise(s * 10, 4) - pnoise(s * 10 + 4, 4), "
                                  "pnoise(P, point(2, 3, 5)) - pnoise(P + point(2, -3, 10), point(2, 3, 5)), "
                                  "pnoise(s, t, 1.5, 2));"),
                          in);
    EXPECT_NEAR(v.f[0], 0, 1e-4f);
    EXPECT_NEAR(v.f[1], 0, 1e-4f);
    EXPECT_GE(v.f[2], 0.0f);
    EXPECT_LE(v.f[2], 1.0f);
  }
}

}  // namespace
}  // namespace passlab::ir

// ---- the rest of RI 3.2's geometry and matrix functions -----------------------------------------

namespace passlab::ir {
namespace {

TEST(Geometry, PtlinedRotateAndTheSpecularBrdf) {
  EXPECT_RGB(shade(surface("Ci = color(ptlined(point(0, 0, 0), point(2, 0, 0), point(1, 1, 0)), "
                           "ptlined(point(0, 0, 0), point(2, 0, 0), point(3, 0, 0)), "
                           "ptlined(point(1, 1, 1), point(1, 1, 1), point(1, 1, 3)));")),
             1, 1, 2);
  const Value r = shade_vector("vector(rotate(point(1, 0, 0), PI / 2, point(0, 0, 0), point(0, 0, 1)))");
  EXPECT_NEAR(r.f[0], 0, 1e-6f);
  EXPECT_NEAR(r.f[1], 1, 1e-6f);
  EXPECT_NEAR(r.f[2], 0, 1e-6f);
  // Head on, H = N: pow(1, 1/roughness) = 1; at 60 degrees between L and V, N along H: still 1.
  EXPECT_RGB(shade(surface("Ci = specularbrdf(vector(0, 0, 1), normal(0, 0, 1), vector(0, 0, 1), 0.5);")), 1, 1, 1);
}

TEST(Matrices, DeterminantAndPostconcatenatedTransforms) {
  EXPECT_RGB(shade(surface("Ci = color(determinant(matrix(2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1)), "
                           "determinant(matrix 1), determinant(matrix(1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)));")),
             24, 1, -2);
  EXPECT_RGB(shade_vector("vector(transform(translate(matrix 1, vector(1, 2, 3)), point(0, 0, 0)))"), 1, 2, 3);
  EXPECT_RGB(shade_vector("vector(transform(scale(matrix 1, point(2, 3, 4)), point(1, 1, 1)))"), 2, 3, 4);
  // Scale, then translate: (1, 1, 1) -> (2, 2, 2) -> (3, 2, 2).
  EXPECT_RGB(shade_vector("vector(transform(translate(scale(matrix 1, point(2, 2, 2)), vector(1, 0, 0)), point(1, 1, 1)))"), 3, 2, 2);
  const Value r = shade_vector("vector(transform(rotate(matrix 1, PI / 2, vector(0, 0, 1)), point(1, 0, 0)))");
  EXPECT_NEAR(r.f[0], 0, 1e-6f);
  EXPECT_NEAR(r.f[1], 1, 1e-6f);
}

}  // namespace
}  // namespace passlab::ir
