// SPDX-License-Identifier: GPL-3.0-or-later
// Register combiners behind the partitioner (RDS paper §3.2's four callbacks): the problem is the
// FragmentDag itself (operations and texture lookups are the nodes a pass computes), and VALID is
// "the combiner compiler fits the pass in one rendering pass" (stages, texture units, colour
// interpolants, registers, constants). Multipass beyond the paper: none of its systems had both.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/combiners/compiler.h"
#include "backends/combiners/simulate.h"
#include "core/partition/partition.h"

namespace passlab::combiners {

// The partitioning problem over a FragmentDag (labels as `passlab-cli dag` prints them).
// Conditions are not nodes of it: a MUX control is made in the pass of the MUX that reads it.
partition::Problem make_problem(const dag::FragmentDag& d);

// The pass a partition's pass is: its root, members and restores.
PassSpec pass_spec(const dag::FragmentDag& d, const std::vector<Interval>& ranges, const partition::Pass& p);

class CombinerBackend : public partition::Backend {
 public:
  CombinerBackend(const dag::FragmentDag& d, const partition::TargetDesc& target, Machine machine);
  partition::Check valid(partition::NodeId root, const std::vector<partition::NodeId>& members) override;
  const partition::Limits& limits() const override { return target_.limits; }
  const Machine& machine() const { return machine_; }
  const std::vector<Interval>& ranges() const { return ranges_; }
  const dag::FragmentDag& dag() const { return d_; }
  long valid_calls() const { return calls_; }

 private:
  const dag::FragmentDag& d_;
  partition::TargetDesc target_;
  Machine machine_;
  std::vector<Interval> ranges_;
  partition::Problem problem_;  // for the operands of a pass's members (conditions expanded)
  std::vector<char> scratch_;
  long calls_ = 0;
};

// Every pass of a partition compiled (in the partition's order); ok when all of them fit.
struct CompiledPartition {
  std::vector<CompileResult> passes;
  bool ok = false;
  std::string failure;
};
CompiledPartition compile_partition(const dag::FragmentDag& d, const std::vector<Interval>& ranges, const Machine& m,
                                    const partition::Partition& part, bool trace = false);

// What the passes use without the registers' clamp, by FragmentDag id (tables.h's
// mark_unclamped), less the interpolants some pass loads into a register (those are clamped):
// for dag::evaluate_all_clamped, which then models the passes.
std::vector<char> unclamped_nodes(const dag::FragmentDag& d, const CompiledPartition& cp);

// Whether the registers' [-1, 1] changes nothing on a fragment: `clamped` (the shader evaluated
// with every value clamped as it is produced, but the unclamped_nodes) gives the colour `all`
// gives. There the combiners reproduce the reference; elsewhere they clamp by design. With
// `every_step`, no operation's value may change either: the combiners compute some steps inside
// an input mapping (expand(x) = 2x - 1 never clamps 2x), so where a step's clamp changes a value
// the clamped evaluation is not quite the hardware's, even when the colour comes out the same.
bool clamping_changes_nothing(const dag::FragmentDag& d, const std::vector<ir::Value>& all, const std::vector<ir::Value>& clamped, bool every_step);

// Runs the passes on one fragment: each pass's RGBA is what later passes restore. Returns the last
// pass's RGBA. `src` supplies interpolants and textures; restores are filled here.
Rgba run_passes(const CompiledPartition& cp, const partition::Partition& part, const Machine& m, FragmentSource& src,
                const SimOptions& o = {});

}  // namespace passlab::combiners
