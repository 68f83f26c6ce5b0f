// SPDX-License-Identifier: GPL-3.0-or-later
// Function tables: which operations need one, the function evaluated as the reference interpreter
// does, the texels, and the error the 8-bit table makes.
#include "backends/combiners/tables.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/dag/export.h"
#include "core/lang/stdlib.h"

namespace passlab::combiners {

bool needs_table(const dag::FragmentDag& d, dag::NodeId id) {
  using lang::Builtin;
  const dag::Node& n = d.node(id);
  if (n.kind == dag::NodeKind::Texture)
    return n.name == "$noise" && std::any_of(n.children.begin(), n.children.end(), [&](dag::NodeId c) {
             const dag::NodeKind k = d.node(c).kind;
             return k != dag::NodeKind::Interpolant && k != dag::NodeKind::Constant;
           });
  if (n.kind != dag::NodeKind::Operation) return false;
  if (n.op == ir::Op::Div) return n.children.size() == 2 && d.node(n.children[1]).kind != dag::NodeKind::Constant;
  if (n.op != ir::Op::Builtin) return false;
  switch (static_cast<Builtin>(n.aux)) {
    case Builtin::Floor: case Builtin::Ceil: case Builtin::Round: case Builtin::Mod: case Builtin::Smoothstep:
    case Builtin::Sqrt: case Builtin::InverseSqrt: case Builtin::Pow: case Builtin::Exp: case Builtin::Log:
    case Builtin::LogBase: case Builtin::Sin: case Builtin::Cos: case Builtin::Tan: case Builtin::Asin:
    case Builtin::Acos: case Builtin::Atan: case Builtin::Atan2: case Builtin::Spline: case Builtin::Sign:
      return true;
    default: return false;
  }
}

bool table_expression(const dag::FragmentDag& d, dag::NodeId root, const std::function<bool(dag::NodeId)>& enters, TableExpression& out) {
  constexpr std::size_t kLimit = 64;
  out = {};
  std::vector<dag::NodeId> inside, stack{root};
  std::vector<char> seen(d.size(), 0);
  seen[root] = 1;
  while (!stack.empty()) {
    const dag::NodeId id = stack.back();
    stack.pop_back();
    const dag::Node& n = d.node(id);
    const bool condition = n.kind == dag::NodeKind::Operation && n.type == ir::BaseType::Bool;
    if (id != root && n.kind != dag::NodeKind::Constant && !condition && enters(id)) {
      out.arguments.push_back(id);
      continue;
    }
    if (n.kind == dag::NodeKind::Interpolant || (n.kind == dag::NodeKind::Texture && n.name != "$noise") ||
        (n.kind == dag::NodeKind::Operation && (n.op == ir::Op::ScreenDiff || n.op == ir::Op::Neighbour || n.op == ir::Op::Output ||
                                                 n.op == ir::Op::Outputs))) {
      out.why = fmt::format("its function reads '{}', which a table cannot evaluate", dag::label(n));
      return false;
    }
    inside.push_back(id);
    if (inside.size() + out.arguments.size() > kLimit) {
      out.why = fmt::format("its function of one value takes more than {} operations", kLimit);
      return false;
    }
    for (dag::NodeId c : n.children)
      if (!seen[c]) seen[c] = 1, stack.push_back(c);
  }
  // Ids are in postorder, so sorting puts operands first.
  std::vector<dag::NodeId> all = inside;
  all.insert(all.end(), out.arguments.begin(), out.arguments.end());
  std::sort(all.begin(), all.end());
  std::sort(out.arguments.begin(), out.arguments.end());
  std::vector<std::size_t> local(d.size(), 0);
  for (std::size_t i = 0; i < all.size(); ++i) local[all[i]] = i;
  for (dag::NodeId id : all) {
    dag::Node n = d.node(id);
    if (std::binary_search(out.arguments.begin(), out.arguments.end(), id)) {
      n.kind = dag::NodeKind::Interpolant;
      n.children.clear();
      out.slots.push_back(local[id]);
    } else {
      for (dag::NodeId& c : n.children) c = static_cast<dag::NodeId>(local[c]);
    }
    n.id = static_cast<dag::NodeId>(local[id]);
    out.expr.push_back(std::move(n));
    out.origin.push_back(id);
  }
  return true;
}

std::string table_text(const std::vector<dag::Node>& expr, std::size_t slot) {
  std::vector<std::string> text(expr.size());
  for (std::size_t i = 0; i < expr.size(); ++i) {
    const dag::Node& n = expr[i];
    std::vector<std::string> args;
    for (dag::NodeId c : n.children) args.push_back(text[c]);
    // A call's arguments need no parentheses of their own: sin(6.28 * x), not sin((6.28 * x)).
    auto bare = [](const std::string& s) {
      if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
      int depth = 0;
      for (std::size_t k = 0; k + 1 < s.size(); ++k) {
        depth += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
        if (depth == 0) return s;  // the first parenthesis closes before the end: (a) * (b)
      }
      return s.substr(1, s.size() - 2);
    };
    auto join = [&](std::size_t from) {
      std::string s;
      for (std::size_t k = from; k < args.size(); ++k) s += (k > from ? ", " : "") + bare(args[k]);
      return s;
    };
    auto infix = [&](const char* op) { return args.size() == 2 ? fmt::format("({} {} {})", args[0], op, args[1]) : dag::label(n) + "(" + join(0) + ")"; };
    if (i == slot) {
      text[i] = "x";
    } else if (n.kind == dag::NodeKind::Constant) {
      const bool triple = n.value.size() >= 3 && lang::is_triple(n.type) && (n.value[1] != n.value[0] || n.value[2] != n.value[0]);
      text[i] = triple ? fmt::format("({:g}, {:g}, {:g})", n.value[0], n.value[1], n.value[2]) : fmt::format("{:g}", n.value.empty() ? 0.0f : n.value[0]);
    } else if (n.kind == dag::NodeKind::Texture) {
      text[i] = "noise(" + join(0) + ")";
    } else {
      switch (n.op) {
        case ir::Op::Add: text[i] = infix("+"); break;
        case ir::Op::Sub: text[i] = infix("-"); break;
        case ir::Op::Mul: text[i] = infix("*"); break;
        case ir::Op::Div: text[i] = infix("/"); break;
        case ir::Op::Lt: text[i] = infix("<"); break;
        case ir::Op::Le: text[i] = infix("<="); break;
        case ir::Op::Gt: text[i] = infix(">"); break;
        case ir::Op::Ge: text[i] = infix(">="); break;
        case ir::Op::Neg: text[i] = "-" + args.at(0); break;
        case ir::Op::Convert: text[i] = args.at(0); break;
        case ir::Op::Select: text[i] = args.size() == 3 ? fmt::format("({} ? {} : {})", args[0], args[1], args[2]) : "select(" + join(0) + ")"; break;
        case ir::Op::Builtin: text[i] = std::string(lang::to_string(static_cast<lang::Builtin>(n.aux))) + "(" + join(0) + ")"; break;
        default: text[i] = dag::label(n) + "(" + join(0) + ")"; break;
      }
    }
  }
  return expr.empty() ? "" : text.back();
}

float table_period(const std::vector<dag::Node>& expr, std::size_t slot) {
  using lang::Builtin;
  enum class K : std::uint8_t { Const, Affine, Floor, Periodic, None };
  struct S {
    K k = K::None;
    double a = 0;           // Affine and Floor: the coefficient of x; Periodic: the period
    std::size_t of = 0;     // Floor: the affine node floored
  };
  std::vector<S> st(expr.size());
  auto literal = [&](dag::NodeId c, double* v) {
    const dag::Node& n = expr[c];
    if (n.kind != dag::NodeKind::Constant || n.value.empty()) return false;
    for (float x : n.value)
      if (x != n.value[0]) return false;
    *v = n.value[0];
    return true;
  };
  auto same = [](double p, double q) { return std::fabs(p - q) <= 1e-6 * std::max(std::fabs(p), std::fabs(q)); };
  for (std::size_t i = 0; i < expr.size(); ++i) {
    const dag::Node& n = expr[i];
    S& r = st[i];
    if (i == slot) {
      r = {K::Affine, 1.0, 0};
      continue;
    }
    if (n.kind == dag::NodeKind::Constant) {
      r.k = K::Const;
      continue;
    }
    auto kid = [&](std::size_t k) -> const S& { return st[n.children[k]]; };
    const bool op = n.kind == dag::NodeKind::Operation;
    const Builtin b = op && n.op == ir::Op::Builtin ? static_cast<Builtin>(n.aux) : Builtin::Count;
    double c = 0;
    if (op && (n.op == ir::Op::Neg || n.op == ir::Op::Convert) && kid(0).k != K::None) {
      r = kid(0);
      if (n.op == ir::Op::Neg && (r.k == K::Affine)) r.a = -r.a;
      if (r.k == K::Floor) r.k = K::None;
      continue;
    }
    if (op && (n.op == ir::Op::Add || n.op == ir::Op::Sub) && n.children.size() == 2) {
      const S& x = kid(0);
      const S& y = kid(1);
      if ((x.k == K::Affine || x.k == K::Const) && (y.k == K::Affine || y.k == K::Const)) {
        r = {K::Affine, (x.k == K::Affine ? x.a : 0) + (n.op == ir::Op::Sub ? -1 : 1) * (y.k == K::Affine ? y.a : 0), 0};
        if (r.a == 0) r.k = K::Const;
        continue;
      }
      if (n.op == ir::Op::Sub && x.k == K::Affine && y.k == K::Floor && y.of == n.children[0]) {  // fract
        r = {K::Periodic, 1.0 / std::fabs(x.a), 0};
        continue;
      }
    }
    if (op && (n.op == ir::Op::Mul || n.op == ir::Op::Div) && n.children.size() == 2) {
      const bool right = literal(n.children[1], &c);
      const bool left = n.op == ir::Op::Mul && literal(n.children[0], &c);
      const S& x = right ? kid(0) : kid(1);
      if ((right || left) && x.k == K::Affine && c != 0) {
        r = {K::Affine, n.op == ir::Op::Div ? x.a / c : x.a * c, 0};
        continue;
      }
    }
    if ((b == Builtin::Sin || b == Builtin::Cos) && kid(0).k == K::Affine) {
      r = {K::Periodic, 2.0 * 3.14159265358979323846 / std::fabs(kid(0).a), 0};
      continue;
    }
    if (b == Builtin::Mod && n.children.size() == 2 && kid(0).k == K::Affine && literal(n.children[1], &c) && c != 0) {
      r = {K::Periodic, std::fabs(c / kid(0).a), 0};
      continue;
    }
    if (b == Builtin::Floor && kid(0).k == K::Affine) {
      r = {K::Floor, kid(0).a, n.children[0]};
      continue;
    }
    // Anything else: periodic when every varying operand is, with one period.
    r.k = K::Const;
    for (dag::NodeId ch : n.children) {
      const S& x = st[ch];
      if (x.k == K::Const) continue;
      if (x.k != K::Periodic || (r.k == K::Periodic && !same(r.a, x.a))) {
        r.k = K::None;
        break;
      }
      r = {K::Periodic, x.a, 0};
    }
  }
  const S& root = st.back();
  return root.k == K::Periodic && std::isfinite(root.a) && root.a > 0 ? static_cast<float>(root.a) : 0.0f;
}

namespace {

float decode(float e, Encoding enc) { return enc == Encoding::Biased ? 2.0f * e - 1.0f : e; }
float encode(float v, Encoding enc) { return enc == Encoding::Biased ? (v + 1.0f) * 0.5f : v; }
float q8(float e) { return std::nearbyint(std::clamp(e, 0.0f, 1.0f) * 255.0f) / 255.0f; }

// The function's value (unclamped; NaN where the function is undefined).
std::array<float, 3> evaluate(const FunctionTable& t, float x) {
  static const ir::EvalContext ctx;
  std::vector<ir::Value> vals(t.expr.size());
  std::vector<const ir::Value*> ops;
  for (std::size_t i = 0; i < t.expr.size(); ++i) {
    const dag::Node& n = t.expr[i];
    if (i == t.slot) {
      vals[i] = ir::Value::scalar(x);
      continue;
    }
    ops.clear();
    switch (n.kind) {
      case dag::NodeKind::Constant: vals[i] = ir::evaluate(ir::Op::Const, n.type, 0, "", n.value, {}, ctx); break;
      case dag::NodeKind::Texture: {
        const ir::Value name = ir::Value::string(n.name);
        ops.push_back(&name);
        for (dag::NodeId c : n.children) ops.push_back(&vals[c]);
        vals[i] = ir::evaluate(ir::Op::Texture, n.type, n.aux, "", {}, ops, ctx);
        break;
      }
      default:
        for (dag::NodeId c : n.children) ops.push_back(&vals[c]);
        vals[i] = ir::evaluate(n.op, n.type, n.aux, n.name, n.value, ops, ctx);
        break;
    }
  }
  const ir::Value& v = vals.back();
  if (!t.triple) return {v.f[0], v.f[0], v.f[0]};
  return {v.f[0], v.f[1], v.f[2]};
}

std::array<float, 4> texel(const FunctionTable& t, const std::array<float, 3>& v) {
  const float r = encode(v[0], t.encoding), g = encode(v[1], t.encoding), b = encode(v[2], t.encoding);
  return t.triple ? std::array<float, 4>{r, g, b, r} : std::array<float, 4>{r, r, r, r};
}

// The argument at texel i's centre (Coordinate tables): linear filtering puts the domain's ends
// on the end texels' centres (a period's start on texel 0's); nearest filtering gives each texel
// a cell of the domain, valued at its middle (so a jump at the cells' edge costs nothing).
float texel_argument(const FunctionTable& t, int i) {
  const float span = t.domain.hi - t.domain.lo, k = static_cast<float>(i), n = static_cast<float>(t.size);
  if (!t.linear) return t.domain.lo + span * (k + 0.5f) / n;
  if (t.periodic) return t.domain.lo + span * k / n;
  return t.size <= 1 ? t.domain.lo : t.domain.lo + span * k / (n - 1);
}

}  // namespace

std::array<float, 3> table_value(const FunctionTable& t, float x) {
  std::array<float, 3> v = evaluate(t, x);
  const float lo = t.encoding == Encoding::Biased ? -1.0f : 0.0f;
  for (float& c : v) c = std::isnan(c) ? 0.0f : std::clamp(c, lo, 1.0f);
  return v;
}

std::array<float, 4> table_lookup(const FunctionTable& t, float coord, bool hardware) {
  if (t.index == TableIndex::Dependent) {
    if (!hardware) return texel(t, table_value(t, decode(std::clamp(coord, 0.0f, 1.0f), t.argument_encoding)));
    const float c = std::isfinite(coord) ? std::clamp(coord, 0.0f, 1.0f) : 0.0f;
    const int k = std::clamp(static_cast<int>(std::floor(c * static_cast<float>(t.size))), 0, t.size - 1);
    return t.texels[static_cast<std::size_t>(k)];
  }
  if (!hardware) {
    float x = coord;
    if (!t.periodic) x = std::clamp(x, t.domain.lo, t.domain.hi);
    return texel(t, table_value(t, x));
  }
  // The texture matrix, then GL's sampling: GL_REPEAT or GL_CLAMP_TO_EDGE, nearest or linear.
  const auto [scale, offset] = texture_matrix(t);
  const float n = static_cast<float>(t.size);
  float s = scale * coord + offset;
  if (!std::isfinite(s)) s = 0;  // an undefined coordinate reads the first texel
  auto wrap = [&](long i) {
    if (t.periodic) return static_cast<int>(((i % t.size) + t.size) % t.size);
    return static_cast<int>(std::clamp(i, 0L, static_cast<long>(t.size - 1)));
  };
  if (!t.linear) return t.texels[static_cast<std::size_t>(wrap(static_cast<long>(std::floor(s * n))))];
  const float u = s * n - 0.5f;
  const long base = static_cast<long>(std::floor(u));
  const int i0 = wrap(base), i1 = wrap(base + 1);
  const float f = u - static_cast<float>(base);
  std::array<float, 4> out{};
  for (std::size_t c = 0; c < 4; ++c)
    out[c] = q8(t.texels[static_cast<std::size_t>(i0)][c] * (1 - f) + t.texels[static_cast<std::size_t>(i1)][c] * f);
  return out;
}

bool table_saturation(const std::vector<dag::Node>& expr, std::size_t slot, Interval* domain) {
  using lang::Builtin;
  auto constant = [&](dag::NodeId c, float* v) {
    const dag::Node& n = expr[c];
    if (n.kind != dag::NodeKind::Constant || n.value.empty()) return false;
    *v = n.value[0];
    return true;
  };
  bool any = false;
  Interval hull_of{};
  for (const dag::Node& n : expr) {
    for (std::size_t k = 0; k < n.children.size(); ++k) {
      if (n.children[k] != slot) continue;
      const bool builtin = n.kind == dag::NodeKind::Operation && n.op == ir::Op::Builtin;
      const Builtin b = builtin ? static_cast<Builtin>(n.aux) : Builtin::Count;
      float lo = 0, hi = 0;
      if (b == Builtin::Clamp && k == 0 && n.children.size() == 3 && constant(n.children[1], &lo) && constant(n.children[2], &hi)) {
      } else if (b == Builtin::Smoothstep && k == 2 && n.children.size() == 3 && constant(n.children[0], &lo) && constant(n.children[1], &hi)) {
        if (lo > hi) std::swap(lo, hi);
      } else {
        return false;
      }
      const Interval here{lo, hi};
      hull_of = any ? hull(hull_of, here) : here;
      any = true;
    }
  }
  if (!any || !(hull_of.lo <= hull_of.hi)) return false;
  *domain = hull_of;
  return true;
}

void mark_unclamped(const std::vector<TextureUnit>& units, std::vector<char>& exact) {
  for (const TextureUnit& u : units) {
    if (u.op != UnitOp::PassThrough)  // texture coordinates are floats (a pass-through clamps them)
      for (dag::NodeId c : u.coords)
        if (c < exact.size()) exact[c] = 1;
    if (u.projective) {  // and so are q and the quotients the unit makes
      if (u.q < exact.size()) exact[u.q] = 1;
      for (dag::NodeId c : u.quotients)
        if (c < exact.size()) exact[c] = 1;
    }
    if (!u.table) continue;
    const FunctionTable& t = *u.table;
    for (std::size_t i = 0; i < t.origin.size(); ++i) {
      if (t.origin[i] >= exact.size() || t.origin[i] == t.node) continue;
      if (i == t.slot && t.index != TableIndex::Coordinate) continue;
      exact[t.origin[i]] = 1;
    }
  }
}

std::pair<float, float> texture_matrix(const FunctionTable& t) {
  const float span = t.domain.hi - t.domain.lo, n = static_cast<float>(t.size);
  if (!(span > 0)) return {0.0f, 0.5f / n};
  const float scale = t.linear && !t.periodic ? (n - 1) / n / span : 1.0f / span;
  return {scale, (t.linear ? 0.5f / n : 0.0f) - scale * t.domain.lo};
}

namespace {

// Fills the texels and measures the error (Coordinate tables: at 4096 points of the domain).
void fill(FunctionTable& t) {
  t.texels.clear();
  for (int i = 0; i < t.size; ++i) {
    const float x = t.index == TableIndex::Dependent ? decode(static_cast<float>(i) / 255.0f, t.argument_encoding) : texel_argument(t, i);
    std::array<float, 4> e = texel(t, table_value(t, x));
    for (float& c : e) c = q8(c);
    t.texels.push_back(e);
  }
  const int points = t.index == TableIndex::Dependent ? 256 : 4096;
  int over = 0;
  t.max_error = 0;
  for (int i = 0; i < points; ++i) {
    float coord, x;
    if (t.index == TableIndex::Dependent) {
      coord = static_cast<float>(i) / 255.0f;
      x = decode(coord, t.argument_encoding);
    } else {
      x = t.domain.lo + (t.domain.hi - t.domain.lo) * (static_cast<float>(i) + 0.5f) / static_cast<float>(points);
      coord = x;
    }
    const std::array<float, 3> want = table_value(t, x);
    const std::array<float, 4> got = table_lookup(t, coord, true);
    float err = 0;
    for (int c = 0; c < (t.triple ? 3 : 1); ++c)
      err = std::max(err, std::fabs(decode(got[static_cast<std::size_t>(c)], t.encoding) - want[static_cast<std::size_t>(c)]));
    t.max_error = std::max(t.max_error, err);
    if (err > 2.0f / 255.0f) ++over;
  }
  t.error_share = static_cast<float>(over) / static_cast<float>(points);
}

}  // namespace

void build_table(FunctionTable& t) {
  // The encoding: as it is when the function is never negative over its domain, else (v + 1) / 2.
  const int probes = t.index == TableIndex::Dependent ? 256 : 1024;
  float lowest = 0;
  for (int i = 0; i < probes; ++i) {
    const float x = t.index == TableIndex::Dependent
                        ? decode(static_cast<float>(i) / 255.0f, t.argument_encoding)
                        : t.domain.lo + (t.domain.hi - t.domain.lo) * static_cast<float>(i) / static_cast<float>(probes - 1);
    for (float c : evaluate(t, x))
      if (!std::isnan(c)) lowest = std::min(lowest, c);
  }
  t.encoding = lowest < 0 ? Encoding::Biased : Encoding::Unsigned;
  t.size = t.index == TableIndex::Coordinate && t.domain.lo == t.domain.hi ? 1 : 256;
  if (t.index == TableIndex::Dependent) {  // a texel per 8-bit value: nearest is exact there
    t.linear = false;
    fill(t);
    return;
  }
  // Linear filtering suits a smooth function, nearest one with jumps (mod, floor, a step): the
  // filter whose table errs less.
  t.linear = false;
  fill(t);
  FunctionTable nearest = t;
  t.linear = true;
  fill(t);
  if (nearest.max_error < t.max_error || (nearest.max_error == t.max_error && nearest.error_share < t.error_share)) t = std::move(nearest);
}

std::string table_layout(const FunctionTable& t) {
  const bool by_t = t.index == TableIndex::Dependent && (t.channel == 0 || t.channel == 2);
  return by_t ? fmt::format("1x{}", t.size) : fmt::format("{}x1", t.size);
}

std::shared_ptr<const FunctionTable> built_table(FunctionTable t) {
  // The key: everything build_table reads, and the ids the table names.
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", t.slot, t.node, t.argument, t.triple, static_cast<int>(t.index), t.channel,
                                static_cast<int>(t.argument_encoding), t.domain.lo, t.domain.hi, t.periodic, t.text, t.expr.size());
  for (const dag::Node& n : t.expr) {
    key += fmt::format("{},{},{},{},{},", static_cast<int>(n.kind), static_cast<int>(n.op), static_cast<int>(n.type), n.aux, n.name);
    for (float v : n.value) key += fmt::format("{},", v);
    for (dag::NodeId c : n.children) key += fmt::format("c{},", c);
    key += ';';
  }
  for (dag::NodeId o : t.origin) key += fmt::format("{},", o);
  thread_local std::map<std::string, std::shared_ptr<const FunctionTable>> cache;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= 512) cache.clear();
  build_table(t);
  auto built = std::make_shared<const FunctionTable>(std::move(t));
  cache.emplace(std::move(key), built);
  return built;
}

std::string describe(const FunctionTable& t) {
  std::string where;
  if (t.index == TableIndex::Dependent) {
    where = fmt::format("{} texels, one per 8-bit value of x{} (x the previous unit's {}: {}), nearest, clamped to edge", t.size,
                        t.argument_encoding == Encoding::Biased ? " (stored (x+1)/2)" : "", "rgba"[t.channel], table_layout(t));
  } else if (t.periodic) {
    where = fmt::format("{} texels over one period of x, [{:g}, {:g}), repeating, {}", t.size, t.domain.lo, t.domain.hi, t.linear ? "linear" : "nearest");
  } else {
    where = fmt::format("{} texels over x in [{:g}, {:g}], clamped to edge, {}", t.size, t.domain.lo, t.domain.hi, t.linear ? "linear" : "nearest");
  }
  std::string err = fmt::format("max error {:.2g}/255", t.max_error * 255.0f);
  if (t.error_share > 0) err += fmt::format(" ({:.2g}% of the domain over 2/255)", 100.0f * t.error_share);
  return fmt::format("table of {}: {}{}, {}", t.text, where, t.encoding == Encoding::Biased ? ", held as (v+1)/2" : "", err);
}

}  // namespace passlab::combiners
