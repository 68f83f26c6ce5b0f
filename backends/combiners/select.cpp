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
#include <optional>
#include <queue>
#include <tuple>

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
    case PcKind::FinalProduct: return "FINAL E*F";
  }
  return "?";
}

namespace {

constexpr int kWeight = 100, kAddWeight = 99;  // ADD and MUX weigh epsilon less

bool is_leaf(const HNode& n) { return n.op == HOp::Input || n.op == HOp::Const; }

class Selector {
 public:
  Selector(HDag& h, std::vector<PartialCombiner>& out, Failure& f, CompileTrace& t, bool final_arithmetic)
      : h_(h), out_(out), f_(f), t_(t), final_arithmetic_(final_arithmetic) {}

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
      if (!(final_arithmetic_ && final_arithmetic(h_.rgb_root))) final_rgb(h_.rgb_root);
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


  // ---- the final combiner's arithmetic ------------------------------------------------------
  //
  // out.rgb = A B + (1 - A) C + D, where any of A-D may read E x F: a root that is a sum of at
  // most three terms, each a product or a value, is computed there instead of in a general
  // stage. Its variables are unsigned (they read max(0, x)), so every operand must be a value
  // that cannot be negative or one that an unsigned mapping of the DAG already clamps; then the
  // sum, never negative, clamps at 1 exactly as the general combiners' sum and the final
  // unsigned() did. Assignments, in order: a lerp pair x t + y (1 - t) is lerp(t, x, y); a
  // product goes to A B, a second to E x F read by D; a lone value to D, a second value to A
  // with B = 1. Anything else keeps the paper's final combiner (out.rgb = D).

  // What a final variable would read for x: take()'s walk (one unsigned mapping, one TRIPLE),
  // without its effects.
  struct Probe {
    HId value = kNoH;
    Usage usage = Usage::Rgb;
    InMap map = InMap::UnsignedIdentity;
    bool mapped = false;
  };
  Probe probe(HId x) const {
    Probe p;
    bool map_free = true, usage_free = true;
    for (;;) {
      const HNode& xn = h_[x];
      const InMap map = static_cast<InMap>(xn.map);
      if (xn.op == HOp::InMap && map_free && (map == InMap::UnsignedIdentity || map == InMap::UnsignedInvert)) {
        p.map = map;
        p.mapped = true;
        map_free = false;
      } else if (xn.op == HOp::Triple && usage_free) {
        p.usage = Usage::Alpha;
        usage_free = false;
      } else {
        break;
      }
      x = xn.kids[0];
    }
    p.value = x;
    return p;
  }
  // Whether an unsigned variable reads the value x stands for.
  bool unsigned_readable(HId x) const {
    const Probe p = probe(x);
    const HNode& v = h_[p.value];
    if (v.range.nonnegative()) return true;
    // An unsigned mapping the DAG asks for: the variable clamps as the mapping would, unless the
    // value is an input or a constant that stage 4 may store negated or biased.
    return p.mapped && v.op != HOp::Input && v.op != HOp::Const;
  }

  // A product the final combiner can compute: an RGB MUL, or TRIPLE of an ALPHA one (its
  // variables read the scalars as ALPHA), with no other reader.
  struct Product {
    HId mul = kNoH, triple = kNoH;
  };
  // (A root is read by the final combiner as it is: it is never computed inside another's E x F.)
  bool lone_reader(HId x) const {
    return x < parents_.size() && parents_[x].size() <= 1 && !placed_[x] && x != h_.rgb_root && x != h_.alpha_root;
  }
  std::optional<Product> product_at(HId x) const {
    if (!lone_reader(x)) return std::nullopt;
    const HNode& n = h_[x];
    if (n.op == HOp::Mul && n.part == Part::Rgb) return Product{x, kNoH};
    if (n.op == HOp::Triple) {
      const HId m = n.kids[0];
      if (h_[m].op == HOp::Mul && parents_[m].size() == 1 && lone_reader(m)) return Product{m, x};
    }
    return std::nullopt;
  }
  bool final_readable(const Product& p) const {
    return unsigned_readable(h_[p.mul].kids[0]) && unsigned_readable(h_[p.mul].kids[1]);
  }

  int depth(HId x) { return combiner_depth(h_, x, depth_); }

  struct Term {
    HId value = kNoH, consumer = kNoH;
    std::size_t slot = 0;
    std::optional<Product> product;
  };

  // One way to fill the final combiner: A B (a product, or a value times 1), optionally a lerp's
  // (1 - A) C, D (a value, or E x F), or E x F nested as A (and B) inside the A B product.
  struct Plan {
    int ab = -1;               // the term in A B
    int lerp = -1;             // the term in (1 - A) C
    std::size_t t_slot = 0, one_minus_slot = 0;
    int d = -1;                // the term in D
    bool d_is_ef = false;      // D = E x F of that term's product
    int nested_slot = -1;      // A (0) or B (1) of the A B product is E x F of its own product operand (both when equal)
    int cost = 0, absorbed = 0;
    bool uses_ef() const { return d_is_ef || nested_slot >= 0; }
  };

  bool final_arithmetic(HId root) {
    const HNode& r = h_[root];
    if (r.part != Part::Rgb || !parents_[root].empty() || (r.op != HOp::Add && r.op != HOp::Mul && r.op != HOp::Triple)) return false;
    // The unscaled sum at the root, flattened through ADDs no one else reads.
    std::vector<Term> terms;
    std::vector<HId> adds;
    std::vector<std::tuple<HId, HId, std::size_t>> work{{root, kNoH, 0}};
    while (!work.empty()) {
      const auto [x, consumer, slot] = work.back();
      work.pop_back();
      const HNode& n = h_[x];
      if (n.op == HOp::Add && (x == root || parents_[x].size() == 1)) {
        adds.push_back(x);
        work.push_back({n.kids[1], x, 1});
        work.push_back({n.kids[0], x, 0});
        continue;
      }
      Term t{x, consumer, 0, std::nullopt};
      t.slot = slot;
      if (x != root) t.product = product_at(x);
      else if (n.op == HOp::Mul) t.product = Product{x, kNoH};
      else if (n.op == HOp::Triple && h_[n.kids[0]].op == HOp::Mul && lone_reader(n.kids[0])) t.product = Product{n.kids[0], x};
      if (t.product && !final_readable(*t.product)) t.product.reset();
      terms.push_back(t);
      if (terms.size() > 3) return false;
    }
    for (const Term& t : terms)
      if (!t.product && !unsigned_readable(t.value)) return false;
    if (terms.size() == 1 && !terms[0].product) return false;

    // What each term costs when the final combiner reads it as a value: the combiners computing it.
    auto value_cost = [&](const Term& t) { return depth(probe(t.value).value); };
    auto operand_cost = [&](HId k) { return depth(probe(k).value); };
    auto product_cost = [&](const Product& p) { return std::max(operand_cost(h_[p.mul].kids[0]), operand_cost(h_[p.mul].kids[1])); };
    // A product operand E x F can compute: a product (by product_at) the AB product alone reads.
    // (E and F read ALPHA for a scalar product; E x F is its value in RGB, which is what an
    // operand of TRIPLE(a * b) stands for.)
    auto nested = [&](const Product& p, int slot) -> std::optional<Product> {
      const HId k = h_[p.mul].kids[static_cast<std::size_t>(slot)];
      std::optional<Product> q;
      if (p.triple == kNoH) q = product_at(k);
      else if (h_[k].op == HOp::Mul && parents_[k].size() == 1 && lone_reader(k)) q = Product{k, kNoH};
      if (!q || !final_readable(*q)) return std::nullopt;
      return q;
    };
    std::vector<Plan> plans;
    auto rest_ok = [&](const Plan& p) {
      for (std::size_t i = 0; i < terms.size(); ++i)
        if (static_cast<int>(i) != p.ab && static_cast<int>(i) != p.lerp && static_cast<int>(i) != p.d) return false;
      return true;
    };
    auto add_plan = [&](Plan p) {
      if (!rest_ok(p)) return;
      int cost = 0, absorbed = 0;
      const Term& ab = terms[static_cast<std::size_t>(p.ab)];
      if (ab.product) {
        ++absorbed;
        for (int s = 0; s < 2; ++s) {
          const HId k = h_[ab.product->mul].kids[static_cast<std::size_t>(s)];
          if (p.nested_slot >= 0 && (s == p.nested_slot || h_[ab.product->mul].kids[0] == h_[ab.product->mul].kids[1])) {
            cost = std::max(cost, product_cost(*nested(*ab.product, p.nested_slot)));
            absorbed += s == p.nested_slot ? 1 : 0;
          } else {
            cost = std::max(cost, operand_cost(k));
          }
        }
      } else {
        cost = std::max(cost, value_cost(ab));
      }
      if (p.lerp >= 0) {
        ++absorbed;
        cost = std::max(cost, product_cost(*terms[static_cast<std::size_t>(p.lerp)].product));
      }
      if (p.d >= 0) {
        const Term& d = terms[static_cast<std::size_t>(p.d)];
        if (p.d_is_ef) {
          ++absorbed;
          cost = std::max(cost, product_cost(*d.product));
        } else {
          cost = std::max(cost, value_cost(d));
        }
      }
      p.cost = cost;
      p.absorbed = absorbed;
      plans.push_back(p);
    };
    const int n = static_cast<int>(terms.size());
    for (int i = 0; i < n; ++i) {
      const Term& ti = terms[static_cast<std::size_t>(i)];
      if (!ti.product) continue;
      // A lerp pair: x t (this term) and y (1 - t), t read unsigned by both.
      for (int j = 0; j < n; ++j) {
        const Term& tj = terms[static_cast<std::size_t>(j)];
        if (i == j || !tj.product) continue;
        for (std::size_t si = 0; si < 2; ++si)
          for (std::size_t sj = 0; sj < 2; ++sj) {
            const Probe a = probe(h_[ti.product->mul].kids[si]), b = probe(h_[tj.product->mul].kids[sj]);
            const bool usage_ok = (ti.product->triple != kNoH) == (tj.product->triple != kNoH);
            if (!usage_ok || a.value != b.value || a.usage != b.usage || a.map != InMap::UnsignedIdentity || b.map != InMap::UnsignedInvert ||
                !h_[a.value].range.within(0.0f, 1.0f))
              continue;
            Plan p;
            p.ab = i, p.lerp = j, p.t_slot = si, p.one_minus_slot = sj;
            if (n == 2) add_plan(p);
            for (int k = 0; k < n; ++k) {
              if (k == i || k == j) continue;
              Plan q = p;
              q.d = k;
              q.d_is_ef = terms[static_cast<std::size_t>(k)].product.has_value();
              add_plan(q);
              if (q.d_is_ef) {
                q.d_is_ef = false;
                add_plan(q);
              }
            }
          }
      }
      // A B = this product, D = the rest.
      for (int nest = -1; nest < 2; ++nest) {
        if (nest >= 0 && !nested(*ti.product, nest)) continue;
        Plan p;
        p.ab = i;
        p.nested_slot = nest;
        if (n == 1) add_plan(p);
        for (int k = 0; k < n; ++k) {
          if (k == i) continue;
          Plan q = p;
          q.d = k;
          if (terms[static_cast<std::size_t>(k)].product && nest < 0) {
            q.d_is_ef = true;
            add_plan(q);
            q.d_is_ef = false;
          }
          add_plan(q);
        }
      }
    }
    // Two values: A = the first, B = 1, D = the second.
    if (n == 2)
      for (int i = 0; i < 2; ++i) {
        Plan p;
        p.ab = i;
        p.d = 1 - i;
        add_plan(p);
      }
    if (plans.empty()) return false;
    // The fewest combiners before the final one, then the most it computes itself, then E x F
    // left unused (a lerp rather than A B + E F).
    const Plan best = *std::min_element(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) {
      return std::make_tuple(a.cost, -a.absorbed, a.uses_ef()) < std::make_tuple(b.cost, -b.absorbed, b.uses_ef());
    });

    PartialCombiner pc;
    pc.kind = PcKind::FinalRgb;
    pc.priority = prio_[root];
    pc.combine_node = root;
    pc.a = pc.b = pc.c = pc.d = Operand{kNoH, Usage::Rgb, InMap::UnsignedIdentity};
    for (HId a : adds) cover(pc, a);
    // The operands of `p` into x and y (x reads kid `first`), as unsigned final variables.
    auto product_into = [&](PartialCombiner& into, const Product& p, std::size_t first, Operand& x, Operand& y) {
      if (p.triple != kNoH) cover(into, p.triple);
      cover(into, p.mul);
      x = final_operand(into, h_[p.mul].kids[first], p.mul, first);
      y = final_operand(into, h_[p.mul].kids[1 - first], p.mul, 1 - first);
    };
    // E x F: a partial combiner of its own, which the final RGB reads as a value.
    auto ef_of = [&](const Product& q) {
      PartialCombiner ef;
      ef.kind = PcKind::FinalProduct;
      ef.priority = prio_[q.mul];
      product_into(ef, q, 0, ef.a, ef.b);
      const HId v = q.triple != kNoH ? q.triple : q.mul;
      ef.ab_value = ef.ab_node = v;
      finish(ef, kNoH);
      return Operand{v, Usage::Rgb, InMap::UnsignedIdentity};
    };
    const Term& ab = terms[static_cast<std::size_t>(best.ab)];
    if (!ab.product) {
      pc.a = take(pc, ab.value, ab.consumer, ab.slot, Part::Rgb, true, false);
      pc.b = one(Part::Rgb);
    } else if (best.lerp >= 0) {
      const Term& lt = terms[static_cast<std::size_t>(best.lerp)];
      product_into(pc, *ab.product, best.t_slot, pc.a, pc.b);
      Operand one_minus;
      product_into(pc, *lt.product, 1 - best.one_minus_slot, pc.c, one_minus);  // (1 - t) is absorbed: A's complement
      pc.ab_node = ab.product->mul;
      pc.cd_node = lt.product->mul;
    } else if (best.nested_slot >= 0) {
      const Product& p = *ab.product;
      if (p.triple != kNoH) cover(pc, p.triple);
      cover(pc, p.mul);
      const std::size_t ns = static_cast<std::size_t>(best.nested_slot);
      const HId inner = h_[p.mul].kids[ns];
      const Operand ef = ef_of(*nested(p, best.nested_slot));
      pc.a = ef;
      pc.b = h_[p.mul].kids[1 - ns] == inner ? ef : final_operand(pc, h_[p.mul].kids[1 - ns], p.mul, 1 - ns);
      pc.ab_node = p.mul;
    } else {
      product_into(pc, *ab.product, 0, pc.a, pc.b);
      pc.ab_node = ab.product->mul;
    }
    if (best.d >= 0) {
      const Term& t = terms[static_cast<std::size_t>(best.d)];
      pc.d = best.d_is_ef ? ef_of(*t.product) : take(pc, t.value, t.consumer, t.slot, Part::Rgb, true, false);
    }
    if (t_.on())
      t_.add({CEvent::Combiner, 3, origin(root), static_cast<int>(out_.size()), -1, -1, -1, Part::Rgb, "FINAL RGB",
              fmt::format("the RGB root, a sum of {} term{}, computed by the final combiner: out.rgb = {}{}{}", terms.size(), terms.size() == 1 ? "" : "s",
                          best.lerp >= 0 ? "lerp(A, B, C)" : "A B", best.d >= 0 ? " + D" : "",
                          best.d_is_ef ? ", D = E x F" : best.nested_slot >= 0 ? ", A = E x F" : "")});
    finish(pc, kNoH);
    return true;
  }

  // An unsigned final variable reading kid `slot` of `consumer`; a scalar is read as ALPHA.
  Operand final_operand(PartialCombiner& pc, HId x, HId consumer, std::size_t slot) {
    Operand o = take(pc, x, consumer, slot, Part::Rgb, true, false);
    if (h_[o.value].part == Part::Alpha && o.usage == Usage::Rgb) o.usage = Usage::Alpha;
    return o;
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
  bool final_arithmetic_ = true;
  std::vector<int> depth_;
};

}  // namespace

// The machine is unused here; every stage takes it (stages.h).
bool select_combiners(HDag& h, const Machine&, std::vector<PartialCombiner>& out, Failure& f, CompileTrace& t, bool final_arithmetic) {
  Selector s(h, out, f, t, final_arithmetic);
  return s.run() && f.constraint.empty();
}

}  // namespace passlab::combiners
