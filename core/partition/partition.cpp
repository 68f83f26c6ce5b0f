// The partition model of the RDS paper (section 3.1): marks, subregions, passes, cost, order,
// and the texture assignment of saved values.
//
// Ordering: a pass reads the values its restores name, so it must run after the passes that
// compute them. Pass roots in increasing node id are such an order, because node ids are a
// postorder of the DAG (operands first). Texture assignment: a saved value occupies its
// intermediate texture from the pass that writes it to the last pass that reads it. Values whose
// lifetimes overlap interfere; colouring that interference graph (Chaitin's simplify/select,
// which is exact here because lifetimes are intervals) gives the fewest textures.
#include "core/partition/partition.h"

#include <algorithm>
#include <limits>
#include <set>

namespace passlab::partition {

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::Visit: return "visit";
    case EventKind::ValidCheck: return "valid";
    case EventKind::SaveRecompute: return "save-recompute";
    case EventKind::MergeChoice: return "merge";
    case EventKind::Mark: return "mark";
    case EventKind::Unmark: return "unmark";
    case EventKind::SearchTrial: return "search";
    case EventKind::Bound: return "bound";
    case EventKind::Done: return "done";
  }
  return "?";
}

std::vector<NodeId> subregion(const Problem& p, NodeId n, const std::vector<char>& marked) {
  std::vector<NodeId> out;
  std::vector<NodeId> stack{n};
  std::vector<char> seen(p.graph.children.size(), 0);
  seen[n] = 1;
  while (!stack.empty()) {
    NodeId x = stack.back();
    stack.pop_back();
    out.push_back(x);
    for (NodeId c : p.graph.children[x]) {
      if (!p.is_op[c] || marked[c] || seen[c]) continue;
      seen[c] = 1;
      stack.push_back(c);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::vector<NodeId> restores_of(const Problem& p, const std::vector<NodeId>& members, const std::vector<char>& marked) {
  std::set<NodeId> in(members.begin(), members.end()), out;
  for (NodeId m : members)
    for (NodeId c : p.graph.children[m])
      if (p.is_op[c] && marked[c] && !in.count(c)) out.insert(c);
  return {out.begin(), out.end()};
}

}  // namespace

double marking_cost(const Problem& p, Backend& backend, const std::vector<char>& marked_in, const CostModel& model) {
  std::vector<char> marked = marked_in;
  marked[p.graph.root] = 1;
  int passes = 0, fetches = 0, instructions = 0;
  for (NodeId n = 0; n < marked.size(); ++n) {
    if (!marked[n] || !p.is_op[n]) continue;
    Check c = backend.valid(n, subregion(p, n, marked));
    if (!c.ok) return std::numeric_limits<double>::infinity();
    ++passes;
    fetches += c.resources.texture_fetches;
    instructions += c.resources.arithmetic;
  }
  return model.cost(passes, fetches, instructions);
}

Partition make_partition(const Problem& p, Backend& backend, std::vector<char> marked, const CostModel& model) {
  Partition part;
  marked.resize(p.graph.children.size(), 0);
  marked[p.graph.root] = 1;
  // Only operations reachable from the root can head passes.
  std::vector<char> reach(marked.size(), 0);
  for (NodeId n : subregion(p, p.graph.root, std::vector<char>(marked.size(), 0))) reach[n] = 1;
  for (NodeId n = 0; n < marked.size(); ++n)
    if (!reach[n] || !p.is_op[n]) marked[n] = 0;
  part.marked = marked;
  part.valid = true;
  std::map<NodeId, int> computed_in;
  for (NodeId n = 0; n < marked.size(); ++n) {
    if (!marked[n]) continue;
    Pass pass;
    pass.root = n;
    pass.members = subregion(p, n, marked);
    pass.restores = restores_of(p, pass.members, marked);
    Check c = backend.valid(n, pass.members);
    pass.resources = c.resources;
    pass.failure = c.failure;
    part.valid = part.valid && c.ok;
    part.texture_fetches += c.resources.texture_fetches;
    part.restores += c.resources.restores;
    part.instructions += c.resources.arithmetic;
    for (NodeId m : pass.members) ++computed_in[m];
    part.passes.push_back(std::move(pass));
  }
  for (const auto& [n, k] : computed_in) part.recomputed += k - 1;
  part.cost = model.cost(static_cast<int>(part.passes.size()), part.texture_fetches, part.instructions);
  if (!part.valid) part.cost = std::numeric_limits<double>::infinity();

  // Lifetimes of saved values in pass indices, then colouring.
  std::map<NodeId, int> pass_of;
  for (std::size_t i = 0; i < part.passes.size(); ++i) pass_of[part.passes[i].root] = static_cast<int>(i);
  std::map<NodeId, std::pair<int, int>> life;
  for (std::size_t i = 0; i < part.passes.size(); ++i)
    for (NodeId r : part.passes[i].restores) {
      auto& l = life.try_emplace(r, pass_of[r], pass_of[r]).first->second;
      l.second = std::max(l.second, static_cast<int>(i));
    }
  std::vector<NodeId> values;
  for (const auto& [n, _] : life) values.push_back(n);
  auto interferes = [&](NodeId a, NodeId b) {
    auto [a0, a1] = life[a];
    auto [b0, b1] = life[b];
    // Live from the writing pass to the last reading pass, both included.
    return a0 <= b1 && b0 <= a1;  // render-to-texture cannot read and write one texture in a pass
  };
  // Chaitin: simplify by removing the node of least degree, then select colours in reverse.
  std::vector<NodeId> stack, remaining = values;
  while (!remaining.empty()) {
    std::size_t best = 0;
    int best_degree = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < remaining.size(); ++i) {
      int d = 0;
      for (NodeId o : remaining)
        if (o != remaining[i] && interferes(o, remaining[i])) ++d;
      if (d < best_degree) {
        best_degree = d;
        best = i;
      }
    }
    stack.push_back(remaining[best]);
    remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(best));
  }
  while (!stack.empty()) {
    NodeId v = stack.back();
    stack.pop_back();
    std::set<int> used;
    for (const auto& [o, colour] : part.texture)
      if (interferes(o, v)) used.insert(colour);
    int c = 0;
    while (used.count(c)) ++c;
    part.texture[v] = c;
    part.intermediate_textures = std::max(part.intermediate_textures, c + 1);
  }
  return part;
}

}  // namespace passlab::partition
