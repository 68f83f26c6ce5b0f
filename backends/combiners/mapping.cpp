// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 2b (Mark & Proudfoot §4): groups of operations that one input or output mapping computes,
// found by a greedy walk from the roots toward the leaves that tries the more complex mappings
// first, each replacing its group by one INMAP, OUTMAP or BOTHMAP node:
//   2(x - 1/2), 2x - 1          BOTHMAP (expand() as an input when x >= 0, or bias+scale out)
//   1 - 2x                       INMAP expand_negate (x >= 0)
//   x - 1/2                      BOTHMAP (half_bias() in, or bias out)
//   1/2 - x                      INMAP half_bias_negate (x >= 0)
//   1 - x                        INMAP unsigned_invert (x in [0, 1], proved by the intervals)
//   2x, x + x, 4x, x/2           OUTMAP scales
//   -x                           INMAP signed_negate
// Then, beyond the paper, the factoring it names but never built: a product by a constant c with
// 1 < |c| <= 4 becomes an output scale of 2 or 4 over a product by c/2 or c/4 (3.5x -> 4 (0.875x)),
// and a sum with such a constant is scaled the same way. Constants left outside [-1, 1] fail.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "backends/combiners/stages.h"

namespace passlab::combiners {

namespace {

class Mapper {
 public:
  Mapper(const PassSpec& pass, HDag& h, Failure& f, CompileTrace& t) : p_(pass), h_(h), f_(f), t_(t), forward_(h.nodes.size(), kNoH) {}

  bool run() {
    std::vector<char> seen;
    std::vector<HId> stack;
    for (HId r : {h_.rgb_root, h_.alpha_root})
      if (r != kNoH) stack.push_back(r);
    while (!stack.empty()) {
      const HId n = resolve(stack.back());
      stack.pop_back();
      if (seen.size() < h_.nodes.size()) seen.resize(h_.nodes.size(), 0);
      if (seen[n]) continue;
      seen[n] = 1;
      for (int guard = 0; guard < 16 && rewrite(n); ++guard) {
      }
      for (HId& k : h_[n].kids) k = resolve(k);
      for (auto it = h_[n].kids.rbegin(); it != h_[n].kids.rend(); ++it) stack.push_back(*it);
    }
    for (HNode& n : h_.nodes)
      for (HId& k : n.kids) k = resolve(k);
    if (h_.rgb_root != kNoH) h_.rgb_root = resolve(h_.rgb_root);
    if (h_.alpha_root != kNoH) h_.alpha_root = resolve(h_.alpha_root);
    compute_ranges(p_, h_);
    // Constants the registers cannot hold (nor any mapping or scale produce).
    for (HId i : h_.topological()) {
      const HNode& n = h_[i];
      if (n.op != HOp::Const) continue;
      const int k = n.part == Part::Rgb ? 3 : 1;
      for (int c = 0; c < k; ++c) {
        const float v = n.value[static_cast<std::size_t>(c)];
        if (!(std::fabs(v) <= 1.0f)) {  // NaN too (sqrt of a negative constant, folded)
          // A constant a rewrite made has no node of its own: it is placed at a reader's.
          dag::NodeId origin = n.origin;
          bool has_origin = n.has_origin;
          for (HId r = 0; r < h_.nodes.size() && !has_origin; ++r)
            if (h_[r].has_origin && std::find(h_[r].kids.begin(), h_[r].kids.end(), i) != h_[r].kids.end()) {
              origin = h_[r].origin;
              has_origin = true;
            }
          f_ = {"constant-range",
                std::isnan(v) ? std::string("a constant that is not a number (an operation on constants with no value, such as the "
                                            "square root of a negative number): no register can hold it")
                              : fmt::format("the constant {:g} is outside [-1, 1]: the combiners' registers hold [-1, 1], and a product by a "
                                            "constant up to 4 is the most an output scale can make of it",
                                            v),
                origin, has_origin};
          t_.add({CEvent::Fail, 2, has_origin ? std::vector<dag::NodeId>{origin} : std::vector<dag::NodeId>{}, -1, -1, -1, -1,
                  n.part, f_.constraint, f_.message});
          return false;
        }
      }
    }
    return true;
  }

 private:
  HId resolve(HId n) const {
    while (n < forward_.size() && forward_[n] != kNoH) n = forward_[n];
    return n;
  }
  bool is_c(HId n, float v) const {
    n = resolve(n);
    const HNode& x = h_[n];
    if (x.op != HOp::Const) return false;
    const int k = x.part == Part::Rgb ? 3 : 1;
    for (int c = 0; c < k; ++c)
      if (x.value[static_cast<std::size_t>(c)] != v) return false;
    return true;
  }
  bool is_op(HId n, HOp op) const { return h_[resolve(n)].op == op; }
  bool is_map(HId n, HOp op, std::uint8_t map) const { return h_[resolve(n)].op == op && h_[resolve(n)].map == map; }
  const Interval& range(HId n) const { return h_[resolve(n)].range; }
  HId kid(HId n, std::size_t k) const { return resolve(h_[n].kids[k]); }
  float max_abs(HId n) const {
    const HNode& x = h_[resolve(n)];
    float m = 0;
    for (int c = 0; c < (x.part == Part::Rgb ? 3 : 1); ++c) m = std::max(m, std::fabs(x.value[static_cast<std::size_t>(c)]));
    return m;
  }

  HId make(HOp op, Part part, std::vector<HId> kids, std::uint8_t map, const HNode& like) {
    HNode n;
    n.op = op;
    n.part = part;
    n.kids = std::move(kids);
    n.map = map;
    n.origin = like.origin;
    n.has_origin = like.has_origin;
    const HId id = h_.add(std::move(n));
    forward_.push_back(kNoH);
    return id;
  }
  HId scaled_const(HId c, float s) {
    HNode n = h_[resolve(c)];
    for (float& v : n.value) v *= s;
    n.kids.clear();
    const HId id = h_.add(std::move(n));
    forward_.push_back(kNoH);
    return id;
  }
  // Turns n into op(map, x) in place (every parent of n now reads the mapping).
  void become(HId n, HOp op, std::uint8_t map, HId x, const char* pattern, const char* why) {
    const std::vector<HId> before = h_[n].kids;
    h_[n].op = op;
    h_[n].map = map;
    h_[n].kids = {x};
    if (t_.on()) {
      const char* name = op == HOp::InMap ? paper_name(static_cast<InMap>(map)) : paper_name(static_cast<OutMap>(map));
      t_.add({CEvent::Mapping, 2, h_[n].has_origin ? std::vector<dag::NodeId>{h_[n].origin} : std::vector<dag::NodeId>{}, -1, -1, -1, -1,
              h_[n].part, fmt::format("{} {}", to_string(op), name), fmt::format("{}{}{}", pattern, *why ? ": " : "", why)});
    }
  }
  void replace(HId n, HId by) {
    forward_[n] = by;
    h_[n].removed = true;
  }
  void become_const(HId n, std::array<float, 3> v) {
    h_[n].op = HOp::Const;
    h_[n].kids.clear();
    h_[n].value = v;
  }

  bool rewrite(HId n) {
    const HNode x = h_[n];  // a copy: making nodes may move the vector
    const auto im = [](InMap m) { return static_cast<std::uint8_t>(m); };
    const auto om = [](OutMap m) { return static_cast<std::uint8_t>(m); };
    switch (x.op) {
      case HOp::Mul: {
        for (int s = 0; s < 2; ++s) {
          const HId a = kid(n, static_cast<std::size_t>(s)), b = kid(n, static_cast<std::size_t>(1 - s));
          if (is_c(a, 2.0f) && is_op(b, HOp::Add)) {
            for (int t = 0; t < 2; ++t)
              if (is_c(kid(b, static_cast<std::size_t>(t)), -0.5f)) {
                become(n, HOp::BothMap, om(OutMap::BiasScale2), kid(b, static_cast<std::size_t>(1 - t)), "2(x - 1/2)", "");
                return true;
              }
          }
          if (is_c(a, 1.0f)) return replace(n, b), true;
          if (is_c(a, 0.0f)) return become_const(n, {0, 0, 0}), true;
          if (is_c(a, -1.0f)) return become(n, HOp::InMap, im(InMap::SignedNegate), b, "-1 x", ""), true;
          if (is_c(a, 2.0f)) return become(n, HOp::OutMap, om(OutMap::Scale2), b, "2x", ""), true;
          if (is_c(a, 4.0f)) return become(n, HOp::OutMap, om(OutMap::Scale4), b, "4x", ""), true;
          if (is_c(a, 0.5f) && (is_op(b, HOp::Add) || is_op(b, HOp::Mux) || is_op(b, HOp::Mul) || is_op(b, HOp::Dot)))
            return become(n, HOp::OutMap, om(OutMap::ScaleHalf), b, "x/2", "over a combiner's result"), true;
          if (is_op(a, HOp::Const) && max_abs(a) > 1.0f && max_abs(a) <= 4.0f) {
            const float scale = max_abs(a) <= 2.0f ? 2.0f : 4.0f;
            const HId inner = make(HOp::Mul, x.part, {scaled_const(a, 1.0f / scale), b}, 0, x);
            h_[inner].range = (h_[resolve(h_[inner].kids[0])].range * range(b)).clamped();
            become(n, HOp::OutMap, om(scale == 2.0f ? OutMap::Scale2 : OutMap::Scale4), inner, "factored",
                   scale == 2.0f ? "c x = 2 (c/2 x)" : "c x = 4 (c/4 x)");
            if (t_.on()) t_.events.back().kind = CEvent::Factor;
            return true;
          }
        }
        return false;
      }
      case HOp::Add: {
        if (kid(n, 0) == kid(n, 1)) return become(n, HOp::OutMap, om(OutMap::Scale2), kid(n, 0), "x + x", ""), true;
        for (int s = 0; s < 2; ++s) {
          const HId a = kid(n, static_cast<std::size_t>(s)), b = kid(n, static_cast<std::size_t>(1 - s));
          if (is_c(a, -1.0f) && (is_map(b, HOp::OutMap, om(OutMap::Scale2)) || (is_op(b, HOp::Mul) && (is_c(kid(b, 0), 2.0f) || is_c(kid(b, 1), 2.0f))))) {
            const HId y = is_op(b, HOp::OutMap) ? kid(b, 0) : is_c(kid(b, 0), 2.0f) ? kid(b, 1) : kid(b, 0);
            return become(n, HOp::BothMap, om(OutMap::BiasScale2), y, "2x - 1", ""), true;
          }
          if (is_c(a, 1.0f) && is_map(b, HOp::InMap, im(InMap::SignedNegate))) {
            const HId y = kid(b, 0);
            if (is_map(y, HOp::OutMap, om(OutMap::Scale2)) && range(kid(y, 0)).nonnegative())
              return become(n, HOp::InMap, im(InMap::ExpandNegate), kid(y, 0), "1 - 2x", "x >= 0 proved"), true;
            if (range(y).within(0.0f, 1.0f))
              return become(n, HOp::InMap, im(InMap::UnsignedInvert), y, "1 - x", "x in [0, 1] proved"), true;
          }
          if (is_c(a, -0.5f)) return become(n, HOp::BothMap, om(OutMap::BiasHalf), b, "x - 1/2", ""), true;
          if (is_c(a, 0.5f) && is_map(b, HOp::InMap, im(InMap::SignedNegate)) && range(kid(b, 0)).nonnegative())
            return become(n, HOp::InMap, im(InMap::HalfBiasNegate), kid(b, 0), "1/2 - x", "x >= 0 proved"), true;
          if (is_c(a, 0.0f)) return replace(n, b), true;
          if (is_op(a, HOp::Const) && max_abs(a) > 1.0f && max_abs(a) <= 4.0f && !is_op(b, HOp::Const)) {
            const float scale = max_abs(a) <= 2.0f ? 2.0f : 4.0f;
            HNode q;
            q.op = HOp::Const;
            q.part = x.part;
            q.value = {1.0f / scale, 1.0f / scale, 1.0f / scale};
            const HId qc = h_.add(q);
            forward_.push_back(kNoH);
            const HId part_b = make(HOp::Mul, x.part, {b, qc}, 0, x);
            const HId sum = make(HOp::Add, x.part, {part_b, scaled_const(a, 1.0f / scale)}, 0, x);
            become(n, HOp::OutMap, om(scale == 2.0f ? OutMap::Scale2 : OutMap::Scale4), sum, "factored",
                   scale == 2.0f ? "x + c = 2 (x/2 + c/2)" : "x + c = 4 (x/4 + c/4)");
            if (t_.on()) t_.events.back().kind = CEvent::Factor;
            return true;
          }
        }
        return false;
      }
      case HOp::InMap: {
        const InMap m = static_cast<InMap>(x.map);
        const HId y = kid(n, 0);
        const HNode yn = h_[y];
        if (yn.op == HOp::Const) {
          std::array<float, 3> v = yn.value;
          for (float& c : v) c = apply(m, c);
          return become_const(n, v), true;
        }
        if (yn.op == HOp::InMap) {
          InMap c;
          if (m == InMap::SignedNegate && static_cast<InMap>(yn.map) == InMap::SignedNegate) return replace(n, kid(y, 0)), true;
          if (compose(m, static_cast<InMap>(yn.map), &c)) return become(n, HOp::InMap, static_cast<std::uint8_t>(c), kid(y, 0), "composed", ""), true;
        }
        if (m == InMap::SignedNegate && yn.op == HOp::BothMap && range(kid(y, 0)).nonnegative()) {
          const OutMap b = static_cast<OutMap>(yn.map);
          if (b == OutMap::BiasScale2) return become(n, HOp::InMap, im(InMap::ExpandNegate), kid(y, 0), "-2(x - 1/2)", "x >= 0 proved"), true;
          if (b == OutMap::BiasHalf) return become(n, HOp::InMap, im(InMap::HalfBiasNegate), kid(y, 0), "-(x - 1/2)", "x >= 0 proved"), true;
        }
        if (m == InMap::UnsignedIdentity && range(y).nonnegative()) return replace(n, y), true;
        return false;
      }
      case HOp::OutMap: {
        const HId y = kid(n, 0);
        if (static_cast<OutMap>(x.map) == OutMap::Scale2 && is_op(y, HOp::Add)) {
          for (int t = 0; t < 2; ++t)
            if (is_c(kid(y, static_cast<std::size_t>(t)), -0.5f))
              return become(n, HOp::BothMap, om(OutMap::BiasScale2), kid(y, static_cast<std::size_t>(1 - t)), "2(x - 1/2)", ""), true;
        }
        return false;
      }
      case HOp::Triple:
      case HOp::Blue: {
        const HId y = kid(n, 0);
        if (h_[y].op == HOp::Const) {
          const float v = x.op == HOp::Triple ? h_[y].value[0] : h_[y].value[2];
          return become_const(n, {v, v, v}), true;
        }
        if (x.op == HOp::Triple && h_[y].op == HOp::Blue && is_op(kid(y, 0), HOp::Dot)) return replace(n, kid(y, 0)), true;
        // TRIPLE(INMAP(BLUE(DOT))): a DOT is already in all three components, so this is the
        // mapping of the DOT itself (no scalar has to be moved to an alpha part first).
        if (x.op == HOp::Triple && h_[y].op == HOp::InMap && is_op(kid(y, 0), HOp::Blue) && is_op(kid(kid(y, 0), 0), HOp::Dot)) {
          become(n, HOp::InMap, h_[y].map, kid(kid(y, 0), 0), "TRIPLE(INMAP(BLUE(DOT)))", "a DOT fills all three components");
          h_[n].part = Part::Rgb;
          return true;
        }
        if (x.op == HOp::Blue && h_[y].op == HOp::Triple) return replace(n, kid(y, 0)), true;
        return false;
      }
      default: return false;
    }
  }

  const PassSpec& p_;
  HDag& h_;
  Failure& f_;
  CompileTrace& t_;
  std::vector<HId> forward_;
};

}  // namespace

bool recognise_mappings(const PassSpec& pass, HDag& h, Failure& f, CompileTrace& t) {
  compute_ranges(pass, h);
  Mapper m(pass, h, f, t);
  return m.run();
}

}  // namespace passlab::combiners
