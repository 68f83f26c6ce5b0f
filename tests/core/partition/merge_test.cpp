// SPDX-License-Identifier: GPL-3.0-or-later
// Passes of several render targets: the per-pass metric, render_targets in target files, greedy
// pass merging, MRDS, and the pseudo-root of a shader with several outputs.
#include <algorithm>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/partition/algorithms.h"
#include "core/partition/merge.h"
#include "core/partition/registry.h"
#include "core/partition/validate.h"
#include "tests/core/partition/test_problems.h"

namespace passlab::partition {
namespace {

using test::CountingBackend;

// CountingBackend's counts for a pass of several outputs: its members and the values they
// restore, and the render targets it writes.
class MrtBackend : public CountingBackend {
 public:
  using CountingBackend::CountingBackend;
  Check valid(NodeId root, const std::vector<NodeId>& members) override {
    Check c = CountingBackend::valid(root, members);
    c.resources.outputs = 1;
    return verdict(c);
  }
  Check valid_outputs(const std::vector<NodeId>& outputs, const std::vector<NodeId>& members) override {
    Check c = CountingBackend::valid(outputs.back(), members);
    c.resources.outputs = static_cast<int>(outputs.size());
    return verdict(c);
  }
};

Limits limits(int operations, int render_targets) {
  Limits l;
  l.operations = operations;
  l.render_targets = render_targets;
  return l;
}

// Two halves of three operations each, which a chain of four to the root reads: 0,1 -> 2 and
// 3,4 -> 5; 2,5 -> 6 -> 7 -> 8 -> 9.
Problem halves() { return test::make({{}, {0}, {0, 1}, {}, {3}, {3, 4}, {2, 5}, {6}, {7}, {8}}, 9); }

TEST(PassMetric, FoleyHoustonHanrahansPerPassCost) {
  const std::optional<CostModel> m = parse_cost_model("mrds", nullptr);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->linear());
  // a = 10, t = 2: issue 12, fetch 16, average floor((16 + 12 + 16) / 2) = 22; one output writes 6.
  EXPECT_DOUBLE_EQ(m->pass_cost(2, 10, 1), 22 + 9 + 1);
  // Two outputs write 36, more than the average: 36 + 9 + 2.
  EXPECT_DOUBLE_EQ(m->pass_cost(2, 10, 2), 36 + 9 + 2);
  // The constants are data.
  const std::optional<CostModel> other = parse_cost_model("mrds:4/6/12/9/1", nullptr);
  ASSERT_TRUE(other);
  EXPECT_DOUBLE_EQ(other->pass_cost(2, 10, 2), 24 + 9 + 2);
  lang::Diagnostics d;
  EXPECT_FALSE(parse_cost_model("mrds:4/6/x/9/1", &d));
  EXPECT_NE(d.text().find("five non-negative numbers"), std::string::npos) << d.text();
  // A linear model's pass costs sum to its cost of the totals.
  const CostModel linear = test::paper();
  EXPECT_DOUBLE_EQ(linear.pass_cost(2, 10, 3) + linear.pass_cost(1, 4, 1), linear.cost(2, 3, 14));
}

TEST(RenderTargets, TargetFilesSayHowManyAPassWrites) {
  lang::Diagnostics d;
  auto one = parse_target(R"({"name": "T", "limits": {"operations": 8}})", "", &d);
  ASSERT_TRUE(one) << d.text();
  EXPECT_EQ(one->limits.render_targets, 1);  // left out: one, as before MRT
  EXPECT_EQ(target_to_json(*one).find("render_targets"), std::string::npos);
  auto four = parse_target(R"({"name": "T", "limits": {"operations": 8, "render_targets": 4}})", "", &d);
  ASSERT_TRUE(four) << d.text();
  EXPECT_EQ(four->limits.render_targets, 4);
  auto again = parse_target(target_to_json(*four), "", &d);
  ASSERT_TRUE(again) << d.text();
  EXPECT_EQ(again->limits.render_targets, 4);
  auto any = parse_target(R"({"name": "T", "limits": {"render_targets": null}})", "", &d);
  ASSERT_TRUE(any);
  EXPECT_EQ(any->limits.render_targets, kUnlimited);
  EXPECT_FALSE(parse_target(R"({"name": "T", "limits": {"render_targets": 0}})", "", &d));
  EXPECT_NE(d.text().find("at least 1"), std::string::npos) << d.text();
  Resources r;
  r.outputs = 5;
  EXPECT_EQ(exceeded(r, four->limits), "render_targets: 5 > 4");
  for (const char* preset : {"PC6_mrt4", "ps_2_0_mrt4"}) {
    auto t = load_target(preset, &d);
    ASSERT_TRUE(t) << d.text();
    EXPECT_EQ(t->limits.render_targets, 4) << preset;
  }
}

TEST(PassMerging, IndependentPassesBecomeOnePassOfTwoOutputs) {
  const Problem p = halves();
  // Both halves fit one pass (6 operations), the root's chain with a half does not (4 + 3 + 1 restore).
  MrtBackend b(p, limits(6, 2));
  std::vector<char> marks(p.graph.children.size(), 0);
  marks[2] = marks[5] = 1;
  const Partition before = make_partition(p, b, marks, test::paper());
  ASSERT_TRUE(before.valid);
  EXPECT_EQ(before.passes.size(), 3u);
  const Merged m = merge_passes(p, b, marks, test::paper());
  EXPECT_EQ(m.merges, 1);
  const Partition after = make_partition(p, b, m.marked, test::paper(), m.groups);
  ASSERT_TRUE(after.valid);
  ASSERT_EQ(after.passes.size(), 2u);
  EXPECT_EQ(after.passes[0].outputs, (std::vector<NodeId>{2, 5}));
  EXPECT_EQ(after.passes[0].resources.outputs, 2);
  EXPECT_EQ(after.passes[1].outputs, (std::vector<NodeId>{9}));
  EXPECT_DOUBLE_EQ(after.cost, before.cost - 15);  // one pass fewer, the same work
  EXPECT_DOUBLE_EQ(m.cost, after.cost);
  EXPECT_TRUE(validate(p, b, after, test::paper()).empty());
  // The two values live in two textures while the root's pass reads them.
  EXPECT_EQ(after.intermediate_textures, 2);
}

// Groups given to make_partition: a value only its own pass reads is computed inline, not saved.
TEST(PassMerging, AGroupsValueOnlyItsOwnPassReadsIsNotSaved) {
  const Problem p = halves();
  MrtBackend b(p, limits(kUnlimited, 4));
  std::vector<char> marks(p.graph.children.size(), 0);
  marks[2] = marks[5] = 1;
  const Partition part = make_partition(p, b, marks, test::paper(), {{2, 5, 9}});
  ASSERT_TRUE(part.valid);
  ASSERT_EQ(part.passes.size(), 1u);
  EXPECT_EQ(part.passes[0].outputs, (std::vector<NodeId>{9}));
  EXPECT_FALSE(part.marked[2] || part.marked[5]);
  EXPECT_TRUE(validate(p, b, part, test::paper()).empty());
}

TEST(PassMerging, OneRenderTargetMergesNothing) {
  const Problem p = halves();
  MrtBackend b(p, limits(6, 1));
  std::vector<char> marks(p.graph.children.size(), 0);
  marks[2] = marks[5] = 1;
  const Merged m = merge_passes(p, b, marks, test::paper());
  EXPECT_EQ(m.merges, 0);
  EXPECT_EQ(m.groups.size(), 3u);
}

// A pass reading its partner's value directly merges with it, the value becoming a register;
// one reading it through a third pass does not (the merged pass would need that pass's value,
// which needs its own).
TEST(PassMerging, AValueOnlyTheMergedPassReadsIsNoLongerSaved) {
  // 0 -> 1 (reads 0) -> 2 (reads 0 and 1) -> 3 (root, reads 2); every value marked.
  const Problem p = test::make({{}, {0}, {0, 1}, {2}}, 3);
  MrtBackend b(p, limits(3, 4));
  std::vector<char> marks(p.graph.children.size(), 1);
  const Merged m = merge_passes(p, b, marks, test::paper());
  const Partition part = make_partition(p, b, m.marked, test::paper(), m.groups);
  ASSERT_TRUE(part.valid);
  EXPECT_TRUE(validate(p, b, part, test::paper()).empty());
  EXPECT_LT(part.passes.size(), 4u);
  // Never 0 with 2 but without 1: 2 reads 0 through 1 too.
  for (const Pass& pass : part.passes) {
    const bool has0 = std::count(pass.members.begin(), pass.members.end(), 0u) > 0;
    const bool has1 = std::count(pass.members.begin(), pass.members.end(), 1u) > 0;
    const bool has2 = std::count(pass.members.begin(), pass.members.end(), 2u) > 0;
    EXPECT_FALSE(has0 && has2 && !has1);
  }
}

// On random DAGs, RDS + merge and MRDS give valid partitions that the validator accepts, and
// merging never costs more than the partition it starts from.
TEST(PassMerging, RandomDagsMergeIntoValidPartitionsThatCostNoMore) {
  std::mt19937 rng(7);
  int merged = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Problem p = test::random_dag(rng, 8 + trial % 12);
    MrtBackend b(p, limits(4 + trial % 3, 1 + trial % 4));
    AlgorithmOptions o;
    o.model = test::paper();
    const Partition single = rds(p, b, o);
    if (!single.valid) continue;
    const Partition plus = rds_merge(p, b, o);
    ASSERT_TRUE(plus.valid) << trial;
    EXPECT_LE(plus.cost, single.cost) << trial;
    EXPECT_TRUE(validate(p, b, plus, o.model).empty()) << trial;
    const Partition m = mrds(p, b, o);
    ASSERT_TRUE(m.valid) << trial;
    EXPECT_TRUE(validate(p, b, m, o.model).empty()) << trial;
    for (const Pass& pass : plus.passes) merged += pass.outputs.size() > 1;
    for (const Pass& pass : m.passes) EXPECT_LE(static_cast<int>(pass.outputs.size()), b.limits().render_targets == kUnlimited ? 1 << 20 : b.limits().render_targets);
  }
  EXPECT_GT(merged, 0) << "no pass of several outputs in 60 random problems";
}

// Random shaders of several outputs: merged partitions are valid, write every output, keep the
// colour's pass last (a later pass may not read what it writes) and pass the validator.
TEST(PassMerging, RandomShadersOfSeveralOutputsKeepTheColoursPassLast) {
  std::mt19937 rng(11);
  int several = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int n = 8 + trial % 10;
    Problem p = test::random_dag(rng, n);
    std::vector<NodeId> outs{static_cast<NodeId>(n - 1)};  // the colour first
    for (int k = 0; k < 1 + trial % 3; ++k) {
      const auto o = static_cast<NodeId>(rng() % static_cast<unsigned>(n - 1));
      if (std::find(outs.begin(), outs.end(), o) == outs.end()) outs.push_back(o);
    }
    p.graph.children.push_back(outs);
    p.graph.root = static_cast<NodeId>(n);
    p.is_op.push_back(0);
    p.labels.push_back("outputs");
    p.pseudo_root = true;
    MrtBackend b(p, limits(3 + trial % 4, 2 + trial % 3));
    AlgorithmOptions o;
    o.model = trial % 2 ? test::paper() : *parse_cost_model("mrds", nullptr);
    for (const Partition& part : {rds(p, b, o), rds_merge(p, b, o), mrds(p, b, o)}) {
      if (!part.valid) {
        EXPECT_EQ(part.algorithm, "RDS") << trial;  // merging never breaks a partition that fits
        break;
      }
      EXPECT_TRUE(validate(p, b, part, o.model).empty()) << trial << " " << part.algorithm << ": " << validate(p, b, part, o.model).front();
      const auto& last = part.passes.back().outputs;
      EXPECT_TRUE(std::count(last.begin(), last.end(), outs.front())) << trial << " " << part.algorithm;
      std::set<NodeId> written;
      for (const Pass& pass : part.passes) {
        written.insert(pass.outputs.begin(), pass.outputs.end());
        several += pass.outputs.size() > 1;
      }
      for (NodeId out : outs) EXPECT_TRUE(written.count(out)) << trial << " " << part.algorithm << " n" << out;
    }
  }
  EXPECT_GT(several, 0);
}

// A shader with several outputs: a pseudo-root over them heads no pass; each output is saved by
// a pass; the optimal search, a one-output one, says it does not run.
TEST(PseudoRoot, EachOutputIsWrittenByAPassAndTheRootCostsNothing) {
  // Outputs 2 (the colour, the first operand) and 5 under pseudo-root 6.
  Problem p = test::make({{}, {0}, {0, 1}, {}, {3}, {3, 4}, {2, 5}}, 6, {1, 1, 1, 1, 1, 1, 0});
  p.pseudo_root = true;
  MrtBackend b(p, limits(6, 1));
  AlgorithmOptions o;
  o.model = test::paper();
  for (const Partition& part : {rdsh(p, b, o), rds(p, b, o)}) {
    ASSERT_TRUE(part.valid) << part.algorithm;
    ASSERT_EQ(part.passes.size(), 2u) << part.algorithm;
    EXPECT_EQ(part.passes[0].root, 5u);
    EXPECT_EQ(part.passes[1].root, 2u);  // the colour's pass last
    EXPECT_FALSE(part.marked[6]);
    EXPECT_DOUBLE_EQ(part.cost, 2 * 15 + 6);
  }
  MrtBackend four(p, limits(6, 4));
  const Partition m = mrds(p, four, o);
  ASSERT_TRUE(m.valid);
  ASSERT_EQ(m.passes.size(), 1u);  // both outputs in one pass of two render targets
  EXPECT_EQ(m.passes[0].outputs, (std::vector<NodeId>{2, 5}));
  RunRequest r;
  r.options = o;
  const Partition opt = find_algorithm("optimal")->run(p, b, r);
  EXPECT_FALSE(opt.not_run.empty()) << opt.algorithm;
  EXPECT_FALSE(optimal(p, b, o, {}).not_run.empty());  // called directly too: its bounds are one output's
}

TEST(Registry, MultipleOutputAlgorithmsAreListedWhereAPassWritesSeveral) {
  auto names = [](const Limits& l) {
    std::vector<std::string> out;
    for (const Algorithm* a : algorithms_for(l)) out.emplace_back(a->name);
    return out;
  };
  EXPECT_EQ(names(limits(6, 1)), (std::vector<std::string>{"rdsh", "rds", "optimal"}));
  EXPECT_EQ(names(limits(6, 4)), (std::vector<std::string>{"rdsh", "rds", "rds+merge", "mrds", "optimal"}));
}

}  // namespace
}  // namespace passlab::partition
