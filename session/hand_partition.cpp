// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-made partitions in a session: marks with their history, their run, and hints.
#include "session/hand_partition.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace passlab::session {

namespace {

using partition::Mark;

bool by_node(const Mark& a, const Mark& b) { return a.node < b.node; }

// An interpolant's label without the numbers of the vertex program's outputs ("v3" is "v"): they
// are numbered in the order the DAG meets them, which an edit elsewhere changes.
std::string unnumbered(const backends::GraphNode& n) {
  if (n.kind != backends::GraphNode::Kind::Interpolant) return n.label;
  std::string out;
  for (std::size_t i = 0; i < n.label.size(); ++i) {
    out += n.label[i];
    const bool starts = n.label[i] == 'v' && (i == 0 || !std::isalnum(static_cast<unsigned char>(n.label[i - 1])));
    if (starts)
      while (i + 1 < n.label.size() && std::isdigit(static_cast<unsigned char>(n.label[i + 1]))) ++i;
  }
  return out;
}

// A node's structure as a number: its label and kind with its operands' numbers in order. Equal
// numbers, the same computation (as far as 64 bits tell); node ids play no part. Interpolants
// are told apart by what reads them (their labels lose their numbers).
std::vector<std::uint64_t> structure(const backends::TargetGraph& g) {
  std::vector<std::uint64_t> h(g.size(), 0);
  std::vector<char> done(g.size(), 0);
  const std::function<std::uint64_t(std::uint32_t)> of = [&](std::uint32_t id) -> std::uint64_t {
    if (done[id]) return h[id];
    const auto& n = g.nodes[id];
    std::uint64_t x = std::hash<std::string>{}(unnumbered(n)) ^ (static_cast<std::uint64_t>(n.kind) << 56);
    for (std::uint32_t d : n.deps) x = (x ^ of(d)) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    done[id] = 1;
    return h[id] = x;
  };
  for (std::uint32_t id = 0; id < g.size(); ++id) of(id);
  return h;
}

// How good a partition is for a hint: fewer operations in passes that do not fit, then fewer
// such passes, then a lower cost.
struct Score {
  long unfit_operations = 0;
  int unfit_passes = 0;
  double cost = 0;
  auto key() const { return std::make_tuple(unfit_operations, unfit_passes, cost); }
  bool better_than(const Score& o) const { return key() < o.key(); }
};

Score score_of(const partition::Partition& part) {
  Score s;
  for (const auto& pass : part.passes)
    if (!pass.failure.empty()) {
      ++s.unfit_passes;
      s.unfit_operations += static_cast<long>(pass.members.size());
    }
  s.cost = part.valid ? part.cost : 0;
  return s;
}

}  // namespace

bool HandMarks::marked(std::uint32_t node) const {
  return std::binary_search(marks_.begin(), marks_.end(), Mark{node, ""}, by_node);
}

bool HandMarks::set_reason(std::uint32_t node, std::string reason) {
  auto at = std::lower_bound(marks_.begin(), marks_.end(), Mark{node, ""}, by_node);
  if (at == marks_.end() || at->node != node) return false;
  at->reason = std::move(reason);
  return true;
}

const std::string* HandMarks::reason(std::uint32_t node) const {
  auto at = std::lower_bound(marks_.begin(), marks_.end(), Mark{node, ""}, by_node);
  return at != marks_.end() && at->node == node ? &at->reason : nullptr;
}

void HandMarks::step(std::vector<Mark> next) {
  undo_.push_back(std::move(marks_));
  redo_.clear();
  marks_ = std::move(next);
}

bool HandMarks::toggle(const partition::Problem& p, std::uint32_t node) {
  if (node >= p.is_op.size() || !p.is_op[node] || node == p.graph.root) return false;
  std::vector<Mark> next = marks_;
  auto at = std::lower_bound(next.begin(), next.end(), Mark{node, ""}, by_node);
  if (at != next.end() && at->node == node) next.erase(at);
  else next.insert(at, Mark{node, ""});
  step(std::move(next));
  return true;
}

void HandMarks::assign(const partition::Problem& p, std::vector<Mark> marks) {
  std::erase_if(marks, [&](const Mark& m) { return m.node >= p.is_op.size() || !p.is_op[m.node] || m.node == p.graph.root; });
  std::sort(marks.begin(), marks.end(), by_node);
  marks.erase(std::unique(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.node == b.node; }), marks.end());
  const auto same = [](const std::vector<Mark>& a, const std::vector<Mark>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Mark& x, const Mark& y) { return x.node == y.node && x.reason == y.reason; });
  };
  if (same(marks, marks_)) return;
  step(std::move(marks));
}

bool HandMarks::undo() {
  if (undo_.empty()) return false;
  redo_.push_back(std::move(marks_));
  marks_ = std::move(undo_.back());
  undo_.pop_back();
  return true;
}

bool HandMarks::redo() {
  if (redo_.empty()) return false;
  undo_.push_back(std::move(marks_));
  marks_ = std::move(redo_.back());
  redo_.pop_back();
  return true;
}

int HandMarks::follow(const backends::TargetGraph& before, const backends::TargetGraph& now, const partition::Problem& p) {
  undo_.clear();  // the steps name the old nodes, whatever the marks now
  redo_.clear();
  if (marks_.empty()) return 0;
  const std::vector<std::uint64_t> old_h = structure(before), new_h = structure(now);
  // The k-th node of a structure before is the k-th of the same structure now.
  std::map<std::uint64_t, std::vector<std::uint32_t>> where;
  for (std::uint32_t id = 0; id < new_h.size(); ++id) where[new_h[id]].push_back(id);
  std::map<std::uint64_t, int> seen;
  std::vector<int> rank(old_h.size(), 0);
  for (std::uint32_t id = 0; id < old_h.size(); ++id) rank[id] = seen[old_h[id]]++;
  std::vector<Mark> kept;
  for (const Mark& m : marks_) {
    if (m.node >= old_h.size()) continue;
    auto found = where.find(old_h[m.node]);
    if (found == where.end() || static_cast<std::size_t>(rank[m.node]) >= found->second.size()) continue;
    const std::uint32_t id = found->second[static_cast<std::size_t>(rank[m.node])];
    if (id < p.is_op.size() && p.is_op[id] && id != p.graph.root) kept.push_back({id, m.reason});
  }
  std::sort(kept.begin(), kept.end(), by_node);
  const int dropped = static_cast<int>(marks_.size() - kept.size());
  marks_ = std::move(kept);
  undo_.clear();
  redo_.clear();
  return dropped;
}

AlgorithmRun run_marks(const Snapshot& s, const std::vector<Mark>& marks) {
  AlgorithmRun run;
  run.algorithm = "yours";
  if (!s.target) return run;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<partition::Backend> backend = s.target->backend();
  run.partition = partition::evaluate_marks(s.problem, *backend, marks, s.request.model);
  run.partition.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  run.timeline = s.target->timeline(run.partition, s.request.model, nullptr);
  // The checks are the algorithms' (a partition that does not fit has nothing to execute).
  if (run.partition.valid) run.problems = s.target->check(run.partition, s.request.model, s.program->binding);
  run.listings = s.target->listings(run.partition, &run.listing_nodes);
  return run;
}

std::optional<MarkHint> improving_mark(const Snapshot& s, const std::vector<Mark>& marks, const partition::Partition* best) {
  if (!s.target) return std::nullopt;
  const partition::Problem& p = s.problem;
  std::unique_ptr<partition::Backend> backend = s.target->backend();
  std::vector<char> marked(p.graph.children.size(), 0);
  for (const Mark& m : marks)
    if (m.node < marked.size()) marked[m.node] = 1;
  const partition::Partition now = partition::make_partition(p, *backend, marked, s.request.model);
  const Score here = score_of(now);
  const auto candidates = [&](bool everywhere) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t id = 0; id < marked.size(); ++id) {
      if (!p.is_op[id] || id == p.graph.root) continue;
      const bool differs = best && id < best->marked.size() && (best->marked[id] != 0) != (marked[id] != 0);
      if (everywhere ? !differs : differs) out.push_back(id);
    }
    return out;
  };
  std::optional<MarkHint> hint;
  Score top = here;
  partition::Partition top_part;
  for (const bool everywhere : {false, true}) {
    for (std::uint32_t id : candidates(everywhere)) {
      marked[id] ^= 1;
      partition::Partition part = partition::make_partition(p, *backend, marked, s.request.model);
      marked[id] ^= 1;
      const Score sc = score_of(part);
      if (sc.better_than(top)) {
        top = sc;
        top_part = std::move(part);
        hint = MarkHint{id, marked[id] == 0, {}};
      }
    }
    if (hint) break;
  }
  if (!hint) return std::nullopt;
  const std::string what = fmt::format("{} n{} ({})", hint->mark ? "Mark" : "Unmark", hint->node, p.labels[hint->node]);
  if (top_part.valid && !now.valid)
    hint->why = fmt::format("{}: then every pass fits ({} passes, cost {:.2f})", what, top_part.passes.size(), top_part.cost);
  else if (top_part.valid)
    hint->why = fmt::format("{}: cost {:.2f} instead of {:.2f} ({} passes instead of {})", what, top_part.cost, now.cost,
                            top_part.passes.size(), now.passes.size());
  else
    hint->why = fmt::format("{}: {} operations in passes that do not fit instead of {}", what, top.unfit_operations, here.unfit_operations);
  return hint;
}

}  // namespace passlab::session
