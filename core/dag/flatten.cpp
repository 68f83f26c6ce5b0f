// SPDX-License-Identifier: GPL-3.0-or-later
// Flattening: an optimized shader module, bound to its lights, into one FragmentDag.
//
// The method is symbolic execution of the SSA function over "one fragment". Each SSA value is
// either a host constant or a DAG node. Control flow whose condition is a constant is simply
// followed, which unrolls every loop whose trip count is known once the parameters are bound.
// A loop whose condition or exit depends on a node is unrolled under predicates, one branch per
// iteration, for as long as a bound in it has not ended it (see exec).
// A conditional branch on a node is if-converted: both successors run, each under its path
// predicate, up to the branch's immediate post-dominator J; there, every value that differs
// between the arriving paths (phis of J, and values a re-executed block redefined) becomes a
// chain of selects on the path predicates. Paths always meet again at J because J post-dominates
// the branch, and every path into J is collected, so the selects see mutually exclusive
// predicates that together cover the branch's own predicate.
//
// On a target with dynamic loops, a loop whose exit depends on varying values is not unrolled but
// kept as a loop (see roll): one iteration is executed symbolically from its header over
// placeholders for the values it carries, and becomes the body of an ir::Op::Loop node.
#include "core/dag/flatten.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "core/lang/sema.h"
#include "core/dag/verifier.h"
#include "core/ir/cfg.h"

namespace passlab::dag {

namespace {

using ir::BlockId;
using ir::Instr;
using ir::Op;
using ir::Value;
using ir::ValueId;

struct FlattenError {};

constexpr BlockId kExit = static_cast<BlockId>(-2);
// The edge an iteration of a loop kept as a loop enters its header by (roll).
constexpr BlockId kRollEntry = static_cast<BlockId>(-3);

struct StringChoice;
struct MatrixRows;

// A value for one fragment: known on the host (is_const), a DAG node, a string that differs per
// fragment, one of a known set (`strings`), or a matrix that differs per fragment, kept as its
// rows (`rows`). A fragment program has no strings, so such a string is never a node: what reads
// it (a texture lookup by name, a comparison, format()) runs once per string the fragment may
// have, and selects pick the fragment's. Nor has it 4x4 matrices: what reads one (a transform, a
// product, an element) reads its rows.
struct Sym {
  bool is_const = true;
  Value value;
  NodeId node = 0;
  std::shared_ptr<const std::vector<StringChoice>> strings;
  std::shared_ptr<const MatrixRows> rows;
};

// A matrix computed per fragment: row i is (xyz[i], w[i]), a vector and a float (points are row
// vectors, p' = p * M, so the rows are what a transform scales and sums; w is the projective
// column, constant (0, 0, 0, 1) for the affine matrices shaders build).
struct MatrixRows {
  std::array<Sym, 4> xyz, w;
};

// One string a per-fragment string may be, and when: the predicates of a set are mutually
// exclusive and together cover every fragment.
struct StringChoice {
  Sym when;
  std::string value;
};

bool same(const Sym& a, const Sym& b) {
  if (a.is_const != b.is_const) return false;
  if (a.rows || b.rows) {
    if (!a.rows || !b.rows) return false;
    for (std::size_t i = 0; i < 4; ++i)
      if (!same(a.rows->xyz[i], b.rows->xyz[i]) || !same(a.rows->w[i], b.rows->w[i])) return false;
    return true;
  }
  if (a.strings || b.strings) {
    if (!a.strings || !b.strings || a.strings->size() != b.strings->size()) return false;
    for (std::size_t i = 0; i < a.strings->size(); ++i)
      if ((*a.strings)[i].value != (*b.strings)[i].value || !same((*a.strings)[i].when, (*b.strings)[i].when)) return false;
    return true;
  }
  if (!a.is_const) return a.node == b.node;
  if (a.value.type != b.value.type || a.value.s != b.value.s) return false;
  return std::memcmp(a.value.f.data(), b.value.f.data(), sizeof(float) * a.value.f.size()) == 0;
}

using Env = std::vector<Sym>;

struct Arrival {
  BlockId from;
  Sym pred;
  Env env;
  // Where a path of an iteration of a loop being rolled ended, if not at the stop it was run to:
  // back at the loop's header (its next iteration) or at its exit.
  enum class End : std::uint8_t { AtStop, Back, Left } end = End::AtStop;
};

// Immediate post-dominators: dominators of the reversed CFG with a virtual exit after every ret.
std::vector<BlockId> post_dominators(const ir::Function& fn) {
  // Build the reversed graph: node ids are block ids plus one virtual exit (id = n).
  std::size_t n = fn.blocks.size();
  std::vector<std::vector<std::size_t>> rsucc(n + 1), rpred(n + 1);
  for (BlockId b = 0; b < n; ++b) {
    if (fn.blocks[b].removed) continue;
    const Instr* t = fn.terminator(b);
    if (!t) continue;
    if (t->op == Op::Ret) {
      rsucc[n].push_back(b);
      rpred[b].push_back(n);
    }
    for (BlockId s : t->targets) {
      rsucc[s].push_back(b);
      rpred[b].push_back(s);
    }
  }
  std::vector<std::size_t> order;
  std::vector<int> index(n + 1, -1);
  std::vector<char> seen(n + 1, 0);
  std::vector<std::pair<std::size_t, std::size_t>> stack{{n, 0}};
  seen[n] = 1;
  while (!stack.empty()) {
    auto& [x, i] = stack.back();
    if (i < rsucc[x].size()) {
      std::size_t y = rsucc[x][i++];
      if (!seen[y]) {
        seen[y] = 1;
        stack.push_back({y, 0});
      }
    } else {
      order.push_back(x);
      stack.pop_back();
    }
  }
  std::reverse(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size(); ++i) index[order[i]] = static_cast<int>(i);
  std::vector<std::size_t> idom(n + 1, static_cast<std::size_t>(-1));
  idom[n] = n;
  auto intersect = [&](std::size_t a, std::size_t b) {
    while (a != b) {
      while (index[a] > index[b]) a = idom[a];
      while (index[b] > index[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 1; i < order.size(); ++i) {
      std::size_t x = order[i];
      std::size_t nd = static_cast<std::size_t>(-1);
      for (std::size_t p : rpred[x]) {
        if (index[p] < 0 || idom[p] == static_cast<std::size_t>(-1)) continue;
        nd = nd == static_cast<std::size_t>(-1) ? p : intersect(p, nd);
      }
      if (nd != static_cast<std::size_t>(-1) && idom[x] != nd) {
        idom[x] = nd;
        changed = true;
      }
    }
  }
  std::vector<BlockId> out(n, kExit);
  for (BlockId b = 0; b < n; ++b) {
    std::size_t d = idom[b];
    out[b] = (d == n || d == static_cast<std::size_t>(-1)) ? kExit : static_cast<BlockId>(d);
  }
  return out;
}

class Flattener {
 public:
  Flattener(const ir::Module& m, const ir::Binding& binding, lang::DiagnosticSink& sink, const FlattenOptions& options)
      : m_(m), fn_(m.shader()), binding_(binding), sink_(sink), options_(options) {
    ctx_.spaces = binding.spaces;
  }

  FragmentDag run() {
    if (m_.kind == lang::ShaderKind::Volume || m_.kind == lang::ShaderKind::Imager)
      fail(shader_span(), "no-fragment-meaning",
           m_.kind == lang::ShaderKind::Volume
               ? "a volume shader attenuates light along rays between surfaces, which a fragment pipeline does not "
                 "trace; Passlab checks it and lowers it to IR (passlab-cli ir)"
               : "an imager shader runs once per finished pixel, after every fragment; no fragment target runs it; "
                 "Passlab checks it and lowers it to IR (passlab-cli ir)");
    if (m_.kind != lang::ShaderKind::Surface)
      fail({}, "not-a-surface", std::string("a fragment DAG is built from a surface shader; this is a ") + lang::to_string(m_.kind) + " shader");
    for (const Instr& in : fn_.values)
      if (!in.removed && (in.op == Op::Call || in.op == Op::Arg || in.op == Op::Extract))
        fail(in.span, "internal-error", "internal compiler error: calls must be inlined before flattening");
    ipdom_ = post_dominators(fn_);
    dom_ = ir::dominators(fn_);
    visits_.assign(fn_.blocks.size(), 0);
    if (options_.dynamic_loops > 0) find_dynamic_loops();
    Env env(fn_.values.size());
    std::vector<Arrival> exits;
    exec(0, ir::kNoBlock, kExit, constant(Value::boolean(true)), env, exits, 0, false);
    // Merge the values every path returned.
    const Instr* ret = nullptr;
    for (const auto& a : exits) ret = fn_.terminator(a.from);
    if (!ret || ret->args.size() < 2) fail({}, "internal-error", "internal compiler error: surface shader returns no colour");
    // The fragment's colour and opacity: Ci and Oi, or an output parameter (an AOV) as an opaque
    // colour.
    std::size_t colour = 0;
    if (!options_.aov.empty()) colour = aov_result();
    Sym ci = merge_values(exits, [&](const Arrival& a) { return a.env[fn_.terminator(a.from)->args[colour]]; }, ret->span);
    Sym oi = merge_values(exits, [&](const Arrival& a) { return a.env[fn_.terminator(a.from)->args[1]]; }, ret->span);
    if (colour != 0) {
      if (ci.strings || ci.rows || type_of(ci) == ir::BaseType::String || type_of(ci) == ir::BaseType::Matrix || type_of(ci) == ir::BaseType::Bool)
        fail(shader_span(), "aov-type", "output parameter '" + options_.aov + "' is not a float or a colour-like triple, so it has no picture");
      ci = op(Op::Convert, ir::BaseType::Color, 0, {ci}, ret->span);
      oi = constant(Value::triple(ir::BaseType::Color, 1, 1, 1));
    }
    NodeId root = b_.operation(Op::Output, ir::BaseType::Color, 0, {node(ci, ret->span), node(oi, ret->span)}, ret->span);
    if (options_.all_outputs && options_.aov.empty()) {
      // Every output parameter that has a picture, opaque, after the colour: one root over them.
      std::vector<NodeId> outputs{root};
      const Sym opaque = constant(Value::triple(ir::BaseType::Color, 1, 1, 1));
      for (std::size_t k = 2; k < fn_.result_names.size() && k < ret->args.size(); ++k) {
        Sym v = merge_values(exits, [&](const Arrival& a) { return a.env[fn_.terminator(a.from)->args[k]]; }, ret->span);
        const ir::BaseType type = type_of(v);
        if (v.rows || v.strings || type == ir::BaseType::String || type == ir::BaseType::Matrix || type == ir::BaseType::Bool) {
          sink_.warning("aov-type", shader_span(),
                        "output parameter '" + fn_.result_names[k] + "' is not a float or a colour-like triple, so no render target takes it");
          continue;
        }
        const Sym colour = op(Op::Convert, ir::BaseType::Color, 0, {v}, ret->span);
        const NodeId written = b_.operation(Op::Output, ir::BaseType::Color, 0, {node(colour, ret->span), node(opaque, ret->span)}, ret->span);
        if (std::find(outputs.begin(), outputs.end(), written) == outputs.end()) outputs.push_back(written);
      }
      if (outputs.size() > 1) root = b_.operation(Op::Outputs, ir::BaseType::Color, 0, outputs, ret->span);
    }
    return b_.finish(root, m_.shader_name);
  }

 private:
  [[noreturn]] void fail(const lang::Span& span, const std::string& code, const std::string& msg) {
    if (!quiet_) sink_.error(code, span, msg);
    throw FlattenError{};
  }

  Sym constant(const Value& v) {
    Sym s;
    s.is_const = true;
    s.value = v;
    return s;
  }
  Sym of_node(NodeId n) {
    Sym s;
    s.is_const = false;
    s.node = n;
    s.value.type = b_.node(n).type;
    return s;
  }
  NodeId node(const Sym& s, const lang::Span& span) {
    if (s.rows)
      fail(span, "matrix-value",
           "a matrix that differs per fragment can transform points and vectors, be multiplied, compared or have its elements "
           "read, but a fragment program cannot keep it as a value");
    if (s.strings)
      fail(span, "string-value",
           "a string that differs per fragment can name a texture, be compared or be formatted, but a fragment program "
           "cannot keep it as a value");
    if (!s.is_const) return s.node;
    if (s.value.type == ir::BaseType::String)
      fail(span, "string-value", "a string value cannot be computed per fragment");
    return b_.constant(s.value, span);
  }

  // ---- strings that differ per fragment ----
  std::vector<StringChoice> choices_of(const Sym& s) {
    if (s.strings) return *s.strings;
    return {{constant(Value::boolean(true)), s.value.s}};
  }
  // select(c, a, b) of strings: a's strings where c holds, b's where it does not; a string in
  // both is one choice.
  Sym select_strings(const Sym& c, const Sym& a, const Sym& b, const lang::Span& span) {
    std::vector<StringChoice> out;
    auto add = [&](const Sym& when, const std::string& value) {
      for (StringChoice& k : out)
        if (k.value == value) {
          k.when = op(Op::Or, ir::BaseType::Bool, 0, {k.when, when}, span);
          return;
        }
      out.push_back({when, value});
    };
    const Sym not_c = op(Op::Not, ir::BaseType::Bool, 0, {c}, span);
    for (const StringChoice& k : choices_of(a)) add(op(Op::And, ir::BaseType::Bool, 0, {c, k.when}, span), k.value);
    for (const StringChoice& k : choices_of(b)) add(op(Op::And, ir::BaseType::Bool, 0, {not_c, k.when}, span), k.value);
    if (out.size() == 1) return constant(Value::string(out[0].value));
    if (out.size() > options_.max_string_choices)
      fail(span, "string-value",
           "a string that differs per fragment may be any of " + std::to_string(out.size()) + " strings; a fragment target takes at most " +
               std::to_string(options_.max_string_choices));
    Sym r;
    r.is_const = false;
    r.value.type = ir::BaseType::String;
    r.strings = std::make_shared<const std::vector<StringChoice>>(std::move(out));
    return r;
  }
  // An operation reading a per-fragment string (argument `i`): run once per string, the
  // fragment's result chosen by the strings' predicates.
  Sym per_string(Op o, ir::BaseType type, std::uint32_t aux, const std::vector<Sym>& args, std::size_t i, const lang::Span& span) {
    const std::vector<StringChoice>& ch = *args[i].strings;
    Sym acc;
    for (std::size_t k = ch.size(); k-- > 0;) {
      std::vector<Sym> one = args;
      one[i] = constant(Value::string(ch[k].value));
      const Sym r = op(o, type, aux, one, span);
      acc = k + 1 == ch.size() ? r : op(Op::Select, type, 0, {ch[k].when, r, acc}, span);
    }
    return acc;
  }
  ir::BaseType type_of(const Sym& s) const {
    if (s.strings) return ir::BaseType::String;
    return s.is_const || s.rows ? s.value.type : b_.node(s.node).type;
  }

  // ---- matrices that differ per fragment ----
  using F = ir::BaseType;
  Sym scalar(float x) { return constant(Value::scalar(x)); }
  // Component i (0 to 2) of a triple.
  Sym component(const Sym& p, int i, const lang::Span& span) {
    static constexpr lang::Builtin kComp[] = {lang::Builtin::Xcomp, lang::Builtin::Ycomp, lang::Builtin::Zcomp};
    return op(Op::Builtin, F::Float, static_cast<std::uint32_t>(kComp[i]), {p}, span);
  }
  // Element (i, j) of a matrix, known or per fragment.
  Sym element(const Sym& m, int i, int j, const lang::Span& span) {
    if (!m.rows) return scalar(m.value.f[static_cast<std::size_t>(i * 4 + j)]);
    if (j == 3) return m.rows->w[static_cast<std::size_t>(i)];
    return component(m.rows->xyz[static_cast<std::size_t>(i)], j, span);
  }
  Sym row_xyz(const Sym& m, int i, const lang::Span& span) {
    if (m.rows) return m.rows->xyz[static_cast<std::size_t>(i)];
    return op(Op::MakeTriple, F::Vector, 0, {element(m, i, 0, span), element(m, i, 1, span), element(m, i, 2, span)}, span);
  }
  Sym row_w(const Sym& m, int i, const lang::Span& span) { return element(m, i, 3, span); }
  // A matrix from its rows: known if every row is.
  Sym matrix_of(MatrixRows r) {
    bool known = true;
    for (std::size_t i = 0; i < 4; ++i) known = known && r.xyz[i].is_const && !r.xyz[i].rows && r.w[i].is_const;
    Sym m;
    m.value.type = F::Matrix;
    if (known) {
      m.value = Value::zero(F::Matrix);
      for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j < 3; ++j) m.value.f[i * 4 + j] = r.xyz[i].value.f[j];
        m.value.f[i * 4 + 3] = r.w[i].value.f[0];
      }
      return m;
    }
    m.is_const = false;
    m.rows = std::make_shared<const MatrixRows>(std::move(r));
    return m;
  }
  // a * b in a matrix's arithmetic, where a known zero factor makes the term a known zero (so that
  // a product of matrices whose projective columns are (0, 0, 0, 1) has one too; IEEE would
  // differ only where the other factor is infinite or NaN).
  Sym product(ir::BaseType type, const Sym& a, const Sym& b, const lang::Span& span) {
    if (is_zero(a) || is_zero(b)) return constant(Value::zero(type));
    return op(Op::Mul, type, 0, {a, b}, span);
  }
  // p * M: a point (w = 1, then divided by the result's w unless that is 0 or 1, as
  // ir::evaluate has it) or a vector (w = 0).
  Sym through(ir::BaseType type, const Sym& m, const Sym& p, bool as_point, const lang::Span& span) {
    Sym xyz, w;
    for (int i = 0; i < 3; ++i) {
      const Sym k = component(p, i, span);
      const Sym tx = product(type, k, row_xyz(m, i, span), span), tw = product(F::Float, k, row_w(m, i, span), span);
      xyz = i == 0 ? tx : op(Op::Add, type, 0, {xyz, tx}, span);
      w = i == 0 ? tw : op(Op::Add, F::Float, 0, {w, tw}, span);
    }
    if (!as_point) return xyz;
    xyz = op(Op::Add, type, 0, {xyz, op(Op::Convert, type, 0, {row_xyz(m, 3, span)}, span)}, span);
    w = op(Op::Add, F::Float, 0, {w, row_w(m, 3, span)}, span);
    const Sym projective = op(Op::And, F::Bool, 0, {op(Op::Ne, F::Bool, 0, {w, scalar(1)}, span), op(Op::Ne, F::Bool, 0, {w, scalar(0)}, span)}, span);
    return op(Op::Select, type, 0, {projective, op(Op::Div, type, 0, {xyz, w}, span), xyz}, span);
  }
  // A matrix operation with an operand or result that differs per fragment, on its rows.
  Sym per_row(Op o, ir::BaseType type, std::uint32_t aux, const std::vector<Sym>& args, const lang::Span& span) {
    using B = lang::Builtin;
    const auto unsupported = [&](const std::string& what) -> Sym {
      fail(span, "matrix-value", what + " of a matrix that differs per fragment is not supported on fragment targets");
    };
    MatrixRows r;
    switch (o) {
      case Op::MakeMatrix:
        for (int i = 0; i < 4; ++i) {
          const auto k = static_cast<std::size_t>(i);
          r.xyz[k] = op(Op::MakeTriple, F::Vector, 0, {args[k * 4], args[k * 4 + 1], args[k * 4 + 2]}, span);
          r.w[k] = args[k * 4 + 3];
        }
        return matrix_of(std::move(r));
      case Op::Convert:  // a float x: x on the diagonal
        if (type != F::Matrix) break;
        for (int i = 0; i < 4; ++i) {
          Sym e[3] = {scalar(0), scalar(0), scalar(0)};
          if (i < 3) e[i] = args[0];
          r.xyz[static_cast<std::size_t>(i)] = op(Op::MakeTriple, F::Vector, 0, {e[0], e[1], e[2]}, span);
          r.w[static_cast<std::size_t>(i)] = i == 3 ? args[0] : scalar(0);
        }
        return matrix_of(std::move(r));
      case Op::Select:
      case Op::Add:
      case Op::Sub:
      case Op::Neg:
        if (type != F::Matrix) break;
        for (int i = 0; i < 4; ++i) {
          std::vector<Sym> xyz, w;
          for (std::size_t a = 0; a < args.size(); ++a) {
            const bool matrix = type_of(args[a]) == F::Matrix;
            xyz.push_back(matrix ? row_xyz(args[a], i, span) : args[a]);
            w.push_back(matrix ? row_w(args[a], i, span) : args[a]);
          }
          r.xyz[static_cast<std::size_t>(i)] = op(o, F::Vector, aux, xyz, span);
          r.w[static_cast<std::size_t>(i)] = op(o, F::Float, aux, w, span);
        }
        return matrix_of(std::move(r));
      case Op::MatDiv: {
        if (args[1].rows) return unsupported("dividing by (inverting)");
        const Value identity = Value::matrix(ir::identity_matrix());
        const Value inverse = ir::evaluate(Op::MatDiv, F::Matrix, 0, "", {}, {&identity, &args[1].value}, ctx_);
        return per_row(Op::MatMul, type, 0, {args[0], constant(inverse)}, span);
      }
      case Op::MatMul:
        // Row i of A B: the sum over k of A's element (i, k) times B's row k, in k's order.
        for (int i = 0; i < 4; ++i)
          for (int k = 0; k < 4; ++k) {
            const Sym a = element(args[0], i, k, span);
            const Sym tx = product(F::Vector, a, row_xyz(args[1], k, span), span), tw = product(F::Float, a, row_w(args[1], k, span), span);
            auto& x = r.xyz[static_cast<std::size_t>(i)];
            auto& w = r.w[static_cast<std::size_t>(i)];
            x = k == 0 ? tx : op(Op::Add, F::Vector, 0, {x, tx}, span);
            w = k == 0 ? tw : op(Op::Add, F::Float, 0, {w, tw}, span);
          }
        return matrix_of(std::move(r));
      case Op::Eq:
      case Op::Ne: {
        Sym all = constant(Value::boolean(true));
        for (int i = 0; i < 4; ++i)
          for (const bool xyz : {true, false}) {
            const Sym a = xyz ? row_xyz(args[0], i, span) : row_w(args[0], i, span), b = xyz ? row_xyz(args[1], i, span) : row_w(args[1], i, span);
            all = op(Op::And, F::Bool, 0, {all, op(Op::Eq, F::Bool, 0, {a, b}, span)}, span);
          }
        return o == Op::Eq ? all : op(Op::Not, F::Bool, 0, {all}, span);
      }
      case Op::Builtin:
        switch (static_cast<B>(aux)) {
          case B::Transform:
          case B::Vtransform:
            if (args.size() != 2) break;
            return through(type, args[0], args[1], static_cast<B>(aux) == B::Transform, span);
          case B::Ntransform: {
            // By the inverse transpose: for a matrix whose projective column is (0, 0, 0, w), w
            // not 0, that is the 3x3 part's cofactors over its determinant, and the cofactor rows
            // are cross products of its rows. A singular matrix leaves the normal as it is (the
            // reference's inverse is then the identity).
            if (args.size() != 2) break;
            const Sym& m = args[0];
            for (int i = 0; i < 4; ++i) {
              const Sym w = row_w(m, i, span);
              if (!w.is_const || (i < 3) != (w.value.f[0] == 0)) return unsupported("ntransform by a projective matrix");
            }
            const Sym r[3] = {row_xyz(m, 0, span), row_xyz(m, 1, span), row_xyz(m, 2, span)};
            Sym sum;
            for (int i = 0; i < 3; ++i) {
              const Sym cof = op(Op::Cross, F::Vector, 0, {r[(i + 1) % 3], r[(i + 2) % 3]}, span);
              const Sym term = op(Op::Mul, type, 0, {component(args[1], i, span), cof}, span);
              sum = i == 0 ? term : op(Op::Add, type, 0, {sum, term}, span);
            }
            const Sym det = op(Op::Dot, F::Float, 0, {r[0], op(Op::Cross, F::Vector, 0, {r[1], r[2]}, span)}, span);
            return op(Op::Select, type, 0, {op(Op::Ne, F::Bool, 0, {det, scalar(0)}, span), op(Op::Div, type, 0, {sum, det}, span), args[1]}, span);
          }
          case B::Comp:
            if (args.size() != 3) break;
            if (!args[1].is_const || !args[2].is_const) return unsupported("comp() at indices that differ per fragment");
            {
              const float i = args[1].value.f[0], j = args[2].value.f[0];
              if (!(i >= 0 && i <= 3 && j >= 0 && j <= 3)) return scalar(0);
              return element(args[0], static_cast<int>(i), static_cast<int>(j), span);
            }
          case B::Determinant: {
            // Laplace expansion along the first row, as ir::evaluate has it (in float here).
            const auto at = [&](int i, int j) { return element(args[0], i, j, span); };
            const auto mul = [&](const Sym& a, const Sym& b) { return op(Op::Mul, F::Float, 0, {a, b}, span); };
            const auto subf = [&](const Sym& a, const Sym& b) { return op(Op::Sub, F::Float, 0, {a, b}, span); };
            const auto addf = [&](const Sym& a, const Sym& b) { return op(Op::Add, F::Float, 0, {a, b}, span); };
            const auto det3 = [&](int c0, int c1, int c2) {
              return addf(subf(mul(at(1, c0), subf(mul(at(2, c1), at(3, c2)), mul(at(2, c2), at(3, c1)))),
                               mul(at(1, c1), subf(mul(at(2, c0), at(3, c2)), mul(at(2, c2), at(3, c0))))),
                          mul(at(1, c2), subf(mul(at(2, c0), at(3, c1)), mul(at(2, c1), at(3, c0)))));
            };
            return subf(addf(subf(mul(at(0, 0), det3(1, 2, 3)), mul(at(0, 1), det3(0, 2, 3))), mul(at(0, 2), det3(0, 1, 3))),
                        mul(at(0, 3), det3(0, 1, 2)));
          }
          default: break;
        }
        break;
      default: break;
    }
    return unsupported(std::string("'") + (o == Op::Builtin ? lang::to_string(static_cast<B>(aux)) : ir::to_string(o)) + "'");
  }

  // Operations whose float operands broadcast to the result's components (see ir::evaluate).
  static bool broadcasts(Op o, std::uint32_t aux, ir::BaseType type) {
    if (!lang::is_triple(type)) return false;
    switch (o) {
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Neg: case Op::Select: return true;
      case Op::Builtin: {
        auto id = static_cast<lang::Builtin>(aux);
        return id == lang::Builtin::Min || id == lang::Builtin::Max || id == lang::Builtin::Mix || id == lang::Builtin::Clamp ||
               id == lang::Builtin::Abs || id == lang::Builtin::Floor || id == lang::Builtin::Ceil || id == lang::Builtin::Mod;
      }
      default: return false;
    }
  }

  static bool is_all(const Sym& s, float x) {
    if (!s.is_const || s.value.type == ir::BaseType::String || s.value.type == ir::BaseType::Matrix) return false;
    for (int i = 0; i < std::max(1, lang::component_count(s.value.type)); ++i)
      if (s.value.f[i] != x) return false;
    return true;
  }
  // x + 0 and x * 1 are exact for colours and positions (only the sign of a zero may differ).
  static bool is_zero(const Sym& s) { return is_all(s, 0.0f); }
  static bool is_one(const Sym& s) { return is_all(s, 1.0f); }

  // One operation on symbolic operands: folded on the host when every operand is known.
  Sym op(Op o, ir::BaseType type, std::uint32_t aux, const std::vector<Sym>& args, const lang::Span& span) {
    if (o == Op::Select && type == ir::BaseType::String && !args[0].is_const) return select_strings(args[0], args[1], args[2], span);
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].strings) return per_string(o, type, aux, args, i, span);
    bool all_const = true, rows = false;
    for (const Sym& a : args) {
      all_const = all_const && a.is_const;
      rows = rows || a.rows;
    }
    if (rows || (type == ir::BaseType::Matrix && !all_const)) return per_row(o, type, aux, args, span);
    // A lookup is folded only from the noise lattice, which is built in: an image may be another
    // at render time.
    const bool lattice = o == Op::Texture && args[0].value.type == ir::BaseType::String && args[0].value.s == "$noise";
    if (all_const && (o != Op::Texture || lattice)) {
      std::vector<const Value*> ptrs;
      for (const Sym& a : args) ptrs.push_back(&a.value);
      return constant(ir::evaluate(o, type, aux, "", {}, ptrs, ctx_));
    }
    // Identities that keep the DAG from carrying obvious work.
    auto is_true = [](const Sym& s) { return s.is_const && s.value.truth(); };
    auto is_false = [](const Sym& s) { return s.is_const && !s.value.truth(); };
    switch (o) {
      case Op::And:
        if (is_true(args[0])) return args[1];
        if (is_true(args[1])) return args[0];
        if (is_false(args[0]) || is_false(args[1])) return constant(Value::boolean(false));
        break;
      case Op::Or:
        if (is_false(args[0])) return args[1];
        if (is_false(args[1])) return args[0];
        if (is_true(args[0]) || is_true(args[1])) return constant(Value::boolean(true));
        break;
      case Op::Not:
        if (!args[0].is_const && b_.node(args[0].node).op == Op::Not) return of_node(b_.node(args[0].node).children[0]);
        break;
      case Op::Select:
        if (args[0].is_const) return args[0].value.truth() ? args[1] : args[2];
        if (same(args[1], args[2])) return args[1];
        // select(c, true, false) is c (a comparison of a per-fragment string makes these).
        if (type == ir::BaseType::Bool && args[1].is_const && args[2].is_const && args[1].value.truth() != args[2].value.truth())
          return args[1].value.truth() ? args[0] : op(Op::Not, type, 0, {args[0]}, span);
        break;
      case Op::Convert:
        // Between triples (point, vector, normal, colour) a conversion moves no bits.
        if (type_of(args[0]) == type || (lang::is_triple(type_of(args[0])) && lang::is_triple(type))) return args[0];
        break;
      case Op::Builtin:
        // normalize is idempotent, and commutes with negation.
        if (static_cast<lang::Builtin>(aux) == lang::Builtin::Normalize && !args[0].is_const) {
          const Node& k = b_.node(args[0].node);
          bool normalized = k.op == Op::Builtin && static_cast<lang::Builtin>(k.aux) == lang::Builtin::Normalize;
          if (normalized) return args[0];
          if (k.op == Op::Neg) {
            const Node& inner = b_.node(k.children[0]);
            if (inner.op == Op::Builtin && static_cast<lang::Builtin>(inner.aux) == lang::Builtin::Normalize) return args[0];
          }
        }
        break;
      case Op::Add:
        if (is_zero(args[0]) && type_of(args[1]) == type) return args[1];
        if (is_zero(args[1]) && type_of(args[0]) == type) return args[0];
        break;
      case Op::Sub:
        if (is_zero(args[1]) && type_of(args[0]) == type) return args[0];
        break;
      case Op::Mul:
        if (is_one(args[0]) && type_of(args[1]) == type) return args[1];
        if (is_one(args[1]) && type_of(args[0]) == type) return args[0];
        break;
      default: break;
    }
    if (o == Op::Texture) {
      if (!args[0].is_const || args[0].value.type != ir::BaseType::String)
        fail(span, "texture-name", "the texture name must be known when the shader is compiled");
      std::vector<NodeId> coords;
      for (std::size_t i = 1; i < args.size(); ++i) coords.push_back(node(args[i], span));
      return of_node(check_size(b_.texture(args[0].value.s, type, std::move(coords), span, aux), span));
    }
    std::vector<NodeId> kids;
    for (const Sym& a : args) kids.push_back(node(a, span));
    if (broadcasts(o, aux, type))
      for (NodeId& k : kids) {
        // A float splatted to a triple is a source swizzle on fragment hardware, not an operation.
        const Node& kn = b_.node(k);
        if (kn.kind == NodeKind::Operation && kn.op == Op::Convert && b_.node(kn.children[0]).type == ir::BaseType::Float)
          k = kn.children[0];
      }
    if (o == Op::Builtin && static_cast<lang::Builtin>(aux) == lang::Builtin::PerVertex && reads_texture(kids.at(0)))
      sink_.warning("pervertex-texture", span,
                    "pervertex() of a value that reads a texture stays per fragment (vertices have no texture lookups here)");
    return of_node(check_size(b_.operation(o, type, aux, std::move(kids), span), span));
  }

  // ---- screen-space derivatives (ir/derivatives.h has the formulas the interpreter uses) ----
  // A value's difference one pixel right (dir 0) or below (1): a ScreenDiff node. Of an
  // interpolated value (once the vertex hoist has made it one) a rasterizer delivers it exactly.
  Sym difference(const Sym& x, std::uint32_t dir, const lang::Span& span) { return op(Op::ScreenDiff, type_of(x), dir, {x}, span); }
  Sym arith(Op o, ir::BaseType t, const Sym& a, const Sym& b, const lang::Span& span) { return op(o, t, 0, {a, b}, span); }
  Sym param_difference(lang::Global g, std::uint32_t dir, const lang::Span& span) {
    return difference(of_node(b_.interpolant(g, ir::BaseType::Float, span)), dir, span);
  }
  // du or dv: how far u or v moves across the pixel, |d/dx| + |d/dy|.
  Sym pixel_step(bool u, const lang::Span& span) {
    const lang::Global g = u ? lang::Global::u : lang::Global::v;
    auto abs_of = [&](const Sym& x) { return op(Op::Builtin, ir::BaseType::Float, static_cast<std::uint32_t>(lang::Builtin::Abs), {x}, span); };
    return arith(Op::Add, ir::BaseType::Float, abs_of(param_difference(g, 0, span)), abs_of(param_difference(g, 1, span)), span);
  }
  // Du(x) (along_u) or Dv(x): (X vy - Y vx) / det or (ux Y - uy X) / det, det = ux vy - uy vx.
  Sym partial(bool along_u, const Sym& x, ir::BaseType t, const lang::Span& span) {
    using F = ir::BaseType;
    const Sym ux = param_difference(lang::Global::u, 0, span), uy = param_difference(lang::Global::u, 1, span);
    const Sym vx = param_difference(lang::Global::v, 0, span), vy = param_difference(lang::Global::v, 1, span);
    const Sym det = arith(Op::Sub, F::Float, arith(Op::Mul, F::Float, ux, vy, span), arith(Op::Mul, F::Float, uy, vx, span), span);
    const Sym X = difference(x, 0, span), Y = difference(x, 1, span);
    const Sym num = along_u ? arith(Op::Sub, t, arith(Op::Mul, t, X, vy, span), arith(Op::Mul, t, Y, vx, span), span)
                            : arith(Op::Sub, t, arith(Op::Mul, t, Y, ux, span), arith(Op::Mul, t, X, uy, span), span);
    return arith(Op::Div, t, num, det, span);
  }
  Sym derivative(lang::Builtin id, ir::BaseType type, const std::vector<Sym>& args, const lang::Span& span) {
    using B = lang::Builtin;
    using F = ir::BaseType;
    switch (id) {
      case B::Du: return partial(true, args[0], type, span);
      case B::Dv: return partial(false, args[0], type, span);
      case B::Deriv: {
        // Du(num) / Du(den) + Dv(num) / Dv(den), a term whose denominator is 0 left out (its
        // division made safe, so that no node of the DAG is infinite for nothing).
        Sym sum;
        for (bool along_u : {true, false}) {
          const Sym n = partial(along_u, args[0], type, span), d = partial(along_u, args[1], F::Float, span);
          const Sym moves = arith(Op::Ne, F::Bool, d, constant(Value::scalar(0)), span);
          const Sym safe = op(Op::Select, F::Float, 0, {moves, d, constant(Value::scalar(1))}, span);
          const Sym term = op(Op::Select, type, 0, {moves, arith(Op::Div, type, n, safe, span), constant(Value::zero(type))}, span);
          sum = along_u ? term : arith(Op::Add, type, sum, term, span);
        }
        return sum;
      }
      case B::Calculatenormal:
        return arith(Op::Cross, type, partial(true, args[0], F::Vector, span), partial(false, args[0], F::Vector, span), span);
      case B::Area: {
        const Sym pu = arith(Op::Mul, F::Vector, partial(true, args[0], F::Vector, span), pixel_step(true, span), span);
        const Sym pv = arith(Op::Mul, F::Vector, partial(false, args[0], F::Vector, span), pixel_step(false, span), span);
        return op(Op::Builtin, F::Float, static_cast<std::uint32_t>(B::Length), {arith(Op::Cross, F::Vector, pu, pv, span)}, span);
      }
      default: fail(span, "internal-error", std::string("internal compiler error: '") + lang::to_string(id) + "' is not a derivative");
    }
  }

  bool reads_texture(NodeId n) {
    std::vector<NodeId> stack{n};
    std::set<NodeId> seen;
    while (!stack.empty()) {
      const NodeId k = stack.back();
      stack.pop_back();
      if (!seen.insert(k).second) continue;
      const Node& kn = b_.node(k);
      if (kn.kind == NodeKind::Texture) return true;
      for (NodeId c : kn.children) stack.push_back(c);
    }
    return false;
  }

  NodeId check_size(NodeId n, const lang::Span& span) {
    if (b_.size() > options_.max_nodes)
      fail(span, "dag-too-large", "the fragment DAG exceeds " + std::to_string(options_.max_nodes) + " nodes");
    return n;
  }

  Sym eval(const Instr& in, const Env& env) {
    std::vector<Sym> args;
    for (ValueId a : in.args) args.push_back(env[a]);
    switch (in.op) {
      case Op::Const:
      case Op::Undef: return constant(ir::evaluate(in.op, in.type, in.aux, in.text, in.data, {}, ctx_));
      case Op::ShaderParam: {
        auto it = binding_.surface_params.find(in.text);
        return it != binding_.surface_params.end() ? constant(it->second) : args[0];
      }
      case Op::Global: {
        auto g = static_cast<lang::Global>(in.aux);
        if (g == lang::Global::E) return constant(Value::triple(in.type, 0, 0, 0));  // the eye: camera origin
        if (options_.derivatives && (g == lang::Global::du || g == lang::Global::dv)) return pixel_step(g == lang::Global::du, in.span);
        return of_node(b_.interpolant(g, in.type, in.span));
      }
      case Op::Builtin: {
        auto id = static_cast<lang::Builtin>(in.aux);
        const lang::Signature& sig = lang::signature_of(id);
        if (sig.derivative && options_.derivatives) return derivative(id, in.type, args, in.span);
        if (sig.derivative)
          fail(in.span, "needs-derivatives",
               std::string("'") + lang::to_string(id) + "' needs screen-space derivatives, which a fragment target does not provide");
        if (sig.ray_traced) {
          const bool rpu = id == lang::Builtin::Trace || id == lang::Builtin::Visibility || id == lang::Builtin::Raylevel;
          fail(in.span, "needs-ray-tracing",
               std::string("'") + lang::to_string(id) + "' casts rays, which a fragment pipeline cannot do; " +
                   (rpu ? "the RPU target runs it (passlab-cli rpu)"
                        : "a ray tracer runs it (the RPU traces rays with trace() and visibility(), not this)"));
        }
        if (sig.renderer_query)
          fail(in.span, "needs-renderer",
               std::string("'") + lang::to_string(id) + "' asks the renderer about a file, which a fragment program cannot; "
                                                          "write the value into the shader or a parameter");
        if (sig.point_based)
          fail(in.span, "needs-point-clouds",
               std::string("'") + lang::to_string(id) + "' reads or writes point clouds or brick maps, which a renderer builds in its "
                                                          "baking passes; no Passlab target runs it");
        if (id == lang::Builtin::Format || id == lang::Builtin::Concat || id == lang::Builtin::Match)
          for (const Sym& a : args)
            if (!a.is_const && !a.strings)
              fail(in.span, "string-not-constant",
                   std::string("'") + lang::to_string(id) + "' needs strings known when the shader is compiled; a fragment program has no strings");
        if ((id == lang::Builtin::Transform || id == lang::Builtin::Vtransform || id == lang::Builtin::Ntransform) &&
            args[0].value.type == ir::BaseType::String) {
          // Resolve named spaces to one matrix on the host; the DAG keeps transform(matrix, p).
          for (std::size_t i = 0; i + 1 < args.size(); ++i)
            if (!args[i].is_const) fail(in.span, "space-name", "coordinate system names must be known when the shader is compiled");
          ir::Matrix m = space_matrix(args, in);
          return op(Op::Builtin, in.type, in.aux, {constant(Value::matrix(m)), args.back()}, in.span);
        }
        return op(in.op, in.type, in.aux, args, in.span);
      }
      case Op::Call:
      case Op::Arg:
      case Op::Extract:
        fail(in.span, "internal-error", "internal compiler error: calls must be inlined before flattening");
      default: return op(in.op, in.type, in.aux, args, in.span);
    }
  }

  // Which of the shader's results is output parameter options_.aov.
  std::size_t aov_result() {
    std::string outputs;
    for (std::size_t k = 2; k < fn_.result_names.size(); ++k) {
      if (fn_.result_names[k] == options_.aov) return k;
      outputs += (outputs.empty() ? "" : ", ") + fn_.result_names[k];
    }
    fail(shader_span(), "unknown-aov",
         "'" + options_.aov + "' is not an output parameter of this shader (" + (outputs.empty() ? "it has none" : "its outputs: " + outputs) + ")");
  }

  // The shader's name, where lowering put its return.
  lang::Span shader_span() const {
    for (const Instr& in : fn_.values)
      if (in.op == Op::Ret) return in.span;
    return {};
  }

  // The matrix a named-space transform applies (points are row vectors: p' = p * M).
  ir::Matrix space_matrix(const std::vector<Sym>& args, const Instr& in) {
    auto to_current = [&](const std::string& name) {
      if (name == "current" || name == "camera") return ir::identity_matrix();
      const ir::Matrix* m = ctx_.space(name);
      if (!m && !lang::is_standard_space(name)) {
        std::string known;
        for (const auto& [n, _] : ctx_.spaces) known += (known.empty() ? "" : ", ") + n;
        fail(in.span, "unknown-space",
             "the light setup defines no coordinate system \"" + name + "\"" +
                 (known.empty() ? "; add it under \"spaces\"" : " (it defines: " + known + ")"));
      }
      return m ? *m : ir::identity_matrix();
    };
    auto from_current = [&](const std::string& name) {
      ir::Matrix inv = ir::identity_matrix();
      if (!ir::invert(to_current(name), &inv)) fail(in.span, "singular-space", "the matrix of space '" + name + "' cannot be inverted");
      return inv;
    };
    if (args.size() == 3) return ir::multiply(to_current(args[0].value.s), from_current(args[1].value.s));
    return from_current(args[0].value.s);
  }

  template <class Get>
  Sym merge_values(const std::vector<Arrival>& arrivals, Get get, const lang::Span& span) {
    Sym acc = get(arrivals.back());
    for (std::size_t k = arrivals.size() - 1; k-- > 0;) {
      Sym v = get(arrivals[k]);
      if (same(v, acc)) continue;
      acc = op(Op::Select, type_of(v), 0, {arrivals[k].pred, v, acc}, span);
    }
    return acc;
  }

  bool is_loop_header(BlockId b) const {
    for (BlockId p : fn_.blocks[b].preds)
      if (dom_.dominates(b, p)) return true;
    return false;
  }

  // Runs from `b` (entered from `prev`) under `pred` until `stop`, appending one arrival per path.
  void exec(BlockId b, BlockId prev, BlockId stop, Sym pred, Env& env, std::vector<Arrival>& out, int depth, bool skip_phis) {
    if (depth > options_.max_branch_depth)
      fail(fn_.terminator(b) ? fn_.terminator(b)->span : lang::Span{}, "branches-too-deep",
           "varying branches nest more than " + std::to_string(options_.max_branch_depth) +
               " deep; a loop whose exit depends on varying values cannot be unrolled for a fragment target");
    BlockId hint = ir::kNoBlock;  // after a merge: a block the merged paths came from
    for (;;) {
      if (b == stop) {
        out.push_back({prev, pred, env});
        return;
      }
      if (!rolling_.empty() && b == rolling_.back() && prev != kRollEntry) {
        out.push_back({prev, pred, env, Arrival::End::Back});
        return;
      }
      if (!rolling_.empty() && b == loop_exit_[rolling_.back()]) {
        out.push_back({prev, pred, env, Arrival::End::Left});
        return;
      }
      if (b < rolled_.size() && rolled_[b] && !unrolling_[b] && prev != kRollEntry && !in_loop(b, prev != ir::kNoBlock ? prev : hint)) {
        // A loop proven to end within a few iterations is unrolled all the same (as shader
        // compilers unroll short loops: no loop overhead, and a counter indexing an array stays
        // a constant); any other is kept as a loop.
        // A loop that cannot be kept as a loop (a string or matrix it carries, a derivative of a
        // value it computes) is unrolled as on targets without dynamic loops.
        std::vector<Arrival> unrolled;
        bool was_unrolled = unroll_short(b, prev, pred, env, depth, skip_phis, unrolled);
        if (!was_unrolled) {
          Env rolled = env;
          if (quietly([&] { roll(b, prev, rolled, depth, skip_phis); })) {
            env = std::move(rolled);
          } else {
            unrolling_[b] = 1;
            Env whole = env;
            exec(b, prev, loop_exit_[b], pred, whole, unrolled, depth, skip_phis);
            unrolling_[b] = 0;
            was_unrolled = true;
          }
        }
        if (was_unrolled) {
          const BlockId exit = loop_exit_[b];
          if (exit == stop || (!rolling_.empty() && exit == loop_exit_[rolling_.back()])) {
            for (auto& a : unrolled) out.push_back(std::move(a));
            return;
          }
          std::vector<Arrival> here;
          for (auto& a : unrolled) (a.end == Arrival::End::AtStop ? here : out).push_back(std::move(a));
          if (here.empty()) return;
          merge_at(exit, here, env, fn_.terminator(b)->span);
        }
        prev = ir::kNoBlock;
        hint = b;
        b = loop_exit_[b];
        skip_phis = true;
        continue;
      }
      if (++visits_[b] > options_.max_block_visits) {
        const Instr* t = fn_.terminator(b);
        fail(t ? t->span : lang::Span{}, "loop-too-long",
             "a loop ran more than " + std::to_string(options_.max_block_visits) +
                 " iterations; fragment targets need loops with a small constant trip count");
      }
      const ir::Block& blk = fn_.blocks[b];
      if (!skip_phis) {
        std::vector<std::pair<ValueId, Sym>> phis;
        for (ValueId v : blk.instrs) {
          const Instr& in = fn_.at(v);
          if (in.op != Op::Phi) break;
          std::size_t k = 0;
          while (k < blk.preds.size() && blk.preds[k] != prev) ++k;
          if (k == blk.preds.size()) fail(in.span, "internal-error", "internal compiler error: phi without an operand for its edge");
          phis.push_back({v, env[in.args[k]]});
        }
        for (auto& [v, s] : phis) env[v] = std::move(s);
      }
      skip_phis = false;
      for (ValueId v : blk.instrs) {
        const Instr& in = fn_.at(v);
        if (in.op == Op::Phi) continue;
        if (in.op == Op::Ret) {
          out.push_back({b, pred, env});
          return;
        }
        if (in.op == Op::Br) {
          prev = b;
          b = in.targets[0];
          break;
        }
        if (in.op == Op::CondBr) {
          const Sym& c = env[in.args[0]];
          if (c.is_const) {
            prev = b;
            b = c.value.truth() ? in.targets[0] : in.targets[1];
            break;
          }
          // A loop whose condition depends on varying values is if-converted one iteration at a
          // time, like a varying break: each iteration's exit is a path, and the loop ends when
          // the condition folds to false for every fragment (a uniform bound in it, such as
          // `i < 8 && …`, proves the trip count). Without one it would not end.
          if (is_loop_header(b) && depth + 1 > options_.max_branch_depth)
            fail(in.span, "varying-loop",
                 "this loop's condition depends on varying values and nothing in it ended the loop within " +
                     std::to_string(options_.max_branch_depth) +
                     " iterations; a fragment target needs a bound it can prove, such as a counter compared with a "
                     "constant (for (i = 0; i < 8 && …; i += 1))");
          BlockId join = ipdom_[b];
          Env snapshot = env;
          std::vector<Arrival> arrivals;
          Sym taken = op(Op::And, ir::BaseType::Bool, 0, {pred, c}, in.span);
          Sym not_taken = op(Op::And, ir::BaseType::Bool, 0, {pred, op(Op::Not, ir::BaseType::Bool, 0, {c}, in.span)}, in.span);
          Env left = snapshot;
          exec(in.targets[0], b, join, taken, left, arrivals, depth + 1, false);
          Env right = std::move(snapshot);
          exec(in.targets[1], b, join, not_taken, right, arrivals, depth + 1, false);
          if (join == stop || join == kExit || (!rolling_.empty() && join == loop_exit_[rolling_.back()])) {
            for (auto& a : arrivals) out.push_back(std::move(a));
            return;
          }
          // Paths of a rolled iteration that went back to its header or left the loop are done.
          std::vector<Arrival> here;
          for (auto& a : arrivals) (a.end == Arrival::End::AtStop ? here : out).push_back(std::move(a));
          if (here.empty()) return;
          merge_at(join, here, env, in.span);
          prev = ir::kNoBlock;
          hint = here.front().from;
          b = join;
          skip_phis = true;
          goto next_block;
        }
        env[v] = eval(in, env);
      }
      continue;
    next_block:;
    }
  }

  // The blocks of the natural loop of header `h`, sorted.
  std::vector<BlockId> natural_loop(BlockId h) const {
    std::vector<char> in(fn_.blocks.size(), 0);
    in[h] = 1;
    std::vector<BlockId> stack;
    for (BlockId p : fn_.blocks[h].preds)
      if (dom_.dominates(h, p)) stack.push_back(p);
    while (!stack.empty()) {
      const BlockId x = stack.back();
      stack.pop_back();
      if (in[x] || fn_.blocks[x].removed) continue;
      in[x] = 1;
      for (BlockId p : fn_.blocks[x].preds) stack.push_back(p);
    }
    std::vector<BlockId> blocks;
    for (BlockId x = 0; x < in.size(); ++x)
      if (in[x]) blocks.push_back(x);
    return blocks;
  }

  // The nearest block that post-dominates both a and b (kExit: only the virtual exit does).
  BlockId common_post_dominator(BlockId a, BlockId b) const {
    std::set<BlockId> above;
    for (BlockId x = a; x != kExit; x = ipdom_[x]) above.insert(x);
    for (BlockId x = b; x != kExit; x = ipdom_[x])
      if (above.count(x)) return x;
    return kExit;
  }

  // Whether block b holds nothing but a branch to one other block.
  bool forwards(BlockId b) const {
    const ir::Block& blk = fn_.blocks[b];
    return !blk.removed && blk.instrs.size() == 1 && fn_.at(blk.instrs[0]).op == Op::Br;
  }

  bool in_loop(BlockId h, BlockId x) const {
    if (x == ir::kNoBlock || x >= fn_.blocks.size()) return false;
    return std::binary_search(loop_blocks_[h].begin(), loop_blocks_[h].end(), x);
  }

  // Which loops a target with dynamic loops keeps as loops: those with one exit block and no
  // return inside whose exit depends on a dynamic value. A value is dynamic when it is varying,
  // a phi of such a loop's header (a placeholder in the loop's body), or computed from one.
  void find_dynamic_loops() {
    const std::size_t n = fn_.blocks.size();
    rolled_.assign(n, 0);
    unrolling_.assign(n, 0);
    loop_blocks_.assign(n, {});
    loop_exit_.assign(n, kExit);
    std::vector<BlockId> candidates;
    for (BlockId h = 0; h < n; ++h) {
      if (fn_.blocks[h].removed || !is_loop_header(h)) continue;
      loop_blocks_[h] = natural_loop(h);
      // The exit: where every edge leaving the loop meets (their nearest common post-dominator),
      // each reaching it directly or through blocks that only branch on (a `break`'s).
      std::vector<BlockId> targets;
      bool shaped = true;
      for (BlockId x : loop_blocks_[h]) {
        const Instr* t = fn_.terminator(x);
        if (!t || t->op == Op::Ret) shaped = false;
        if (!t) continue;
        for (BlockId s : t->targets)
          if (!in_loop(h, s) && std::find(targets.begin(), targets.end(), s) == targets.end()) targets.push_back(s);
      }
      BlockId exit = targets.empty() ? kExit : targets.front();
      for (BlockId x : targets) exit = common_post_dominator(exit, x);
      for (BlockId x : targets) {
        for (int hops = 0; hops < 8 && x != exit && forwards(x); ++hops) x = fn_.terminator(x)->targets[0];
        shaped = shaped && x == exit;
      }
      if (shaped && exit != kExit) {
        loop_exit_[h] = exit;
        candidates.push_back(h);
      }
    }
    // A value is dynamic when it is read from the fragment (a varying global, a derivative), or
    // computed from a dynamic value, or a phi that a dynamic branch chooses the value of (a join
    // after an if; not a loop header's, whose branches around the loop decide when the next
    // iteration comes, not which value it carries: the IR's frequency analysis calls those varying
    // when an inner loop's exit varies, so it is not used here).
    std::vector<char> dynamic(fn_.values.size(), 0);
    for (std::size_t v = 0; v < fn_.values.size(); ++v) {
      const Instr& in = fn_.values[v];
      if (in.removed) continue;
      const bool varying_global = in.op == Op::Global && in.freq == ir::Freq::Varying;
      const bool derivative = in.op == Op::Builtin && lang::signature_of(static_cast<lang::Builtin>(in.aux)).derivative;
      dynamic[v] = varying_global || derivative || in.op == Op::Arg;
    }
    auto chosen_by_dynamic_branch = [&](const Instr& phi) {
      const BlockId b = phi.block;
      std::vector<BlockId> work(fn_.blocks[b].preds.begin(), fn_.blocks[b].preds.end());
      std::vector<char> seen(fn_.blocks.size(), 0);
      const BlockId top = dom_.idom[b];
      while (!work.empty()) {
        const BlockId p = work.back();
        work.pop_back();
        if (p >= fn_.blocks.size() || seen[p] || !dom_.reachable(p)) continue;
        seen[p] = 1;
        const Instr* t = fn_.terminator(p);
        if (t && t->op == Op::CondBr && dynamic[t->args[0]]) return true;
        if (p == top) continue;
        for (BlockId q : fn_.blocks[p].preds) work.push_back(q);
      }
      return false;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t v = 0; v < fn_.values.size(); ++v) {
        const Instr& in = fn_.values[v];
        if (dynamic[v] || in.removed) continue;
        bool d = false;
        for (ValueId a : in.args) d = d || dynamic[a];
        if (!d && in.op == Op::Phi && !is_loop_header(in.block)) d = chosen_by_dynamic_branch(in);
        if (d) {
          dynamic[v] = 1;
          changed = true;
        }
      }
      for (BlockId h : candidates) {
        if (rolled_[h]) continue;
        for (BlockId x : loop_blocks_[h]) {
          const Instr* t = fn_.terminator(x);
          if (t->op != Op::CondBr || !dynamic[t->args[0]]) continue;
          if (in_loop(h, t->targets[0]) && in_loop(h, t->targets[1])) continue;
          rolled_[h] = 1;
        }
        if (!rolled_[h]) continue;
        changed = true;
        for (ValueId v : fn_.blocks[h].instrs)
          if (fn_.at(v).op == Op::Phi) dynamic[v] = 1;
      }
    }
    // What each kept loop's code after it reads: values defined in the loop and used outside it
    // (its exit block's phis are resolved per arrival instead).
    live_out_.assign(n, {});
    for (BlockId h : candidates) {
      if (!rolled_[h]) continue;
      std::set<ValueId> live;
      for (BlockId x = 0; x < n; ++x) {
        if (fn_.blocks[x].removed || in_loop(h, x)) continue;
        for (ValueId u : fn_.blocks[x].instrs) {
          const Instr& in = fn_.at(u);
          if (in.op == Op::Phi && x == loop_exit_[h]) continue;
          for (ValueId a : in.args)
            if (!fn_.at(a).removed && in_loop(h, fn_.at(a).block)) live.insert(a);
        }
      }
      live_out_[h].assign(live.begin(), live.end());
    }
  }

  std::size_t edge(BlockId block, BlockId from, const lang::Span& span) {
    const auto& preds = fn_.blocks[block].preds;
    for (std::size_t k = 0; k < preds.size(); ++k)
      if (preds[k] == from) return k;
    fail(span, "internal-error", "internal compiler error: phi without an operand for its edge");
  }

  // Runs the loop at header `h` unrolled to its exit, into `out`, if a bound known on the host
  // ends it within kShortLoop iterations (each varying exit nests a level); else leaves no trace
  // (no diagnostic, the blocks' visits as they were) and returns false.
  static constexpr int kShortLoop = 8;
  bool unroll_short(BlockId h, BlockId prev, const Sym& pred, const Env& env, int depth, bool skip_phis, std::vector<Arrival>& out) {
    const int max_depth = options_.max_branch_depth;
    Env trial = env;
    unrolling_[h] = 1;
    options_.max_branch_depth = std::min(max_depth, depth + kShortLoop);
    const bool ok = quietly([&] { exec(h, prev, loop_exit_[h], pred, trial, out, depth, skip_phis); });
    options_.max_branch_depth = max_depth;
    unrolling_[h] = 0;
    if (!ok) out.clear();
    return ok;
  }

  // Runs `attempt`; if it fails, as if it had not run: no diagnostic, and the blocks' visits, the
  // loops being rolled and the loops' labels as they were (the DAG keeps nodes nothing reaches).
  template <class F>
  bool quietly(F&& attempt) {
    const std::vector<int> visits = visits_;
    const std::vector<BlockId> rolling = rolling_;
    const std::set<std::string> labels = labels_;
    const std::vector<char> unrolling = unrolling_;
    ++quiet_;
    bool ok = true;
    try {
      attempt();
    } catch (const FlattenError&) {
      ok = false;
    }
    --quiet_;
    if (!ok) {
      visits_ = visits;
      rolling_ = rolling;
      labels_ = labels;
      unrolling_ = unrolling;
    }
    return ok;
  }

  // Keeps the loop at header `h` as a loop, entered from `prev` (or, with `phis_resolved`, with
  // its header's phis already in `env`): one iteration, run symbolically from the header over a
  // placeholder per phi, gives the next values (the paths back to the header), whether the loop
  // goes on (their predicates), and what the code after the loop reads (the paths that leave it).
  // Leaves in `env` the loop's results and its exit block's phis.
  void roll(BlockId h, BlockId prev, Env& env, int depth, bool phis_resolved) {
    const Instr* test = fn_.terminator(h);
    const lang::Span span = test ? test->span : lang::Span{};
    std::string label = "loop at line " + std::to_string(span.line);
    for (int k = 2; !labels_.insert(label).second; ++k) label = "loop at line " + std::to_string(span.line) + " (" + std::to_string(k) + ")";
    auto plain = [&](const Sym& s, const char* what) {
      if (s.strings || s.rows || type_of(s) == ir::BaseType::String || type_of(s) == ir::BaseType::Matrix)
        fail(span, "dynamic-loop-value",
             std::string("this loop runs as the target's dynamic loop, whose registers hold numbers; ") + what +
                 " is a string or a matrix");
    };
    std::vector<ValueId> phis;
    for (ValueId v : fn_.blocks[h].instrs)
      if (fn_.at(v).op == Op::Phi) phis.push_back(v);
    Env body = env;
    std::vector<Sym> initial;
    for (std::size_t k = 0; k < phis.size(); ++k) {
      const Instr& phi = fn_.at(phis[k]);
      initial.push_back(phis_resolved ? env[phis[k]] : env[phi.args[edge(h, prev, span)]]);
      plain(initial.back(), "a value it carries");
      body[phis[k]] = of_node(b_.loop_value(label, static_cast<int>(k), type_of(initial.back())));
    }
    std::vector<Arrival> arrivals;
    rolling_.push_back(h);
    exec(h, kRollEntry, loop_exit_[h], constant(Value::boolean(true)), body, arrivals, depth, true);
    rolling_.pop_back();
    std::vector<Arrival> back, exits;
    for (auto& a : arrivals) (a.end == Arrival::End::Back ? back : exits).push_back(std::move(a));
    if (exits.empty()) fail(span, "endless-loop", "no path leaves this loop, so it never ends");
    // The body's outputs: next values, results, whether to go on.
    std::vector<Sym> outputs;
    for (std::size_t k = 0; k < phis.size(); ++k) {
      const Instr& phi = fn_.at(phis[k]);
      Sym next = back.empty() ? body[phis[k]]
                              : merge_values(back, [&](const Arrival& a) { return a.from == ir::kNoBlock ? a.env[phis[k]] : a.env[phi.args[edge(h, a.from, span)]]; }, span);
      plain(next, "a value it carries");
      outputs.push_back(next);
    }
    // What leaves the loop: the values read after it, then the exit block's phis, each merged over
    // the paths that leave; one the same constant on every path needs no result.
    std::vector<std::pair<ValueId, Sym>> leaving;
    for (ValueId v : live_out_[h]) leaving.push_back({v, merge_values(exits, [&](const Arrival& a) { return a.env[v]; }, span)});
    const BlockId exit = loop_exit_[h];
    for (ValueId q : fn_.blocks[exit].instrs) {
      const Instr& phi = fn_.at(q);
      if (phi.op != Op::Phi) break;
      leaving.push_back({q, merge_values(exits, [&](const Arrival& a) { return a.env[phi.args[edge(exit, a.from, span)]]; }, span)});
    }
    std::vector<std::pair<ValueId, int>> results;
    for (auto& [v, s] : leaving) {
      if (s.is_const) {
        env[v] = s;
        continue;
      }
      plain(s, "a value read after it");
      results.push_back({v, static_cast<int>(outputs.size() - phis.size())});
      outputs.push_back(s);
    }
    Sym go_on = constant(Value::boolean(false));
    for (const Arrival& a : back) go_on = op(Op::Or, ir::BaseType::Bool, 0, {go_on, a.pred}, span);
    outputs.push_back(go_on);
    // The body: what the outputs compute from the placeholders; everything else it reads is
    // computed before the loop and comes in as an invariant (constants stay in the body).
    auto body_dag = std::make_shared<LoopBody>();
    body_dag->label = label;
    body_dag->carried = static_cast<int>(phis.size());
    body_dag->results = static_cast<int>(results.size());
    body_dag->max_iterations = options_.dynamic_loops;
    DagBuilder bb;
    std::map<NodeId, char> variant;
    std::function<bool(NodeId)> varies = [&](NodeId x) -> bool {
      auto it = variant.find(x);
      if (it != variant.end()) return it->second;
      const Node& n = b_.node(x);
      bool v = n.kind == NodeKind::Operation && n.op == Op::LoopValue && n.name == label;
      for (NodeId c : n.children) v = varies(c) || v;
      variant[x] = v;
      return v;
    };
    std::vector<NodeId> invariants;
    std::map<NodeId, NodeId> memo;
    std::function<NodeId(NodeId)> take = [&](NodeId x) -> NodeId {
      if (auto it = memo.find(x); it != memo.end()) return it->second;
      const Node& n = b_.node(x);
      NodeId r;
      if (!varies(x)) {
        if (n.kind == NodeKind::Constant) {
          r = bb.rebuild(n, {});
        } else {
          r = bb.loop_value(label, body_dag->carried + static_cast<int>(invariants.size()), n.type);
          invariants.push_back(x);
        }
      } else if (n.op == Op::LoopValue) {
        r = bb.loop_value(label, static_cast<int>(n.aux), n.type);
      } else {
        if (n.op == Op::ScreenDiff || n.op == Op::Neighbour)
          fail(n.spans.empty() ? span : n.spans.front(), "dynamic-loop-derivative",
               "a derivative of a value this loop computes: the target runs the loop as a loop, and a quad's pixels may "
               "leave it at different iterations; compute the derivative outside the loop");
        std::vector<NodeId> kids;
        for (NodeId c : n.children) kids.push_back(take(c));
        r = bb.rebuild(n, std::move(kids));
      }
      memo[x] = r;
      return r;
    };
    std::vector<NodeId> roots;
    for (const Sym& o : outputs) roots.push_back(take(node(o, span)));
    body_dag->invariants = static_cast<int>(invariants.size());
    body_dag->body = bb.finish(bb.operation(Op::Outputs, ir::BaseType::Bool, 0, roots, span), label);
    std::vector<NodeId> operands;
    for (const Sym& s : initial) operands.push_back(node(s, span));
    operands.insert(operands.end(), invariants.begin(), invariants.end());
    std::shared_ptr<const LoopBody> shared = body_dag;
    for (const auto& [v, k] : results)
      env[v] = of_node(b_.loop(shared, k, type_of(outputs[phis.size() + static_cast<std::size_t>(k)]), operands, span));
  }

  // Combines the paths arriving at `join` into one environment, phis of `join` included.
  void merge_at(BlockId join, std::vector<Arrival>& arrivals, Env& env, const lang::Span& span) {
    const ir::Block& blk = fn_.blocks[join];
    for (auto& a : arrivals) {
      // Resolve this path's phis first, from its own edge. A path that comes from a merge or a
      // rolled loop ending at `join` (no edge) has them already.
      if (a.from == ir::kNoBlock) continue;
      std::vector<std::pair<ValueId, Sym>> phis;
      for (ValueId v : blk.instrs) {
        const Instr& in = fn_.at(v);
        if (in.op != Op::Phi) break;
        std::size_t k = 0;
        while (k < blk.preds.size() && blk.preds[k] != a.from) ++k;
        if (k == blk.preds.size()) fail(in.span, "internal-error", "internal compiler error: phi without an operand for its edge");
        phis.push_back({v, a.env[in.args[k]]});
      }
      for (auto& [v, s] : phis) a.env[v] = std::move(s);
    }
    for (std::size_t i = 0; i < env.size(); ++i) {
      // A value defined on some of the paths only (inside a branch) is not read after the join
      // (SSA: its uses are dominated by its definition; phis were resolved above), so nothing is
      // merged for it. Merging would make a select of it, which a texture's name, a string,
      // cannot be.
      const ValueId v = static_cast<ValueId>(i);
      if (!fn_.at(v).removed && !dom_.dominates(fn_.at(v).block, join)) {
        env[i] = arrivals[0].env[i];
        continue;
      }
      bool differ = false;
      for (std::size_t k = 1; k < arrivals.size() && !differ; ++k) differ = !same(arrivals[k].env[i], arrivals[0].env[i]);
      if (!differ) {
        env[i] = arrivals[0].env[i];
        continue;
      }
      const lang::Span& where = fn_.at(static_cast<ValueId>(i)).span.valid() ? fn_.at(static_cast<ValueId>(i)).span : span;
      env[i] = merge_values(arrivals, [i](const Arrival& a) { return a.env[i]; }, where);
    }
  }

  const ir::Module& m_;
  const ir::Function& fn_;
  const ir::Binding& binding_;
  lang::DiagnosticSink& sink_;
  FlattenOptions options_;
  ir::EvalContext ctx_;
  DagBuilder b_;
  std::vector<BlockId> ipdom_;
  ir::DomTree dom_;
  std::vector<int> visits_;
  // Loops kept as loops (find_dynamic_loops), by header: their blocks, exit and live-out values.
  std::vector<char> rolled_;
  std::vector<std::vector<BlockId>> loop_blocks_;
  std::vector<BlockId> loop_exit_;
  std::vector<std::vector<ValueId>> live_out_;
  std::vector<BlockId> rolling_;  // headers of the loops whose iteration is being run, innermost last
  std::vector<char> unrolling_;   // per header: being tried unrolled (unroll_short)
  int quiet_ = 0;                 // inside a trial: failures report nothing
  std::set<std::string> labels_;
};

}  // namespace

std::optional<FragmentDag> flatten(const ir::Module& m, const ir::Binding& binding, lang::DiagnosticSink& sink,
                                   const FlattenOptions& options) {
  try {
    FragmentDag dag = Flattener(m, binding, sink, options).run();
    if (options.hoist_vertex_work) dag = hoist_vertex_work(dag);
    dag = recompute_differences(dag);
    unshare_constants(dag);
    // Every stage after this one trusts these invariants: a broken one is our bug, said here.
    if (const std::vector<std::string> problems = verify(dag, 1); !problems.empty()) {
      const lang::Span where = dag.root < dag.nodes.size() && !dag.nodes[dag.root].spans.empty() ? dag.nodes[dag.root].spans.front() : lang::Span{};
      sink.error("internal-error", where, "internal compiler error: the fragment DAG is malformed after flattening: " + problems.front());
      return std::nullopt;
    }
    return dag;
  } catch (const FlattenError&) {
    return std::nullopt;
  }
}

}  // namespace passlab::dag
