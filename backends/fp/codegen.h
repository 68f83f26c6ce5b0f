// SPDX-License-Identifier: GPL-3.0-or-later
// Per-pass code generation for the fp target: scheduling, register allocation, resource counts,
// and `!!ARBfp1.0` listings. This is the backend's VALID.
#pragma once

#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "backends/fp/target_dag.h"
#include "core/partition/problem.h"

namespace passlab::fp {

struct PassProgram {
  TNodeId root = 0;                       // the last of `outputs`
  // The values the pass writes, in id order, output k to result.color[k] (one: result.color). An
  // output that a member reads too is computed into a temporary and copied out (a MOV, counted).
  std::vector<TNodeId> outputs;
  std::vector<char> copied_out;           // parallel to outputs: the MOV above
  std::vector<TNodeId> schedule;          // restores and member instructions, in issue order
  std::vector<char> is_restore;           // parallel to schedule
  std::vector<int> reg;                   // parallel to schedule: the temporary written (-1: an output)
  std::vector<TNodeId> interpolants;      // distinct interpolant leaves read, in first-use order
  std::vector<std::string> textures;      // distinct texture names sampled, in first-use order
  partition::Resources resources;
  std::string failure;                    // the first limit exceeded, "" when the pass fits
};

// Scratch arrays indexed by node, reused across calls (VALID runs thousands of times per search).
struct PassWorkspace {
  std::vector<std::uint32_t> stamp, done;
  std::vector<int> need, reg, level;
  std::vector<std::uint32_t> last_use;
  std::vector<std::uint32_t> interp_seen;
  std::vector<std::uint32_t> output;  // == epoch: an output of the pass being generated
  std::uint32_t epoch = 0;
  // The depth-first walk: a member, where its ordered operands start in `order`, the next one.
  struct Frame {
    TNodeId node;
    std::uint32_t begin, next;
  };
  std::vector<Frame> stack;
  std::vector<int> free_regs;
  std::vector<int> kid_needs;
  std::vector<TNodeId> order;
  std::vector<std::string_view> names;
  void prepare(std::size_t n);
};

// Generates the pass that computes `root` from `members` (root included); operations read by
// members but not in `members` are restored. Linear in the members (plus a sort per node).
PassProgram generate_pass(const TargetDag& t, TNodeId root, const std::vector<TNodeId>& members,
                          const partition::Limits& limits, bool restore_uses_interpolant, PassWorkspace* ws = nullptr);
// The same into `out`, whose buffers are reused (VALID runs thousands of times per search).
void generate_pass(const TargetDag& t, TNodeId root, const std::vector<TNodeId>& members,
                   const partition::Limits& limits, bool restore_uses_interpolant, PassWorkspace& ws, PassProgram& out);
// A pass writing several values (multiple render targets): `outputs` in id order, `members` the
// union of their subregions. Each output is scheduled depth first in id order.
void generate_pass(const TargetDag& t, const std::vector<TNodeId>& outputs, const std::vector<TNodeId>& members,
                   const partition::Limits& limits, bool restore_uses_interpolant, PassWorkspace& ws, PassProgram& out);

// What a listing needs to know about the other passes: where saved values live.
struct ListingContext {
  int pass_index = 0, pass_count = 1;
  std::map<TNodeId, int> saved_texture;  // node -> intermediate texture holding its value
  std::map<TNodeId, int> saved_by_pass;  // node -> the pass that computes it
};
std::string listing(const TargetDag& t, const PassProgram& p, const ListingContext& ctx);

// The partitioning problem over a target DAG.
partition::Problem make_problem(const TargetDag& t);

class FpBackend : public partition::Backend {
 public:
  FpBackend(const TargetDag& t, const partition::TargetDesc& target);
  partition::Check valid(partition::NodeId root, const std::vector<partition::NodeId>& members) override;
  partition::Check valid_outputs(const std::vector<partition::NodeId>& outputs, const std::vector<partition::NodeId>& members) override;
  const partition::Limits& limits() const override { return target_.limits; }
  const TargetDag& dag() const { return t_; }
  const partition::TargetDesc& target() const { return target_; }
  long valid_calls() const { return calls_; }

 private:
  const TargetDag& t_;
  partition::TargetDesc target_;
  long calls_ = 0;
  PassWorkspace ws_;
  PassProgram program_;  // VALID's scratch program
  // member_registers(): every node's users, and scratch indexed by node or schedule position.
  std::vector<std::vector<TNodeId>> users_;
  std::vector<std::uint32_t> in_, held_, pos_;
  std::uint32_t epoch_ = 0;
  std::vector<int> sweep_;
  int member_registers(TNodeId root, const std::vector<TNodeId>& members);
};

}  // namespace passlab::fp
