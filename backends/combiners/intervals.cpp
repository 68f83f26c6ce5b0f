// SPDX-License-Identifier: GPL-3.0-or-later
// Interval analysis over the FragmentDag, one node at a time in id (operand-first) order.
#include "backends/combiners/intervals.h"

#include <algorithm>
#include <cmath>

#include "core/lang/stdlib.h"

namespace passlab::combiners {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

float mul0(float a, float b) {  // 0 * inf is 0 for bounds
  if (a == 0.0f || b == 0.0f) return 0.0f;
  return a * b;
}

// x * x: never negative.
Interval square(Interval x) {
  const float a = mul0(x.lo, x.lo), b = mul0(x.hi, x.hi);
  return {x.lo <= 0.0f && x.hi >= 0.0f ? 0.0f : std::min(a, b), std::max(a, b)};
}

// Whether nodes a and b compute the same value: one node, or the same operation of the same
// operands (the per-vertex program repeats a subexpression, as in L . L).
bool same_value(const std::vector<dag::Node>& nodes, dag::NodeId a, dag::NodeId b, int depth = 0) {
  if (a == b) return true;
  if (depth > 8 || a >= nodes.size() || b >= nodes.size()) return false;
  const dag::Node &x = nodes[a], &y = nodes[b];
  if (x.kind != y.kind || x.op != y.op || x.aux != y.aux || x.type != y.type || x.name != y.name || x.value != y.value ||
      x.children.size() != y.children.size() || x.kind == dag::NodeKind::Texture)
    return false;
  for (std::size_t i = 0; i < x.children.size(); ++i)
    if (!same_value(nodes, x.children[i], y.children[i], depth + 1)) return false;
  return true;
}

}  // namespace

Interval Interval::clamped() const { return {std::clamp(lo, -1.0f, 1.0f), std::clamp(hi, -1.0f, 1.0f)}; }

Interval hull(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
Interval operator+(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }
Interval operator-(Interval a) { return {-a.hi, -a.lo}; }
Interval operator*(Interval a, Interval b) {
  const float p[4] = {mul0(a.lo, b.lo), mul0(a.lo, b.hi), mul0(a.hi, b.lo), mul0(a.hi, b.hi)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

namespace {

// Intervals of a node list in postorder (operands first); `leaf` bounds interpolant leaves.
template <class Leaf>
std::vector<Interval> analyse(const std::vector<dag::Node>& nodes, Leaf&& leaf) {
  using ir::Op;
  using lang::Builtin;
  std::vector<Interval> r(nodes.size());
  const Interval any{};
  auto same_kids = [&](const dag::Node& n) { return n.children.size() == 2 && same_value(nodes, n.children[0], n.children[1]); };
  // a s + b (1 - s), s a select of 1 and 0 (a decomposed select, decompose.cpp): a or b.
  auto constant_is = [&](dag::NodeId id, float x) {
    const dag::Node& c = nodes[id];
    return c.kind == dag::NodeKind::Constant && !c.value.empty() && c.value[0] == x;
  };
  auto blend = [&](const dag::Node& n) {
    if (n.children.size() != 2) return false;
    const dag::Node &p = nodes[n.children[0]], &q = nodes[n.children[1]];
    if (p.kind != dag::NodeKind::Operation || q.kind != dag::NodeKind::Operation || p.op != Op::Mul || q.op != Op::Mul ||
        p.children.size() != 2 || q.children.size() != 2)
      return false;
    const dag::Node& sel = nodes[p.children[1]];
    const dag::Node& one_minus = nodes[q.children[1]];
    return sel.kind == dag::NodeKind::Operation && sel.op == Op::Select && sel.children.size() == 3 && constant_is(sel.children[1], 1.0f) &&
           constant_is(sel.children[2], 0.0f) && one_minus.kind == dag::NodeKind::Operation && one_minus.op == Op::Sub &&
           one_minus.children.size() == 2 && constant_is(one_minus.children[0], 1.0f) && one_minus.children[1] == p.children[1];
  };
  for (const dag::Node& n : nodes) {
    auto kid = [&](std::size_t i) { return i < n.children.size() ? r[n.children[i]] : any; };
    Interval v = any;
    switch (n.kind) {
      case dag::NodeKind::Constant: {
        const int k = lang::is_triple(n.type) ? 3 : 1;
        v = Interval::point(n.value.empty() ? 0.0f : n.value[0]);
        for (int i = 1; i < k && i < static_cast<int>(n.value.size()); ++i) v = hull(v, Interval::point(n.value[static_cast<std::size_t>(i)]));
        break;
      }
      case dag::NodeKind::Interpolant: v = leaf(n); break;
      case dag::NodeKind::Texture: v = Interval::unit(); break;
      case dag::NodeKind::Operation:
        switch (n.op) {
          case Op::Neg: v = -kid(0); break;
          case Op::Add: v = blend(n) ? hull(r[nodes[n.children[0]].children[0]], r[nodes[n.children[1]].children[0]]) : kid(0) + kid(1); break;
          case Op::Sub: v = kid(0) + -kid(1); break;
          case Op::Mul: v = same_kids(n) ? square(kid(0)) : kid(0) * kid(1); break;
          case Op::Div: {
            const Interval x = kid(0), d = kid(1);
            if (d.lo > 0.0f || d.hi < 0.0f) v = x * Interval{std::min(1.0f / d.lo, 1.0f / d.hi), std::max(1.0f / d.lo, 1.0f / d.hi)};
            else if (d.lo >= 0.0f) v = {x.lo >= 0.0f ? 0.0f : -kInf, x.hi <= 0.0f ? 0.0f : kInf};  // the sign survives x / d, d >= 0
            break;
          }
          case Op::Dot: {
            const Interval p = same_kids(n) ? square(kid(0)) : kid(0) * kid(1);
            v = p + p + p;
            break;
          }
          case Op::Cross: {
            const Interval p = kid(0) * kid(1);
            v = p + -p;
            break;
          }
          case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge: case Op::Eq: case Op::Ne:
          case Op::And: case Op::Or: case Op::Not: v = Interval::unit(); break;
          case Op::Select: v = hull(kid(1), kid(2)); break;
          case Op::Convert: v = kid(0); break;
          case Op::MakeTriple: v = hull(hull(kid(0), kid(1)), kid(2)); break;
          case Op::Output: v = hull(kid(0), kid(1)); break;
          case Op::Outputs: v = kid(0); break;
          case Op::Builtin:
            switch (static_cast<Builtin>(n.aux)) {
              case Builtin::Abs: {
                const Interval x = kid(0);
                v = {x.lo >= 0 ? x.lo : x.hi <= 0 ? -x.hi : 0.0f, std::max(std::fabs(x.lo), std::fabs(x.hi))};
                break;
              }
              case Builtin::Sign: v = Interval::signed_unit(); break;
              case Builtin::Floor: case Builtin::Ceil: case Builtin::Round: {
                const Interval x = kid(0);
                v = {std::floor(x.lo), std::ceil(x.hi)};
                break;
              }
              case Builtin::Min: {
                v = kid(0);
                for (std::size_t i = 1; i < n.children.size(); ++i) v = {std::min(v.lo, kid(i).lo), std::min(v.hi, kid(i).hi)};
                break;
              }
              case Builtin::Max: {
                v = kid(0);
                for (std::size_t i = 1; i < n.children.size(); ++i) v = {std::max(v.lo, kid(i).lo), std::max(v.hi, kid(i).hi)};
                break;
              }
              case Builtin::Clamp: {  // min(max(x, lo), hi)
                const Interval x = kid(0), lo = kid(1), hi = kid(2);
                const Interval m{std::max(x.lo, lo.lo), std::max(x.hi, lo.hi)};
                v = {std::min(m.lo, hi.lo), std::min(m.hi, hi.hi)};
                break;
              }
              case Builtin::Mix: {
                const Interval t = kid(2);
                v = t.within(0, 1) ? hull(kid(0), kid(1)) : kid(0) * (Interval::point(1) + -t) + kid(1) * t;
                break;
              }
              case Builtin::Step: case Builtin::Smoothstep: v = Interval::unit(); break;
              case Builtin::Sqrt: {
                const Interval x = kid(0);
                v = {std::sqrt(std::max(0.0f, x.lo)), x.hi < 0 ? 0.0f : std::sqrt(x.hi)};
                break;
              }
              case Builtin::Pow: {
                const Interval x = kid(0), e = kid(1);
                if (x.lo >= 0 && e.lo == e.hi && e.lo > 0) v = {std::pow(x.lo, e.lo), std::pow(x.hi, e.lo)};
                else if (x.lo >= 0) v = {0.0f, kInf};
                break;
              }
              case Builtin::Exp: v = {0.0f, kInf}; break;
              case Builtin::Sin: case Builtin::Cos: v = Interval::signed_unit(); break;
              case Builtin::Normalize: case Builtin::Faceforward: {
                v = n.aux == static_cast<std::uint32_t>(Builtin::Normalize) ? Interval::signed_unit() : hull(kid(0), -kid(0));
                break;
              }
              case Builtin::Reflect: {
                const Interval i = kid(0), nn = kid(1);
                const Interval d = i * nn + i * nn + i * nn;
                v = i + -(Interval::point(2) * d * nn);
                break;
              }
              case Builtin::Xcomp: case Builtin::Ycomp: case Builtin::Zcomp: case Builtin::Comp: v = kid(0); break;
              case Builtin::Length: case Builtin::Distance: v = {0.0f, kInf}; break;
              case Builtin::Noise: v = Interval::unit(); break;
              case Builtin::PerVertex: v = kid(0); break;
              default: break;
            }
            break;
          default: break;
        }
        break;
    }
    if (std::isnan(v.lo) || std::isnan(v.hi)) v = any;
    r[n.id] = v;
  }
  return r;
}

Interval global_range(const dag::Node& n) { return (n.name == "Cs" || n.name == "Os") ? Interval::unit() : Interval{}; }

}  // namespace

std::vector<Interval> intervals(const dag::FragmentDag& dag) {
  // The per-vertex program first: an interpolant it computes has the interval of its value.
  const std::vector<Interval> vertex = analyse(dag.vertex_nodes, global_range);
  return analyse(dag.nodes, [&](const dag::Node& n) {
    if (n.vertex_output >= 0 && static_cast<std::size_t>(n.vertex_output) < dag.vertex_outputs.size())
      return vertex[dag.vertex_outputs[static_cast<std::size_t>(n.vertex_output)]];
    return global_range(n);
  });
}

}  // namespace passlab::combiners
