// SPDX-License-Identifier: GPL-3.0-or-later
// RDS's search over the MR nodes with the price of a trial given: RDS prices a marking's passes,
// MRDS prices them after pass merging (merge.h).
#pragma once

#include <functional>

#include "core/partition/algorithms.h"

namespace passlab::partition {

// The cost of a trial's marking, asked through the search's memo; empty: marking_cost.
using TrialCost = std::function<double(Backend& memo, const std::vector<char>& marks)>;

// RDS (rds.cpp) with each trial priced by `trial_cost`. Returns the cheapest trial's marking as
// make_partition builds it (its algorithm name "RDS").
Partition rds_search(const Problem& p, Backend& backend, const AlgorithmOptions& options, const TrialCost& trial_cost);

}  // namespace passlab::partition
