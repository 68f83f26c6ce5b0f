// SPDX-License-Identifier: GPL-3.0-or-later
// A partition made by hand: marks with their history, the run they imply, hints, and marks that
// follow their nodes through an edit.
#include "session/hand_partition.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/snapshot.h"

namespace passlab::session {
namespace {

std::vector<partition::Mark> marks_of(const AlgorithmRun& run) { return partition::marks_of(run.partition); }

TEST(HandPartition, TheAlgorithmsMarksGiveTheAlgorithmsPartition) {
  auto s = test::sample_snapshot("shaders/bowling_pin.sl", "PC5");
  ASSERT_TRUE(s->has_dag());
  const AlgorithmRun* rds = s->run("rds");
  ASSERT_TRUE(rds && rds->partition.valid);
  const AlgorithmRun yours = run_marks(*s, marks_of(*rds));
  EXPECT_EQ(yours.algorithm, "yours");
  EXPECT_TRUE(yours.partition.valid);
  EXPECT_DOUBLE_EQ(yours.partition.cost, rds->partition.cost);
  EXPECT_EQ(yours.partition.passes.size(), rds->partition.passes.size());
  EXPECT_EQ(yours.listings.size(), yours.partition.passes.size());
  EXPECT_TRUE(yours.problems.empty()) << yours.problems.front();  // validated and executed like RDS's
}

TEST(HandPartition, APassThatDoesNotFitNamesTheLimitItBreaks) {
  auto s = test::sample_snapshot("shaders/wood.sl", "PC5");
  ASSERT_TRUE(s->has_dag());
  const AlgorithmRun none = run_marks(*s, {});
  ASSERT_EQ(none.partition.passes.size(), 1u);  // the root only: one pass computing everything
  EXPECT_FALSE(none.partition.valid);
  EXPECT_NE(none.partition.passes[0].failure.find("operations: "), std::string::npos) << none.partition.passes[0].failure;
  EXPECT_NE(none.partition.passes[0].failure.find(" > 6"), std::string::npos) << none.partition.passes[0].failure;
}

TEST(HandPartition, TogglesUndoAndRedoStepByStep) {
  auto s = test::sample_snapshot("shaders/bowling_pin.sl", "PC5");
  const partition::Problem& p = s->problem;
  std::vector<std::uint32_t> ops;
  for (std::uint32_t id = 0; id < p.is_op.size(); ++id)
    if (p.is_op[id] && id != p.graph.root) ops.push_back(id);
  ASSERT_GE(ops.size(), 2u);
  const std::uint32_t a = ops[0], b = ops[1];
  HandMarks h;
  EXPECT_FALSE(h.toggle(p, p.graph.root));  // the output's pass is always there
  std::uint32_t input = 0;
  while (input < p.is_op.size() && p.is_op[input]) ++input;
  ASSERT_LT(input, p.is_op.size());
  EXPECT_FALSE(h.toggle(p, input));  // an input is not computed by a pass
  EXPECT_FALSE(h.can_undo());
  EXPECT_TRUE(h.toggle(p, b));
  EXPECT_TRUE(h.toggle(p, a));
  ASSERT_EQ(h.marks().size(), 2u);
  EXPECT_LT(h.marks()[0].node, h.marks()[1].node);  // in node order
  EXPECT_TRUE(h.toggle(p, b));  // unmarks
  EXPECT_FALSE(h.marked(b));
  EXPECT_TRUE(h.marked(a));
  EXPECT_TRUE(h.undo());
  EXPECT_TRUE(h.marked(b));
  EXPECT_TRUE(h.undo());
  EXPECT_FALSE(h.marked(a));
  EXPECT_TRUE(h.redo());
  EXPECT_TRUE(h.marked(a));
  EXPECT_TRUE(h.toggle(p, b));  // a new step ends the redo history
  EXPECT_FALSE(h.can_redo());
  // Now a is marked and b is not.
  EXPECT_TRUE(h.set_reason(a, "shared by two users"));
  EXPECT_FALSE(h.set_reason(b, "not marked"));
  EXPECT_NE(partition::marks_to_json(h.marks(), p).find("\"reason\": \"shared by two users\""), std::string::npos);
  EXPECT_TRUE(h.undo());  // back to a and b marked, as before the reason was given
  ASSERT_TRUE(h.reason(a));
  EXPECT_EQ(*h.reason(a), "");
  EXPECT_TRUE(h.redo());
  ASSERT_TRUE(h.reason(a));
  EXPECT_EQ(*h.reason(a), "shared by two users");  // the step undone and redone is the one holding it
  h.assign(p, marks_of(*s->run("rds")));
  EXPECT_EQ(h.marks().size(), marks_of(*s->run("rds")).size() - 1);  // all but the root
  EXPECT_TRUE(h.undo());
  EXPECT_EQ(h.marks().size(), 1u);
}

TEST(HandPartition, MarksFollowTheirNodesThroughAnEdit) {
  auto before = test::sample_snapshot("shaders/bowling_pin.sl", "PC5");
  session::Request r = before->request;
  // The same sum written the other way round: the DAG is numbered anew (postorder follows the
  // operands' order), every product computes what it did.
  const std::string from = "Ci = (Base * Label) * (Marks * Cd) + Cspec;";
  const auto at = r.text.find(from);
  ASSERT_NE(at, std::string::npos);
  r.text.replace(at, from.size(), "Ci = Cspec + (Base * Label) * (Marks * Cd);");
  auto after = build_snapshot(r);
  ASSERT_TRUE(after->has_dag());
  HandMarks h;
  h.assign(before->problem, marks_of(*before->run("rds")));
  const std::size_t n = h.marks().size();
  const auto old_marks = h.marks();
  const int dropped = h.follow(before->graph(), after->graph(), after->problem);
  EXPECT_EQ(dropped, 0);
  ASSERT_EQ(h.marks().size(), n);
  int moved = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = h.marks()[i];
    EXPECT_TRUE(after->problem.is_op[m.node]);
    moved += m.node != old_marks[i].node;
  }
  EXPECT_GT(moved, 0);  // the edit renumbered marked nodes, and the marks followed them
  // The same cuts on the edited shader cost what they cost before.
  EXPECT_DOUBLE_EQ(run_marks(*after, h.marks()).partition.cost, before->run("rds")->partition.cost);
  EXPECT_FALSE(h.can_undo());  // the steps named the old nodes
  // Even with no marks left: an undo would bring back marks on the old ids.
  HandMarks cleared;
  cleared.assign(before->problem, marks_of(*before->run("rds")));
  cleared.assign(before->problem, {});
  ASSERT_TRUE(cleared.can_undo());
  cleared.follow(before->graph(), after->graph(), after->problem);
  EXPECT_FALSE(cleared.can_undo());
}

TEST(HandPartition, AHintMakesThePartitionBetter) {
  auto s = test::sample_snapshot("shaders/wood.sl", "PC5");
  const AlgorithmRun* rds = s->run("rds");
  ASSERT_TRUE(rds && rds->partition.valid);
  // From nothing, one mark makes less of the shader sit in passes that do not fit.
  auto hint = improving_mark(*s, {}, &rds->partition);
  ASSERT_TRUE(hint.has_value());
  EXPECT_TRUE(hint->mark);
  EXPECT_FALSE(hint->why.empty());
  std::vector<partition::Mark> marks{{hint->node, ""}};
  const AlgorithmRun one = run_marks(*s, marks);
  long unfit = 0;
  for (const auto& pass : one.partition.passes)
    if (!pass.failure.empty()) unfit += static_cast<long>(pass.members.size());
  EXPECT_LT(unfit, static_cast<long>(run_marks(*s, {}).partition.passes[0].members.size()));
  // One mark away from RDS's marks, the hint leads back to a partition no worse than RDS's.
  auto near = marks_of(*rds);
  near.erase(near.begin() + static_cast<long>(near.size() / 2));
  auto back = improving_mark(*s, near, &rds->partition);
  ASSERT_TRUE(back.has_value());
  auto fixed = near;
  if (back->mark) fixed.push_back({back->node, ""});
  else std::erase_if(fixed, [&](const partition::Mark& m) { return m.node == back->node; });
  const AlgorithmRun mended = run_marks(*s, fixed);
  EXPECT_LE(mended.partition.cost, run_marks(*s, near).partition.cost);
  EXPECT_TRUE(mended.partition.valid);
}

}  // namespace
}  // namespace passlab::session
