// SPDX-License-Identifier: GPL-3.0-or-later
// The optimal search's private part, shared by optimal.cpp (the branch and bound itself: the
// depth-first search, its lower bound, the forced marks, the frontier's redo, the tree
// relaxation, the transposition table and the progress reports) and optimal_phases.cpp (what
// surrounds it: the order and the tables set up, the dive, the exact search, annealing and the
// raised floor in turn, polishing, and the saves that are critical). The essay is at the top of optimal.cpp.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/partition/algorithms.h"
#include "core/partition/anneal.h"
#include "core/partition/memo.h"
#include "core/partition/state_table.h"

namespace passlab::partition::optimal_detail {

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
  Search(const Problem& p, MemoBackend& b, const AlgorithmOptions& o, const OptimalOptions& s);

  Partition run();

 private:


  // Cost of the root's pass plus a bound for everything not yet in a finished pass.
  double bound(double cost_so_far, int unread_restores, const Redo& redo = {}, int forced = 0) const;

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
  bool raise_floor(std::chrono::steady_clock::time_point end);

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
  double dfs(std::size_t i, double cost_so_far, int unread, double share);

  // dfs() past its bounds: decides order_[i] both ways (or closes the partition at the root).
  double expand(std::size_t i, double cost_so_far, int unread, double share, double lb);

  // Improves the incumbent before the search by local moves: flip the mark of one node, or of a
  // node and one of its operands or users together (moving a pass boundary by one node),
  // keeping every change that lowers the cost, until none does. A cheaper incumbent prunes
  // more; the search stays exact whatever the incumbent is.
  void polish();

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
  int slots_beside(NodeId n, const std::vector<NodeId>& region) const;
  // Interpolants the pass that takes n's subregion needs beyond it: those some user of n reads
  // directly and the subregion does not. The fewest over n's users.
  int interpolants_beside(NodeId n, const std::vector<NodeId>& region) const;
  bool reads(const std::vector<NodeId>& region, NodeId k) const {
    for (NodeId m : region)
      for (NodeId c : p_.graph.children[m])
        if (c == k) return true;
    return false;
  }

  // Walks the frontier at position i: the union of the unmarked live nodes' subregions (work_)
  // and its boundary, the marked operations its members read (boundary_, sorted), and what the
  // future passes must redo for them (see Redo).
  Redo frontier(std::size_t i);

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
  void tree_passes(std::size_t i, Redo& redo);

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
  std::uint32_t state_slot(double future, bool* found);
  // The key of state (i, frontier) from the frontier frontier(i) walked, its hash, and a
  // prefetch of its index slot.
  void key_state(std::size_t i);
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
  void account(NodeId m, int delta);

  void report(bool now = false);

  // Marks the register limit forces (targets with no operation limit, where the tree relaxation
  // counts no passes). A "critical" node y fails both ways with nothing marked: as its own pass
  // (VALID) and left unmarked (a resource of its subregion past the limit, the register floor
  // included). Its subregion S(y) depends only on the marks inside it, so while the marks
  // decided so far leave S(y) failing, some undecided member of S(y) other than y must still be
  // marked: a future pass, and a restore. Critical nodes whose undecided members are disjoint
  // need distinct marks; forced_marks() counts such a set greedily, and returns -1 when a
  // failing critical node has no undecided member left (no completion fits).
  void find_critical();

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

  int forced_marks(std::size_t i);

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

}  // namespace passlab::partition::optimal_detail
