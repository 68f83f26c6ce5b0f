// SPDX-License-Identifier: GPL-3.0-or-later
// The optimal search's phases around the branch and bound (the essay at the top of optimal.cpp):
// the order and its tables set up, the dive for an incumbent, the exact search, annealing and the
// floor raised below the incumbent in turn, polishing the result, and the saves that are critical.
#include "core/partition/optimal_internal.h"

namespace passlab::partition::optimal_detail {

Search::Search(const Problem& p, MemoBackend& b, const AlgorithmOptions& o, const OptimalOptions& s)
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

Partition Search::run() {
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

bool Search::raise_floor(std::chrono::steady_clock::time_point end) {
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

void Search::polish() {
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

void Search::find_critical() {
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

}  // namespace passlab::partition::optimal_detail
