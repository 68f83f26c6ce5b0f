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
#include <map>
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

std::vector<NodeId> restores_of(const Problem& p, const std::vector<NodeId>& members, const std::vector<char>& marked) {
  std::vector<NodeId> out;
  for (NodeId m : members)
    for (NodeId c : p.graph.children[m])
      if (p.is_op[c] && marked[c] && !std::binary_search(members.begin(), members.end(), c)) out.push_back(c);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<NodeId> subregion_of_outputs(const Problem& p, const std::vector<NodeId>& outputs, const std::vector<char>& marked) {
  if (outputs.size() == 1) return subregion(p, outputs.front(), marked);
  std::vector<NodeId> all;
  for (NodeId o : outputs) {
    std::vector<NodeId> s = subregion(p, o, marked);
    all.insert(all.end(), s.begin(), s.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

Check valid_pass(Backend& backend, const std::vector<NodeId>& outputs, const std::vector<NodeId>& members) {
  return outputs.size() == 1 ? backend.valid(outputs.front(), members) : backend.valid_outputs(outputs, members);
}

namespace {

// The root, and with a pseudo-root (Problem::pseudo_root) the outputs under it, are saved.
void mark_outputs(const Problem& p, std::vector<char>& marked) {
  marked[p.graph.root] = 1;
  if (p.pseudo_root)
    for (NodeId o : p.graph.children[p.graph.root]) marked[o] = 1;
}

bool is_output(const Problem& p, NodeId n) {
  if (n == p.graph.root) return true;
  if (!p.pseudo_root) return false;
  const auto& outs = p.graph.children[p.graph.root];
  return std::find(outs.begin(), outs.end(), n) != outs.end();
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
      if (marked[n] && !is_output(p, n) && !read[n]) {
        marked[n] = 0;
        again = true;
      }
  }
}

}  // namespace

double marking_cost(const Problem& p, Backend& backend, const std::vector<char>& marked_in, const CostModel& model) {
  std::vector<char> marked = marked_in;
  mark_outputs(p, marked);
  drop_unread(p, marked);
  int passes = 0, fetches = 0, instructions = 0;
  double total = 0;  // a per-pass metric's sum
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
    if (!model.linear()) total += model.pass_cost(c.resources.texture_fetches, c.resources.arithmetic, 1);
  }
  return model.linear() ? model.cost(passes, fetches, instructions) : total;
}

Partition make_partition(const Problem& p, Backend& backend, std::vector<char> marked, const CostModel& model) {
  return make_partition(p, backend, std::move(marked), model, {});
}

Partition make_partition(const Problem& p, Backend& backend, std::vector<char> marked, const CostModel& model,
                         const std::vector<std::vector<NodeId>>& groups) {
  Partition part;
  marked.resize(p.graph.children.size(), 0);
  mark_outputs(p, marked);
  // Only operations reachable from the root can head passes.
  std::vector<char> reach(marked.size(), 0);
  for (NodeId n : subregion(p, p.graph.root, std::vector<char>(marked.size(), 0))) reach[n] = 1;
  for (NodeId n = 0; n < marked.size(); ++n)
    if (!reach[n] || !p.is_op[n]) marked[n] = 0;
  drop_unread(p, marked);
  part.marked = marked;
  part.valid = true;
  // The passes' outputs: the groups' marked values, then every other marked value alone.
  std::vector<int> group_of(marked.size(), -1);
  std::vector<std::vector<NodeId>> outputs;
  for (const std::vector<NodeId>& g : groups) {
    std::vector<NodeId> out;
    for (NodeId n : g)
      if (n < marked.size() && marked[n] && group_of[n] < 0) out.push_back(n);
    if (out.empty()) continue;
    std::sort(out.begin(), out.end());
    for (NodeId n : out) group_of[n] = static_cast<int>(outputs.size());
    outputs.push_back(std::move(out));
  }
  for (NodeId n = 0; n < marked.size(); ++n)
    if (marked[n] && group_of[n] < 0) {
      group_of[n] = static_cast<int>(outputs.size());
      outputs.push_back({n});
    }
  std::vector<Pass> passes(outputs.size());
  auto build = [&] {
    for (std::size_t g = 0; g < outputs.size(); ++g) {
      Pass& pass = passes[g];
      pass.outputs = outputs[g];
      pass.root = pass.outputs.back();
      pass.members = subregion_of_outputs(p, pass.outputs, marked);
      pass.restores = restores_of(p, pass.members, marked);
    }
  };
  build();
  // A value a group writes that no other pass reads, and that is not the shader's, is computed
  // inline in its pass and not saved (as pass merging leaves it).
  if (!groups.empty()) {
    std::vector<char> read_elsewhere(marked.size(), 0);
    for (const Pass& pass : passes)
      for (NodeId r : pass.restores) read_elsewhere[r] = 1;
    bool dropped = false;
    for (std::vector<NodeId>& out : outputs) {
      if (out.size() < 2) continue;
      std::vector<NodeId> kept;
      for (NodeId o : out)
        if (read_elsewhere[o] || is_output(p, o)) kept.push_back(o);
      if (kept.empty()) kept.push_back(out.back());
      if (kept.size() == out.size()) continue;
      for (NodeId o : out)
        if (!std::binary_search(kept.begin(), kept.end(), o)) marked[o] = 0;
      out = std::move(kept);
      dropped = true;
    }
    if (dropped) {
      part.marked = marked;
      build();
    }
  }
  // An executable order: a pass after those whose values it restores; among the ready ones, the
  // one whose last output has the lowest id (the output's pass is then last, its root being the
  // highest id). Single-output passes come out in root order, as the RDS paper orders them. With a
  // pseudo-root, the pass writing the colour (its first operand), which no pass reads, goes last.
  const NodeId shown = p.pseudo_root ? p.graph.children[p.graph.root].front() : p.graph.root;
  auto key = [&](std::size_t g) {
    const bool last = std::binary_search(passes[g].outputs.begin(), passes[g].outputs.end(), shown);
    return std::make_pair(static_cast<NodeId>(last), passes[g].root);
  };
  std::vector<int> waiting(passes.size(), 0);
  std::vector<std::vector<int>> readers(passes.size());
  for (std::size_t g = 0; g < passes.size(); ++g) {
    std::set<int> from;
    for (NodeId r : passes[g].restores) from.insert(group_of[r]);
    for (int f : from) {
      readers[static_cast<std::size_t>(f)].push_back(static_cast<int>(g));
      ++waiting[g];
    }
  }
  std::set<std::pair<std::pair<NodeId, NodeId>, int>> ready;
  for (std::size_t g = 0; g < passes.size(); ++g)
    if (!waiting[g]) ready.insert({key(g), static_cast<int>(g)});
  std::vector<int> order;
  while (!ready.empty()) {
    const int g = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(g);
    for (int r : readers[static_cast<std::size_t>(g)])
      if (--waiting[static_cast<std::size_t>(r)] == 0) ready.insert({key(static_cast<std::size_t>(r)), r});
  }
  const bool cycle = order.size() != passes.size();
  if (cycle) {  // not executable: id order, and said so
    order.clear();
    std::vector<std::pair<NodeId, int>> by_root;
    for (std::size_t g = 0; g < passes.size(); ++g) by_root.push_back({passes[g].root, static_cast<int>(g)});
    std::sort(by_root.begin(), by_root.end());
    for (const auto& [root, g] : by_root) order.push_back(g);
  }
  std::map<NodeId, int> computed_in;
  double total = 0;
  for (int g : order) {
    Pass pass = std::move(passes[static_cast<std::size_t>(g)]);
    Check c = valid_pass(backend, pass.outputs, pass.members);
    pass.resources = c.resources;
    pass.failure = c.failure;
    if (c.ok && cycle) pass.failure = "cycle: the passes merged with this one read each other's values";
    part.valid = part.valid && c.ok && !cycle;
    part.texture_fetches += c.resources.texture_fetches;
    part.restores += c.resources.restores;
    part.instructions += c.resources.arithmetic;
    total += model.pass_cost(c.resources.texture_fetches, c.resources.arithmetic, static_cast<int>(pass.outputs.size()));
    for (NodeId m : pass.members) ++computed_in[m];
    part.passes.push_back(std::move(pass));
  }
  for (const auto& [n, k] : computed_in) part.recomputed += k - 1;
  // The colour's pass must be the last (the renderer blends its value): a pass merged with it may
  // write the shader's other outputs, but nothing a later pass reads.
  if (p.pseudo_root && !part.passes.empty()) {
    const std::vector<NodeId>& last = part.passes.back().outputs;
    if (!std::binary_search(last.begin(), last.end(), shown)) {
      part.valid = false;
      for (Pass& pass : part.passes)
        if (std::binary_search(pass.outputs.begin(), pass.outputs.end(), shown) && pass.failure.empty())
          pass.failure = "order: a later pass reads a value this pass writes, so the pass of the colour is not the last";
    }
  }
  part.cost = model.linear() ? model.cost(static_cast<int>(part.passes.size()), part.texture_fetches, part.instructions) : total;
  if (!part.valid) part.cost = std::numeric_limits<double>::infinity();

  // Lifetimes of saved values in pass indices, then colouring.
  std::map<NodeId, int> pass_of;
  for (std::size_t i = 0; i < part.passes.size(); ++i)
    for (NodeId o : part.passes[i].outputs) pass_of[o] = static_cast<int>(i);
  std::map<NodeId, std::pair<int, int>> life;
  for (std::size_t i = 0; i < part.passes.size(); ++i)
    for (NodeId r : part.passes[i].restores) {
      auto& l = life.try_emplace(r, pass_of[r], pass_of[r]).first->second;
      l.second = std::max(l.second, static_cast<int>(i));
    }
  // A shader's outputs besides the colour are kept to the end (the renderer's pictures of them).
  if (p.pseudo_root)
    for (NodeId o : p.graph.children[p.graph.root])
      if (o != shown && pass_of.count(o)) life[o] = {pass_of[o], static_cast<int>(part.passes.size()) - 1};
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
