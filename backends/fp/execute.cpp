// SPDX-License-Identifier: GPL-3.0-or-later
// The execution check: a partition run pass by pass, with save and restore, on one fragment.
#include "backends/fp/execute.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace passlab::fp {

ExecutionResult run_passes(const TargetDag& t, const dag::FragmentDag& d, const partition::Partition& part,
                           const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next) {
  ExecutionResult r;
  const VertexValues vertex = vertex_values(d, in, ctx, next);
  std::map<TNodeId, Vec4> saved;  // the intermediate buffers
  for (std::size_t i = 0; i < part.passes.size(); ++i) {
    const partition::Pass& pass = part.passes[i];
    std::vector<Vec4> values(t.size());
    std::vector<char> have(t.size(), 0);
    for (TNodeId m : pass.members) have[m] = 2;  // computed here (ids are in operand order)
    auto operand = [&](const Operand& o) -> Vec4 {
      const TNode& src = t.node(o.node);
      if (!t.is_operation(o.node)) {
        values[o.node] = input_value(src, d, in, vertex);
      } else if (have[o.node] != 1) {
        auto s = saved.find(o.node);
        if (s == saved.end()) throw std::runtime_error(fmt::format("pass {} reads n{}, which no earlier pass saved", i + 1, o.node));
        values[o.node] = s->second;
      }
      return read(o, values);
    };
    try {
      for (TNodeId m : pass.members) {
        const TNode& n = t.node(m);
        if (n.kind == TKind::Texture) {
          values[m] = sample(n, operand(n.src[0]), ctx);
        } else {
          values[m] = execute(n, operand);
        }
        have[m] = 1;
      }
    } catch (const std::runtime_error& e) {
      r.error = e.what();
      return r;
    }
    saved[pass.root] = values[pass.root];
  }
  r.ok = !part.passes.empty();
  if (r.ok) r.output = saved[part.passes.back().root];
  else r.error = "the partition has no passes";
  return r;
}

}  // namespace passlab::fp
