// SPDX-License-Identifier: GPL-3.0-or-later
// Screen-space derivatives in the reference interpreter: Du, Dv, Deriv, area and calculatenormal
// from forward differences to the fragments one pixel right and below, worked out by hand on
// fragments whose globals are affine in u and v (where the differences are exact).
#include <cmath>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/driver/program.h"
#include "core/ir/interpreter.h"
#include "core/lang/diagnostic.h"

namespace passlab::ir {
namespace {

using ::testing::HasSubstr;
using lang::Global;

std::unique_ptr<driver::Program> compile(const std::string& source, bool optimize) {
  driver::ProgramOptions o;
  o.optimize = optimize;
  o.verify = true;
  auto p = driver::compile_source("snippet.sl", source, o);
  if (!p->ok() || !p->module)
    throw std::runtime_error("snippet does not compile:\n" + lang::format_text(p->diagnostics.items(), *p->sources));
  return p;
}

// A fragment on the patch P(u, v) = (1, 2, 5) + u (2, 0, 0) + v (0, 3, 1), s = u, t = v: one
// pixel to the right u grows by 0.01, one below v by 0.02 (du = 0.01, dv = 0.02).
struct Patch {
  FragmentInputs here, right, below;
};
FragmentInputs on_patch(float u, float v) {
  FragmentInputs f = random_fragment(5);
  f[Global::u] = Value::scalar(u);
  f[Global::v] = Value::scalar(v);
  f[Global::s] = Value::scalar(u);
  f[Global::t] = Value::scalar(v);
  f[Global::P] = Value::triple(lang::BaseType::Point, 1 + 2 * u, 2 + 3 * v, 5 + v);
  f[Global::du] = Value::scalar(0.01f);
  f[Global::dv] = Value::scalar(0.02f);
  return f;
}
Patch patch(float u = 0.25f, float v = 0.5f) { return {on_patch(u, v), on_patch(u + 0.01f, v), on_patch(u, v + 0.02f)}; }

RunResult run(const std::string& body, const Patch& at, bool optimize = false) {
  auto p = compile("surface snippet() {\n" + body + "\n}\n", optimize);
  EvalContext ctx;
  RunOptions o;
  o.right = &at.right;
  o.below = &at.below;
  return interpret(*p->module, at.here, p->binding.surface_params, ctx, o);
}

// Ci's three components.
std::array<float, 3> ci(const std::string& body, const Patch& at = patch(), bool optimize = false) {
  RunResult r = run(body, at, optimize);
  if (!r.ok) throw std::runtime_error(r.error);
  EXPECT_FALSE(r.nonfinite) << body;
  return {r.results[0].f[0], r.results[0].f[1], r.results[0].f[2]};
}

TEST(Derivatives, OfTheParametersAreTheUnitSteps) {
  EXPECT_THAT(ci("Ci = color(Du(u), Dv(u), Du(v));"), testing::ElementsAre(testing::FloatNear(1, 1e-3f), testing::FloatNear(0, 1e-3f), testing::FloatNear(0, 1e-3f)));
  EXPECT_NEAR(ci("Ci = Dv(v);")[0], 1, 1e-3f);
}

TEST(Derivatives, OfAnAffineValueAreItsCoefficients) {
  // 3u - 2v + 7: Du 3, Dv -2.
  const auto c = ci("float x = 3 * u - 2 * v + 7; Ci = color(Du(x), Dv(x), 0);");
  EXPECT_NEAR(c[0], 3, 2e-3f);
  EXPECT_NEAR(c[1], -2, 2e-3f);
  // P's: Du(P) = (2, 0, 0), Dv(P) = (0, 3, 1); a triple is differentiated component by component.
  const auto pu = ci("Ci = color(Du(P));"), pv = ci("Ci = color(Dv(P));");
  EXPECT_THAT(pu, testing::ElementsAre(testing::FloatNear(2, 2e-3f), testing::FloatNear(0, 2e-3f), testing::FloatNear(0, 2e-3f)));
  EXPECT_THAT(pv, testing::ElementsAre(testing::FloatNear(0, 2e-3f), testing::FloatNear(3, 2e-3f), testing::FloatNear(1, 2e-3f)));
}

TEST(Derivatives, OfACurvedValueAreForwardDifferences) {
  // u^2 at u = 0.25 one step of 0.01 on: ((0.26)^2 - (0.25)^2) / 0.01 = 0.51 (the derivative is 0.5).
  EXPECT_NEAR(ci("Ci = Du(u * u);")[0], 0.51f, 1e-3f);
}

TEST(Derivatives, AreaAndNormalFollowTheSpecification) {
  // calculatenormal(P) = Du(P) ^ Dv(P) = (2, 0, 0) ^ (0, 3, 1) = (0, -2, 6).
  EXPECT_THAT(ci("Ci = color(calculatenormal(P));"),
              testing::ElementsAre(testing::FloatNear(0, 5e-3f), testing::FloatNear(-2, 5e-3f), testing::FloatNear(6, 5e-3f)));
  // area(P) = |Du(P) du ^ Dv(P) dv| = |(0, -2, 6)| 0.01 0.02 = 6.3246 * 2e-4.
  EXPECT_NEAR(ci("Ci = area(P);")[0], std::sqrt(40.0f) * 2e-4f, 1e-6f);
}

TEST(Derivatives, DerivIsTheSumOfTheRatiosAlongUAndV) {
  // Deriv(6u + v, u) = Du(6u + v) / Du(u) + (Dv(u) = 0: left out) = 6.
  EXPECT_NEAR(ci("Ci = Deriv(6 * u + v, u);")[0], 6, 1e-2f);
}

TEST(Derivatives, FollowTheProgramIntoFunctionsAndLoops) {
  // Each call's derivative is its own: Du(u) + Du(2u) + Du(3u) = 6, in a function and a loop, and
  // the neighbours' runs reach the second and third through the first.
  const std::string body =
      "float d = 0; float i; for (i = 1; i <= 3; i += 1) d += slope(i * u); Ci = d;";
  auto p = compile("float slope(float x) { return Du(x); }\nsurface snippet() {\n" + body + "\n}\n", false);
  const Patch at = patch();
  RunOptions o;
  o.right = &at.right;
  o.below = &at.below;
  RunResult r = interpret(*p->module, at.here, {}, EvalContext{}, o);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NEAR(r.results[0].f[0], 6, 1e-2f);
  // Optimised (inlined, unrolled or not) it is the same.
  EXPECT_NEAR(ci("float x = Du(u) + Du(2 * u) + Du(3 * u); Ci = x;", at, true)[0], 6, 1e-2f);
}

TEST(Derivatives, UnderBranchesTheNeighboursTakeToo) {
  // s is 0.25 here and 0.26 to the right: a branch on s > 0.255 goes one way here and the other
  // there, so the derivative inside it is undefined; on s > 0.1 all three agree.
  RunResult split = run("float x = 0; if (s > 0.255) x = Du(u); else x = Du(2 * u); Ci = x;", patch());
  ASSERT_TRUE(split.ok) << split.error;
  EXPECT_TRUE(split.nonfinite);
  EXPECT_NEAR(ci("float x = 0; if (s > 0.1) x = Du(2 * u); Ci = x;")[0], 2, 1e-2f);
}

TEST(Derivatives, ASecondDerivativeIsZeroAsOnHardware) {
  // One derivative per pixel pair: the neighbours read this fragment's Du(u * u), so its Du is 0.
  EXPECT_NEAR(ci("Ci = Du(Du(u * u));")[0], 0, 1e-6f);
}

TEST(Derivatives, WithoutNeighboursTheRunStopsWithAMessage) {
  auto p = compile("surface snippet() { Ci = Du(s); }", false);
  RunResult r = interpret(*p->module, random_fragment(1), {}, EvalContext{}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("screen-space derivatives"));
}

TEST(Derivatives, RandomNeighboursHaveUsableSteps) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    FragmentInputs in = random_fragment(seed);
    const Neighbours nb = random_neighbours(in, seed);
    const float ux = nb.right[Global::u].f[0] - in[Global::u].f[0], vy = nb.below[Global::v].f[0] - in[Global::v].f[0];
    const float vx = nb.right[Global::v].f[0] - in[Global::v].f[0], uy = nb.below[Global::u].f[0] - in[Global::u].f[0];
    EXPECT_GT(std::fabs(ux * vy - uy * vx), 1e-6f);
    EXPECT_NEAR(in[Global::du].f[0], std::fabs(ux) + std::fabs(uy), 1e-6f);
    auto p = compile("surface snippet() { Ci = color(Du(u), Dv(v), area(P)); }", false);
    RunOptions o;
    o.right = &nb.right;
    o.below = &nb.below;
    RunResult r = interpret(*p->module, in, {}, EvalContext{}, o);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NEAR(r.results[0].f[0], 1, 1e-2f);
    EXPECT_NEAR(r.results[0].f[1], 1, 1e-2f);
    EXPECT_GE(r.results[0].f[2], 0);
  }
}

}  // namespace
}  // namespace passlab::ir
