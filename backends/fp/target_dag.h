// SPDX-License-Identifier: GPL-3.0-or-later
// The target DAG: the FragmentDag after instruction selection, one node per instruction or input.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
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

// Loop: a dynamic loop (REP ... BRK ... ENDREP) run as one node (TLoop); LoopValue: an input of
// a loop's body, only inside it.
enum class TKind : std::uint8_t { Instruction, Texture, Interpolant, Constant, Loop, LoopValue };
const char* to_string(TKind k);

struct TLoop;

struct TNode {
  TNodeId id = 0;
  TKind kind = TKind::Instruction;
  Opcode op = Opcode::MOV;
  bool saturate = false;
  std::vector<Operand> src;               // TEX: the coordinate
  Vec4 value{};                           // constants
  std::string name;                       // texture name; interpolant label
  int dims = 0;                           // TEX: coordinate components used; LoopValue: the input
  std::vector<dag::NodeId> lanes;         // interpolant: the FragmentDag interpolants packed into it;
                                          // loop: the results packed into it, lane by lane
  std::uint8_t difference = 0;            // interpolant: 0 its value; 1 its difference one pixel right, 2
                                          // below (a ScreenDiff of a FragmentDag interpolant); 3 its
                                          // value one pixel right, 4 below (a Neighbour of one)
  int width = 4;                          // components that carry meaning (1 float, 3 triple, 4 RGBA)
  std::vector<dag::NodeId> origin;        // the FragmentDag nodes whose value this computes
  std::vector<lang::Span> spans;
  std::vector<TNodeId> deps;              // distinct operand nodes, in operand order
  std::shared_ptr<const TLoop> loop;      // loop: what it runs; its operands (src) are the carried
                                          // values' initial values, then the invariants
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
  bool is_operation(TNodeId id) const {
    const TKind k = nodes[id].kind;
    return k == TKind::Instruction || k == TKind::Texture || k == TKind::Loop;
  }
  const std::vector<TNodeId>& operand_nodes(TNodeId id) const { return nodes[id].deps; }  // distinct
};

// A dynamic loop after instruction selection (dag::LoopBody): its body as a target DAG over
// LoopValue leaves (the carried values, then the invariants), and where in it the carried
// values' next values, the results and the test are. A Loop node runs it and packs the results
// it takes (TNode::lanes) into its lanes, a float in one, a triple in three.
struct TLoop {
  TargetDag body;
  std::vector<Operand> next, results;
  std::vector<int> result_width;  // 1 or 3
  Operand go_on;
  int carried = 0, invariants = 0, max_iterations = 0;
  std::string label;
  // What the loop costs in its pass (summarize): its static instructions (the initial values'
  // MOVs, REP, the body, copies that keep the next values apart, MOVC and BRK for the test, the
  // next values' MOVs, ENDREP; each Loop node adds a MOV per result it takes), of which texture
  // fetches; the temporaries it holds beside its operands and result (the carried values, the
  // body's); the textures its body samples.
  int instructions = 0, fetches = 0, temporaries = 0;
  std::vector<std::string> textures;
};
// Fills in the costs above from the body (after selection).
void summarize(TLoop& loop);
// The registers a listing of the loop names beyond its pass's own: its temporaries, and those of
// the loops in its body.
int loop_registers(const TLoop& loop);
// The loop's lines in a listing (NV_fragment_program2): its registers r<base>..., its results into
// `dst`, `outer(o)` the text of an operand of the pass (the loop's operands are the pass's),
// `unit(name)` a texture's unit.
std::string loop_listing(const TNode& loop, const std::string& dst, int base, const std::function<std::string(const Operand&)>& outer,
                         const std::function<int(const std::string&)>& unit);
// A Loop node's static instructions in its pass.
inline int loop_instructions(const TNode& n) { return n.loop->instructions + static_cast<int>(n.lanes.size()); }
// A Loop node's value given its operands' (initial values, then invariants); `iterations`: how
// many times the body ran. Not constant time: up to max_iterations runs of the body.
Vec4 run_loop(const TNode& loop, const std::vector<Vec4>& operands, const ir::EvalContext& ctx, int* iterations = nullptr);
template <class Fetch>
Vec4 loop_value(const TNode& loop, Fetch&& operand, const ir::EvalContext& ctx) {
  std::vector<Vec4> operands;
  operands.reserve(loop.src.size());
  for (const Operand& o : loop.src) operands.push_back(operand(o));
  return run_loop(loop, operands, ctx);
}

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
