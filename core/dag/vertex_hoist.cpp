// SPDX-License-Identifier: GPL-3.0-or-later
// Vertex hoisting: affine subexpressions of the interpolants move to the per-vertex program.
//
// Perspective-correct interpolation reproduces, at every fragment, any function that is affine
// in the vertex attributes. So a subexpression built only from interpolants and constants with
// + - negation, scaling by constants, dot/cross/matrix products with constant operands and
// component moves can be computed once per vertex and arrive as one new interpolant. This is
// what the Stanford RTSL compiler did (its "vertex" computation frequency), which is why the RDS
// paper's bowling pin has 24 interpolants. Only subexpressions with at least one real operation
// are hoisted: a bare swizzle of one interpolant would only waste an interpolant. Passlab's
// pervertex(x) hoists x whatever its degree (RTSL's explicit vertex computations): exact when x is
// affine, interpolated (like Gouraud shading) when it is not.
#include <map>

#include "core/dag/fragment_dag.h"

namespace passlab::dag {

namespace {

enum class Degree : std::uint8_t { Constant, Affine, Other };

bool affine_matrix(const Node& m) {
  // Points are row vectors (p * M): the projective column must be (0, 0, 0, 1).
  return m.value.size() == 16 && m.value[3] == 0 && m.value[7] == 0 && m.value[11] == 0 && m.value[15] == 1;
}

Degree degree(const std::vector<Node>& nodes, const Node& n, const std::vector<Degree>& deg, const std::vector<char>& textured) {
  // pervertex(x): computed at the vertices whatever its degree, unless it needs a texture.
  if (n.kind == NodeKind::Operation && n.op == ir::Op::Builtin && static_cast<lang::Builtin>(n.aux) == lang::Builtin::PerVertex)
    return textured[n.children.at(0)] ? Degree::Other : Degree::Affine;
  switch (n.kind) {
    case NodeKind::Constant: return Degree::Constant;
    case NodeKind::Interpolant: return Degree::Affine;
    case NodeKind::Texture: return Degree::Other;
    case NodeKind::Operation: break;
  }
  int affine = 0;
  for (NodeId c : n.children) {
    if (deg[c] == Degree::Other) return Degree::Other;
    if (deg[c] == Degree::Affine) ++affine;
  }
  Degree result = affine ? Degree::Affine : Degree::Constant;
  auto kid = [&](std::size_t i) { return deg[n.children.at(i)]; };
  switch (n.op) {
    case ir::Op::Add: case ir::Op::Sub: case ir::Op::Neg: case ir::Op::Convert: case ir::Op::MakeTriple:
      return result;
    case ir::Op::Mul: case ir::Op::Dot: case ir::Op::Cross:
      return affine <= 1 ? result : Degree::Other;
    case ir::Op::Div:
      return kid(1) == Degree::Constant ? result : Degree::Other;
    case ir::Op::Builtin: {
      auto id = static_cast<lang::Builtin>(n.aux);
      switch (id) {
        case lang::Builtin::Xcomp: case lang::Builtin::Ycomp: case lang::Builtin::Zcomp: return result;
        case lang::Builtin::Comp: return n.children.size() == 2 && kid(1) == Degree::Constant ? result : Degree::Other;
        case lang::Builtin::Mix: return kid(2) == Degree::Constant ? result : Degree::Other;
        case lang::Builtin::Transform:
          return kid(0) == Degree::Constant && affine_matrix(nodes[n.children[0]]) ? result : Degree::Other;
        case lang::Builtin::Vtransform: case lang::Builtin::Ntransform:
          return kid(0) == Degree::Constant ? result : Degree::Other;
        default: return Degree::Other;
      }
    }
    default: return Degree::Other;
  }
}

bool is_move(const Node& n) {
  if (n.op == ir::Op::Convert) return true;
  if (n.op != ir::Op::Builtin) return false;
  auto id = static_cast<lang::Builtin>(n.aux);
  return id == lang::Builtin::Xcomp || id == lang::Builtin::Ycomp || id == lang::Builtin::Zcomp || id == lang::Builtin::Comp;
}

}  // namespace

FragmentDag hoist_vertex_work(const FragmentDag& dag) {
  if (!dag.vertex_nodes.empty()) return dag;  // already hoisted
  const auto& nodes = dag.nodes;
  std::vector<Degree> deg(nodes.size(), Degree::Other);
  std::vector<char> real(nodes.size(), 0), textured(nodes.size(), 0);
  for (const Node& n : nodes) {  // postorder: operands first
    textured[n.id] = n.kind == NodeKind::Texture;
    for (NodeId c : n.children) textured[n.id] = textured[n.id] || textured[c];
    deg[n.id] = degree(nodes, n, deg, textured);
    if (n.kind == NodeKind::Operation && deg[n.id] == Degree::Affine) {
      real[n.id] = !is_move(n);
      for (NodeId c : n.children) real[n.id] = real[n.id] || real[c];
    }
  }
  auto hoistable = [&](NodeId id) { return deg[id] == Degree::Affine && nodes[id].kind == NodeKind::Operation && real[id]; };
  std::vector<char> maximal(nodes.size(), 0);
  for (const Node& n : nodes) {
    // The operand of a screen-space difference is hoisted even when it only moves components
    // (Dv(ycomp(P))): the rasterizer differentiates interpolants, not swizzles of them.
    const bool differenced = n.kind == NodeKind::Operation && n.op == ir::Op::ScreenDiff;
    if (!hoistable(n.id))
      for (NodeId c : n.children)
        if (hoistable(c) || (differenced && deg[c] == Degree::Affine && nodes[c].kind == NodeKind::Operation)) maximal[c] = 1;
  }
  if (hoistable(dag.root)) maximal[dag.root] = 1;

  FragmentDag out;
  out.shader = dag.shader;
  DagBuilder vertex;
  std::map<NodeId, NodeId> vertex_memo;
  std::vector<NodeId> vertex_roots;
  std::map<NodeId, int> output_of;
  for (const Node& n : nodes)
    if (maximal[n.id]) {
      output_of[n.id] = static_cast<int>(vertex_roots.size());
      vertex_roots.push_back(vertex.copy(nodes, n.id, vertex_memo));
    }

  DagBuilder frag;
  std::map<NodeId, NodeId> memo;
  for (const auto& [id, output] : output_of)
    memo[id] = frag.vertex_interpolant(output, "v" + std::to_string(output), nodes[id].type, nodes[id].spans);
  NodeId root = frag.copy(nodes, dag.root, memo);
  std::vector<NodeId> roots;
  out.nodes = frag.finish_many({root}, &roots);
  out.root = roots[0];
  out.vertex_nodes = vertex.finish_many(vertex_roots, &out.vertex_outputs);
  return out;
}

}  // namespace passlab::dag
