// SPDX-License-Identifier: GPL-3.0-or-later
// The backend registry: every backend is listed once, targets meet their backend through it, and a
// target naming no known backend, or with an unsound machine, is refused with its file named.
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/registry/registry.h"
#include "backends/rpu/registration.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"

namespace passlab::backends {
namespace {

using ::testing::HasSubstr;

TEST(BackendRegistry, ListsEachBackendOnceWithTheDefaultFirst) {
  std::set<std::string> seen;
  for (const Backend& b : all()) {
    EXPECT_TRUE(seen.insert(b.name).second) << b.name;
    EXPECT_FALSE(b.description.empty()) << b.name;
    EXPECT_NE(static_cast<bool>(b.make), b.whole_programs) << b.name << ": a backend either partitions a DAG or runs whole programs";
  }
  EXPECT_EQ(seen, (std::set<std::string>{"fp", "combiners", "rpu"}));
  EXPECT_EQ(find("")->name, "fp");
  EXPECT_EQ(find("nope"), nullptr);
  EXPECT_EQ(names(), "fp, combiners, rpu");
}

TEST(BackendRegistry, EveryPresetTargetIsSoundAndMeetsItsBackend) {
  for (const std::string& name : partition::preset_targets()) {
    lang::Diagnostics error;
    auto t = partition::load_target(name, &error);
    ASSERT_TRUE(t) << error.text();
    EXPECT_TRUE(check_target(*t, &error)) << error.text();
    EXPECT_FALSE(runs_whole_programs(*t)) << name;
  }
  EXPECT_TRUE(runs_whole_programs(rpu::target("RPU", "thesis_example")));
}

// The RPU keeps its machine's preset name where other backends keep JSON: writing the target out
// (the Studio does when its panel is edited) gives a string, and reading that back the same
// machine. Editing the panel on the RPU target crashed the Studio.
TEST(BackendRegistry, AnRpuTargetWritesAndReadsBackItsMachine) {
  const std::string text = partition::target_to_json(rpu::target("RPU (thesis example)", "thesis_example"));
  EXPECT_NE(text.find("\"rpu\": \"thesis_example\""), std::string::npos) << text;
  lang::Diagnostics error;
  auto back = partition::parse_target(text, "mine.json", &error);
  ASSERT_TRUE(back) << error.text();
  EXPECT_EQ(rpu::machine_of(*back), "thesis_example");
  EXPECT_TRUE(runs_whole_programs(*back));
}

TEST(BackendRegistry, AnUnknownBackendOrAnUnsoundMachineIsRefusedWithItsFile) {
  lang::Diagnostics error;
  auto t = partition::parse_target(R"({"name": "x", "backend": "combinerz", "combinerz": {}})", "mine.json", &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_FALSE(check_target(*t, &error));
  EXPECT_THAT(error.text(), ::testing::AllOf(HasSubstr("mine.json"), HasSubstr("unknown backend \"combinerz\""), HasSubstr("fp, combiners, rpu")));
  EXPECT_EQ(error.summary().rfind("mine.json:1:15: error: ", 0), 0u) << "at the \"backend\" key: " << error.summary();

  error.clear();
  t = partition::parse_target(R"({"name": "x", "backend": "combiners"})", "gf.json", &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_FALSE(check_target(*t, &error));
  EXPECT_THAT(error.text(), ::testing::AllOf(HasSubstr("gf.json"), HasSubstr("needs a \"combiners\" object")));

  error.clear();
  t = partition::parse_target(R"({"name": "x", "backend": "combiners", "combiners": {"general_stages": "eight"}})", "gf.json", &error);
  ASSERT_TRUE(t) << error.text();
  EXPECT_FALSE(check_target(*t, &error));
  EXPECT_THAT(error.text(), HasSubstr("gf.json"));

  error.clear();
  EXPECT_FALSE(check_target(rpu::target("RPU", "no_such_machine"), &error));
  EXPECT_THAT(error.text(), HasSubstr("no_such_machine"));
}

TEST(BackendRegistry, MakesTheShaderOnEachKindOfTarget) {
  auto prog = driver::compile_file(PASSLAB_SAMPLES_DIR "/combiners/fig4_pin.sl", {});
  ASSERT_TRUE(prog->ok());
  auto d = dag::flatten(*prog->module, prog->binding, prog->diagnostics);
  ASSERT_TRUE(d);
  for (const char* name : {"PC5", "geforce3"}) {
    auto t = partition::load_target(name, nullptr);
    ASSERT_TRUE(t) << name;
    lang::DiagnosticList refused;
    auto program = make_program(*d, *t, refused);
    ASSERT_TRUE(program) << name;
    EXPECT_TRUE(refused.items().empty());
    EXPECT_FALSE(program->graph().empty());
  }
  lang::DiagnosticList refused;
  EXPECT_EQ(make_program(*d, rpu::target("RPU", "rpu"), refused), nullptr);
  ASSERT_EQ(refused.items().size(), 1u);
  EXPECT_THAT(refused.items()[0].message, HasSubstr("runs whole programs"));
}

}  // namespace
}  // namespace passlab::backends
