// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 1 (Mark & Proudfoot §3, "extract texture-shader operations"): which texture unit does
// what. A lookup at interpolated coordinates is a plain 1D/2D/3D lookup; normalize() of an
// interpolated vector is a normalisation cube map; a value an earlier pass saved is read back
// from its texture at the fragment's window position. On GeForce3 (texture shaders) one dependent
// pattern more: texture(name, dot(a, X), dot(b, X)) with a and b interpolated vectors and X a
// lookup (or its expand()) is DOT_PRODUCT + DOT_PRODUCT_TEXTURE_2D reading X's unit. Anything
// else with computed coordinates is a dependent lookup the machine cannot do in one pass.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backends/combiners/stages.h"
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
  }
  return "?";
}

Encoding saved_encoding(const Interval& range) { return range.clamped().nonnegative() ? Encoding::Unsigned : Encoding::Biased; }

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
  for (dag::NodeId id : pass.members) {
    const dag::Node& n = d.node(id);
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
  if (static_cast<int>(h.units.size()) > m.texture_units)
    return fail("texture-units", fmt::format("texture units: {} > {}", h.units.size(), m.texture_units),
                h.units[static_cast<std::size_t>(m.texture_units)].nodes.front());
  return true;
}

}  // namespace passlab::combiners
