// The exact optimal search: branch and bound over markings.
//
// A partition is a marking of the operations (the output is always marked). Deciding nodes in
// DAG postorder has one useful property: when a node is decided, all of its descendants are, so
// if it is marked its pass (its subregion) is fully known. Hence:
//  * marking a node fixes one pass exactly: VALID decides it now, and its cost is added;
//  * leaving a node unmarked puts its subregion into some later pass, which must at least
//    satisfy the resources that can only grow when more nodes join (operations, interpolants,
//    dependent levels): if they are already exceeded, no completion is valid;
//  * a lower bound on any completion is the cost so far, plus every operation not yet inside a
//    finished pass counted once, plus one restore for every marked node (each is read by a later
//    pass), plus pass overhead for as many passes as the limits force: operations (L F >= remaining
//    operations + restores of the marked nodes + F - 1), texture units (the same with the texture
//    names still to fetch) and interpolants (each one still read must be in some pass).
// The search starts from an incumbent (RDS's partition when given), explores "unmarked" first,
// and prunes whenever the bound reaches the best cost. When it runs out of nodes to explore, the
// incumbent is proven optimal; when the budget or a cancel stops it, the smallest bound over the
// unexplored subtrees is a cost no partition can beat, and the gap to the incumbent is reported.
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/partition/algorithms.h"
#include "core/partition/memo.h"

namespace passlab::partition {

namespace {

class Search {
 public:
  Search(const Problem& p, Backend& b, const AlgorithmOptions& o, const OptimalOptions& s)
      : p_(p), b_(b), o_(o), s_(s), marked_(p.graph.children.size(), 0) {
    // The operations the output needs, in postorder (node ids are a postorder).
    std::vector<NodeId> all = subregion(p, p.graph.root, marked_);
    for (NodeId n : all)
      if (n != p.graph.root) order_.push_back(n);
    weight_.assign(p.graph.children.size(), 0.0);
    for (NodeId n : all) {
      bool tex = p.labels[n].rfind("TEX", 0) == 0;
      weight_[n] = tex ? o.model.per_texture : o.model.per_instruction;
      remaining_weight_ += weight_[n];
    }
    ops_limit_ = b.limits().operations;
    tex_limit_ = b.limits().textures;
    interp_limit_ = b.limits().interpolants;
    // Interpolants and texture names the uncounted operations still need.
    consumers_.assign(p.graph.children.size(), 0);
    for (NodeId n : all) {
      if (!p.texture.empty() && p.texture[n] >= 0) {
        if (static_cast<std::size_t>(p.texture[n]) >= name_uses_.size()) name_uses_.resize(static_cast<std::size_t>(p.texture[n]) + 1, 0);
        if (name_uses_[static_cast<std::size_t>(p.texture[n])]++ == 0) ++names_left_;
      }
      if (!p.is_interpolant.empty())
        for (NodeId c : p.graph.children[n])
          if (p.is_interpolant[c] && consumers_[c]++ == 0) ++interps_left_;
    }
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                      std::chrono::duration<double>(s.budget_seconds));
  }

  Partition run() {
    auto start = std::chrono::steady_clock::now();
    if (s_.incumbent && s_.incumbent->valid) {
      best_cost_ = s_.incumbent->cost;
      best_marks_ = s_.incumbent->marked;
    }
    remaining_ops_ = static_cast<long>(order_.size()) + 1;
    dfs(0, 0.0, 0, 1.0);
    Partition part;
    if (!best_marks_.empty()) part = make_partition(p_, b_, best_marks_, o_.model);
    part.algorithm = "optimal";
    part.proven_optimal = !stopped_ && !best_marks_.empty();
    part.lower_bound = part.proven_optimal ? part.cost : std::min(unexplored_bound_, best_cost_);
    part.stats.nodes_explored = explored_;
    part.stats.valid_calls = valid_calls_;
    part.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (o_.trace && o_.trace->enabled())
      o_.trace->record({EventKind::Done, {}, part.proven_optimal, {}, part.cost, part.lower_bound,
                        part.proven_optimal ? fmt::format("proven optimal: cost {:g}", part.cost)
                                            : fmt::format("best within budget: cost {:g}, no partition below {:g}", part.cost,
                                                          part.lower_bound)});
    return part;
  }

 private:
  // Cost of the root's pass plus a bound for everything not yet in a finished pass.
  double bound(double cost_so_far, int marked_count) const {
    double rest = remaining_weight_;
    long passes = 1;
    // F future passes hold at most L operations each, and must compute every uncounted operation
    // and restore every marked node and every future pass but the last: L F >= rem + marked + F - 1.
    if (ops_limit_ != kUnlimited && ops_limit_ > 1) {
      long need = remaining_ops_ + marked_count - 1;
      passes = std::max<long>(passes, (need + ops_limit_ - 2) / (ops_limit_ - 1));
    }
    // Texture units: every future pass holds at most T units, and the names still to fetch plus
    // one unit per restore must be spread over them: T F >= names + marked + F - 1.
    if (tex_limit_ != kUnlimited && tex_limit_ > 1) {
      long need = names_left_ + marked_count - 1;
      passes = std::max<long>(passes, (need + tex_limit_ - 2) / (tex_limit_ - 1));
    }
    // Interpolants: each one an uncounted operation reads must be in some future pass.
    if (interp_limit_ != kUnlimited && interp_limit_ > 0)
      passes = std::max<long>(passes, (interps_left_ + interp_limit_ - 1) / interp_limit_);
    return cost_so_far + rest + o_.model.per_pass * static_cast<double>(passes) +
           o_.model.per_texture * static_cast<double>(marked_count + passes - 1);
  }

  bool out_of_time() {
    if (stopped_) return true;
    if ((++tick_ & 63) != 0) return false;
    if ((s_.cancel && s_.cancel->load()) || std::chrono::steady_clock::now() > deadline_) stopped_ = true;
    return stopped_;
  }

  void dfs(std::size_t i, double cost_so_far, int marked_count, double share) {
    ++explored_;
    double lb = bound(cost_so_far, marked_count);
    if (lb >= best_cost_ - 1e-9) {
      done_ += share;
      return;
    }
    if (out_of_time()) {
      unexplored_bound_ = std::min(unexplored_bound_, lb);
      return;
    }
    if (i == order_.size()) {
      // Every other node is decided: the output's pass closes the partition.
      NodeId root = p_.graph.root;
      ++valid_calls_;
      Check c = b_.valid(root, subregion(p_, root, marked_));
      if (c.ok) {
        double cost = cost_so_far + o_.model.per_pass + o_.model.per_texture * c.resources.texture_fetches +
                      o_.model.per_instruction * c.resources.arithmetic;
        if (cost < best_cost_ - 1e-9) {
          best_cost_ = cost;
          best_marks_ = marked_;
          best_marks_[root] = 1;
          if (o_.trace && o_.trace->enabled())
            o_.trace->record({EventKind::Bound, {}, true, {}, cost, 0, fmt::format("a partition costing {:g} found", cost)});
        }
      }
      done_ += share;
      report();
      return;
    }
    NodeId n = order_[i];
    // Branch 1: n unmarked; its subregion joins a later pass.
    {
      ++valid_calls_;
      Check c = b_.valid(n, subregion(p_, n, marked_));
      const Limits& l = b_.limits();
      auto over = [](int used, int limit) { return limit != kUnlimited && used > limit; };
      bool feasible = !over(c.resources.operations, l.operations) && !over(c.resources.interpolants, l.interpolants) &&
                      !over(c.resources.dependent_levels, l.dependent_levels);
      if (feasible) dfs(i + 1, cost_so_far, marked_count, share / 2);
      else done_ += share / 2;
    }
    if (stopped_) {
      // The marked branch was never explored: this node's bound covers it.
      unexplored_bound_ = std::min(unexplored_bound_, lb);
      return;
    }
    // Branch 2: n marked; its pass is known now.
    marked_[n] = 1;
    ++valid_calls_;
    std::vector<NodeId> members = subregion(p_, n, marked_);
    Check c = b_.valid(n, members);
    if (c.ok) {
      double pass = o_.model.per_pass + o_.model.per_texture * c.resources.texture_fetches +
                    o_.model.per_instruction * c.resources.arithmetic;
      // The pass's own operations leave the "not yet counted" pool while it is decided.
      double removed = 0;
      long removed_ops = 0;
      std::vector<NodeId> taken;
      for (NodeId m : members)
        if (!counted_[m]) {
          counted_[m] = 1;
          taken.push_back(m);
          removed += weight_[m];
          ++removed_ops;
          account(m, -1);
        }
      remaining_weight_ -= removed;
      remaining_ops_ -= removed_ops;
      dfs(i + 1, cost_so_far + pass, marked_count + 1, share / 2);
      remaining_weight_ += removed;
      remaining_ops_ += removed_ops;
      for (NodeId m : taken) {
        counted_[m] = 0;
        account(m, +1);
      }
    } else {
      done_ += share / 2;
    }
    marked_[n] = 0;
  }

  // An operation enters (+1) or leaves (-1) the pool of uncounted work: its texture name and the
  // interpolants it reads are needed by one operation more or less.
  void account(NodeId m, int delta) {
    if (!p_.texture.empty() && p_.texture[m] >= 0) {
      int& uses = name_uses_[static_cast<std::size_t>(p_.texture[m])];
      if (delta < 0 && --uses == 0) --names_left_;
      if (delta > 0 && uses++ == 0) ++names_left_;
    }
    if (p_.is_interpolant.empty()) return;
    for (NodeId c : p_.graph.children[m]) {
      if (!p_.is_interpolant[c]) continue;
      if (delta < 0 && --consumers_[c] == 0) --interps_left_;
      if (delta > 0 && consumers_[c]++ == 0) ++interps_left_;
    }
  }

  void report() {
    if (!s_.progress) return;
    if ((++reports_ & 255) != 0) return;
    s_.progress(std::min(1.0, done_), best_cost_, unexplored_bound_);
  }

  const Problem& p_;
  Backend& b_;
  const AlgorithmOptions& o_;
  const OptimalOptions& s_;
  std::vector<char> marked_;
  std::vector<char> counted_ = std::vector<char>(marked_.size(), 0);
  std::vector<NodeId> order_;
  std::vector<double> weight_;
  double remaining_weight_ = 0;
  long remaining_ops_ = 0;
  int ops_limit_ = kUnlimited, tex_limit_ = kUnlimited, interp_limit_ = kUnlimited;
  std::vector<int> consumers_, name_uses_;
  long names_left_ = 0, interps_left_ = 0;
  double best_cost_ = std::numeric_limits<double>::infinity();
  std::vector<char> best_marks_;
  double unexplored_bound_ = std::numeric_limits<double>::infinity();
  double done_ = 0;
  bool stopped_ = false;
  long explored_ = 0, valid_calls_ = 0, tick_ = 0, reports_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace

Partition optimal(const Problem& p, Backend& backend, const AlgorithmOptions& options, const OptimalOptions& search) {
  MemoBackend memo(backend);
  return Search(p, memo, options, search).run();
}

}  // namespace passlab::partition
