// SPDX-License-Identifier: GPL-3.0-or-later
// Forward list scheduling per basic block, with the thesis's priorities and optional pairing.
#include "backends/rpu/schedule.h"

#include <fmt/format.h>

#include <algorithm>

namespace passlab::rpu {

namespace {

bool shares(const std::vector<Loc>& a, const std::vector<Loc>& b) {
  for (Loc x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

// The rest of the table once everything has issued (`cycle` is the next): results becoming
// available until the last one; and the block's length, until that last result is ready.
void finish_table(BlockSchedule& s, const std::vector<int>& ready_at, int cycle) {
  const int n = static_cast<int>(ready_at.size());
  int end = 1;
  for (int i = 0; i < n; ++i) end = std::max(end, ready_at[static_cast<std::size_t>(i)]);
  for (; cycle <= end; ++cycle) {
    CycleRow row;
    row.cycle = cycle;
    for (int i = 0; i < n; ++i)
      if (ready_at[static_cast<std::size_t>(i)] == cycle) row.became_available.push_back(i);
    s.table.push_back(std::move(row));
  }
  s.cycles = n ? end - 1 : 0;
}

}  // namespace

BlockSchedule schedule_block(const std::vector<SchedNode>& nodes, const Machine& m, const ScheduleOptions& options) {
  const int n = static_cast<int>(nodes.size());
  BlockSchedule s;
  s.issue.assign(static_cast<std::size_t>(n), 0);
  s.pair_of.assign(static_cast<std::size_t>(n), -1);
  s.path.assign(static_cast<std::size_t>(n), 0);
  s.successors.assign(static_cast<std::size_t>(n), 0);
  s.latency.resize(static_cast<std::size_t>(n));
  s.deps.assign(static_cast<std::size_t>(n), {});
  for (int i = 0; i < n; ++i) s.latency[static_cast<std::size_t>(i)] = nodes[static_cast<std::size_t>(i)].latency;
  std::vector<std::vector<int>> succ(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) {
      const SchedNode &a = nodes[static_cast<std::size_t>(i)], &b = nodes[static_cast<std::size_t>(j)];
      if (shares(a.writes, b.reads) || shares(a.reads, b.writes) || shares(a.writes, b.writes)) {
        s.deps[static_cast<std::size_t>(j)].push_back(i);
        succ[static_cast<std::size_t>(i)].push_back(j);
      }
    }
  for (int i = n - 1; i >= 0; --i) {
    int longest = 0;
    for (int j : succ[static_cast<std::size_t>(i)]) longest = std::max(longest, s.path[static_cast<std::size_t>(j)]);
    s.path[static_cast<std::size_t>(i)] = s.latency[static_cast<std::size_t>(i)] + longest;
    s.successors[static_cast<std::size_t>(i)] = static_cast<int>(succ[static_cast<std::size_t>(i)].size());
  }
  // In program order: each waits for its predecessors (the unscheduled length).
  {
    std::vector<int> done(static_cast<std::size_t>(n), 0);
    int cycle = 0, end = 0;
    for (int i = 0; i < n; ++i) {
      int at = cycle + 1;
      for (int p : s.deps[static_cast<std::size_t>(i)]) at = std::max(at, done[static_cast<std::size_t>(p)]);
      cycle = at;
      done[static_cast<std::size_t>(i)] = at + s.latency[static_cast<std::size_t>(i)];
      end = std::max(end, done[static_cast<std::size_t>(i)]);
    }
    s.unscheduled_cycles = n ? end - 1 : 0;
  }
  std::vector<int> ready_at(static_cast<std::size_t>(n), 0);  // 0: not issued yet
  std::vector<bool> issued(static_cast<std::size_t>(n), false);
  auto better = [&](int a, int b) {  // a before b?
    const auto ai = static_cast<std::size_t>(a), bi = static_cast<std::size_t>(b);
    if (s.path[ai] != s.path[bi]) return s.path[ai] > s.path[bi];
    if (s.successors[ai] != s.successors[bi]) return s.successors[ai] > s.successors[bi];
    if (s.latency[ai] != s.latency[bi]) return s.latency[ai] > s.latency[bi];
    return a < b;
  };
  int remaining = n, cycle = 1;
  while (remaining > 0) {
    CycleRow row;
    row.cycle = cycle;
    for (int i = 0; i < n; ++i)
      if (issued[static_cast<std::size_t>(i)] && ready_at[static_cast<std::size_t>(i)] == cycle) row.became_available.push_back(i);
    for (int i = 0; i < n; ++i) {
      if (issued[static_cast<std::size_t>(i)]) continue;
      bool ok = true;
      for (int p : s.deps[static_cast<std::size_t>(i)])
        ok = ok && issued[static_cast<std::size_t>(p)] && ready_at[static_cast<std::size_t>(p)] <= cycle;
      if (ok) row.candidates.push_back(i);
    }
    if (!row.candidates.empty()) {
      std::vector<int> ranked = row.candidates;
      std::sort(ranked.begin(), ranked.end(), better);
      const int first = ranked.front();
      row.issued.push_back(first);
      if (options.pair && m.pairing)
        for (std::size_t k = 1; k < ranked.size(); ++k) {
          const int other = ranked[k];
          if (nodes[static_cast<std::size_t>(first)].op.op == Opcode::None || nodes[static_cast<std::size_t>(other)].op.op == Opcode::None) continue;
          if (!pair_problem(nodes[static_cast<std::size_t>(first)].op, nodes[static_cast<std::size_t>(other)].op, m).empty()) continue;
          row.issued.push_back(other);
          s.pair_of[static_cast<std::size_t>(first)] = other;
          s.pair_of[static_cast<std::size_t>(other)] = first;
          break;
        }
      for (int i : row.issued) {
        issued[static_cast<std::size_t>(i)] = true;
        ready_at[static_cast<std::size_t>(i)] = cycle + s.latency[static_cast<std::size_t>(i)];
        s.issue[static_cast<std::size_t>(i)] = cycle;
        s.order.push_back(i);
        --remaining;
      }
    }
    s.table.push_back(std::move(row));
    ++cycle;
  }
  finish_table(s, ready_at, cycle);
  return s;
}

std::optional<BlockSchedule> schedule_in_order(const BlockSchedule& scheduled, const std::vector<int>& order, std::string* problem) {
  const int n = static_cast<int>(scheduled.latency.size());
  const auto name = [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    return k < scheduled.text.size() ? fmt::format("{} ({})", i + 1, scheduled.text[k]) : fmt::format("{}", i + 1);
  };
  std::vector<int> position(static_cast<std::size_t>(n), -1);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    if (i < 0 || i >= n) {
      if (problem) *problem = fmt::format("there is no instruction {} in this block (1 to {})", i + 1, n);
      return std::nullopt;
    }
    if (position[static_cast<std::size_t>(i)] >= 0) {
      if (problem) *problem = fmt::format("instruction {} is issued twice", name(i));
      return std::nullopt;
    }
    position[static_cast<std::size_t>(i)] = static_cast<int>(k);
  }
  for (int i = 0; i < n; ++i)
    if (position[static_cast<std::size_t>(i)] < 0) {
      if (problem) *problem = fmt::format("instruction {} is never issued", name(i));
      return std::nullopt;
    }
  for (int i : order)
    for (int p : scheduled.deps[static_cast<std::size_t>(i)])
      if (position[static_cast<std::size_t>(p)] > position[static_cast<std::size_t>(i)]) {
        if (problem) *problem = fmt::format("instruction {} comes before {}, which it must wait for (it reads what that one writes, or writes what it reads or writes)",
                                            name(i), name(p));
        return std::nullopt;
      }
  BlockSchedule s;
  s.block = scheduled.block;
  s.text = scheduled.text;
  s.path = scheduled.path;
  s.successors = scheduled.successors;
  s.latency = scheduled.latency;
  s.deps = scheduled.deps;
  s.unscheduled_cycles = scheduled.unscheduled_cycles;
  s.issue.assign(static_cast<std::size_t>(n), 0);
  s.pair_of.assign(static_cast<std::size_t>(n), -1);
  std::vector<int> ready_at(static_cast<std::size_t>(n), 0);  // 0: not issued yet
  std::size_t next = 0;
  int cycle = 1;
  while (next < order.size()) {
    CycleRow row;
    row.cycle = cycle;
    for (int i = 0; i < n; ++i)
      if (ready_at[static_cast<std::size_t>(i)] == cycle) row.became_available.push_back(i);
    const auto ready = [&](int i) {
      for (int p : s.deps[static_cast<std::size_t>(i)])
        if (ready_at[static_cast<std::size_t>(p)] == 0 || ready_at[static_cast<std::size_t>(p)] > cycle) return false;
      return true;
    };
    for (int i = 0; i < n; ++i)
      if (ready_at[static_cast<std::size_t>(i)] == 0 && ready(i)) row.candidates.push_back(i);
    if (const int i = order[next]; ready(i)) {
      row.issued.push_back(i);
      ready_at[static_cast<std::size_t>(i)] = cycle + s.latency[static_cast<std::size_t>(i)];
      s.issue[static_cast<std::size_t>(i)] = cycle;
      s.order.push_back(i);
      ++next;
    }
    s.table.push_back(std::move(row));
    ++cycle;
  }
  finish_table(s, ready_at, cycle);
  return s;
}

namespace {

bool movable(const AsmInstr& in) {
  const Opcode op = in.word.primary.op;
  return !in.is_call() && op != Opcode::Trace && op != Opcode::Store && in.word.control.kind == ControlKind::None;
}

SchedNode node_of(const AsmFunction& f, const AsmInstr& in, const Machine& m) {
  SchedNode n;
  instr_uses(f, in, n.reads);
  instr_defs(f, in, n.writes);
  n.latency = m.latency_of(in.word.primary.op);
  if (in.word.primary.special != SpecialFn::None) n.latency += m.special_latency;
  if (is_arithmetic(in.word.primary.op)) n.op = in.word.primary;
  n.text = to_text(in.word);
  return n;
}

}  // namespace

FunctionSchedule schedule_function(AsmFunction& f, const Machine& m, const ScheduleOptions& options, AsmStats& stats) {
  FunctionSchedule out;
  for (AsmBlock& blk : f.blocks) {
    if (blk.removed) continue;
    std::vector<AsmInstr> result;
    std::size_t i = 0;
    while (i < blk.body.size()) {
      if (!movable(blk.body[i])) {
        result.push_back(std::move(blk.body[i++]));
        continue;
      }
      std::size_t j = i;
      while (j < blk.body.size() && movable(blk.body[j])) ++j;
      std::vector<SchedNode> nodes;
      for (std::size_t k = i; k < j; ++k) nodes.push_back(node_of(f, blk.body[k], m));
      BlockSchedule s = schedule_block(nodes, m, options);
      s.block = static_cast<std::uint32_t>(&blk - f.blocks.data());
      for (const SchedNode& nd : nodes) s.text.push_back(nd.text);
      std::vector<bool> placed(nodes.size(), false);
      for (int k : s.order) {
        if (placed[static_cast<std::size_t>(k)]) continue;
        AsmInstr in = std::move(blk.body[i + static_cast<std::size_t>(k)]);
        placed[static_cast<std::size_t>(k)] = true;
        const int partner = s.pair_of[static_cast<std::size_t>(k)];
        if (partner >= 0) {
          in.word.secondary = blk.body[i + static_cast<std::size_t>(partner)].word.primary;
          placed[static_cast<std::size_t>(partner)] = true;
          ++out.pairs;
          ++stats["schedule.pairs"];
        }
        result.push_back(std::move(in));
      }
      out.cycles += s.cycles;
      out.unscheduled_cycles += s.unscheduled_cycles;
      if (nodes.size() > 1) out.pieces.push_back(std::move(s));
      i = j;
    }
    blk.body = std::move(result);
  }
  stats["schedule.cycles"] += out.cycles;
  stats["schedule.unscheduled_cycles"] += out.unscheduled_cycles;
  return out;
}

std::string schedule_table_text(const BlockSchedule& s, const std::vector<SchedNode>& nodes) {
  BlockSchedule named = s;
  named.text.clear();
  for (const SchedNode& n : nodes) named.text.push_back(n.text);
  return schedule_table_text(named);
}

std::string schedule_table_text(const BlockSchedule& s) {
  auto names = [&](const std::vector<int>& v) {
    std::string t;
    for (int i : v) t += (t.empty() ? "" : ", ") + std::to_string(i + 1);
    return t;
  };
  std::string out = "#   instruction                        path  succ  latency  issued\n";
  for (std::size_t i = 0; i < s.text.size(); ++i) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-3zu %-34s %4d  %4d  %7d  %6d\n", i + 1, s.text[i].c_str(), s.path[i], s.successors[i], s.latency[i], s.issue[i]);
    out += buf;
  }
  out += "cycle  became available   candidates        issued\n";
  for (const CycleRow& r : s.table) {
    char buf[160];
    const std::string issued = r.issued.empty() ? (r.candidates.empty() && &r == &s.table.back() ? "end" : "stall") : names(r.issued);
    std::snprintf(buf, sizeof buf, "%5d  %-17s  %-16s  %s\n", r.cycle, names(r.became_available).c_str(),
                  r.candidates.empty() ? "none" : names(r.candidates).c_str(), issued.c_str());
    out += buf;
  }
  out += "scheduled: " + std::to_string(s.cycles) + " cycles; in program order: " + std::to_string(s.unscheduled_cycles) + "\n";
  return out;
}

}  // namespace passlab::rpu
