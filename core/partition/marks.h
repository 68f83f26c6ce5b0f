// SPDX-License-Identifier: GPL-3.0-or-later
// A partition given by hand: the nodes a student (or a file) marks as saved values, read from and
// written to JSON, and evaluated like an algorithm's partition. The file's form:
//   {"format": "passlab-marks", "version": 1,
//    "marks": [{"node": 14, "label": "CMP", "reason": "shared by the two labels"}, 23, ...]}
// where an entry is a node id or an object with "node" (and an optional "reason"; "label" is
// written for the reader and ignored on reading). The root is always saved (the pass that writes
// the output) and may be left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"
#include "core/partition/partition.h"

namespace passlab::partition {

struct Mark {
  NodeId node = 0;
  std::string reason;  // why it is saved, in the student's words (may be empty)
};

// Reads marks for `p` from the text of the file `where`. Refuses, with a diagnostic (code "marks")
// at its place in the file, invalid JSON, unknown keys, a node that is not in the DAG, a node that
// is an input rather than an operation, and a node given twice.
std::optional<std::vector<Mark>> parse_marks(const std::string& text, const std::string& where, const Problem& p,
                                             lang::Diagnostics* diagnostics);

// The marks of a partition (the root included), labelled, as the file form above.
std::string marks_to_json(const std::vector<Mark>& marks, const Problem& p);
std::vector<Mark> marks_of(const Partition& part);

// The partition the marks imply, costed under `model` ("yours"); its passes carry VALID's reason
// where they do not fit.
Partition evaluate_marks(const Problem& p, Backend& backend, const std::vector<Mark>& marks, const CostModel& model);

}  // namespace passlab::partition
