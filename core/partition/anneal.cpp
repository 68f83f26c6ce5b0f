// SPDX-License-Identifier: GPL-3.0-or-later
// Simulated annealing over markings (see anneal.h).
#include "core/partition/anneal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace passlab::partition {

namespace {

// The cost of a marking kept up to date move by move: each marked operation's pass (valid,
// fetches, instructions) and what it touches (its members and the marked operands they
// restore). Flipping a node's mark changes only its own pass and those that touch it, so a
// move asks VALID about one to three passes where marking_cost() asks about all of them.
class Passes {
 public:
  Passes(const Problem& p, Backend& b, const CostModel& m, const std::vector<char>& marks)
      : p_(p), b_(b), m_(m), marks_(marks), words_((marks.size() + 63) / 64), seen_(marks.size(), 0),
        pass_(marks.size()), touch_(marks.size() * words_, 0) {
    marks_[p.graph.root] = 1;
    for (NodeId n = 0; n < marks_.size(); ++n)
      if (marks_[n] && p_.is_op[n]) add(n);
  }
  const std::vector<char>& marks() const { return marks_; }
  double cost() const {
    if (invalid_ > 0) return std::numeric_limits<double>::infinity();
    return m_.cost(passes_, fetches_, instructions_);
  }
  // Flips a's mark, and b's when b != a; undo() takes the last flip back.
  void flip(NodeId a, NodeId b) {
    changed_.clear();
    saved_touch_.clear();
    for (NodeId n = 0; n < marks_.size(); ++n)
      if (marks_[n] && p_.is_op[n] && n != a && n != b && (touches(n, a) || touches(n, b))) save(n);
    const int flipped = b == a ? 1 : 2;
    const NodeId nodes[2] = {a, b};
    for (int k = 0; k < flipped; ++k)
      if (marks_[nodes[k]]) save(nodes[k]);
    for (NodeId n : changed_) remove(n);
    marks_[a] ^= 1;
    if (b != a) marks_[b] ^= 1;
    last_a_ = a;
    last_b_ = b;
    for (NodeId n : changed_)
      if (marks_[n]) add(n);
    for (int k = 0; k < flipped; ++k)
      if (marks_[nodes[k]]) add(nodes[k]);
  }
  void undo() {
    if (marks_[last_a_]) remove(last_a_);
    if (last_b_ != last_a_ && marks_[last_b_]) remove(last_b_);
    for (NodeId n : changed_)
      if (marks_[n]) remove(n);
    marks_[last_a_] ^= 1;
    if (last_b_ != last_a_) marks_[last_b_] ^= 1;
    for (std::size_t k = 0; k < changed_.size(); ++k) {
      const NodeId n = changed_[k];
      pass_[n] = saved_pass_[k];
      std::copy(saved_touch_.begin() + static_cast<std::ptrdiff_t>(k * words_),
                saved_touch_.begin() + static_cast<std::ptrdiff_t>((k + 1) * words_), touch_.begin() + static_cast<std::ptrdiff_t>(n * words_));
      count(n, +1);
    }
  }

 private:
  struct Pass {
    bool ok = true;
    int fetches = 0, instructions = 0;
  };
  bool touches(NodeId n, NodeId x) const { return (touch_[n * words_ + x / 64] >> (x % 64) & 1u) != 0; }
  // n's pass before the flip, kept for undo(); its counts leave the totals in remove().
  void save(NodeId n) {
    if (changed_.size() == saved_pass_.size()) saved_pass_.emplace_back();
    saved_pass_[changed_.size()] = pass_[n];
    saved_touch_.insert(saved_touch_.end(), touch_.begin() + static_cast<std::ptrdiff_t>(n * words_),
                        touch_.begin() + static_cast<std::ptrdiff_t>((n + 1) * words_));
    changed_.push_back(n);
  }
  void count(NodeId n, int sign) {
    passes_ += sign;
    fetches_ += sign * pass_[n].fetches;
    instructions_ += sign * pass_[n].instructions;
    invalid_ += sign * (pass_[n].ok ? 0 : 1);
  }
  void remove(NodeId n) { count(n, -1); }
  // Asks VALID about n's pass under the current marks and counts it in.
  void add(NodeId n) {
    subregion(p_, n, marks_, seen_, members_);
    const Check c = b_.valid(n, members_);
    pass_[n] = {c.ok, c.resources.texture_fetches, c.resources.arithmetic};
    std::uint64_t* t = &touch_[n * words_];
    std::fill(t, t + words_, 0);
    for (NodeId m : members_) {
      t[m / 64] |= std::uint64_t{1} << (m % 64);
      for (NodeId k : p_.graph.children[m])
        if (p_.is_op[k] && marks_[k]) t[k / 64] |= std::uint64_t{1} << (k % 64);
    }
    count(n, +1);
  }

  const Problem& p_;
  Backend& b_;
  const CostModel& m_;
  std::vector<char> marks_;
  std::size_t words_;
  std::vector<char> seen_;
  std::vector<NodeId> members_;
  std::vector<Pass> pass_;
  std::vector<std::uint64_t> touch_;
  int passes_ = 0, fetches_ = 0, instructions_ = 0, invalid_ = 0;
  // The last flip: its nodes, and the passes it changed with what they were before.
  NodeId last_a_ = 0, last_b_ = 0;
  std::vector<NodeId> changed_;
  std::vector<Pass> saved_pass_;
  std::vector<std::uint64_t> saved_touch_;
};

}  // namespace

double anneal(const Problem& p, Backend& backend, const CostModel& model, std::vector<char>& marks, double cost,
              const AnnealOptions& options) {
  // The operations that may change marks (the root stays marked), each with its distinct
  // operand operations.
  std::vector<NodeId> ops;
  std::vector<std::vector<NodeId>> kids(p.graph.children.size());
  for (NodeId n = 0; n < p.graph.children.size(); ++n) {
    if (!p.is_op[n] || n == p.graph.root) continue;
    ops.push_back(n);
    for (NodeId c : p.graph.children[n])
      if (p.is_op[c] && std::find(kids[n].begin(), kids[n].end(), c) == kids[n].end()) kids[n].push_back(c);
  }
  if (ops.empty() || !std::isfinite(cost)) return cost;
  std::mt19937_64 rng(0x5eedu);
  auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  Passes current(p, backend, model, marks);
  double current_cost = cost;
  // The starting temperature: 1% of the cost, and at least half a pass, a fetch and an
  // instruction (a move's usual price), so that a small DAG's walk can climb too.
  const double t0 = std::max(0.01 * cost, 0.5 * (model.per_pass + model.per_texture + model.per_instruction));
  const auto start = std::chrono::steady_clock::now();
  const double span = std::chrono::duration<double>(options.end - start).count();
  const double steps = options.steps_per_operation * static_cast<double>(ops.size());
  double temperature = t0;
  for (long step = 0;; ++step) {
    if ((step & 63) == 0) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double done = std::max(span > 0 ? elapsed / span : 1.0, static_cast<double>(step) / steps);
      if (done >= 1 || (options.cancel && options.cancel->load())) break;
      temperature = t0 * (1 - done);
    }
    const NodeId a = ops[rng() % ops.size()];
    NodeId b = a;
    if (!kids[a].empty() && (rng() & 1)) b = kids[a][rng() % kids[a].size()];
    current.flip(a, b);
    const double c = current.cost();
    if (c <= current_cost || (std::isfinite(c) && temperature > 0 && uniform() < std::exp((current_cost - c) / temperature))) {
      current_cost = c;
      if (c < cost - 1e-9) {
        cost = c;
        marks = current.marks();
      }
      continue;
    }
    current.undo();
  }
  marks[p.graph.root] = 1;
  return cost;
}

}  // namespace passlab::partition
