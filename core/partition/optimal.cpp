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
#include "core/partition/optimal_internal.h"

namespace passlab::partition {

namespace optimal_detail {

double Search::bound(double cost_so_far, int unread_restores, const Redo& redo, int forced) const {
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

double Search::dfs(std::size_t i, double cost_so_far, int unread, double share) {
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

inline double Search::expand(std::size_t i, double cost_so_far, int unread, double share, double lb) {
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

inline int Search::slots_beside(NodeId n, const std::vector<NodeId>& region) const {
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

inline int Search::interpolants_beside(NodeId n, const std::vector<NodeId>& region) const {
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

inline Redo Search::frontier(std::size_t i) {
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

inline void Search::tree_passes(std::size_t i, Redo& redo) {
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

inline std::uint32_t Search::state_slot(double future, bool* found) {
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

inline void Search::key_state(std::size_t i) {
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

inline void Search::account(NodeId m, int delta) {
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

void Search::report(bool now) {
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

inline int Search::forced_marks(std::size_t i) {
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

}  // namespace optimal_detail

Partition optimal(const Problem& p, Backend& backend, const AlgorithmOptions& options, const OptimalOptions& search) {
  if (p.pseudo_root || !options.model.linear()) {  // one output, linear sums: what its bounds are for
    Partition out = search.incumbent ? *search.incumbent : Partition{};
    out.algorithm = "Optimal (not run)";
    out.not_run = p.pseudo_root ? "the optimal search partitions shaders of one output"
                                : "the optimal search's bounds need a linear cost model";
    out.proven_optimal = false;
    out.lower_bound = 0;
    out.stats = {};
    return out;
  }
  MemoBackend memo(backend);
  Partition part = optimal_detail::Search(p, memo, options, search).run();
  part.stats.valid_generated = memo.misses();
  return part;
}

}  // namespace passlab::partition
