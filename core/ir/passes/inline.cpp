// SPDX-License-Identifier: GPL-3.0-or-later
// Inlining: every call in the entry function is replaced by a copy of the callee's body.
//
// The block holding the call is split after the call; the callee's blocks are cloned with its
// arguments replaced by the call's operands; each `ret` becomes a branch to the continuation,
// where a phi (or the single returned value) replaces the call's results. Calls inside the
// cloned body are found again by the worklist, so nested calls inline too (RSL has no recursion,
// which sema enforces; a depth limit guards the invariant anyway).
#include <algorithm>
#include <stdexcept>

#include "core/ir/passes/pass.h"

namespace passlab::ir {

namespace {

ValueId find_call(const Function& fn) {
  for (const Block& b : fn.blocks) {
    if (b.removed) continue;
    for (ValueId v : b.instrs)
      if (fn.at(v).op == Op::Call && !fn.at(v).removed) return v;
  }
  return kNoValue;
}

void inline_one(Function& fn, ValueId call_id, const Function& callee) {
  Instr call = fn.at(call_id);
  BlockId b = call.block;
  // Split: everything after the call moves to a new continuation block.
  BlockId cont = fn.add_block();
  auto& list = fn.blocks[b].instrs;
  auto pos = std::find(list.begin(), list.end(), call_id);
  std::vector<ValueId> tail(pos + 1, list.end());
  list.erase(pos, list.end());
  for (ValueId v : tail) fn.at(v).block = cont;
  fn.blocks[cont].instrs = tail;
  for (BlockId s : fn.successors(cont))
    for (BlockId& p : fn.blocks[s].preds)
      if (p == b) p = cont;

  // Clone the callee.
  std::vector<BlockId> block_map(callee.blocks.size());
  for (std::size_t i = 0; i < callee.blocks.size(); ++i) block_map[i] = fn.add_block();
  std::vector<ValueId> value_map(callee.values.size(), kNoValue);
  std::vector<std::pair<BlockId, std::vector<ValueId>>> returns;
  // First pass: create every value so forward references (phis) can be remapped.
  for (std::size_t bi = 0; bi < callee.blocks.size(); ++bi) {
    const Block& cb = callee.blocks[bi];
    if (cb.removed) {
      fn.blocks[block_map[bi]].removed = true;
      continue;
    }
    for (ValueId v : cb.instrs) {
      const Instr& in = callee.at(v);
      if (in.op == Op::Arg) {
        value_map[v] = call.args.at(in.aux);
        continue;
      }
      if (in.op == Op::Ret) continue;
      Instr copy = in;
      value_map[v] = fn.append(block_map[bi], std::move(copy));
    }
  }
  for (std::size_t bi = 0; bi < callee.blocks.size(); ++bi) {
    const Block& cb = callee.blocks[bi];
    if (cb.removed) continue;
    Block& nb = fn.blocks[block_map[bi]];
    for (BlockId p : cb.preds) nb.preds.push_back(block_map[p]);
    for (ValueId v : cb.instrs) {
      const Instr& in = callee.at(v);
      if (in.op == Op::Arg) continue;
      if (in.op == Op::Ret) {
        std::vector<ValueId> vals;
        for (ValueId a : in.args) vals.push_back(value_map.at(a));
        returns.push_back({block_map[bi], vals});
        Instr br;
        br.op = Op::Br;
        br.type = BaseType::Void;
        br.targets = {cont};
        br.span = in.span;
        fn.append(block_map[bi], std::move(br));
        fn.blocks[cont].preds.push_back(block_map[bi]);
        continue;
      }
      Instr& out = fn.at(value_map[v]);
      for (ValueId& a : out.args) a = value_map.at(a);
      for (BlockId& t : out.targets) t = block_map.at(t);
    }
  }
  // The call's block jumps into the clone's entry.
  Instr br;
  br.op = Op::Br;
  br.type = BaseType::Void;
  br.targets = {block_map[0]};
  fn.append(b, std::move(br));
  fn.blocks[block_map[0]].preds.push_back(b);

  // Results: one value per result, a phi when several returns reach the continuation.
  std::vector<ValueId> results;
  for (std::size_t r = 0; r < callee.result_types.size(); ++r) {
    if (returns.size() == 1) {
      results.push_back(returns[0].second[r]);
      continue;
    }
    Instr phi;
    phi.op = Op::Phi;
    phi.type = callee.result_types[r];
    for (BlockId p : fn.blocks[cont].preds)
      for (auto& [rb, vals] : returns)
        if (rb == p) phi.args.push_back(vals[r]);
    phi.block = cont;
    ValueId pv = fn.add(std::move(phi));
    fn.blocks[cont].instrs.insert(fn.blocks[cont].instrs.begin(), pv);
    results.push_back(pv);
  }
  // Replace uses: the call itself (single result) and its extracts.
  fn.at(call_id).removed = true;
  for (auto& in : fn.values) {
    if (in.removed) continue;
    if (in.op == Op::Extract && !in.args.empty() && in.args[0] == call_id) {
      in.op = Op::Convert;  // a no-op copy of the result; copy propagation removes it
      in.args = {results.at(in.aux)};
      in.aux = 0;
    }
  }
  if (results.size() == 1) fn.replace_all_uses(call_id, results[0]);  // a void call has no users
}

// Instructions in a function (its size for the inlining limit).
std::size_t size_of(const Function& fn) {
  std::size_t n = 0;
  for (const Block& b : fn.blocks)
    if (!b.removed)
      for (ValueId v : b.instrs) n += fn.at(v).op != Op::Phi && fn.at(v).op != Op::Arg;
  return n;
}

// Functions that can reach themselves through calls.
std::vector<bool> recursive_functions(const Module& m) {
  const std::size_t n = m.functions.size();
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::size_t f = 0; f < n; ++f)
    for (const Instr& in : m.functions[f].values)
      if (!in.removed && in.op == Op::Call && in.aux < n) reach[f][in.aux] = true;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i)
      if (reach[i][k])
        for (std::size_t j = 0; j < n; ++j)
          if (reach[k][j]) reach[i][j] = true;
  std::vector<bool> out(n);
  for (std::size_t f = 0; f < n; ++f) out[f] = reach[f][f];
  return out;
}

}  // namespace

bool inline_small_calls(Module& m, std::size_t limit, PassStats& stats) {
  if (limit == 0) return false;
  const std::vector<bool> recursive = recursive_functions(m);
  bool changed = false;
  for (std::size_t f = 0; f < m.functions.size(); ++f) {
    Function& fn = m.functions[f];
    for (int guard = 0; guard < 10000; ++guard) {
      ValueId call = kNoValue;
      for (const Block& b : fn.blocks) {
        if (b.removed) continue;
        for (ValueId v : b.instrs) {
          const Instr& in = fn.at(v);
          if (in.op != Op::Call || in.removed || in.aux >= m.functions.size() || in.aux == f || recursive[in.aux]) continue;
          if (size_of(m.functions[in.aux]) <= limit) {
            call = v;
            break;
          }
        }
        if (call != kNoValue) break;
      }
      if (call == kNoValue) break;
      const Function callee = m.functions[fn.at(call).aux];  // a copy: inlining may grow m.functions' storage
      inline_one(fn, call, callee);
      ++stats["inline.calls"];
      changed = true;
    }
    fn.compact();
  }
  return changed;
}

bool inline_calls(Module& m, PassStats& stats) {
  Function& fn = m.shader();
  bool changed = false;
  for (int guard = 0; guard < 100000; ++guard) {
    ValueId call = find_call(fn);
    if (call == kNoValue) break;
    std::uint32_t callee = fn.at(call).aux;
    if (callee >= m.functions.size() || callee == m.entry) throw std::logic_error("inline: call to an invalid function");
    inline_one(fn, call, m.functions[callee]);
    ++stats["inline.calls"];
    changed = true;
  }
  if (find_call(fn) != kNoValue) throw std::logic_error("inline: too many nested calls");
  fn.compact();
  // Only the shader remains: every other function is now dead.
  if (m.functions.size() > 1) {
    Function keep = std::move(m.functions[m.entry]);
    m.functions.clear();
    m.functions.push_back(std::move(keep));
    m.entry = 0;
    changed = true;
  }
  return changed;
}

}  // namespace passlab::ir
