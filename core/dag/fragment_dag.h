// SPDX-License-Identifier: GPL-3.0-or-later
// The FragmentDag: one basic block of fragment operations with a single output, as in the RDS paper.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/ir/interpreter.h"
#include "core/ir/ir.h"
#include "core/ir/value.h"

namespace passlab::dag {

using NodeId = std::uint32_t;

// The paper's leaf kinds (interpolant V, constant C) plus texture fetches T and operations.
enum class NodeKind : std::uint8_t { Interpolant, Constant, Texture, Operation };
const char* to_string(NodeKind k);

struct LoopBody;

struct Node {
  NodeId id = 0;
  NodeKind kind = NodeKind::Operation;
  ir::Op op = ir::Op::Const;
  ir::BaseType type = ir::BaseType::Float;
  std::uint32_t aux = 0;          // builtin id; the global of an interpolant; a texture's first channel
  std::string name;               // interpolant: global name; texture: texture name
  std::vector<float> value;       // constants
  std::vector<NodeId> children;   // operands; texture: coordinates
  int vertex_output = -1;         // interpolant computed per vertex: index into vertex_outputs
  std::vector<lang::Span> spans;  // every source place this node came from, in first-seen order
  std::shared_ptr<const LoopBody> loop;  // ir::Op::Loop: the loop it runs (shared by its results)
};

// Nodes are numbered in postorder from the root (children before parents), so ids are stable
// for the same shader and evaluation can run in id order.
struct FragmentDag {
  std::string shader;
  std::vector<Node> nodes;
  NodeId root = 0;
  // The per-vertex program: interpolants with vertex_output >= 0 carry vertex_nodes[vertex_outputs[i]]
  // (affine in the vertex attributes, so perspective-correct interpolation reproduces it exactly).
  std::vector<Node> vertex_nodes;
  std::vector<NodeId> vertex_outputs;

  const Node& node(NodeId id) const { return nodes.at(id); }
  std::size_t size() const { return nodes.size(); }
  // Number of distinct parents of each node.
  std::vector<int> parent_counts() const;
};

// A loop that a target with dynamic loops runs as a loop (partition::TargetDesc::dynamic_loops,
// dag/flatten.cpp), where other targets unroll it. Its body is a DAG of its own over LoopValue
// leaves (aux: the `carried` values first, then the `invariants`, the values computed outside the
// loop that the body reads), whose root (ir::Op::Outputs) lists the carried values' next values,
// then the loop's `results`, then whether the loop goes on. The loop's Loop nodes (one per
// result, aux = the result) read the carried values' initial values, then the invariants:
//   x = initial values; at most max_iterations times: out = body(x); if out says stop, end; x = next.
// A result is the last iteration's: the one that left the loop (or the last the limit allowed).
struct LoopBody {
  FragmentDag body;
  int carried = 0, invariants = 0, results = 0;
  int max_iterations = 0;
  std::string label;  // "loop at line 5", unique in the shader
};
// The results of `loop` on one fragment, given the Loop node's operand values (initial values,
// then invariants). Not constant time: up to max_iterations evaluations of the body.
std::vector<ir::Value> run_loop(const LoopBody& loop, const std::vector<ir::Value>& operands, const ir::FragmentInputs& in,
                                const ir::EvalContext& ctx, int* iterations = nullptr);

// Resource totals in the shape of the paper's Table 1.
struct DagStats {
  int nodes = 0;
  int mr_nodes = 0;          // operations and fetches with more than one distinct parent
  int operations = 0;        // texture + non-texture operations
  int texture_ops = 0;
  int non_texture_ops = 0;
  int registers = 0;         // peak live temporaries in a Sethi-Ullman evaluation order
  int texture_units = 0;     // distinct textures (the noise texture counts once)
  int interpolants = 0;
  int constants = 0;
  int dependent_texture_ops = 0;  // texture fetches whose coordinates are computed
  int dependency_levels = 0;      // longest chain of dependent fetches
  std::map<std::string, int> ops_by_kind;  // "mul" -> 12, in name order
};
DagStats compute_stats(const FragmentDag& dag);

// Evaluates the DAG on one fragment: the RGBA the root writes (colour in f[0..2], alpha in f[3]).
// A DAG with screen-space differences (ir::Op::ScreenDiff: the derivative functions) needs the
// fragment's neighbours a pixel right and below; without them those differences are NaN.
ir::Value evaluate(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next = nullptr);

// Every node's value on one fragment, by node id (what checks of partial programs compare with).
std::vector<ir::Value> evaluate_all(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx,
                                    const ir::Neighbours* next = nullptr);
// The same on a fixed-range datapath: every value an interpolant, lookup or operation produces
// is clamped to [lo, hi] (constants as written). Where the root agrees with evaluate_all, no
// clamp changed the result. Nodes `exact` marks (by id) keep their values: a datapath that
// computes them without a step of fixed range (a register-combiner function table) does not clamp them.
std::vector<ir::Value> evaluate_all_clamped(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx, float lo,
                                            float hi, const std::vector<char>* exact = nullptr);

// The values of the computed interpolants at one fragment (what the vertex program delivers).
std::vector<ir::Value> vertex_outputs(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx);
// The value interpolant node `id` delivers, given vertex_outputs().
ir::Value interpolant_value(const FragmentDag& dag, NodeId id, const ir::FragmentInputs& in,
                            const std::vector<ir::Value>& vertex_values);

// Gives every use of a constant its own leaf, as the RDS paper's DAGs do (constants live in the
// instruction that reads them, so sharing one would make it a multiply-referenced node).
void unshare_constants(FragmentDag& dag);

// Moves maximal subexpressions that are affine in the interpolants (with constant coefficients
// and at least one real operation) to the per-vertex program, where each becomes one new
// interpolant, as RTSL did for the paper's shaders. Not constant time: O(n log n).
FragmentDag hoist_vertex_work(const FragmentDag& dag);

// A screen-space difference of a value computed per fragment becomes that value computed again
// from its interpolants one pixel over (ir::Op::Neighbour), minus the value, as a 2x2 quad would
// have it (dag/neighbour_values.cpp). Run after the vertex hoist, which decides what is interpolated.
FragmentDag recompute_differences(const FragmentDag& dag);

// Builds nodes with hash-consing: structurally equal nodes are created once (their spans merge).
class DagBuilder {
 public:
  NodeId constant(const ir::Value& v, const lang::Span& span);
  NodeId interpolant(lang::Global g, ir::BaseType type, const lang::Span& span);
  NodeId vertex_interpolant(int output, const std::string& name, ir::BaseType type, const std::vector<lang::Span>& spans);
  // Copies node `id` of `from` (and what it reaches) into this builder; memo maps old ids to new.
  NodeId copy(const std::vector<Node>& from, NodeId id, std::map<NodeId, NodeId>& memo);
  // A node like `n` (kind, operation, name, value, spans) over the operands `children`, ids of this builder.
  NodeId rebuild(const Node& n, std::vector<NodeId> children);
  // `channel`: the first channel read (texture("name"[channel], ...)), kept in aux.
  NodeId texture(const std::string& name, ir::BaseType type, std::vector<NodeId> coords, const lang::Span& span, std::uint32_t channel = 0);
  NodeId operation(ir::Op op, ir::BaseType type, std::uint32_t aux, std::vector<NodeId> children, const lang::Span& span);
  // Result `result` of `loop`, over its initial values then its invariants.
  NodeId loop(std::shared_ptr<const LoopBody> loop, int result, ir::BaseType type, std::vector<NodeId> operands, const lang::Span& span);
  // Input `index` of the body of the loop labelled `label` (names keep loops' inputs apart).
  NodeId loop_value(const std::string& label, int index, ir::BaseType type);
  const Node& node(NodeId id) const { return nodes_.at(id); }
  std::size_t size() const { return nodes_.size(); }
  // Keeps what the root reaches, renumbered in postorder.
  FragmentDag finish(NodeId root, const std::string& shader) const;
  // Keeps what the roots reach, renumbered in postorder; returns the nodes and the roots' new ids.
  std::vector<Node> finish_many(const std::vector<NodeId>& roots, std::vector<NodeId>* new_roots) const;

 private:
  using Key = std::tuple<NodeKind, ir::Op, ir::BaseType, std::uint32_t, std::string, std::vector<float>, std::vector<NodeId>, int>;
  NodeId intern(Node n, const lang::Span& span);
  std::vector<Node> nodes_;
  std::map<Key, NodeId> index_;
};

}  // namespace passlab::dag
