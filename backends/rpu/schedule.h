// SPDX-License-Identifier: GPL-3.0-or-later
// Instruction scheduling (thesis ch. 9): forward list scheduling of each basic block, after
// register allocation.
//
// A block is cut at every instruction that cannot move (call, trace, store; a branch ends it).
// Within a piece, B depends on A (RAW, WAR or WAW; writes to the junk register R15 make none)
// and cannot start until A has finished. pathlen(i) = latency(i) + the longest pathlen of its
// successors. From cycle 1, each cycle: the ready instructions (every predecessor finished);
// none -> a stall (the hardware switches thread); else keep those with the longest path, then
// those with the most direct successors, then the longest latency, and issue the first in
// program order. An instruction issued in cycle c with latency L is finished from cycle c + L.
//
// Beyond the thesis (its §9.3 describes the change): with pairing, after choosing an
// instruction the scheduler looks, in the same priority order, for a ready instruction that
// can share the word as a 3/1 or 2/2 pair, and issues both in the cycle.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"
#include "backends/rpu/liveness.h"
#include "backends/rpu/machine.h"

namespace passlab::rpu {

// The scheduler's view of one instruction: what it reads and writes, its latency, and (for
// pairing) the operation.
struct SchedNode {
  std::vector<Loc> reads, writes;
  int latency = 1;
  Operation op;  // pairing looks at its lanes; op None: never paired
  std::string text;
};

struct CycleRow {
  int cycle = 0;
  std::vector<int> became_available;  // instructions whose results became readable this cycle
  std::vector<int> candidates;        // ready instructions (indices in program order)
  std::vector<int> issued;            // one, two (a pair) or none (a stall)
};

struct BlockSchedule {
  std::uint32_t block = 0;                 // the function's block it belongs to
  std::vector<std::string> text;           // per instruction (program order): its text
  std::vector<int> order;                  // program-order indices in issue order
  std::vector<int> issue;                  // per instruction: its cycle (from 1)
  std::vector<int> pair_of;                // per instruction: its partner in a pair, or -1
  std::vector<int> path, successors, latency;
  std::vector<std::vector<int>> deps;      // per instruction: the instructions it waits for
  std::vector<CycleRow> table;             // the thesis's Figure 9.1, cycle by cycle
  int cycles = 0;                          // until the last result is ready
  int unscheduled_cycles = 0;              // the same block issued in program order
};

struct ScheduleOptions {
  bool pair = false;  // pair 3/1 and 2/2 when the machine allows it
};

// Schedules one block of movable instructions.
BlockSchedule schedule_block(const std::vector<SchedNode>& nodes, const Machine& m, const ScheduleOptions& options);

// A block issued in the order given (a student's, in the Studio's scheduling exercise): each
// instruction of `order` (program-order indices) issues in the first cycle after the one before
// it in which its predecessors have finished, stalling until then; one instruction a cycle (no
// pairing). The table, cycles and the rest are as schedule_block's for the same block `scheduled`
// (its dependencies, latencies and path lengths); the scheduler's own order gives its own table
// back when it paired nothing. Nullopt, with the reason in *problem, for an order that is not a
// permutation of the block's instructions or puts an instruction before one it depends on.
std::optional<BlockSchedule> schedule_in_order(const BlockSchedule& scheduled, const std::vector<int>& order, std::string* problem);

struct FunctionSchedule {
  std::vector<BlockSchedule> pieces;  // every scheduled piece of every block, in block order
  int cycles = 0, unscheduled_cycles = 0, pairs = 0;
};

// Schedules every block of an allocated function in place (pairs become one word).
FunctionSchedule schedule_function(AsmFunction& f, const Machine& m, const ScheduleOptions& options, AsmStats& stats);

// The cycle table as text, with the instructions' texts (the nodes' or, without them, the
// schedule's own).
std::string schedule_table_text(const BlockSchedule& s, const std::vector<SchedNode>& nodes);
std::string schedule_table_text(const BlockSchedule& s);

}  // namespace passlab::rpu
