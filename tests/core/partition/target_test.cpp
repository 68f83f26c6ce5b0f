// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for target presets (the RDS paper's PC1-PC8 and hardware targets), their validation, and cost models.
#include "core/partition/target.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace passlab::partition {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int U = kUnlimited;

// Runs each test with PASSLAB_DATA_DIR unset (so presets come from the source tree) and gives it
// a private scratch directory; restores the environment afterwards.
class TargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* env = std::getenv("PASSLAB_DATA_DIR")) saved_env_ = env;
    ::unsetenv("PASSLAB_DATA_DIR");
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scratch_ = fs::temp_directory_path() /
               ("passlab_target_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  void TearDown() override {
    if (saved_env_)
      ::setenv("PASSLAB_DATA_DIR", saved_env_->c_str(), 1);
    else
      ::unsetenv("PASSLAB_DATA_DIR");
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    fs::path p = scratch_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  // Parses `text` and returns the error (empty if it parsed).
  static std::string parse_error(const std::string& text) {
    lang::Diagnostics error;
    auto t = parse_target(text, "test.json", &error);
    EXPECT_EQ(t.has_value(), !error.has_errors()) << error.text();
    return error.text();
  }

  fs::path scratch_;
  std::optional<std::string> saved_env_;
};

struct PaperConfig {
  const char* name;
  Limits limits;
};

void expect_limits(const Limits& got, const Limits& want, const std::string& what) {
  EXPECT_EQ(got.operations, want.operations) << what;
  EXPECT_EQ(got.registers, want.registers) << what;
  EXPECT_EQ(got.textures, want.textures) << what;
  EXPECT_EQ(got.interpolants, want.interpolants) << what;
  EXPECT_EQ(got.dependent_levels, want.dependent_levels) << what;
}

// ---------------------------------------------------------------------------------------------
// Presets

TEST_F(TargetTest, PaperPipelineConfigurationsMatchTable2) {
  // o/r/t/v per Table 2 (∞ = kUnlimited); the simulated pipeline has no dependent-texture limit.
  const std::vector<PaperConfig> table = {
      {"PC1", {6, U, U, U, U}},     {"PC2", {U, 4, U, U, U}},    {"PC3", {U, U, 4, U, U}},
      {"PC4", {U, U, U, 4, U}},     {"PC5", {6, 4, 4, 4, U}},    {"PC6", {24, 8, 8, 8, U}},
      {"PC7", {128, 12, 16, 12, U}}, {"PC8", {U, U, U, U, U}},
  };
  for (const auto& row : table) {
    lang::Diagnostics error;
    auto t = load_target(row.name, &error);
    ASSERT_TRUE(t) << row.name << ": " << error.text();
    EXPECT_EQ(t->name, row.name);
    EXPECT_FALSE(t->description.empty()) << row.name;
    EXPECT_FALSE(t->restore_uses_interpolant) << row.name;
    EXPECT_THAT(t->source, HasSubstr(std::string(row.name) + ".json"));
    expect_limits(t->limits, row.limits, row.name);
  }
}

TEST_F(TargetTest, DescriptionsNameTheConfiguration) {
  lang::Diagnostics error;
  auto pc5 = load_target("PC5", &error);
  ASSERT_TRUE(pc5) << error.text();
  EXPECT_THAT(pc5->description, HasSubstr("balanced: 6o/4r/4t/4v"));
  auto pc1 = load_target("PC1", &error);
  ASSERT_TRUE(pc1) << error.text();
  EXPECT_THAT(pc1->description, HasSubstr("operation-limited: 6o/∞r/∞t/∞v"));
}

TEST_F(TargetTest, HardwarePresets) {
  lang::Diagnostics error;
  auto radeon = load_target("radeon8500", &error);
  ASSERT_TRUE(radeon) << error.text();
  expect_limits(radeon->limits, {16, 6, 6, 6, 1}, "radeon8500");

  auto webgl = load_target("webgl1", &error);
  ASSERT_TRUE(webgl) << error.text();
  expect_limits(webgl->limits, {64, 16, 8, 8, U}, "webgl1");
  EXPECT_FALSE(webgl->restore_uses_interpolant);  // gl_FragCoord

  auto ps2 = load_target("ps_2_0", &error);
  ASSERT_TRUE(ps2) << error.text();
  expect_limits(ps2->limits, {96, 12, 16, 10, 4}, "ps_2_0");
  EXPECT_TRUE(ps2->restore_uses_interpolant);  // no vPos before ps_3_0
}

TEST_F(TargetTest, EveryPresetLoadsAndSatisfiesTheMinimumResourceAssumption) {
  // Paper: with branching factor b = 3 a pass must hold b+1 operations, b+1 textures, b registers,
  // 1 interpolant and 1 dependent level, so any node can run alone with restored children.
  const std::vector<std::string> presets = preset_targets();
  ASSERT_GE(presets.size(), 11u);
  EXPECT_TRUE(std::is_sorted(presets.begin(), presets.end()));
  for (const auto& name : {"PC1", "PC2", "PC3", "PC4", "PC5", "PC6", "PC7", "PC8", "radeon8500", "webgl1", "ps_2_0", "nv30", "geforce1", "geforce3"})
    EXPECT_NE(std::find(presets.begin(), presets.end(), name), presets.end()) << name;
  for (const auto& name : presets) {
    lang::Diagnostics error;
    auto t = load_target(name, &error);
    ASSERT_TRUE(t) << name << ": " << error.text();
    EXPECT_EQ(t->name, name);
    EXPECT_FALSE(t->description.empty()) << name;
    // Register-combiner targets count stages and texture units; whether a node fits alone is
    // their compiler's to say (backends/combiners), and the machine description is its own.
    if (t->backend == "combiners") {
      EXPECT_FALSE(t->machine_json.empty()) << name;
      continue;
    }
    Resources minimum;
    minimum.operations = 4;
    minimum.registers = 3;
    minimum.textures = 4;
    minimum.interpolants = 1;
    minimum.dependent_levels = 1;
    EXPECT_EQ(exceeded(minimum, t->limits), "") << name;
  }
}

TEST_F(TargetTest, PresetNamesAreCaseInsensitive) {
  for (const char* spelling : {"pc5", "Pc5", "PC5", "pC5"}) {
    lang::Diagnostics error;
    auto t = load_target(spelling, &error);
    ASSERT_TRUE(t) << spelling << ": " << error.text();
    EXPECT_EQ(t->name, "PC5");
  }
  lang::Diagnostics error;
  auto r = load_target("RADEON8500", &error);
  ASSERT_TRUE(r) << error.text();
  EXPECT_EQ(r->name, "radeon8500");
  auto w = load_target("WebGL1", &error);
  ASSERT_TRUE(w) << error.text();
  EXPECT_EQ(w->name, "webgl1");
}

TEST_F(TargetTest, UnknownPresetListsTheAvailableOnes) {
  lang::Diagnostics error;
  EXPECT_FALSE(load_target("PC9", &error));
  EXPECT_THAT(error.text(), HasSubstr("PC9"));
  EXPECT_THAT(error.text(), HasSubstr("PC1, PC2"));
  EXPECT_THAT(error.text(), HasSubstr("radeon8500"));
  EXPECT_THAT(error.text(), HasSubstr("webgl1"));
  EXPECT_THAT(error.text(), HasSubstr("ps_2_0"));
}

TEST_F(TargetTest, NullErrorPointerIsAllowed) {
  EXPECT_FALSE(load_target("no-such-preset", nullptr));
  EXPECT_FALSE(parse_target("{", "x", nullptr));
  EXPECT_FALSE(parse_cost_model("garbage", nullptr));
}

TEST_F(TargetTest, DataDirEnvironmentVariableMovesThePresetDirectory) {
  write("res/targets/Mine.json", R"({"name": "Mine", "limits": {"operations": 10}})");
  ::setenv("PASSLAB_DATA_DIR", (scratch_ / "res").c_str(), 1);
  EXPECT_EQ(targets_dir(), (scratch_ / "res").string() + "/targets");
  EXPECT_EQ(preset_targets(), std::vector<std::string>{"Mine"});
  lang::Diagnostics error;
  auto t = load_target("mine", &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_EQ(t->limits.operations, 10);
  EXPECT_FALSE(load_target("PC1", &error));
  EXPECT_THAT(error.text(), HasSubstr("available: Mine"));

  ::setenv("PASSLAB_DATA_DIR", (scratch_ / "empty").c_str(), 1);
  EXPECT_TRUE(preset_targets().empty());
  EXPECT_FALSE(load_target("PC1", &error));
  EXPECT_THAT(error.text(), HasSubstr("no presets found"));

  ::unsetenv("PASSLAB_DATA_DIR");
  EXPECT_THAT(targets_dir(), HasSubstr("resources/targets"));
}

// ---------------------------------------------------------------------------------------------
// Loading by path and validation

TEST_F(TargetTest, LoadsByPath) {
  const std::string path = write("custom.json", R"({
    "name": "tiny", "description": "a user target",
    "limits": {"operations": 8, "registers": 3, "textures": null, "dependent_levels": 2},
    "restore_uses_interpolant": true
  })");
  lang::Diagnostics error;
  auto t = load_target(path, &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_EQ(t->name, "tiny");
  EXPECT_EQ(t->description, "a user target");
  EXPECT_EQ(t->source, path);
  expect_limits(t->limits, {8, 3, U, U, 2}, "tiny");  // missing interpolants = unlimited
  EXPECT_TRUE(t->restore_uses_interpolant);
}

// A problem is a diagnostic like the compiler's, at its key in the file, with the line shown.
TEST_F(TargetTest, AProblemPointsAtItsKeyInTheFile) {
  const std::string text = "{\n  \"name\": \"x\",\n  \"limits\": {\"operations\": 6, \"registers\": -3}\n}\n";
  lang::Diagnostics d;
  EXPECT_FALSE(parse_target(text, "mine.json", &d));
  ASSERT_EQ(d.items().size(), 1u);
  EXPECT_EQ(d.items()[0].code, "target");
  EXPECT_EQ(d.text(),
            "mine.json:3:31: error: \"limits.registers\" must not be negative (use null for unlimited), got -3 [target]\n"
            "    \"limits\": {\"operations\": 6, \"registers\": -3}\n"
            "                                ^~~~~~~~~~~\n");
}

TEST_F(TargetTest, AnythingEndingInJsonIsAPath) {
  // A bare file name ending in .json is taken relative to the working directory, not as a preset.
  lang::Diagnostics error;
  EXPECT_FALSE(load_target("PC1.json", &error));
  EXPECT_THAT(error.text(), HasSubstr("PC1.json: error: cannot read the target file [file-not-found]"));

  const std::string preset = targets_dir() + "/PC3.json";
  auto t = load_target(preset, &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_EQ(t->name, "PC3");
}

TEST_F(TargetTest, MinimalTargetIsUnlimited) {
  lang::Diagnostics error;
  auto t = parse_target(R"({"name": "free"})", "", &error);
  ASSERT_TRUE(t) << error.text();
  expect_limits(t->limits, {U, U, U, U, U}, "free");
  EXPECT_EQ(t->description, "");
  EXPECT_FALSE(t->restore_uses_interpolant);
  EXPECT_EQ(t->derivatives, Derivatives::Interpolants);  // what every fragment rasterizer knows
  EXPECT_EQ(t->source, "");
}

TEST_F(TargetTest, DerivativesSayWhichTheTargetTakes) {
  // The register-combiner presets have none (no interpolant reaches a combiner but through a
  // texture shader); the fragment-program presets take those of interpolants, but for NV30 and
  // NV40, whose NV_fragment_program and NV_fragment_program2 have DDX and DDY.
  lang::Diagnostics error;
  for (const std::string& name : preset_targets()) {
    auto t = load_target(name, &error);
    ASSERT_TRUE(t) << error.text();
    const Derivatives want = t->backend == "combiners" ? Derivatives::None : name == "nv30" || name == "nv40" ? Derivatives::Quad : Derivatives::Interpolants;
    EXPECT_EQ(t->derivatives, want) << name;
  }
  auto quad = parse_target(R"({"name": "x", "derivatives": "quad"})", "", &error);
  ASSERT_TRUE(quad) << error.text();
  EXPECT_EQ(quad->derivatives, Derivatives::Quad);
  EXPECT_THAT(target_to_json(*quad), HasSubstr("\"derivatives\": \"quad\""));
  auto none = parse_target(R"({"name": "x", "derivatives": "none"})", "", &error);
  ASSERT_TRUE(none) << error.text();
  EXPECT_EQ(none->derivatives, Derivatives::None);
  EXPECT_THAT(target_to_json(*none), HasSubstr("\"derivatives\": \"none\""));
  EXPECT_THAT(parse_error(R"({"name": "x", "derivatives": "quads"})"),
              ::testing::AllOf(HasSubstr("\"derivatives\" must be \"none\", \"interpolants\" or \"quad\""), HasSubstr("\"quads\"")));
  EXPECT_THAT(parse_error(R"({"name": "x", "derivatives": true})"), HasSubstr("\"derivatives\""));
}

TEST_F(TargetTest, MissingFile) {
  lang::Diagnostics error;
  EXPECT_FALSE(load_target((scratch_ / "nope.json").string(), &error));
  EXPECT_THAT(error.text(), HasSubstr("nope.json"));
  EXPECT_THAT(error.text(), HasSubstr("cannot read"));
}

TEST_F(TargetTest, BadJsonNamesTheFile) {
  const std::string path = write("broken.json", R"({"name": "x", "limits": {)");
  lang::Diagnostics error;
  EXPECT_FALSE(load_target(path, &error));
  EXPECT_THAT(error.text(), HasSubstr(path));
  EXPECT_THAT(error.text(), HasSubstr("invalid JSON"));
}

TEST_F(TargetTest, ANumberTooLargeForADoubleIsAnErrorAtItsLine) {
  // Found by the target fuzzer: it ended the process.
  const std::string path = write("huge.json", "{\"name\": \"x\",\n \"limits\": {\"operations\": 1e999}}");
  lang::Diagnostics error;
  EXPECT_FALSE(load_target(path, &error));
  EXPECT_THAT(error.text(), HasSubstr(path + ":2:"));
  EXPECT_THAT(error.text(), HasSubstr("too large for a double"));
}

TEST_F(TargetTest, ValidationErrorsNameTheFileAndTheKey) {
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": {"operations": -3}})"),
              ::testing::AllOf(HasSubstr("test.json"), HasSubstr("limits.operations"), HasSubstr("negative"),
                               HasSubstr("-3")));
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": {"registers": 4.5}})"),
              ::testing::AllOf(HasSubstr("test.json"), HasSubstr("limits.registers"), HasSubstr("integer"),
                               HasSubstr("4.5")));
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": {"textures": "4"}})"),
              ::testing::AllOf(HasSubstr("limits.textures"), HasSubstr("integer")));
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": {"interpolants": true}})"), HasSubstr("limits.interpolants"));
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": {"operations": 99999999999}})"),
              ::testing::AllOf(HasSubstr("limits.operations"), HasSubstr("too large")));
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": {"temporaries": 4}})"),
              ::testing::AllOf(HasSubstr("test.json"), HasSubstr("unknown key"), HasSubstr("limits.temporaries")));
  EXPECT_THAT(parse_error(R"({"name": "x", "limit": {}})"),
              ::testing::AllOf(HasSubstr("test.json"), HasSubstr("unknown key"), HasSubstr("\"limit\"")));
  EXPECT_THAT(parse_error(R"({"name": "x", "limits": [6, 4]})"), HasSubstr("\"limits\" must be an object"));
  EXPECT_THAT(parse_error(R"({"description": "no name"})"),
              ::testing::AllOf(HasSubstr("test.json"), HasSubstr("missing"), HasSubstr("\"name\"")));
  EXPECT_THAT(parse_error(R"({"name": ""})"), HasSubstr("\"name\""));
  EXPECT_THAT(parse_error(R"({"name": 5})"), HasSubstr("\"name\""));
  EXPECT_THAT(parse_error(R"({"name": "x", "description": 1})"), HasSubstr("\"description\""));
  EXPECT_THAT(parse_error(R"({"name": "x", "restore_uses_interpolant": 1})"), HasSubstr("restore_uses_interpolant"));
  EXPECT_THAT(parse_error(R"([1, 2])"), HasSubstr("JSON object"));
  EXPECT_EQ(parse_error(R"({"name": "x", "limits": {"operations": 0, "dependent_levels": null}})"), "");
}

TEST_F(TargetTest, ABackendIsANameWithItsMachineInTheObjectOfThatName) {
  // Core names no backend: any backend name is kept with its machine object, for the registry
  // (backends/registry) to check; the object must be named after the backend the file names.
  lang::Diagnostics error;
  auto t = parse_target(R"({"name": "x", "backend": "my_gpu2", "my_gpu2": {"stages": 3}})", "test.json", &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_EQ(t->backend, "my_gpu2");
  EXPECT_EQ(t->machine_json, R"({"stages":3})");
  auto plain = parse_target(R"({"name": "x"})", "test.json", &error);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->backend, "") << "no backend: the default one";
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "My GPU"})"), ::testing::AllOf(HasSubstr("test.json"), HasSubstr("\"backend\"")));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": 3})"), HasSubstr("\"backend\""));
  EXPECT_THAT(parse_error(R"({"name": "x", "combiners": {}})"), ::testing::AllOf(HasSubstr("unknown key"), HasSubstr("\"combiners\""),
                                                                                HasSubstr("named after the backend")));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "a", "b": {}})"), ::testing::AllOf(HasSubstr("unknown key"), HasSubstr("\"b\"")));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "a", "a": [1]})"), HasSubstr("\"a\" must be an object"));
}

TEST_F(TargetTest, BadPresetFileInTheDirectoryNamesItsPath) {
  write("res/targets/Bad.json", R"({"name": "Bad", "limits": {"operations": -1}})");
  ::setenv("PASSLAB_DATA_DIR", (scratch_ / "res").c_str(), 1);
  lang::Diagnostics error;
  EXPECT_FALSE(load_target("bad", &error));
  EXPECT_THAT(error.text(), HasSubstr("Bad.json"));
  EXPECT_THAT(error.text(), HasSubstr("limits.operations"));
}

// ---------------------------------------------------------------------------------------------
// exceeded()

TEST_F(TargetTest, ExceededReportsTheFirstBrokenLimitInOrder) {
  const Limits pc5 = {6, 4, 4, 4, U};
  Resources r;
  EXPECT_EQ(exceeded(r, pc5), "");
  r.operations = 6;
  r.registers = 4;
  r.textures = 4;
  r.interpolants = 4;
  r.dependent_levels = 50;  // unlimited
  EXPECT_EQ(exceeded(r, pc5), "");
  r.operations = 7;
  EXPECT_EQ(exceeded(r, pc5), "operations: 7 > 6");
  r.registers = 5;
  EXPECT_EQ(exceeded(r, pc5), "operations: 7 > 6");
  r.operations = 6;
  EXPECT_EQ(exceeded(r, pc5), "registers: 5 > 4");
  r.registers = 4;
  r.textures = 9;
  r.interpolants = 24;
  EXPECT_EQ(exceeded(r, pc5), "textures: 9 > 4");
  r.textures = 0;
  EXPECT_EQ(exceeded(r, pc5), "interpolants: 24 > 4");

  const Limits radeon = {16, 6, 6, 6, 1};
  Resources d;
  d.dependent_levels = 2;
  EXPECT_EQ(exceeded(d, radeon), "dependent_levels: 2 > 1");

  Resources huge;
  huge.operations = huge.registers = huge.textures = huge.interpolants = huge.dependent_levels = 1000000;
  EXPECT_EQ(exceeded(huge, Limits{}), "");
  EXPECT_EQ(exceeded(huge, Limits{0, U, U, U, U}), "operations: 1000000 > 0");
}

TEST_F(TargetTest, Table1ShadersFitOnePassExactlyWhereTable3Says) {
  // Table 1 totals: a shader fits in one pass only if the PC allows them.
  struct Shader {
    const char* name;
    int ops, regs, tex, interp;
  };
  const Shader shaders[] = {{"RBP", 36, 7, 9, 24}, {"BMBP", 36, 5, 3, 6}, {"Wood", 208, 16, 6, 5}};
  for (const auto& s : shaders) {
    Resources r;
    r.operations = s.ops;
    r.registers = s.regs;
    r.textures = s.tex;
    r.interpolants = s.interp;
    for (int pc = 1; pc <= 8; ++pc) {
      lang::Diagnostics error;
      auto t = load_target("PC" + std::to_string(pc), &error);
      ASSERT_TRUE(t) << error.text();
      const bool fits = exceeded(r, t->limits).empty();
      // Table 3: one pass for PC8 always; BMBP also fits PC3 and PC7 in one pass.
      const bool expected = pc == 8 || (std::string(s.name) == "BMBP" && (pc == 3 || pc == 7));
      EXPECT_EQ(fits, expected) << s.name << " PC" << pc << ": " << exceeded(r, t->limits);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cost models

CostModel parse_ok(const std::string& spec) {
  lang::Diagnostics error;
  auto m = parse_cost_model(spec, &error);
  EXPECT_TRUE(m) << spec << ": " << error.text();
  return m.value_or(CostModel{"<failed>", -1, -1, -1, std::nullopt});
}

std::string parse_bad(const std::string& spec) {
  lang::Diagnostics error;
  auto m = parse_cost_model(spec, &error);
  EXPECT_FALSE(m) << spec << " parsed as " << (m ? m->name : "");
  EXPECT_TRUE(error.has_errors()) << spec;
  return error.text();
}

void expect_model(const CostModel& m, const std::string& name, double p, double t, double i) {
  EXPECT_EQ(m.name, name);
  EXPECT_DOUBLE_EQ(m.per_pass, p) << name;
  EXPECT_DOUBLE_EQ(m.per_texture, t) << name;
  EXPECT_DOUBLE_EQ(m.per_instruction, i) << name;
}

TEST_F(TargetTest, PaperCostModels) {
  expect_model(parse_ok("15p+5t+i"), "15p+5t+i", 15, 5, 1);
  expect_model(parse_ok("5p+3t+i"), "5p+3t+i", 5, 3, 1);
  expect_model(parse_ok("3p+2t+i"), "3p+2t+i", 3, 2, 1);
  expect_model(parse_ok("p+t+i"), "p+t+i", 1, 1, 1);
  expect_model(parse_ok("t+i"), "t+i", 0, 1, 1);
  expect_model(parse_ok("15.7p+1.36t+i"), "15.7p+1.36t+i", 15.7, 1.36, 1);

  const std::vector<CostModel> models = paper_cost_models();
  ASSERT_EQ(models.size(), 6u);
  const char* names[] = {"15p+5t+i", "5p+3t+i", "3p+2t+i", "p+t+i", "t+i", "15.7p+1.36t+i"};
  for (std::size_t k = 0; k < models.size(); ++k) EXPECT_EQ(models[k].name, names[k]);
  expect_model(models[0], "15p+5t+i", 15, 5, 1);
  expect_model(models[5], "15.7p+1.36t+i", 15.7, 1.36, 1);
}

TEST_F(TargetTest, MeasuredModelByName) {
  for (const char* name : {"measured", "radeon8500", "Measured", " RADEON8500 "})
    expect_model(parse_ok(name), "15.7p+1.36t+i", 15.7, 1.36, 1);
}

TEST_F(TargetTest, CostModelSpellings) {
  expect_model(parse_ok(" 15.7p + 1.36 t + i "), "15.7p+1.36t+i", 15.7, 1.36, 1);
  expect_model(parse_ok("i+5t+15p"), "15p+5t+i", 15, 5, 1);
  expect_model(parse_ok("i + t"), "t+i", 0, 1, 1);
  expect_model(parse_ok("15 p+5\tt+1i"), "15p+5t+i", 15, 5, 1);
  expect_model(parse_ok("15P+5T+I"), "15p+5t+i", 15, 5, 1);
  expect_model(parse_ok("1p+1t+1i"), "p+t+i", 1, 1, 1);
  expect_model(parse_ok("0p+t+i"), "t+i", 0, 1, 1);
  expect_model(parse_ok("15.0p+05t+i"), "15p+5t+i", 15, 5, 1);
  expect_model(parse_ok(".5t"), "0.5t", 0, 0.5, 0);
  expect_model(parse_ok("2.25i"), "2.25i", 0, 0, 2.25);
  expect_model(parse_ok("p"), "p", 1, 0, 0);
  // The canonical name parses back to the same model.
  for (const auto& m : paper_cost_models()) expect_model(parse_ok(m.name), m.name, m.per_pass, m.per_texture,
                                                          m.per_instruction);
}

TEST_F(TargetTest, BadCostModelsQuoteTheBadPart) {
  EXPECT_THAT(parse_bad("15x+5t+i"), HasSubstr("'15x'"));
  EXPECT_THAT(parse_bad("15p+5t+i+"), HasSubstr("empty term"));
  EXPECT_THAT(parse_bad("15p++i"), HasSubstr("empty term"));
  EXPECT_THAT(parse_bad("+i"), HasSubstr("empty term"));
  EXPECT_THAT(parse_bad("15p+3p"), ::testing::AllOf(HasSubstr("'p'"), HasSubstr("twice")));
  EXPECT_THAT(parse_bad("-15p+t"), HasSubstr("'-15p'"));
  EXPECT_THAT(parse_bad("15p-5t"), HasSubstr("'15p-5t'"));
  EXPECT_THAT(parse_bad("15"), HasSubstr("'15'"));
  EXPECT_THAT(parse_bad("15pt"), HasSubstr("'15pt'"));
  EXPECT_THAT(parse_bad("1.p"), HasSubstr("'1.p'"));
  EXPECT_THAT(parse_bad("1.2.3p"), HasSubstr("'1.2.3p'"));
  EXPECT_THAT(parse_bad("1 5p"), HasSubstr("'1 5p'"));
  EXPECT_THAT(parse_bad("banana"), HasSubstr("'banana'"));
  EXPECT_THAT(parse_bad("1e5p"), HasSubstr("'1e5p'"));
  EXPECT_THAT(parse_bad(""), HasSubstr("empty"));
  EXPECT_THAT(parse_bad("   "), HasSubstr("empty"));
  EXPECT_THAT(parse_bad("0p+0t"), HasSubstr("charges nothing"));
}

TEST_F(TargetTest, CostArithmetic) {
  const CostModel m = parse_ok("15p+5t+i");
  // The paper's check: RBP in one pass has 9 texture fetches and 27 other instructions.
  EXPECT_DOUBLE_EQ(m.cost(1, 9, 27), 87);
  EXPECT_DOUBLE_EQ(m.cost(1, 3, 33), 63);     // BMBP
  EXPECT_DOUBLE_EQ(m.cost(1, 33, 175), 355);  // Wood
  EXPECT_DOUBLE_EQ(m.cost(11, 23, 30), 310);  // Table 5, PC5
  EXPECT_DOUBLE_EQ(m.cost(3, 14, 30), 145);   // Table 5, PC7
  EXPECT_DOUBLE_EQ(m.cost(0, 0, 0), 0);
  EXPECT_DOUBLE_EQ(parse_ok("t+i").cost(100, 9, 27), 36);
  EXPECT_DOUBLE_EQ(parse_ok("measured").cost(2, 10, 5), 2 * 15.7 + 10 * 1.36 + 5);
  // The struct's defaults are the model Tables 3 and 5 use.
  EXPECT_DOUBLE_EQ(CostModel{}.cost(1, 9, 27), 87);
}

TEST(TargetJson, SavedTargetsLoadBackUnchanged) {
  lang::Diagnostics error;
  for (const auto& name : preset_targets()) {
    auto t = load_target(name, &error);
    ASSERT_TRUE(t) << error.text();
    const std::string text = target_to_json(*t);
    auto back = parse_target(text, "saved.json", &error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->name, t->name);
    EXPECT_EQ(back->description, t->description);
    EXPECT_EQ(back->limits.operations, t->limits.operations);
    EXPECT_EQ(back->limits.registers, t->limits.registers);
    EXPECT_EQ(back->limits.textures, t->limits.textures);
    EXPECT_EQ(back->limits.interpolants, t->limits.interpolants);
    EXPECT_EQ(back->limits.dependent_levels, t->limits.dependent_levels);
    EXPECT_EQ(back->restore_uses_interpolant, t->restore_uses_interpolant);
    EXPECT_EQ(back->derivatives, t->derivatives);
    EXPECT_EQ(target_to_json(*back), text);  // deterministic
  }
}

}  // namespace
}  // namespace passlab::partition
