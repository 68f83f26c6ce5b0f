// SPDX-License-Identifier: GPL-3.0-or-later
// The fragment DAG verifier: every sample's DAG (with and without vertex hoisting) is well formed,
// and each invariant, broken on purpose, is reported with the node that breaks it.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/dag/flatten.h"
#include "core/dag/verifier.h"
#include "core/driver/program.h"
#include "tests/support/samples.h"

namespace passlab::dag {
namespace {

using ::testing::HasSubstr;

FragmentDag sample_dag(const std::string& name, bool hoist = true) {
  auto prog = driver::compile_file(test::sample_path(name), {});
  EXPECT_TRUE(prog->ok());
  FlattenOptions o;
  o.hoist_vertex_work = hoist;
  std::optional<FragmentDag> d = flatten(*prog->module, prog->binding, prog->diagnostics, o);
  EXPECT_TRUE(d) << name;
  return d ? *d : FragmentDag{};
}

std::string first(const FragmentDag& d) {
  const std::vector<std::string> problems = verify(d);
  return problems.empty() ? "" : problems.front();
}

TEST(DagVerifier, EverySampleIsWellFormed) {
  int checked = 0;
  for (const char* folder : {"shaders", "combiners"})
    for (const auto& e : std::filesystem::directory_iterator(test::sample_path(folder))) {
      if (e.path().extension() != ".sl") continue;
      const std::string name = std::string(folder) + "/" + e.path().filename().string();
      for (bool hoist : {false, true}) {
        const FragmentDag d = sample_dag(name, hoist);
        EXPECT_EQ(verify(d), std::vector<std::string>{}) << name << (hoist ? " (hoisted)" : "");
      }
      ++checked;
    }
  EXPECT_GE(checked, 10);
}

TEST(DagVerifier, EachBrokenInvariantIsReportedWithItsNode) {
  const FragmentDag good = sample_dag("shaders/plastic.sl");
  ASSERT_EQ(first(good), "");
  const NodeId root = good.root;
  ASSERT_FALSE(good.nodes[root].children.empty());

  FragmentDag d = good;
  d.nodes[root].children[0] = root;  // a node using itself: a cycle
  EXPECT_THAT(first(d), HasSubstr("does not come before it"));

  d = good;
  d.root = static_cast<NodeId>(d.nodes.size());
  EXPECT_THAT(first(d), HasSubstr("is not a node"));

  d = good;
  d.nodes[3].id = 7;
  EXPECT_THAT(first(d), HasSubstr("node 3"));

  d = good;
  d.nodes.push_back(d.nodes[0]);  // nothing uses it
  d.nodes.back().id = static_cast<NodeId>(d.nodes.size() - 1);
  EXPECT_THAT(first(d), HasSubstr("not reached from the root"));

  d = good;
  for (Node& n : d.nodes)
    if (n.kind == NodeKind::Constant) {
      n.value.push_back(1);
      break;
    }
  EXPECT_THAT(first(d), HasSubstr("values for a"));

  d = good;
  for (Node& n : d.nodes)
    if (n.kind == NodeKind::Texture || n.kind == NodeKind::Interpolant) {
      const bool texture = n.kind == NodeKind::Texture;
      n.name.clear();
      n.vertex_output = -1;
      EXPECT_THAT(first(d), HasSubstr(texture ? "names no texture" : "names no global"));
      break;
    }

  d = good;
  d.vertex_outputs.push_back(static_cast<NodeId>(d.vertex_nodes.size() + 5));
  EXPECT_THAT(first(d), HasSubstr("vertex output"));
}

}  // namespace
}  // namespace passlab::dag
