// SPDX-License-Identifier: GPL-3.0-or-later
// Executes combiner programs fragment by fragment, as the extension specifications define it.
#include "backends/combiners/simulate.h"

#include "backends/combiners/tables.h"

#include <algorithm>
#include <cmath>

namespace passlab::combiners {

float quantize(float x, float lo) {
  x = std::clamp(x, lo, 1.0f);
  return std::nearbyint(x * 255.0f) / 255.0f;
}

std::array<float, 3> decode_saved(const Rgba& rgba, Encoding e, bool scalar) {
  auto dec = [&](float y) { return e == Encoding::Biased ? 2.0f * std::max(0.0f, y) - 1.0f : y; };
  if (scalar) {
    const float a = dec(rgba[3]);
    return {a, a, a};
  }
  return {dec(rgba[0]), dec(rgba[1]), dec(rgba[2])};
}

namespace {

Rgba unit_result(const Program& p, const TextureUnit& u, std::size_t index, const std::vector<Rgba>& done, const FragmentSource& src,
                 const SimOptions& o) {
  auto q8 = [&](Rgba v) {
    if (o.hardware_precision)
      for (float& x : v) x = quantize(x, 0.0f);
    return v;
  };
  switch (u.op) {
    case UnitOp::Texture1D:
    case UnitOp::Texture2D:
    case UnitOp::Texture3D: {
      float c[3] = {0, 0, 0};
      const int want = u.op == UnitOp::Texture1D ? 1 : u.op == UnitOp::Texture2D ? 2 : 3;
      int n = 0;
      for (std::size_t k = 0; k < u.coords.size(); ++k) {
        const std::array<float, 3> v = src.value(u.coords[k]);
        const int comps = k < u.coord_sizes.size() ? u.coord_sizes[k] : 1;
        for (int i = 0; i < comps && n < 3; ++i) c[n++] = v[static_cast<std::size_t>(i)];
      }
      if (u.projective) {  // GL divides s, t and r by q
        const float q = src.value(u.q)[0];
        for (int i = 0; i < n; ++i) c[i] /= q;
      } else if (want == 2 && u.texture != "$noise") {
        if (const auto g = src.footprint(u)) return q8(src.sample_footprint(u.texture, c[0], c[1], *g));
      }
      return q8(src.sample(u.texture, want, c));
    }
    case UnitOp::CubeNormalize: {
      const std::array<float, 3> v = src.value(u.coords.at(0));
      const float len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      const float inv = len > 0 ? 1.0f / len : 0.0f;
      return q8({(v[0] * inv + 1) * 0.5f, (v[1] * inv + 1) * 0.5f, (v[2] * inv + 1) * 0.5f, 1.0f});
    }
    case UnitOp::Restore: return src.restored(u.restored);
    case UnitOp::PassThrough: return {0, 0, 0, 0};  // its register is loaded with the interpolants
    case UnitOp::DotProduct: return {0, 0, 0, 0};
    case UnitOp::CubeDot: return {0, 0, 0, 0};  // a dot product for the unit after: no colour
    case UnitOp::DotProductCubeMap: {
      // (dot_1of3, dot_2of3, dot_3of3) of the texture coordinates (1,0,0), (0,1,0), (0,0,1) with
      // expand(previous): the saved vector itself, normalised by the cube map.
      const Rgba& prev = done.at(static_cast<std::size_t>(u.previous));
      std::array<float, 3> v{};
      for (std::size_t k = 0; k < 3; ++k) v[k] = u.expand_previous ? 2.0f * prev[k] - 1.0f : prev[k];
      const float len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      const float inv = len > 0 ? 1.0f / len : 0.0f;
      return q8({(v[0] * inv + 1) * 0.5f, (v[1] * inv + 1) * 0.5f, (v[2] * inv + 1) * 0.5f, 1.0f});
    }
    case UnitOp::Table1D: return u.table ? table_lookup(*u.table, src.value(u.coords.at(0))[0], o.hardware_precision) : Rgba{0, 0, 0, 0};
    case UnitOp::DependentAR:
    case UnitOp::DependentGB: {
      if (!u.table) return {0, 0, 0, 0};
      const Rgba& prev = done.at(static_cast<std::size_t>(u.previous));
      return table_lookup(*u.table, prev[static_cast<std::size_t>(u.table->channel)], o.hardware_precision);
    }
    case UnitOp::DotProductTexture2D: {
      const Rgba& prev = done.at(static_cast<std::size_t>(u.previous));
      auto dot = [&](dag::NodeId id) {
        const std::array<float, 3> a = src.value(id);
        float s = 0;
        for (int k = 0; k < 3; ++k) s += a[static_cast<std::size_t>(k)] * (u.expand_previous ? 2.0f * prev[static_cast<std::size_t>(k)] - 1.0f : prev[static_cast<std::size_t>(k)]);
        return s;
      };
      const TextureUnit& first = p.units.at(index - 1);
      const float c[2] = {dot(first.coords.at(0)), dot(u.coords.at(0))};
      return q8(src.sample(u.texture, 2, c));
    }
  }
  return {0, 0, 0, 0};
}

}  // namespace

RegisterFile load_registers(const Program& p, const Machine& m, const FragmentSource& src, const SimOptions& o) {
  RegisterFile r(m.registers.size(), Rgba{0, 0, 0, 0});
  std::vector<Rgba> units(p.units.size(), Rgba{0, 0, 0, 0});
  for (std::size_t u = 0; u < p.units.size(); ++u) units[u] = unit_result(p, p.units[u], u, units, src, o);
  for (std::size_t u = 0; u < p.units.size(); ++u) {
    const int reg = m.texture_register(static_cast<int>(u));
    if (reg >= 0) r[static_cast<std::size_t>(reg)] = units[u];
  }
  // spare0.a starts as texture 0's alpha (NV_register_combiners Table 1).
  const int s0 = m.find_rc("spare0");
  if (s0 >= 0 && !p.units.empty()) r[static_cast<std::size_t>(s0)][3] = units[0][3];
  for (const PassInput& in : p.inputs) {
    if (in.reg < 0 || in.cls == InputClass::Texture) continue;
    Rgba& reg = r[static_cast<std::size_t>(in.reg)];
    if (in.cls == InputClass::Interpolant) {
      const bool colour = m.registers[static_cast<std::size_t>(in.reg)].texture_unit < 0;  // else a pass-through
      const std::optional<std::array<float, 3>> at_vertices = colour ? src.vertex_colour(in.node) : std::nullopt;
      std::array<float, 3> v = at_vertices ? *at_vertices : src.value(in.node);
      for (float& x : v) {
        if (in.biased && !at_vertices) x = (x + 1.0f) * 0.5f;
        x = o.hardware_precision ? quantize(x, 0.0f) : std::clamp(x, 0.0f, 1.0f);  // colours clamp to [0, 1]
      }
      if (in.in_blue) reg[2] = v[0];
      else if (in.triple) reg[0] = v[0], reg[1] = v[1], reg[2] = v[2];
      else reg[3] = v[0];
    }
  }
  for (std::size_t i = 0; i < m.registers.size(); ++i) {
    const std::string& rc = m.registers[i].rc;
    if (rc == "const0") r[i] = p.c0;
    else if (rc == "const1") r[i] = p.c1;
    else if (rc == "fog") r[i] = p.fog;
    if (o.hardware_precision && (rc == "const0" || rc == "const1" || rc == "fog"))
      for (float& x : r[i]) x = quantize(x, 0.0f);
  }
  return r;
}

namespace {

std::array<float, 3> read(const Variable& v, const RegisterFile& r, bool rgb_portion) {
  const Rgba& x = r[static_cast<std::size_t>(v.reg)];
  std::array<float, 3> out;
  if (rgb_portion) {
    out = v.usage == Usage::Rgb ? std::array<float, 3>{x[0], x[1], x[2]} : std::array<float, 3>{x[3], x[3], x[3]};
  } else {
    const float s = v.usage == Usage::Blue ? x[2] : x[3];
    out = {s, s, s};
  }
  for (float& c : out) c = apply(v.map, c);
  return out;
}

float q9(float x, bool on) {
  if (!on) return x;
  x = std::clamp(x, -1.0f, 1.0f);
  return std::nearbyint(x * 255.0f) / 255.0f;
}

}  // namespace

Rgba execute(const Program& p, const Machine& m, RegisterFile& regs, const SimOptions& o) {
  const bool hw = o.hardware_precision;
  const int s0 = m.find_rc("spare0");
  for (const Stage& st : p.stages) {
    RegisterFile in = regs;  // both portions read the stage's input registers
    if (st.c0 || st.c1)
      for (std::size_t i = 0; i < m.registers.size(); ++i) {
        const std::string& rc = m.registers[i].rc;
        if (rc == "const0" && st.c0) in[i] = *st.c0;
        if (rc == "const1" && st.c1) in[i] = *st.c1;
      }
    const bool select_cd = s0 >= 0 && in[static_cast<std::size_t>(s0)][3] >= 0.5f;
    for (int k = 0; k < 2; ++k) {
      const bool rgb = k == 0;
      const Portion& po = rgb ? st.rgb : st.alpha;
      if (!po.used()) continue;
      const auto a = read(po.a, in, rgb), b = read(po.b, in, rgb), c = read(po.c, in, rgb), d = read(po.d, in, rgb);
      std::array<float, 3> ab, cd, sum;
      const float abd = a[0] * b[0] + a[1] * b[1] + a[2] * b[2], cdd = c[0] * d[0] + c[1] * d[1] + c[2] * d[2];
      for (int i = 0; i < 3; ++i) {
        const auto ii = static_cast<std::size_t>(i);
        ab[ii] = std::clamp(po.ab_dot ? abd : a[ii] * b[ii], -2.0f, 2.0f);
        cd[ii] = std::clamp(po.cd_dot ? cdd : c[ii] * d[ii], -2.0f, 2.0f);
        sum[ii] = po.mux ? (select_cd ? cd[ii] : ab[ii]) : std::clamp(ab[ii] + cd[ii], -2.0f, 2.0f);
      }
      auto write = [&](int reg, const std::array<float, 3>& v) {
        if (reg < 0) return;
        Rgba& dst = regs[static_cast<std::size_t>(reg)];
        if (rgb) {
          for (int i = 0; i < 3; ++i) dst[static_cast<std::size_t>(i)] = q9(apply(po.out, v[static_cast<std::size_t>(i)]), hw);
        } else {
          dst[3] = q9(apply(po.out, v[0]), hw);
        }
      };
      write(po.ab_out, ab);
      write(po.cd_out, cd);
      write(po.sum_out, sum);
    }
  }
  // The final combiner: unsigned inputs, out.rgb = min(A B + (1 - A) C + D, 1), out.a = G; any of
  // A-D may read E x F.
  const FinalCombiner& f = p.final;
  std::array<float, 3> ef{};
  auto fin = [&](const Variable& v) {
    if (v.reg == kFinalProduct) return ef;
    const Rgba& x = regs[static_cast<std::size_t>(v.reg)];
    std::array<float, 3> out = v.usage == Usage::Rgb ? std::array<float, 3>{x[0], x[1], x[2]} : v.usage == Usage::Alpha ? std::array<float, 3>{x[3], x[3], x[3]}
                                                                                                                           : std::array<float, 3>{x[2], x[2], x[2]};
    for (float& c : out) c = apply(v.map == InMap::UnsignedInvert ? InMap::UnsignedInvert : InMap::UnsignedIdentity, c);
    return out;
  };
  if (f.e_times_f_used) {
    const auto E = fin(f.e), F = fin(f.f);
    for (std::size_t i = 0; i < 3; ++i) ef[i] = E[i] * F[i];
  }
  const auto A = fin(f.a), B = fin(f.b), C = fin(f.c), D = fin(f.d), G = fin(f.g);
  Rgba out;
  for (int i = 0; i < 3; ++i) {
    const auto ii = static_cast<std::size_t>(i);
    out[ii] = std::min(A[ii] * B[ii] + (1.0f - A[ii]) * C[ii] + D[ii], 1.0f);
  }
  out[3] = std::min(G[0], 1.0f);
  if (hw)
    for (float& x : out) x = quantize(x, 0.0f);
  return out;
}

Rgba simulate(const Program& p, const Machine& m, const FragmentSource& src, const SimOptions& o) {
  RegisterFile r = load_registers(p, m, src, o);
  return execute(p, m, r, o);
}

}  // namespace passlab::combiners
