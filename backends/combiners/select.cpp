// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 3 (Mark & Proudfoot §5): instruction selection. The hardware DAG is covered by partial
// combiners, each a FULL or HALF portion (RGB or ALPHA) or a part of the final combiner:
//
//   ready := a priority queue holding the RGB and ALPHA roots
//   priority(n) := the weighted length of the longest path from n to a leaf; ADD and MUX weigh
//                  a little less than the others (1 - epsilon), so nodes near the root come first
//   while ready is not empty:
//     n := the highest priority
//     kind := FINAL RGB / FINAL ALPHA for a root, else FULL if an ADD or MUX comes before a MUL
//             or DOT on the way down from n, else HALF
//     fill the combiner from its output toward its inputs: OUTMAP, ADD/MUX, the left DOT/MUL
//       and its two INMAPs, the right DOT/MUL and its two INMAPs (any of them may pass through)
//     push every node whose parents have now all been placed
//
// A FULL combiner's DOT/MUL outputs never start a combiner: a product with other readers is
// absorbed and written as a side output, which the shared OUTMAP allows only when it is the
// identity. A combiner that ADDs or MUXes computes no dot product (an RGB ADD shares the adder;
// nvparse's grammar has no MUX over a dot product, though the hardware has one). Two
// transformations happen while a combiner fills: TRIPLE or BLUE over an INMAP is read as the
// INMAP of the TRIPLE/BLUE (moving it toward the leaves), and a TRIPLE, BLUE or INMAP node with
// other readers is duplicated so this combiner can absorb its own copy (forward substitution).
// A MUX's control must be in spare0.a: a control that is a pass input gets a move of its own.
#include <algorithm>
#include <queue>

#include <fmt/format.h>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

const char* to_string(PcKind k) {
  switch (k) {
    case PcKind::FullRgb: return "FULL RGB";
    case PcKind::HalfRgb: return "HALF RGB";
    case PcKind::FullAlpha: return "FULL ALPHA";
    case PcKind::HalfAlpha: return "HALF ALPHA";
    case PcKind::FinalRgb: return "FINAL RGB";
    case PcKind::FinalAlpha: return "FINAL ALPHA";
  }
  return "?";
}

namespace {

constexpr int kWeight = 100, kAddWeight = 99;  // ADD and MUX weigh epsilon less

bool is_leaf(const HNode& n) { return n.op == HOp::Input || n.op == HOp::Const; }

class Selector {
 public:
  Selector(HDag& h, std::vector<PartialCombiner>& out, Failure& f, CompileTrace& t) : h_(h), out_(out), f_(f), t_(t) {}

  bool run() {
    move_leaf_controls();
    parents_ = h_.parents();
    const std::size_t n = h_.nodes.size();
    remaining_.assign(n, 0);
    needed_.assign(n, 0);
    placed_.assign(n, 0);
    queued_.assign(n, 0);
    prio_.assign(n, 0);
    for (HId i : h_.topological()) {
      const HNode& x = h_[i];
      int best = 0;
      for (HId k : x.kids) best = std::max(best, prio_[k]);
      prio_[i] = is_leaf(x) ? 0 : best + (x.op == HOp::Add || x.op == HOp::Mux ? kAddWeight : kWeight);
      remaining_[i] = static_cast<int>(parents_[i].size());
    }
    // The roots start final combiners. A saved scalar goes to every channel: the final
    // combiner reads it once (G, not through BLUE) and copies it into RGB (an ALPHA usage).
    if (h_.rgb_root != kNoH) {
      final_rgb(h_.rgb_root);
      if (h_.alpha_root != kNoH) final_alpha(h_.alpha_root);
    } else if (h_.alpha_root != kNoH) {
      no_blue_ = true;
      final_alpha(h_.alpha_root);
      no_blue_ = false;
      PartialCombiner rgb;
      rgb.kind = PcKind::FinalRgb;
      rgb.d = out_.back().d;
      rgb.d.usage = Usage::Alpha;
      rgb.priority = out_.back().priority;
      rgb.origin = out_.back().origin;
      out_.push_back(rgb);
    }
    while (!ready_.empty()) {
      const HId x = static_cast<HId>(-ready_.top().second);  // ties: the lower id first
      ready_.pop();
      if (placed_[x] || is_leaf(h_[x])) continue;
      general(x);
    }
    for (HId i : h_.topological())
      if (needed_[i] && !placed_[i] && !is_leaf(h_[i])) {
        f_ = {"internal", fmt::format("instruction selection left h{} ({}) unplaced", i, describe(h_[i])), h_[i].origin, h_[i].has_origin};
        return false;
      }
    return true;
  }

 private:
  // Whether a value is read straight from a register, by a variable that applies the mapping or
  // the component selection itself: a leaf, an input mapping, BLUE or TRIPLE (no combiner
  // computes them, so none writes them into spare0.a).
  bool read_from_register(HId v) const {
    const HNode& n = h_[v];
    return is_leaf(n) || n.op == HOp::InMap || n.op == HOp::Blue || n.op == HOp::Triple;
  }

  // A MUX whose control is read from a register (an input, a constant, or through a mapping or
  // a component: a biased input is expand(col0.a), a dot product's value BLUE(DOT)): a move into
  // a register of its own (spare0.a at the MUX's stage). Without one the MUX read whatever
  // spare0.a held (the conformance tester found `t < 0.5 ? 0.1 : t` always 0.1, and a MUX on
  // `n . n >= 1/2` reading the alpha a dot product never writes).
  void move_leaf_controls() {
    for (HId i = 0; i < h_.nodes.size(); ++i) {
      HNode& x = h_[i];
      if (x.removed || x.op != HOp::Mux || !read_from_register(x.kids[0])) continue;
      HNode mov;
      mov.op = HOp::OutMap;
      mov.map = static_cast<std::uint8_t>(OutMap::None);
      mov.part = Part::Alpha;
      mov.kids = {x.kids[0]};
      mov.range = h_[x.kids[0]].range;
      mov.origin = x.origin;
      mov.has_origin = x.has_origin;
      const HId id = h_.add(std::move(mov));
      h_[i].kids[0] = id;
    }
  }

  void push(HId x) {
    if (x >= queued_.size()) return;
    if (queued_[x] || placed_[x] || is_leaf(h_[x])) return;
    queued_[x] = 1;
    ready_.push({prio_[x], -static_cast<long>(x)});
  }
  struct Top {
    bool operator()(const std::pair<int, long>& a, const std::pair<int, long>& b) const { return a < b; }
  };

  // Forward substitution: the reader gets its own copy of x (`consumer`'s kid `slot`, or, with
  // no consumer, the final combiner's read of a root that others read too).
  HId duplicate(HId x, HId consumer, std::size_t slot) {
    HNode copy = h_[x];
    const HId c = h_.add(copy);
    parents_.push_back({});
    for (auto* v : {&remaining_, &prio_}) v->push_back(0);
    for (auto* v : {&needed_, &placed_, &queued_}) v->push_back(0);
    prio_[c] = prio_[x];
    if (consumer != kNoH) {
      h_[consumer].kids[slot] = c;
      parents_[c] = {consumer};
      remaining_[c] = 1;
      if (std::count(h_[consumer].kids.begin(), h_[consumer].kids.end(), x) == 0) {
        auto& px = parents_[x];
        px.erase(std::remove(px.begin(), px.end(), consumer), px.end());
        --remaining_[x];
      }
    }
    for (HId k : h_[c].kids)
      if (std::find(parents_[k].begin(), parents_[k].end(), c) == parents_[k].end()) parents_[k].push_back(c), ++remaining_[k];
    if (t_.on())
      t_.add({CEvent::Transform, 3, origin(x), static_cast<int>(out_.size()), -1, -1, -1, h_[x].part, "duplicated " + describe(h_[x]),
              fmt::format("forward substitution: {} other readers keep the original", parents_[x].size())});
    return c;
  }

  std::vector<dag::NodeId> origin(HId x) const {
    return h_[x].has_origin ? std::vector<dag::NodeId>{h_[x].origin} : std::vector<dag::NodeId>{};
  }

  void cover(PartialCombiner& pc, HId x) {
    placed_[x] = 1;
    pc.covered.push_back(x);
  }

  // What a variable reads: x (kid `slot` of `consumer`; no consumer: the combiner's own value, or
  // a root the final combiner reads), absorbing at most one input mapping and one component
  // selection (TRIPLE in an RGB portion, BLUE in an ALPHA one). `output`: x is the value this
  // combiner writes (a pass-through), so absorbing it needs no copy. `final_variable`: the final
  // combiner maps only unsigned() and unsigned_invert().
  Operand take(PartialCombiner& pc, HId x, HId consumer, std::size_t slot, Part portion, bool final_variable, bool output) {
    Operand o;
    o.usage = portion == Part::Rgb ? Usage::Rgb : Usage::Alpha;
    o.map = final_variable ? InMap::UnsignedIdentity : InMap::SignedIdentity;
    bool map_free = true, usage_free = true;
    for (;;) {
      const HNode xn = h_[x];
      InMap map = InMap::SignedIdentity;
      bool takes_map = false, takes_usage = false;
      if (xn.op == HOp::InMap && map_free) {
        map = static_cast<InMap>(xn.map);
        takes_map = !final_variable || map == InMap::UnsignedIdentity || map == InMap::UnsignedInvert;
      } else if (xn.op == HOp::BothMap && map_free && !final_variable && h_[xn.kids[0]].range.nonnegative()) {
        map = static_cast<OutMap>(xn.map) == OutMap::BiasScale2 ? InMap::ExpandNormal : InMap::HalfBiasNormal;
        takes_map = true;
      } else if (xn.op == HOp::Triple && usage_free && portion == Part::Rgb) {
        takes_usage = true;
      } else if (xn.op == HOp::Blue && usage_free && portion == Part::Alpha && !(final_variable && no_blue_)) {
        takes_usage = true;
      }
      if (!takes_map && !takes_usage) break;
      // Absorbed already by this combiner for another operand of the same reader (DOT(x, x)):
      // absorbed again. Placed anywhere else: computed already, read from its register.
      const bool here = std::find(pc.covered.begin(), pc.covered.end(), x) != pc.covered.end();
      if (placed_[x] && !output && !here) break;
      const bool shared = here ? false : consumer == kNoH ? (!output && !parents_[x].empty()) : parents_[x].size() > 1;
      const HId own = shared ? duplicate(x, consumer, slot) : x;
      if (!here) cover(pc, own);
      output = false;
      if (takes_map) {
        o.map = map;
        map_free = false;
        if (t_.on())
          t_.add({CEvent::Fill, 3, origin(own), static_cast<int>(out_.size()), -1, -1, -1, portion, std::string("INMAP ") + paper_name(map),
                  xn.op == HOp::BothMap ? "a BOTHMAP used as an input mapping: x >= 0 proved" : ""});
      } else {
        o.usage = portion == Part::Rgb ? Usage::Alpha : Usage::Blue;
        usage_free = false;
        if (!map_free && t_.on())
          t_.add({CEvent::Transform, 3, origin(own), static_cast<int>(out_.size()), -1, -1, -1, portion,
                  portion == Part::Rgb ? "TRIPLE moved toward the leaves" : "BLUE moved toward the leaves",
                  portion == Part::Rgb ? "y * TRIPLE(INMAP(x)) read as y * INMAP(TRIPLE(x))" : "BLUE(INMAP(x)) read as INMAP(BLUE(x))"});
      }
      consumer = own;
      slot = 0;
      x = h_[own].kids[0];
    }
    o.value = x;
    needed_[x] = 1;
    return o;
  }

  static Operand one(Part portion) {
    Operand o;
    o.usage = portion == Part::Rgb ? Usage::Rgb : Usage::Alpha;
    o.map = InMap::UnsignedInvert;  // 1 - zero
    return o;
  }

  // A DOT/MUL unit fed by `slot` of `owner`: absorbs the product, or passes the value through
  // (value * 1). Returns the side output (a product with other readers), or kNoH.
  HId product(PartialCombiner& pc, HId owner, std::size_t slot, Part portion, bool allow_dot, bool side_allowed, Operand& a, Operand& b,
              bool& dot, HId& unit) {
    const HId p = h_[owner].kids[slot];
    const HNode pn = h_[p];
    // A MUX's operand that is also its control (min(x, 1/2) is x >= 1/2 ? 1/2 : x) is not
    // computed inside the MUX: the control must be in spare0.a before the MUX's stage, so its own
    // combiner writes it (absorbed, the MUX read whatever spare0.a held).
    const bool own_control = h_[owner].op == HOp::Mux && h_[owner].kids[0] == p;
    const bool is_product = !own_control && (pn.op == HOp::Mul || (pn.op == HOp::Dot && allow_dot));
    const bool single = parents_[p].size() == 1;
    // A side output must not feed, through another reader, the combiner that writes it: that
    // reader would need the product before the combiner and the combiner the reader's value
    // (the paper's "values blocked from being written").
    if (is_product && !placed_[p] && !single && side_allowed && feeds_back(owner, p)) {
      if (t_.on())
        t_.add({CEvent::Fill, 3, origin(p), static_cast<int>(out_.size()), -1, -1, -1, portion, "DOT/MUL pass-through",
                "the shared product cannot be a side output: another of its readers feeds this combiner"});
      a = take(pc, p, owner, slot, portion, false, false);
      b = one(portion);
      dot = false;
      return kNoH;
    }
    if (is_product && !placed_[p] && (single || side_allowed)) {
      cover(pc, p);
      unit = p;
      dot = pn.op == HOp::Dot;
      a = take(pc, pn.kids[0], p, 0, portion, false, false);
      b = take(pc, h_[p].kids[1], p, 1, portion, false, false);
      if (t_.on())
        t_.add({CEvent::Fill, 3, origin(p), static_cast<int>(out_.size()), -1, -1, -1, portion, dot ? "DOT" : "MUL",
                single ? "" : "written as a side output: it has other readers"});
      return single ? kNoH : p;
    }
    if (t_.on() && pn.op == HOp::Dot && !allow_dot)
      t_.add({CEvent::Fill, 3, origin(p), static_cast<int>(out_.size()), -1, -1, -1, portion, "DOT/MUL pass-through",
              "the dot product stays out: an RGB combiner that ADDs cannot compute one"});
    a = take(pc, p, owner, slot, portion, false, false);
    b = one(portion);
    dot = false;
    return kNoH;
  }

  // Whether a reader of `p` other than `owner` lies below `owner` (reachable through its
  // operands other than p): then p cannot be written by owner's combiner.
  bool feeds_back(HId owner, HId p) const {
    std::vector<HId> stack;
    std::vector<char> seen(h_.nodes.size(), 0);
    for (HId k : h_[owner].kids)
      if (k != p) stack.push_back(k);
    while (!stack.empty()) {
      const HId x = stack.back();
      stack.pop_back();
      if (seen[x]) continue;
      seen[x] = 1;
      if (x != owner && std::find(h_[x].kids.begin(), h_[x].kids.end(), p) != h_[x].kids.end()) return true;
      for (HId k : h_[x].kids) stack.push_back(k);
    }
    return false;
  }

  void finish(PartialCombiner& pc, HId top_read) {
    // Every node this combiner covers is placed; what it reads is ready once all its readers are.
    std::sort(pc.covered.begin(), pc.covered.end());
    pc.covered.erase(std::unique(pc.covered.begin(), pc.covered.end()), pc.covered.end());
    for (HId c : pc.covered)
      if (h_[c].has_origin) pc.origin.push_back(h_[c].origin);
    std::sort(pc.origin.begin(), pc.origin.end());
    pc.origin.erase(std::unique(pc.origin.begin(), pc.origin.end()), pc.origin.end());
    std::vector<HId> reads;
    for (HId c : pc.covered) {
      std::vector<HId> kids = h_[c].kids;
      std::sort(kids.begin(), kids.end());
      kids.erase(std::unique(kids.begin(), kids.end()), kids.end());
      for (HId k : kids) {
        if (std::binary_search(pc.covered.begin(), pc.covered.end(), k)) continue;
        --remaining_[k];
        reads.push_back(k);
      }
    }
    if (top_read != kNoH) reads.push_back(top_read);  // a root the final combiner reads as it is
    if (pc.control != kNoH) needed_[pc.control] = 1;
    for (HId k : reads)
      if (remaining_[k] <= 0 && needed_[k]) push(k);
    out_.push_back(std::move(pc));
  }

  void final_rgb(HId root) {
    PartialCombiner pc;
    pc.kind = PcKind::FinalRgb;
    pc.priority = prio_[root];
    if (t_.on()) t_.add({CEvent::Combiner, 3, origin(root), static_cast<int>(out_.size()), -1, -1, -1, Part::Rgb, "FINAL RGB", "the RGB root: out.rgb = D"});
    pc.d = take(pc, root, kNoH, 0, Part::Rgb, true, false);
    finish(pc, pc.covered.empty() ? root : kNoH);
  }

  void final_alpha(HId root) {
    PartialCombiner pc;
    pc.kind = PcKind::FinalAlpha;
    pc.priority = prio_[root];
    if (t_.on()) t_.add({CEvent::Combiner, 3, origin(root), static_cast<int>(out_.size()), -1, -1, -1, Part::Alpha, "FINAL ALPHA", "the ALPHA root: out.a = G"});
    pc.d = take(pc, root, kNoH, 0, Part::Alpha, true, false);  // the G variable, kept in d
    finish(pc, pc.covered.empty() ? root : kNoH);
  }

  void general(HId n) {
    PartialCombiner pc;
    pc.priority = prio_[n];
    const Part portion = h_[n].part;
    HId cur = n;
    // OUTMAP: the combiner's scale/bias, over a value no one else reads. A move (an OUTMAP of
    // none, made for a MUX control) is a pass-through of its operand.
    const bool outmap_node = h_[n].op == HOp::OutMap || h_[n].op == HOp::BothMap;
    const bool is_move = h_[n].op == HOp::OutMap && static_cast<OutMap>(h_[n].map) == OutMap::None;
    if (outmap_node) {
      pc.out = static_cast<OutMap>(h_[n].map);
      cover(pc, n);
      const HId inner = h_[n].kids[0];
      if (!is_move && parents_[inner].size() == 1 && !placed_[inner] && !is_leaf(h_[inner])) cur = inner;
    }
    const HOp op = h_[cur].op;
    const bool full = (op == HOp::Add || op == HOp::Mux) && (cur != n || pc.out == OutMap::None);
    const bool half_product = !full && (op == HOp::Mul || (op == HOp::Dot && portion == Part::Rgb));
    pc.kind = full ? (portion == Part::Rgb ? PcKind::FullRgb : PcKind::FullAlpha) : (portion == Part::Rgb ? PcKind::HalfRgb : PcKind::HalfAlpha);
    if (t_.on()) {
      t_.add({CEvent::Combiner, 3, origin(n), static_cast<int>(out_.size()), -1, -1, -1, portion, to_string(pc.kind),
              full ? fmt::format("an {} before any MUL or DOT below it", to_string(op))
                   : half_product ? fmt::format("a {} with no ADD or MUX above it", to_string(op)) : "a value passed through (x * 1)"});
      if (pc.out != OutMap::None)
        t_.add({CEvent::Fill, 3, origin(n), static_cast<int>(out_.size()), -1, -1, -1, portion, std::string("OUTMAP ") + paper_name(pc.out), ""});
    }
    if (full) {
      cover(pc, cur);
      const bool mux = op == HOp::Mux;
      pc.mux = mux;
      if (t_.on()) t_.add({CEvent::Fill, 3, origin(cur), static_cast<int>(out_.size()), -1, -1, -1, portion, mux ? "MUX" : "ADD", mux ? "its control must be in spare0.a" : ""});
      if (mux) {
        pc.control = h_[cur].kids[0];
        needed_[pc.control] = 1;
      }
      const std::size_t left = mux ? 1 : 0, right = mux ? 2 : 1;
      // An RGB ADD shares its adder with the dot products. A MUX could select between them in
      // hardware (NV_register_combiners 1.6), but nvparse's !!RC1.0 grammar writes mux() and
      // sum() only over two products (Mul Mul Mux), so a dot product is computed a stage before.
      const bool allow_dot = false;
      const bool side = pc.out == OutMap::None;
      pc.combine_node = cur;
      pc.ab_value = product(pc, cur, left, portion, allow_dot, side, pc.a, pc.b, pc.ab_dot, pc.ab_node);
      pc.cd_value = product(pc, cur, right, portion, allow_dot, side, pc.c, pc.d, pc.cd_dot, pc.cd_node);
      pc.sum_value = n;
    } else if (half_product) {
      cover(pc, cur);
      pc.ab_node = cur;
      pc.ab_dot = op == HOp::Dot;
      pc.a = take(pc, h_[cur].kids[0], cur, 0, portion, false, false);
      pc.b = take(pc, h_[cur].kids[1], cur, 1, portion, false, false);
      if (t_.on()) t_.add({CEvent::Fill, 3, origin(cur), static_cast<int>(out_.size()), -1, -1, -1, portion, pc.ab_dot ? "DOT" : "MUL", ""});
      pc.ab_value = n;
    } else {
      // Pass-through: the value through A (its own mapping or component selection absorbed), times one.
      if (outmap_node) {
        pc.a = take(pc, h_[n].kids[0], n, 0, portion, false, false);
      } else {
        pc.a = take(pc, n, kNoH, 0, portion, false, true);
        if (pc.a.value == n) {
          f_ = {"internal", fmt::format("h{} ({}) cannot be passed through", n, describe(h_[n])), h_[n].origin, h_[n].has_origin};
          ready_ = {};
          return;
        }
      }
      pc.b = one(portion);
      pc.ab_value = n;
      pc.ab_node = n;
    }
    finish(pc, kNoH);
  }

  HDag& h_;
  std::vector<PartialCombiner>& out_;
  Failure& f_;
  CompileTrace& t_;
  std::vector<std::vector<HId>> parents_;
  std::vector<int> remaining_, prio_;
  std::vector<char> needed_, placed_, queued_;
  std::priority_queue<std::pair<int, long>, std::vector<std::pair<int, long>>, Top> ready_;
  bool no_blue_ = false;  // the final combiner's G may not read BLUE (a saved scalar goes to RGB too)
};

}  // namespace

// The machine is unused here; every stage takes it (stages.h).
bool select_combiners(HDag& h, const Machine&, std::vector<PartialCombiner>& out, Failure& f, CompileTrace& t) {
  Selector s(h, out, f, t);
  return s.run() && f.constraint.empty();
}

}  // namespace passlab::combiners
