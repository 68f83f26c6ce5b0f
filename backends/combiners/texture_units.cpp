// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 1 (Mark & Proudfoot §3, "extract texture-shader operations"): which texture unit does
// what. A lookup at interpolated coordinates is a plain 1D/2D/3D lookup; normalize() of an
// interpolated vector is a normalisation cube map; a value an earlier pass saved is read back
// from its texture at the fragment's window position. On GeForce3 (texture shaders) one dependent
// pattern more: texture(name, dot(a, X), dot(b, X)) with a and b interpolated vectors and X a
// lookup (or its expand()) is DOT_PRODUCT + DOT_PRODUCT_TEXTURE_2D reading X's unit. Anything
// else with computed coordinates is a dependent lookup the machine cannot do in one pass.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "backends/combiners/stages.h"
#include "backends/combiners/tables.h"
#include "core/dag/export.h"
#include "core/lang/stdlib.h"

namespace passlab::combiners {

const char* to_string(UnitOp op) {
  switch (op) {
    case UnitOp::Texture1D: return "texture_1d";
    case UnitOp::Texture2D: return "texture_2d";
    case UnitOp::Texture3D: return "texture_3d";
    case UnitOp::CubeNormalize: return "texture_cube_map";
    case UnitOp::Restore: return "texture_rectangle";
    case UnitOp::PassThrough: return "pass_through";
    case UnitOp::DotProduct: return "dot_product_2d_1of2";
    case UnitOp::DotProductTexture2D: return "dot_product_2d_2of2";
    case UnitOp::Table1D: return "texture_1d";
    case UnitOp::DependentAR: return "dependent_ar";
    case UnitOp::DependentGB: return "dependent_gb";
    case UnitOp::CubeDot: return "dot_product_cube_map";
    case UnitOp::DotProductCubeMap: return "dot_product_cube_map_3of3";
  }
  return "?";
}

Encoding saved_encoding(const Interval& range) { return range.clamped().nonnegative() ? Encoding::Unsigned : Encoding::Biased; }

bool biased_result(const TextureUnit& u) {
  switch (u.op) {
    case UnitOp::CubeNormalize: case UnitOp::DotProductCubeMap: return true;
    case UnitOp::Restore: case UnitOp::Table1D: case UnitOp::DependentAR: case UnitOp::DependentGB: return u.encoding == Encoding::Biased;
    default: return false;
  }
}

namespace {

bool is_leaf(const dag::Node& n) { return n.kind == dag::NodeKind::Interpolant || n.kind == dag::NodeKind::Constant; }

int coordinate_count(const dag::FragmentDag& d, const dag::Node& tex) {
  int k = 0;
  for (dag::NodeId c : tex.children) k += lang::is_triple(d.node(c).type) ? 3 : 1;
  return k;
}

bool is_const(const dag::FragmentDag& d, dag::NodeId id, float v) {
  const dag::Node& n = d.node(id);
  if (n.kind != dag::NodeKind::Constant || n.value.empty()) return false;
  const int k = lang::is_triple(n.type) ? 3 : 1;
  for (int i = 0; i < k && i < static_cast<int>(n.value.size()); ++i)
    if (n.value[static_cast<std::size_t>(i)] != v) return false;
  return true;
}

// X or expand(X) = 2 (X - 1/2) = 2 X - 1 where X is a texture lookup: the lookup, and whether
// the texture shader reads it expanded.
bool lookup_or_expand(const dag::FragmentDag& d, dag::NodeId id, dag::NodeId* tex, bool* expanded) {
  const dag::Node& n = d.node(id);
  if (n.kind == dag::NodeKind::Texture) {
    *tex = id;
    *expanded = false;
    return true;
  }
  if (n.kind != dag::NodeKind::Operation || n.children.size() != 2) return false;
  auto other = [&](dag::NodeId a, dag::NodeId b, float v, dag::NodeId* o) {
    if (is_const(d, a, v)) return *o = b, true;
    if (is_const(d, b, v)) return *o = a, true;
    return false;
  };
  dag::NodeId x;
  if (n.op == ir::Op::Mul && other(n.children[0], n.children[1], 2.0f, &x)) {  // 2 (X - 1/2)
    const dag::Node& s = d.node(x);
    if (s.op == ir::Op::Sub && s.kind == dag::NodeKind::Operation && is_const(d, s.children[1], 0.5f) &&
        d.node(s.children[0]).kind == dag::NodeKind::Texture) {
      *tex = s.children[0];
      *expanded = true;
      return true;
    }
  }
  if (n.op == ir::Op::Sub && is_const(d, n.children[1], 1.0f)) {  // 2 X - 1
    const dag::Node& m = d.node(n.children[0]);
    dag::NodeId t;
    if (m.kind == dag::NodeKind::Operation && m.op == ir::Op::Mul && other(m.children[0], m.children[1], 2.0f, &t) &&
        d.node(t).kind == dag::NodeKind::Texture) {
      *tex = t;
      *expanded = true;
      return true;
    }
  }
  return false;
}

// dot(a, X) with a an interpolated vector and X a lookup (or its expand()).
bool dot_with_lookup(const dag::FragmentDag& d, dag::NodeId id, dag::NodeId* coord, dag::NodeId* tex, bool* expanded) {
  const dag::Node& n = d.node(id);
  if (n.kind != dag::NodeKind::Operation || n.op != ir::Op::Dot) return false;
  for (int k = 0; k < 2; ++k) {
    const dag::NodeId a = n.children[static_cast<std::size_t>(k)], x = n.children[static_cast<std::size_t>(1 - k)];
    if (is_leaf(d.node(a)) && lookup_or_expand(d, x, tex, expanded)) {
      *coord = a;
      return true;
    }
  }
  return false;
}

}  // namespace

bool extract_texture_units(const PassSpec& pass, const Machine& m, HDag& h, Failure& f, CompileTrace& t) {
  const dag::FragmentDag& d = *pass.dag;
  std::map<std::pair<std::string, std::vector<dag::NodeId>>, int> by_key;
  auto fail = [&](std::string constraint, std::string message, dag::NodeId node) {
    f = {std::move(constraint), std::move(message), node, true};
    t.add({CEvent::Fail, 1, {node}, -1, -1, -1, -1, Part::Rgb, f.constraint, f.message});
    return false;
  };
  auto add_unit = [&](TextureUnit u, const std::string& why) {
    const int index = static_cast<int>(h.units.size());
    const std::string what = u.op == UnitOp::Restore ? std::string("restore") : std::string(to_string(u.op)) + (u.texture.empty() ? "" : " " + u.texture);
    t.add({CEvent::Unit, 1, u.nodes, -1, -1, index, -1, Part::Rgb, what, why});
    h.units.push_back(std::move(u));
    return index;
  };
  std::vector<char> member(d.size(), 0);
  for (dag::NodeId id : pass.members) member[id] = 1;

  // Restores first: texture units in the order the passes saved them.
  for (dag::NodeId r : pass.restores) {
    TextureUnit u;
    u.op = UnitOp::Restore;
    u.restored = r;
    u.nodes = {r};
    u.encoding = saved_encoding((*pass.ranges)[r]);
    add_unit(std::move(u), u.encoding == Encoding::Biased ? "saved as (x+1)/2" : "saved as it is");
  }
  // The unit delivering a node's value, or -1.
  auto unit_of = [&](dag::NodeId id) {
    for (std::size_t u = 0; u < h.units.size(); ++u)
      if (h.units[u].op != UnitOp::DotProduct && std::find(h.units[u].nodes.begin(), h.units[u].nodes.end(), id) != h.units[u].nodes.end())
        return static_cast<int>(u);
    return -1;
  };
  auto what = [&](dag::NodeId id) {
    const dag::Node& n = d.node(id);
    if (n.kind == dag::NodeKind::Texture) return std::string("noise()");
    if (n.op == ir::Op::Div) return std::string("a division by a value computed per fragment");
    if (n.op == ir::Op::Builtin) return fmt::format("{}()", lang::to_string(static_cast<lang::Builtin>(n.aux)));
    return fmt::format("'{}'", dag::label(n));
  };
  // The argument values a table of an interpolant covers: one period, where the function is not
  // constant, or the interpolant's interval; false when none of them is bounded.
  auto coordinate_domain = [&](const std::vector<dag::Node>& expr, std::size_t slot, dag::NodeId a, Interval* domain, bool* periodic) {
    Interval r = (*pass.ranges)[a], flat;
    if (table_saturation(expr, slot, &flat)) {
      const Interval both{std::max(r.lo, flat.lo), std::min(r.hi, flat.hi)};
      // Disjoint: the function is constant wherever the argument can be; one texel holds it.
      r = both.lo <= both.hi ? both : r.hi < flat.lo ? Interval::point(flat.lo) : Interval::point(flat.hi);
    }
    const bool bounded = std::isfinite(r.lo) && std::isfinite(r.hi) && r.lo <= r.hi;
    // One period, unless the argument's own bounds are narrower (sin(s) of s in [0, 1]).
    if (const float period = table_period(expr, slot); period > 0 && !(bounded && r.hi - r.lo < period)) {
      *periodic = true;
      *domain = {0.0f, period};
      return true;
    }
    *periodic = false;
    if (!bounded) return false;
    *domain = r;
    return true;
  };
  // A function the combiners cannot compute, as a table of the one value it is a function of.
  auto table_unit = [&](dag::NodeId id) {
    const dag::Node& n = d.node(id);
    TableExpression e;
    auto enters = [&](dag::NodeId c) { return !member[c] || unit_of(c) >= 0; };
    if (!table_expression(d, id, enters, e))
      return fail("unsupported", fmt::format("{} cannot be a table lookup: {}", what(id), e.why), id);
    if (e.arguments.size() != 1) {
      std::string names;
      for (std::size_t k = 0; k < e.arguments.size() && k < 3; ++k) names += (k ? ", " : "") + dag::label(d.node(e.arguments[k]));
      if (e.arguments.size() > 3) names += ", ...";
      return fail("table-argument",
                  fmt::format("{} of a value computed from {} values in this pass ({}): {} computes it as a table lookup, which takes one "
                              "argument from a texture or an interpolant (an earlier pass can save that value)",
                              what(id), e.arguments.size(), names, m.name),
                  id);
    }
    const dag::NodeId a = e.arguments.front();
    const dag::Node& an = d.node(a);
    if (lang::is_triple(an.type))
      return fail("table-argument",
                  fmt::format("{} of the vector {}: {}'s tables take one number (compute a component or a dot product first)", what(id),
                              dag::label(an), m.name),
                  id);
    FunctionTable table;
    table.expr = std::move(e.expr);
    table.origin = std::move(e.origin);
    table.slot = e.slots.front();
    table.node = id;
    table.argument = a;
    table.text = table_text(table.expr, table.slot);
    table.triple = lang::is_triple(n.type);
    TextureUnit u;
    u.nodes = {id};
    std::string why;
    if (an.kind == dag::NodeKind::Interpolant) {
      table.index = TableIndex::Coordinate;
      if (!coordinate_domain(table.expr, table.slot, a, &table.domain, &table.periodic)) {
        return fail("table-argument",
                    fmt::format("{} of {}, which may take any value: a table covers a bounded or periodic argument (bound it per vertex, "
                                "e.g. with clamp())",
                                what(id), dag::label(an)),
                    id);
      }
      u.op = UnitOp::Table1D;
      u.coords = {a};
      u.coord_sizes = {1};
      why = "a table looked up at the interpolated " + dag::label(an);
    } else if (const int src = unit_of(a); src >= 0) {
      if (!m.texture_shaders)
        return fail("unsupported",
                    fmt::format("{} of a value from a texture needs a dependent texture read, which {} lacks (no texture shaders): only "
                                "functions of interpolated values are tables there",
                                what(id), m.name),
                    id);
      const TextureUnit& p = h.units[static_cast<std::size_t>(src)];
      table.index = TableIndex::Dependent;
      table.channel = p.op == UnitOp::Restore || p.table ? 3 : static_cast<int>(an.kind == dag::NodeKind::Texture ? an.aux : 3);
      table.argument_encoding = biased_result(p) ? Encoding::Biased : Encoding::Unsigned;
      u.op = table.dependent_gb() ? UnitOp::DependentGB : UnitOp::DependentAR;
      u.previous = src;
      why = fmt::format("a table looked up at tex{}'s {}", src, "rgba"[table.channel]);
    } else {
      return fail("table-argument", fmt::format("{} of {}, which reaches this pass neither from a texture nor interpolated", what(id), dag::label(an)), id);
    }
    u.table = built_table(std::move(table));
    u.encoding = u.table->encoding;
    why += "; " + describe(*u.table);
    add_unit(std::move(u), why);
    return true;
  };
  // A function only other tables of the pass read is folded into them: one lookup of the
  // composition (smoothstep(a, b, mod(x, 1)) of x) rather than a chain of dependent lookups, and
  // exact where the chain would round in between. Readers are found through conditions.
  // (Only a pass with a table or a lookup needs its readers; VALID compiles passes often.)
  const bool lookups = std::any_of(pass.members.begin(), pass.members.end(),
                                   [&](dag::NodeId x) { return d.node(x).kind == dag::NodeKind::Texture || needs_table(d, x); });
  std::vector<std::vector<dag::NodeId>> readers(lookups ? d.size() : 0);
  for (dag::NodeId p : lookups ? pass.members : std::vector<dag::NodeId>{}) {
    std::vector<dag::NodeId> stack(d.node(p).children.begin(), d.node(p).children.end());
    while (!stack.empty()) {
      const dag::NodeId c = stack.back();
      stack.pop_back();
      const dag::Node& cn = d.node(c);
      if (cn.kind == dag::NodeKind::Operation && cn.type == ir::BaseType::Bool) {
        stack.insert(stack.end(), cn.children.begin(), cn.children.end());
      } else if (std::find(readers[c].begin(), readers[c].end(), p) == readers[c].end()) {
        readers[c].push_back(p);
      }
    }
  }
  // Projective lookups: texture(name, a / q, b / q) with a, b and q interpolated is GL's lookup
  // at (a, b, q), the unit dividing (projected slides, shadow maps). Divisions only such lookups
  // read are theirs.
  std::map<dag::NodeId, dag::NodeId> projective;  // texture node -> q
  for (dag::NodeId id : pass.members) {
    const dag::Node& n = d.node(id);
    if (n.kind != dag::NodeKind::Texture || n.children.empty()) continue;
    dag::NodeId q = 0;
    bool ok = true;
    for (std::size_t k = 0; k < n.children.size() && ok; ++k) {
      const dag::Node& c = d.node(n.children[k]);
      ok = member[c.id] && c.kind == dag::NodeKind::Operation && c.op == ir::Op::Div && c.children.size() == 2 && c.type == ir::BaseType::Float &&
           is_leaf(d.node(c.children[0])) && d.node(c.children[1]).kind == dag::NodeKind::Interpolant &&
           d.node(c.children[1]).type == ir::BaseType::Float && (k == 0 || c.children[1] == q);
      if (ok) q = c.children[1];
    }
    if (ok) projective[id] = q;
  }
  std::vector<char> quotient(d.size(), 0);
  for (const auto& [tex, q] : projective)
    for (dag::NodeId c : d.node(tex).children)
      quotient[c] = c != pass.root && std::all_of(readers[c].begin(), readers[c].end(), [&](dag::NodeId p) { return projective.count(p) > 0; });
  for (auto it = projective.begin(); it != projective.end();) {  // a division others read too is computed, not projected
    const auto& kids = d.node(it->first).children;
    it = std::all_of(kids.begin(), kids.end(), [&](dag::NodeId c) { return quotient[c] != 0; }) ? std::next(it) : projective.erase(it);
  }
  std::fill(quotient.begin(), quotient.end(), 0);
  for (const auto& [tex, q] : projective)
    for (dag::NodeId c : d.node(tex).children) quotient[c] = 1;
  std::vector<char> table_only(d.size(), 0), tabled(d.size(), 0);
  for (dag::NodeId x : pass.members) tabled[x] = needs_table(d, x) && !quotient[x];
  // A function of an interpolant that is neither bounded nor periodic may become so a step or two
  // up: x - floor(x) (the fract idiom) repeats though floor(x) does not. Then that reader is the
  // table (of the same interpolant), and what it reads is folded into it.
  for (dag::NodeId x : pass.members) {
    if (!tabled[x]) continue;
    auto enters = [&](dag::NodeId c) { return !member[c] || d.node(c).kind == dag::NodeKind::Texture; };
    TableExpression e;
    Interval dom;
    bool periodic = false;
    if (!table_expression(d, x, enters, e) || e.arguments.size() != 1 || d.node(e.arguments[0]).kind != dag::NodeKind::Interpolant ||
        coordinate_domain(e.expr, e.slots[0], e.arguments[0], &dom, &periodic))
      continue;
    dag::NodeId cur = x;
    for (int step = 0; step < 4 && readers[cur].size() == 1; ++step) {
      const dag::NodeId p = readers[cur][0];
      if (!member[p] || tabled[p]) break;
      TableExpression up;
      if (table_expression(d, p, enters, up) && up.arguments == e.arguments &&
          coordinate_domain(up.expr, up.slots[0], up.arguments[0], &dom, &periodic)) {
        tabled[p] = 1;
        break;
      }
      cur = p;
    }
  }
  for (auto it = pass.members.rbegin(); lookups && it != pass.members.rend(); ++it) {  // readers before what they read
    const dag::NodeId x = *it;
    if (x == pass.root || readers[x].empty() || d.node(x).kind == dag::NodeKind::Texture) continue;
    table_only[x] = std::all_of(readers[x].begin(), readers[x].end(), [&](dag::NodeId p) { return member[p] && (tabled[p] || table_only[p]); });
  }
  for (dag::NodeId id : pass.members) {
    const dag::Node& n = d.node(id);
    if (quotient[id]) continue;  // a projective lookup's unit divides
    if (auto p = projective.find(id); p != projective.end()) {
      const auto key = std::make_pair(n.name, n.children);
      if (auto it = by_key.find(key); it != by_key.end()) {
        h.units[static_cast<std::size_t>(it->second)].nodes.push_back(id);
        continue;
      }
      TextureUnit u;
      const int dims = static_cast<int>(n.children.size());
      u.op = dims <= 1 ? UnitOp::Texture1D : dims == 2 ? UnitOp::Texture2D : UnitOp::Texture3D;
      u.texture = n.name;
      for (dag::NodeId c : n.children) {
        u.coords.push_back(d.node(c).children[0]);
        u.coord_sizes.push_back(1);
      }
      u.projective = true;
      u.q = p->second;
      u.quotients = n.children;
      u.nodes = {id};
      if (u.op == UnitOp::Texture3D && !m.texture_3d)
        return fail("unsupported", fmt::format("{} has no 3D textures ('{}' is looked up at 3 coordinates)", m.name, n.name), id);
      by_key[key] = add_unit(std::move(u), "a projective lookup: the unit divides the interpolated coordinates by q");
      continue;
    }
    if (tabled[id]) {
      if (table_only[id]) continue;  // folded into the tables that read it
      if (!table_unit(id)) return false;
      continue;
    }
    if (n.kind == dag::NodeKind::Operation && n.op == ir::Op::Builtin && n.aux == static_cast<std::uint32_t>(lang::Builtin::Normalize) &&
        n.children.size() == 1 && d.node(n.children[0]).kind != dag::NodeKind::Interpolant) {
      // GeForce3: a vector from a texture (a saved one) normalised by three texture-shader dot
      // products with the constant coordinates (1,0,0), (0,1,0), (0,0,1) and the cube map.
      const dag::NodeId a = n.children[0];
      const int src = unit_of(a);
      if (!m.texture_shaders)
        return fail("unsupported",
                    fmt::format("normalize() of a vector computed per fragment: {} normalises only interpolated vectors (through a "
                                "normalisation cube map; it has no texture shaders to index one with a saved vector)",
                                m.name),
                    id);
      if (src < 0 || !lang::is_triple(d.node(a).type))
        return fail("table-argument",
                    fmt::format("normalize() of a vector computed in this pass: {} normalises a vector from a texture (three "
                                "texture-shader dot products index the cube map), so an earlier pass must save it",
                                m.name),
                    id);
      const bool expand = biased_result(h.units[static_cast<std::size_t>(src)]);
      for (int k = 0; k < 2; ++k) {
        TextureUnit dot;
        dot.op = UnitOp::CubeDot;
        dot.previous = src;
        dot.expand_previous = expand;
        dot.component = k;
        add_unit(std::move(dot), k == 0 ? "s = (1,0,0) . the saved vector" : "t = (0,1,0) . the saved vector");
      }
      TextureUnit u;
      u.op = UnitOp::DotProductCubeMap;
      u.previous = src;
      u.expand_previous = expand;
      u.nodes = {id};
      add_unit(std::move(u), "r = (0,0,1) . the saved vector; the normalisation cube map at (s, t, r)");
      continue;
    }
    if (n.kind == dag::NodeKind::Operation && n.op == ir::Op::Builtin && n.aux == static_cast<std::uint32_t>(lang::Builtin::Normalize) &&
        n.children.size() == 1 && d.node(n.children[0]).kind == dag::NodeKind::Interpolant) {
      const auto key = std::make_pair(std::string("$normalize"), n.children);
      if (auto it = by_key.find(key); it != by_key.end()) {
        h.units[static_cast<std::size_t>(it->second)].nodes.push_back(id);
        continue;
      }
      TextureUnit u;
      u.op = UnitOp::CubeNormalize;
      u.coords = n.children;
      u.coord_sizes = {3};
      u.nodes = {id};
      by_key[key] = add_unit(std::move(u), "normalize() of an interpolated vector");
      continue;
    }
    if (n.kind != dag::NodeKind::Texture) continue;
    const auto key = std::make_pair(n.name, n.children);
    if (auto it = by_key.find(key); it != by_key.end()) {
      h.units[static_cast<std::size_t>(it->second)].nodes.push_back(id);
      continue;
    }
    const bool plain = std::all_of(n.children.begin(), n.children.end(), [&](dag::NodeId c) { return is_leaf(d.node(c)); });
    if (plain) {
      const int dims = coordinate_count(d, n);
      TextureUnit u;
      u.op = dims <= 1 ? UnitOp::Texture1D : dims == 2 ? UnitOp::Texture2D : UnitOp::Texture3D;
      u.texture = n.name;
      u.coords = n.children;
      for (dag::NodeId c : n.children) u.coord_sizes.push_back(lang::is_triple(d.node(c).type) ? 3 : 1);
      u.nodes = {id};
      if (u.op == UnitOp::Texture3D && !m.texture_3d)
        return fail("unsupported", fmt::format("{} has no 3D textures ({} is looked up at 3 coordinates)", m.name, n.name == "$noise" ? "noise" : "'" + n.name + "'"), id);
      by_key[key] = add_unit(std::move(u), "looked up at interpolated coordinates");
      continue;
    }
    // GeForce3: texture(name, dot(a, X), dot(b, X)).
    dag::NodeId ca, cb, xa, xb;
    bool ea = false, eb = false;
    if (m.texture_shaders && n.children.size() == 2 && dot_with_lookup(d, n.children[0], &ca, &xa, &ea) &&
        dot_with_lookup(d, n.children[1], &cb, &xb, &eb) && xa == xb && ea == eb && member[xa] &&
        std::all_of(d.node(xa).children.begin(), d.node(xa).children.end(), [&](dag::NodeId c) { return is_leaf(d.node(c)); })) {
      // X's own unit comes first; the two dot-product units follow it directly.
      const dag::Node& x = d.node(xa);
      int prev;
      const auto xkey = std::make_pair(x.name, x.children);
      if (auto it = by_key.find(xkey); it != by_key.end()) {
        prev = it->second;
      } else {
        TextureUnit u;
        const int dims = coordinate_count(d, x);
        u.op = dims <= 1 ? UnitOp::Texture1D : dims == 2 ? UnitOp::Texture2D : UnitOp::Texture3D;
        u.texture = x.name;
        u.coords = x.children;
        for (dag::NodeId c : x.children) u.coord_sizes.push_back(lang::is_triple(d.node(c).type) ? 3 : 1);
        u.nodes = {xa};
        prev = by_key[xkey] = add_unit(std::move(u), "read by the dot-product lookup that follows");
      }
      TextureUnit s;
      s.op = UnitOp::DotProduct;
      s.coords = {ca};
      s.coord_sizes = {3};
      s.previous = prev;
      s.expand_previous = ea;
      s.nodes = {n.children[0]};
      add_unit(std::move(s), ea ? "s = coordinates . expand(previous)" : "s = coordinates . previous");
      TextureUnit u;
      u.op = UnitOp::DotProductTexture2D;
      u.texture = n.name;
      u.coords = {cb};
      u.coord_sizes = {3};
      u.previous = prev;
      u.expand_previous = ea;
      u.nodes = {id};
      by_key[key] = add_unit(std::move(u), "t = coordinates . previous, then the 2D lookup at (s, t)");
      continue;
    }
    return fail("dependent-texture",
                fmt::format("texture '{}' is looked up at coordinates computed per fragment; {} looks up only at interpolated "
                            "coordinates{} (compute them per vertex, e.g. with pervertex())",
                            n.name == "$noise" ? "noise" : n.name, m.name,
                            m.texture_shaders ? " or through its texture-shader patterns" : ""),
                id);
  }
  if (static_cast<int>(h.units.size()) > m.texture_units) {
    // Where: the first unit over the limit that delivers a value (a cube map's dot products deliver none).
    dag::NodeId at = pass.root;
    for (std::size_t u = static_cast<std::size_t>(m.texture_units); u < h.units.size(); ++u)
      if (!h.units[u].nodes.empty()) {
        at = h.units[u].nodes.front();
        break;
      }
    return fail("texture-units", fmt::format("texture units: {} > {}", h.units.size(), m.texture_units), at);
  }
  return true;
}

}  // namespace passlab::combiners
