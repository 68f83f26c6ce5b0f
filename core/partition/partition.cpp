// SPDX-License-Identifier: GPL-3.0-or-later
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

void subregion(const Problem& p, NodeId n, const std::vector<char>& marked, std::vector<char>& seen,
               std::vector<NodeId>& out) {
  out.clear();
  out.push_back(n);
  seen[n] = 1;
  NodeId lowest = n;
  // seen: 1 a member, 2 a member under inline operands (its operations are members too, marked or
  // not). A member found to be under inline operands after it was expanded is expanded again.
  bool again = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const NodeId m = out[i];
    const bool all = seen[m] == 2 || (!p.inline_operands.empty() && p.inline_operands[m]);
    for (NodeId c : p.graph.children[m]) {
      if (!p.is_op[c]) continue;
      if (all) {
        if (seen[c] == 2) continue;
        again = again || seen[c] == 1;
        if (!seen[c]) lowest = std::min(lowest, c);
        seen[c] = 2;
        out.push_back(c);
      } else if (!marked[c] && !seen[c]) {
        seen[c] = 1;
        lowest = std::min(lowest, c);
        out.push_back(c);
      }
    }
  }
  // Node ids are a postorder, so the members lie in [lowest, n]. When that range is not much
  // wider than the subregion, collecting the marked ids in order beats sorting them.
  if (again || static_cast<std::size_t>(n - lowest) < 8 * out.size()) {
    out.clear();
    for (NodeId x = lowest; x <= n; ++x)
      if (seen[x]) {
        seen[x] = 0;
        out.push_back(x);
      }
    return;
  }
  for (NodeId x : out) seen[x] = 0;
  std::sort(out.begin(), out.end());
}

std::vector<NodeId> subregion(const Problem& p, NodeId n, const std::vector<char>& marked) {
  std::vector<char> seen(p.graph.children.size(), 0);
  std::vector<NodeId> out;
  subregion(p, n, marked, seen, out);
  return out;
}

namespace {

std::vector<NodeId> restores_of(const Problem& p, const std::vector<NodeId>& members, const std::vector<char>& marked) {
  std::vector<NodeId> out;
  for (NodeId m : members)
    for (NodeId c : p.graph.children[m])
      if (p.is_op[c] && marked[c] && !std::binary_search(members.begin(), members.end(), c)) out.push_back(c);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Unmarks the saved values no pass restores, until there are none: with Problem::inline_operands
// every reader of a marked value may compute it itself, and a pass whose value nobody reads is
// work for nothing (and a texture no colouring gives it).
void drop_unread(const Problem& p, std::vector<char>& marked) {
  if (p.inline_operands.empty()) return;
  std::vector<char> seen(marked.size(), 0), read(marked.size(), 0);
  std::vector<NodeId> members;
  for (bool again = true; again;) {
    again = false;
    std::fill(read.begin(), read.end(), 0);
    for (NodeId n = 0; n < marked.size(); ++n) {
      if (!marked[n] || !p.is_op[n]) continue;
      subregion(p, n, marked, seen, members);
      for (NodeId r : restores_of(p, members, marked)) read[r] = 1;
    }
    for (NodeId n = 0; n < marked.size(); ++n)
      if (marked[n] && n != p.graph.root && !read[n]) {
        marked[n] = 0;
        again = true;
      }
  }
}

}  // namespace

double marking_cost(const Problem& p, Backend& backend, const std::vector<char>& marked_in, const CostModel& model) {
  std::vector<char> marked = marked_in;
  marked[p.graph.root] = 1;
  drop_unread(p, marked);
  int passes = 0, fetches = 0, instructions = 0;
  std::vector<char> seen(marked.size(), 0);
  std::vector<NodeId> members;
  for (NodeId n = 0; n < marked.size(); ++n) {
    if (!marked[n] || !p.is_op[n]) continue;
    subregion(p, n, marked, seen, members);
    Check c = backend.valid(n, members);
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
  drop_unread(p, marked);
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
  std::vector<std::pair<int, int>> spans;
  for (const auto& [n, l] : life) {
    values.push_back(n);
    spans.push_back(l);
  }
  const std::size_t v = values.size();
  // Live from the writing pass to the last reading pass, both included: render-to-texture cannot
  // read and write one texture in the same pass.
  std::vector<char> adj(v * v, 0);
  std::vector<int> degree(v, 0);
  for (std::size_t a = 0; a < v; ++a)
    for (std::size_t b = a + 1; b < v; ++b)
      if (spans[a].first <= spans[b].second && spans[b].first <= spans[a].second) {
        adj[a * v + b] = adj[b * v + a] = 1;
        ++degree[a];
        ++degree[b];
      }
  // Chaitin: simplify by removing a node of least degree (lowest index on ties), then select
  // colours in reverse removal order. O(v^2).
  std::vector<std::size_t> stack;
  std::vector<char> removed(v, 0);
  for (std::size_t step = 0; step < v; ++step) {
    std::size_t best = v;
    for (std::size_t i = 0; i < v; ++i)
      if (!removed[i] && (best == v || degree[i] < degree[best])) best = i;
    removed[best] = 1;
    stack.push_back(best);
    for (std::size_t j = 0; j < v; ++j)
      if (adj[best * v + j] && !removed[j]) --degree[j];
  }
  std::vector<int> colour(v, -1);
  while (!stack.empty()) {
    std::size_t i = stack.back();
    stack.pop_back();
    std::vector<char> used(v + 1, 0);
    for (std::size_t j = 0; j < v; ++j)
      if (adj[i * v + j] && colour[j] >= 0) used[static_cast<std::size_t>(colour[j])] = 1;
    int c = 0;
    while (used[static_cast<std::size_t>(c)]) ++c;
    colour[i] = c;
    part.texture[values[i]] = c;
    part.intermediate_textures = std::max(part.intermediate_textures, c + 1);
  }
  return part;
}

}  // namespace passlab::partition
