// SPDX-License-Identifier: GPL-3.0-or-later
// Per-pass code generation for the fp target: scheduling, register allocation, resource counts,
// and `!!ARBfp1.0` listings. This is the backend's VALID.
//
// A pass computes its root from its members. Members are scheduled depth first from the root,
// the operand needing more registers first (Sethi & Ullman), so that a tree needs as few
// temporaries as the order allows. A restore (a TEX from the intermediate texture that holds an
// operand computed by an earlier pass) is issued just before its first use. Registers are then
// allocated over that order with a free list: a value occupies a temporary from its definition
// to its last use, an instruction may write the register one of its dying operands frees, and
// the root writes result.color directly. What is counted is what the paper's Table 5 counts:
// every instruction including fetches and restores, peak temporaries, texture units (one per
// named texture and one per restored value), interpolants, and dependent-texture levels.
#include "backends/fp/codegen.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <optional>
#include <set>
#include <unordered_set>

namespace passlab::fp {

namespace {

bool is_op(const TargetDag& t, TNodeId n) { return t.is_operation(n); }

}  // namespace

void PassWorkspace::prepare(std::size_t n) {
  if (stamp.size() < n) {
    stamp.assign(n, 0);
    done.assign(n, 0);
    need.assign(n, 0);
    reg.assign(n, -1);
    level.assign(n, -1);
    last_use.assign(n, 0);
    interp_seen.assign(n, 0);
    output.assign(n, 0);
    epoch = 0;
  }
  if (++epoch == 0) {  // wrapped: clear and start again
    std::fill(stamp.begin(), stamp.end(), 0);
    std::fill(done.begin(), done.end(), 0);
    std::fill(interp_seen.begin(), interp_seen.end(), 0);
    std::fill(output.begin(), output.end(), 0);
    epoch = 1;
  }
}

PassProgram generate_pass(const TargetDag& t, TNodeId root, const std::vector<TNodeId>& members,
                          const partition::Limits& limits, bool restore_uses_interpolant, PassWorkspace* shared) {
  PassWorkspace local;
  PassProgram p;
  generate_pass(t, root, members, limits, restore_uses_interpolant, shared ? *shared : local, p);
  return p;
}

namespace {

// The pass's register need per member: Sethi-Ullman over its own operands (a restore needs one
// register, a leaf none). Members sorted by id are in operand-first order.
struct PassNeeds {
  const TargetDag& t;
  PassWorkspace& w;
  std::uint32_t e;
  bool member(TNodeId n) const { return w.stamp[n] == e; }
  int need_of(TNodeId n) const {
    if (!member(n)) return is_op(t, n) ? 1 : 0;
    return w.need[n];
  }
};

void compute_needs(const PassNeeds& pn, TNodeId root, const std::vector<TNodeId>& members) {
  const TargetDag& t = pn.t;
  PassWorkspace& w = pn.w;
  auto need_of = [&](TNodeId n) { return pn.need_of(n); };
  // Subregions arrive sorted with their root; copy and sort only what does not.
  std::vector<TNodeId> copy;
  bool ready = std::is_sorted(members.begin(), members.end()) && std::binary_search(members.begin(), members.end(), root);
  if (!ready) {
    copy.assign(members.begin(), members.end());
    if (std::find(copy.begin(), copy.end(), root) == copy.end()) copy.push_back(root);
    std::sort(copy.begin(), copy.end());
  }
  const std::vector<TNodeId>& sorted = ready ? members : copy;
  std::vector<int>& kids = w.kid_needs;
  for (TNodeId n : sorted) {
    kids.clear();
    for (TNodeId c : t.operand_nodes(n)) kids.push_back(need_of(c));
    std::sort(kids.begin(), kids.end(), std::greater<int>());
    int r = 1;
    for (std::size_t i = 0; i < kids.size(); ++i) r = std::max(r, kids[i] + static_cast<int>(i));
    w.need[n] = r;
  }
}

// The schedule: depth first from each output in id order, needier operands first; restores
// before first use.
void schedule_pass(const PassNeeds& pn, const TNodeId* roots, std::size_t count, PassProgram& p) {
  const TargetDag& t = pn.t;
  PassWorkspace& w = pn.w;
  const std::uint32_t e = pn.e;
  auto need_of = [&](TNodeId n) { return pn.need_of(n); };
  auto member = [&](TNodeId n) { return pn.member(n); };
  // A member's operands are ordered once, when it is entered, into `order` (a stack beside the
  // frames: a frame's operands are dropped when it leaves).
  std::vector<TNodeId>& order = w.order;
  order.clear();
  w.stack.clear();
  auto enter = [&](TNodeId n) {
    const auto& deps = t.operand_nodes(n);
    const auto begin = static_cast<std::uint32_t>(order.size());
    order.insert(order.end(), deps.begin(), deps.end());
    TNodeId* o = order.data() + begin;
    // Stable insertion sort: operand lists have at most a few entries.
    for (std::size_t x = 1; x < deps.size(); ++x)
      for (std::size_t y = x; y > 0 && need_of(o[y]) > need_of(o[y - 1]); --y) std::swap(o[y], o[y - 1]);
    w.stack.push_back({n, begin, begin});
  };
  for (std::size_t k = 0; k < count; ++k) {
  const TNodeId root = roots[k];
  if (w.done[root] == e) continue;  // computed for an earlier output, which reads it
  enter(root);
  w.done[root] = e;
  while (!w.stack.empty()) {
    PassWorkspace::Frame& f = w.stack.back();
    if (f.next < order.size()) {
      TNodeId c = order[f.next++];
      if (w.done[c] == e || !is_op(t, c)) continue;
      w.done[c] = e;
      if (member(c)) {
        enter(c);
      } else {
        p.schedule.push_back(c);  // restore
        p.is_restore.push_back(1);
      }
      continue;
    }
    p.schedule.push_back(f.node);
    p.is_restore.push_back(0);
    order.resize(f.begin);
    w.stack.pop_back();
  }
  }
}

// The first operation under `x` (x included) that the pass restores rather than computes
// (w.stamp: the pass's members), if any.
std::optional<TNodeId> restored_in_cone(const TargetDag& t, TNodeId x, const PassWorkspace& w, std::uint32_t e) {
  std::vector<TNodeId> stack{x};
  std::unordered_set<TNodeId> seen;
  while (!stack.empty()) {
    const TNodeId n = stack.back();
    stack.pop_back();
    if (!is_op(t, n) || !seen.insert(n).second) continue;
    if (w.stamp[n] != e) return n;
    for (TNodeId c : t.operand_nodes(n)) stack.push_back(c);
  }
  return std::nullopt;
}

}  // namespace

void generate_pass(const TargetDag& t, TNodeId root, const std::vector<TNodeId>& members,
                   const partition::Limits& limits, bool restore_uses_interpolant, PassWorkspace& w, PassProgram& p) {
  p.outputs.assign(1, root);
  generate_pass(t, p.outputs, members, limits, restore_uses_interpolant, w, p);
}

void generate_pass(const TargetDag& t, const std::vector<TNodeId>& outputs, const std::vector<TNodeId>& members,
                   const partition::Limits& limits, bool restore_uses_interpolant, PassWorkspace& w, PassProgram& p) {
  w.prepare(t.size());
  const std::uint32_t e = w.epoch;
  const TNodeId root = outputs.back();
  if (&outputs != &p.outputs) p.outputs = outputs;
  p.root = root;
  p.copied_out.assign(outputs.size(), 0);
  p.schedule.clear();
  p.is_restore.clear();
  p.interpolants.clear();
  p.textures.clear();
  p.resources = partition::Resources{};
  for (TNodeId m : members) w.stamp[m] = e;
  for (TNodeId o : outputs) w.stamp[o] = w.output[o] = e;

  const PassNeeds pn{t, w, e};
  compute_needs(pn, root, members);
  schedule_pass(pn, p.outputs.data(), p.outputs.size(), p);

  // Liveness over the schedule and allocation with a free list (lowest register first).
  for (std::size_t i = 0; i < p.schedule.size(); ++i) w.last_use[p.schedule[i]] = 0;
  for (std::size_t i = 0; i < p.schedule.size(); ++i) {
    if (p.is_restore[i]) continue;
    for (TNodeId c : t.operand_nodes(p.schedule[i]))
      if (is_op(t, c)) w.last_use[c] = static_cast<std::uint32_t>(i);
  }
  // An output no member reads writes its render target directly; one a member reads is computed
  // into a temporary and copied out.
  auto direct = [&](TNodeId n) { return w.output[n] == e && w.last_use[n] == 0; };
  for (std::size_t k = 0; k < p.outputs.size(); ++k) p.copied_out[k] = !direct(p.outputs[k]);
  w.free_regs.clear();
  w.names.clear();
  int next_reg = 0, live = 0, peak = 0, loop_registers_needed = 0;
  int interps = 0;
  partition::Resources& r = p.resources;
  p.reg.assign(p.schedule.size(), -1);
  for (std::size_t i = 0; i < p.schedule.size(); ++i) {
    TNodeId n = p.schedule[i];
    const TNode& node = t.node(n);
    int dying = 0;
    if (!p.is_restore[i]) {
      for (TNodeId c : t.operand_nodes(n)) {
        if (!is_op(t, c)) {
          if (t.node(c).kind == TKind::Interpolant && w.interp_seen[c] != e) {
            w.interp_seen[c] = e;
            ++interps;
            p.interpolants.push_back(c);
          }
          continue;
        }
        if (w.last_use[c] == i) {
          ++dying;
          w.free_regs.push_back(w.reg[c]);
        }
      }
    }
    // A loop writes its result in every iteration while it still reads its operands (the
    // invariants): its result takes none of their registers.
    const bool keeps_operands = !p.is_restore[i] && node.kind == TKind::Loop;
    const std::size_t freed = static_cast<std::size_t>(dying);
    std::vector<int> held;
    if (keeps_operands) {
      held.assign(w.free_regs.end() - static_cast<std::ptrdiff_t>(freed), w.free_regs.end());
      w.free_regs.resize(w.free_regs.size() - freed);
    }
    live -= dying;
    const bool to_output = !p.is_restore[i] && direct(n);
    if (!to_output) {
      int reg;
      if (!w.free_regs.empty()) {
        auto lowest = std::min_element(w.free_regs.begin(), w.free_regs.end());
        reg = *lowest;
        w.free_regs.erase(lowest);
      } else {
        reg = next_reg++;
      }
      w.reg[n] = reg;
      p.reg[i] = reg;
      ++live;
    }
    w.free_regs.insert(w.free_regs.end(), held.begin(), held.end());
    peak = std::max(peak, live + dying - (!to_output ? 1 : 0));  // operands still held while reading
    peak = std::max(peak, live);
    // A loop holds its operands (the invariants are read in every iteration), its result and
    // its own temporaries while it runs.
    if (!p.is_restore[i] && node.kind == TKind::Loop) {
      peak = std::max(peak, live + dying + (to_output ? 1 : 0) + node.loop->temporaries);
      loop_registers_needed = std::max(loop_registers_needed, loop_registers(*node.loop));
    }
    if (p.is_restore[i]) {
      ++r.restores;
      ++r.texture_fetches;
      w.level[n] = 0;
      continue;
    }
    int dep = -1;
    for (const Operand& o : node.src) {
      TNodeId c = o.node;
      if (is_op(t, c)) dep = std::max(dep, w.level[c]);
    }
    if (node.kind == TKind::Loop) {
      const TLoop& l = *node.loop;
      r.texture_fetches += l.fetches;
      r.arithmetic += loop_instructions(node) - l.fetches;
      for (const std::string& name : l.textures)
        if (std::find(w.names.begin(), w.names.end(), std::string_view(name)) == w.names.end()) {
          w.names.push_back(name);
          p.textures.push_back(name);
        }
      // Its lookups may depend on one another across iterations: a dependent level beyond its operands'.
      w.level[n] = l.fetches > 0 ? std::max(1, dep + 1) : dep;
      r.dependent_levels = std::max(r.dependent_levels, w.level[n]);
    } else if (node.kind == TKind::Texture) {
      ++r.texture_fetches;
      if (std::find(w.names.begin(), w.names.end(), std::string_view(node.name)) == w.names.end()) {
        w.names.push_back(node.name);
        p.textures.push_back(node.name);
      }
      bool direct = !is_op(t, node.src[0].node);
      int lv = direct ? 0 : std::max(1, dep + 1);
      w.level[n] = lv;
      r.dependent_levels = std::max(r.dependent_levels, lv);
    } else {
      ++r.arithmetic;
      w.level[n] = dep;
    }
  }
  for (char c : p.copied_out) r.arithmetic += c ? 1 : 0;
  r.outputs = static_cast<int>(p.outputs.size());
  r.operations = r.arithmetic + r.texture_fetches;
  // A loop's registers come after the pass's own in the listing (loop_listing): what it declares.
  r.registers = loop_registers_needed > 0 ? std::max(peak, next_reg + loop_registers_needed) : peak;
  r.textures = static_cast<int>(w.names.size()) + r.restores;
  r.interpolants = interps + (restore_uses_interpolant && r.restores > 0 ? 1 : 0);
  p.failure = partition::exceeded(r, limits);
  // A loop larger than a pass can hold: say so, since no partition can help it.
  if (!p.failure.empty() && limits.operations != partition::kUnlimited)
    for (std::size_t i = 0; i < p.schedule.size(); ++i) {
      const TNode& node = t.node(p.schedule[i]);
      if (p.is_restore[i] || node.kind != TKind::Loop || loop_instructions(node) <= limits.operations) continue;
      p.failure += fmt::format(" (the {} alone takes {} instructions, and a pass holds a loop whole)", node.loop->label, loop_instructions(node));
      break;
    }
  if (p.failure.empty())
    for (TNodeId m : p.schedule)
      if (t.node(m).kind == TKind::Instruction && is_quad_difference(t.node(m).op) && w.stamp[m] == e)
        if (const std::optional<TNodeId> c = restored_in_cone(t, t.node(m).src[0].node, w, e)) {
          p.failure = fmt::format("quad: n{} ({}) differences a value that reads n{}, restored from an earlier pass, which the "
                                  "quad partner outside the triangle does not have; its value must be computed in this pass",
                                  m, to_string(t.node(m).op), *c);
          break;
        }
}

partition::Problem make_problem(const TargetDag& t) {
  partition::Problem pr;
  pr.graph.root = t.root;
  pr.graph.children.resize(t.size());
  pr.is_op.resize(t.size());
  pr.labels.resize(t.size());
  pr.texture.assign(t.size(), -1);
  pr.is_interpolant.assign(t.size(), 0);
  std::map<std::string, int> names;
  for (const TNode& n : t.nodes) {
    if (n.kind == TKind::Texture) pr.texture[n.id] = names.try_emplace(n.name, static_cast<int>(names.size())).first->second;
    pr.is_interpolant[n.id] = n.kind == TKind::Interpolant;
    if (n.kind == TKind::Instruction && is_quad_difference(n.op)) {  // its value is computed beside it
      pr.inline_operands.resize(t.size(), 0);
      pr.inline_operands[n.id] = 1;
    }
    pr.graph.children[n.id] = t.operand_nodes(n.id);
    pr.is_op[n.id] = t.is_operation(n.id);
    switch (n.kind) {
      case TKind::Instruction: pr.labels[n.id] = to_string(n.op); break;
      case TKind::Texture: pr.labels[n.id] = "TEX " + (n.name == "$noise" ? std::string("noise") : n.name); break;
      case TKind::Interpolant: pr.labels[n.id] = n.name; break;
      case TKind::Constant: pr.labels[n.id] = "const"; break;
      case TKind::Loop: pr.labels[n.id] = "REP (" + n.name + ")"; break;
      case TKind::LoopValue: pr.labels[n.id] = n.name; break;
    }
  }
  if (!t.outputs.empty()) {  // several outputs: a pseudo-root over them, after every node
    const auto root = static_cast<partition::NodeId>(t.size());
    pr.graph.root = root;
    pr.graph.children.push_back(t.outputs);
    pr.is_op.push_back(0);
    pr.labels.push_back("outputs");
    pr.texture.push_back(-1);
    pr.is_interpolant.push_back(0);
    if (!pr.inline_operands.empty()) pr.inline_operands.push_back(0);
    pr.pseudo_root = true;
  }
  return pr;
}

FpBackend::FpBackend(const TargetDag& t, const partition::TargetDesc& target)
    : t_(t), target_(target), users_(t.size()), in_(t.size(), 0), held_(t.size(), 0), pos_(t.size(), 0) {
  for (const TNode& n : t.nodes)
    for (TNodeId c : n.deps) users_[c].push_back(n.id);
}

partition::Check FpBackend::valid(partition::NodeId root, const std::vector<partition::NodeId>& members) {
  ++calls_;
  generate_pass(t_, root, members, target_.limits, target_.restore_uses_interpolant, ws_, program_);
  partition::Check c{program_.failure.empty(), program_.resources, program_.failure};
  if (target_.limits.registers != partition::kUnlimited) c.member_registers = member_registers(root, members);
  return c;
}

partition::Check FpBackend::valid_outputs(const std::vector<partition::NodeId>& outputs, const std::vector<partition::NodeId>& members) {
  if (outputs.size() == 1) return valid(outputs.front(), members);
  ++calls_;
  generate_pass(t_, outputs, members, target_.limits, target_.restore_uses_interpolant, ws_, program_);
  return partition::Check{program_.failure.empty(), program_.resources, program_.failure};
}

// A floor on the registers of any pass P that holds `members` (the subregion S of `root`, just
// scheduled into program_) with the root as an ordinary member. P's schedule is depth first too,
// with the same operand order inside S (a member's need depends only on what is below it, and S
// is closed downwards), so it computes S as program_ does, except what P computed earlier: P
// can only enter S early through an "entry", a member other than the root with a user outside
// S, and then computes that member's own subregion whole. Let U be the union of the entries'
// subregions. At each member y outside U, P computes y in program_'s relative order, after
// every value program_ computes or restores before y, and before every user outside U that
// program_ runs at or after y; so every value with such a user is live when P computes y.
int FpBackend::member_registers(TNodeId root, const std::vector<TNodeId>& members) {
  if (++epoch_ == 0) {
    std::fill(in_.begin(), in_.end(), 0);
    std::fill(held_.begin(), held_.end(), 0);
    epoch_ = 1;
  }
  const std::uint32_t e = epoch_;
  for (TNodeId m : members) in_[m] = e;
  in_[root] = e;
  // Members sorted by id are operands before users: walk down from the entries.
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    TNodeId m = *it;
    bool entry = false;
    if (held_[m] != e && m != root)
      for (TNodeId u : users_[m])
        if (in_[u] != e) {
          entry = true;
          break;
        }
    if (entry || held_[m] == e)
      for (TNodeId c : t_.operand_nodes(m))
        if (in_[c] == e) held_[c] = e;
    if (entry) held_[m] = e;
  }
  const auto& sched = program_.schedule;
  for (std::size_t i = 0; i < sched.size(); ++i) pos_[sched[i]] = static_cast<std::uint32_t>(i);
  sweep_.assign(sched.size() + 1, 0);
  for (std::size_t j = 0; j < sched.size(); ++j) {
    TNodeId v = sched[j];
    std::size_t last = 0;
    for (TNodeId u : users_[v])
      if (in_[u] == e && held_[u] != e) last = std::max<std::size_t>(last, pos_[u]);
    if (last > j) {
      ++sweep_[j + 1];
      --sweep_[last + 1];
    }
  }
  int live = 0, floor = 0;
  for (std::size_t i = 0; i < sched.size(); ++i) {
    live += sweep_[i];
    if (!program_.is_restore[i] && held_[sched[i]] != e) floor = std::max(floor, live);
  }
  return floor;
}

namespace {

std::string number(float x) { return fmt::format("{:g}", x); }

std::string vec_text(const Vec4& v) {
  return fmt::format("{{{}, {}, {}, {}}}", number(v[0]), number(v[1]), number(v[2]), number(v[3]));
}

}  // namespace

std::string listing(const TargetDag& t, const PassProgram& p, const ListingContext& ctx) {
  std::string out = "!!ARBfp1.0\n";
  // DDX and DDY are NV_fragment_program's, which NV_fragment_program_option lends ARB programs;
  // REP, BRK and the condition codes are NV_fragment_program2's (which has DDX and DDY too).
  bool quad = false, loops = false;
  int loop_regs = 0;
  for (std::size_t i = 0; i < p.schedule.size(); ++i) {
    const TNode& n = t.node(p.schedule[i]);
    if (p.is_restore[i]) continue;
    quad = quad || (n.kind == TKind::Instruction && is_quad_difference(n.op));
    if (n.kind == TKind::Loop) {
      loops = true;
      loop_regs = std::max(loop_regs, loop_registers(*n.loop));
    }
  }
  if (loops) out += "OPTION NV_fragment_program2;\n";
  else if (quad) out += "OPTION NV_fragment_program;\n";
  const bool several = p.outputs.size() > 1;
  if (several) out += "OPTION ARB_draw_buffers;\n";
  auto op_name = [&](TNodeId n) { return t.node(n).kind == TKind::Texture ? std::string("TEX") : std::string(to_string(t.node(n).op)); };
  if (!several) {
    out += fmt::format("# pass {} of {}: computes n{} ({})\n", ctx.pass_index + 1, ctx.pass_count, p.root, op_name(p.root));
  } else {
    out += fmt::format("# pass {} of {}: computes", ctx.pass_index + 1, ctx.pass_count);
    for (std::size_t k = 0; k < p.outputs.size(); ++k)
      out += fmt::format("{} n{} ({}) to result.color[{}]", k ? "," : "", p.outputs[k], op_name(p.outputs[k]), k);
    out += '\n';
  }
  const auto& r = p.resources;
  out += fmt::format("# {} instructions ({} texture fetches, {} restores), {} temporaries, {} texture units, {} interpolants\n",
                     r.operations, r.texture_fetches, r.restores, r.registers, r.textures, r.interpolants);
  // Declarations.
  int regs = 0;
  std::map<TNodeId, int> reg_of;
  for (std::size_t i = 0; i < p.schedule.size(); ++i)
    if (p.reg[i] >= 0) {
      reg_of[p.schedule[i]] = p.reg[i];
      regs = std::max(regs, p.reg[i] + 1);
    }
  if (regs + loop_regs > 0) {
    out += "TEMP";
    for (int i = 0; i < regs + loop_regs; ++i) out += fmt::format("{}r{}", i ? ", " : " ", i);
    out += ";\n";
  }
  std::map<TNodeId, int> attrib;
  for (std::size_t i = 0; i < p.interpolants.size(); ++i) {
    attrib[p.interpolants[i]] = static_cast<int>(i);
    out += fmt::format("ATTRIB v{} = fragment.texcoord[{}];  # {}\n", i, i, t.node(p.interpolants[i]).name);
  }
  std::map<TNodeId, int> params;
  std::map<std::string, int> units;
  for (std::size_t i = 0; i < p.textures.size(); ++i) units[p.textures[i]] = static_cast<int>(i);
  int next_unit = static_cast<int>(p.textures.size());
  std::map<TNodeId, int> restore_unit;
  for (std::size_t i = 0; i < p.schedule.size(); ++i)
    if (p.is_restore[i]) restore_unit[p.schedule[i]] = next_unit++;
  for (TNodeId n : p.schedule)
    for (const Operand& o : t.node(n).src)
      if (t.node(o.node).kind == TKind::Constant && !params.count(o.node)) {
        int k = static_cast<int>(params.size());
        params[o.node] = k;
        out += fmt::format("PARAM c{} = {};\n", k, vec_text(t.node(o.node).value));
      }
  auto name = [&](const Operand& o) {
    std::string base;
    const TNode& s = t.node(o.node);
    if (s.kind == TKind::Constant) base = fmt::format("c{}", params.at(o.node));
    else if (s.kind == TKind::Interpolant) base = fmt::format("v{}", attrib.at(o.node));
    else base = fmt::format("r{}", reg_of.at(o.node));
    return (o.negate ? "-" : "") + base + o.swizzle.text();
  };
  auto output_index = [&](TNodeId n) -> int {
    auto it = std::find(p.outputs.begin(), p.outputs.end(), n);
    return it == p.outputs.end() ? -1 : static_cast<int>(it - p.outputs.begin());
  };
  auto result = [&](int k) { return several ? fmt::format("result.color[{}]", k) : std::string("result.color"); };
  for (std::size_t i = 0; i < p.schedule.size(); ++i) {
    TNodeId n = p.schedule[i];
    const TNode& node = t.node(n);
    const int k = p.is_restore[i] ? -1 : output_index(n);
    std::string dst = p.reg[i] < 0 ? result(k) : fmt::format("r{}", reg_of.at(n));
    // An output a member reads too: copied to its render target after it is computed.
    const std::string copy = k >= 0 && p.reg[i] >= 0 ? fmt::format("MOV {}, r{};\n", result(k), reg_of.at(n)) : std::string();
    if (p.is_restore[i]) {
      auto tex = ctx.saved_texture.find(n);
      auto by = ctx.saved_by_pass.find(n);
      out += fmt::format("TEX {}, fragment.position, texture[{}], RECT;  # restore n{}", dst, restore_unit.at(n), n);
      if (tex != ctx.saved_texture.end()) out += fmt::format(" from intermediate T{}", tex->second);
      if (by != ctx.saved_by_pass.end()) out += fmt::format(" (saved by pass {})", by->second + 1);
      out += '\n';
      continue;
    }
    if (node.kind == TKind::Texture) {
      const char* target = node.dims == 1 ? "1D" : node.dims == 2 ? "2D" : "3D";
      out += fmt::format("TEX {}, {}, texture[{}], {};  # {}\n", dst, name(node.src[0]), units.at(node.name), target,
                         node.name == "$noise" ? "noise" : node.name);
      out += copy;
      continue;
    }
    if (node.kind == TKind::Loop) {
      out += loop_listing(node, dst, regs, name, [&](const std::string& texture) { return units.at(texture); });
      out += copy;
      continue;
    }
    std::string line = fmt::format("{}{} {}", to_string(node.op), node.saturate ? "_SAT" : "", dst);
    for (const Operand& o : node.src) line += ", " + name(o);
    out += line + ";";
    if (!node.spans.empty()) out += fmt::format("  # line {}", node.spans.front().line);
    out += '\n';
    out += copy;
  }
  out += "END\n";
  return out;
}

}  // namespace passlab::fp
