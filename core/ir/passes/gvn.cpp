// SPDX-License-Identifier: GPL-3.0-or-later
// Global value numbering: a value equal to one computed in a dominating position is reused.
//
// Walks the dominator tree with a scoped table keyed by operation, type, attributes and operand
// value numbers (operands of commutative operations sorted), in the style of the dominator-based
// scheme of Briggs, Cooper and Simpson ("Value Numbering", SP&E 1997).
#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "core/ir/cfg.h"
#include "core/ir/passes/pass.h"

namespace passlab::ir {

namespace {

// Constants compare by bit pattern: 0 and -0 differ, and NaN equals only the same NaN.
using Key = std::tuple<Op, BaseType, std::uint32_t, std::string, std::vector<std::uint32_t>, std::vector<ValueId>, BlockId>;

std::vector<std::uint32_t> bits(const std::vector<float>& data) {
  std::vector<std::uint32_t> out(data.size());
  if (!data.empty()) std::memcpy(out.data(), data.data(), data.size() * sizeof(float));
  return out;
}

bool commutative(Op op) {
  return op == Op::Add || op == Op::Mul || op == Op::Dot || op == Op::Eq || op == Op::Ne || op == Op::And || op == Op::Or;
}

bool numberable(const Instr& in) {
  switch (in.op) {
    case Op::Br: case Op::CondBr: case Op::Ret: case Op::Call: case Op::Extract: return false;
    default: return true;
  }
}

}  // namespace

bool gvn(Function& fn, PassStats& stats) {
  DomTree dom = dominators(fn);
  std::vector<std::vector<BlockId>> children(fn.blocks.size());
  for (BlockId b = 0; b < fn.blocks.size(); ++b)
    if (dom.reachable(b) && dom.idom[b] != b) children[dom.idom[b]].push_back(b);
  std::map<Key, ValueId> table;
  bool changed = false;
  // Explicit stack of (block, keys added in it) so deep CFGs cannot overflow the call stack.
  struct Frame {
    BlockId b;
    std::size_t next_child = 0;
    std::vector<Key> added;
  };
  std::vector<Frame> stack;
  stack.push_back(Frame{0, 0, {}});
  bool entered = false;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (!entered) {
      for (ValueId v : fn.blocks[f.b].instrs) {
        Instr& in = fn.at(v);
        if (in.removed || !numberable(in)) continue;
        std::vector<ValueId> args = in.args;
        if (commutative(in.op) && args.size() == 2 && args[1] < args[0]) std::swap(args[0], args[1]);
        // Phis are only equal within one block (their operands are per edge).
        BlockId where = in.op == Op::Phi ? f.b : kNoBlock;
        Key k{in.op, in.type, in.aux, in.text, bits(in.data), args, where};
        auto it = table.find(k);
        if (it != table.end()) {
          fn.replace_all_uses(v, it->second);
          in.removed = true;
          ++stats["gvn.removed"];
          changed = true;
        } else {
          table[k] = v;
          f.added.push_back(k);
        }
      }
    }
    if (f.next_child < children[f.b].size()) {
      BlockId c = children[f.b][f.next_child++];
      stack.push_back(Frame{c, 0, {}});
      entered = false;
      continue;
    }
    for (const Key& k : f.added) table.erase(k);
    stack.pop_back();
    entered = true;
  }
  fn.compact();
  return changed;
}

}  // namespace passlab::ir
