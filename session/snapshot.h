// SPDX-License-Identifier: GPL-3.0-or-later
// A compile snapshot: everything the Studio shows for one version of a shader, built off the UI
// thread in one immutable value (front end, DAGs, dominators, partitions, listings, traces).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "session/messages.h"
#include "session/rpu_build.h"
#include "backends/target/target_program.h"
#include "core/dag/dominators.h"
#include "core/dag/fragment_dag.h"
#include "core/driver/program.h"
#include "core/partition/registry.h"

namespace passlab::session {

struct Request {
  std::string path;  // the shader's file name: diagnostics, includes and the default light setup
  std::string text;  // the editor's contents
  std::string lights_path;  // "" : the light setup next to the shader, else the default lights
  std::vector<std::string> include_paths;
  std::string aov;  // "": the fragment programs compute Ci and Oi; else this output parameter
  bool all_outputs = false;  // Ci and every output parameter, each to its own render target
  partition::TargetDesc target;
  partition::CostModel model;
  bool trace = true;  // record the partitioning traces
  RpuRequest rpu;     // a target whose backend is "rpu": the machine, scene and size
};

// A partitioning result with what the panels draw from it.
struct AlgorithmRun {
  std::string algorithm;  // a partition::algorithms() name ("rdsh", "rds", "optimal"), or "rpu"
  partition::Partition partition;
  partition::Trace trace;
  std::vector<std::string> listings;  // one listing per pass (`!!ARBfp1.0`, or `!!TS1.0`/`!!RC1.0`)
  std::vector<std::vector<std::uint32_t>> listing_nodes;  // per pass and listing line: the node (or kNoNode)
  std::vector<std::string> problems;  // the independent validator's and the execution check's findings
  backends::Timeline timeline;                  // the passes (and their combiner stages) as the timeline draws them
};

struct Snapshot {
  std::uint64_t generation = 0;
  Request request;
  std::shared_ptr<const driver::Program> program;
  std::vector<Message> messages;
  std::size_t errors = 0, warnings = 0;
  std::shared_ptr<const dag::FragmentDag> fragment_dag;
  // The shader on the request's target: the partitioned DAG (graph()) and its backend.
  std::shared_ptr<const backends::TargetProgram> target;
  partition::Problem problem;
  dag::DominatorTree dominators;
  dag::PartialDominatorTree pdt;
  std::vector<char> multiply_referenced;
  std::vector<AlgorithmRun> runs;  // the every-edit algorithms, in the registry's order (on the RPU: "rpu", the compiler's decisions)
  std::shared_ptr<const RpuBuild> rpu;  // the RPU target's program (no DAG then)
  double compile_ms = 0, partition_ms = 0;
  bool cancelled = false;

  bool has_dag() const { return target != nullptr; }
  bool is_rpu() const;  // the target's backend runs whole programs (the RPU), not passes
  const backends::TargetGraph& graph() const;  // the partitioned DAG (empty without one)
  const AlgorithmRun* run(const std::string& algorithm) const;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

// Builds a snapshot: compile, flatten, select, dominators, the every-edit algorithms (RDSh and RDS)
// with traces, validation, listings. Never throws for bad input (diagnostics go to `messages`). When `cancel` becomes true
// the build stops between stages and returns a snapshot with `cancelled` set.
std::shared_ptr<Snapshot> build_snapshot(const Request& request, const std::atomic<bool>* cancel = nullptr);

// Runs one partition::algorithms() entry on a snapshot's DAG; a search starts from the best of the
// snapshot's partitions and honours `search`'s budget, progress and cancel. An unknown name gives
// a run with no partition and the reason in `problems`.
AlgorithmRun run_algorithm(const Snapshot& s, const std::string& algorithm, const partition::OptimalOptions& search = {});

// The nodes of the partitioned DAG that come from the main file's line `line` (1-based).
std::vector<std::uint32_t> nodes_on_line(const Snapshot& s, std::uint32_t line);

}  // namespace passlab::session
