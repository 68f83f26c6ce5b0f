// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 2 (beyond the paper): products reassociated, as a programmer writing combiners by hand
// does. The source's order of a product of several factors is arbitrary (Kd * Md * NdotL * shadow
// * Navglen), but each MUL is a combiner and a chain of them is as many stages; multiplied the
// two earliest-available factors first (Huffman's rule on their depths in combiners), the chain
// is as short as its latest factor allows, and scalar factors meet in the ALPHA portions before
// the last product joins them to the vector. Before the mappings are recognised, so a constant
// factor is still a constant and folds into one.
//
// Exact: every factor is read from a register, which holds [-1, 1], and constants must lie there
// too, so every partial product does and no order clamps anything the other would not. A factor is a value with other
// readers, anything not a product, and a product by a constant of a sum (2 (x - 1/2) is an
// input mapping, kept whole). A square of a MUX with a zero arm, (c ? x : 0)^2, becomes
// c ? x^2 : 0, so the MUX's own combiner computes the product.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

namespace {

class Reassociator {
 public:
  Reassociator(HDag& h, CompileTrace& t) : h_(h), t_(t) {}

  void run() {
    squares_of_muxes();
    parents_ = h_.parents();
    depth_.assign(h_.nodes.size(), -1);
    const std::vector<HId> order = h_.topological();
    // Chain tops: products whose reader is not a product of the same chain. From the roots down,
    // so an outer chain is rebuilt before any inner one would be looked at on its own.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const HId x = *it;
      if (x >= parents_.size() || h_[x].op != HOp::Mul || inside_.count(x)) continue;
      rebuild(x);
    }
  }

 private:
  bool single(HId x) const { return x < parents_.size() && parents_[x].size() == 1 && x != h_.rgb_root && x != h_.alpha_root; }
  bool is_const(HId x) const { return h_[x].op == HOp::Const || (h_[x].op == HOp::Triple && h_[h_[x].kids[0]].op == HOp::Const); }
  float const_value(HId x, int c) const {
    const HNode& n = h_[x].op == HOp::Triple ? h_[h_[x].kids[0]] : h_[x];
    return n.part == Part::Alpha ? n.value[0] : n.value[static_cast<std::size_t>(c)];
  }
  // 0, 1, 1/2, -1/2 and -1: the zero register through a mapping, no constant register.
  static bool special(float c) { return c == 0.0f || c == 1.0f || c == 0.5f || c == -0.5f || c == -1.0f; }
  bool free_constant(HId x) const {
    const float c = const_value(x, 0);
    return special(c) && (h_[x].op == HOp::Triple || h_[x].part == Part::Alpha || (const_value(x, 1) == c && const_value(x, 2) == c));
  }
  // A product kept whole: a constant times a sum is what the mappings read as expand() and such.
  bool protected_product(HId x) const {
    const HNode& n = h_[x];
    return n.op == HOp::Mul && ((is_const(n.kids[0]) && h_[n.kids[1]].op == HOp::Add) || (is_const(n.kids[1]) && h_[n.kids[0]].op == HOp::Add));
  }
  // A factor's value as the product reads it lies within [-1, 1]: a value is read from a register
  // (which holds [-1, 1], clamped alike in any order); a constant must be so itself.
  bool within_unit(HId x) const {
    if (!is_const(x)) return true;
    for (int c = 0; c < 3; ++c)
      if (std::fabs(const_value(x, c)) > 1.0f) return false;
    return true;
  }

  int depth(HId x) { return combiner_depth(h_, x, depth_); }

  struct Factor {
    HId value = kNoH;
    Part part = Part::Rgb;  // a scalar factor of an RGB chain is its ALPHA value (TRIPLE comes back at the join)
    int depth = 0;
    int order = 0;          // the source's order, for ties
  };

  // The factors of the product x of part `part`; false when the chain cannot be rebuilt exactly.
  bool collect(HId x, Part part, std::vector<HId>& members, std::vector<Factor>& factors, std::vector<HId>& consts) {
    const HNode n = h_[x];
    for (HId k : n.kids) {
      const HNode& kn = h_[k];
      if (kn.op == HOp::Mul && kn.part == part && single(k) && !protected_product(k)) {
        members.push_back(k);
        if (!collect(k, part, members, factors, consts)) return false;
        continue;
      }
      if (part == Part::Rgb && kn.op == HOp::Triple && single(k)) {
        const HId s = kn.kids[0];
        if (h_[s].op == HOp::Mul && single(s) && !protected_product(s)) {
          members.push_back(k);
          members.push_back(s);
          if (!collect(s, Part::Alpha, members, factors, consts)) return false;
          continue;
        }
      }
      if (!within_unit(k)) return false;
      if (is_const(k)) {
        consts.push_back(k);
        continue;
      }
      const bool scalar = kn.part == Part::Alpha || kn.op == HOp::Triple;
      const HId v = kn.op == HOp::Triple && part == Part::Rgb ? kn.kids[0] : k;
      factors.push_back({v, scalar ? Part::Alpha : Part::Rgb, depth(v), static_cast<int>(factors.size())});
    }
    return true;
  }

  HId make(HOp op, Part part, std::vector<HId> kids, HId like) {
    HNode n;
    n.op = op;
    n.part = part;
    n.kids = std::move(kids);
    n.origin = h_[like].origin;
    n.has_origin = h_[like].has_origin;
    return h_.add(std::move(n));
  }
  HId as_rgb(const Factor& f, HId like) { return f.part == Part::Rgb ? f.value : make(HOp::Triple, Part::Rgb, {f.value}, like); }

  void rebuild(HId top) {
    const Part part = h_[top].part;
    std::vector<HId> members{top};
    std::vector<Factor> factors;
    std::vector<HId> consts;
    if (!collect(top, part, members, factors, consts)) return;
    for (HId m : members) inside_.insert(m);
    if (factors.size() + consts.size() < 3 || factors.empty()) return;
    // The constants, folded into one (a scalar when uniform). Not where that would turn constants
    // the zero register gives through a mapping (1/2, -1, ...) into one that takes a constant
    // register: GeForce1 has two.
    if (!consts.empty()) {
      std::array<float, 3> c{1, 1, 1};
      for (HId k : consts)
        for (int i = 0; i < 3; ++i) c[static_cast<std::size_t>(i)] *= const_value(k, part == Part::Alpha ? 0 : i);
      const bool uniform = part == Part::Alpha || (c[0] == c[1] && c[1] == c[2]);
      const bool free_before = std::all_of(consts.begin(), consts.end(), [&](HId k) { return free_constant(k); });
      if (free_before && !(uniform && special(c[0]))) return;
      if (!(uniform && c[0] == 1.0f)) {
        HNode k;
        k.op = HOp::Const;
        k.part = uniform ? Part::Alpha : Part::Rgb;
        k.value = uniform ? std::array<float, 3>{c[0], c[0], c[0]} : c;
        const Part kp = k.part;
        const HId id = h_.add(std::move(k));
        factors.push_back({id, kp, 0, -1});
      }
    }
    const int before = depth(top);
    // Huffman's rule: the two shallowest first; two scalars meet in ALPHA, anything with a
    // vector in RGB. The last product of an RGB chain is in RGB.
    std::vector<Factor> work = factors;
    auto shallower = [](const Factor& a, const Factor& b) { return std::tie(a.depth, a.order) < std::tie(b.depth, b.order); };
    int next = static_cast<int>(factors.size());
    while (work.size() > 2 || (work.size() == 2 && part == Part::Alpha)) {
      std::sort(work.begin(), work.end(), shallower);
      const Factor a = work[0], b = work[1];
      work.erase(work.begin(), work.begin() + 2);
      Factor m;
      if (a.part == Part::Alpha && b.part == Part::Alpha) {
        m.value = make(HOp::Mul, Part::Alpha, {a.value, b.value}, top);
        m.part = Part::Alpha;
      } else {
        m.value = make(HOp::Mul, Part::Rgb, {as_rgb(a, top), as_rgb(b, top)}, top);
        m.part = Part::Rgb;
      }
      m.depth = std::max(a.depth, b.depth) + 1;
      m.order = next++;
      work.push_back(m);
    }
    HNode result;
    if (work.size() == 2) {
      result = h_[top];
      result.kids = {as_rgb(work[0], top), as_rgb(work[1], top)};
      if (std::max(work[0].depth, work[1].depth) + 1 >= before) return;  // no shorter: the source's order stays
    } else {
      // An ALPHA chain multiplied down to one new product.
      if (work.size() != 1 || work[0].order < static_cast<int>(factors.size()) || work[0].depth >= before) return;
      result = h_[work[0].value];
    }
    result.origin = h_[top].origin;
    result.has_origin = h_[top].has_origin;
    result.range = h_[top].range;
    h_[top] = result;
    if (t_.on())
      t_.add({CEvent::Rewrite, 2, h_[top].has_origin ? std::vector<dag::NodeId>{h_[top].origin} : std::vector<dag::NodeId>{}, -1, -1, -1, -1, part,
              "reassociate", fmt::format("a product of {} factors, {} combiners deep in the source's order, {} reassociated", factors.size(), before,
                                         std::max(work[0].depth, work.size() == 2 ? work[1].depth : 0) + (work.size() == 2 ? 1 : 0))});
    depth_.assign(h_.nodes.size(), -1);
  }

  // (c ? x : 0)^2 -> c ? x^2 : 0 (and 0 on the other side), where the MUX has no other reader.
  void squares_of_muxes() {
    const auto parents = h_.parents();
    for (HId i : h_.topological()) {
      HNode& n = h_[i];
      if (n.op != HOp::Mul || n.kids[0] != n.kids[1]) continue;
      const HId m = n.kids[0];
      if (h_[m].op != HOp::Mux || m >= parents.size() || parents[m].size() != 1) continue;
      const HNode mux = h_[m];
      auto zero = [&](HId x) { return h_[x].op == HOp::Const && h_[x].value[0] == 0.0f && h_[x].value[1] == 0.0f && h_[x].value[2] == 0.0f; };
      const int arm = zero(mux.kids[1]) ? 2 : zero(mux.kids[2]) ? 1 : 0;
      if (arm == 0) continue;
      const HId x = mux.kids[static_cast<std::size_t>(arm)];
      const HId sq = make(HOp::Mul, mux.part, {x, x}, i);
      HNode replaced = mux;
      replaced.kids[static_cast<std::size_t>(arm)] = sq;
      replaced.origin = h_[i].origin;
      replaced.has_origin = h_[i].has_origin;
      h_[i] = replaced;
      if (t_.on())
        t_.add({CEvent::Rewrite, 2, h_[i].has_origin ? std::vector<dag::NodeId>{h_[i].origin} : std::vector<dag::NodeId>{}, -1, -1, -1, -1, mux.part,
                "square of a select", "(c ? x : 0)^2 = c ? x^2 : 0: the MUX's combiner computes the product"});
    }
  }

  HDag& h_;
  CompileTrace& t_;
  std::vector<std::vector<HId>> parents_;
  std::vector<int> depth_;
  std::set<HId> inside_;
};

}  // namespace

void reassociate(const PassSpec&, HDag& h, CompileTrace& t) { Reassociator(h, t).run(); }

}  // namespace passlab::combiners
