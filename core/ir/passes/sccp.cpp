// SPDX-License-Identifier: GPL-3.0-or-later
// Sparse conditional constant propagation (Wegman & Zadeck, TOPLAS 1991).
//
// Values start at "unknown" and only move down the lattice unknown -> constant -> overdefined;
// blocks become executable only along edges whose branch condition can take that direction.
// Afterwards constant values become `const` instructions, branches on constants become jumps and
// blocks that never became executable are deleted. Folding uses the shared evaluator, so the
// compile-time result is bit-identical to what the interpreter computes at run time.
#include <algorithm>
#include <cstring>
#include <deque>
#include <set>

#include "core/ir/passes/pass.h"
#include "core/ir/value.h"

namespace passlab::ir {

namespace {

enum class Level : std::uint8_t { Unknown, Const, Over };

struct Cell {
  Level level = Level::Unknown;
  Value value;
};

bool same(const Value& a, const Value& b) {
  if (a.type != b.type || a.s != b.s) return false;
  int n = std::max(1, lang::component_count(a.type));
  for (int i = 0; i < n; ++i)
    if (std::memcmp(&a.f[i], &b.f[i], sizeof(float)) != 0) return false;  // bitwise: NaN == NaN, -0 != 0
  return true;
}

bool foldable(const Instr& in) {
  switch (in.op) {
    case Op::ShaderParam: case Op::Arg: case Op::Global: case Op::Call: case Op::Extract: case Op::Texture:
    case Op::Phi: case Op::Br: case Op::CondBr: case Op::Ret:
      return false;
    case Op::Builtin: {
      auto id = static_cast<lang::Builtin>(in.aux);
      // Named spaces are part of the binding, not of the module: leave those transforms to
      // whoever binds them (the flattener folds them with the light setup's matrices).
      if (id == lang::Builtin::Transform || id == lang::Builtin::Vtransform || id == lang::Builtin::Ntransform) return false;
      return !lang::signature_of(id).derivative && !lang::signature_of(id).needs_lights;
    }
    default: return in.type != kTuple;
  }
}

// What the propagation found: each value's lattice cell, the CFG edges that can run, and the
// blocks that can.
struct Lattice {
  std::vector<Cell> cells;
  std::set<std::pair<BlockId, BlockId>> live_edges;
  std::vector<char> executable;
};

// Wegman and Zadeck's propagation over values and CFG edges at once.
Lattice propagate(const Function& fn) {
  Lattice r;
  std::vector<Cell>& cells = r.cells;
  std::set<std::pair<BlockId, BlockId>>& live_edges = r.live_edges;
  std::vector<char>& executable = r.executable;
  cells.resize(fn.values.size());
  executable.assign(fn.blocks.size(), 0);
  std::vector<std::vector<ValueId>> users(fn.values.size());
  for (ValueId v = 0; v < fn.values.size(); ++v)
    if (!fn.at(v).removed)
      for (ValueId a : fn.at(v).args) users[a].push_back(v);

  std::deque<std::pair<BlockId, BlockId>> edge_work;
  std::deque<ValueId> value_work;
  EvalContext ctx;

  auto lower = [&](ValueId v, Level l, const Value& val) {
    Cell& c = cells[v];
    if (c.level == Level::Over || (c.level == l && (l != Level::Const || same(c.value, val)))) return;
    if (c.level == Level::Const && l == Level::Const) l = Level::Over;  // two different constants
    c.level = l;
    if (l == Level::Const) c.value = val;
    value_work.push_back(v);
  };

  auto visit = [&](ValueId v) {
    const Instr& in = fn.at(v);
    BlockId b = in.block;
    if (!executable[b]) return;
    if (in.op == Op::Phi) {
      const auto& preds = fn.blocks[b].preds;
      Level l = Level::Unknown;
      Value val;
      for (std::size_t k = 0; k < in.args.size() && k < preds.size(); ++k) {
        if (!live_edges.count({preds[k], b})) continue;
        const Cell& c = cells[in.args[k]];
        if (c.level == Level::Over) { l = Level::Over; break; }
        if (c.level == Level::Const) {
          if (l == Level::Const && !same(val, c.value)) { l = Level::Over; break; }
          l = Level::Const;
          val = c.value;
        }
      }
      if (l != Level::Unknown) lower(v, l, val);
      return;
    }
    if (in.op == Op::Br) {
      edge_work.push_back({b, in.targets[0]});
      return;
    }
    if (in.op == Op::CondBr) {
      const Cell& c = cells[in.args[0]];
      if (c.level == Level::Const) edge_work.push_back({b, c.value.truth() ? in.targets[0] : in.targets[1]});
      else if (c.level == Level::Over) {
        edge_work.push_back({b, in.targets[0]});
        edge_work.push_back({b, in.targets[1]});
      }
      return;
    }
    if (in.op == Op::Ret) return;
    if (in.op == Op::Const || in.op == Op::Undef) {
      lower(v, Level::Const, evaluate(in.op, in.type, in.aux, in.text, in.data, {}, ctx));
      return;
    }
    if (!foldable(in)) {
      lower(v, Level::Over, {});
      return;
    }
    std::vector<const Value*> ops;
    for (ValueId a : in.args) {
      const Cell& c = cells[a];
      if (c.level == Level::Over) {
        lower(v, Level::Over, {});
        return;
      }
      if (c.level == Level::Unknown) return;
      ops.push_back(&c.value);
    }
    lower(v, Level::Const, evaluate(in.op, in.type, in.aux, in.text, in.data, ops, ctx));
  };

  edge_work.push_back({kNoValue, 0});
  while (!edge_work.empty() || !value_work.empty()) {
    while (!edge_work.empty()) {
      auto [from, to] = edge_work.front();
      edge_work.pop_front();
      if (from != kNoValue) {
        if (live_edges.count({from, to})) continue;
        live_edges.insert({from, to});
      }
      bool first = !executable[to];
      executable[to] = 1;
      for (ValueId v : fn.blocks[to].instrs)
        if (first || fn.at(v).op == Op::Phi) visit(v);
    }
    while (!value_work.empty()) {
      ValueId v = value_work.front();
      value_work.pop_front();
      for (ValueId u : users[v]) visit(u);
    }
  }
  return r;
}

// Rewrites the constants in place (keeping spans, so the editor still finds where they came from)
// and moves the phis that became constants behind their block's phi group.
bool fold_constants(Function& fn, const Lattice& r, PassStats& stats) {
  bool changed = false;
  for (ValueId v = 0; v < fn.values.size(); ++v) {
    Instr& in = fn.at(v);
    if (in.removed || r.cells[v].level != Level::Const || in.op == Op::Const) continue;
    if (!r.executable[in.block] || is_terminator(in.op) || in.type == kTuple) continue;
    const Value& val = r.cells[v].value;
    in.op = Op::Const;
    in.args.clear();
    in.aux = 0;
    if (val.type == BaseType::String) {
      in.text = val.s;
      in.data.clear();
    } else {
      in.text.clear();
      in.data.assign(val.f.begin(), val.f.begin() + std::max(1, lang::component_count(val.type)));
    }
    ++stats["sccp.folded"];
    changed = true;
  }
  // Constant phis are now consts sitting among phis; move them behind the phi group.
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    auto& list = fn.blocks[b].instrs;
    std::stable_partition(list.begin(), list.end(), [&](ValueId v) { return fn.at(v).op == Op::Phi; });
  }
  return changed;
}

// Branches on constants become jumps.
bool fold_branches(Function& fn, const Lattice& r, PassStats& stats) {
  bool changed = false;
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    if (fn.blocks[b].removed || !r.executable[b] || fn.blocks[b].instrs.empty()) continue;
    Instr& t = fn.at(fn.blocks[b].instrs.back());
    if (t.op != Op::CondBr) continue;
    bool to_true = r.live_edges.count({b, t.targets[0]}) > 0;
    bool to_false = r.live_edges.count({b, t.targets[1]}) > 0;
    if (to_true && to_false) continue;
    BlockId keep = to_true ? t.targets[0] : t.targets[1];
    BlockId drop = to_true ? t.targets[1] : t.targets[0];
    fn.remove_edge(b, drop);  // when both targets are one block, one of its two edges goes
    t.op = Op::Br;
    t.args.clear();
    t.targets = {keep};
    ++stats["sccp.branches"];
    changed = true;
  }
  return changed;
}

// Blocks that never executed disappear, with their edges into live blocks.
bool drop_unreached(Function& fn, const Lattice& r, PassStats& stats) {
  bool changed = false;
  for (BlockId b = 0; b < fn.blocks.size(); ++b) {
    if (fn.blocks[b].removed || r.executable[b]) continue;
    for (BlockId s : fn.successors(b)) fn.remove_edge(b, s);
    fn.blocks[b].removed = true;
    ++stats["sccp.blocks"];
    changed = true;
  }
  return changed;
}

}  // namespace

bool sccp(Function& fn, PassStats& stats) {
  const Lattice r = propagate(fn);
  bool changed = fold_constants(fn, r, stats);
  changed = fold_branches(fn, r, stats) || changed;
  changed = drop_unreached(fn, r, stats) || changed;
  fn.compact();
  return changed;
}

}  // namespace passlab::ir
