// SPDX-License-Identifier: GPL-3.0-or-later
// Register allocation by enemies and friends (thesis ch. 8), then the copies it made redundant
// removed.
#include "backends/rpu/regalloc.h"

#include <algorithm>
#include <set>

namespace passlab::rpu {

namespace {

// The class a physical unit belongs to, and its register; -1 when it is not an R half.
int pinned_register(Loc l, RegClass* cls) {
  if (!is_phys(l)) return -1;
  const Loc u = l - kPhys;
  if (u < kUnitW) {
    *cls = RegClass::Vector;
    return static_cast<int>(u);
  }
  if (u < kUnitS) {
    *cls = RegClass::Scalar;
    return static_cast<int>(u - kUnitW);
  }
  return -1;
}

// A plain copy of a whole value: mov A, B with no modifiers, B read in its own lanes.
bool is_copy(const AsmFunction& f, const AsmInstr& in, Loc* dst, Loc* src) {
  if (in.is_call() || in.word.paired()) return false;
  const Operation& o = in.word.primary;
  if (o.op != Opcode::Mov || o.sat || o.special != SpecialFn::None) return false;
  const Source& s = o.src[0];
  if (s.scale != 0 || s.negate) return false;
  auto loc_of_dest = [&](Loc* out, RegClass* cls) {
    if (o.dst.bank == Bank::Virtual) {
      *cls = f.cls(o.dst.index);
      if (o.dst.mask != class_mask(*cls)) return false;
      *out = o.dst.index;
      return true;
    }
    if (o.dst.bank == Bank::R && o.dst.index != kJunk && (o.dst.mask == kMaskXYZ || o.dst.mask == kMaskW)) {
      *cls = o.dst.mask == kMaskW ? RegClass::Scalar : RegClass::Vector;
      *out = phys_unit((*cls == RegClass::Vector ? kUnitXYZ : kUnitW) + o.dst.index);
      return true;
    }
    return false;
  };
  RegClass cls{};
  if (!loc_of_dest(dst, &cls)) return false;
  const Swizzle own = cls == RegClass::Vector ? Swizzle{{0, 1, 2, 2}} : Swizzle::splat(3);
  for (int i = 0; i < 4; ++i)
    if ((class_mask(cls) & (1u << i)) && s.swizzle.lane[static_cast<std::size_t>(i)] != own.lane[static_cast<std::size_t>(i)]) return false;
  if (s.bank == Bank::Virtual) {
    if (f.cls(s.index) != cls) return false;
    *src = s.index;
    return true;
  }
  if (s.bank == Bank::R && s.index != kJunk) {
    *src = phys_unit((cls == RegClass::Vector ? kUnitXYZ : kUnitW) + s.index);
    return true;
  }
  return false;
}

std::string reg_name(RegClass cls, int r) { return "R" + std::to_string(r) + (cls == RegClass::Vector ? ".xyz" : ".w"); }

}  // namespace

namespace {

// Chaitin-style allocation by enemies and friends (the thesis's chapter 8), in its four phases.
class Allocator {
 public:
  explicit Allocator(AsmFunction& f)
      : f_(f), n_(f_.vregs.size()), enemies_(n_), friends_(n_), pinned_enemies_(n_), pinned_friends_(n_), present_(n_, false) {
    a_.reg.assign(n_, -1);
  }

  // Build: who conflicts with whom (enemies), which copies would vanish in one register (friends).
  void build() {
    const Liveness lv = compute_liveness(f_);

    std::vector<Loc> defs, uses;
    for (std::uint32_t b = 0; b < f_.blocks.size(); ++b) {
      const AsmBlock& blk = f_.blocks[b];
      if (blk.removed) continue;
      const std::vector<LocSet> after = lv.after(f_, b);
      for (std::size_t i = 0; i < blk.body.size(); ++i) {
        const AsmInstr& in = blk.body[i];
        defs.clear();
        uses.clear();
        instr_defs(f_, in, defs);
        instr_uses(f_, in, uses);
        for (Loc l : defs)
          if (!is_phys(l)) present_[l] = true;
        for (Loc l : uses)
          if (!is_phys(l)) present_[l] = true;
        Loc cd = 0, cs = 0;
        const bool copy = is_copy(f_, in, &cd, &cs);
        // Everything written conflicts with what stays live past it, except a copy's source,
        // which holds the same value (Chaitin's refinement).
        for (Loc d : defs)
          for (Loc l : after[i].members()) {
            if (copy && d == cd && l == cs) continue;
            conflict(d, l);
          }
        if (copy) {
          if (!is_phys(cd) && !is_phys(cs)) {
            friends_[cd].insert(cs);
            friends_[cs].insert(cd);
          } else if (is_phys(cd) != is_phys(cs)) {
            RegClass cls{};
            const Loc v = is_phys(cd) ? cs : cd;
            const int r = pinned_register(is_phys(cd) ? cd : cs, &cls);
            if (r >= 0) pinned_friends_[v].insert(r);
          }
        }
      }
      uses.clear();
      terminator_uses(f_, blk.term, uses);
      for (Loc l : uses)
        if (!is_phys(l)) present_[l] = true;
    }
    // Values live on entry conflict with the arguments and the other entry registers.
    for (Loc v : lv.live_in[0].members())
      if (!is_phys(v))
        for (Loc p : f_.entry_defs) conflict(v, p);
    for (Loc v = 0; v < n_; ++v)
      for (Loc x : enemies_[v]) friends_[v].erase(x);
  }

  // Simplify: fewest edges first, then fewest friends, then the lowest number.
  void simplify() {
    std::vector<int> degree(n_, 0);
    std::vector<bool> removed(n_, false);
    std::size_t remaining = 0;
    for (Loc v = 0; v < n_; ++v) {
      if (!present_[v]) {
        removed[v] = true;
        continue;
      }
      degree[static_cast<std::size_t>(v)] = static_cast<int>(enemies_[v].size());
      ++remaining;
    }
    while (remaining > 0) {
      Loc best = 0;
      bool found = false;
      for (Loc v = 0; v < n_; ++v) {
        if (removed[v]) continue;
        if (!found || degree[v] < degree[best] || (degree[v] == degree[best] && friends_[v].size() < friends_[best].size())) {
          best = v;
          found = true;
        }
      }
      removed[best] = true;
      --remaining;
      a_.order.push_back({best, degree[best], static_cast<int>(friends_[best].size())});
      if (degree[best] >= kAllocatable) a_.guaranteed = false;
      for (Loc x : enemies_[best])
        if (!removed[x]) --degree[x];
    }
  }

  // Select, hardest first. False (with the reason reported) when a value finds no register.
  bool select(lang::DiagnosticSink& sink) {
    // Pre-allocated values (arguments, results) count as values their registers hold, so
    // balancing steers other values away from them.
    std::array<std::array<int, kAllocatable>, 2> load{};  // values per register, by class
    {
      std::set<Loc> pinned(f_.entry_defs.begin(), f_.entry_defs.end());
      std::vector<Loc> locs;
      for (const AsmBlock& blk : f_.blocks) {
        if (blk.removed) continue;
        locs.clear();
        for (const AsmInstr& in : blk.body) {
          instr_uses(f_, in, locs);
          if (in.is_call()) locs.insert(locs.end(), in.call_defs.begin(), in.call_defs.end());
          else instr_defs(f_, in, locs);
        }
        terminator_uses(f_, blk.term, locs);
        for (Loc l : locs) pinned.insert(l);
      }
      for (Loc l : pinned) {
        RegClass cls{};
        const int r = pinned_register(l, &cls);
        if (r >= 0 && r < kAllocatable) ++load[static_cast<std::size_t>(cls)][static_cast<std::size_t>(r)];
      }
    }
    for (auto it = a_.order.rbegin(); it != a_.order.rend(); ++it) {
      const Loc v = it->vreg;
      const RegClass cls = f_.cls(v);
      std::array<bool, kAllocatable> taken{};
      for (Loc x : enemies_[v])
        if (a_.reg[x] >= 0) taken[static_cast<std::size_t>(a_.reg[x])] = true;
      for (int r : pinned_enemies_[v])
        if (r < kAllocatable) taken[static_cast<std::size_t>(r)] = true;
      std::array<int, kAllocatable> friendly{};
      for (Loc x : friends_[v])
        if (a_.reg[x] >= 0) ++friendly[static_cast<std::size_t>(a_.reg[x])];
      for (int r : pinned_friends_[v])
        if (r < kAllocatable) ++friendly[static_cast<std::size_t>(r)];
      int best = -1;
      for (int r = 0; r < kAllocatable; ++r) {
        if (taken[static_cast<std::size_t>(r)]) continue;
        if (best < 0) {
          best = r;
          continue;
        }
        const auto ri = static_cast<std::size_t>(r), bi = static_cast<std::size_t>(best);
        const int c = static_cast<int>(cls);
        if (friendly[ri] > friendly[bi] || (friendly[ri] == friendly[bi] && load[static_cast<std::size_t>(c)][ri] < load[static_cast<std::size_t>(c)][bi])) best = r;
      }
      if (best < 0) {
        int live = 0;
        for (Loc x : enemies_[v]) live += a_.reg[x] >= 0;
        sink.error("rpu-registers", f_.vregs[v].span.valid() ? f_.vregs[v].span : f_.span,
                   "register allocation failed in '" + f_.name + "': this " + (cls == RegClass::Vector ? "vector" : "float") +
                       " value conflicts with values in all 15 " + (cls == RegClass::Vector ? ".xyz" : ".w") +
                       " registers (the RPU cannot spill; shorten what is live at once, or call a function)");
        (void)live;
        return false;
      }
      const auto bi = static_cast<std::size_t>(best);
      std::string reason;
      if (friendly[bi] > 0) reason = std::to_string(friendly[bi]) + (friendly[bi] == 1 ? " friend" : " friends") + " in " + reg_name(cls, best);
      else if (load[static_cast<std::size_t>(cls)][bi] > 0 || best > 0)
        reason = "fewest values (" + reg_name(cls, best) + " holds " + std::to_string(load[static_cast<std::size_t>(cls)][bi]) + ")";
      else reason = "lowest free register";
      a_.choices.push_back({v, best, reason});
      a_.reg[v] = best;
      ++load[static_cast<std::size_t>(cls)][bi];
    }
    return true;
  }

  // Rewrite operands and drop copies that became register-to-itself.
  void rewrite(AsmStats& stats) {
    auto fix_src = [&](Source& s) {
      if (s.bank != Bank::Virtual) return;
      s.bank = Bank::R;
      s.index = static_cast<std::uint32_t>(a_.reg[s.index] < 0 ? kJunk : a_.reg[s.index]);
    };
    auto fix_dst = [&](Dest& d) {
      if (d.bank != Bank::Virtual) return;
      d.bank = Bank::R;
      d.index = static_cast<std::uint32_t>(a_.reg[d.index] < 0 ? kJunk : a_.reg[d.index]);
    };
    auto fix_op = [&](Operation& o) {
      fix_dst(o.dst);
      for (Source& s : o.src) fix_src(s);
    };
    for (AsmBlock& blk : f_.blocks) {
      std::vector<AsmInstr> kept;
      for (AsmInstr& in : blk.body) {
        fix_op(in.word.primary);
        fix_op(in.word.secondary);
        fix_src(in.word.control.target_reg);
        const Operation& o = in.word.primary;
        if (!in.is_call() && o.op == Opcode::Mov && !o.sat && o.special == SpecialFn::None && o.dst.bank == Bank::R && o.src[0].bank == Bank::R &&
            o.dst.index == o.src[0].index && o.src[0].scale == 0 && !o.src[0].negate) {
          bool same = true;
          for (int i = 0; i < 4; ++i)
            if (o.dst.mask & (1u << i)) same = same && o.src[0].swizzle.lane[static_cast<std::size_t>(i)] == i;
          if (same) {
            ++stats["regalloc.coalesced"];
            continue;
          }
        }
        kept.push_back(std::move(in));
      }
      blk.body = std::move(kept);
      fix_op(blk.term.test);
    }
  }

  // The graph and the choices, for the Studio's interference view and the CLI.
  Allocation finish() {
    a_.enemies.resize(n_);
    a_.friends.resize(n_);
    a_.pinned_enemies.resize(n_);
    a_.pinned_friends.resize(n_);
    for (Loc v = 0; v < n_; ++v) {
      a_.enemies[v].assign(enemies_[v].begin(), enemies_[v].end());
      a_.friends[v].assign(friends_[v].begin(), friends_[v].end());
      a_.pinned_enemies[v].assign(pinned_enemies_[v].begin(), pinned_enemies_[v].end());
      a_.pinned_friends[v].assign(pinned_friends_[v].begin(), pinned_friends_[v].end());
    }
    a_.names.resize(n_);
    a_.registers.resize(n_);
    for (Loc v = 0; v < n_; ++v) {
      a_.names[v] = vreg_name(f_, v) + (f_.vregs[v].name.empty() ? "" : " " + f_.vregs[v].name);
      if (a_.reg[v] >= 0) a_.registers[v] = reg_name(f_.cls(v), a_.reg[v]);
    }
    return std::move(a_);
  }

 private:
  void conflict(Loc x, Loc y) {
    if (x == y) return;
    if (!is_phys(x) && !is_phys(y)) {
      if (f_.cls(x) != f_.cls(y)) return;
      enemies_[x].insert(y);
      enemies_[y].insert(x);
      return;
    }
    if (is_phys(x) && is_phys(y)) return;
    const Loc v = is_phys(x) ? y : x, p = is_phys(x) ? x : y;
    RegClass cls{};
    const int r = pinned_register(p, &cls);
    if (r >= 0 && cls == f_.cls(v)) pinned_enemies_[v].insert(r);
  }

  AsmFunction& f_;
  const std::size_t n_;
  Allocation a_;
  std::vector<std::set<Loc>> enemies_, friends_;
  std::vector<std::set<int>> pinned_enemies_, pinned_friends_;
  std::vector<bool> present_;
};

}  // namespace

std::optional<Allocation> allocate_registers(AsmFunction& f, lang::DiagnosticSink& sink, AsmStats& stats) {
  Allocator allocator(f);
  allocator.build();
  allocator.simplify();
  if (!allocator.select(sink)) return std::nullopt;
  allocator.rewrite(stats);
  Allocation a = allocator.finish();
  stats["regalloc.values"] += static_cast<long>(a.order.size());
  return a;
}

std::string allocation_dot(const AsmFunction& f, const Allocation& a) {
  std::string s = "graph \"" + f.name + "\" {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (const Allocation::Removal& r : a.order) {
    const Loc v = r.vreg;
    s += "  " + vreg_name(f, v).substr(1) + " [label=\"" + vreg_name(f, v) + (f.vregs[v].name.empty() ? "" : " " + f.vregs[v].name) + "\\n" +
         reg_name(f.cls(v), a.reg[v]) + "\"];\n";
  }
  for (const Allocation::Removal& r : a.order) {
    const Loc v = r.vreg;
    for (Loc x : a.enemies[v])
      if (x > v) s += "  " + vreg_name(f, v).substr(1) + " -- " + vreg_name(f, x).substr(1) + ";\n";
    for (Loc x : a.friends[v])
      if (x > v) s += "  " + vreg_name(f, v).substr(1) + " -- " + vreg_name(f, x).substr(1) + " [style=dashed, color=blue];\n";
  }
  return s + "}\n";
}

std::string allocation_text(const AsmFunction& f, const Allocation& a) {
  std::string s = "; " + f.label + ": removal order (fewest edges, then fewest friends)\n";
  for (const Allocation::Removal& r : a.order)
    s += ";   " + vreg_name(f, r.vreg) + "  edges " + std::to_string(r.edges) + "  friends " + std::to_string(r.friends) + "\n";
  s += "; colours, hardest first\n";
  for (const Allocation::Choice& c : a.choices)
    s += ";   " + vreg_name(f, c.vreg) + " -> " + reg_name(f.cls(c.vreg), c.reg) + "  (" + c.reason + ")\n";
  if (!a.guaranteed) s += "; some value had 15 or more edges when removed: colouring was not guaranteed (it succeeded)\n";
  return s;
}

}  // namespace passlab::rpu
