// SPDX-License-Identifier: GPL-3.0-or-later
// Expands multi-step library functions into primitive FragmentDag operations.
#include "backends/combiners/lower.h"

#include "backends/combiners/intervals.h"

#include <cmath>
#include <functional>
#include <map>

#include "core/lang/stdlib.h"
#include "core/lang/types.h"

namespace passlab::combiners {

namespace {

using ir::Op;
using lang::Builtin;

bool constant_value(const dag::Node& n, float* v) {
  if (n.kind != dag::NodeKind::Constant || n.value.empty()) return false;
  *v = n.value[0];
  for (float x : n.value)
    if (x != *v) return false;
  return true;
}

}  // namespace

dag::FragmentDag lower(const dag::FragmentDag& d, int texture_units) {
  dag::DagBuilder b;
  std::map<dag::NodeId, dag::NodeId> memo;
  // Vectors known to be of unit length (in the new DAG): normalize() of one is itself, which
  // spares a normalisation the combiners could not do per fragment (illuminance() normalises
  // faceforward(normalize(N), I), already of unit length).
  std::map<dag::NodeId, bool> unit;
  const std::vector<Interval> range = intervals(d);
  auto is_unit = [&](dag::NodeId id) { auto it = unit.find(id); return it != unit.end() && it->second; };
  for (const dag::Node& n : d.nodes) {  // postorder: operands first
    const lang::Span span = n.spans.empty() ? lang::Span{} : n.spans.front();
    auto kid = [&](std::size_t i) { return memo.at(n.children.at(i)); };
    auto type_of = [&](dag::NodeId id) { return b.node(id).type; };
    auto scalar = [&](float x) { return b.constant(ir::Value::scalar(x), span); };
    auto op = [&](Op o, ir::BaseType t, std::vector<dag::NodeId> kids) { return b.operation(o, t, 0, std::move(kids), span); };
    auto ge = [&](dag::NodeId x, dag::NodeId y) { return op(Op::Ge, ir::BaseType::Bool, {x, y}); };
    dag::NodeId r = 0;
    bool lowered = false;
    if (n.kind == dag::NodeKind::Operation && n.op == Op::Builtin) {
      const Builtin id = static_cast<Builtin>(n.aux);
      const bool is_float = n.type == ir::BaseType::Float;
      float k = 0;
      lowered = true;
      switch (id) {
        case Builtin::Faceforward: {  // N if dot(I, Nref) < 0, else -N
          const dag::NodeId nn = kid(0), ref = n.children.size() > 2 ? kid(2) : nn;
          // Only the sign of dot(I, Nref) matters, so an interpolated I the registers could not
          // hold (it is as long as the distance to the eye) is normalised first, by a cube map.
          dag::NodeId i = kid(1);
          if (d.node(n.children[1]).kind == dag::NodeKind::Interpolant && !range[n.children[1]].within(-1.0f, 1.0f))
            i = b.operation(Op::Builtin, type_of(i), static_cast<std::uint32_t>(Builtin::Normalize), {i}, span);
          const dag::NodeId dot = op(Op::Dot, ir::BaseType::Float, {i, ref});
          r = op(Op::Select, n.type, {op(Op::Lt, ir::BaseType::Bool, {dot, scalar(0)}), nn, op(Op::Neg, n.type, {nn})});
          unit[r] = is_unit(nn);
          break;
        }
        case Builtin::Normalize: {
          const Interval v = range[n.children[0]];
          const float most = std::max(std::fabs(v.lo), std::fabs(v.hi));
          if (is_unit(kid(0))) {
            r = kid(0);
          } else if (d.node(n.children[0]).kind != dag::NodeKind::Interpolant && std::isfinite(most) && most > 1.0f && most <= 64.0f) {
            // The direction of a vector the registers cannot hold (a sum of unit vectors): the
            // same direction scaled into [-1, 1] by a power of two, which the combiners compute
            // exactly (an output scale) and a pass can save.
            // Sums, differences and negations are scaled term by term (a + b + c as a/4 + b/4 +
            // c/4), so no step of the vector leaves the range.
            const float scale = std::ldexp(1.0f, -static_cast<int>(std::ceil(std::log2(most))));
            std::function<dag::NodeId(dag::NodeId, int)> scaled = [&](dag::NodeId v, int depth) -> dag::NodeId {
              const dag::Node vn = b.node(v);  // a copy: building nodes moves the builder's
              if (depth < 8 && vn.kind == dag::NodeKind::Operation && (vn.op == Op::Add || vn.op == Op::Sub) && vn.children.size() == 2) {
                const dag::NodeId x = scaled(vn.children[0], depth + 1), y = scaled(vn.children[1], depth + 1);
                return op(vn.op, vn.type, {x, y});
              }
              if (depth < 8 && vn.kind == dag::NodeKind::Operation && vn.op == Op::Neg && vn.children.size() == 1) {
                const dag::NodeId x = scaled(vn.children[0], depth + 1);
                return op(Op::Neg, vn.type, {x});
              }
              return op(Op::Mul, vn.type, {v, scalar(scale)});
            };
            r = b.operation(Op::Builtin, n.type, n.aux, {scaled(kid(0), 0)}, span);
            unit[r] = true;
          } else {
            lowered = false;
          }
          break;
        }
        case Builtin::Reflect: {  // I - 2 dot(N, I) N
          const dag::NodeId i = kid(0), nn = kid(1);
          const dag::NodeId twice = op(Op::Mul, ir::BaseType::Float, {scalar(2), op(Op::Dot, ir::BaseType::Float, {nn, i})});
          r = op(Op::Sub, n.type, {i, op(Op::Mul, type_of(nn), {twice, nn})});
          break;
        }
        case Builtin::Pow:
          if (constant_value(d.node(n.children[1]), &k) && k == std::floor(k) && k >= 1 && k <= 64) {
            dag::NodeId result = 0, square = kid(0);
            bool have = false;
            for (unsigned e = static_cast<unsigned>(k); e; e >>= 1) {
              if (e & 1) result = have ? op(Op::Mul, n.type, {result, square}) : square, have = true;
              if (e > 1) square = op(Op::Mul, n.type, {square, square});
            }
            r = result;
          } else {
            lowered = false;
          }
          break;
        case Builtin::Mix: {  // a (1 - t) + b t
          const dag::NodeId a = kid(0), c = kid(1), t = kid(2);
          const dag::NodeId one = b.constant(ir::Value::zero(type_of(t)).type == ir::BaseType::Float ? ir::Value::scalar(1)
                                                                                                      : ir::Value::triple(type_of(t), 1, 1, 1),
                                             span);
          r = op(Op::Add, n.type, {op(Op::Mul, n.type, {a, op(Op::Sub, type_of(t), {one, t})}), op(Op::Mul, n.type, {c, t})});
          break;
        }
        case Builtin::Step:  // x >= edge
          r = op(Op::Select, ir::BaseType::Float, {ge(kid(1), kid(0)), scalar(1), scalar(0)});
          break;
        case Builtin::Abs:
          if (!is_float) {
            lowered = false;
            break;
          }
          r = op(Op::Select, n.type, {ge(kid(0), scalar(0)), kid(0), op(Op::Neg, n.type, {kid(0)})});
          break;
        case Builtin::Min:
        case Builtin::Max: {
          // max(0, x) and min(x, 1) stay: they are input mappings (and free).
          float c0 = 0, c1 = 0;
          const bool k0 = constant_value(d.node(n.children[0]), &c0), k1 = n.children.size() > 1 && constant_value(d.node(n.children[1]), &c1);
          const bool mapping = (id == Builtin::Max && ((k0 && c0 == 0) || (k1 && c1 == 0))) || (id == Builtin::Min && ((k0 && c0 == 1) || (k1 && c1 == 1)));
          if (!is_float || n.children.size() != 2 || mapping) {
            lowered = false;
            break;
          }
          const dag::NodeId a = kid(0), c = kid(1);
          r = id == Builtin::Max ? op(Op::Select, n.type, {ge(a, c), a, c}) : op(Op::Select, n.type, {ge(a, c), c, a});
          break;
        }
        case Builtin::Clamp: {  // max(lo, min(x, hi)); clamp(x, 0, 1) stays (an input mapping)
          float lo = 0, hi = 0;
          const bool klo = constant_value(d.node(n.children[1]), &lo), khi = constant_value(d.node(n.children[2]), &hi);
          if (!is_float || (klo && khi && lo == 0 && hi >= 1)) {
            lowered = false;
            break;
          }
          const dag::NodeId x = kid(0), l = kid(1), h = kid(2);
          const dag::NodeId low = op(Op::Select, n.type, {ge(x, h), h, x});
          r = op(Op::Select, n.type, {ge(l, low), l, low});
          break;
        }
        default: lowered = false; break;
      }
    }
    if (lowered) {
      memo[n.id] = r;
      continue;
    }
    b.copy(d.nodes, n.id, memo);
    const dag::NodeId m = memo.at(n.id);
    if (n.kind == dag::NodeKind::Operation && n.op == Op::Builtin && static_cast<Builtin>(n.aux) == Builtin::Normalize) unit[m] = true;
    if (n.kind == dag::NodeKind::Operation && n.op == Op::Neg) unit[m] = is_unit(kid(0));
    if (n.kind == dag::NodeKind::Operation && n.op == Op::Select) unit[m] = is_unit(kid(1)) && is_unit(kid(2));
  }
  dag::FragmentDag out = b.finish(memo.at(d.root), d.shader);
  out.vertex_nodes = d.vertex_nodes;
  out.vertex_outputs = d.vertex_outputs;
  dag::unshare_constants(out);
  return decompose(out, texture_units);
}

}  // namespace passlab::combiners
