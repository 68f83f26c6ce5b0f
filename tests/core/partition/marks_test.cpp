// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-made partitions: the marks file read and written, its mistakes located, and the partition
// it implies costed like an algorithm's.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/partition/algorithms.h"
#include "core/partition/marks.h"
#include "core/partition/validate.h"
#include "tests/core/partition/test_problems.h"

namespace passlab::partition {
namespace {

using namespace test;
using ::testing::HasSubstr;

TEST(Marks, AnAlgorithmsMarksReadBackToItsPartition) {
  Problem p = figure2();
  Limits l;
  l.operations = 5;
  CountingBackend b(p, l);
  const Partition rds_part = rds(p, b, {paper(), nullptr});
  ASSERT_TRUE(rds_part.valid);
  const std::string text = marks_to_json(marks_of(rds_part), p);
  EXPECT_THAT(text, HasSubstr("\"format\": \"passlab-marks\""));
  lang::Diagnostics error;
  const auto marks = parse_marks(text, "m.json", p, &error);
  ASSERT_TRUE(marks) << error.text();
  const Partition yours = evaluate_marks(p, b, *marks, paper());
  EXPECT_EQ(yours.algorithm, "yours");
  EXPECT_EQ(yours.marked, rds_part.marked);
  EXPECT_DOUBLE_EQ(yours.cost, rds_part.cost);
  EXPECT_TRUE(validate(p, b, yours, paper()).empty());
}

TEST(Marks, TheRootIsSavedWithoutBeingNamedAndAPassThatDoesNotFitSaysWhy) {
  Problem p = figure2();
  Limits l;
  l.operations = 5;
  CountingBackend b(p, l);
  lang::Diagnostics error;
  const auto marks = parse_marks(R"({"marks": [{"node": 9, "reason": "B feeds the root"}]})", "m.json", p, &error);
  ASSERT_TRUE(marks) << error.text();
  ASSERT_EQ(marks->size(), 1u);
  EXPECT_EQ((*marks)[0].reason, "B feeds the root");
  const Partition yours = evaluate_marks(p, b, *marks, paper());
  ASSERT_EQ(yours.passes.size(), 2u);
  EXPECT_EQ(yours.passes.back().root, 11u);
  EXPECT_FALSE(yours.valid);  // B's subregion holds seven operations
  EXPECT_THAT(yours.passes.front().failure, HasSubstr("operations"));
}

TEST(Marks, MistakesAreLocated) {
  Problem p = figure2();
  lang::Diagnostics error;
  const auto refused = [&](const std::string& text) {
    error.clear();
    return !parse_marks(text, "m.json", p, &error);
  };
  EXPECT_TRUE(refused("{\"marks\": [\n  9,\n  12\n]}"));
  EXPECT_EQ(error.summary(), "m.json:3:3: error: marks[1]: node 12 is not in the DAG (nodes 0 to 11) [marks]");
  EXPECT_TRUE(refused(R"({"marks": [9, 9]})"));
  EXPECT_THAT(error.text(), HasSubstr("node 9 is marked twice"));
  EXPECT_TRUE(refused(R"({"marks": [-1]})"));
  EXPECT_THAT(error.text(), HasSubstr("a whole number"));
  EXPECT_TRUE(refused(R"({"marks": [{"node": 9, "why": "x"}]})"));
  EXPECT_THAT(error.text(), HasSubstr("unknown key \"why\""));
  EXPECT_TRUE(refused(R"({"marks": [{"node": 9, "reason": 3}]})"));
  EXPECT_THAT(error.text(), HasSubstr("\"reason\" must be a string"));
  EXPECT_TRUE(refused(R"({"format": "other", "marks": []})"));
  EXPECT_THAT(error.text(), HasSubstr("passlab-marks"));
  EXPECT_TRUE(refused(R"({"mark": []})"));
  EXPECT_THAT(error.text(), HasSubstr("unknown key \"mark\""));
  EXPECT_TRUE(refused("{\"marks\": [9,"));
  EXPECT_THAT(error.text(), HasSubstr("m.json:1:"));
  EXPECT_THAT(error.text(), HasSubstr("invalid JSON"));
  Problem with_input = make({{}, {0}}, 1, {0, 1});
  EXPECT_TRUE(!parse_marks(R"({"marks": [0]})", "m.json", with_input, &error));
  EXPECT_THAT(error.text(), HasSubstr("is an input, not an operation"));
}

}  // namespace
}  // namespace passlab::partition
