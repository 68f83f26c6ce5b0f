// SPDX-License-Identifier: GPL-3.0-or-later
// The execution check: a partition run pass by pass, with save and restore, on one fragment.
#pragma once

#include <map>
#include <string>

#include "backends/fp/target_dag.h"
#include "core/partition/partition.h"

namespace passlab::fp {

struct ExecutionResult {
  bool ok = false;
  Vec4 output{};
  std::map<TNodeId, Vec4> saved;  // every value the passes saved (the fragment's own), by node
  std::string error;  // a pass read a value no earlier pass saved
};

// Runs the passes in order: each computes its members from interpolants, constants and the
// restored outputs of earlier passes, and saves its outputs' values (float precision, as the RDS
// paper requires of the intermediate buffers). The last pass's value is the fragment's colour.
// Difference interpolants need the fragment's neighbours (`next`).
ExecutionResult run_passes(const TargetDag& t, const dag::FragmentDag& d, const partition::Partition& part,
                           const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next = nullptr);

}  // namespace passlab::fp
