// SPDX-License-Identifier: GPL-3.0-or-later
// What the CLI and the Studio check and print about a partition: the independent validator plus
// an execution check, and the per-pass `!!ARBfp1.0` listings.
#pragma once

#include <string>
#include <vector>

#include "backends/fp/codegen.h"
#include "core/ir/binding.h"
#include "core/partition/partition.h"

namespace passlab::session {

// The validator's findings, then the execution check's: the passes run in order with save and
// restore on 16 random fragments must give the single-pass result bit for bit. Empty when sound.
std::vector<std::string> check_partition(const partition::Problem& problem, fp::FpBackend& backend,
                                         const dag::FragmentDag& fdag, const partition::Partition& part,
                                         const partition::CostModel& model, const ir::Binding& binding);

// One listing per pass, with the bindings of saved and restored values. With `line_nodes`, also
// for each pass and listing line the node that line computes or restores (kNoNode for the rest).
constexpr std::uint32_t kNoNode = static_cast<std::uint32_t>(-1);
std::vector<std::string> listings(const fp::TargetDag& t, const partition::Partition& part,
                                  const partition::TargetDesc& target,
                                  std::vector<std::vector<std::uint32_t>>* line_nodes = nullptr);

}  // namespace passlab::session
