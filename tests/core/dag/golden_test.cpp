// SPDX-License-Identifier: GPL-3.0-or-later
// Golden tests: every sample's fragment DAG as JSON and DOT must match the files checked in under
// tests/data/golden, byte for byte. Run with PASSLAB_UPDATE_GOLDEN=1 to rewrite them after an
// intended change (and review the diff).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/dag/export.h"
#include "core/dag/flatten.h"
#include "tests/support/samples.h"

namespace passlab {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Paths in spans are made relative to the samples folder so the goldens hold on any checkout.
std::string relative_paths(std::string text) {
  const std::string prefix = std::string(PASSLAB_SAMPLES_DIR) + "/";
  for (std::size_t at; (at = text.find(prefix)) != std::string::npos;) text.replace(at, prefix.size(), "samples/");
  return text;
}

struct Outputs {
  std::string json, dot;
};

Outputs render(const std::string& name) {
  auto prog = test::compile_sample(name);
  EXPECT_TRUE(prog->ok()) << lang::format_text(prog->diagnostics.items(), *prog->sources);
  if (!prog->ok()) return {};
  lang::DiagnosticList sink;
  auto dag = dag::flatten(*prog->module, prog->binding, sink);
  EXPECT_TRUE(dag);
  if (!dag) return {};
  return {relative_paths(dag::to_json(*dag, *prog->sources).dump(1)) + "\n", dag::to_dot(*dag)};
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, DagJsonAndDotMatchCheckedInFiles) {
  Outputs out = render(GetParam());
  std::string base = std::string(PASSLAB_TESTDATA_DIR) + "/golden/" + GetParam();
  if (std::getenv("PASSLAB_UPDATE_GOLDEN")) {
    std::ofstream(base + ".dag.json", std::ios::binary) << out.json;
    std::ofstream(base + ".dag.dot", std::ios::binary) << out.dot;
    GTEST_SKIP() << "golden files rewritten";
  }
  std::string want_json = read_file(base + ".dag.json");
  std::string want_dot = read_file(base + ".dag.dot");
  ASSERT_FALSE(want_json.empty()) << "missing " << base << ".dag.json (run with PASSLAB_UPDATE_GOLDEN=1)";
  EXPECT_EQ(out.json, want_json) << "the DAG JSON of " << GetParam() << " changed";
  EXPECT_EQ(out.dot, want_dot) << "the DAG DOT of " << GetParam() << " changed";
}

TEST_P(Golden, OutputIsDeterministic) {
  Outputs a = render(GetParam());
  Outputs b = render(GetParam());
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.dot, b.dot);
}

TEST_P(Golden, DotDrawsPaperShapes) {
  Outputs out = render(GetParam());
  auto j = nlohmann::json::parse(out.json);
  for (const auto& n : j["nodes"]) {
    std::string id = "n" + std::to_string(n["id"].get<int>()) + " [";
    std::size_t at = out.dot.find("  " + id);
    ASSERT_NE(at, std::string::npos) << id;
    std::string line = out.dot.substr(at, out.dot.find('\n', at) - at);
    std::string kind = n["kind"];
    if (kind == "texture") {
      EXPECT_NE(line.find("shape=diamond"), std::string::npos) << line;
    } else if (kind == "interpolant") {
      EXPECT_NE(line.find("shape=triangle"), std::string::npos) << line;
    } else if (kind == "constant") {
      EXPECT_NE(line.find("shape=square"), std::string::npos) << line;
    }
    bool mr = n["parents"].get<int>() > 1 && (kind == "operation" || kind == "texture");
    EXPECT_EQ(line.find("fillcolor=gray80") != std::string::npos, mr) << line;
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, Golden, ::testing::ValuesIn(test::sample_surfaces()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace passlab
