// SPDX-License-Identifier: GPL-3.0-or-later
// A shader on one target: the DAG the partitioner works on and the backend that answers VALID,
// the checks and listings of a partition, and the shader the renderer runs. Each backend that
// partitions a fragment DAG implements it in its own folder (backends/fp/target_program.cpp,
// backends/combiners/target_program.cpp) and registers a factory (backends/registry). The CLI,
// the renders and the Studio use only this interface, so every target works everywhere.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/target/timeline.h"
#include "core/dag/fragment_dag.h"
#include "core/ir/binding.h"
#include "core/partition/partition.h"
#include "core/sim/shading.h"

namespace passlab::backends {

// One node of the partitioned DAG as the graph views draw it.
struct GraphNode {
  enum class Kind : std::uint8_t { Instruction, Texture, Interpolant, Constant };
  Kind kind = Kind::Instruction;
  std::string label;                 // "MUL", "TEX wood", "s", "0.5"
  std::vector<std::uint32_t> deps;   // distinct operands, in operand order
  std::vector<lang::Span> spans;     // where in the source it comes from
  bool operation() const { return kind == Kind::Instruction || kind == Kind::Texture; }
};

struct TargetGraph {
  std::vector<GraphNode> nodes;
  std::uint32_t root = 0;
  std::size_t size() const { return nodes.size(); }
  bool empty() const { return nodes.empty(); }
};

// How the renderer's shader computes (what only some targets distinguish).
struct ShaderOptions {
  bool hardware_precision = false;  // register combiners: 9-bit registers, 8-bit inputs and intermediates
};

// A file a pass's listing is saved as.
struct PassFile {
  std::string extension;  // "fp", "rc", "ts"
  std::string text;
};

// A listing line that computes no node of the graph.
constexpr std::uint32_t kNoNode = static_cast<std::uint32_t>(-1);

class TargetProgram {
 public:
  virtual ~TargetProgram() = default;
  const partition::Problem& problem() const { return problem_; }
  const TargetGraph& graph() const { return graph_; }
  const partition::TargetDesc& target() const { return target_; }
  // A backend for one partitioning run (each run gets its own; they may run concurrently).
  virtual std::unique_ptr<partition::Backend> backend() const = 0;
  // The independent validator's findings, then an execution check of the passes against the
  // reference. Empty when the partition is sound.
  virtual std::vector<std::string> check(const partition::Partition& part, const partition::CostModel& model, const ir::Binding& binding) const = 0;
  // One listing per pass; with `line_nodes`, per pass and line the node it computes (or kNoNode).
  virtual std::vector<std::string> listings(const partition::Partition& part, std::vector<std::vector<std::uint32_t>>* line_nodes) const = 0;
  virtual std::string listing_extension() const = 0;  // "fp", "rc"
  // The files each pass's listing is saved as (`partition --emit`): by default one, listings()'s
  // text with listing_extension(); register combiners: the !!TS1.0 and !!RC1.0 programs apart,
  // one program per file as nvparse() loads them.
  virtual std::vector<std::vector<PassFile>> listing_files(const partition::Partition& part) const;
  // The renderer's shader: the passes of `part`, or the whole program as one pass (nullptr). For
  // a target where the whole program does not fit one pass, nullptr and *error.
  virtual std::unique_ptr<sim::FragmentShader> shader(const partition::Partition* part, const ir::EvalContext& ctx, std::string* error,
                                                      const ShaderOptions& options = {}) const = 0;
  // The timeline of a partition: its passes with costs and resources (and, for register
  // combiners, each pass's stages, units, register lifetimes and final combiner). With `codegen`,
  // the backend's decisions for each pass as trace events (EventKind::Codegen).
  virtual Timeline timeline(const partition::Partition& part, const partition::CostModel& model,
                            partition::Trace* codegen = nullptr) const;

 protected:
  partition::Problem problem_;
  TargetGraph graph_;
  partition::TargetDesc target_;
};

// The nodes of `g` with a span on line `line` (1-based) of the file `path` in `sources`.
std::vector<std::uint32_t> nodes_on_line(const TargetGraph& g, const lang::SourceManager& sources, const std::string& path, std::uint32_t line);

}  // namespace passlab::backends
