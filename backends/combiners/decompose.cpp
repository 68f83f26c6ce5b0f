// SPDX-License-Identifier: GPL-3.0-or-later
// Decomposition (beyond the paper): an operation whose operands could need more texture units
// than a pass has is split into operations that fit, so the partitioner never meets an atomic
// node it cannot place. The partitioner treats a FragmentDag node as atomic, and any of its
// operands computed in an earlier pass is read back through a texture unit; a select folds its
// condition in (the condition's operands are its own), so `x >= y ? a : b` reads four values,
// and on GeForce1's two units no partition of it exists. Split, it is
//
//   s = x - y >= 0 ? 1 : 0    (the difference reads x and y, the control one value)
//   a s + b (1 - s)           (each product reads two values, the sum two)
//
// exact (s is 0 or 1, so each product is a or b or 0 and the sum one of them), and the combiners
// compute the last line in one FULL combiner when the three values are at hand.
#include "backends/combiners/lower.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace passlab::combiners {

namespace {

using ir::Op;

bool is_constant(const dag::FragmentDag& d, dag::NodeId id) { return d.node(id).kind == dag::NodeKind::Constant; }

// The values a condition reads (a condition is folded into its reader, conditions of conditions too).
void condition_operands(const dag::FragmentDag& d, dag::NodeId c, std::set<dag::NodeId>& out) {
  const dag::Node& n = d.node(c);
  if (n.kind == dag::NodeKind::Operation && n.type == ir::BaseType::Bool) {
    for (dag::NodeId k : n.children) condition_operands(d, k, out);
    return;
  }
  if (n.kind != dag::NodeKind::Constant) out.insert(c);
}

bool zero_constant(const dag::FragmentDag& d, dag::NodeId id) {
  const dag::Node& n = d.node(id);
  return n.kind == dag::NodeKind::Constant && !n.value.empty() && std::all_of(n.value.begin(), n.value.end(), [](float v) { return v == 0.0f; });
}

}  // namespace

dag::FragmentDag decompose(const dag::FragmentDag& d, int texture_units) {
  if (texture_units <= 0) return d;
  bool any = false;
  std::vector<char> split(d.size(), 0);
  for (const dag::Node& n : d.nodes) {
    if (n.kind != dag::NodeKind::Operation || n.op != Op::Select || n.type == ir::BaseType::Bool || n.children.size() != 3) continue;
    std::set<dag::NodeId> operands;
    condition_operands(d, n.children[0], operands);
    const std::size_t control = operands.size();
    for (std::size_t i = 1; i < 3; ++i)
      if (!is_constant(d, n.children[i])) operands.insert(n.children[i]);
    // Worth it only when the select cannot fit and its control alone can.
    if (static_cast<int>(operands.size()) > texture_units && static_cast<int>(control) <= texture_units && operands.size() > control)
      split[n.id] = 1, any = true;
  }
  if (!any) return d;
  dag::DagBuilder b;
  std::map<dag::NodeId, dag::NodeId> memo;
  for (const dag::Node& n : d.nodes) {
    if (!split[n.id]) {
      b.copy(d.nodes, n.id, memo);
      continue;
    }
    const lang::Span span = n.spans.empty() ? lang::Span{} : n.spans.front();
    auto scalar = [&](float x) { return b.constant(ir::Value::scalar(x), span); };
    auto op = [&](Op o, ir::BaseType t, std::vector<dag::NodeId> kids) { return b.operation(o, t, 0, std::move(kids), span); };
    dag::NodeId c = memo.at(n.children[0]);
    dag::NodeId a = memo.at(n.children[1]), e = memo.at(n.children[2]);
    bool a_zero = zero_constant(d, n.children[1]), e_zero = zero_constant(d, n.children[2]);
    // A comparison of two computed values becomes d >= 0 of a difference d, so the control reads
    // one value: a pass computes the difference, the next the MUX (the difference's clamp to
    // [-1, 1] keeps its sign). Always non-strict: a saved difference of exactly 0 is stored as
    // (0 + 1)/2, which 8 bits round up to 128/255, so d >= 0 holds there but d > 0 would too;
    // x > y is !(y >= x), the arms swapped.
    const dag::Node& cn = d.node(n.children[0]);
    const bool ordered = cn.kind == dag::NodeKind::Operation && (cn.op == Op::Ge || cn.op == Op::Gt || cn.op == Op::Le || cn.op == Op::Lt);
    if (ordered && cn.children.size() == 2 && !is_constant(d, cn.children[0]) && !is_constant(d, cn.children[1]) &&
        d.node(cn.children[0]).type == ir::BaseType::Float && d.node(cn.children[1]).type == ir::BaseType::Float) {
      const dag::NodeId x = memo.at(cn.children[0]), y = memo.at(cn.children[1]);
      const bool x_first = cn.op == Op::Ge || cn.op == Op::Lt;  // Ge: x - y >= 0; Lt: !(x - y >= 0)
      const dag::NodeId diff = op(Op::Sub, ir::BaseType::Float, {x_first ? x : y, x_first ? y : x});
      c = op(Op::Ge, ir::BaseType::Bool, {diff, scalar(0)});
      if (cn.op == Op::Gt || cn.op == Op::Lt) std::swap(a, e), std::swap(a_zero, e_zero);
    }
    const dag::NodeId s = op(Op::Select, ir::BaseType::Float, {c, scalar(1), scalar(0)});
    dag::NodeId r;
    if (e_zero) {
      r = op(Op::Mul, n.type, {a, s});
    } else if (a_zero) {
      r = op(Op::Mul, n.type, {e, op(Op::Sub, ir::BaseType::Float, {scalar(1), s})});
    } else {
      r = op(Op::Add, n.type, {op(Op::Mul, n.type, {a, s}), op(Op::Mul, n.type, {e, op(Op::Sub, ir::BaseType::Float, {scalar(1), s})})});
    }
    memo[n.id] = r;
  }
  dag::FragmentDag out = b.finish(memo.at(d.root), d.shader);
  out.vertex_nodes = d.vertex_nodes;
  out.vertex_outputs = d.vertex_outputs;
  dag::unshare_constants(out);
  return out;
}

}  // namespace passlab::combiners
