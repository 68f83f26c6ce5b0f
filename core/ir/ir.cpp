// SPDX-License-Identifier: GPL-3.0-or-later
// The SSA IR: typed values in basic blocks with phi nodes, one Function per shader or function.
#include "core/ir/ir.h"

#include <algorithm>

namespace passlab::ir {

const char* to_string(Freq f) {
  switch (f) {
    case Freq::Constant: return "constant";
    case Freq::Uniform: return "uniform";
    case Freq::Varying: return "varying";
  }
  return "?";
}

const char* to_string(Op op) {
  switch (op) {
    case Op::Const: return "const";
    case Op::ShaderParam: return "param";
    case Op::Arg: return "arg";
    case Op::Global: return "global";
    case Op::Undef: return "undef";
    case Op::Neg: return "neg";
    case Op::Add: return "add";
    case Op::Sub: return "sub";
    case Op::Mul: return "mul";
    case Op::Div: return "div";
    case Op::Dot: return "dot";
    case Op::Cross: return "cross";
    case Op::MatMul: return "matmul";
    case Op::MatDiv: return "matdiv";
    case Op::Lt: return "lt";
    case Op::Gt: return "gt";
    case Op::Le: return "le";
    case Op::Ge: return "ge";
    case Op::Eq: return "eq";
    case Op::Ne: return "ne";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Not: return "not";
    case Op::Select: return "select";
    case Op::Convert: return "convert";
    case Op::MakeTriple: return "triple";
    case Op::MakeMatrix: return "matrix";
    case Op::Builtin: return "call";
    case Op::Texture: return "texture";
    case Op::Call: return "callf";
    case Op::Extract: return "extract";
    case Op::Phi: return "phi";
    case Op::Output: return "output";
    case Op::Outputs: return "outputs";
    case Op::ScreenDiff: return "screendiff";
    case Op::Neighbour: return "neighbour";
    case Op::Loop: return "loop";
    case Op::LoopValue: return "loopvalue";
    case Op::Br: return "br";
    case Op::CondBr: return "condbr";
    case Op::Ret: return "ret";
  }
  return "?";
}

bool is_terminator(Op op) { return op == Op::Br || op == Op::CondBr || op == Op::Ret; }

ValueId Function::add(Instr instr) {
  values.push_back(std::move(instr));
  return static_cast<ValueId>(values.size() - 1);
}

ValueId Function::append(BlockId b, Instr instr) {
  instr.block = b;
  ValueId v = add(std::move(instr));
  blocks[b].instrs.push_back(v);
  return v;
}

ValueId Function::insert_front(BlockId b, Instr instr) {
  instr.block = b;
  ValueId v = add(std::move(instr));
  auto& list = blocks[b].instrs;
  auto it = std::find_if(list.begin(), list.end(), [&](ValueId x) { return values[x].op != Op::Phi; });
  list.insert(it, v);
  return v;
}

BlockId Function::add_block() {
  blocks.emplace_back();
  return static_cast<BlockId>(blocks.size() - 1);
}

const Instr* Function::terminator(BlockId b) const {
  const auto& list = blocks[b].instrs;
  if (list.empty()) return nullptr;
  const Instr& last = values[list.back()];
  return is_terminator(last.op) ? &last : nullptr;
}

std::vector<BlockId> Function::successors(BlockId b) const {
  const Instr* t = terminator(b);
  return t ? t->targets : std::vector<BlockId>{};
}

void Function::replace_all_uses(ValueId from, ValueId to) {
  for (auto& in : values) {
    if (in.removed) continue;
    for (auto& a : in.args)
      if (a == from) a = to;
  }
}

void Function::remove_edge(BlockId from, BlockId to) {
  auto& preds = blocks[to].preds;
  auto it = std::find(preds.begin(), preds.end(), from);
  if (it == preds.end()) return;
  auto index = static_cast<std::size_t>(it - preds.begin());
  preds.erase(it);
  for (ValueId v : blocks[to].instrs) {
    Instr& in = values[v];
    if (in.op != Op::Phi) break;
    if (index < in.args.size()) in.args.erase(in.args.begin() + static_cast<std::ptrdiff_t>(index));
  }
}

void Function::compact() {
  for (auto& b : blocks) {
    if (b.removed) {
      for (ValueId v : b.instrs) values[v].removed = true;
      b.instrs.clear();
      b.preds.clear();
      continue;
    }
    std::erase_if(b.instrs, [&](ValueId v) { return values[v].removed; });
  }
}

}  // namespace passlab::ir
