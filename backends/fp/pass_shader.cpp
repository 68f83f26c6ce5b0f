#include "backends/fp/pass_shader.h"

#include <algorithm>
#include <cmath>
#include <bit>
#include <map>

#include <fmt/format.h>

namespace passlab::fp {

namespace {

constexpr int B = sim::kBatch;

}  // namespace

PassShader::PassShader(const TargetDag& t, const dag::FragmentDag& d, const ir::EvalContext& ctx) : t_(t), d_(d), ctx_(ctx) {
  std::vector<TNodeId> all;
  for (const TNode& n : t.nodes)
    if (t.is_operation(n.id)) all.push_back(n.id);
  build({all}, {t.root}, {});
}

PassShader::PassShader(const TargetDag& t, const dag::FragmentDag& d, const partition::Partition& part, const ir::EvalContext& ctx)
    : t_(t), d_(d), ctx_(ctx) {
  std::vector<std::vector<TNodeId>> members;
  std::vector<TNodeId> roots;
  for (const auto& p : part.passes) {
    members.push_back(p.members);
    roots.push_back(p.root);
  }
  build(members, roots, part.texture);
  buffers_ = part.intermediate_textures;
}

void PassShader::build(const std::vector<std::vector<TNodeId>>& members, const std::vector<TNodeId>& roots,
                       const std::map<TNodeId, int>& texture) {
  std::map<TNodeId, int> leaf_index, constant_index;
  // The channels of each texture fetch that some instruction reads (the root's value is read whole).
  std::vector<int> channels_read(t_.size(), 0);
  channels_read[t_.root] = 4;
  for (const TNode& n : t_.nodes)
    for (const Operand& o : n.src) {
      const int used = n.kind == TKind::Texture ? std::max(1, std::min(3, n.dims)) : (is_scalar(n.op) ? 1 : 4);
      for (int c = 0; c < used; ++c)
        channels_read[o.node] = std::max(channels_read[o.node], o.swizzle.lane[static_cast<std::size_t>(c)] + 1);
    }
  for (std::size_t p = 0; p < members.size(); ++p) {
    Program prog;
    std::vector<char> here(t_.size(), 0);
    for (TNodeId m : members[p]) here[m] = 1;
    // The last instruction reading each member: its register is free after that.
    std::map<TNodeId, std::size_t> last_use;
    for (std::size_t i = 0; i < members[p].size(); ++i)
      for (const Operand& o : t_.node(members[p][i]).src) last_use[o.node] = i;
    std::map<TNodeId, int> reg, restore_index;
    std::vector<int> free;
    auto source = [&](const Operand& o) {
      Source s;
      s.lane = o.swizzle.lane;
      s.sign = o.negate ? -1.0f : 1.0f;
      const TNode& n = t_.node(o.node);
      if (n.kind == TKind::Interpolant) {
        auto [it, added] = leaf_index.emplace(o.node, static_cast<int>(leaves_.size()));
        if (added) leaves_.push_back(o.node);
        s.from = From::Interpolant;
        s.index = it->second;
      } else if (n.kind == TKind::Constant) {
        auto [it, added] = constant_index.emplace(o.node, static_cast<int>(constants_.size() / (4 * B)));
        if (added)
          for (int c = 0; c < 4; ++c) constants_.insert(constants_.end(), B, n.value[static_cast<std::size_t>(c)]);
        s.from = From::Constant;
        s.index = it->second;
      } else if (here[o.node] && reg.count(o.node)) {
        s.from = From::Register;
        s.index = reg[o.node];
      } else {
        // Saved by an earlier pass (members are in operand order, so a member is never read
        // before it is computed).
        auto [it, added] = restore_index.emplace(o.node, static_cast<int>(prog.restores.size()));
        if (added) prog.restores.push_back(texture.count(o.node) ? texture.at(o.node) : 0);
        s.from = From::Restore;
        s.index = it->second;
      }
      return s;
    };
    for (std::size_t i = 0; i < members[p].size(); ++i) {
      const TNode& n = t_.node(members[p][i]);
      Instruction ins;
      ins.op = n.kind == TKind::Texture ? Opcode::TEX : n.op;
      ins.saturate = n.kind == TKind::Instruction && n.saturate;
      ins.node = &n;
      ins.channels = std::max(1, channels_read[n.id]);
      ins.sources = static_cast<int>(n.src.size());
      for (int k = 0; k < ins.sources && k < 3; ++k) ins.src[k] = source(n.src[static_cast<std::size_t>(k)]);
      // Operands whose last reader this is give their registers back before the result takes one.
      for (const Operand& o : n.src)
        if (reg.count(o.node) && last_use[o.node] == i && o.node != roots[p]) {
          free.push_back(reg[o.node]);
          reg.erase(o.node);
        }
      if (free.empty()) free.push_back(prog.registers++);
      ins.dst = free.back();
      free.pop_back();
      reg[n.id] = ins.dst;
      prog.code.push_back(ins);
    }
    prog.result = reg.count(roots[p]) ? reg[roots[p]] : 0;
    prog.saves = p + 1 < members.size() && texture.count(roots[p]) ? texture.at(roots[p]) : -1;
    programs_.push_back(std::move(prog));
  }
}

void PassShader::corner(const ir::FragmentInputs& in, float* out) const {
  const std::vector<ir::Value> vertex = dag::vertex_outputs(d_, in, ctx_);
  for (std::size_t k = 0; k < leaves_.size(); ++k) {
    const Vec4 v = input_value(t_.node(leaves_[k]), d_, in, vertex);
    std::copy(v.begin(), v.end(), out + k * 4);
  }
}

void PassShader::run(int pass, int n, const float* const* in, const float* const* restored, float* out,
                     std::vector<float>& scratch) const {
  execute(pass, n, in, restored, out, scratch);
}

// (Not virtual: a virtual function cannot have per-processor clones.)
PASSLAB_HOT_CLONES void PassShader::execute(int pass, int n, const float* const* in, const float* const* restored,
                                            float* out, std::vector<float>& scratch) const {
  const Program& prog = programs_[static_cast<std::size_t>(pass)];
  scratch.resize(static_cast<std::size_t>(std::max(1, prog.registers)) * 4 * B);
  float* regs = scratch.data();
  auto base = [&](const Source& s) -> const float* {
    switch (s.from) {
      case From::Register: return regs + static_cast<std::size_t>(s.index) * 4 * B;
      case From::Interpolant: return in[s.index];
      case From::Restore: return restored[s.index];
      case From::Constant: return constants_.data() + static_cast<std::size_t>(s.index) * 4 * B;
    }
    return regs;
  };
  for (const Instruction& ins : prog.code) {
    // Each source component's lane array, after the swizzle; the sign applies on reading.
    const float* a[4]{};
    const float* b[4]{};
    const float* c[4]{};
    float sa = 1, sb = 1, sc = 1;
    const float** srcs[3] = {a, b, c};
    float* signs[3] = {&sa, &sb, &sc};
    for (int k = 0; k < ins.sources; ++k) {
      const float* p = base(ins.src[k]);
      for (int comp = 0; comp < 4; ++comp) srcs[k][comp] = p + static_cast<std::size_t>(ins.src[k].lane[static_cast<std::size_t>(comp)]) * B;
      *signs[k] = ins.src[k].sign;
    }
    float* r[4];
    float* dst = regs + static_cast<std::size_t>(ins.dst) * 4 * B;
    for (int comp = 0; comp < 4; ++comp) r[comp] = dst + static_cast<std::size_t>(comp) * B;
    // The results go to a temporary first: the destination may be a source's register.
    alignas(64) float tmp[4][B];
    auto each = [&](auto fn) {
      for (int comp = 0; comp < 4; ++comp)
        for (int i = 0; i < n; ++i) tmp[comp][i] = fn(comp, i);
    };
    auto splat = [&](auto fn) {
      for (int i = 0; i < n; ++i) tmp[0][i] = fn(i);
      for (int comp = 1; comp < 4; ++comp) std::copy(tmp[0], tmp[0] + n, tmp[comp]);
    };
#define A(k, i) (sa * a[k][i])
#define Bv(k, i) (sb * b[k][i])
#define C(k, i) (sc * c[k][i])
    switch (ins.op) {
      case Opcode::MOV: each([&](int k, int i) { return A(k, i); }); break;
      case Opcode::ADD: each([&](int k, int i) { return A(k, i) + Bv(k, i); }); break;
      case Opcode::SUB: each([&](int k, int i) { return A(k, i) - Bv(k, i); }); break;
      case Opcode::MUL: each([&](int k, int i) { return A(k, i) * Bv(k, i); }); break;
      case Opcode::MAD: each([&](int k, int i) { return A(k, i) * Bv(k, i) + C(k, i); }); break;
      case Opcode::DP3: splat([&](int i) { return A(0, i) * Bv(0, i) + A(1, i) * Bv(1, i) + A(2, i) * Bv(2, i); }); break;
      case Opcode::DP4:
        splat([&](int i) { return A(0, i) * Bv(0, i) + A(1, i) * Bv(1, i) + A(2, i) * Bv(2, i) + A(3, i) * Bv(3, i); });
        break;
      case Opcode::DPH: splat([&](int i) { return A(0, i) * Bv(0, i) + A(1, i) * Bv(1, i) + A(2, i) * Bv(2, i) + Bv(3, i); }); break;
      case Opcode::MIN: each([&](int k, int i) { return min_num(A(k, i), Bv(k, i)); }); break;
      case Opcode::MAX: each([&](int k, int i) { return max_num(A(k, i), Bv(k, i)); }); break;
      case Opcode::SLT: each([&](int k, int i) { return A(k, i) < Bv(k, i) ? 1.0f : 0.0f; }); break;
      case Opcode::SGE: each([&](int k, int i) { return A(k, i) >= Bv(k, i) ? 1.0f : 0.0f; }); break;
      case Opcode::RCP: splat([&](int i) { return 1.0f / A(0, i); }); break;
      case Opcode::RSQ: splat([&](int i) { return 1.0f / std::sqrt(A(0, i)); }); break;
      case Opcode::EX2: splat([&](int i) { return std::exp2(A(0, i)); }); break;
      case Opcode::LG2: splat([&](int i) { return std::log2(A(0, i)); }); break;
      case Opcode::POW: splat([&](int i) { return std::pow(A(0, i), Bv(0, i)); }); break;
      case Opcode::FRC: each([&](int k, int i) { return A(k, i) - std::floor(A(k, i)); }); break;
      case Opcode::FLR: each([&](int k, int i) { return std::floor(A(k, i)); }); break;
      case Opcode::CMP: each([&](int k, int i) { return A(k, i) < 0 ? Bv(k, i) : C(k, i); }); break;
      case Opcode::LRP: each([&](int k, int i) { return A(k, i) * Bv(k, i) + (1 - A(k, i)) * C(k, i); }); break;
      case Opcode::XPD:
        for (int i = 0; i < n; ++i) {
          tmp[0][i] = A(1, i) * Bv(2, i) - A(2, i) * Bv(1, i);
          tmp[1][i] = A(2, i) * Bv(0, i) - A(0, i) * Bv(2, i);
          tmp[2][i] = A(0, i) * Bv(1, i) - A(1, i) * Bv(0, i);
          tmp[3][i] = 0;
        }
        break;
      case Opcode::SIN: splat([&](int i) { return std::sin(A(0, i)); }); break;
      case Opcode::COS: splat([&](int i) { return std::cos(A(0, i)); }); break;
      case Opcode::ABS: each([&](int k, int i) { return std::fabs(A(k, i)); }); break;
      case Opcode::TEX: {
        // As fp::sample: one, two or three coordinates; RGB from the image, alpha 1.
        const TNode& t = *ins.node;
        const int dims = t.dims == 1 || t.dims == 2 ? t.dims : 3;
        if (t.name == "$noise") {
          alignas(64) float coords[3][B];
          for (int k = 0; k < dims; ++k)
            for (int i = 0; i < n; ++i) coords[k][i] = A(k, i);
          const float* axes[3] = {coords[0], coords[1], coords[2]};
          float* planes[4] = {tmp[0], tmp[1], tmp[2], tmp[3]};
          ir::sample_noise_batch(dims, n, axes, ins.channels, planes);
          std::fill(tmp[3], tmp[3] + n, 1.0f);
          break;
        }
        const ir::ProceduralTextures fallback;
        for (int i = 0; i < n; ++i) {
          const float coords[3] = {A(0, i), A(1, i), A(2, i)};
          std::array<float, 4> rgba;
          if (ctx_.textures) rgba = ctx_.textures->sample(t.name, dims, coords);
          else rgba = fallback.sample(t.name, dims, coords);
          tmp[0][i] = rgba[0];
          tmp[1][i] = rgba[1];
          tmp[2][i] = rgba[2];
          tmp[3][i] = 1.0f;
        }
        break;
      }
    }
#undef A
#undef Bv
#undef C
    if (ins.saturate)
      for (int comp = 0; comp < 4; ++comp)
        for (int i = 0; i < n; ++i) tmp[comp][i] = saturate(tmp[comp][i]);
    for (int comp = 0; comp < 4; ++comp) std::copy(tmp[comp], tmp[comp] + n, r[comp]);
  }
  const float* result = regs + static_cast<std::size_t>(prog.result) * 4 * B;
  for (int comp = 0; comp < 4; ++comp) std::copy(result + comp * B, result + comp * B + n, out + comp * B);
}

std::string PassShader::glsl(int pass, const std::function<bool(const std::string&)>& has_image,
                             std::vector<std::string>* images) const {
  const Program& prog = programs_[static_cast<std::size_t>(pass)];
  auto exact = [](float x) { return fmt::format("uintBitsToFloat({}u)", std::bit_cast<std::uint32_t>(x)); };
  auto operand = [&](const Source& s) {
    std::string base;
    switch (s.from) {
      case From::Register: base = fmt::format("r{}", s.index); break;
      case From::Interpolant: base = fmt::format("v{}", s.index); break;
      case From::Restore: base = fmt::format("texelFetch(restore{}, ivec2(gl_FragCoord.xy), 0)", s.index); break;
      case From::Constant: {
        const float* c = constants_.data() + static_cast<std::size_t>(s.index) * 4 * B;
        base = fmt::format("vec4({}, {}, {}, {})", exact(c[0]), exact(c[B]), exact(c[2 * B]), exact(c[3 * B]));
        break;
      }
    }
    std::string swizzle = ".";
    for (auto l : s.lane) swizzle += "xyzw"[l];
    return fmt::format("({}{}{})", s.sign < 0 ? "-" : "", base, swizzle == ".xyzw" ? "" : swizzle);
  };
  std::string body, procedurals, uniforms;
  std::map<std::string, std::string> texture_call;  // name -> GLSL function or sampler
  int registers = 0;
  for (const Instruction& ins : prog.code) {
    registers = std::max(registers, ins.dst + 1);
    std::string a = ins.sources > 0 ? operand(ins.src[0]) : "", b = ins.sources > 1 ? operand(ins.src[1]) : "",
                c = ins.sources > 2 ? operand(ins.src[2]) : "";
    std::string e;
    switch (ins.op) {
      case Opcode::MOV: e = a; break;
      case Opcode::ADD: e = a + " + " + b; break;
      case Opcode::SUB: e = a + " - " + b; break;
      case Opcode::MUL: e = a + " * " + b; break;
      case Opcode::MAD: e = a + " * " + b + " + " + c; break;
      case Opcode::DP3: e = fmt::format("vec4(dot({}.xyz, {}.xyz))", a, b); break;
      case Opcode::DP4: e = fmt::format("vec4(dot({}, {}))", a, b); break;
      case Opcode::DPH: e = fmt::format("vec4(dot({}.xyz, {}.xyz) + {}.w)", a, b, b); break;
      case Opcode::MIN: e = fmt::format("min({}, {})", a, b); break;
      case Opcode::MAX: e = fmt::format("max({}, {})", a, b); break;
      case Opcode::SLT: e = fmt::format("vec4(lessThan({}, {}))", a, b); break;
      case Opcode::SGE: e = fmt::format("vec4(greaterThanEqual({}, {}))", a, b); break;
      case Opcode::RCP: e = fmt::format("vec4(1.0 / {}.x)", a); break;
      case Opcode::RSQ: e = fmt::format("vec4(inversesqrt({}.x))", a); break;
      case Opcode::EX2: e = fmt::format("vec4(exp2({}.x))", a); break;
      case Opcode::LG2: e = fmt::format("vec4(log2({}.x))", a); break;
      case Opcode::POW: e = fmt::format("vec4(pow({}.x, {}.x))", a, b); break;
      case Opcode::FRC: e = fmt::format("({0} - floor({0}))", a); break;
      case Opcode::FLR: e = fmt::format("floor({})", a); break;
      case Opcode::CMP: e = fmt::format("mix({}, {}, lessThan({}, vec4(0.0)))", c, b, a); break;
      case Opcode::LRP: e = fmt::format("({0} * {1} + (1.0 - {0}) * {2})", a, b, c); break;
      case Opcode::XPD: e = fmt::format("vec4(cross({}.xyz, {}.xyz), 0.0)", a, b); break;
      case Opcode::SIN: e = fmt::format("vec4(sin({}.x))", a); break;
      case Opcode::COS: e = fmt::format("vec4(cos({}.x))", a); break;
      case Opcode::ABS: e = fmt::format("abs({})", a); break;
      case Opcode::TEX: {
        const TNode& t = *ins.node;
        const int dims = t.dims == 1 || t.dims == 2 ? t.dims : 3;
        const std::string coord =
            dims == 1 ? fmt::format("vec3({}.x, 0.0, 0.0)", a) : dims == 2 ? fmt::format("vec3({}.xy, 0.0)", a) : fmt::format("{}.xyz", a);
        if (t.name == "$noise") {
          // Lattice point i is texel i, whose centre is (i + 0.5) / 32.
          e = fmt::format("vec4(texture(noise_lattice, ({} + 0.5) / 32.0).rgb, 1.0)", coord);
          break;
        }
        auto [it, added] = texture_call.emplace(t.name, "");
        if (added) {
          if (has_image && has_image(t.name)) {
            it->second = fmt::format("image{}", images->size());
            images->push_back(t.name);
            uniforms += fmt::format("uniform sampler2D {};\n", it->second);
          } else {
            it->second = fmt::format("procedural{}", texture_call.size() - 1);
            procedurals += fmt::format("vec4 {}(vec2 st) {{  // \"{}\"\n  return vec4(", it->second, t.name);
            for (int ch = 0; ch < 3; ++ch) {
              const ir::ProceduralBand band = ir::procedural_band(t.name, ch);
              procedurals += fmt::format("0.5 + 0.5 * sin(6.2831853 * ({} * st.x + {} * st.y) + {}), ", exact(band.fs),
                                         exact(band.ft), exact(band.phase));
            }
            procedurals += "1.0);\n}\n";
          }
        }
        e = it->second.starts_with("image") ? fmt::format("vec4(texture({}, {}.xy).rgb, 1.0)", it->second, coord)
                                            : fmt::format("{}({}.xy)", it->second, coord);
        break;
      }
    }
    if (ins.saturate) e = fmt::format("clamp({}, 0.0, 1.0)", e);
    body += fmt::format("  r{} = {};\n", ins.dst, e);
  }
  std::string out = "#version 330 core\n";
  out += fmt::format("// Pass {} of {}: {} instructions.\n", pass + 1, programs_.size(), prog.code.size());
  for (std::size_t k = 0; k < leaves_.size(); ++k) out += fmt::format("in vec4 v{};\n", k);
  for (std::size_t r = 0; r < prog.restores.size(); ++r) out += fmt::format("uniform sampler2D restore{};\n", r);
  out += "uniform sampler3D noise_lattice;\n" + uniforms;
  out += "layout(location = 0) out vec4 result;\n" + procedurals;
  out += "void main() {\n";
  if (registers > 0) {
    out += "  vec4";
    for (int r = 0; r < registers; ++r) out += fmt::format("{} r{}", r ? "," : "", r);
    out += ";\n";
  }
  out += body;
  out += fmt::format("  result = r{};\n}}\n", prog.result);
  return out;
}

}  // namespace passlab::fp
