// SPDX-License-Identifier: GPL-3.0-or-later
// The IR verifier: structural and SSA invariants, checked after every pass in tests.
#include "core/ir/verifier.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/ir/cfg.h"

namespace passlab::ir {

std::vector<std::string> verify(const Function& fn, const Module* m) {
  std::vector<std::string> errors;
  auto err = [&](std::string s) { errors.push_back("@" + fn.name + ": " + std::move(s)); };
  if (fn.blocks.empty() || fn.blocks[0].removed) {
    err("no entry block");
    return errors;
  }
  // Edges from terminators must match predecessor lists (as multisets).
  std::map<BlockId, std::vector<BlockId>> preds_from_edges;
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    const Block& blk = fn.blocks[b];
    if (blk.removed) continue;
    if (blk.instrs.empty()) {
      err(fmt::format("bb{} is empty", b));
      continue;
    }
    bool phis_done = false;
    for (std::size_t i = 0; i < blk.instrs.size(); ++i) {
      ValueId v = blk.instrs[i];
      if (v >= fn.values.size()) {
        err(fmt::format("bb{} lists unknown value %{}", b, v));
        continue;
      }
      const Instr& in = fn.at(v);
      if (in.removed) err(fmt::format("bb{} lists removed %{}", b, v));
      if (in.block != b) err(fmt::format("%{} is listed in bb{} but records bb{}", v, b, in.block));
      if (in.op == Op::Phi) {
        if (phis_done) err(fmt::format("phi %{} after a non-phi in bb{}", v, b));
        if (in.args.size() != blk.preds.size())
          err(fmt::format("phi %{} has {} operands for {} predecessors", v, in.args.size(), blk.preds.size()));
      } else {
        phis_done = true;
      }
      bool last = i + 1 == blk.instrs.size();
      if (is_terminator(in.op) != last)
        err(last ? fmt::format("bb{} does not end in a terminator", b) : fmt::format("terminator %{} in the middle of bb{}", v, b));
    }
    if (const Instr* t = fn.terminator(b)) {
      for (BlockId s : t->targets) {
        if (s >= fn.blocks.size() || fn.blocks[s].removed) err(fmt::format("bb{} branches to missing bb{}", b, s));
        else preds_from_edges[s].push_back(b);
      }
      if (t->op == Op::Br && t->targets.size() != 1) err(fmt::format("br in bb{} needs one target", b));
      if (t->op == Op::CondBr && (t->targets.size() != 2 || t->args.size() != 1)) err(fmt::format("condbr in bb{} is malformed", b));
    }
  }
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    if (fn.blocks[b].removed) continue;
    auto want = preds_from_edges[b];
    auto have = fn.blocks[b].preds;
    std::sort(want.begin(), want.end());
    std::sort(have.begin(), have.end());
    if (want != have) err(fmt::format("bb{}: predecessor list does not match the branches into it", b));
  }
  if (!errors.empty()) return errors;

  // Operands: present, live, dominating.
  DomTree dom = dominators(fn);
  std::map<ValueId, std::size_t> position;
  for (const Block& blk : fn.blocks)
    for (std::size_t i = 0; i < blk.instrs.size(); ++i) position[blk.instrs[i]] = i;
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    const Block& blk = fn.blocks[b];
    if (blk.removed || !dom.reachable(b)) continue;
    for (ValueId v : blk.instrs) {
      const Instr& in = fn.at(v);
      bool operands_exist = true;
      for (ValueId a : in.args) operands_exist = operands_exist && a < fn.values.size();
      for (std::size_t k = 0; k < in.args.size(); ++k) {
        ValueId a = in.args[k];
        if (a >= fn.values.size() || fn.at(a).removed || !position.count(a)) {
          err(fmt::format("%{} uses missing or removed %{}", v, a));
          continue;
        }
        const Instr& def = fn.at(a);
        if (is_terminator(def.op)) err(fmt::format("%{} uses terminator %{} as a value", v, a));
        BlockId use_block = b;
        if (in.op == Op::Phi) {
          use_block = blk.preds[k];  // a phi operand is used at the end of its predecessor
          if (!dom.reachable(use_block)) continue;
          if (!dom.dominates(def.block, use_block)) err(fmt::format("phi %{} operand %{} does not dominate bb{}", v, a, use_block));
          continue;
        }
        if (def.block == b) {
          if (position[a] >= position[v]) err(fmt::format("%{} uses %{} before its definition", v, a));
        } else if (!dom.dominates(def.block, b)) {
          err(fmt::format("%{} in bb{} uses %{} from bb{}, which does not dominate it", v, b, a, def.block));
        }
      }
      if (!operands_exist) continue;  // reported above; the checks below would read past the end
      auto arity = [&](std::size_t n) {
        if (in.args.size() != n) err(fmt::format("%{} ({}) has {} operands, expected {}", v, to_string(in.op), in.args.size(), n));
      };
      switch (in.op) {
        case Op::Neg: case Op::Not: case Op::Convert: case Op::Extract: arity(1); break;
        case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Dot: case Op::Cross: case Op::MatMul:
        case Op::MatDiv: case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge: case Op::Eq: case Op::Ne:
        case Op::And: case Op::Or: arity(2); break;
        case Op::Select:
          arity(3);
          if (in.args.size() == 3 && fn.at(in.args[0]).type != BaseType::Bool) err(fmt::format("select %{} condition is not bool", v));
          break;
        case Op::MakeTriple: arity(3); break;
        case Op::MakeMatrix: arity(16); break;
        case Op::ShaderParam: arity(1); break;
        case Op::CondBr:
          if (!in.args.empty() && fn.at(in.args[0]).type != BaseType::Bool) err(fmt::format("condbr %{} condition is not bool", v));
          break;
        case Op::Texture:
          if (in.args.empty() || fn.at(in.args[0]).type != BaseType::String) err(fmt::format("texture %{} has no name operand", v));
          break;
        case Op::Ret:
          if (in.args.size() != fn.result_types.size()) err(fmt::format("ret %{} returns {} values, function has {}", v, in.args.size(), fn.result_types.size()));
          break;
        case Op::Call:
          if (m) {
            if (in.aux >= m->functions.size()) err(fmt::format("call %{} to missing function @{}", v, in.aux));
            else if (m->functions[in.aux].arg_types.size() != in.args.size()) err(fmt::format("call %{} passes the wrong number of arguments", v));
          }
          break;
        default: break;
      }
      if (in.op != Op::Phi && in.op != Op::Select && in.op != Op::Convert && in.op != Op::Extract && !is_terminator(in.op))
        for (ValueId a : in.args)
          if (fn.at(a).type == kTuple && in.op != Op::Extract) err(fmt::format("%{} uses a tuple directly", v));
    }
  }
  return errors;
}

std::vector<std::string> verify(const Module& m) {
  std::vector<std::string> errors;
  for (const auto& f : m.functions) {
    auto e = verify(f, &m);
    errors.insert(errors.end(), e.begin(), e.end());
  }
  if (m.entry >= m.functions.size()) errors.push_back("module has no entry function");
  return errors;
}

}  // namespace passlab::ir
