// SPDX-License-Identifier: GPL-3.0-or-later
// The execution check: a partition run pass by pass, with save and restore, on one fragment.
#include "backends/fp/execute.h"

#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace passlab::fp {

ExecutionResult run_passes(const TargetDag& t, const dag::FragmentDag& d, const partition::Partition& part,
                           const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next) {
  ExecutionResult r;
  const VertexValues vertex = vertex_values(d, in, ctx, next);
  // With DDX or DDY, the fragment's quad partners (right, below) run the passes in lockstep, each
  // with its own saved values, as the pixels of a quad do.
  const std::size_t lanes = next && has_quad_differences(t) ? 3 : 1;
  const ir::FragmentInputs* at[3] = {&in, next ? &next->right : nullptr, next ? &next->below : nullptr};
  const std::vector<ir::Value>* at_vertex[3] = {&vertex.here, &vertex.right, &vertex.below};
  std::array<std::map<TNodeId, Vec4>, 3> saved;  // the intermediate buffers
  for (std::size_t i = 0; i < part.passes.size(); ++i) {
    const partition::Pass& pass = part.passes[i];
    std::array<std::vector<Vec4>, 3> values;
    for (std::size_t l = 0; l < lanes; ++l) values[l].resize(t.size());
    std::vector<char> have(t.size(), 0);
    for (TNodeId m : pass.members) have[m] = 2;  // computed here (ids are in operand order)
    auto operand = [&](std::size_t l, const Operand& o) -> Vec4 {
      const TNode& src = t.node(o.node);
      if (!t.is_operation(o.node)) {
        // A partner's differences are the fragment's own.
        values[l][o.node] = l == 0 || src.difference ? input_value(src, d, in, vertex) : input_value(src, d, *at[l], *at_vertex[l]);
      } else if (have[o.node] != 1) {
        auto s = saved[l].find(o.node);
        if (s == saved[l].end()) throw std::runtime_error(fmt::format("pass {} reads n{}, which no earlier pass saved", i + 1, o.node));
        values[l][o.node] = s->second;
      }
      return read(o, values[l]);
    };
    try {
      for (TNodeId m : pass.members) {
        const TNode& n = t.node(m);
        for (std::size_t l = 0; l < lanes; ++l) {
          if (n.kind == TKind::Texture) {
            values[l][m] = sample(n, operand(l, n.src[0]), ctx);
          } else if (n.kind == TKind::Loop) {
            values[l][m] = loop_value(n, [&](const Operand& o) { return operand(l, o); }, ctx);
          } else if (is_quad_difference(n.op)) {
            if (l > 0) {
              values[l][m] = values[0][m];
            } else if (lanes == 1) {
              values[0][m] = {NAN, NAN, NAN, NAN};  // no partners given
            } else {
              const std::size_t partner = n.op == Opcode::DDX ? 1 : 2;
              operand(partner, n.src[0]);  // (fetched: a leaf's or a restored value is set where it is read)
              operand(0, n.src[0]);
              values[0][m] = quad_difference(n, values[0], values[partner]);
            }
          } else {
            values[l][m] = execute(n, [&](const Operand& o) { return operand(l, o); });
          }
        }
        have[m] = 1;
      }
    } catch (const std::runtime_error& e) {
      r.error = e.what();
      return r;
    }
    for (std::size_t l = 0; l < lanes; ++l)
      for (TNodeId o : pass.outputs) saved[l][o] = values[l][o];
  }
  r.saved = saved[0];
  r.ok = !part.passes.empty();
  if (r.ok) r.output = saved[0].count(t.root) ? saved[0][t.root] : saved[0][part.passes.back().root];
  else r.error = "the partition has no passes";
  return r;
}

}  // namespace passlab::fp
