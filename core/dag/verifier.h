// SPDX-License-Identifier: GPL-3.0-or-later
// The fragment DAG verifier: the invariants every stage after flattening relies on, checked at the
// end of every flatten (so a malformed DAG is an internal error with its cause, not a crash or a
// wrong partition later), and in the tests of anything that builds or rewrites a DAG.
#pragma once

#include <string>
#include <vector>

#include "core/dag/fragment_dag.h"

namespace passlab::dag {

// One message per broken invariant (empty when the DAG is well formed): node ids are their
// indices; operands exist and come before their users (the nodes are in topological order, so
// there is no cycle); the root exists and reaches every node; constants carry one value per
// component of their type and have no operands; interpolants have none either and name their
// global or their vertex output; texture lookups name a texture and have coordinates;
// operations are not constants; the per-vertex program obeys the same rules, and its outputs
// exist. At most `limit` messages.
std::vector<std::string> verify(const FragmentDag& d, std::size_t limit = 20);

}  // namespace passlab::dag
