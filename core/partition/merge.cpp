// SPDX-License-Identifier: GPL-3.0-or-later
// Greedy pass merging (see merge.h).
//
// Decided where the MRDS implementation's quirks leave it open: the pass graph is kept current
// after each merge (paths are searched in it, not in ancestor sets computed once), and a merge
// whose turn comes is re-scored against the passes as they are then, and skipped below 0.
#include "core/partition/merge.h"

#include <algorithm>
#include <cstdint>
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
    shader_output_.assign(marks_.size(), 0);
    shader_output_[p_.graph.root] = 1;
    if (p_.pseudo_root)
      for (NodeId o : p_.graph.children[p_.graph.root]) shader_output_[o] = 1;
    index_graph();
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

  // The pass graph as it stands, for the questions a pair asks (recomputed after each merge):
  // which passes read each saved value, and for each pass the passes that read its values through
  // another pass (a path of at least two edges), as bits. Linear in the restores plus P^2/64 words
  // per pass for P passes.
  void index_graph() {
    readers_.assign(marks_.size(), {});
    const std::size_t n = groups_.size(), words = (n + 63) / 64;
    std::vector<std::vector<int>> succ(n);
    for (std::size_t g = 0; g < n; ++g) {
      if (!groups_[g].alive) continue;
      for (NodeId r : groups_[g].restores) {
        readers_[r].push_back(static_cast<int>(g));
        const int w = producer_[r];
        if (w >= 0 && static_cast<std::size_t>(w) != g &&
            std::find(succ[static_cast<std::size_t>(w)].begin(), succ[static_cast<std::size_t>(w)].end(), static_cast<int>(g)) ==
                succ[static_cast<std::size_t>(w)].end())
          succ[static_cast<std::size_t>(w)].push_back(static_cast<int>(g));
      }
    }
    // desc[g]: every pass g leads to; through[g]: those it leads to through another.
    std::vector<std::vector<std::uint64_t>> desc(n, std::vector<std::uint64_t>(words, 0));
    through_.assign(n, std::vector<std::uint64_t>(words, 0));
    std::vector<char> done(n, 0);
    std::vector<std::pair<int, std::size_t>> stack;
    for (std::size_t s = 0; s < n; ++s) {
      if (done[s] || !groups_[s].alive) continue;
      stack.push_back({static_cast<int>(s), 0});
      while (!stack.empty()) {  // depth first: a pass after the passes it leads to
        auto& [g, next] = stack.back();
        const auto& kids = succ[static_cast<std::size_t>(g)];
        if (next < kids.size()) {
          const int h = kids[next++];
          if (!done[static_cast<std::size_t>(h)]) stack.push_back({h, 0});
          continue;
        }
        auto& d = desc[static_cast<std::size_t>(g)];
        auto& t = through_[static_cast<std::size_t>(g)];
        for (int h : kids) {
          const auto& dh = desc[static_cast<std::size_t>(h)];
          for (std::size_t w = 0; w < words; ++w) {
            d[w] |= dh[w];
            t[w] |= dh[w];
          }
          d[static_cast<std::size_t>(h) / 64] |= std::uint64_t{1} << (static_cast<std::size_t>(h) % 64);
        }
        done[static_cast<std::size_t>(g)] = 1;
        stack.pop_back();
      }
    }
  }
  // Whether pass `to` reads what `from` writes through another pass.
  bool reads_through_another(int from, int to) const {
    return through_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to) / 64] >> (static_cast<std::size_t>(to) % 64) & 1u;
  }
  // Whether a pass other than a and b reads value o.
  bool read_by_another(NodeId o, int a, int b) const {
    for (int g : readers_[o])
      if (g != a && g != b) return true;
    return false;
  }
  int find(int g) {
    while (parent_[static_cast<std::size_t>(g)] != g) g = parent_[static_cast<std::size_t>(g)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(g)])];
    return g;
  }
  // The pass merging a and b, in `m`, when they may merge and it fits.
  bool mergeable(int a, int b, Group& m) {
    if (reads_through_another(a, b) || reads_through_another(b, a)) return false;
    const Group& ga = groups_[static_cast<std::size_t>(a)];
    const Group& gb = groups_[static_cast<std::size_t>(b)];
    // A pass that cannot fit, known without VALID: more members than the operation limit (each
    // member is at least one instruction; so are the fp backend's and the tests'); below, more
    // values than render targets.
    const Limits& l = backend_.limits();
    if (l.operations != kUnlimited) {
      std::size_t common = 0;
      for (auto x = ga.members.begin(), y = gb.members.begin(); x != ga.members.end() && y != gb.members.end();) {
        if (*x < *y) ++x;
        else if (*y < *x) ++y;
        else ++common, ++x, ++y;
      }
      if (ga.members.size() + gb.members.size() - common > static_cast<std::size_t>(l.operations)) return false;
    }
    std::vector<NodeId> all = ga.outputs;
    all.insert(all.end(), gb.outputs.begin(), gb.outputs.end());
    std::sort(all.begin(), all.end());
    // A value only the merged pass reads is not saved any more.
    dropped_.clear();
    for (NodeId o : all) {
      const bool read_outside = shader_output_[o] || read_by_another(o, a, b);
      if (read_outside) m.outputs.push_back(o);
      else dropped_.push_back(o);
    }
    if (m.outputs.empty()) return false;
    // The pass that writes the colour stays the last: it may write a shader's other outputs, but no
    // value a later pass reads.
    if (std::binary_search(m.outputs.begin(), m.outputs.end(), colour_))
      for (NodeId o : m.outputs)
        if (read_by_another(o, a, b)) return false;
    if (l.render_targets != kUnlimited && static_cast<int>(m.outputs.size()) > l.render_targets) return false;
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
    index_graph();
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
  std::vector<char> shader_output_;                  // per node: the root, or a pseudo-root's operand
  std::vector<std::vector<int>> readers_;            // per saved value: the passes restoring it
  std::vector<std::vector<std::uint64_t>> through_;  // per pass: the passes it reaches through another
};

}  // namespace

Merged merge_passes(const Problem& p, Backend& backend, const std::vector<char>& marked, const CostModel& model) {
  return Merger(p, backend, model).run(marked);
}

}  // namespace passlab::partition
