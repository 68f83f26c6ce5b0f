// SPDX-License-Identifier: GPL-3.0-or-later
// Greedy pass merging (see merge.h).
//
// Decided where the MRDS implementation's quirks leave it open: the pass graph is kept current
// after each merge (paths are searched in it, not in ancestor sets computed once), and a merge
// whose turn comes is re-scored against the passes as they are then, and skipped below 0.
#include "core/partition/merge.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace passlab::partition {

namespace {

struct Group {
  std::vector<NodeId> outputs, members, restores;
  Check check;
  double cost = 0;
  bool alive = true;
};

class Merger {
 public:
  Merger(const Problem& p, Backend& backend, const CostModel& model) : p_(p), backend_(backend), model_(model) {}

  Merged run(const std::vector<char>& marked) {
    const Partition single = make_partition(p_, backend_, marked, model_);
    Merged out;
    out.marked = single.marked;
    marks_ = single.marked;
    producer_.assign(marks_.size(), -1);
    colour_ = p_.pseudo_root ? p_.graph.children[p_.graph.root].front() : p_.graph.root;
    for (const Pass& pass : single.passes) {
      Group g;
      g.outputs = pass.outputs;
      g.members = pass.members;
      g.restores = pass.restores;
      g.check.ok = pass.failure.empty();
      g.check.resources = pass.resources;
      g.cost = cost_of(g);
      for (NodeId o : g.outputs) producer_[o] = static_cast<int>(groups_.size());
      parent_.push_back(static_cast<int>(groups_.size()));
      groups_.push_back(std::move(g));
    }
    if (!single.valid || backend_.limits().render_targets == 1) {  // nothing can merge
      for (const Group& g : groups_) out.groups.push_back(g.outputs);
      out.cost = single.valid ? single.cost : std::numeric_limits<double>::infinity();
      return out;
    }
    // Score every pair once.
    std::vector<std::tuple<double, NodeId, NodeId, int, int>> candidates;  // -score, roots, groups
    for (std::size_t a = 0; a < groups_.size(); ++a)
      for (std::size_t b = a + 1; b < groups_.size(); ++b) {
        Group m;
        if (!mergeable(static_cast<int>(a), static_cast<int>(b), m)) continue;
        const double score = groups_[a].cost + groups_[b].cost - m.cost;
        if (score >= 0)
          candidates.emplace_back(-score, groups_[a].outputs.back(), groups_[b].outputs.back(), static_cast<int>(a), static_cast<int>(b));
      }
    std::sort(candidates.begin(), candidates.end());
    for (const auto& [negative, ra, rb, a0, b0] : candidates) {
      // The passes that hold the pair's now (a pass merged earlier holds both, or one of them).
      const int a = find(a0), b = find(b0);
      if (a == b) continue;
      Group m;
      if (!mergeable(a, b, m) || groups_[static_cast<std::size_t>(a)].cost + groups_[static_cast<std::size_t>(b)].cost - m.cost < 0) continue;
      apply(a, b, std::move(m));
      ++out.merges;
    }
    out.marked = marks_;
    out.cost = 0;
    for (const Group& g : groups_)
      if (g.alive) {
        out.groups.push_back(g.outputs);
        out.cost += g.cost;
      }
    return out;
  }

 private:
  double cost_of(const Group& g) const {
    if (!g.check.ok) return std::numeric_limits<double>::infinity();
    const Resources& r = g.check.resources;
    return model_.pass_cost(r.texture_fetches, r.arithmetic, static_cast<int>(g.outputs.size()));
  }

  // Whether group `to` reads what `from` writes through another pass (a path of the pass graph of
  // at least two edges).
  bool reads_through_another(int from, int to) const {
    // The passes that read `from`'s values, but `to`; then everything they lead to.
    std::vector<char> seen(groups_.size(), 0);
    std::vector<int> stack;
    for (std::size_t g = 0; g < groups_.size(); ++g)
      if (groups_[g].alive && static_cast<int>(g) != to && static_cast<int>(g) != from && reads(static_cast<int>(g), from)) {
        seen[g] = 1;
        stack.push_back(static_cast<int>(g));
      }
    while (!stack.empty()) {
      const int g = stack.back();
      stack.pop_back();
      if (g == to) return true;
      for (std::size_t h = 0; h < groups_.size(); ++h)
        if (groups_[h].alive && !seen[h] && reads(static_cast<int>(h), g)) {
          seen[h] = 1;
          stack.push_back(static_cast<int>(h));
        }
    }
    return false;
  }
  int find(int g) {
    while (parent_[static_cast<std::size_t>(g)] != g) g = parent_[static_cast<std::size_t>(g)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(g)])];
    return g;
  }
  bool reads(int reader, int writer) const {
    for (NodeId r : groups_[static_cast<std::size_t>(reader)].restores)
      if (producer_[r] == writer) return true;
    return false;
  }

  // The pass merging a and b, in `m`, when they may merge and it fits.
  bool mergeable(int a, int b, Group& m) {
    if (reads_through_another(a, b) || reads_through_another(b, a)) return false;
    const Group& ga = groups_[static_cast<std::size_t>(a)];
    const Group& gb = groups_[static_cast<std::size_t>(b)];
    std::vector<NodeId> all = ga.outputs;
    all.insert(all.end(), gb.outputs.begin(), gb.outputs.end());
    std::sort(all.begin(), all.end());
    // A value only the merged pass reads is not saved any more.
    dropped_.clear();
    for (NodeId o : all) {
      bool read_outside = o == p_.graph.root || (p_.pseudo_root && std::find(p_.graph.children[p_.graph.root].begin(),
                                                                               p_.graph.children[p_.graph.root].end(), o) !=
                                                                         p_.graph.children[p_.graph.root].end());
      for (std::size_t g = 0; g < groups_.size() && !read_outside; ++g)
        if (groups_[g].alive && static_cast<int>(g) != a && static_cast<int>(g) != b &&
            std::binary_search(groups_[g].restores.begin(), groups_[g].restores.end(), o))
          read_outside = true;
      if (read_outside) m.outputs.push_back(o);
      else dropped_.push_back(o);
    }
    if (m.outputs.empty()) return false;
    // The pass that writes the colour stays the last: it may write a shader's other outputs, but no
    // value a later pass reads.
    if (std::binary_search(m.outputs.begin(), m.outputs.end(), colour_))
      for (NodeId o : m.outputs)
        for (std::size_t g = 0; g < groups_.size(); ++g)
          if (groups_[g].alive && static_cast<int>(g) != a && static_cast<int>(g) != b &&
              std::binary_search(groups_[g].restores.begin(), groups_[g].restores.end(), o))
            return false;
    for (NodeId d : dropped_) marks_[d] = 0;
    m.members = subregion_of_outputs(p_, m.outputs, marks_);
    m.restores = restores_of(p_, m.members, marks_);
    for (NodeId d : dropped_) marks_[d] = 1;
    m.check = valid_pass(backend_, m.outputs, m.members);
    if (!m.check.ok) return false;
    m.cost = cost_of(m);
    return true;
  }

  void apply(int a, int b, Group m) {
    for (NodeId d : dropped_) {
      marks_[d] = 0;
      producer_[d] = -1;
    }
    for (NodeId o : m.outputs) producer_[o] = a;
    groups_[static_cast<std::size_t>(a)] = std::move(m);
    groups_[static_cast<std::size_t>(b)].alive = false;
    parent_[static_cast<std::size_t>(b)] = a;
  }

  const Problem& p_;
  Backend& backend_;
  const CostModel& model_;
  std::vector<Group> groups_;
  std::vector<char> marks_;
  std::vector<int> producer_;     // saved value -> the group writing it
  std::vector<int> parent_;       // a group merged into another: that one (union-find)
  NodeId colour_ = 0;             // the value the last pass writes (the root, or a pseudo-root's first)
  std::vector<NodeId> dropped_;  // mergeable()'s values made inline
};

}  // namespace

Merged merge_passes(const Problem& p, Backend& backend, const std::vector<char>& marked, const CostModel& model) {
  return Merger(p, backend, model).run(marked);
}

}  // namespace passlab::partition
