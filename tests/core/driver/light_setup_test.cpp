// SPDX-License-Identifier: GPL-3.0-or-later
// Light setups: binding lights, parameters and spaces, and reporting mistakes where they are.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/driver/program.h"
#include "core/ir/interpreter.h"
#include "core/ir/lower.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

namespace fs = std::filesystem;

class LightSetup : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passlab_lights_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write("surf.sl", "surface surf(float Kd = 1) { Ci = Kd * diffuse(normalize(N)); }\n");
    write("pl.sl", "light pl(float intensity = 1; point from = point(0,0,0)) { illuminate(from) Cl = intensity; }\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::unique_ptr<driver::Program> compile(const std::string& lights_json) {
    write("surf.lights.json", lights_json);
    return driver::compile_file((dir_ / "surf.sl").string(), {});
  }
  const lang::Diagnostic* error(const driver::Program& p) {
    for (const auto& d : p.diagnostics.items())
      if (d.severity == lang::Severity::Error) return &d;
    return nullptr;
  }
  fs::path dir_;
};

TEST_F(LightSetup, BindsLightsSurfaceParametersAndSpaces) {
  auto p = compile(R"({"lights": [{"shader": "pl.sl", "params": {"intensity": 3, "from": [1, 2, 3]}}],
                       "surface": {"Kd": 0.5},
                       "spaces": {"shader": [1,0,0,0, 0,1,0,0, 0,0,1,0, 5,6,7,1]}})");
  ASSERT_TRUE(p->ok()) << lang::format_text(p->diagnostics.items(), *p->sources);
  ASSERT_EQ(p->binding.lights.size(), 1u);
  EXPECT_EQ(p->binding.lights[0].label, "pl#0");
  EXPECT_FLOAT_EQ(p->binding.lights[0].params.at("intensity").f[0], 3);
  EXPECT_FLOAT_EQ(p->binding.lights[0].params.at("from").f[2], 3);
  EXPECT_FLOAT_EQ(p->binding.surface_params.at("Kd").f[0], 0.5f);
  EXPECT_FLOAT_EQ(p->binding.spaces.at("shader")[12], 5);
}

TEST_F(LightSetup, UnknownParameterNamesTheKnownOnesAndTheLine) {
  auto p = compile("{\"lights\": [\n  {\"shader\": \"pl.sl\", \"params\": {\"intensty\": 3}}\n]}\n");
  const lang::Diagnostic* d = error(*p);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("no parameter 'intensty'"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("intensity"), std::string::npos);
  EXPECT_EQ(d->span.line, 2u);
}

TEST_F(LightSetup, WrongValueTypeIsReported) {
  auto p = compile(R"({"lights": [{"shader": "pl.sl", "params": {"from": [1, 2]}}]})");
  const lang::Diagnostic* d = error(*p);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("array of 3 numbers"), std::string::npos) << d->message;
}

TEST_F(LightSetup, InvalidJsonPointsAtTheLine) {
  auto p = compile("{\n  \"lights\": [\n    {\"shader\": \"pl.sl\",}\n  ]\n}\n");
  const lang::Diagnostic* d = error(*p);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("invalid JSON"), std::string::npos);
  EXPECT_EQ(d->span.line, 3u);
}

TEST_F(LightSetup, ANumberTooLargeForADoubleIsAnErrorAtItsLine) {
  auto p = compile("{\n  \"lights\": [\n    {\"shader\": \"pl.sl\", \"params\": {\"intensity\": -1e400}}\n  ]\n}\n");
  const lang::Diagnostic* d = error(*p);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("too large for a double"), std::string::npos) << d->message;
  EXPECT_EQ(d->span.line, 3u);
}

TEST_F(LightSetup, MissingLightShaderAndBrokenLightShader) {
  auto p = compile(R"({"lights": [{"shader": "nope.sl"}]})");
  ASSERT_NE(error(*p), nullptr);
  EXPECT_NE(error(*p)->message.find("nope.sl"), std::string::npos);
  write("bad.sl", "light bad() { illuminate(Ps) Cl = undefined_thing; }\n");
  auto q = compile(R"({"lights": [{"shader": "bad.sl"}]})");
  ASSERT_NE(error(*q), nullptr);
  EXPECT_EQ(error(*q)->code, "undeclared-identifier");
}

TEST_F(LightSetup, NoSetupMeansTheDefaultLights) {
  auto p = driver::compile_file((dir_ / "surf.sl").string(), {});
  ASSERT_TRUE(p->ok());
  EXPECT_TRUE(p->lights_file.empty());
  EXPECT_EQ(p->binding.lights.size(), 2u);  // a distant light and an ambient light
}

// A light may redirect L inside illuminate (uberlight-style lights do), and the surface's
// illuminance sees the L it set: a point light at a far-off place that sends its light along
// (0, -1, 1) shades like a solar light along that axis.
TEST_F(LightSetup, ALightThatAssignsLSendsThatDirection) {
  write("redirect.sl", "light redirect() { illuminate(point(40, -7, 3)) { Cl = 1; L = vector(0, -1, 1); } }\n");
  write("sun.sl", "light sun() { solar(vector(0, -1, 1), 0) Cl = 1; }\n");
  ir::FragmentInputs in = ir::random_fragment(2);
  in[lang::Global::N] = ir::Value::triple(lang::BaseType::Normal, 0, 0.6f, -0.8f);
  float lit[2];
  for (int k = 0; k < 2; ++k) {
    auto p = compile(std::string(R"({"lights": [{"shader": ")") + (k ? "sun.sl" : "redirect.sl") + R"("}]})");
    ASSERT_TRUE(p->ok() && p->module) << lang::format_text(p->diagnostics.items(), *p->sources);
    ir::EvalContext ctx;
    ir::RunResult r = ir::interpret(*p->module, in, p->binding.surface_params, ctx);
    ASSERT_TRUE(r.ok) << r.error;
    lit[k] = r.results[0].f[0];
  }
  EXPECT_GT(lit[0], 0.5f);
  EXPECT_EQ(lit[0], lit[1]);
}

TEST_F(LightSetup, LIsAssignedOnlyWhereALightDefinesIt) {
  write("outside.sl", "light outside() { L = vector(0, 0, 1); illuminate(point(0, 0, 0)) Cl = 1; }\n");
  auto p = compile(R"({"lights": [{"shader": "outside.sl"}]})");
  const lang::Diagnostic* d = error(*p);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->code, "light-global-outside-loop");
}

// The RPU's mapping of lights (a light shader compiled to a function that illuminance and the
// light functions call) shades exactly as the lights inlined: spot, point, solar and ambient
// lights, one that reads a surface global (s) and one that opts out of diffuse.
TEST_F(LightSetup, LightsAsFunctionsShadeAsInlinedLights) {
  write("surf.sl",
        "surface surf(float Kd = 0.8; float Ks = 0.4) {\n"
        "  normal Nf = faceforward(normalize(N), I);\n"
        "  color c = 0;\n"
        "  illuminance (P, Nf, PI / 2) c += Cl * (normalize(L) . Nf);\n"
        "  Ci = Kd * diffuse(Nf) + Ks * specular(Nf, -normalize(I), 0.2) + ambient() + 0.5 * c;\n"
        "}\n");
  write("stripes.sl", "light stripes(point from = point(2, 3, -1)) { illuminate(from) Cl = mod(floor(s * 8), 2); }\n");
  write("spot.sl",
        "light spot(point from = point(0, 4, 0); vector axis = vector(0, -1, 0.2); float __nondiffuse = 1) {\n"
        "  illuminate(from, axis, 0.6) Cl = color(1, 0.5, 0.25) / (L . L);\n"
        "}\n");
  write("sun.sl", "light sun() { solar(vector(0.3, -1, 0.5), 0) Cl = 0.7; }\n");
  write("amb.sl", "light amb() { Cl = 0.1; }\n");
  auto p = compile(R"({"lights": [{"shader": "stripes.sl"}, {"shader": "spot.sl"}, {"shader": "pl.sl", "params": {"from": [-1, 2, 0]}},
                                   {"shader": "sun.sl"}, {"shader": "amb.sl"}]})");
  ASSERT_TRUE(p->ok() && p->module) << lang::format_text(p->diagnostics.items(), *p->sources);
  ir::Binding calls = p->binding;
  calls.lights_as_functions = true;
  lang::DiagnosticList diags;
  std::optional<ir::Module> m = ir::lower(*p->unit, calls, diags);
  ASSERT_TRUE(m) << lang::format_text(diags.items(), *p->sources);
  ir::Module inlined = *ir::lower(*p->unit, p->binding, diags);
  // One function per light, whatever the number of places that visit it.
  std::map<std::string, const ir::Function*> lights;
  for (const ir::Function& f : m->functions)
    if (!f.light.empty()) lights[f.light] = &f;
  ASSERT_EQ(lights.size(), 5u);
  EXPECT_EQ(lights.at("stripes#0")->arg_names, (std::vector<std::string>{"Ps", "s"}));
  EXPECT_EQ(lights.at("pl#0")->arg_names, (std::vector<std::string>{"Ps"}));
  EXPECT_EQ(lights.at("pl#0")->result_names, (std::vector<std::string>{"Cl", "L", "lit"}));
  std::size_t calls_made = 0;
  for (const ir::Instr& in : m->shader().values) calls_made += in.op == ir::Op::Call;
  EXPECT_EQ(calls_made, 4u + 3u + 4u + 1u);  // illuminance, diffuse (the spot opts out), specular, ambient
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    ir::EvalContext a, b;
    ir::RunResult as_calls = ir::interpret(*m, in, p->binding.surface_params, a);
    ir::RunResult as_bodies = ir::interpret(inlined, in, p->binding.surface_params, b);
    ASSERT_TRUE(as_calls.ok && as_bodies.ok) << as_calls.error << as_bodies.error;
    for (int c = 0; c < 3; ++c) EXPECT_EQ(as_calls.results[0].f[c], as_bodies.results[0].f[c]) << "seed " << seed;
  }
}

TEST(Samples, EveryLightSetupBindsCleanly) {
  for (const std::string& name : test::sample_surfaces()) {
    auto p = test::compile_sample(name);
    EXPECT_TRUE(p->ok()) << name << ":\n" << lang::format_text(p->diagnostics.items(), *p->sources);
    EXPECT_FALSE(p->lights_file.empty()) << name << " has no light setup";
    EXPECT_FALSE(p->binding.lights.empty()) << name;
    for (const auto& d : p->diagnostics.items()) EXPECT_NE(d.severity, lang::Severity::Warning) << name << ": " << d.message;
  }
}

}  // namespace
}  // namespace passlab
