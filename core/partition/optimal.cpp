// SPDX-License-Identifier: GPL-3.0-or-later
// The exact optimal search: branch and bound over markings.
//
// A partition is a marking of the operations (the output is always marked). Deciding nodes in
// DAG postorder has one useful property: when a node is decided, all of its descendants are, so
// if it is marked its pass (its subregion) is fully known. Hence:
//  * marking a node fixes one pass exactly: VALID decides it now, and its cost is added;
//  * leaving a node unmarked puts its subregion into some later pass, which must at least
//    satisfy the resources that can only grow when more nodes join (operations, interpolants,
//    dependent levels) and the backend's floor on the registers such a pass holds at once
//    (Check::member_registers): if they are already exceeded, no completion is valid;
//  * a lower bound on any completion is the cost so far, plus every operation not yet inside a
//    finished pass counted once, plus one restore for every marked node no finished pass has
//    read yet (each is read by a later pass; a restore inside a finished pass is already in the
//    cost so far), plus pass overhead for as many passes as the limits force: operations
//    (L F >= remaining operations + those unread restores + F - 1), texture units (the same with
//    the texture names still to fetch) and interpolants (each one still read must be in some
//    pass). The subregions of the unmarked decided nodes join later passes whole, so what a
//    finished pass already did for them is done again: their members are computed, and the
//    marked nodes they read restored, once more (Redo). Under an operation limit, the passes
//    are also at least as many as a tree relaxation of the undecided part needs
//    (tree_passes()), which sees that a pass is a connected piece, not any set of operations.
// Equal futures are searched once (a transposition table). After the first i nodes of the order
// are decided, the passes still to come depend only on the "frontier": which decided nodes with
// an undecided user are marked, and for the unmarked ones their subregions (a subregion fixes
// its restores: the operands it reads but does not contain are exactly the marked ones). So the
// state (i, marks of the live nodes, union of their subregions) determines every completion's
// cost beyond what is already spent. A search of a state returns the least bound it met (or the
// cheapest completion), and that less the cost spent to reach the state bounds its future on any
// path: the table keeps the best such bound per state, and a state met again is closed when the
// cost spent plus its bound reaches the best cost. Wood's DAG in postorder has at most nine live
// nodes at a time, so this collapses most of the tree.
// The search starts from an incumbent (RDS's partition when given), explores "unmarked" first,
// and prunes whenever the bound reaches the best cost. When it runs out of nodes to explore, the
// incumbent is proven optimal; when the budget or a cancel stops it, the least bound it met is a
// cost no partition can beat, and the gap to the incumbent is reported. The exact search has a
// tenth of the budget by default; if it does not finish, annealing looks for a cheaper
// incumbent (anneal.h, at most a tenth), and the rest raises that floor by searches pruned
// below the incumbent (raise_floor()), which prove the harder cases sooner.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>


#include "core/partition/algorithms.h"
#include "core/partition/anneal.h"
#include "core/partition/memo.h"
#include "core/partition/state_table.h"

namespace passlab::partition {

namespace {

// What the future passes must redo beyond the uncounted pool: the live unmarked subregions
// join future passes whole (each live node has an undecided user, so some future pass holds
// it and all of its subregion), so their members that a finished pass already computed are
// computed again, with the texture names and interpolants they read, and the marked nodes
// they read that a finished pass has read already are restored again.
struct Redo {
  double weight = 0;
  long ops = 0, names = 0, interps = 0;
  int restores = 0;
  long passes = 1;          // future passes the operation limit forces on the frontier's tree
  bool infeasible = false;  // no completion fits the operation limit
};

class Search {
 public:
  Search(const Problem& p, MemoBackend& b, const AlgorithmOptions& o, const OptimalOptions& s)
      : p_(p), b_(b), o_(o), s_(s), marked_(p.graph.children.size(), 0) {
    // The operations the output needs, in postorder (node ids are a postorder).
    std::vector<NodeId> all = subregion(p, p.graph.root, marked_);
    for (NodeId n : all)
      if (n != p.graph.root) order_.push_back(n);
    // Live nodes per position: decided before i, read by an operation decided at i or later
    // (the root's position is order_.size()).
    const std::size_t n_nodes = p.graph.children.size();
    std::vector<std::size_t> pos(n_nodes, order_.size()), last_user(n_nodes, 0);
    for (std::size_t i = 0; i < order_.size(); ++i) pos[order_[i]] = i;
    for (NodeId n : all)
      for (NodeId c : p.graph.children[n])
        if (p.is_op[c]) last_user[c] = std::max(last_user[c], pos[n]);
    frames_.resize(order_.size() + 1);
    live_at_.resize(order_.size() + 1);
    for (std::size_t i = 0; i <= order_.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (last_user[order_[j]] >= i) live_at_[i].push_back(order_[j]);
    stamp_.assign(n_nodes, 0);
    ops_limit_ = b.limits().operations;
    tex_limit_ = b.limits().textures;
    interp_limit_ = b.limits().interpolants;
    pos_ = pos;
    last_user_ = last_user;
    // The tree relaxation's edges: every operation hangs under its last user (see tree_passes()).
    tree_kids_.resize(n_nodes);
    for (NodeId n : order_) tree_kids_[last_user[n] == order_.size() ? p.graph.root : order_[last_user[n]]].push_back(n);
    residual_.assign(n_nodes, 0);
    piece_.assign(n_nodes, 0);
    // With nothing decided below it, a node's part and the cuts under it are fixed: the greedy
    // once over the whole tree. tree_passes() redoes only the nodes above live ones.
    full_part_.assign(n_nodes, 0);
    full_cuts_.assign(n_nodes, 0);
    if (ops_limit_ != kUnlimited) {
      std::vector<NodeId> every = order_;
      every.push_back(p.graph.root);
      for (NodeId v : every) {
        long r = 1, cuts = 0;
        cuttable_.clear();
        for (NodeId w : tree_kids_[v]) {
          cuttable_.push_back(full_part_[w]);
          r += full_part_[w];
          cuts += full_cuts_[w];
        }
        cut_heaviest(r, cuts);
        full_part_[v] = r;  // may exceed the limit: then no marking fits, which the search finds
        full_cuts_[v] = cuts;
      }
      // Per position, the undecided nodes some live node hangs under, in postorder, each with
      // what of it does not depend on the state: the parts of its children no live node hangs
      // under (those of the whole tree), and the children that do.
      above_.resize(order_.size() + 1);
      std::vector<std::size_t> mark(n_nodes, order_.size() + 1);
      std::vector<NodeId> above;
      for (std::size_t i = 0; i <= order_.size(); ++i) {
        above.clear();
        for (NodeId x : live_at_[i])
          for (NodeId v = tree_parent(x); mark[v] != i; v = tree_parent(v)) {
            mark[v] = i;
            above.push_back(v);
            if (v == p.graph.root) break;
          }
        std::sort(above.begin(), above.end(), [&](NodeId a, NodeId b) { return pos[a] < pos[b]; });
        for (NodeId v : above) {
          Above a;
          a.node = v;
          a.fixed_begin = static_cast<std::uint32_t>(fixed_parts_.size());
          a.kids_begin = static_cast<std::uint32_t>(above_kids_.size());
          a.live_begin = static_cast<std::uint32_t>(above_live_.size());
          for (NodeId w : tree_kids_[v]) {
            if (pos[w] < i) {
              above_live_.push_back(w);
              continue;
            }
            if (mark[w] == i) {
              above_kids_.push_back(w);
              continue;
            }
            a.fixed_part += full_part_[w];
            a.fixed_cuts += full_cuts_[w];
            fixed_parts_.push_back(full_part_[w]);
          }
          a.fixed_end = static_cast<std::uint32_t>(fixed_parts_.size());
          a.kids_end = static_cast<std::uint32_t>(above_kids_.size());
          a.live_end = static_cast<std::uint32_t>(above_live_.size());
          above_[i].push_back(a);
        }
      }
    }
    // Each node's distinct operations and interpolants among its operands, in flat arrays
    // (frontier() walks them for every search state).
    op_begin_.assign(n_nodes + 1, 0);
    interp_begin_.assign(n_nodes + 1, 0);
    for (std::size_t n = 0; n < n_nodes; ++n) {
      const auto& kids = p.graph.children[n];
      for (std::size_t a = 0; a < kids.size(); ++a) {
        const NodeId c = kids[a];
        if (std::find(kids.begin(), kids.begin() + static_cast<std::ptrdiff_t>(a), c) != kids.begin() + static_cast<std::ptrdiff_t>(a)) continue;
        if (p.is_op[c]) op_kids_.push_back(c);
        else if (!p.is_interpolant.empty() && p.is_interpolant[c]) interp_kids_.push_back(c);
      }
      op_begin_[n + 1] = static_cast<std::uint32_t>(op_kids_.size());
      interp_begin_[n + 1] = static_cast<std::uint32_t>(interp_kids_.size());
    }
    owner_.assign(n_nodes, 0);
    parents_.resize(n_nodes);
    for (NodeId n : all)
      for (NodeId c : p.graph.children[n])
        if (p.is_op[c] && (parents_[c].empty() || parents_[c].back() != n)) parents_[c].push_back(n);
    weight_.assign(p.graph.children.size(), 0.0);
    for (NodeId n : all) {
      bool tex = p.labels[n].rfind("TEX", 0) == 0;
      weight_[n] = tex ? o.model.per_texture : o.model.per_instruction;
      remaining_weight_ += weight_[n];
    }
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
    name_stamp_.assign(name_uses_.size(), 0);
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                      std::chrono::duration<double>(s.budget_seconds));
    find_critical();
  }

  Partition run() {
    auto start = std::chrono::steady_clock::now();
    if (s_.incumbent && s_.incumbent->valid) {
      best_cost_ = s_.incumbent->cost;
      best_marks_ = s_.incumbent->marked;
    }
    polish();
    remaining_ops_ = static_cast<long>(order_.size()) + 1;
    // A dive for a cheaper incumbent first, with a twentieth of the budget: the same search, but
    // with a bound that counts a restore for every marked node, read or not. That bound can
    // exceed the truth, so it cuts deep subtrees early and reaches other parts of the space
    // sooner; it proves nothing, and the exact search below starts afresh. The dive does not use
    // the transposition table (on Wood/PC4 it found the optimum twice as fast without it).
    auto at = [&](double share) {
      return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(s_.budget_seconds * share));
    };
    const auto full_deadline = deadline_;
    floor_ = bound(0.0, 0);
    deadline_ = at(kDiveShare);
    check_clock_now();
    dive_ = true;
    dfs(0, 0.0, 0, 1.0);
    dive_ = false;
    stopped_ = s_.cancel && s_.cancel->load();
    // The exact search, pruning at the incumbent, until exact_share of the budget (a tenth by
    // default): it proves what it can prove quickly. Then the floors (raise_floor()), which
    // prove the rest sooner: Wood/PC5 took 15.7 s with nine tenths for the exact search, 4.8 s
    // this way, and Wood/PC6's bound went from 884.5 to 908.8 in 60 s.
    deadline_ = at(std::clamp(s_.exact_share, 0.0, 1.0));
    check_clock_now();
    table_.clear();
    done_ = 0;
    const double reached = dfs(0, 0.0, 0, 1.0);
    bool proven = !stopped_ && !best_marks_.empty();
    if (proven) floor_ = best_cost_;
    else floor_ = std::max(floor_, std::min(reached, best_cost_));
    // Every subtree the exact search left had a bound at least the best cost found since.
    if (!best_marks_.empty() && floor_ >= best_cost_ - 1e-9) proven = true;
    const bool cancelled = s_.cancel && s_.cancel->load();
    if (!proven && !cancelled && !best_marks_.empty()) {
      // Not proven quickly: a hard case, worth a better incumbent before the floors (annealing,
      // at most anneal_share of the budget).
      const double cost_before = best_cost_;
      anneal(std::min(full_deadline, std::chrono::steady_clock::now() +
                                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(s_.budget_seconds * s_.anneal_share))));
      proven = floor_ >= best_cost_ - 1e-9;
      if (best_cost_ < cost_before - 1e-9) report(true);
      if (!proven && !(s_.cancel && s_.cancel->load())) proven = raise_floor(full_deadline);
    }
    Partition part;
    if (!best_marks_.empty()) {
      part = make_partition(p_, b_, best_marks_, o_.model);
    } else {
      // Nothing fits: every operation in a pass of its own says which one cannot run at all
      // (the target's minimum of the RDS paper does not hold for it), as RDSh's passes do.
      std::vector<char> alone(p_.is_op.begin(), p_.is_op.end());
      part = make_partition(p_, b_, std::move(alone), o_.model);
      proven = false;
    }
    part.algorithm = "optimal";
    part.proven_optimal = proven;
    part.lower_bound = part.proven_optimal ? part.cost : std::min(floor_, best_cost_);
    // Floors are sums of steps: 690.1600000000221 is reported as 690.16 (the search compares
    // costs within 1e-9 anyway).
    const double tidy = std::round(part.lower_bound * 1e6) / 1e6;
    if (std::abs(tidy - part.lower_bound) < 1e-9) part.lower_bound = tidy;
    part.stats.nodes_explored = explored_;
    part.stats.states_merged = transpositions_;
    part.stats.floors_proven = floors_proven_;
    part.stats.valid_calls = valid_calls_;
    part.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (o_.trace && o_.trace->enabled()) {
      TraceEvent e;
      e.kind = EventKind::Done;
      e.ok = part.proven_optimal;
      e.cost_save = part.cost;
      e.cost_recompute = part.lower_bound;
      e.why = part.proven_optimal ? Why::Proven : Why::BestWithinBudget;
      o_.trace->record(e);
    }
    return part;
  }

 private:


  // Cost of the root's pass plus a bound for everything not yet in a finished pass.
  double bound(double cost_so_far, int unread_restores, const Redo& redo = {}, int forced = 0) const {
    if (redo.infeasible || forced < 0) return std::numeric_limits<double>::infinity();
    const int unread = dive_ ? marked_total_ : unread_restores + redo.restores;
    double rest = remaining_weight_ + redo.weight;
    const long ops = remaining_ops_ + redo.ops, names = names_left_ + redo.names, interps = interps_left_ + redo.interps;
    // Each mark still forced (forced_marks()) is a future pass besides the output's.
    long passes = std::max<long>(redo.passes, 1 + forced);
    // F future passes hold at most L operations each, and must compute every uncounted operation
    // and restore every marked node and every future pass but the last: L F >= rem + marked + F - 1.
    if (ops_limit_ != kUnlimited && ops_limit_ > 1) {
      long need = ops + unread - 1;
      passes = std::max<long>(passes, (need + ops_limit_ - 2) / (ops_limit_ - 1));
    }
    // Texture units: every future pass holds at most T units, and the names still to fetch plus
    // one unit per restore must be spread over them: T F >= names + marked + F - 1.
    if (tex_limit_ != kUnlimited && tex_limit_ > 1) {
      long need = names + unread - 1;
      passes = std::max<long>(passes, (need + tex_limit_ - 2) / (tex_limit_ - 1));
    }
    // Interpolants: each one an uncounted operation reads must be in some future pass.
    if (interp_limit_ != kUnlimited && interp_limit_ > 0)
      passes = std::max<long>(passes, (interps + interp_limit_ - 1) / interp_limit_);
    return cost_so_far + rest + o_.model.per_pass * static_cast<double>(passes) +
           o_.model.per_texture * static_cast<double>(unread + passes - 1);
  }

  // When the exact search runs out of time, the bound it proves is that of the subtrees it never
  // opened, often no better than the root's. The rest of the budget proves higher floors: the same
  // search, pruning at a cap X below the incumbent, explores a small part of the tree, and when it
  // finishes, no partition costs less than X (or than the least bound it met, when higher). Each
  // finished search raises the floor by at least a twentieth of the first gap. The transposition
  // table stays from one cap to the next: what a search proved about a state's future holds under
  // any cap, so each cap mostly opens the states the last one pruned. Still, each step costs
  // about twice the one before (on Wood/PC6 from 0.05 s at 850 to 12 s at 914), so the steps
  // before the last are overhead for a proof: it explores 50 million nodes by twentieths, 38
  // million in one step to the incumbent. Small steps report rising floors where no proof is
  // within reach, so the step stays a twentieth unless the last caps' times, extrapolated
  // to the incumbent, say that one search to it fits in the time left: then the cap is the
  // incumbent (when the last cap took over a hundredth of the budget: shorter times say too
  // little), and that search may use all but the time of about one more step. If it does not
  // finish by then, the steps go on (without further jumps) from what the table learned. One
  // that finds a partition cheaper than its cap has a new incumbent, pruned at from then on; if
  // it finishes, that partition is proven optimal. A search the clock stops still proves the
  // least bound it met. Returns whether the incumbent was proven.
  bool raise_floor(std::chrono::steady_clock::time_point end) {
    const double step = (best_cost_ - floor_) / 20;
    deadline_ = end;
    check_clock_now();
    raising_ = true;
    exact_done_ = done_;
    first_floor_ = floor_;
    bool proven = false, jumped = false;
    double last = 0, before = 0, earlier = 0;  // seconds the last three caps' searches took
    while (!proven && step > 0) {
      cap_ = std::min(floor_ + step, best_cost_);
      deadline_ = end;
      // Each step costs about g times the last (g over the last three caps, at least 1.5; on
      // Wood/PC6 1.8 to 1.9): from the last cap's time, the one to the incumbent takes
      // last * g^(steps to it).
      const double g = earlier > 0 ? std::max(1.5, std::sqrt(last / earlier)) : 2.0;
      const double left = std::chrono::duration<double>(end - std::chrono::steady_clock::now()).count();
      const bool jump = !jumped && earlier > 0 && last >= s_.budget_seconds / 100 && cap_ < best_cost_ &&
                        last * std::pow(g, (best_cost_ - floor_) / step) <= left;
      if (jump) {
        jumped = true;
        cap_ = best_cost_;
        deadline_ = end - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(std::min(left / 2, 2 * last * g)));
      }
      check_clock_now();
      stopped_ = false;
      done_ = 0;
      const auto started = std::chrono::steady_clock::now();
      const double reached = dfs(0, 0.0, 0, 1.0);
      if (stopped_) {
        floor_ = std::max(floor_, std::min(reached, best_cost_));
        if (jump && !(s_.cancel && s_.cancel->load()) && std::chrono::steady_clock::now() < end) continue;
        break;
      }
      earlier = before;
      before = last;
      last = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++floors_proven_;
      proven = best_cost_ <= cap_ + 1e-9;
      floor_ = std::min(std::max(cap_, reached), best_cost_);
      proven = proven || floor_ >= best_cost_ - 1e-9;
      report(true);  // a cap's search finds few partitions: say each new floor at once
    }
    cap_ = std::numeric_limits<double>::infinity();
    raising_ = false;
    return proven;
  }

  // The next out_of_time() reads the clock (it does every 64 calls): a new deadline counts at once.
  void check_clock_now() { tick_ |= 63; }

  bool out_of_time() {
    if (stopped_) return true;
    if ((++tick_ & 63) != 0) return false;
    if ((s_.cancel && s_.cancel->load()) || std::chrono::steady_clock::now() > deadline_) stopped_ = true;
    return stopped_;
  }

  // Searches the completions of the current path from position i; returns a lower bound on
  // their costs (the cheapest one when the subtree is searched to the end without pruning, and
  // +inf when none fits). A state's return less what was spent to reach it bounds its future
  // whatever the path, so the transposition table keeps the best such bound per state.
  double dfs(std::size_t i, double cost_so_far, int unread, double share) {
    ++explored_;
    const double limit = std::min(best_cost_, cap_) - 1e-9;
    double lb = bound(cost_so_far, unread);
    if (lb >= limit) {
      done_ += share;
      return lb;
    }
    // The same bound with what the live subregions must redo (this walks the frontier, which
    // the transposition key below reads too).
    const Redo redo = frontier(i);
    lb = bound(cost_so_far, unread, redo);
    if (lb >= limit) {
      done_ += share;
      return lb;
    }
    if (out_of_time()) return lb;
    std::uint32_t slot = StateTable::kFull;
    std::uint64_t generation = 0;
    if (!dive_) {
      bool found = false;
      slot = state_slot(lb - cost_so_far, &found);
      generation = table_generation_;
      if (found) {
        // Seen before: what its search proved about its future may close it now.
        lb = std::max(lb, cost_so_far + table_.value(slot));
        if (lb >= limit) {
          ++transpositions_;
          done_ += share;
          return lb;
        }
      }
    }
    // The marks the register limit still forces: each costs a pass and a restore, so they are
    // counted (recomputing stale subregions) only when enough of them could close the state.
    const double per_mark = o_.model.per_pass + o_.model.per_texture;
    if (!critical_.empty() && per_mark > 0 && !dive_) {
      const double need = std::ceil((limit - lb) / per_mark - 1e-9);
      if (need <= static_cast<double>(critical_.size() - first_undecided_critical(i))) {
        const int forced = forced_marks(i);
        if (forced != 0) {
          lb = std::max(lb, bound(cost_so_far, unread, redo, forced));
          if (lb >= limit) {
            if (slot != StateTable::kFull && generation == table_generation_) table_.raise(slot, lb - cost_so_far);
            done_ += share;
            return lb;
          }
        }
      }
    }
    const double result = std::max(lb, expand(i, cost_so_far, unread, share, lb));
    if (slot != StateTable::kFull && generation == table_generation_) table_.raise(slot, result - cost_so_far);
    return result;
  }

  // dfs() past its bounds: decides order_[i] both ways (or closes the partition at the root).
  double expand(std::size_t i, double cost_so_far, int unread, double share, double lb) {
    constexpr double kNone = std::numeric_limits<double>::infinity();
    if (i == order_.size()) {
      // Every other node is decided: the output's pass closes the partition.
      NodeId root = p_.graph.root;
      ++valid_calls_;
      subregion(p_, root, marked_, seen_, region_);
      const Check& c = b_.answer(root, region_);
      if (c.ok) {
        double cost = cost_so_far + o_.model.per_pass + o_.model.per_texture * c.resources.texture_fetches +
                      o_.model.per_instruction * c.resources.arithmetic;
        if (cost < best_cost_ - 1e-9) {
          best_cost_ = cost;
          best_marks_ = marked_;
          best_marks_[root] = 1;
          trace_found();
        }
      }
      done_ += share;
      report();
      return c.ok ? cost_so_far + o_.model.per_pass + o_.model.per_texture * c.resources.texture_fetches +
                        o_.model.per_instruction * c.resources.arithmetic
                  : kNone;
    }
    NodeId n = order_[i];
    double unmarked = kNone, marked = kNone;
    // n's subregion is the same whether n is marked or not: its pass if marked, what joins a
    // later pass if not. Asked once; the buffers are this position's (no allocation per node).
    Frame& f = frames_[i];
    std::vector<NodeId>& members = f.members;
    ++valid_calls_;
    subregion(p_, n, marked_, seen_, members);
    const Check& answer = b_.answer(n, members);
    const Verdict c{answer.ok, answer.resources, answer.member_registers};  // valid until the next question
    // Branch 1: n unmarked; its subregion joins a later pass.
    {
      const Limits& l = b_.limits();
      Resources joined = c.resources;  // at least what the later pass holding the subregion uses
      if (l.operations != kUnlimited) joined.operations += slots_beside(n, members);
      if (l.interpolants != kUnlimited) joined.interpolants += interpolants_beside(n, members);
      if (!breaks_as_member(joined, c.member_registers)) unmarked = dfs(i + 1, cost_so_far, unread, share / 2);
      else done_ += share / 2;
    }
    if (stopped_) return std::min(unmarked, lb);  // the marked branch was never explored: lb covers it
    // Branch 2: n marked; its pass is known now.
    marked_[n] = 1;
    ++marked_total_;
    if (c.ok) {
      double pass = o_.model.per_pass + o_.model.per_texture * c.resources.texture_fetches +
                    o_.model.per_instruction * c.resources.arithmetic;
      // The pass's own operations leave the "not yet counted" pool while it is decided.
      double removed = 0;
      long removed_ops = 0;
      std::vector<NodeId>& taken = f.taken;
      taken.clear();
      for (NodeId m : members)
        if (!counted_[m]) {
          counted_[m] = 1;
          taken.push_back(m);
          removed += weight_[m];
          ++removed_ops;
          account(m, -1);
        }
      // The marked operands this pass restores are read now; n waits for a later reader.
      std::vector<NodeId>& read = f.read;
      read.clear();
      for (NodeId m : members)
        for (NodeId k : p_.graph.children[m])
          if (k != n && p_.is_op[k] && marked_[k] && !reads_[k]) {
            reads_[k] = 1;
            read.push_back(k);
          }
      remaining_weight_ -= removed;
      remaining_ops_ -= removed_ops;
      const std::size_t saves = critical_saves_.size();
      for (std::size_t k = 0; k < critical_.size(); ++k)
        if (critical_pos_[k] > i && has(critical_bits(k), n)) {
          std::uint64_t* bits = critical_bits(k);
          critical_saves_.push_back({k, critical_fails_[k], critical_dirty_[k]});
          critical_saved_bits_.insert(critical_saved_bits_.end(), bits, bits + words_);
          critical_dirty_[k] = 1;
        }
      marked = dfs(i + 1, cost_so_far + pass, unread - static_cast<int>(read.size()) + 1, share / 2);
      while (critical_saves_.size() > saves) {
        const CriticalSave& save = critical_saves_.back();
        const auto bits = critical_saved_bits_.end() - static_cast<std::ptrdiff_t>(words_);
        std::copy(bits, critical_saved_bits_.end(), critical_bits(save.k));
        critical_saved_bits_.erase(bits, critical_saved_bits_.end());
        critical_fails_[save.k] = save.fails;
        critical_dirty_[save.k] = save.dirty;
        critical_saves_.pop_back();
      }
      for (NodeId k : read) reads_[k] = 0;
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
    --marked_total_;
    return std::min(unmarked, marked);
  }

  // Improves the incumbent before the search by local moves: flip the mark of one node, or of a
  // node and one of its operands or users together (moving a pass boundary by one node),
  // keeping every change that lowers the cost, until none does. A cheaper incumbent prunes
  // more; the search stays exact whatever the incumbent is.
  void polish() {
    if (best_marks_.empty()) return;
    std::vector<char> marks = best_marks_;
    auto attempt = [&](NodeId a, NodeId b) {
      marks[a] ^= 1;
      if (b != a) marks[b] ^= 1;
      double c = marking_cost(p_, b_, marks, o_.model);
      if (c < best_cost_ - 1e-9) {
        best_cost_ = c;
        return true;
      }
      marks[a] ^= 1;
      if (b != a) marks[b] ^= 1;
      return false;
    };
    bool improved = true;
    while (improved && !out_of_time()) {
      improved = false;
      for (NodeId n : order_) {
        improved = attempt(n, n) || improved;
        for (NodeId k : p_.graph.children[n])
          if (p_.is_op[k]) improved = attempt(n, k) || improved;
        if (out_of_time()) break;
      }
    }
    best_marks_ = marks;
    best_marks_[p_.graph.root] = 1;
  }

  // A better incumbent by annealing (see anneal.h), until `end`.
  void anneal(std::chrono::steady_clock::time_point end) {
    if (best_marks_.empty()) return;
    AnnealOptions a;
    a.end = end;
    a.cancel = s_.cancel;
    const double before = best_cost_;
    best_cost_ = partition::anneal(p_, b_, o_.model, best_marks_, best_cost_, a);
    if (best_cost_ < before - 1e-9) trace_found();
  }

  // The trace hears of each cheaper partition found (the best cost now).
  void trace_found() {
    if (!o_.trace || !o_.trace->enabled()) return;
    TraceEvent e;
    e.kind = EventKind::Bound;
    e.ok = true;
    e.cost_save = best_cost_;
    e.why = Why::Found;
    o_.trace->record(e);
  }

  // Operation slots the pass that takes n's subregion `region` needs beyond it: some user p of
  // n joins that pass (n is not marked), and so does each other operand of p, computed or
  // restored, unless the subregion already holds or restores it. The fewest over n's users.
  int slots_beside(NodeId n, const std::vector<NodeId>& region) const {
    int fewest = std::numeric_limits<int>::max();
    for (NodeId user : parents_[n]) {
      int extra = 1;
      for (std::size_t a = 0; a < p_.graph.children[user].size(); ++a) {
        NodeId k = p_.graph.children[user][a];
        if (!p_.is_op[k] || std::binary_search(region.begin(), region.end(), k)) continue;
        bool repeated = false;
        for (std::size_t b = 0; b < a; ++b) repeated = repeated || p_.graph.children[user][b] == k;
        if (repeated || (marked_[k] && reads(region, k))) continue;
        ++extra;
      }
      fewest = std::min(fewest, extra);
    }
    return fewest == std::numeric_limits<int>::max() ? 0 : fewest;
  }
  // Interpolants the pass that takes n's subregion needs beyond it: those some user of n reads
  // directly and the subregion does not. The fewest over n's users.
  int interpolants_beside(NodeId n, const std::vector<NodeId>& region) const {
    if (p_.is_interpolant.empty()) return 0;
    int fewest = std::numeric_limits<int>::max();
    for (NodeId user : parents_[n]) {
      int extra = 0;
      const auto& kids = p_.graph.children[user];
      for (std::size_t a = 0; a < kids.size(); ++a) {
        NodeId k = kids[a];
        if (!p_.is_interpolant[k] || std::find(kids.begin(), kids.begin() + static_cast<long>(a), k) != kids.begin() + static_cast<long>(a))
          continue;
        if (!reads(region, k)) ++extra;
      }
      fewest = std::min(fewest, extra);
    }
    return fewest == std::numeric_limits<int>::max() ? 0 : fewest;
  }
  bool reads(const std::vector<NodeId>& region, NodeId k) const {
    for (NodeId m : region)
      for (NodeId c : p_.graph.children[m])
        if (c == k) return true;
    return false;
  }

  // Walks the frontier at position i: the union of the unmarked live nodes' subregions (work_)
  // and its boundary, the marked operations its members read (boundary_, sorted), and what the
  // future passes must redo for them (see Redo).
  Redo frontier(std::size_t i) {
    ++epoch_;
    work_.clear();
    for (NodeId x : live_at_[i])
      if (!marked_[x] && stamp_[x] != epoch_) {
        stamp_[x] = epoch_;
        work_.push_back(x);
        owner_[x] = x;
        piece_[x] = 0;
      }
    boundary_.clear();
    Redo redo;
    for (std::size_t k = 0; k < work_.size(); ++k) {
      const NodeId v = work_[k];
      ++piece_[owner_[v]];
      const bool again = counted_[v];
      if (again) {
        redo.weight += weight_[v];
        ++redo.ops;
        if (!p_.texture.empty() && p_.texture[v] >= 0) {
          const auto name = static_cast<std::size_t>(p_.texture[v]);
          if (name_uses_[name] == 0 && name_stamp_[name] != epoch_) {
            name_stamp_[name] = epoch_;
            ++redo.names;
          }
        }
      }
      if (again)
        for (std::uint32_t a = interp_begin_[v]; a < interp_begin_[v + 1]; ++a) {
          // An interpolant only a finished pass reads is read again (leaves are never in work_).
          const NodeId c = interp_kids_[a];
          if (consumers_[c] == 0 && stamp_[c] != epoch_) {
            stamp_[c] = epoch_;
            ++redo.interps;
          }
        }
      for (std::uint32_t a = op_begin_[v]; a < op_begin_[v + 1]; ++a) {
        const NodeId c = op_kids_[a];
        if (stamp_[c] == epoch_) continue;
        stamp_[c] = epoch_;
        if (marked_[c]) {
          boundary_.push_back(c);
          if (reads_[c]) ++redo.restores;
          if (last_user_[c] < i) ++piece_[owner_[v]];  // a live one is a leaf of its own
        } else {
          owner_[c] = owner_[v];
          work_.push_back(c);
        }
      }
    }
    std::sort(boundary_.begin(), boundary_.end());
    // A marked live node has a user in a later pass, which restores it again.
    for (NodeId x : live_at_[i])
      if (marked_[x] && reads_[x] && stamp_[x] != epoch_) {
        stamp_[x] = epoch_;
        ++redo.restores;
      }
    // The state's key is known now: its index slot is asked for before the tree relaxation
    // runs, which hides that cache miss (on Wood/PC6 a tenth of the search's time).
    if (!dive_) key_state(i);
    if (ops_limit_ != kUnlimited) tree_passes(i, redo);
    return redo;
  }

  // The passes the operation limit forces, by a tree relaxation of what is undecided (Kundu &
  // Misra's greedy, exact on trees). Every undecided operation and every live node hangs under
  // its last user, which is undecided: a pass that holds that user holds the node too, whole (an
  // unmarked node with its subregion, undecided ones with what hangs under them unless marked),
  // or restores it (a marked one). So a completion's marking cuts this tree into parts each no
  // larger, in operations and restores, than the pass of its root, and it has at least as many
  // passes as the fewest parts within the limit. A live unmarked node weighs the part of the
  // subregions' union and of its non-live boundary (restores) it reached first in frontier()
  // (disjoint parts: what two of them share is counted once); a live marked one weighs its
  // restore. Greedy, bottom up: a node's part is itself plus its children's parts; while it is
  // over the limit, the heaviest undecided child is cut (it becomes a restore).
  void tree_passes(std::size_t i, Redo& redo) {
    const long limit = ops_limit_;
    if (live_at_[i].empty()) {  // nothing decided hangs in the tree: the whole tree's answer
      redo.passes = std::max(redo.passes, full_cuts_[p_.graph.root] + 1);
      redo.infeasible = full_part_[p_.graph.root] > limit;
      return;
    }
    long cuts = 0;
    // Only the nodes above live ones (above_[i], operands first) depend on the state; the
    // others' parts are those of the whole tree.
    for (const Above& a : above_[i]) {
      long r = 1 + a.fixed_part;
      cuts += a.fixed_cuts;
      for (std::uint32_t k = a.live_begin; k < a.live_end; ++k) {
        const NodeId w = above_live_[k];
        r += marked_[w] ? 1 : piece_[w];  // live: a leaf
      }
      cuttable_.clear();
      for (std::uint32_t k = a.kids_begin; k < a.kids_end; ++k) {
        const NodeId w = above_kids_[k];
        cuttable_.push_back(residual_[w]);  // above a live node too: its part is known by now
        r += residual_[w];
      }
      if (r > limit) {
        cuttable_.insert(cuttable_.end(), fixed_parts_.begin() + a.fixed_begin, fixed_parts_.begin() + a.fixed_end);
        cut_heaviest(r, cuts);
        if (r > limit) {
          redo.infeasible = true;
          return;
        }
      }
      residual_[a.node] = r;
    }
    redo.passes = std::max(redo.passes, cuts + 1);
  }

  // The greedy's step at one node: while its part r is over the operation limit, the heaviest
  // of its cuttable children's parts (cuttable_) is cut and becomes one restore.
  void cut_heaviest(long& r, long& cuts) {
    if (r <= ops_limit_) return;
    std::sort(cuttable_.begin(), cuttable_.end(), std::greater<long>());
    for (std::size_t a = 0; a < cuttable_.size() && r > ops_limit_; ++a) {
      r -= cuttable_[a] - 1;
      ++cuts;
    }
  }

  NodeId tree_parent(NodeId n) const {
    return last_user_[n] == order_.size() ? p_.graph.root : order_[last_user_[n]];
  }

  // The transposition table's slot for state (i, frontier): found, or added with `future` (a
  // bound on its completions' cost beyond what was spent to reach it). Past the capacity new
  // states are not stored (kFull: the search stays exact, it only repeats work). Reads the key
  // frontier(i) made.
  std::uint32_t state_slot(double future, bool* found) {
    std::uint32_t slot = table_.find_or_add(key_, key_hash_, future, found);
    if (slot == StateTable::kFull) {
      // Full: keep the states nearest the root, at most half of them (what the search proved
      // about them spares the most work when it comes back, as every cap of raise_floor()
      // does). The slots the callers hold are stale from now on (see dfs()).
      std::vector<std::size_t> at(order_.size() + 2, 0);
      table_.visit([&](std::span<const std::uint16_t> k, double) { ++at[key_position(k)]; });
      std::size_t positions = 0, kept = 0;
      while (positions < at.size() && kept + at[positions] <= table_.size() / 2) kept += at[positions++];
      table_.retain([&](std::span<const std::uint16_t> k, double) { return key_position(k) < positions; });
      ++table_generation_;
      slot = table_.find_or_add(key_, key_hash_, future, found);
    }
    return slot;
  }
  // The key of state (i, frontier) from the frontier frontier(i) walked, its hash, and a
  // prefetch of its index slot.
  void key_state(std::size_t i) {
    key_.clear();
    push_unit(static_cast<std::uint32_t>(i));
    // The live nodes are fixed by i: their marks are bits, as many units as i implies.
    const std::vector<NodeId>& live = live_at_[i];
    for (std::size_t a = 0; a < live.size(); a += 16) {
      std::uint16_t bits = 0;
      for (std::size_t b = a; b < std::min(live.size(), a + 16); ++b)
        if (marked_[live[b]]) bits = static_cast<std::uint16_t>(bits | 1u << (b - a));
      key_.push_back(bits);
    }
    // The union of the unmarked live nodes' subregions is keyed by its boundary: the marked
    // operations its members read. Given the live nodes, the union is exactly what they reach
    // without crossing the boundary, and the boundary is a function of the union, so equal keys
    // are equal states; and the boundary is a few nodes where the union can be hundreds (on
    // Wood/PC2 the table held 3.6 GB of unions after 60 s).
    for (NodeId b : boundary_) push_unit(b);
    key_hash_ = StateTable::hash(key_);
    table_.prefetch(key_hash_);
  }
  // A number in the key: one unit, or two when the graph has more nodes than a unit counts.
  void push_unit(std::uint32_t v) {
    key_.push_back(static_cast<std::uint16_t>(v));
    if (wide_keys_) key_.push_back(static_cast<std::uint16_t>(v >> 16));
  }
  std::size_t key_position(std::span<const std::uint16_t> k) const {
    return wide_keys_ ? (std::size_t{k[0]} | std::size_t{k[1]} << 16) : k[0];
  }

  static constexpr double kDiveShare = 0.05;  // of the budget, for the dive (see run())

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

  void report(bool now = false) {
    if (!s_.progress) return;
    if (!now && (++reports_ & 255) != 0) return;
    // While raising the floor, the bar goes on from where the exact search stopped as the gap
    // between the floor and the best cost closes.
    double fraction = done_;
    if (raising_) {
      const double gap = best_cost_ - first_floor_;
      fraction = exact_done_ + (1 - exact_done_) * (gap > 0 ? std::clamp((floor_ - first_floor_) / gap, 0.0, 1.0) : 1.0);
    }
    s_.progress(std::min(1.0, fraction), best_cost_, std::min(floor_, best_cost_));
  }

  // Marks the register limit forces (targets with no operation limit, where the tree relaxation
  // counts no passes). A "critical" node y fails both ways with nothing marked: as its own pass
  // (VALID) and left unmarked (a resource of its subregion past the limit, the register floor
  // included). Its subregion S(y) depends only on the marks inside it, so while the marks
  // decided so far leave S(y) failing, some undecided member of S(y) other than y must still be
  // marked: a future pass, and a restore. Critical nodes whose undecided members are disjoint
  // need distinct marks; forced_marks() counts such a set greedily, and returns -1 when a
  // failing critical node has no undecided member left (no completion fits).
  void find_critical() {
    if (ops_limit_ != kUnlimited) return;
    words_ = (marked_.size() + 63) / 64;
    std::vector<NodeId> all = order_;
    all.push_back(p_.graph.root);
    for (NodeId y : all) {
      critical_.push_back(y);
      critical_pos_.push_back(pos_[y]);
      critical_fails_.push_back(0);
      critical_dirty_.push_back(0);
      critical_bits_.resize(critical_.size() * words_, 0);
      refresh_critical(critical_.size() - 1);
      if (!critical_fails_.back()) {
        critical_.pop_back();
        critical_pos_.pop_back();
        critical_fails_.pop_back();
        critical_dirty_.pop_back();
        critical_bits_.resize(critical_.size() * words_);
      }
    }
    if (critical_.empty()) return;
    undecided_.assign((order_.size() + 1) * words_, 0);
    for (std::size_t i = 0; i <= order_.size(); ++i) {
      std::uint64_t* u = &undecided_[i * words_];
      for (std::size_t j = i; j < order_.size(); ++j) u[order_[j] / 64] |= std::uint64_t{1} << (order_[j] % 64);
    }
    used_.assign(words_, 0);
  }

  // The first critical node still undecided at position i (critical_ is in position order).
  std::size_t first_undecided_critical(std::size_t i) const {
    return static_cast<std::size_t>(std::lower_bound(critical_pos_.begin(), critical_pos_.end(), i) - critical_pos_.begin());
  }

  std::uint64_t* critical_bits(std::size_t k) { return &critical_bits_[k * words_]; }
  static bool has(const std::uint64_t* bits, NodeId n) { return bits[n / 64] >> (n % 64) & 1u; }

  // Recomputes critical node k's subregion under the current marks and whether it still fails.
  void refresh_critical(std::size_t k) {
    std::uint64_t* bits = critical_bits(k);
    critical_dirty_[k] = 0;
    const NodeId y = critical_[k];
    subregion(p_, y, marked_, seen_, critical_members_);
    std::fill(bits, bits + words_, 0);
    for (NodeId m : critical_members_) bits[m / 64] |= std::uint64_t{1} << (m % 64);
    const Check& c = b_.answer(y, critical_members_);
    critical_fails_[k] = !c.ok && (y == p_.graph.root || breaks_as_member(c.resources, c.member_registers));
  }

  // Whether a subregion left unmarked already breaks a limit in every later pass that holds it:
  // the resources that only grow as members join (here at least `r`), or the backend's register
  // floor for it.
  bool breaks_as_member(const Resources& r, int member_registers) const {
    const Limits& l = b_.limits();
    auto over = [](int used, int limit) { return limit != kUnlimited && used > limit; };
    return over(r.operations, l.operations) || over(r.interpolants, l.interpolants) ||
           over(r.dependent_levels, l.dependent_levels) || over(member_registers, l.registers);
  }

  int forced_marks(std::size_t i) {
    if (critical_.empty()) return 0;
    std::fill(used_.begin(), used_.end(), 0);
    const std::uint64_t* undecided = &undecided_[i * words_];
    int count = 0;
    for (std::size_t k = first_undecided_critical(i); k < critical_.size(); ++k) {
      if (!critical_dirty_[k] && !critical_fails_[k]) continue;
      // The undecided members but y: a superset while the subregion is stale (marks only shrink
      // it), so one that meets the marks already counted is passed over without recomputing.
      auto undecided_members = [&](std::size_t w) {
        std::uint64_t a = critical_bits(k)[w] & undecided[w];
        if (w == critical_[k] / 64) a &= ~(std::uint64_t{1} << (critical_[k] % 64));
        return a;
      };
      bool disjoint = true;
      for (std::size_t w = 0; w < words_ && disjoint; ++w) disjoint = (undecided_members(w) & used_[w]) == 0;
      if (!disjoint) continue;
      if (critical_dirty_[k]) refresh_critical(k);  // valid until a mark in it is undone (saved)
      if (!critical_fails_[k]) continue;
      bool any = false;
      for (std::size_t w = 0; w < words_; ++w) {
        const std::uint64_t a = undecided_members(w);
        any |= a != 0;
        used_[w] |= a;
      }
      if (!any) return -1;
      ++count;
    }
    return count;
  }

  struct CriticalSave {
    std::size_t k;
    char fails, dirty;
  };

  struct Frame {
    std::vector<NodeId> members, taken, read;
  };
  struct Verdict {
    bool ok;
    Resources resources;
    int member_registers;
  };

  const Problem& p_;
  MemoBackend& b_;
  const AlgorithmOptions& o_;
  const OptimalOptions& s_;
  std::vector<char> marked_;
  std::vector<char> counted_ = std::vector<char>(marked_.size(), 0);
  std::vector<NodeId> order_;
  std::vector<std::vector<NodeId>> live_at_, parents_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t epoch_ = 0;
  std::vector<NodeId> work_, boundary_;
  std::vector<char> seen_ = std::vector<char>(marked_.size(), 0);
  std::vector<NodeId> region_;
  std::vector<Frame> frames_;  // per position: dfs's buffers
  std::vector<std::uint16_t> key_;
  std::uint64_t key_hash_ = 0;
  const bool wide_keys_ = marked_.size() > 0xffff;  // node ids and positions take two units
  StateTable table_{s_.table_bytes};
  std::uint64_t table_generation_ = 0;  // counts the table's restarts
  long transpositions_ = 0;
  std::vector<char> reads_ = std::vector<char>(marked_.size(), 0);  // marked and read by a finished pass
  std::vector<double> weight_;
  double remaining_weight_ = 0;
  // forced_marks(): the critical nodes in position order, their positions, subregions (bits per
  // node), whether each fails, and per position the undecided nodes.
  std::vector<NodeId> critical_, critical_members_;
  std::vector<std::size_t> critical_pos_;
  std::vector<std::uint64_t> critical_bits_, critical_saved_bits_, undecided_, used_;
  std::vector<char> critical_fails_, critical_dirty_;
  std::vector<CriticalSave> critical_saves_;
  std::size_t words_ = 0;
  long remaining_ops_ = 0;
  int ops_limit_ = kUnlimited, tex_limit_ = kUnlimited, interp_limit_ = kUnlimited;
  std::vector<int> consumers_, name_uses_;
  std::vector<std::uint32_t> name_stamp_;  // frontier(): names counted at this epoch
  std::vector<std::size_t> pos_, last_user_;  // a node's position in order_; its last user's
  std::vector<std::vector<NodeId>> tree_kids_;  // the operations whose last user a node is
  std::vector<long> residual_, piece_, cuttable_;  // tree_passes(): part sizes; frontier(): pieces
  std::vector<long> full_part_, full_cuts_;  // the greedy over the whole tree: a node's part, cuts below it
  // A node some live node hangs under at a position: its fixed_part_ is the sum of the parts of
  // the children no live node hangs under (fixed_parts_[fixed_begin, fixed_end)),
  // with fixed_cuts below them; above_live_[live_begin, live_end) are the live ones (leaves
  // here) and above_kids_[kids_begin, kids_end) the others (above live nodes too).
  struct Above {
    NodeId node = 0;
    long fixed_part = 0, fixed_cuts = 0;
    std::uint32_t fixed_begin = 0, fixed_end = 0, kids_begin = 0, kids_end = 0, live_begin = 0, live_end = 0;
  };
  std::vector<std::vector<Above>> above_;  // per position, operands first
  std::vector<long> fixed_parts_;
  std::vector<NodeId> above_kids_, above_live_;
  std::vector<NodeId> owner_;                      // frontier(): the live node that reached a member
  // A node's distinct operand operations are op_kids_[op_begin_[n], op_begin_[n + 1]), its
  // interpolants interp_kids_[interp_begin_[n], interp_begin_[n + 1]).
  std::vector<std::uint32_t> op_begin_, interp_begin_;
  std::vector<NodeId> op_kids_, interp_kids_;
  long names_left_ = 0, interps_left_ = 0;
  double best_cost_ = std::numeric_limits<double>::infinity();
  std::vector<char> best_marks_;
  double floor_ = 0;  // no partition costs less (proven so far)
  double cap_ = std::numeric_limits<double>::infinity();  // prune here too (raise_floor)
  bool raising_ = false;
  long floors_proven_ = 0;  // caps whose search finished
  double exact_done_ = 0;
  double first_floor_ = 0;  // the floor raise_floor() started from
  double done_ = 0;
  bool stopped_ = false;
  bool dive_ = false;     // the incumbent-finding phase (see run())
  int marked_total_ = 0;  // marked nodes on the current path
  long explored_ = 0, valid_calls_ = 0, tick_ = 0, reports_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace

Partition optimal(const Problem& p, Backend& backend, const AlgorithmOptions& options, const OptimalOptions& search) {
  MemoBackend memo(backend);
  Partition part = Search(p, memo, options, search).run();
  part.stats.valid_generated = memo.misses();
  return part;
}

}  // namespace passlab::partition
