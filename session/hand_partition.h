// SPDX-License-Identifier: GPL-3.0-or-later
// A partition made by hand ("yours"): a student marks nodes of the partitioned DAG as saved values,
// one click at a time, and sees at once what the marks imply: which passes fit and which limit
// each of the others breaks, what the partition costs, and how it stands against the algorithms'.
// Qt-free: the Studio's marking mode, the CLI's --marks and the tests share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/partition/marks.h"
#include "session/snapshot.h"

namespace passlab::session {

// The marks and their history. Every change (a toggle, or replacing them all) is one step that
// undo() takes back and redo() puts again.
class HandMarks {
 public:
  const std::vector<partition::Mark>& marks() const { return marks_; }  // in node order
  bool marked(std::uint32_t node) const;
  // Marks an unmarked operation or unmarks a marked one. False, changing nothing, for a node that
  // is not an operation of `p`, or is its root (the pass that writes the output is always saved).
  bool toggle(const partition::Problem& p, std::uint32_t node);
  // The student's reason for a mark ("shared by the two labels"), saved with it; false when the
  // node is not marked. Not a step of its own: it belongs to the mark.
  bool set_reason(std::uint32_t node, std::string reason);
  const std::string* reason(std::uint32_t node) const;
  // Replaces every mark (an algorithm's marks, a file's, none): one step, unless nothing changes.
  // The root and what is not an operation of `p` are left out (the root is saved anyway).
  void assign(const partition::Problem& p, std::vector<partition::Mark> marks);
  bool undo();
  bool redo();
  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  // The shader was compiled again: each mark follows its node into `now` (the node computing the
  // same thing from the same operands: node ids change when an edit renumbers the DAG); the marks
  // of nodes that are gone (the edit changed what they compute) are dropped, and so are the undo
  // steps (they name the old nodes). Returns how many marks were dropped.
  int follow(const backends::TargetGraph& before, const backends::TargetGraph& now, const partition::Problem& p);

 private:
  void step(std::vector<partition::Mark> next);
  std::vector<partition::Mark> marks_;
  std::vector<std::vector<partition::Mark>> undo_, redo_;
};

// The partition `marks` imply on the snapshot's DAG, as a run the panels show like an
// algorithm's (algorithm "yours"): its passes, each with the limit it breaks when it does not
// fit, its cost, listings, timeline, and the validator's and execution check's findings.
AlgorithmRun run_marks(const Snapshot& s, const std::vector<partition::Mark>& marks);

// A hint: one mark to change that makes `marks` better.
struct MarkHint {
  std::uint32_t node = 0;
  bool mark = true;  // mark it (true) or unmark it
  std::string why;   // "P3 then fits: 4 passes instead of 5, cost 61.0 instead of 74.0"
};
// The best single change among the marks where `marks` and `best` (the best partition known: the
// optimal search's when it has run) differ: the one that leaves the fewest passes that do not fit,
// then the lowest cost. When no such change improves, every operation is tried. Nullopt when no
// single change improves (`marks` are as good as one change can make them).
std::optional<MarkHint> improving_mark(const Snapshot& s, const std::vector<partition::Mark>& marks, const partition::Partition* best);

}  // namespace passlab::session
