// SPDX-License-Identifier: GPL-3.0-or-later
// A compiled combiner pass as the timeline draws it (backends/target/timeline.h).
#pragma once

#include "backends/combiners/program.h"
#include "backends/combiners/machine.h"
#include "backends/target/timeline.h"
#include "core/dag/fragment_dag.h"

namespace passlab::combiners {

// Fills `tp`'s texture units, stages, register lanes and final combiner from the compiled pass `p`
// of the shader `d` (the lowered DAG the combiners partition) on `machine`.
void fill_timeline_pass(backends::TimelinePass& tp, const Program& p, const Machine& machine, const dag::FragmentDag& d);

}  // namespace passlab::combiners
