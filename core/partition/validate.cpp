// SPDX-License-Identifier: GPL-3.0-or-later
// The independent validator: checks a partition against the model, not against the algorithm.
#include "core/partition/validate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

namespace passlab::partition {

std::vector<std::string> validate(const Problem& p, Backend& backend, const Partition& part, const CostModel& model) {
  std::vector<std::string> out;
  if (part.passes.empty()) return {"the partition has no passes"};
  const std::vector<NodeId>& last = part.passes.back().outputs;
  // The last pass writes the colour: the root, or a pseudo-root's first operand.
  const NodeId colour = p.pseudo_root ? p.graph.children[p.graph.root].front() : p.graph.root;
  if (std::find(last.begin(), last.end(), colour) == last.end()) out.push_back("the last pass does not compute the output");
  // Which operations the output needs: everything reachable through operations.
  std::set<NodeId> needed;
  std::vector<NodeId> stack{p.graph.root};
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (!needed.insert(n).second) continue;
    for (NodeId c : p.graph.children[n])
      if (p.is_op[c]) stack.push_back(c);
  }
  std::set<NodeId> computed, roots_so_far;
  std::map<NodeId, int> pass_of;
  int marks = 0;
  for (std::size_t i = 0; i < part.marked.size(); ++i) marks += part.marked[i] ? 1 : 0;
  std::size_t outputs = 0;
  for (const Pass& pass : part.passes) outputs += pass.outputs.size();
  if (static_cast<std::size_t>(marks) != outputs)
    out.push_back(fmt::format("{} nodes are marked but the passes write {} values", marks, outputs));
  int fetches = 0, arithmetic = 0;
  double per_pass = 0;
  for (std::size_t i = 0; i < part.passes.size(); ++i) {
    const Pass& pass = part.passes[i];
    if (pass.outputs.empty() || pass.outputs.back() != pass.root || !std::is_sorted(pass.outputs.begin(), pass.outputs.end()))
      out.push_back(fmt::format("pass {}'s outputs are not in id order ending at its root n{}", i + 1, pass.root));
    for (NodeId o : pass.outputs)
      if (!part.marked.at(o)) out.push_back(fmt::format("pass {} writes unmarked n{}", i + 1, o));
    std::vector<NodeId> expect = subregion_of_outputs(p, pass.outputs, part.marked);
    if (expect != pass.members) out.push_back(fmt::format("pass {} is not the subregion of its outputs", i + 1));
    for (NodeId m : pass.members) computed.insert(m);
    std::set<NodeId> members(pass.members.begin(), pass.members.end());
    for (NodeId m : pass.members)
      for (NodeId c : p.graph.children[m]) {
        if (!p.is_op[c] || members.count(c)) continue;
        if (!part.marked[c]) out.push_back(fmt::format("pass {} reads n{}, which no pass saves", i + 1, c));
        else if (!roots_so_far.count(c))
          out.push_back(fmt::format("pass {} restores n{} before the pass that computes it", i + 1, c));
      }
    Check c = valid_pass(backend, pass.outputs, pass.members);
    if (!c.ok) out.push_back(fmt::format("pass {} (n{}) does not fit: {}", i + 1, pass.root, c.failure));
    if (!(c.resources == pass.resources)) out.push_back(fmt::format("pass {} reports resources VALID does not confirm", i + 1));
    fetches += c.resources.texture_fetches;
    arithmetic += c.resources.arithmetic;
    per_pass += model.pass_cost(c.resources.texture_fetches, c.resources.arithmetic, static_cast<int>(pass.outputs.size()));
    for (NodeId o : pass.outputs) {
      roots_so_far.insert(o);
      pass_of[o] = static_cast<int>(i);
    }
  }
  for (NodeId n : needed)
    if (p.is_op[n] && !computed.count(n)) out.push_back(fmt::format("n{} is needed but computed in no pass", n));
  double cost = model.linear() ? model.cost(static_cast<int>(part.passes.size()), fetches, arithmetic) : per_pass;
  if (std::isfinite(part.cost) && std::fabs(cost - part.cost) > 1e-9 * std::max(1.0, cost))
    out.push_back(fmt::format("the cost is {:g} but the passes cost {:g}", part.cost, cost));
  // Intermediate textures: overlapping lifetimes must not share one.
  std::map<NodeId, std::pair<int, int>> life;
  for (std::size_t i = 0; i < part.passes.size(); ++i)
    for (NodeId r : part.passes[i].restores) {
      auto& l = life.try_emplace(r, pass_of[r], pass_of[r]).first->second;
      l.second = std::max(l.second, static_cast<int>(i));
    }
  // A shader's outputs besides the colour are kept, each in its texture, to the end.
  if (p.pseudo_root)
    for (NodeId o : p.graph.children[p.graph.root])
      if (o != colour && pass_of.count(o)) life[o] = {pass_of[o], static_cast<int>(part.passes.size()) - 1};
  for (const auto& [a, la] : life) {
    auto ta = part.texture.find(a);
    if (ta == part.texture.end()) {
      out.push_back(fmt::format("saved n{} has no intermediate texture", a));
      continue;
    }
    for (const auto& [b, lb] : life) {
      if (b <= a) continue;
      auto tb = part.texture.find(b);
      if (tb != part.texture.end() && ta->second == tb->second && la.first <= lb.second && lb.first <= la.second)
        out.push_back(fmt::format("n{} and n{} share intermediate texture {} while both are live", a, b, ta->second));
    }
  }
  return out;
}

}  // namespace passlab::partition
