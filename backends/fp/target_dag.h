// SPDX-License-Identifier: GPL-3.0-or-later
// The target DAG: the FragmentDag after instruction selection, one node per instruction or input.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/fp/isa.h"
#include "core/dag/fragment_dag.h"
#include "core/partition/target.h"

namespace passlab::fp {

using TNodeId = std::uint32_t;

struct Operand {
  TNodeId node = 0;
  Swizzle swizzle;
  bool negate = false;
  friend auto operator<=>(const Operand&, const Operand&) = default;
};

enum class TKind : std::uint8_t { Instruction, Texture, Interpolant, Constant };
const char* to_string(TKind k);

struct TNode {
  TNodeId id = 0;
  TKind kind = TKind::Instruction;
  Opcode op = Opcode::MOV;
  bool saturate = false;
  std::vector<Operand> src;               // TEX: the coordinate
  Vec4 value{};                           // constants
  std::string name;                       // texture name; interpolant label
  int dims = 0;                           // TEX: coordinate components used
  std::vector<dag::NodeId> lanes;         // interpolant: the FragmentDag interpolants packed into it
  std::uint8_t difference = 0;            // interpolant: 0 its value; 1 its difference one pixel right, 2
                                          // below (a ScreenDiff of a FragmentDag interpolant); 3 its
                                          // value one pixel right, 4 below (a Neighbour of one)
  int width = 4;                          // components that carry meaning (1 float, 3 triple, 4 RGBA)
  std::vector<dag::NodeId> origin;        // the FragmentDag nodes whose value this computes
  std::vector<lang::Span> spans;
  std::vector<TNodeId> deps;              // distinct operand nodes, in operand order
};

// Nodes are in postorder from the root: operands before users.
struct TargetDag {
  std::vector<TNode> nodes;
  TNodeId root = 0;  // the colour
  // A shader with several outputs (ir::Op::Outputs): the values written, each to its own render
  // target, the colour (root) first; empty: the root alone.
  std::vector<TNodeId> outputs;
  // How the target takes screen-space differences: on a quad target, a fragment's neighbours
  // right and below are its quad partners (one pixel right or left, below or above).
  partition::Derivatives derivatives = partition::Derivatives::Interpolants;

  const TNode& node(TNodeId id) const { return nodes.at(id); }
  std::size_t size() const { return nodes.size(); }
  bool is_operation(TNodeId id) const { return nodes[id].kind == TKind::Instruction || nodes[id].kind == TKind::Texture; }
  const std::vector<TNodeId>& operand_nodes(TNodeId id) const { return nodes[id].deps; }  // distinct
};

// Instruction selection (a small tiling in the spirit of lburg): each FragmentDag node becomes a
// short instruction sequence; negation, component selection and scalar broadcast become source
// modifiers and cost nothing; a texture whose coordinates are all interpolants reads one packed
// interpolant. Returns nullopt with a diagnostic (code "fp-target", at the source of the node) for
// what the ISA cannot express (varying matrices, component indices or spline knots). A target
// without derivatives (partition::Derivatives::None) refuses every screen-space difference.
std::optional<TargetDag> select(const dag::FragmentDag& dag, lang::Diagnostic* problem,
                                partition::Derivatives derivatives = partition::Derivatives::Interpolants);
// The same for `target`: on a quad target, a difference whose value does not fit one pass with
// its DDX or DDY (the value must be computed in the difference's pass) is recomputed from the
// neighbour's interpolants and subtracted instead, as on targets without DDX.
std::optional<TargetDag> select(const dag::FragmentDag& dag, lang::Diagnostic* problem, const partition::TargetDesc& target);

// The value every node computes for one fragment (the unpartitioned program).
// A program with difference interpolants or DDX, DDY needs the fragment's neighbours (`next`:
// on a quad target, its quad partners); without them those read NaN.
std::vector<Vec4> evaluate_all(const TargetDag& t, const dag::FragmentDag& dag, const ir::FragmentInputs& in,
                               const ir::EvalContext& ctx, const ir::Neighbours* next = nullptr);
Vec4 sample(const TNode& tex, const Vec4& coord, const ir::EvalContext& ctx);
// What the vertex program delivers to a fragment: the vertex outputs here and, for difference
// interpolants, on the neighbours right and below.
struct VertexValues {
  std::vector<ir::Value> here, right, below;
  const ir::Neighbours* next = nullptr;
};
VertexValues vertex_values(const dag::FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx,
                           const ir::Neighbours* next);
Vec4 input_value(const TNode& leaf, const dag::FragmentDag& dag, const ir::FragmentInputs& in,
                 const std::vector<ir::Value>& vertex_values);
Vec4 input_value(const TNode& leaf, const dag::FragmentDag& dag, const ir::FragmentInputs& in, const VertexValues& vertex);
Vec4 read(const Operand& o, const std::vector<Vec4>& values);

// Differences across the quad (DDX, DDY; partition::Derivatives::Quad). Evaluating them takes the
// fragment and its quad partners in lockstep: each node on all three, a difference on the
// partners being the fragment's own (one per pixel pair, as on hardware and in the interpreter).
inline bool is_quad_difference(Opcode op) { return op == Opcode::DDX || op == Opcode::DDY; }
bool has_quad_differences(const TargetDag& t);
// A DDX or DDY node's value: its operand as the partner computes it (`there`) minus here.
Vec4 quad_difference(const TNode& n, const std::vector<Vec4>& here, const std::vector<Vec4>& there);

// One instruction node: its operands fetched by `operand`, the opcode applied, _SAT honoured.
template <class Fetch>
Vec4 execute(const TNode& n, Fetch&& operand) {
  Vec4 a = operand(n.src[0]);
  Vec4 b = n.src.size() > 1 ? operand(n.src[1]) : Vec4{};
  Vec4 c = n.src.size() > 2 ? operand(n.src[2]) : Vec4{};
  Vec4 r = execute(n.op, a, b, c);
  if (n.saturate)
    for (float& x : r) x = saturate(x);
  return r;
}

}  // namespace passlab::fp
