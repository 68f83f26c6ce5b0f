// SPDX-License-Identifier: GPL-3.0-or-later
// Writes compiled passes as nvparse programs and JSON.
#include "backends/combiners/listing.h"

#include "backends/combiners/tables.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace passlab::combiners {

namespace {

std::string num(float x) { return fmt::format("{:.4f}", x); }

std::string reg_name(int reg, const Machine& m) { return reg < 0 ? "discard" : m.registers[static_cast<std::size_t>(reg)].rc; }

std::string node_name(const dag::FragmentDag* d, dag::NodeId id) {
  if (!d || id >= d->size()) return fmt::format("n{}", id);
  const dag::Node& n = d->node(id);
  if (!n.name.empty()) return fmt::format("n{} {}", id, n.name == "$noise" ? "noise" : n.name);
  return fmt::format("n{}", id);
}

// The operand of a one-operand node (normalize's vector), or the node itself.
dag::NodeId d_child(const dag::FragmentDag* d, dag::NodeId id) {
  if (!d || id >= d->size() || d->node(id).children.empty()) return id;
  return d->node(id).children.front();
}

std::string usage_suffix(Usage u, bool rgb_portion) {
  if (u == Usage::Blue) return ".b";
  if (u == Usage::Alpha) return ".a";
  return rgb_portion ? ".rgb" : ".a";
}

std::string unit_comment(const TextureUnit& u, int index, const ListingContext& ctx) {
  std::string what;
  switch (u.op) {
    case UnitOp::Restore: what = fmt::format("the value of {} saved by an earlier pass{}", node_name(ctx.dag, u.restored),
                                             u.encoding == Encoding::Biased ? ", as (x+1)/2" : ""); break;
    case UnitOp::CubeNormalize: what = fmt::format("normalisation cube map of {}", u.coords.empty() ? "?" : node_name(ctx.dag, u.coords[0])); break;
    case UnitOp::PassThrough: what = "interpolated values passed through"; break;
    case UnitOp::DotProduct: what = fmt::format("s = {} . {}(tex{})", u.coords.empty() ? "?" : node_name(ctx.dag, u.coords[0]), u.expand_previous ? "expand" : "", u.previous); break;
    case UnitOp::DotProductTexture2D:
      what = fmt::format("t = {} . {}(tex{}); texture \"{}\" at (s, t)", u.coords.empty() ? "?" : node_name(ctx.dag, u.coords[0]),
                         u.expand_previous ? "expand" : "", u.previous, u.texture);
      break;
    case UnitOp::CubeDot:
      what = fmt::format("{} = ({}) . {}(tex{}), constant texture coordinates", u.component == 0 ? "s" : "t",
                         u.component == 0 ? "1, 0, 0" : "0, 1, 0", u.expand_previous ? "expand" : "", u.previous);
      break;
    case UnitOp::DotProductCubeMap:
      what = fmt::format("r = (0, 0, 1) . {}(tex{}); normalisation cube map at (s, t, r): normalize({})", u.expand_previous ? "expand" : "",
                         u.previous, node_name(ctx.dag, u.nodes.empty() ? 0 : d_child(ctx.dag, u.nodes.front())));
      break;
    case UnitOp::Table1D:
    case UnitOp::DependentAR:
    case UnitOp::DependentGB:
      if (u.table) {
        const FunctionTable& t = *u.table;
        what = fmt::format("{}, x = {}", describe(t), node_name(ctx.dag, t.argument));
        if (t.index == TableIndex::Coordinate) {
          const auto [scale, offset] = texture_matrix(t);
          what += fmt::format("; texture matrix s = {:.6g} x + {:.6g}", scale, offset);
        }
        break;
      }
      [[fallthrough]];
    default: {
      std::string coords;
      for (std::size_t k = 0; k < u.coords.size(); ++k) coords += (k ? ", " : "") + node_name(ctx.dag, u.coords[k]);
      what = fmt::format("{} at ({})", u.texture == "$noise" ? std::string("the noise lattice") : "texture \"" + u.texture + "\"", coords);
      if (u.projective) what += fmt::format(" / {}: projective, q = {} (glTexCoord4 with q; the unit divides)", node_name(ctx.dag, u.q), node_name(ctx.dag, u.q));
    }
  }
  return fmt::format("unit {}: {}", index, what);
}

}  // namespace

std::string rc_variable(const Variable& v, const Machine& m, bool rgb_portion) {
  const RegisterDesc& r = m.registers[static_cast<std::size_t>(v.reg)];
  const std::string reg = r.zero ? std::string("zero") : r.rc + usage_suffix(v.usage, rgb_portion);
  const char* pre = rc_prefix(v.map);
  const bool call = pre[0] != '\0' && pre[std::char_traits<char>::length(pre) - 1] == '(';
  return std::string(pre) + reg + (call ? ")" : "");
}

std::string rc_final_variable(const Variable& v, const Machine& m, bool rgb) {
  if (v.reg == kFinalProduct) return "final_product";
  const RegisterDesc& r = m.registers[static_cast<std::size_t>(v.reg)];
  const std::string reg = r.zero ? std::string("zero") : r.rc + usage_suffix(v.usage, rgb);
  return v.map == InMap::UnsignedInvert ? "unsigned_invert(" + reg + ")" : reg;
}

namespace {
bool reads_zero(const Variable& v, const Machine& m) {
  return v.reg >= 0 && m.registers[static_cast<std::size_t>(v.reg)].zero && v.map != InMap::UnsignedInvert;
}
}  // namespace

std::string rc_final_rgb(const FinalCombiner& f, const Machine& m) {
  auto var = [&](const Variable& v) { return rc_final_variable(v, m, true); };
  if (!f.arithmetic) return var(f.d);
  // nvparse's forms: lerp(A, B, C) [+ D], A * B [+ D], D.
  const std::string d = reads_zero(f.d, m) ? "" : " + " + var(f.d);
  if (reads_zero(f.a, m)) return reads_zero(f.c, m) ? var(f.d) : fmt::format("lerp(zero, zero, {}){}", var(f.c), d);
  if (reads_zero(f.c, m)) return fmt::format("{} * {}{}", var(f.a), var(f.b), d);
  return fmt::format("lerp({}, {}, {}){}", var(f.a), var(f.b), var(f.c), d);
}

std::string rc_final_product(const FinalCombiner& f, const Machine& m) {
  return rc_final_variable(f.e, m, true) + " * " + rc_final_variable(f.f, m, true);
}

std::string unit_summary(const TextureUnit& u) {
  switch (u.op) {
    case UnitOp::Restore: return "restore";
    case UnitOp::CubeNormalize: return "cube map (normalize)";
    case UnitOp::DotProductCubeMap: return fmt::format("dot_product_cube_map_3of3(tex{}): normalize", u.previous);
    case UnitOp::PassThrough: return "pass-through";
    case UnitOp::Table1D: case UnitOp::DependentAR: case UnitOp::DependentGB:
      if (u.table) {
        const FunctionTable& t = *u.table;
        const std::string how = u.op == UnitOp::Table1D ? "texture_1d" : fmt::format("{}(tex{})", to_string(u.op), u.previous);
        return fmt::format("{} table {}  [{} texels, error {:.1f}/255]", how, t.text, t.size, t.max_error * 255.0f);
      }
      return std::string(to_string(u.op));
    case UnitOp::CubeDot: return fmt::format("dot_product_cube_map_{}of3(tex{})", u.component + 1, u.previous);
    default: return std::string(to_string(u.op)) + (u.texture.empty() ? "" : " " + (u.texture == "$noise" ? std::string("noise") : u.texture));
  }
}

// "pass 1 of 2 on geforce3: 8 general combiner stages, 4 texture units": what the program is.
std::string summary(const Program& p, const Machine& m, const ListingContext& ctx) {
  std::string out = ctx.pass_count > 1 ? fmt::format("pass {} of {}", ctx.pass_index + 1, ctx.pass_count) : std::string("one pass");
  out += fmt::format(" on {}: {} general combiner stage{}, {} texture unit{}", m.name, p.stages.size(), p.stages.size() == 1 ? "" : "s", p.units.size(),
                     p.units.size() == 1 ? "" : "s");
  if (p.writes_intermediate)
    out += fmt::format("; writes its value to an intermediate texture{}", p.encoding == Encoding::Biased ? " as (x+1)/2" : "");
  return out;
}

std::string ts_program(const Program& p, const Machine& m, const ListingContext& ctx) {
  std::string out = "!!TS1.0\n// " + summary(p, m, ctx) + "\n";
  for (int u = 0; u < m.texture_units; ++u) {
    if (static_cast<std::size_t>(u) >= p.units.size()) {
      out += "nop();\n";
      continue;
    }
    const TextureUnit& t = p.units[static_cast<std::size_t>(u)];
    std::string op;
    switch (t.op) {
      case UnitOp::Texture1D: op = "texture_1d();"; break;
      case UnitOp::Texture2D: op = "texture_2d();"; break;
      case UnitOp::Texture3D: op = "texture_3d();"; break;
      case UnitOp::CubeNormalize: op = "texture_cube_map();"; break;
      case UnitOp::Restore: op = "texture_rectangle();"; break;
      case UnitOp::PassThrough: op = "pass_through();"; break;
      case UnitOp::DotProduct: op = fmt::format("dot_product_2d_1of2({}tex{}{});", t.expand_previous ? "expand(" : "", t.previous, t.expand_previous ? ")" : ""); break;
      case UnitOp::DotProductTexture2D: op = fmt::format("dot_product_2d_2of2({}tex{}{});", t.expand_previous ? "expand(" : "", t.previous, t.expand_previous ? ")" : ""); break;
      case UnitOp::Table1D: op = "texture_1d();"; break;
      case UnitOp::CubeDot:
        op = fmt::format("dot_product_cube_map_{}of3({}tex{}{});", t.component + 1, t.expand_previous ? "expand(" : "", t.previous, t.expand_previous ? ")" : "");
        break;
      case UnitOp::DotProductCubeMap: op = fmt::format("dot_product_cube_map_3of3({}tex{}{});", t.expand_previous ? "expand(" : "", t.previous, t.expand_previous ? ")" : ""); break;
      case UnitOp::DependentAR: op = fmt::format("dependent_ar(tex{});", t.previous); break;
      case UnitOp::DependentGB: op = fmt::format("dependent_gb(tex{});", t.previous); break;
    }
    out += fmt::format("{:<36}{}// {}\n", op, op.size() >= 36 ? " " : "", unit_comment(t, u, ctx));
  }
  return out;
}

std::string rc_program(const Program& p, const Machine& m, const ListingContext& ctx) {
  std::string out = "!!RC1.0\n// " + summary(p, m, ctx) + "\n";
  // What enters the pipeline, as comments.
  for (std::size_t u = 0; u < p.units.size(); ++u)
    if (!m.texture_shaders) out += "// " + unit_comment(p.units[u], static_cast<int>(u), ctx) + "\n";
  for (const PassInput& in : p.inputs) {
    if (in.reg < 0 || in.cls == InputClass::Texture) continue;
    const std::string where = m.registers[static_cast<std::size_t>(in.reg)].rc + (in.in_blue ? ".b" : in.triple ? ".rgb" : ".a");
    if (in.cls == InputClass::Interpolant)
      out += fmt::format("// {} = {}{}\n", where, node_name(ctx.dag, in.node), in.biased ? " as (x+1)/2" : "");
  }
  auto constant = [&](const char* name, const std::array<float, 4>& c) {
    return fmt::format("{} = ({}, {}, {}, {});\n", name, num(c[0]), num(c[1]), num(c[2]), num(c[3]));
  };
  bool c0 = false, c1 = false;
  for (const PassInput& in : p.inputs)
    if (in.cls == InputClass::Constant && in.stage == -1 && in.reg >= 0) {
      const std::string& rc = m.registers[static_cast<std::size_t>(in.reg)].rc;
      c0 = c0 || rc == "const0";
      c1 = c1 || rc == "const1";
    }
  if (c0) out += constant("const0", p.c0);
  if (c1) out += constant("const1", p.c1);
  // The fog colour is GL state, not the program's: say what to set.
  bool fog = false;
  for (const PassInput& in : p.inputs) fog = fog || (in.reg >= 0 && m.registers[static_cast<std::size_t>(in.reg)].rc == "fog");
  if (fog)
    out += fmt::format("// fog.rgb is the fog colour, which nvparse cannot set: before drawing, glFogfv(GL_FOG_COLOR, {{{}, {}, {}, {}}})\n", num(p.fog[0]),
                       num(p.fog[1]), num(p.fog[2]), num(p.fog[3]));
  for (std::size_t s = 0; s < p.stages.size(); ++s) {
    const Stage& st = p.stages[s];
    out += fmt::format("{{ // stage {}\n", s);
    if (st.c0) out += "  " + constant("const0", *st.c0);
    if (st.c1) out += "  " + constant("const1", *st.c1);
    for (int k = 0; k < 2; ++k) {
      const Portion& po = k == 0 ? st.rgb : st.alpha;
      const bool rgb = k == 0;
      if (!po.used()) continue;
      out += rgb ? "  rgb {\n" : "  alpha {\n";
      auto product = [&](const Variable& a, const Variable& b, bool dot, int dst) {
        const bool one = b.reg == m.zero_register() && b.map == InMap::UnsignedInvert && !dot;
        if (one) return fmt::format("    {} = {};\n", reg_name(dst, m), rc_variable(a, m, rgb));
        return fmt::format("    {} = {} {} {};\n", reg_name(dst, m), rc_variable(a, m, rgb), dot ? "." : "*", rc_variable(b, m, rgb));
      };
      const bool full = po.sum_out >= 0;
      if (full || po.ab_out >= 0) out += product(po.a, po.b, po.ab_dot, po.ab_out);
      if (full || po.cd_out >= 0) out += product(po.c, po.d, po.cd_dot, po.cd_out);
      if (full) out += fmt::format("    {} = {}();\n", reg_name(po.sum_out, m), po.mux ? "mux" : "sum");
      if (po.out != OutMap::None) out += fmt::format("    {}\n", rc_function(po.out));
      out += "  }\n";
    }
    out += "}\n";
  }
  if (p.final.e_times_f_used) out += fmt::format("final_product = {};\n", rc_final_product(p.final, m));
  out += fmt::format("out.rgb = {};\n", rc_final_rgb(p.final, m));
  out += fmt::format("out.a = {};\n", rc_final_variable(p.final.g, m, false));
  return out;
}

std::vector<ListingFile> listing_files(const Program& p, const Machine& m, const ListingContext& ctx) {
  std::vector<ListingFile> out;
  if (m.texture_shaders && !p.units.empty()) out.push_back({"ts", ts_program(p, m, ctx)});
  out.push_back({"rc", rc_program(p, m, ctx)});
  return out;
}

std::string listing(const Program& p, const Machine& m, const ListingContext& ctx) {
  std::string out;
  for (const ListingFile& f : listing_files(p, m, ctx)) out += (out.empty() ? "" : "\n") + f.text;
  return out;
}

nlohmann::ordered_json to_json(const Program& p, const Machine& m) {
  using J = nlohmann::ordered_json;
  auto var = [&](const Variable& v) {
    J j;
    j["register"] = v.reg == kFinalProduct ? std::string("E*F") : m.registers[static_cast<std::size_t>(v.reg)].name;
    j["usage"] = v.usage == Usage::Rgb ? "rgb" : v.usage == Usage::Alpha ? "alpha" : "blue";
    j["mapping"] = gl_name(v.map);
    return j;
  };
  auto out_reg = [&](int r) { return r < 0 ? J(nullptr) : J(m.registers[static_cast<std::size_t>(r)].name); };
  J j;
  j["machine"] = m.name;
  J units = J::array();
  for (const TextureUnit& u : p.units) {
    J x;
    x["op"] = to_string(u.op);
    if (!u.texture.empty()) x["texture"] = u.texture;
    J c = J::array();
    for (dag::NodeId id : u.coords) c.push_back(id);
    x["coords"] = c;
    if (u.previous >= 0) x["previous"] = u.previous, x["expand_previous"] = u.expand_previous;
    if (u.op == UnitOp::CubeDot) x["op"] = fmt::format("dot_product_cube_map_{}of3", u.component + 1);
    if (u.projective) x["projective"] = true, x["q"] = u.q;
    if (u.op == UnitOp::Restore) x["restored"] = u.restored, x["encoding"] = u.encoding == Encoding::Biased ? "biased" : "unsigned";
    if (u.table) {
      const FunctionTable& t = *u.table;
      x["op"] = u.op == UnitOp::Table1D ? "texture_1d_table" : to_string(u.op);
      J tj;
      tj["function"] = t.text;
      tj["node"] = t.node;
      tj["argument"] = t.argument;
      tj["index"] = t.index == TableIndex::Dependent ? "dependent" : "coordinate";
      if (t.index == TableIndex::Dependent) {
        tj["channel"] = std::string(1, "rgba"[t.channel]);
        tj["argument_encoding"] = t.argument_encoding == Encoding::Biased ? "biased" : "unsigned";
      } else {
        tj["domain"] = {t.domain.lo, t.domain.hi};
        tj["periodic"] = t.periodic;
      }
      tj["texels"] = t.size;
      tj["layout"] = table_layout(t);
      tj["wrap"] = t.periodic ? "repeat" : "clamp_to_edge";
      tj["filter"] = t.linear ? "linear" : "nearest";
      tj["encoding"] = t.encoding == Encoding::Biased ? "biased" : "unsigned";
      tj["max_error"] = t.max_error;
      x["table"] = tj;
    }
    units.push_back(x);
  }
  j["texture_units"] = units;
  J inputs = J::array();
  for (const PassInput& in : p.inputs) {
    if (in.reg < 0 && in.stage != -2) continue;
    J x;
    x["class"] = to_string(in.cls);
    x["node"] = in.node;
    if (in.reg >= 0) x["register"] = m.registers[static_cast<std::size_t>(in.reg)].name;
    x["part"] = in.in_blue ? "blue" : in.cls == InputClass::Texture ? "rgba" : in.triple ? "rgb" : "alpha";
    if (in.unit >= 0) x["unit"] = in.unit;
    if (in.biased) x["biased"] = true;
    if (in.negated) x["negated"] = true;
    if (in.cls == InputClass::Constant) x["value"] = in.triple ? J::array({in.value[0], in.value[1], in.value[2]}) : J(in.value[0]);
    inputs.push_back(x);
  }
  j["inputs"] = inputs;
  j["const0"] = J::array({p.c0[0], p.c0[1], p.c0[2], p.c0[3]});
  j["const1"] = J::array({p.c1[0], p.c1[1], p.c1[2], p.c1[3]});
  J stages = J::array();
  for (const Stage& st : p.stages) {
    J s;
    if (st.c0) s["const0"] = J::array({(*st.c0)[0], (*st.c0)[1], (*st.c0)[2], (*st.c0)[3]});
    if (st.c1) s["const1"] = J::array({(*st.c1)[0], (*st.c1)[1], (*st.c1)[2], (*st.c1)[3]});
    for (int k = 0; k < 2; ++k) {
      const Portion& po = k == 0 ? st.rgb : st.alpha;
      if (!po.used()) continue;
      J x;
      x["a"] = var(po.a);
      x["b"] = var(po.b);
      x["c"] = var(po.c);
      x["d"] = var(po.d);
      x["ab_dot"] = po.ab_dot;
      x["cd_dot"] = po.cd_dot;
      x["mux"] = po.mux;
      x["ab_out"] = out_reg(po.ab_out);
      x["cd_out"] = out_reg(po.cd_out);
      x["sum_out"] = out_reg(po.sum_out);
      x["out"] = gl_name(po.out);
      s[k == 0 ? "rgb" : "alpha"] = x;
    }
    stages.push_back(s);
  }
  j["stages"] = stages;
  J fin;
  fin["a"] = var(p.final.a);
  fin["b"] = var(p.final.b);
  fin["c"] = var(p.final.c);
  fin["d"] = var(p.final.d);
  if (p.final.e_times_f_used) {
    fin["e"] = var(p.final.e);
    fin["f"] = var(p.final.f);
  }
  fin["g"] = var(p.final.g);
  fin["rgb"] = rc_final_rgb(p.final, m);
  j["final"] = fin;
  if (p.writes_intermediate) j["saved"] = {{"encoding", p.encoding == Encoding::Biased ? "biased" : "unsigned"}, {"scalar", p.saved_scalar}};
  return j;
}

}  // namespace passlab::combiners
