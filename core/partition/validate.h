// SPDX-License-Identifier: GPL-3.0-or-later
// The independent validator: checks a partition against the model, not against the algorithm.
#pragma once

#include <string>
#include <vector>

#include "core/partition/partition.h"

namespace passlab::partition {

// Every problem found, empty when the partition is sound: the output heads the last pass; every
// operation the output needs is computed in some pass; each pass is exactly the subregion of its
// root under the marks and fits the target (asked afresh of the backend); every restore names a
// pass root computed by an earlier pass; the cost matches the passes; no two saved values whose
// lifetimes overlap share an intermediate texture.
std::vector<std::string> validate(const Problem& p, Backend& backend, const Partition& part, const CostModel& model);

}  // namespace passlab::partition
