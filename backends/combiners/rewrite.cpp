// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 2a (Mark & Proudfoot §4): a pass of the FragmentDag rewritten into the combiners'
// operations. Every value becomes a 3-vector (RGB) or a scalar (ALPHA), so the root splits into an
// RGB root and an ALPHA root; scalar-to-vector conversions become TRIPLE and component reads
// BLUE (y[0] is BLUE(DOT(y, {1,0,0}))); the language's dot product is BLUE(DOT); select() is a
// MUX whose control is compared with 1/2; comparisons become controls x - y + 1/2; min, max,
// abs and step become MUXes; pow() by a whole number becomes repeated squaring; the inputs of the
// pass become INPUT nodes (biased inputs read through expand()). Mappings are recognised
// afterwards (mapping.cpp). What the hardware cannot compute fails with the operation's name.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "backends/combiners/stages.h"
#include "core/lang/stdlib.h"

namespace passlab::combiners {

const char* to_string(HOp op) {
  switch (op) {
    case HOp::Input: return "INPUT";
    case HOp::Const: return "CONST";
    case HOp::Mul: return "MUL";
    case HOp::Dot: return "DOT";
    case HOp::Add: return "ADD";
    case HOp::Mux: return "MUX";
    case HOp::InMap: return "INMAP";
    case HOp::OutMap: return "OUTMAP";
    case HOp::BothMap: return "BOTHMAP";
    case HOp::Triple: return "TRIPLE";
    case HOp::Blue: return "BLUE";
  }
  return "?";
}

namespace {

using ir::Op;
using lang::Builtin;

class Rewriter {
 public:
  Rewriter(const PassSpec& pass, HDag& h, Failure& f, CompileTrace& t)
      : p_(pass), d_(*pass.dag), h_(h), f_(f), t_(t), memo_(d_.size(), kNoH), member_(d_.size(), 0), restored_(d_.size(), -1) {
    for (dag::NodeId id : pass.members) member_[id] = 1;
    // Conditions are computed where they are read (the partitioner never saves them).
    for (const dag::Node& n : d_.nodes)
      if (n.kind == dag::NodeKind::Operation && n.type == ir::BaseType::Bool) member_[n.id] = 1;
    for (std::size_t u = 0; u < h.units.size(); ++u)
      for (dag::NodeId id : h.units[u].nodes)
        if (h.units[u].op != UnitOp::DotProduct) unit_of_[id] = static_cast<int>(u);
  }

  bool run() {
    const dag::Node& root = d_.node(p_.root);
    if (p_.final()) {
      if (root.op != Op::Output) return fail("unsupported", "the shader's output is not a colour and an alpha", p_.root);
      h_.rgb_root = value(root.children[0]);
      // The fragment's alpha is the first channel of Oi.
      if (ok_) h_.alpha_root = value(root.children[1]);
      if (ok_ && h_[h_.alpha_root].part == Part::Rgb) h_.alpha_root = component(h_.alpha_root, 0, p_.root);
    } else {
      const HId v = value(p_.root);
      if (!ok_) return false;
      const bool triple = h_[v].part == Part::Rgb;
      HId saved = v;
      const bool expanded_input = h_[v].op == HOp::InMap && static_cast<InMap>(h_[v].map) == InMap::ExpandNormal && !h_[v].kids.empty() &&
                                  h_[h_[v].kids[0]].op == HOp::Input;
      if (saved_encoding((*p_.ranges)[p_.root]) == Encoding::Biased && expanded_input) {
        // A texel that already holds (x + 1) / 2 (a cube map's, a restore's, a table's): saved as
        // it is, by the final combiner alone.
        saved = h_[v].kids[0];
        event(CEvent::Rewrite, p_.root, "encode", "saved as (x+1)/2: the texel already holds it");
      } else if (saved_encoding((*p_.ranges)[p_.root]) == Encoding::Biased) {
        // (x + 1) / 2 into an 8-bit texture: one FULL combiner (x * 1 + 1 * 1, scaled by 1/2).
        saved = node(HOp::OutMap, h_[v].part, {node(HOp::Add, h_[v].part, {v, constant(h_[v].part, 1.0f)}, p_.root)}, p_.root,
                     static_cast<std::uint8_t>(OutMap::ScaleHalf));
        event(CEvent::Rewrite, p_.root, "encode", "saved as (x+1)/2: its interval reaches below 0");
      }
      (triple ? h_.rgb_root : h_.alpha_root) = saved;
    }
    return ok_;
  }

 private:
  bool fail(const char* constraint, std::string message, dag::NodeId at) {
    if (ok_) {
      f_ = {constraint, std::move(message), at, true};
      t_.add({CEvent::Fail, 2, {at}, -1, -1, -1, -1, Part::Rgb, constraint, f_.message});
    }
    ok_ = false;
    return false;
  }
  void event(CEvent k, dag::NodeId at, std::string what, std::string why) {
    if (t_.on()) t_.add({k, 2, {at}, -1, -1, -1, -1, Part::Rgb, std::move(what), std::move(why)});
  }
  Part part_of(dag::NodeId id) const { return lang::is_triple(d_.node(id).type) ? Part::Rgb : Part::Alpha; }

  HId node(HOp op, Part part, std::vector<HId> kids, dag::NodeId origin, std::uint8_t map = 0) {
    HNode n;
    n.op = op;
    n.part = part;
    n.kids = std::move(kids);
    n.map = map;
    n.origin = origin;
    n.has_origin = true;
    return h_.add(std::move(n));
  }
  HId constant(Part part, float x, float y, float z) {
    HNode n;
    n.op = HOp::Const;
    n.part = part;
    n.value = {x, part == Part::Rgb ? y : x, part == Part::Rgb ? z : x};
    return h_.add(std::move(n));
  }
  HId constant(Part part, float x) { return constant(part, x, x, x); }
  HId input(int index, Part part, dag::NodeId origin) {
    HNode n;
    n.op = HOp::Input;
    n.part = part;
    n.input = index;
    n.origin = origin;
    n.has_origin = true;
    return h_.add(std::move(n));
  }

  bool is_const(HId v) const { return h_[v].op == HOp::Const; }
  HId triple(HId v, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    const HNode& n = h_[v];
    if (n.part == Part::Rgb) return v;
    if (n.op == HOp::Const) return constant(Part::Rgb, n.value[0]);
    if (n.op == HOp::Blue && h_[n.kids[0]].op == HOp::Dot) return n.kids[0];  // DOT is already in all three
    return node(HOp::Triple, Part::Rgb, {v}, origin);
  }
  HId blue(HId v, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    const HNode& n = h_[v];
    if (n.part == Part::Alpha) return v;
    if (n.op == HOp::Const) return constant(Part::Alpha, n.value[2]);
    if (n.op == HOp::Triple) return n.kids[0];
    return node(HOp::Blue, Part::Alpha, {v}, origin);
  }
  HId component(HId v, int c, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    if (h_[v].op == HOp::Triple) return h_[v].kids[0];  // every component is the scalar
    if (c == 2 || h_[v].part == Part::Alpha) return blue(v, origin);
    if (is_const(v)) return constant(Part::Alpha, h_[v].value[static_cast<std::size_t>(c)]);
    const HId e = constant(Part::Rgb, c == 0 ? 1.0f : 0.0f, c == 1 ? 1.0f : 0.0f, 0.0f);
    return blue(node(HOp::Dot, Part::Rgb, {v, e}, origin), origin);
  }
  // Brings two operands to one part: a scalar meets a vector as TRIPLE.
  void unify(HId& a, HId& b, dag::NodeId origin) {
    if (!ok_) return;
    if (h_[a].part == h_[b].part) return;
    if (h_[a].part == Part::Alpha) a = triple(a, origin);
    else b = triple(b, origin);
  }
  HId add(HId a, HId b, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    unify(a, b, origin);
    return node(HOp::Add, h_[a].part, {a, b}, origin);
  }
  HId mul(HId a, HId b, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    unify(a, b, origin);
    return node(HOp::Mul, h_[a].part, {a, b}, origin);
  }
  HId neg(HId a, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    const HNode& x = h_[a];
    if (x.op == HOp::Const) return constant(x.part, -x.value[0], -x.value[1], -x.value[2]);
    if (x.op == HOp::InMap && static_cast<InMap>(x.map) == InMap::SignedNegate) return x.kids[0];
    return node(HOp::InMap, x.part, {a}, origin, static_cast<std::uint8_t>(InMap::SignedNegate));
  }
  // sel ? right : left, by a control in spare0.a (>= 1/2: right).
  HId mux(HId control, HId left, HId right, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    unify(left, right, origin);
    return node(HOp::Mux, h_[left].part, {control, left, right}, origin);
  }

  // A condition as a control value: true exactly when control >= 1/2, or, when `negated`, when
  // control < 1/2.
  struct Cond {
    HId control = kNoH;
    bool negated = false;
  };
  // x >= y as x - y + 1/2.
  HId at_least(dag::NodeId x, dag::NodeId y, dag::NodeId origin) {
    const dag::Node& yn = d_.node(y);
    const HId xv = value(x);
    if (!ok_) return kNoH;
    if (yn.kind == dag::NodeKind::Constant) {
      const float k = yn.value.empty() ? 0.0f : yn.value[0];
      if (k == 0.5f) return blue(xv, origin);
      // expand(y) >= k is y >= (k + 1) / 2: the control is y - k/2 (the register itself when k
      // is 0, as the paper's select(Hlookup[2] >= 0.5) on the cube map's raw value).
      HId ex = xv;
      if (h_[ex].op == HOp::Blue) ex = h_[ex].kids[0];  // a component: BLUE(expand(y)) is expand(BLUE(y))
      const HNode& xn = h_[ex];
      if (xn.op == HOp::InMap && static_cast<InMap>(xn.map) == InMap::ExpandNormal && h_[xn.kids[0]].op == HOp::Input &&
          (h_[xv].op == HOp::Blue || h_[xv].part == Part::Alpha)) {
        const HId raw = blue(xn.kids[0], origin);
        return k == 0.0f ? raw : add(raw, constant(Part::Alpha, -0.5f * k), origin);
      }
      return add(blue(xv, origin), constant(Part::Alpha, 0.5f - k), origin);
    }
    const HId yv = value(y);
    if (!ok_) return kNoH;
    return add(add(blue(xv, origin), neg(blue(yv, origin), origin), origin), constant(Part::Alpha, 0.5f), origin);
  }
  Cond condition(dag::NodeId id) {
    const dag::Node& n = d_.node(id);
    if (n.kind == dag::NodeKind::Operation && n.type != ir::BaseType::Bool) {
      // A number used as a condition means x != 0. Tested >= 1/2, that holds only for a number
      // that is 0 or 1: a bool made a number (a select of 0 and 1, a conversion). Any other
      // (`min(a, b) ? x : y`) has no combiner test (the conformance tester found 0.25 taken as
      // false).
      if (!zero_or_one(id)) {
        fail("unsupported", "a number used as a condition (x != 0) has no combiner test; compare it with >= or <", id);
        return {};
      }
      return {blue(value(id), id), false};
    }
    if (n.kind == dag::NodeKind::Operation) {
      switch (n.op) {
        case Op::Ge: return {at_least(n.children[0], n.children[1], id), false};
        case Op::Le: return {at_least(n.children[1], n.children[0], id), false};
        case Op::Lt: return {at_least(n.children[0], n.children[1], id), true};
        case Op::Gt: return {at_least(n.children[1], n.children[0], id), true};
        case Op::Not: {
          Cond c = condition(n.children[0]);
          c.negated = !c.negated;
          return c;
        }
        case Op::And:
        case Op::Or: {
          // a && b: if a then b else false; a || b: if a then true else b (controls made by a MUX).
          // The result keeps b's polarity: when b is true below 1/2, "false" is a control of 1 and
          // "true" one of 0. Making b positive as 1 - control instead turned a strict test into a
          // non-strict one at exactly 1/2 (the conformance tester found s <= t || g > g true).
          const Cond a = condition(n.children[0]);
          const Cond b = condition(n.children[1]);
          if (!ok_) return {};
          const HId no = constant(Part::Alpha, b.negated ? 1.0f : 0.0f), yes = constant(Part::Alpha, b.negated ? 0.0f : 1.0f);
          HId left = n.op == Op::And ? no : b.control, right = n.op == Op::And ? b.control : yes;
          if (a.negated) std::swap(left, right);
          event(CEvent::Rewrite, id, n.op == Op::And ? "&&" : "||", "a MUX of the two controls");
          return {mux(a.control, left, right, id), b.negated};
        }
        case Op::Convert:
          if (n.children.size() == 1 && d_.node(n.children[0]).type == ir::BaseType::Float) {
            // float -> bool: x != 0.
            fail("unsupported", "a number used as a condition (x != 0) has no combiner test; compare it with >= or <", id);
            return {};
          }
          break;
        default: break;
      }
    }
    fail("unsupported", fmt::format("the combiners cannot test '{}' (only <, <=, >, >= and their combinations)", op_name(n)), id);
    return {};
  }
  // Whether a node's value is always 0 or 1: a bool converted to a number, or a select between 0
  // and 1 (or between such values).
  bool zero_or_one(dag::NodeId id) const {
    const dag::Node& n = d_.node(id);
    if (n.kind == dag::NodeKind::Constant) return !n.value.empty() && std::all_of(n.value.begin(), n.value.end(), [](float v) { return v == 0.0f || v == 1.0f; });
    if (n.kind != dag::NodeKind::Operation) return false;
    if (n.op == Op::Convert) return !n.children.empty() && d_.node(n.children[0]).type == ir::BaseType::Bool;
    if (n.op == Op::Select) return n.children.size() == 3 && zero_or_one(n.children[1]) && zero_or_one(n.children[2]);
    return false;
  }

  std::string op_name(const dag::Node& n) const {
    if (n.op == Op::Builtin) return lang::to_string(static_cast<Builtin>(n.aux));
    return ir::to_string(n.op);
  }

  int interpolant_input(dag::NodeId id) {
    if (auto it = input_of_.find(id); it != input_of_.end()) return it->second;
    PassInput in;
    const dag::Node& n = d_.node(id);
    in.cls = InputClass::Interpolant;
    in.node = id;
    in.triple = lang::is_triple(n.type);
    // A value that is never negative is stored as it is: beyond 1 it saturates at 1 either way
    // (a colour holds [0, 1], and expand() of it [-1, 1]), and unbiased it keeps 1/255 a step.
    in.biased = !(*p_.ranges)[id].nonnegative();
    h_.inputs.push_back(in);
    const int k = static_cast<int>(h_.inputs.size() - 1);
    input_of_[id] = k;
    return k;
  }
  int unit_input(int unit) {
    if (auto it = unit_input_.find(unit); it != unit_input_.end()) return it->second;
    PassInput in;
    in.cls = InputClass::Texture;
    in.unit = unit;
    in.node = h_.units[static_cast<std::size_t>(unit)].nodes.front();
    in.triple = true;
    in.biased = biased_result(h_.units[static_cast<std::size_t>(unit)]);
    h_.inputs.push_back(in);
    const int k = static_cast<int>(h_.inputs.size() - 1);
    unit_input_[unit] = k;
    return k;
  }
  HId expand_if(bool biased, HId v, dag::NodeId origin) {
    if (!ok_) return kNoH;  // an operand failed: nothing more is built
    return biased ? node(HOp::InMap, h_[v].part, {v}, origin, static_cast<std::uint8_t>(InMap::ExpandNormal)) : v;
  }

  HId value(dag::NodeId id) {
    if (!ok_) return kNoH;
    if (memo_[id] != kNoH) return memo_[id];
    const HId v = convert(id);
    if (ok_) memo_[id] = v;
    return v;
  }

  HId convert(dag::NodeId id) {
    const dag::Node& n = d_.node(id);
    const Part part = part_of(id);
    if (n.type == ir::BaseType::Bool) {
      // A condition used as a number: select(c, 1, 0).
      const Cond c = condition(id);
      if (!ok_) return kNoH;
      HId left = constant(Part::Alpha, 0.0f), right = constant(Part::Alpha, 1.0f);
      if (c.negated) std::swap(left, right);
      return mux(c.control, left, right, id);
    }
    if (auto it = unit_of_.find(id); it != unit_of_.end()) {
      const TextureUnit& u = h_.units[static_cast<std::size_t>(it->second)];
      const int in = unit_input(it->second);
      const bool biased = h_.inputs[static_cast<std::size_t>(in)].biased;
      if (u.op == UnitOp::Restore || u.table) {  // a table's scalar fills all four channels
        if (part == Part::Rgb) return expand_if(biased, input(in, Part::Rgb, id), id);
        return expand_if(biased, input(in, Part::Alpha, id), id);
      }
      const int channel = n.kind == dag::NodeKind::Texture ? static_cast<int>(n.aux) : 0;
      if (part == Part::Rgb && channel != 0 && lang::is_triple(n.type)) {
        // A colour from channel 1 is (g, b, a): the combiners read a unit's RGB as it is and
        // cannot swizzle it (a generated program found it read as (r, g, b)).
        fail("unsupported", fmt::format("the register combiners read a texture's colour as its RGB; a colour from channel {} cannot be formed", channel), id);
        return kNoH;
      }
      if (part == Part::Rgb) return expand_if(biased, input(in, Part::Rgb, id), id);
      // A scalar lookup reads one channel: alpha directly, blue through BLUE, red and green
      // through BLUE(DOT(rgb, unit vector)).
      if (channel == 3) return input(in, Part::Alpha, id);
      return component(input(in, Part::Rgb, id), channel, id);
    }
    switch (n.kind) {
      case dag::NodeKind::Constant: {
        const float x = n.value.empty() ? 0.0f : n.value[0];
        const HId c = part == Part::Rgb && n.value.size() >= 3 ? constant(part, n.value[0], n.value[1], n.value[2]) : constant(part, x);
        h_[c].origin = id;  // so a constant out of range is reported where it was written
        h_[c].has_origin = true;
        return c;
      }
      case dag::NodeKind::Interpolant: {
        const int in = interpolant_input(id);
        return expand_if(h_.inputs[static_cast<std::size_t>(in)].biased, input(in, part, id), id);
      }
      case dag::NodeKind::Texture:
        if (member_[id]) fail("unsupported", "a texture lookup stage 1 gave no unit", id);
        else fail("unsupported", "a texture lookup outside the pass", id);
        return kNoH;
      case dag::NodeKind::Operation: break;
    }
    if (!member_[id]) {
      fail("unsupported", fmt::format("'{}' is neither computed in the pass nor restored", op_name(n)), id);
      return kNoH;
    }
    auto kid = [&](std::size_t i) { return value(n.children[i]); };
    HId r = kNoH;
    std::string why;
    switch (n.op) {
      case Op::Neg: r = neg(kid(0), id); break;
      case Op::Add: {
        const HId a = kid(0), b = kid(1);
        if (ok_) r = add(a, b, id);
        break;
      }
      case Op::Sub: {
        const HId a = kid(0), b = kid(1);
        if (ok_) r = add(a, neg(b, id), id);
        break;
      }
      case Op::Mul: {
        const HId a = kid(0), b = kid(1);
        if (!ok_) return kNoH;
        r = mul(a, b, id);
        why = h_[a].part != h_[b].part ? "a scalar times a vector: TRIPLE" : "";
        break;
      }
      case Op::Div: {
        const dag::Node& den = d_.node(n.children[1]);
        if (den.kind != dag::NodeKind::Constant) {
          fail("unsupported", "the combiners cannot divide by a value computed per fragment (only by constants)", id);
          return kNoH;
        }
        const HId a = kid(0);
        if (!ok_) return kNoH;
        const bool t = lang::is_triple(den.type) && den.value.size() >= 3;
        const float x = den.value.empty() ? 1.0f : den.value[0];
        if ((t ? (den.value[0] == 0 || den.value[1] == 0 || den.value[2] == 0) : x == 0)) {
          fail("unsupported", "division by zero", id);
          return kNoH;
        }
        const HId c = t ? constant(Part::Rgb, 1.0f / den.value[0], 1.0f / den.value[1], 1.0f / den.value[2])
                        : constant(part_of(n.children[1]), 1.0f / x);
        r = mul(a, c, id);
        why = "division by a constant: a product";
        break;
      }
      case Op::Dot: {
        const HId a = kid(0), b = kid(1);
        if (ok_) r = blue(node(HOp::Dot, Part::Rgb, {triple(a, id), triple(b, id)}, id), id);
        why = "BLUE(DOT): the combiners' dot product fills all three components";
        break;
      }
      case Op::Select: {
        const Cond c = condition(n.children[0]);
        const HId a = kid(1), b = kid(2);
        if (!ok_) return kNoH;
        r = c.negated ? mux(c.control, a, b, id) : mux(c.control, b, a, id);
        why = "a MUX on spare0.a >= 1/2";
        break;
      }
      case Op::Convert: {
        const HId a = kid(0);
        if (ok_) r = part == Part::Rgb ? triple(a, id) : blue(a, id);
        break;
      }
      case Op::MakeTriple: {
        const HId x = kid(0), y = kid(1), z = kid(2);
        if (!ok_) return kNoH;
        if (x == y && y == z) {
          r = triple(x, id);
        } else if (is_const(x) && is_const(y) && is_const(z)) {
          r = constant(Part::Rgb, h_[x].value[0], h_[y].value[0], h_[z].value[0]);
        } else {
          // x (1,0,0) + y (0,1,0) + z (0,0,1).
          r = add(add(mul(triple(x, id), constant(Part::Rgb, 1, 0, 0), id), mul(triple(y, id), constant(Part::Rgb, 0, 1, 0), id), id),
                  mul(triple(z, id), constant(Part::Rgb, 0, 0, 1), id), id);
          why = "three scalars joined by products with unit vectors";
        }
        break;
      }
      case Op::Builtin: r = builtin(n, id, why); break;
      case Op::ScreenDiff:
      case Op::Neighbour:
        fail("unsupported", "derivatives (Du, Dv, Deriv, area, calculatenormal) and du and dv are differences across pixels and a "
                            "division, which the register combiners cannot compute", id);
        return kNoH;
      default:
        fail("unsupported", fmt::format("the register combiners cannot compute '{}'", op_name(n)), id);
        return kNoH;
    }
    // The flattener drops a float's splat to a triple (fragment hardware swizzles it), so an
    // operation of triple type may have only scalar operands (-color(a . b)): its value is the
    // scalar in all three components, a TRIPLE (read from the alpha it is computed in).
    if (ok_ && r != kNoH && part_of(id) == Part::Rgb && h_[r].part == Part::Alpha) r = triple(r, id);
    if (ok_ && t_.on()) event(CEvent::Rewrite, id, op_name(n), why.empty() ? describe(h_[r]) : why);
    return r;
  }

  HId builtin(const dag::Node& n, dag::NodeId id, std::string& why) {
    const Builtin b = static_cast<Builtin>(n.aux);
    auto kid = [&](std::size_t i) { return value(n.children[i]); };
    auto const_of = [&](std::size_t i, float* out) {
      const dag::Node& c = d_.node(n.children[i]);
      if (c.kind != dag::NodeKind::Constant || c.value.empty()) return false;
      *out = c.value[0];
      return true;
    };
    switch (b) {
      case Builtin::PerVertex: return kid(0);  // not hoisted (hoisting off): the value itself
      case Builtin::Xcomp: return component(kid(0), 0, id);
      case Builtin::Ycomp: return component(kid(0), 1, id);
      case Builtin::Zcomp: return component(kid(0), 2, id);
      case Builtin::Comp: {
        float c;
        if (!const_of(1, &c) || c < 0 || c > 2 || c != std::floor(c)) {
          fail("unsupported", "comp() with an index that is not the constant 0, 1 or 2", id);
          return kNoH;
        }
        return component(kid(0), static_cast<int>(c), id);
      }
      case Builtin::Min:
      case Builtin::Max: {
        if (n.children.size() != 2) break;
        float k;
        for (std::size_t i = 0; i < 2; ++i) {
          if (!const_of(i, &k)) continue;
          const HId x = kid(1 - i);
          if (!ok_) return kNoH;
          if (b == Builtin::Max && k == 0.0f) {
            why = "max(0, x): the unsigned() input mapping";
            return node(HOp::InMap, h_[x].part, {x}, id, static_cast<std::uint8_t>(InMap::UnsignedIdentity));
          }
          if (b == Builtin::Min && k == 1.0f) {
            why = "min(x, 1): registers never exceed 1";
            return x;
          }
        }
        // Operands with one value in every component (a float, or a constant colour such as the
        // splat of 0.25 the flattener leaves in color(max(d, 0.25))) have one comparison: a MUX
        // of whole vectors, computed in alpha and read as a TRIPLE.
        auto scalar = [&](std::size_t i) {
          const dag::Node& c = d_.node(n.children[i]);
          return !lang::is_triple(c.type) || (c.kind == dag::NodeKind::Constant && c.value.size() >= 3 && c.value[0] == c.value[1] && c.value[1] == c.value[2]);
        };
        if (part_of(id) == Part::Rgb && !(scalar(0) && scalar(1))) {
          fail("unsupported", fmt::format("{}() of vectors needs a MUX per component; the combiners MUX whole vectors", lang::to_string(b)), id);
          return kNoH;
        }
        auto operand = [&](std::size_t i) {
          const dag::Node& c = d_.node(n.children[i]);
          return lang::is_triple(c.type) ? constant(Part::Alpha, c.value[0]) : kid(i);
        };
        // max(a, b) = a >= b ? a : b.
        const HId a = operand(0), c = operand(1);
        const HId ctl = at_least(n.children[0], n.children[1], id);
        if (!ok_) return kNoH;
        why = "a MUX on a >= b";
        return b == Builtin::Max ? mux(ctl, c, a, id) : mux(ctl, a, c, id);
      }
      case Builtin::Clamp: {
        float lo, hi;
        if (const_of(1, &lo) && const_of(2, &hi) && lo == 0.0f && hi >= 1.0f) {
          const HId x = kid(0);
          if (!ok_) return kNoH;
          why = "clamp(x, 0, 1): the unsigned() input mapping (registers never exceed 1)";
          return node(HOp::InMap, h_[x].part, {x}, id, static_cast<std::uint8_t>(InMap::UnsignedIdentity));
        }
        fail("unsupported", "clamp() to bounds other than 0 and 1 (write it with min and max of scalars)", id);
        return kNoH;
      }
      case Builtin::Abs: {
        if (part_of(id) == Part::Rgb) break;
        const HId x = kid(0);
        if (!ok_) return kNoH;
        why = "|x| = x >= 0 ? x : -x";
        return mux(add(x, constant(Part::Alpha, 0.5f), id), neg(x, id), x, id);
      }
      case Builtin::Step: {  // step(edge, x) = x >= edge
        const HId ctl = at_least(n.children[1], n.children[0], id);
        if (!ok_) return kNoH;
        why = "step: a MUX of 0 and 1";
        return mux(ctl, constant(Part::Alpha, 0.0f), constant(Part::Alpha, 1.0f), id);
      }
      case Builtin::Mix: {  // a (1 - t) + b t
        const HId a = kid(0), c = kid(1), t = kid(2);
        if (!ok_) return kNoH;
        why = "a (1 - t) + b t";
        const HId one_minus = add(constant(h_[t].part, 1.0f), neg(t, id), id);
        return add(mul(a, one_minus, id), mul(c, t, id), id);
      }
      case Builtin::Pow: {
        float e;
        if (!const_of(1, &e) || e != std::floor(e) || e < 0 || e > 64) {
          fail("unsupported", "pow() with an exponent that is not a whole number from 0 to 64 (the combiners multiply; a "
                              "whole exponent becomes repeated squaring)", id);
          return kNoH;
        }
        const HId x = kid(0);
        if (!ok_) return kNoH;
        why = fmt::format("x^{} by repeated squaring", static_cast<int>(e));
        HId result = kNoH, square = x;
        for (unsigned k = static_cast<unsigned>(e); k; k >>= 1) {
          if (k & 1) result = result == kNoH ? square : mul(result, square, id);
          if (k > 1) square = mul(square, square, id);
        }
        return result == kNoH ? constant(h_[x].part, 1.0f) : result;
      }
      case Builtin::Faceforward: {
        // N if dot(I, Nref) < 0, else -N.
        const HId nn = kid(0), i = kid(1), ref = n.children.size() > 2 ? kid(2) : nn;
        if (!ok_) return kNoH;
        const HId d = blue(node(HOp::Dot, Part::Rgb, {i, ref}, id), id);
        why = "N or -N by a MUX on dot(I, N) + 1/2";
        return mux(add(d, constant(Part::Alpha, 0.5f), id), nn, neg(nn, id), id);
      }
      case Builtin::Reflect: {  // I - 2 dot(N, I) N
        const HId i = kid(0), nn = kid(1);
        if (!ok_) return kNoH;
        const HId d = node(HOp::Dot, Part::Rgb, {nn, i}, id);
        return add(i, neg(mul(mul(constant(Part::Rgb, 2.0f), d, id), nn, id), id), id);
      }
      case Builtin::Normalize:
        fail("unsupported", "normalize() of a vector computed per fragment: the combiners normalise only interpolated vectors "
                            "(through a normalisation cube map)", id);
        return kNoH;
      default: break;
    }
    if (ok_) fail("unsupported", fmt::format("the register combiners cannot compute '{}'", lang::to_string(b)), id);
    return kNoH;
  }

  const PassSpec& p_;
  const dag::FragmentDag& d_;
  HDag& h_;
  Failure& f_;
  CompileTrace& t_;
  bool ok_ = true;
  std::vector<HId> memo_;
  std::vector<char> member_;
  std::vector<int> restored_;
  std::map<dag::NodeId, int> unit_of_;
  std::map<dag::NodeId, int> input_of_;
  std::map<int, int> unit_input_;
};

}  // namespace

// The machine is unused here; every stage takes it (stages.h).
bool rewrite(const PassSpec& pass, const Machine&, HDag& h, Failure& f, CompileTrace& t) {
  Rewriter r(pass, h, f, t);
  if (!r.run()) return false;
  compute_ranges(pass, h);
  return true;
}

}  // namespace passlab::combiners
