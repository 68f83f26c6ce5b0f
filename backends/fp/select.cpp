// SPDX-License-Identifier: GPL-3.0-or-later
// Instruction selection: FragmentDag nodes to ARB-style instructions, as a DAG of instructions.
//
// Conventions that make the tiling small: every float value is held replicated in all four
// lanes (scalar instructions and DP3 replicate; a float read from a vector takes a splat
// swizzle), so a float operand of a vector instruction broadcasts for free; triples use lanes
// x, y, z. Negation and swizzles are source modifiers, so neg, xcomp/ycomp/zcomp/comp with a
// constant index and float-to-triple conversions select to no instruction at all. Identical
// instructions are created once (hash-consing), so the DAG's sharing survives selection.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "backends/fp/codegen.h"
#include "backends/fp/target_dag.h"

namespace passlab::fp {

const char* to_string(TKind k) {
  switch (k) {
    case TKind::Instruction: return "instruction";
    case TKind::Texture: return "texture";
    case TKind::Interpolant: return "interpolant";
    case TKind::Constant: return "constant";
    case TKind::Loop: return "loop";
    case TKind::LoopValue: return "loop value";
  }
  return "?";
}

namespace {

using dag::Node;
using dag::NodeKind;
using ir::Op;
using lang::Builtin;

struct SelectError {
  std::string message;
  lang::Span where;  // the source of the node that cannot be selected
};

class Selector {
 public:
  Selector(const dag::FragmentDag& d, partition::Derivatives derivatives, const std::set<dag::NodeId>& recompute)
      : d_(d), derivatives_(derivatives), recompute_(recompute) {}

  TargetDag run() {
    std::vector<Operand> refs(d_.size());
    for (const Node& n : d_.nodes) {
      current_ = &n;
      refs[n.id] = select(n, refs);
    }
    // Each output must be an instruction: it writes a pass output. A shader with several outputs
    // (ir::Op::Outputs) writes each, the colour first; outputs that select to one node are one.
    auto written = [&](Operand o) {
      if (nodes_[o.node].kind != TKind::Instruction || !o.swizzle.is_identity() || o.negate) o = emit(Opcode::MOV, {o}, 4);
      return o.node;
    };
    const Node& top = d_.node(d_.root);
    std::vector<TNodeId> roots;
    if (top.kind == dag::NodeKind::Operation && top.op == Op::Outputs) {
      for (dag::NodeId c : top.children) {
        const TNodeId r = written(refs[c]);
        if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
      }
    } else {
      roots.push_back(written(refs[d_.root]));
    }
    TargetDag t = finish(roots);
    t.derivatives = derivatives_;
    return t;
  }

  // A loop's body (dag::LoopBody::body): its target DAG, and each output of its root as an operand.
  TargetDag run_body(std::vector<Operand>* outputs) {
    std::vector<Operand> refs(d_.size());
    for (const Node& n : d_.nodes) {
      current_ = &n;
      refs[n.id] = select(n, refs);
    }
    std::vector<TNodeId> roots;
    for (dag::NodeId c : d_.node(d_.root).children) {
      outputs->push_back(refs[c]);
      if (std::find(roots.begin(), roots.end(), refs[c].node) == roots.end()) roots.push_back(refs[c].node);
    }
    std::vector<TNodeId> remap;
    TargetDag t = finish(roots, &remap);
    for (Operand& o : *outputs) o.node = remap[o.node];
    t.derivatives = derivatives_;
    return t;
  }

 private:
  static bool is_float(lang::BaseType t) { return t == lang::BaseType::Float || t == lang::BaseType::Bool; }

  Operand ref(TNodeId id) { return Operand{id, Swizzle::identity(), false}; }
  Operand splat(Operand o, std::uint8_t lane = 0) {
    o.swizzle = Swizzle::splat(lane).then(o.swizzle);
    return o;
  }
  Operand neg(Operand o) {
    o.negate = !o.negate;
    return o;
  }

  TNodeId intern(TNode n) {
    auto key = std::make_tuple(n.kind, n.op, n.saturate, n.src, n.value, n.name, n.dims, n.lanes, n.difference);
    auto it = index_.find(key);
    TNodeId id;
    if (it != index_.end()) {
      id = it->second;
    } else {
      id = static_cast<TNodeId>(nodes_.size());
      n.id = id;
      nodes_.push_back(std::move(n));
      index_.emplace(std::move(key), id);
    }
    TNode& stored = nodes_[id];
    if (current_) {
      if (std::find(stored.origin.begin(), stored.origin.end(), current_->id) == stored.origin.end()) stored.origin.push_back(current_->id);
      for (const auto& s : current_->spans)
        if (std::find(stored.spans.begin(), stored.spans.end(), s) == stored.spans.end()) stored.spans.push_back(s);
    }
    return id;
  }

  Operand emit(Opcode op, std::vector<Operand> src, int width, bool sat = false) {
    TNode n;
    n.kind = TKind::Instruction;
    n.op = op;
    n.src = std::move(src);
    n.width = width;
    n.saturate = sat;
    return ref(intern(std::move(n)));
  }
  Operand constant(Vec4 v, int width) {
    TNode n;
    n.kind = TKind::Constant;
    n.value = v;
    n.width = width;
    for (float& x : n.value)
      if (x == 0.0f) x = 0.0f;
    return ref(intern(std::move(n)));
  }
  Operand scalar(float x) { return constant({x, x, x, x}, 1); }
  // Interpolants packed into one (difference: TNode::difference).
  Operand interpolant(std::vector<dag::NodeId> lanes, int width, std::uint8_t difference = 0) {
    TNode n;
    n.kind = TKind::Interpolant;
    n.lanes = std::move(lanes);
    n.width = width;
    n.difference = difference;
    for (dag::NodeId l : n.lanes) n.name += (n.name.empty() ? "" : ",") + d_.node(l).name;
    if (n.lanes.size() > 1) n.name = "(" + n.name + ")";
    static constexpr const char* kWhere[] = {"", "dx", "dy", "right", "below"};
    if (difference) n.name = std::string(kWhere[difference]) + (n.lanes.size() > 1 ? "" : "(") + n.name + (n.lanes.size() > 1 ? "" : ")");
    return ref(intern(std::move(n)));
  }
  // The interpolants under a texture's coordinates when each is one (difference 0) or each is
  // one's value one pixel over in the same direction (3 right, 4 below): one packed interpolant.
  std::optional<std::pair<std::vector<dag::NodeId>, std::uint8_t>> packed_coordinates(const Node& tex) const {
    std::vector<dag::NodeId> lanes;
    std::optional<std::uint8_t> difference;
    for (dag::NodeId c : tex.children) {
      const Node& k = d_.node(c);
      std::uint8_t here = 0;
      dag::NodeId lane = c;
      if (k.kind == NodeKind::Operation && k.op == Op::Neighbour && d_.node(k.children.at(0)).kind == NodeKind::Interpolant) {
        here = static_cast<std::uint8_t>(k.aux + 3);
        lane = k.children[0];
      } else if (k.kind != NodeKind::Interpolant) {
        return std::nullopt;
      }
      if (difference && *difference != here) return std::nullopt;
      difference = here;
      lanes.push_back(lane);
    }
    return std::make_pair(lanes, difference.value_or(0));
  }

  static Vec4 to_vec(const std::vector<float>& v) {
    if (v.size() == 1) return {v[0], v[0], v[0], v[0]};
    Vec4 r{};
    for (std::size_t i = 0; i < v.size() && i < 4; ++i) r[i] = v[i];
    return r;
  }

  [[noreturn]] void fail(const std::string& what) {
    throw SelectError{what, current_ && !current_->spans.empty() ? current_->spans.front() : lang::Span{}};
  }

  // Packs floats (replicated) into lanes x, y, z of one vector: MUL + MAD per extra lane.
  Operand pack(const std::vector<Operand>& parts) {
    if (parts.size() == 1) return parts[0];
    Vec4 e0{1, 0, 0, 0}, e1{0, 1, 0, 0}, e2{0, 0, 1, 0};
    Operand r = emit(Opcode::MUL, {parts[0], constant(e0, 4)}, 3);
    r = emit(Opcode::MAD, {parts[1], constant(e1, 4), r}, 3);
    if (parts.size() > 2) r = emit(Opcode::MAD, {parts[2], constant(e2, 4), r}, 3);
    return r;
  }

  Operand select(const Node& n, const std::vector<Operand>& refs) {
    int width = is_float(n.type) ? 1 : 3;
    auto kid = [&](std::size_t i) { return operand(n, i, refs); };
    auto kid_node = [&](std::size_t i) -> const Node& { return d_.node(n.children.at(i)); };
    switch (n.kind) {
      case NodeKind::Constant:
        // A known matrix is read only as a transform's rows (from the DAG node); an operand that
        // would hold it as a value is refused where it is read (operand()).
        if (n.value.size() > 4) return {};
        return constant(to_vec(n.value), width);
      case NodeKind::Interpolant: return interpolant({n.id}, width);
      case NodeKind::Texture: {
        Operand coord;
        int dims = 0;
        const auto packed = packed_coordinates(n);
        if (n.children.size() == 1) {
          coord = kid(0);
          dims = is_float(kid_node(0).type) ? 1 : 3;
        } else if (packed) {
          coord = interpolant(packed->first, static_cast<int>(n.children.size()), packed->second);
          dims = static_cast<int>(n.children.size());
        } else {
          std::vector<Operand> parts;
          for (std::size_t i = 0; i < n.children.size(); ++i) parts.push_back(kid(i));
          coord = pack(parts);
          dims = static_cast<int>(n.children.size());
        }
        TNode t;
        t.kind = TKind::Texture;
        t.op = Opcode::TEX;
        t.name = n.name;
        t.dims = dims;
        t.src = {coord};
        t.width = 4;
        Operand r = ref(intern(std::move(t)));
        // texture("name"[k]): a float reads channel k, a triple channels k to k + 2.
        const auto k = static_cast<std::uint8_t>(std::min<std::uint32_t>(n.aux, 3));
        if (width == 1) return splat(r, k);
        if (k) r.swizzle = Swizzle{{k, static_cast<std::uint8_t>(std::min(k + 1, 3)), static_cast<std::uint8_t>(std::min(k + 2, 3)), 3}}.then(r.swizzle);
        return r;
      }
      case NodeKind::Operation: break;
    }
    if (n.op == Op::LoopValue) {
      TNode v;
      v.kind = TKind::LoopValue;
      v.dims = static_cast<int>(n.aux);
      v.width = width;
      v.name = "in" + std::to_string(n.aux);
      return ref(intern(std::move(v)));
    }
    if (n.op == Op::Loop) return loop(n, refs);
    if (n.op == Op::ScreenDiff || n.op == Op::Neighbour) {
      // A difference of an interpolated value, or its value one pixel over: the rasterizer's
      // (another interpolant). A per-fragment value's difference comes with that value computed
      // again from the neighbour's interpolants (dag/neighbour_values.cpp), which is subtracted;
      // a target with DDX and DDY differences the value across its quad instead.
      const bool minus = n.op == Op::ScreenDiff;
      const Node& c = kid_node(0);
      if (c.kind == NodeKind::Constant) return minus ? scalar(0.0f) : kid(0);
      if (derivatives_ == partition::Derivatives::None)
        fail("this target has no screen-space derivatives (its \"derivatives\" is \"none\"): Du, Dv, Deriv, area, "
             "calculatenormal, du and dv need a target whose rasterizer delivers differences of its interpolants");
      if (minus && n.children.size() == 2) {
        if (derivatives_ == partition::Derivatives::Quad && !recompute_.count(n.id))
          return emit(n.aux == 0 ? Opcode::DDX : Opcode::DDY, {kid(0)}, width);
        return emit(Opcode::SUB, {kid(1), kid(0)}, width);
      }
      if (c.kind != NodeKind::Interpolant)
        fail("a derivative of a value computed per fragment needs differences across pixels (DDX, DDY), which this target does not "
             "have; only values interpolated from the vertices (affine in the globals) can be differentiated");
      return interpolant({c.id}, width, static_cast<std::uint8_t>(n.aux + (minus ? 1 : 3)));
    }
    switch (n.op) {
      case Op::Neg: return neg(kid(0));
      case Op::Add: return emit(Opcode::ADD, {kid(0), kid(1)}, width);
      case Op::Sub: return emit(Opcode::SUB, {kid(0), kid(1)}, width);
      case Op::Mul: return emit(Opcode::MUL, {kid(0), kid(1)}, width);
      case Op::Div: {
        if (is_float(kid_node(1).type)) return emit(Opcode::MUL, {kid(0), emit(Opcode::RCP, {kid(1)}, 1)}, width);
        std::vector<Operand> r;
        for (std::uint8_t c = 0; c < 3; ++c) r.push_back(emit(Opcode::RCP, {splat(kid(1), c)}, 1));
        return emit(Opcode::MUL, {kid(0), pack(r)}, width);
      }
      case Op::Dot: return emit(Opcode::DP3, {kid(0), kid(1)}, 1);
      case Op::Cross: return emit(Opcode::XPD, {kid(0), kid(1)}, 3);
      case Op::Lt: return emit(Opcode::SLT, {kid(0), kid(1)}, 1);
      case Op::Gt: return emit(Opcode::SLT, {kid(1), kid(0)}, 1);
      case Op::Le: return emit(Opcode::SGE, {kid(1), kid(0)}, 1);
      case Op::Ge: return emit(Opcode::SGE, {kid(0), kid(1)}, 1);
      case Op::Eq:
      case Op::Ne: {
        // Equal in every lane that matters: 1 - (|a - b| summed over lanes > 0).
        Operand d = emit(Opcode::SUB, {kid(0), kid(1)}, 4);
        Operand sq = is_float(kid_node(0).type) ? emit(Opcode::MUL, {d, d}, 1) : emit(Opcode::DP3, {d, d}, 1);
        return emit(n.op == Op::Eq ? Opcode::SGE : Opcode::SLT, n.op == Op::Eq ? std::vector<Operand>{scalar(0), sq}
                                                                              : std::vector<Operand>{scalar(0), sq}, 1);
      }
      case Op::And: return emit(Opcode::MUL, {kid(0), kid(1)}, 1);
      case Op::Or: return emit(Opcode::MAX, {kid(0), kid(1)}, 1);
      case Op::Not: return emit(Opcode::SUB, {scalar(1), kid(0)}, 1);
      // CMP, not LRP: c * a + (1 - c) * b lets a NaN or infinity of the branch not taken through
      // (0 * NaN), where a select must not look at it.
      case Op::Select: return emit(Opcode::CMP, {neg(kid(0)), kid(1), kid(2)}, width);
      case Op::Convert: {
        lang::BaseType from = kid_node(0).type;
        if (n.type == lang::BaseType::Bool && from == lang::BaseType::Float) {
          Operand sq = emit(Opcode::MUL, {kid(0), kid(0)}, 1);
          return emit(Opcode::SLT, {scalar(0), sq}, 1);
        }
        if (lang::component_count(n.type) > 3 || lang::component_count(from) > 3)
          fail("a matrix value reached the fragment program; only uniform matrices are supported");
        return kid(0);  // float -> triple is a broadcast, triple -> triple moves no bits
      }
      case Op::MakeTriple: return pack({kid(0), kid(1), kid(2)});
      // Ci's RGB and Oi in alpha, chosen by CMP: an LRP by (0, 0, 0, 1) let Ci's unused fourth lane
      // through as 0 * w, and NaN there made alpha NaN (a generated program found it).
      case Op::Output: return emit(Opcode::CMP, {constant({1, 1, 1, -1}, 4), splat(kid(1), 0), kid(0)}, 4);
      case Op::Outputs: return kid(0);  // the root of several outputs: each is written (run())
      case Op::Builtin: return builtin(n, refs);
      default: break;
    }
    fail(std::string("operation '") + ir::to_string(n.op) + "' has no instruction on this target");
  }

  // Result n.aux of a dynamic loop: its body selected once per loop, its results packed into as
  // few Loop nodes as their lanes allow (a float takes one lane, a triple three; each Loop node
  // runs the loop), and the lanes of this one.
  struct SelectedLoop {
    std::shared_ptr<const TLoop> loop;
    std::vector<std::vector<dag::NodeId>> groups;  // results per Loop node
    std::vector<std::pair<std::size_t, std::uint8_t>> place;  // per result: its group and first lane
  };
  Operand loop(const Node& n, const std::vector<Operand>& refs) {
    const dag::LoopBody& body = *n.loop;
    auto found = loops_.find(&body);
    if (found == loops_.end()) {
      auto tl = std::make_shared<TLoop>();
      std::vector<Operand> outputs;
      const std::set<dag::NodeId> none;
      Selector inner(body.body, derivatives_, none);
      try {
        tl->body = inner.run_body(&outputs);
      } catch (SelectError& e) {
        e.message = "in the " + body.label + ": " + e.message;
        throw;
      }
      const auto carried = static_cast<std::size_t>(body.carried);
      tl->next.assign(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(carried));
      tl->results.assign(outputs.begin() + static_cast<std::ptrdiff_t>(carried), outputs.end() - 1);
      tl->go_on = outputs.back();
      tl->carried = body.carried;
      tl->invariants = body.invariants;
      tl->max_iterations = body.max_iterations;
      tl->label = body.label;
      summarize(*tl);
      const dag::Node& top = body.body.node(body.body.root);
      SelectedLoop sel;
      std::uint8_t used = 4;
      for (std::size_t k = 0; k < tl->results.size(); ++k) {
        const int w = is_float(body.body.node(top.children[carried + k]).type) ? 1 : 3;
        tl->result_width.push_back(w);
        if (used + w > 4) {
          sel.groups.emplace_back();
          used = 0;
        }
        sel.groups.back().push_back(static_cast<dag::NodeId>(k));
        sel.place.push_back({sel.groups.size() - 1, used});
        used = static_cast<std::uint8_t>(used + w);
      }
      sel.loop = std::move(tl);
      found = loops_.emplace(&body, std::move(sel)).first;
    }
    const SelectedLoop& sel = found->second;
    const auto [group, lane] = sel.place.at(n.aux);
    TNode t;
    t.kind = TKind::Loop;
    t.name = body.label;
    t.lanes = sel.groups[group];
    t.loop = sel.loop;
    t.width = 0;
    for (dag::NodeId k : t.lanes) t.width += sel.loop->result_width[k];
    for (std::size_t i = 0; i < n.children.size(); ++i) t.src.push_back(operand(n, i, refs));
    Operand r = ref(intern(std::move(t)));
    if (sel.loop->result_width[n.aux] == 1) return splat(r, lane);
    r.swizzle = Swizzle{{lane, static_cast<std::uint8_t>(lane + 1), static_cast<std::uint8_t>(lane + 2), static_cast<std::uint8_t>(lane + 2)}};
    return r;
  }

  // Operand i of n, selected.
  Operand operand(const Node& n, std::size_t i, const std::vector<Operand>& refs) {
    if (child(n, i).value.size() > 4) fail("a matrix value reached the fragment program; only uniform matrices are supported");
    return refs[n.children.at(i)];
  }
  const Node& child(const Node& n, std::size_t i) const { return d_.node(n.children.at(i)); }
  bool constant_child(const Node& n, std::size_t i) const { return child(n, i).kind == NodeKind::Constant; }
  float constant_float(const Node& n, std::size_t i) const { return child(n, i).value.at(0); }

  Operand builtin(const Node& n, const std::vector<Operand>& refs) {
    int width = is_float(n.type) ? 1 : 3;
    auto kid = [&](std::size_t i) { return operand(n, i, refs); };
    auto id = static_cast<Builtin>(n.aux);
    switch (id) {
      case Builtin::Abs: return emit(Opcode::ABS, {kid(0)}, width);
      case Builtin::Floor: return emit(Opcode::FLR, {kid(0)}, width);
      case Builtin::Ceil: return neg(emit(Opcode::FLR, {neg(kid(0))}, width));
      case Builtin::Round: return emit(Opcode::FLR, {emit(Opcode::ADD, {kid(0), scalar(0.5f)}, width)}, width);
      case Builtin::Sign: {
        Operand pos = emit(Opcode::SLT, {scalar(0), kid(0)}, width);
        Operand negv = emit(Opcode::SLT, {kid(0), scalar(0)}, width);
        return emit(Opcode::SUB, {pos, negv}, width);
      }
      case Builtin::Mod: {
        // a - b * floor(a / b); RCP is scalar, so a triple divisor takes one per component (as
        // a division by a triple does).
        Operand inv;
        if (is_float(child(n, 1).type)) {
          inv = emit(Opcode::RCP, {kid(1)}, 1);
        } else {
          std::vector<Operand> r;
          for (std::uint8_t c = 0; c < 3; ++c) r.push_back(emit(Opcode::RCP, {splat(kid(1), c)}, 1));
          inv = pack(r);
        }
        Operand q = emit(Opcode::FLR, {emit(Opcode::MUL, {kid(0), inv}, width)}, width);
        return emit(Opcode::MAD, {neg(q), kid(1), kid(0)}, width);
      }
      case Builtin::Min:
      case Builtin::Max: {
        Operand r = kid(0);
        for (std::size_t i = 1; i < n.children.size(); ++i)
          r = emit(id == Builtin::Min ? Opcode::MIN : Opcode::MAX, {r, kid(i)}, width);
        return r;
      }
      case Builtin::Clamp: return emit(Opcode::MIN, {emit(Opcode::MAX, {kid(0), kid(1)}, width), kid(2)}, width);
      case Builtin::Mix: return emit(Opcode::LRP, {kid(2), kid(1), kid(0)}, width);
      case Builtin::Step: return emit(Opcode::SGE, {kid(1), kid(0)}, 1);
      case Builtin::Smoothstep: {
        // t = saturate((x - e0) / (e1 - e0)); t * t * (3 - 2t). x >= e1 gives exactly 1.
        Operand t;
        if (constant_child(n, 0) && constant_child(n, 1)) {
          float e0 = constant_float(n, 0), e1 = constant_float(n, 1);
          float k = 1.0f / (e1 - e0);
          t = emit(Opcode::MAD, {kid(2), scalar(k), scalar(-e0 * k)}, 1, true);
        } else {
          Operand inv = emit(Opcode::RCP, {emit(Opcode::SUB, {kid(1), kid(0)}, 1)}, 1);
          t = emit(Opcode::MUL, {emit(Opcode::SUB, {kid(2), kid(0)}, 1), inv}, 1, true);
        }
        Operand u = emit(Opcode::MAD, {t, scalar(-2), scalar(3)}, 1);
        return emit(Opcode::MUL, {emit(Opcode::MUL, {t, t}, 1), u}, 1);
      }
      case Builtin::PerVertex: return kid(0);  // unhoisted (hoisting off): the value itself
      case Builtin::Sqrt: return emit(Opcode::RCP, {emit(Opcode::RSQ, {kid(0)}, 1)}, 1);
      case Builtin::InverseSqrt: return emit(Opcode::RSQ, {kid(0)}, 1);
      case Builtin::Pow: return emit(Opcode::POW, {kid(0), kid(1)}, 1);
      case Builtin::Exp: return emit(Opcode::EX2, {emit(Opcode::MUL, {kid(0), scalar(1.4426950408889634f)}, 1)}, 1);
      case Builtin::Log: return emit(Opcode::MUL, {emit(Opcode::LG2, {kid(0)}, 1), scalar(0.6931471805599453f)}, 1);
      case Builtin::LogBase:
        return emit(Opcode::MUL, {emit(Opcode::LG2, {kid(0)}, 1), emit(Opcode::RCP, {emit(Opcode::LG2, {kid(1)}, 1)}, 1)}, 1);
      case Builtin::Sin: return emit(Opcode::SIN, {kid(0)}, 1);
      case Builtin::Cos: return emit(Opcode::COS, {kid(0)}, 1);
      case Builtin::Tan: return emit(Opcode::MUL, {emit(Opcode::SIN, {kid(0)}, 1), emit(Opcode::RCP, {emit(Opcode::COS, {kid(0)}, 1)}, 1)}, 1);
      case Builtin::Asin: return asin(kid(0));
      case Builtin::Acos: return acos(kid(0));
      case Builtin::Atan: return atan(kid(0));
      case Builtin::Atan2: return atan2(kid(0), kid(1));
      case Builtin::Radians: return emit(Opcode::MUL, {kid(0), scalar(0.017453292519943295f)}, 1);
      case Builtin::Degrees: return emit(Opcode::MUL, {kid(0), scalar(57.29577951308232f)}, 1);
      case Builtin::Length: return emit(Opcode::RCP, {emit(Opcode::RSQ, {emit(Opcode::DP3, {kid(0), kid(0)}, 1)}, 1)}, 1);
      case Builtin::Normalize: {
        Operand k = emit(Opcode::RSQ, {emit(Opcode::DP3, {kid(0), kid(0)}, 1)}, 1);
        return emit(Opcode::MUL, {kid(0), k}, 3);
      }
      case Builtin::Distance: {
        Operand d = emit(Opcode::SUB, {kid(0), kid(1)}, 3);
        return emit(Opcode::RCP, {emit(Opcode::RSQ, {emit(Opcode::DP3, {d, d}, 1)}, 1)}, 1);
      }
      case Builtin::Faceforward: {
        // N if dot(I, Nref) < 0, else -N.
        Operand nref = n.children.size() > 2 ? kid(2) : kid(0);
        Operand d = emit(Opcode::DP3, {kid(1), nref}, 1);
        return emit(Opcode::CMP, {d, kid(0), neg(kid(0))}, 3);
      }
      case Builtin::Reflect: {
        Operand d2 = emit(Opcode::MUL, {emit(Opcode::DP3, {kid(0), kid(1)}, 1), scalar(2)}, 1);
        return emit(Opcode::MAD, {neg(d2), kid(1), kid(0)}, 3);
      }
      case Builtin::Refract: {
        // k = 1 - eta^2 (1 - d^2); k < 0 gives 0; else eta I - (eta d + sqrt k) N.
        Operand i = kid(0), nn = kid(1), eta = kid(2);
        Operand d = emit(Opcode::DP3, {i, nn}, 1);
        Operand e2 = emit(Opcode::MUL, {eta, eta}, 1);
        Operand one_minus_d2 = emit(Opcode::MAD, {neg(d), d, scalar(1)}, 1);
        Operand k = emit(Opcode::MAD, {neg(e2), one_minus_d2, scalar(1)}, 1);
        Operand root = emit(Opcode::RCP, {emit(Opcode::RSQ, {k}, 1)}, 1);
        Operand c = emit(Opcode::MAD, {eta, d, root}, 1);
        Operand v = emit(Opcode::MAD, {neg(c), nn, emit(Opcode::MUL, {eta, i}, 3)}, 3);
        return emit(Opcode::CMP, {k, scalar(0), v}, 3);
      }
      case Builtin::Transform:
      case Builtin::Vtransform:
      case Builtin::Ntransform: {
        if (!constant_child(n, 0) || child(n, 0).value.size() != 16)
          fail("transforms by a varying matrix are not supported on this target");
        std::vector<float> m = child(n, 0).value;
        if (id == Builtin::Ntransform) m = inverse_transpose(m);
        auto row = [&](int r) { return constant({m[r * 4], m[r * 4 + 1], m[r * 4 + 2], m[r * 4 + 3]}, 4); };
        Operand p = kid(1);
        Operand acc = id == Builtin::Transform ? emit(Opcode::MAD, {splat(p, 0), row(0), row(3)}, 4)
                                               : emit(Opcode::MUL, {splat(p, 0), row(0)}, 4);
        acc = emit(Opcode::MAD, {splat(p, 1), row(1), acc}, 4);
        acc = emit(Opcode::MAD, {splat(p, 2), row(2), acc}, 4);
        bool projective = id == Builtin::Transform && (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1);
        if (!projective) return acc;
        return emit(Opcode::MUL, {acc, emit(Opcode::RCP, {splat(acc, 3)}, 1)}, 3);
      }
      case Builtin::Xcomp: return splat(kid(0), 0);
      case Builtin::Ycomp: return splat(kid(0), 1);
      case Builtin::Zcomp: return splat(kid(0), 2);
      case Builtin::Comp: {
        if (!constant_child(n, 1)) fail("comp() with a varying index is not supported on this target");
        float i = constant_float(n, 1);
        if (!(i >= 0 && i < 3)) return scalar(0);
        return splat(kid(0), static_cast<std::uint8_t>(i));
      }
      case Builtin::Setcomp:
      case Builtin::Setxcomp:
      case Builtin::Setycomp:
      case Builtin::Setzcomp: {
        int lane = id == Builtin::Setxcomp ? 0 : id == Builtin::Setycomp ? 1 : id == Builtin::Setzcomp ? 2 : -1;
        if (lane < 0) {
          if (!constant_child(n, 1)) fail("setcomp() with a varying index is not supported on this target");
          float i = constant_float(n, 1);
          if (!(i >= 0 && i < 3)) return kid(0);
          lane = static_cast<int>(i);
        }
        Vec4 keep{1, 1, 1, 1}, put{0, 0, 0, 0};
        keep[lane] = 0;
        put[lane] = 1;
        Operand kept = emit(Opcode::MUL, {kid(0), constant(keep, 4)}, 3);
        return emit(Opcode::MAD, {kid(n.children.size() - 1), constant(put, 4), kept}, 3);
      }
      case Builtin::Spline: return spline(n, refs);
      default: break;
    }
    fail(std::string("'") + lang::to_string(id) + "' has no instruction sequence on this target");
  }

  static std::vector<float> inverse_transpose(const std::vector<float>& m) {
    ir::Matrix a{}, inv = ir::identity_matrix();
    for (int i = 0; i < 16; ++i) a[i] = m[i];
    ir::invert(a, &inv);
    std::vector<float> t(16);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) t[i * 4 + j] = inv[j * 4 + i];
    return t;
  }

  // acos(|x|) ~ sqrt(1 - |x|) (a0 + a1|x| + a2|x|^2 + a3|x|^3) (Abramowitz & Stegun 4.4.45,
  // error below 7e-5), reflected for negative x: acos(x) = pi - acos(-x).
  Operand acos(Operand x) {
    Operand ax = emit(Opcode::ABS, {x}, 1);
    Operand p = emit(Opcode::MAD, {ax, scalar(-0.0187293f), scalar(0.0742610f)}, 1);
    p = emit(Opcode::MAD, {p, ax, scalar(-0.2121144f)}, 1);
    p = emit(Opcode::MAD, {p, ax, scalar(1.5707288f)}, 1);
    Operand s = emit(Opcode::RCP, {emit(Opcode::RSQ, {emit(Opcode::SUB, {scalar(1), ax}, 1)}, 1)}, 1);
    Operand r = emit(Opcode::MUL, {p, s}, 1);
    return emit(Opcode::CMP, {x, emit(Opcode::SUB, {scalar(3.14159265f), r}, 1), r}, 1);
  }
  Operand asin(Operand x) { return emit(Opcode::SUB, {scalar(1.57079633f), acos(x)}, 1); }
  // atan(x) = asin(x / sqrt(1 + x^2)) for |x| <= 1; beyond, pi/2 - atan(1/|x|) with x's sign.
  // Without the reduction, x / sqrt(1 + x^2) lies within a rounding of 1 for large x, and asin
  // there turns a rounding of 6e-8 into an error of 3e-4 (the conformance tester found atan(-1e6)
  // off by 1.2e-3); reduced, asin's argument stays below 0.71, within the polynomial's 7e-5.
  Operand atan(Operand x) {
    Operand a = emit(Opcode::ABS, {x}, 1);
    Operand u = emit(Opcode::MIN, {a, emit(Opcode::RCP, {a}, 1)}, 1);
    Operand k = emit(Opcode::RSQ, {emit(Opcode::MAD, {u, u, scalar(1)}, 1)}, 1);
    Operand r = asin(emit(Opcode::MUL, {u, k}, 1));
    // a > 1 (1 - a < 0): pi/2 - r; then the sign of x.
    Operand big = emit(Opcode::SUB, {scalar(1), a}, 1);
    Operand folded = emit(Opcode::CMP, {big, emit(Opcode::SUB, {scalar(1.57079633f), r}, 1), r}, 1);
    return emit(Opcode::CMP, {x, neg(folded), folded}, 1);
  }
  // atan2(y, x) from the octant: r = atan(min(|x|,|y|) / max(|x|,|y|)) in [0, pi/4], reflected to
  // pi/2 - r when |y| > |x|, to pi - r when x < 0, negated when y < 0. The divisor is kept off zero,
  // so atan2(0, 0) is 0 as in C; y * (1/x) made it 0 * inf = NaN (found by the conformance tester).
  Operand atan2(Operand y, Operand x) {
    Operand ax = emit(Opcode::ABS, {x}, 1), ay = emit(Opcode::ABS, {y}, 1);
    Operand lo = emit(Opcode::MIN, {ax, ay}, 1);
    Operand hi = emit(Opcode::MAX, {emit(Opcode::MAX, {ax, ay}, 1), scalar(1e-30f)}, 1);
    Operand u = emit(Opcode::MUL, {lo, emit(Opcode::RCP, {hi}, 1)}, 1);
    Operand r = asin(emit(Opcode::MUL, {u, emit(Opcode::RSQ, {emit(Opcode::MAD, {u, u, scalar(1)}, 1)}, 1)}, 1));
    r = emit(Opcode::CMP, {emit(Opcode::SUB, {ax, ay}, 1), emit(Opcode::SUB, {scalar(1.57079633f), r}, 1), r}, 1);
    r = emit(Opcode::CMP, {x, emit(Opcode::SUB, {scalar(3.14159265f), r}, 1), r}, 1);
    return emit(Opcode::CMP, {y, neg(r), r}, 1);
  }

  // Catmull-Rom through constant knots: each segment's cubic is a polynomial in t = u - seg
  // (u = n*clamp(x)) evaluated by Horner's rule, and CMP picks the segment u falls in. In t, not
  // re-expanded in u: the expanded coefficients of a late segment are large and cancel (a
  // conformance run found 3e-4 off in the fifth segment).
  Operand spline(const Node& n, const std::vector<Operand>& refs) {
    std::size_t knots = n.children.size() - 1;
    for (std::size_t i = 1; i < n.children.size(); ++i)
      if (!constant_child(n, i)) fail("spline() knots must be constants on this target");
    int segments = static_cast<int>(knots) - 3;
    int width = is_float(n.type) ? 1 : 3;
    Operand u = emit(Opcode::MUL, {emit(Opcode::MOV, {refs[n.children[0]]}, 1, true), scalar(static_cast<float>(segments))}, 1);
    Operand result{};
    for (int seg = 0; seg < segments; ++seg) {
      // Coefficients of the segment's cubic in t = u - seg, then re-expanded in u.
      Vec4 a{}, b{}, c{}, d{};
      for (int lane = 0; lane < 4; ++lane) {
        int comp = width == 1 ? 0 : std::min(lane, 2);
        float p0 = child(n, 1 + seg).value.at(static_cast<std::size_t>(std::min<int>(comp, static_cast<int>(child(n, 1 + seg).value.size()) - 1)));
        float p1 = child(n, 2 + seg).value.at(static_cast<std::size_t>(std::min<int>(comp, static_cast<int>(child(n, 2 + seg).value.size()) - 1)));
        float p2 = child(n, 3 + seg).value.at(static_cast<std::size_t>(std::min<int>(comp, static_cast<int>(child(n, 3 + seg).value.size()) - 1)));
        float p3 = child(n, 4 + seg).value.at(static_cast<std::size_t>(std::min<int>(comp, static_cast<int>(child(n, 4 + seg).value.size()) - 1)));
        double c3 = 0.5 * (-p0 + 3 * p1 - 3 * p2 + p3), c2 = 0.5 * (2 * p0 - 5 * p1 + 4 * p2 - p3);
        double c1 = 0.5 * (-p0 + p2), c0 = p1;
        // f = c3 t^3 + c2 t^2 + c1 t + c0
        a[lane] = static_cast<float>(c3);
        b[lane] = static_cast<float>(c2);
        c[lane] = static_cast<float>(c1);
        d[lane] = static_cast<float>(c0);
      }
      const Operand t = seg == 0 ? u : emit(Opcode::SUB, {u, scalar(static_cast<float>(seg))}, 1);
      Operand v = emit(Opcode::MAD, {t, constant(a, width), constant(b, width)}, width);
      v = emit(Opcode::MAD, {v, t, constant(c, width)}, width);
      v = emit(Opcode::MAD, {v, t, constant(d, width)}, width);
      result = seg == 0 ? v : emit(Opcode::CMP, {t, result, v}, width);
    }
    return result;
  }

  TargetDag finish(const std::vector<TNodeId>& roots, std::vector<TNodeId>* remap_out = nullptr) {
    // Keep what the roots reach, renumbered in postorder (each root's in turn).
    TargetDag out;
    std::vector<TNodeId> remap(nodes_.size(), static_cast<TNodeId>(-1));
    std::vector<std::pair<TNodeId, std::size_t>> stack;
    std::vector<char> seen(nodes_.size(), 0);
    for (TNodeId root : roots) {
    if (seen[root]) continue;
    seen[root] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const TNode& n = nodes_[id];
      if (next < n.src.size()) {
        TNodeId c = n.src[next++].node;
        if (!seen[c]) {
          seen[c] = 1;
          stack.push_back({c, 0});
        }
        continue;
      }
      TNode copy = n;
      copy.id = static_cast<TNodeId>(out.nodes.size());
      for (Operand& o : copy.src) {
        o.node = remap[o.node];
        if (std::find(copy.deps.begin(), copy.deps.end(), o.node) == copy.deps.end()) copy.deps.push_back(o.node);
      }
      remap[id] = copy.id;
      out.nodes.push_back(std::move(copy));
      stack.pop_back();
    }
    }
    out.root = remap[roots.front()];
    if (roots.size() > 1)
      for (TNodeId r : roots) out.outputs.push_back(remap[r]);
    if (remap_out) *remap_out = std::move(remap);
    return out;
  }

  const dag::FragmentDag& d_;
  partition::Derivatives derivatives_;
  const std::set<dag::NodeId>& recompute_;  // on a quad target, the differences subtracted instead
  const Node* current_ = nullptr;
  std::map<const dag::LoopBody*, SelectedLoop> loops_;
  std::vector<TNode> nodes_;
  std::map<std::tuple<TKind, Opcode, bool, std::vector<Operand>, Vec4, std::string, int, std::vector<dag::NodeId>, std::uint8_t>, TNodeId> index_;
};

}  // namespace

namespace {

std::optional<TargetDag> select_with(const dag::FragmentDag& d, lang::Diagnostic* problem, partition::Derivatives derivatives,
                                     const std::set<dag::NodeId>& recompute) {
  try {
    return Selector(d, derivatives, recompute).run();
  } catch (const SelectError& e) {
    if (problem) *problem = {lang::Severity::Error, "fp-target", e.message, e.where, {}};
    return std::nullopt;
  }
}

// The operations under DDX or DDY node `q`, q included, in operand order.
std::vector<TNodeId> quad_pass(const TargetDag& t, TNodeId q) {
  std::vector<char> in(t.size(), 0);
  in[q] = 1;
  for (TNodeId id = q + 1; id-- > 0;)  // operands come first
    if (in[id])
      for (TNodeId c : t.operand_nodes(id)) in[c] = t.is_operation(c);
  std::vector<TNodeId> members;
  for (TNodeId id = 0; id <= q; ++id)
    if (in[id]) members.push_back(id);
  return members;
}

}  // namespace

std::optional<TargetDag> select(const dag::FragmentDag& d, lang::Diagnostic* problem, partition::Derivatives derivatives) {
  return select_with(d, problem, derivatives, {});
}

std::optional<TargetDag> select(const dag::FragmentDag& d, lang::Diagnostic* problem, const partition::TargetDesc& target) {
  std::set<dag::NodeId> recompute;
  for (;;) {
    std::optional<TargetDag> t = select_with(d, problem, target.derivatives, recompute);
    if (!t || target.derivatives != partition::Derivatives::Quad) return t;
    // A DDX or DDY needs its operand computed in its own pass: one whose value takes more than a
    // pass holds is recomputed from the neighbour's interpolants and subtracted instead.
    bool demoted = false;
    for (const TNode& n : t->nodes) {
      if (n.kind != TKind::Instruction || !is_quad_difference(n.op)) continue;
      if (generate_pass(*t, n.id, quad_pass(*t, n.id), target.limits, target.restore_uses_interpolant).failure.empty()) continue;
      for (dag::NodeId o : n.origin)
        if (d.node(o).kind == dag::NodeKind::Operation && d.node(o).op == ir::Op::ScreenDiff) demoted = recompute.insert(o).second || demoted;
    }
    if (!demoted) return t;
  }
}

Vec4 read(const Operand& o, const std::vector<Vec4>& values) {
  const Vec4& v = values[o.node];
  Vec4 r;
  for (int i = 0; i < 4; ++i) r[i] = o.negate ? -v[o.swizzle.lane[i]] : v[o.swizzle.lane[i]];
  return r;
}

Vec4 sample(const TNode& tex, const Vec4& coord, const ir::EvalContext& ctx) {
  ir::Value name = ir::Value::string(tex.name);
  ir::Value c = tex.dims == 1 ? ir::Value::scalar(coord[0]) : ir::Value::triple(lang::BaseType::Point, coord[0], coord[1], coord[2]);
  std::vector<const ir::Value*> args{&name};
  ir::Value parts[3];
  if (tex.dims == 2) {
    // Two coordinates: sample exactly as the FragmentDag's two-float form does.
    parts[0] = ir::Value::scalar(coord[0]);
    parts[1] = ir::Value::scalar(coord[1]);
    args.push_back(&parts[0]);
    args.push_back(&parts[1]);
  } else {
    args.push_back(&c);
  }
  // RGB, then alpha (texture("name"[3]) reads it).
  ir::Value rgb = ir::evaluate(ir::Op::Texture, lang::BaseType::Color, 0, "", {}, args, ctx);
  ir::Value alpha = ir::evaluate(ir::Op::Texture, lang::BaseType::Float, 3, "", {}, args, ctx);
  return {rgb.f[0], rgb.f[1], rgb.f[2], alpha.f[0]};
}

VertexValues vertex_values(const dag::FragmentDag& d, const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next) {
  VertexValues v;
  v.here = dag::vertex_outputs(d, in, ctx);
  v.next = next;
  if (next) {
    v.right = dag::vertex_outputs(d, next->right, ctx);
    v.below = dag::vertex_outputs(d, next->below, ctx);
  }
  return v;
}

Vec4 input_value(const TNode& leaf, const dag::FragmentDag& d, const ir::FragmentInputs& in, const VertexValues& vertex) {
  if (leaf.kind != TKind::Interpolant || leaf.difference == 0) return input_value(leaf, d, in, vertex.here);
  if (!vertex.next) return {NAN, NAN, NAN, NAN};
  const bool right = leaf.difference == 1 || leaf.difference == 3;
  const Vec4 there = input_value(leaf, d, right ? vertex.next->right : vertex.next->below, right ? vertex.right : vertex.below);
  if (leaf.difference >= 3) return there;
  const Vec4 here = input_value(leaf, d, in, vertex.here);
  Vec4 r{};
  for (std::size_t c = 0; c < 4; ++c) r[c] = there[c] - here[c];
  return r;
}

Vec4 input_value(const TNode& leaf, const dag::FragmentDag& d, const ir::FragmentInputs& in,
                 const std::vector<ir::Value>& vertex_values) {
  if (leaf.kind == TKind::Constant) return leaf.value;
  Vec4 r{};
  if (leaf.lanes.size() == 1) {
    ir::Value v = dag::interpolant_value(d, leaf.lanes[0], in, vertex_values);
    if (lang::component_count(v.type) <= 1) return {v.f[0], v.f[0], v.f[0], v.f[0]};
    return {v.f[0], v.f[1], v.f[2], 0};
  }
  for (std::size_t i = 0; i < leaf.lanes.size() && i < 4; ++i) r[i] = dag::interpolant_value(d, leaf.lanes[i], in, vertex_values).f[0];
  return r;
}

bool has_quad_differences(const TargetDag& t) {
  return std::any_of(t.nodes.begin(), t.nodes.end(), [](const TNode& n) { return n.kind == TKind::Instruction && is_quad_difference(n.op); });
}

Vec4 quad_difference(const TNode& n, const std::vector<Vec4>& here, const std::vector<Vec4>& there) {
  const Vec4 a = read(n.src[0], there), b = read(n.src[0], here);
  Vec4 r{};
  for (std::size_t c = 0; c < 4; ++c) r[c] = a[c] - b[c];
  return r;
}

std::vector<Vec4> evaluate_all(const TargetDag& t, const dag::FragmentDag& d, const ir::FragmentInputs& in,
                               const ir::EvalContext& ctx, const ir::Neighbours* next) {
  const VertexValues vertex = vertex_values(d, in, ctx, next);
  const bool lockstep = next && has_quad_differences(t);
  std::vector<Vec4> values(t.size()), right(lockstep ? t.size() : 0), below(lockstep ? t.size() : 0);
  // Node n on a partner (`at`, whose vertex outputs are `at_vertex`), with `values` done up to n.
  auto partner = [&](const TNode& n, std::vector<Vec4>& vals, const ir::FragmentInputs& at, const std::vector<ir::Value>& at_vertex) {
    switch (n.kind) {
      case TKind::Constant:
      case TKind::Interpolant: return n.difference ? values[n.id] : input_value(n, d, at, at_vertex);
      case TKind::Texture: return sample(n, read(n.src[0], vals), ctx);
      case TKind::Loop: return loop_value(n, [&](const Operand& o) { return read(o, vals); }, ctx);
      case TKind::LoopValue: return Vec4{NAN, NAN, NAN, NAN};  // only in a loop's body
      case TKind::Instruction: break;
    }
    if (is_quad_difference(n.op)) return values[n.id];
    return execute(n, [&](const Operand& o) { return read(o, vals); });
  };
  for (const TNode& n : t.nodes) {
    switch (n.kind) {
      case TKind::Constant:
      case TKind::Interpolant: values[n.id] = input_value(n, d, in, vertex); break;
      case TKind::Texture: values[n.id] = sample(n, read(n.src[0], values), ctx); break;
      case TKind::Loop: values[n.id] = loop_value(n, [&](const Operand& o) { return read(o, values); }, ctx); break;
      case TKind::LoopValue: values[n.id] = Vec4{NAN, NAN, NAN, NAN}; break;  // only in a loop's body
      case TKind::Instruction:
        if (is_quad_difference(n.op))
          values[n.id] = lockstep ? quad_difference(n, values, n.op == Opcode::DDX ? right : below) : Vec4{NAN, NAN, NAN, NAN};
        else
          values[n.id] = execute(n, [&](const Operand& o) { return read(o, values); });
        break;
    }
    if (lockstep) {
      right[n.id] = partner(n, right, next->right, vertex.right);
      below[n.id] = partner(n, below, next->below, vertex.below);
    }
  }
  return values;
}

}  // namespace passlab::fp
