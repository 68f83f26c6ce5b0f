// SPDX-License-Identifier: GPL-3.0-or-later
// Simulated annealing over markings: a better incumbent for the optimal search.
#pragma once

#include <atomic>
#include <chrono>
#include <vector>

#include "core/partition/partition.h"

namespace passlab::partition {

struct AnnealOptions {
  std::chrono::steady_clock::time_point end;  // stop by then
  double steps_per_operation = 1000;          // and after this many moves per operation
  const std::atomic<bool>* cancel = nullptr;
};

// Improves a valid marking (`marks`, costing `cost`) in place and returns its new cost. The
// moves are polish()'s in the optimal search: flip one operation's mark, or an operation's and
// one of its operands' together. A move that costs more (or breaks a limit: infinite cost,
// never taken) is kept with probability exp(-increase / T), T falling linearly, with the time
// or the moves, whichever runs out first, from the larger of 1% of the starting cost and half
// the price of a pass, a fetch and an instruction, to nothing. Improving moves alone stop at
// the first marking none of them improves; annealing crosses such ridges: on Wood/PC2
// (15p+5t+i) RDS and local improvement give 661, the optimal search's dive and exact search
// nothing better in a minute, annealing 644 (starting from 3% of the cost, it wandered above
// 2000 and found 660; from 1% alone, a small DAG in the tests stayed 9 above its optimum). A
// move asks VALID again only about the passes it touches (the flipped nodes' own, and those
// holding or restoring them), not about every pass: Wood's 315,000 moves take 1.1 to 2.6 s in
// the 60 s search, with the machine's speed, within its 6 s share (at 3 s the clock ended it in
// a slow hour, at 659), so the walk ends on its moves and its result does not depend on the
// machine (a fixed seed; when the time runs out first, the temperature follows the time). One
// walk's result is chaotic in its schedule: from RDS's 661 on Wood/PC2, 800 moves per
// operation end at 647, 1,000 and 1,200 at 644, 1,500 at 661, 2,500 at 644.
double anneal(const Problem& p, Backend& backend, const CostModel& model, std::vector<char>& marks, double cost,
              const AnnealOptions& options);

}  // namespace passlab::partition
