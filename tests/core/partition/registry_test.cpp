// SPDX-License-Identifier: GPL-3.0-or-later
// The partitioning algorithms' registry: names, what each entry says of itself, and that every
// entry runs through the one signature as its function does directly.
#include <cmath>
#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/partition/registry.h"
#include "core/partition/validate.h"
#include "tests/core/partition/test_problems.h"

namespace passlab::partition {
namespace {

using namespace test;

TEST(Registry, NamesAreUniqueAndFound) {
  std::set<std::string> names;
  for (const Algorithm& a : algorithms()) {
    EXPECT_TRUE(names.insert(std::string(a.name)).second) << a.name;
    EXPECT_EQ(find_algorithm(a.name), &a);
    EXPECT_FALSE(a.label.empty());
    EXPECT_FALSE(a.summary.empty());
    EXPECT_NE(a.run, nullptr);
  }
  EXPECT_EQ(algorithm_names(), "rdsh, rds, rds+merge, mrds, optimal");
  EXPECT_EQ(find_algorithm("RDS"), nullptr);  // names are exact: projects and --algo say "rds"
  EXPECT_EQ(find_algorithm("all"), nullptr);
  ASSERT_NE(find_algorithm(kDefaultAlgorithm), nullptr);
  EXPECT_TRUE(find_algorithm(kDefaultAlgorithm)->every_edit);  // the default shows on every edit
}

TEST(Registry, TheHeuristicsRunOnEveryEditAndTheSearchOnDemand) {
  EXPECT_TRUE(find_algorithm("rdsh")->every_edit);
  EXPECT_TRUE(find_algorithm("rds")->every_edit);
  EXPECT_TRUE(find_algorithm("rdsh")->traces);
  EXPECT_FALSE(find_algorithm("rds")->exact);
  const Algorithm& o = *find_algorithm("optimal");
  EXPECT_FALSE(o.every_edit);
  EXPECT_TRUE(o.exact);
  // Columns and `--algo all` list the every-edit algorithms before the searches that start from them.
  bool searching = false;
  for (const Algorithm& a : algorithms()) {
    if (!a.every_edit) searching = true;
    else EXPECT_FALSE(searching) << a.name << " comes after a search";
  }
}

TEST(Registry, EachEntryGivesWhatItsFunctionGives) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    Problem p = random_dag(rng, 6 + static_cast<int>(rng() % 6));
    Limits l;
    l.operations = 4;
    CountingBackend b(p, l);
    RunRequest r;
    r.options = {paper(), nullptr};
    const Partition h = rdsh(p, b, r.options), s = rds(p, b, r.options);
    const Partition via_h = find_algorithm("rdsh")->run(p, b, r), via_s = find_algorithm("rds")->run(p, b, r);
    EXPECT_EQ(via_h.marked, h.marked);
    EXPECT_EQ(via_s.marked, s.marked);
    EXPECT_DOUBLE_EQ(via_s.cost, s.cost);
    // Given nothing to start from, the search starts from the heuristics' best and never ends above it.
    const Partition o = find_algorithm("optimal")->run(p, b, r);
    ASSERT_TRUE(o.proven_optimal) << "trial " << trial;
    EXPECT_EQ(o.cost, optimal(p, b, r.options, {}).cost);
    EXPECT_LE(o.cost, std::min(h.cost, s.cost));
    EXPECT_TRUE(validate(p, b, o, paper()).empty());
  }
}

TEST(Registry, ASearchStartsFromTheKnownPartitionItIsGiven) {
  // With no time to search, the search returns the cheapest valid partition it is given, not a
  // worse one of its own: what the CLI's `--algo all` and the Studio's Compare panel rely on.
  std::mt19937 rng(5);
  Problem p = random_dag(rng, 40);
  Limits l;
  l.operations = 5;
  CountingBackend b(p, l);
  RunRequest r;
  r.options = {paper(), nullptr};
  const Partition known[] = {rdsh(p, b, r.options), rds(p, b, r.options)};
  ASSERT_TRUE(known[1].valid);
  r.known = known;
  r.search.budget_seconds = 1e-6;
  r.search.exact_share = 0;
  r.search.anneal_share = 0;
  const Partition o = find_algorithm("optimal")->run(p, b, r);
  EXPECT_TRUE(o.valid);
  EXPECT_LE(o.cost, std::min(known[0].valid ? known[0].cost : INFINITY, known[1].cost));
  EXPECT_LE(o.lower_bound, o.cost);
}

}  // namespace
}  // namespace passlab::partition
