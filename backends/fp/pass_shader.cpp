// SPDX-License-Identifier: GPL-3.0-or-later
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
  // A shader of several outputs: one pass writing them all, the others than the colour each to a
  // buffer of its own.
  std::map<TNodeId, int> aov_buffers;
  for (TNodeId o : t.outputs)
    if (o != t.root) aov_buffers.emplace(o, static_cast<int>(aov_buffers.size()));
  build({all}, {t.outputs.empty() ? std::vector<TNodeId>{t.root} : t.outputs}, aov_buffers);
  buffers_ = static_cast<int>(aov_buffers.size());
}

PassShader::PassShader(const TargetDag& t, const dag::FragmentDag& d, const partition::Partition& part, const ir::EvalContext& ctx)
    : t_(t), d_(d), ctx_(ctx) {
  std::vector<std::vector<TNodeId>> members, outputs;
  for (const auto& p : part.passes) {
    members.push_back(p.members);
    outputs.push_back(p.outputs.empty() ? std::vector<TNodeId>{p.root} : p.outputs);
  }
  build(members, outputs, part.texture);
  buffers_ = part.intermediate_textures;
}

namespace {

// The components of operand k (before its swizzle) that node n reads when `mask` of its own
// components are needed; exactly what execute reads.
unsigned operand_components(const TNode& n, std::size_t k, unsigned mask) {
  if (!mask) return 0;
  if (n.kind == TKind::Loop) return 0xF;  // its body may read any lane of an invariant
  if (n.kind == TKind::Texture) return (1u << (n.dims == 1 || n.dims == 2 ? n.dims : 3)) - 1;
  switch (n.op) {
    case Opcode::DP3: return 0x7;
    case Opcode::DP4: return 0xF;
    case Opcode::DPH: return k == 0 ? 0x7 : 0xF;
    case Opcode::XPD: {
      unsigned uses = 0;
      for (int c = 0; c < 3; ++c)
        if (mask & (1u << c)) uses |= (1u << ((c + 1) % 3)) | (1u << ((c + 2) % 3));
      return uses;
    }
    default: return is_scalar(n.op) ? 0x1 : mask;
  }
}

// The same, after the operand's swizzle: the components of the operand's value that are read.
unsigned lanes_read(const TNode& n, std::size_t k, unsigned mask) {
  const unsigned uses = operand_components(n, k, mask);
  unsigned lanes = 0;
  for (int c = 0; c < 4; ++c)
    if (uses & (1u << c)) lanes |= 1u << n.src[k].swizzle.lane[static_cast<std::size_t>(c)];
  return lanes;
}

}  // namespace

std::vector<std::uint8_t> PassShader::components_needed(const std::vector<TNodeId>& roots) const {
  // Backwards over the nodes (operands come before their readers): each reader asks its operands
  // for the components its own needed ones read. Pass roots are kept whole.
  std::vector<std::uint8_t> need(t_.size(), 0);
  need[t_.root] = 0xF;
  for (TNodeId r : roots) need[r] = 0xF;
  for (std::size_t id = t_.size(); id-- > 0;) {
    const TNode& n = t_.node(static_cast<TNodeId>(id));
    if (!t_.is_operation(n.id)) continue;
    for (std::size_t k = 0; k < n.src.size(); ++k) need[n.src[k].node] |= static_cast<std::uint8_t>(lanes_read(n, k, need[id]));
  }
  return need;
}

std::pair<std::vector<TNodeId>, std::vector<TNodeId>> PassShader::quad_cone(TNodeId x, const std::vector<char>& member) const {
  std::pair<std::vector<TNodeId>, std::vector<TNodeId>> r;
  std::vector<TNodeId> stack{x};
  std::vector<char> seen(t_.size(), 0);
  while (!stack.empty()) {
    const TNodeId n = stack.back();
    stack.pop_back();
    if (seen[n] || !member[n]) continue;
    seen[n] = 1;
    const TNode& node = t_.node(n);
    if (node.kind == TKind::Instruction && is_quad_difference(node.op)) {
      r.second.push_back(n);
      continue;
    }
    r.first.push_back(n);
    for (const Operand& o : node.src) stack.push_back(o.node);
  }
  std::sort(r.first.begin(), r.first.end());  // ids are in operand order
  return r;
}

void PassShader::build(const std::vector<std::vector<TNodeId>>& members, const std::vector<std::vector<TNodeId>>& outputs,
                       const std::map<TNodeId, int>& texture) {
  std::map<TNodeId, int> leaf_index, constant_index;
  std::vector<TNodeId> roots;
  for (const auto& o : outputs) roots.insert(roots.end(), o.begin(), o.end());
  const std::vector<std::uint8_t> needed = components_needed(roots);
  for (std::size_t p = 0; p < members.size(); ++p) {
    Program prog;
    std::vector<char> here(t_.size(), 0);
    for (TNodeId m : members[p]) here[m] = 1;
    // The last instruction reading each member: its register is free after that.
    std::map<TNodeId, std::size_t> last_use;
    for (std::size_t i = 0; i < members[p].size(); ++i)
      for (const Operand& o : t_.node(members[p][i]).src) last_use[o.node] = i;
    // A DDX or DDY reads, besides its operand, the differences under it (the quad partner's are
    // the fragment's own; see partner_copy).
    for (std::size_t i = 0; i < members[p].size(); ++i) {
      const TNode& n = t_.node(members[p][i]);
      if (n.kind != TKind::Instruction || !is_quad_difference(n.op)) continue;
      for (TNodeId d : quad_cone(n.src[0].node, here).second) last_use[d] = std::max(last_use[d], i);
    }
    std::map<TNodeId, int> reg, restore_index;
    std::vector<int> free;
    auto source = [&](const Operand& o) {
      Source s;
      s.lane = o.swizzle.lane;
      s.sign = o.negate ? -1.0f : 1.0f;
      const TNode& n = t_.node(o.node);
      if (n.kind == TKind::Interpolant) {
        auto [it, added] = leaf_index.emplace(o.node, static_cast<int>(leaves_.size()));
        if (added) {
          leaves_.push_back(o.node);
          leaf_difference_.push_back(n.difference);
        }
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
    // An instruction for node n, its operands' sources given by `source_of`.
    auto instruction = [&](const TNode& n, auto&& source_of) {
      Instruction ins;
      ins.op = n.kind == TKind::Texture ? Opcode::TEX : n.op;
      ins.saturate = n.kind == TKind::Instruction && n.saturate;
      ins.node = &n;
      ins.mask = needed[n.id];
      ins.channels = std::bit_width(static_cast<unsigned>(needed[n.id]));
      ins.sources = static_cast<int>(n.src.size());
      if (n.kind == TKind::Texture && n.name != "$noise" && ctx_.textures && ctx_.textures->has_image(n.name)) {
        // An image: its lookups need their coordinates' screen-space derivatives (given as an
        // interpolant after the others; see corner()).
        auto it = std::find(grad_nodes_.begin(), grad_nodes_.end(), n.id);
        ins.grad = static_cast<int>(it - grad_nodes_.begin());
        if (it == grad_nodes_.end()) grad_nodes_.push_back(n.id);
      }
      if (n.kind == TKind::Loop) {
        ins.sources = 0;
        for (std::size_t k = 0; k < n.src.size(); ++k) {
          ins.operands.push_back(source_of(n.src[k]));
          if (ins.operands.back().from == From::Interpolant) prog.reads_interpolant(ins.operands.back().index, lanes_read(n, k, ins.mask));
        }
        return ins;
      }
      for (int k = 0; k < ins.sources && k < 3; ++k) {
        ins.src[k] = source_of(n.src[static_cast<std::size_t>(k)]);
        if (ins.src[k].from == From::Interpolant) {
          prog.reads_interpolant(ins.src[k].index, lanes_read(n, static_cast<std::size_t>(k), ins.mask));
        }
      }
      return ins;
    };
    // The quad partner's value of member x (dir 3: right or left, 4: below or above), as it
    // computes it in lockstep: x's cone again over the partner's interpolants (a difference
    // interpolant, a DDX or DDY under x, a constant or a restore being the fragment's own), into
    // registers of its own; the register holding it. The simulator's way of running the other
    // pixel: the pass itself is one instruction (see glsl()).
    auto partner_copy = [&](TNodeId x, std::uint8_t dir) {
      std::map<TNodeId, int> there;  // cone member -> the register of its partner value
      auto partner_source = [&](const Operand& o) {
        const TNode& on = t_.node(o.node);
        if (auto it = there.find(o.node); it != there.end()) {
          Source s{From::Register, it->second, o.swizzle.lane, o.negate ? -1.0f : 1.0f};
          return s;
        }
        if (on.kind == TKind::Interpolant && on.difference == 0) {
          Source s{From::Interpolant, 0, o.swizzle.lane, o.negate ? -1.0f : 1.0f};
          auto [it, added] = partner_index_.emplace(std::make_pair(o.node, dir), static_cast<int>(leaves_.size()));
          if (added) {
            leaves_.push_back(o.node);
            leaf_difference_.push_back(dir);
          }
          s.index = it->second;
          return s;
        }
        return source(o);
      };
      for (TNodeId c : quad_cone(x, here).first) {
        Instruction pi = instruction(t_.node(c), partner_source);
        pi.dst = prog.registers++;
        pi.shadow = true;
        there[c] = pi.dst;
        prog.code.push_back(pi);
      }
      return there.count(x) ? there[x] : reg.at(x);
    };
    for (std::size_t i = 0; i < members[p].size(); ++i) {
      const TNode& n = t_.node(members[p][i]);
      Instruction ins = instruction(n, source);
      if (n.kind == TKind::Instruction && is_quad_difference(n.op)) {
        // The operand here, then as the quad partner computes it.
        ins.src[1] = ins.src[0];
        ins.sources = 2;
        const TNodeId x = n.src[0].node;
        if (ins.src[0].from == From::Register) ins.src[1].index = partner_copy(x, n.op == Opcode::DDX ? 3 : 4);
      }
      // The result takes a register no operand is in (so it can be written while they are read);
      // operands whose last reader this is give theirs back afterwards.
      if (free.empty()) free.push_back(prog.registers++);
      ins.dst = free.back();
      free.pop_back();
      for (const Operand& o : n.src)
        if (reg.count(o.node) && last_use[o.node] == i &&
            std::find(outputs[p].begin(), outputs[p].end(), o.node) == outputs[p].end()) {
          free.push_back(reg[o.node]);
          reg.erase(o.node);
        }
      reg[n.id] = ins.dst;
      prog.code.push_back(ins);
    }
    for (TNodeId o : outputs[p]) {
      prog.results.push_back(reg.count(o) ? reg[o] : 0);
      const bool colour = p + 1 == members.size() && o == t_.root;  // the last pass's colour
      prog.saves.push_back(!colour && texture.count(o) ? texture.at(o) : -1);
    }
    programs_.push_back(std::move(prog));
  }
  // The nodes the image lookups' coordinates depend on, in operand order.
  std::vector<char> in_cone(t_.size(), 0);
  std::vector<TNodeId> stack;
  for (TNodeId g : grad_nodes_) stack.push_back(t_.node(g).src[0].node);
  while (!stack.empty()) {
    const TNodeId id = stack.back();
    stack.pop_back();
    if (in_cone[id]) continue;
    in_cone[id] = 1;
    for (const Operand& o : t_.node(id).src) stack.push_back(o.node);
  }
  for (TNodeId id = 0; id < t_.size(); ++id)
    if (in_cone[id]) grad_cone_.push_back(id);
  // The derivative interpolants come after the value ones, whose number is known only now.
  for (Program& prog : programs_)
    for (Instruction& ins : prog.code)
      if (ins.grad >= 0) {
        ins.grad += static_cast<int>(leaves_.size());
        if (ins.mask) prog.reads_interpolant(ins.grad, 0xF);
      }
}

void PassShader::corner(const ir::FragmentInputs& in, float* out) const {
  const std::vector<ir::Value> vertex = dag::vertex_outputs(d_, in, ctx_);
  for (std::size_t k = 0; k < leaves_.size(); ++k) {
    const Vec4 v = input_value(t_.node(leaves_[k]), d_, in, vertex);
    std::copy(v.begin(), v.end(), out + k * 4);
  }
  if (grad_nodes_.empty()) return;
  // An image lookup's coordinates at the corner, (s, t, s, t): the renderer turns them into
  // their derivatives along x (xy) and y (zw) across the triangle. They come from the whole
  // program, so every partition sees the same ones.
  std::vector<Vec4> values(t_.size());
  for (TNodeId id : grad_cone_) {  // as evaluate_all does, for the nodes the coordinates need
    const TNode& n = t_.node(id);
    switch (n.kind) {
      case TKind::Constant:
      case TKind::Interpolant: values[id] = input_value(n, d_, in, vertex); break;
      case TKind::Texture: values[id] = sample(n, read(n.src[0], values), ctx_); break;
      case TKind::Instruction: values[id] = fp::execute(n, [&](const Operand& o) { return read(o, values); }); break;
      case TKind::Loop: values[id] = loop_value(n, [&](const Operand& o) { return read(o, values); }, ctx_); break;
      case TKind::LoopValue: break;  // only in a loop's body
    }
  }
  for (std::size_t j = 0; j < grad_nodes_.size(); ++j) {
    const TNode& tex = t_.node(grad_nodes_[j]);
    const Vec4 c = read(tex.src[0], values);
    const float s = c[0], t = tex.dims >= 2 ? c[1] : 0.0f;
    float* o = out + (leaves_.size() + j) * 4;
    o[0] = s;
    o[1] = t;
    o[2] = s;
    o[3] = t;
  }
}

void PassShader::run(int pass, int n, const float* const* in, const float* const* restored, float* out,
                     std::vector<float>& scratch) const {
  execute(pass, n, in, restored, out, scratch);
}

namespace {

// Lanes are computed in groups of 8, a vector register's worth; batch arrays are kBatch wide, so
// the lanes past n that the last group covers exist, and what they hold is never used.
constexpr int G = 8;
static_assert(B % G == 0);

// d[i] = f(operands' lane i, each times its sign), over the lanes. The operands are plain
// pointers and values, so the compiler sees that d aliases nothing and vectorizes.
template <class F>
inline void map1(float* __restrict d, const float* __restrict x, float sx, int lanes, F f) {
  for (int i0 = 0; i0 < lanes; i0 += G)
    for (int j = i0; j < i0 + G; ++j) d[j] = f(sx * x[j]);
}
template <class F>
inline void map2(float* __restrict d, const float* __restrict x, float sx, const float* __restrict y, float sy, int lanes, F f) {
  for (int i0 = 0; i0 < lanes; i0 += G)
    for (int j = i0; j < i0 + G; ++j) d[j] = f(sx * x[j], sy * y[j]);
}
template <class F>
inline void map3(float* __restrict d, const float* __restrict x, float sx, const float* __restrict y, float sy,
                 const float* __restrict z, float sz, int lanes, F f) {
  for (int i0 = 0; i0 < lanes; i0 += G)
    for (int j = i0; j < i0 + G; ++j) d[j] = f(sx * x[j], sy * y[j], sz * z[j]);
}
// d[i] = f(d[i], operands' lane i): accumulating in place.
template <class F>
inline void fold1(float* __restrict d, const float* __restrict x, float sx, int lanes, F f) {
  for (int i0 = 0; i0 < lanes; i0 += G)
    for (int j = i0; j < i0 + G; ++j) d[j] = f(d[j], sx * x[j]);
}
template <class F>
inline void fold2(float* __restrict d, const float* __restrict x, float sx, const float* __restrict y, float sy, int lanes, F f) {
  for (int i0 = 0; i0 < lanes; i0 += G)
    for (int j = i0; j < i0 + G; ++j) d[j] = f(d[j], sx * x[j], sy * y[j]);
}

}  // namespace

// (Not virtual: a virtual function cannot have per-processor clones.)
// A TEX instruction for a batch: the noise lattice, an image with the interpolated derivatives
// (batched, or one at a time when alpha is read), or an image or stand-in read point by point.
void PassShader::sample_texture(const Instruction& ins, int n, int lanes, const float* const* in, const float* const (&src)[3][4], float sa,
                                float* const (&r)[4]) const {
  const unsigned mask = ins.mask;
  // As fp::sample: one, two or three coordinates; RGB and alpha from the image (alpha only
  // when a reader uses it: texture("name"[3])).
  const TNode& t = *ins.node;
  const int dims = t.dims == 1 || t.dims == 2 ? t.dims : 3;
  if (t.name == "$noise") {
    alignas(64) float coords[3][B];
    for (int k = 0; k < dims; ++k) map1(coords[k], src[0][k], sa, lanes, [](float x) { return x; });
    const float* axes[3] = {coords[0], coords[1], coords[2]};
    ir::sample_noise_batch(dims, lanes, axes, ins.channels, r);
  } else if (ins.grad >= 0 && (mask & 0x8)) {
    // Alpha is read: whole RGBA lookups, one at a time.
    for (int i = 0; i < n; ++i) {
      const float* g = in[ins.grad];
      const float grad[4] = {g[i], g[B + i], g[2 * B + i], g[3 * B + i]};
      const std::array<float, 4> rgba =
          ctx_.textures->sample_grad(t.name, sa * src[0][0][i], dims > 1 ? sa * src[0][1][i] : 0.0f, grad);
      for (int comp = 0; comp < 4; ++comp) r[comp][i] = rgba[static_cast<std::size_t>(comp)];
    }
  } else if (ins.grad >= 0) {
    alignas(64) float st[2][B];
    map1(st[0], src[0][0], sa, lanes, [](float x) { return x; });
    if (dims >= 2) map1(st[1], src[0][1], sa, lanes, [](float x) { return x; });
    else std::fill(st[1], st[1] + lanes, 0.0f);
    const float* g = in[ins.grad];
    const float* grad[4] = {g, g + B, g + 2 * B, g + 3 * B};
    ctx_.textures->sample_grad_batch(t.name, n, st[0], st[1], grad, r);
  } else {
    const ir::ProceduralTextures fallback;
    for (int i = 0; i < n; ++i) {
      // (Components past `dims` are not computed; the sampler gets zeros there.)
      const float coords[3] = {sa * src[0][0][i], dims > 1 ? sa * src[0][1][i] : 0.0f, dims > 2 ? sa * src[0][2][i] : 0.0f};
      std::array<float, 4> rgba;
      if (ctx_.textures) rgba = ctx_.textures->sample(t.name, dims, coords);
      else rgba = fallback.sample(t.name, dims, coords);
      for (int comp = 0; comp < 4; ++comp) r[comp][i] = rgba[static_cast<std::size_t>(comp)];
    }
  }
}

PASSLAB_HOT_CLONES void PassShader::execute(int pass, int n, const float* const* in, const float* const* restored,
                                            float* out, std::vector<float>& scratch) const {
  const Program& prog = programs_[static_cast<std::size_t>(pass)];
  scratch.resize(static_cast<std::size_t>(std::max(1, prog.registers)) * 4 * B);
  float* regs = scratch.data();
  const int lanes = (n + G - 1) / G * G;
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
    if (!ins.mask) continue;  // a value no reader uses (its inputs may not even be given)
    if (ins.node->kind == TKind::Loop) {
      // A dynamic loop runs as long as each fragment's test says: fragment by fragment.
      float* dst = regs + static_cast<std::size_t>(ins.dst) * 4 * B;
      std::vector<Vec4> operands(ins.operands.size());
      for (int i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < ins.operands.size(); ++k) {
          const Source& s = ins.operands[k];
          const float* p = base(s);
          for (std::size_t comp = 0; comp < 4; ++comp) operands[k][comp] = s.sign * p[static_cast<std::size_t>(s.lane[comp]) * B + static_cast<std::size_t>(i)];
        }
        const Vec4 v = run_loop(*ins.node, operands, ctx_);
        for (std::size_t comp = 0; comp < 4; ++comp) dst[comp * B + static_cast<std::size_t>(i)] = v[comp];
      }
      continue;
    }
    // Each source component's lane array, after the swizzle; the sign applies on reading.
    const float* src[3][4];  // (only the first ins.sources are set, and only they are read)
    float sign[3] = {1, 1, 1};
    for (int k = 0; k < ins.sources; ++k) {
      const float* p = base(ins.src[k]);
      for (int comp = 0; comp < 4; ++comp) src[k][comp] = p + static_cast<std::size_t>(ins.src[k].lane[static_cast<std::size_t>(comp)]) * B;
      sign[k] = ins.src[k].sign;
    }
    // The destination register is never a source's (see build), so results go straight to it;
    // only the components some reader uses are computed.
    float* r[4];
    float* dst = regs + static_cast<std::size_t>(ins.dst) * 4 * B;
    for (int comp = 0; comp < 4; ++comp) r[comp] = dst + static_cast<std::size_t>(comp) * B;
    const unsigned mask = ins.mask;
    const float sa = sign[0], sb = sign[1], sc = sign[2];
    auto unary = [&](auto f) {
      for (int k = 0; k < 4; ++k)
        if (mask & (1u << k)) map1(r[k], src[0][k], sa, lanes, f);
    };
    auto binary = [&](auto f) {
      for (int k = 0; k < 4; ++k)
        if (mask & (1u << k)) map2(r[k], src[0][k], sa, src[1][k], sb, lanes, f);
    };
    auto ternary = [&](auto f) {
      for (int k = 0; k < 4; ++k)
        if (mask & (1u << k)) map3(r[k], src[0][k], sa, src[1][k], sb, src[2][k], sc, lanes, f);
    };
    // A scalar result is computed once, into the first component needed, and copied to the others.
    const int first = std::countr_zero(mask | 0x10u);
    auto spread = [&] {
      for (int k = first + 1; k < 4; ++k)
        if (mask & (1u << k)) std::copy(r[first], r[first] + lanes, r[k]);
    };
    auto scalar1 = [&](auto f) {
      if (first > 3) return;
      map1(r[first], src[0][0], sa, lanes, f);
      spread();
    };
    // Dot products accumulate left to right, (a0 b0 + a1 b1) + a2 b2 ..., as fp::execute does.
    auto dot = [&](int terms, bool homogeneous) {
      if (first > 3) return;
      float* d = r[first];
      map2(d, src[0][0], sa, src[1][0], sb, lanes, [](float x, float y) { return x * y; });
      for (int k = 1; k < terms; ++k)
        fold2(d, src[0][k], sa, src[1][k], sb, lanes, [](float acc, float x, float y) { return acc + x * y; });
      if (homogeneous) fold1(d, src[1][3], sb, lanes, [](float acc, float y) { return acc + y; });
      spread();
    };
    switch (ins.op) {
      case Opcode::MOV: unary([](float x) { return x; }); break;
      case Opcode::ADD: binary([](float x, float y) { return x + y; }); break;
      case Opcode::SUB: binary([](float x, float y) { return x - y; }); break;
      case Opcode::MUL: binary([](float x, float y) { return x * y; }); break;
      case Opcode::MAD: ternary([](float x, float y, float z) { return x * y + z; }); break;
      case Opcode::DP3: dot(3, false); break;
      case Opcode::DP4: dot(4, false); break;
      case Opcode::DPH: dot(3, true); break;
      case Opcode::MIN: binary([](float x, float y) { return min_num(x, y); }); break;
      case Opcode::MAX: binary([](float x, float y) { return max_num(x, y); }); break;
      case Opcode::SLT: binary([](float x, float y) { return x < y ? 1.0f : 0.0f; }); break;
      case Opcode::SGE: binary([](float x, float y) { return x >= y ? 1.0f : 0.0f; }); break;
      case Opcode::RCP: scalar1([](float x) { return 1.0f / x; }); break;
      case Opcode::RSQ: scalar1([](float x) { return 1.0f / std::sqrt(x); }); break;
      case Opcode::EX2: scalar1([](float x) { return std::exp2(x); }); break;
      case Opcode::LG2: scalar1([](float x) { return std::log2(x); }); break;
      case Opcode::POW:
        if (first > 3) break;
        map2(r[first], src[0][0], sa, src[1][0], sb, lanes, [](float x, float y) { return std::pow(x, y); });
        spread();
        break;
      case Opcode::FRC: unary([](float x) { return x - std::floor(x); }); break;
      case Opcode::FLR: unary([](float x) { return std::floor(x); }); break;
      case Opcode::CMP: ternary([](float x, float y, float z) { return x < 0 ? y : z; }); break;
      case Opcode::LRP: ternary([](float x, float y, float z) { return x * y + (1 - x) * z; }); break;
      case Opcode::XPD:
        // Component k is a_u b_v - a_v b_u with (u, v) = (k + 1, k + 2) mod 3; w is 0.
        for (int k = 0; k < 3; ++k) {
          if (!(mask & (1u << k))) continue;
          const int u = (k + 1) % 3, v = (k + 2) % 3;
          map2(r[k], src[0][u], sa, src[1][v], sb, lanes, [](float x, float y) { return x * y; });
          fold2(r[k], src[0][v], sa, src[1][u], sb, lanes, [](float acc, float x, float y) { return acc - x * y; });
        }
        if (mask & 0x8) std::fill(r[3], r[3] + lanes, 0.0f);
        break;
      case Opcode::SIN: scalar1([](float x) { return std::sin(x); }); break;
      case Opcode::COS: scalar1([](float x) { return std::cos(x); }); break;
      case Opcode::ABS: unary([](float x) { return std::fabs(x); }); break;
      case Opcode::TEX: sample_texture(ins, n, lanes, in, src, sa, r); break;
      case Opcode::DDX:
      case Opcode::DDY: binary([](float here, float there) { return there - here; }); break;
    }
    if (ins.saturate)
      for (int comp = 0; comp < 4; ++comp)
        if (mask & (1u << comp))
          for (int i = 0; i < lanes; ++i) r[comp][i] = saturate(r[comp][i]);
  }
  for (std::size_t k = 0; k < prog.results.size(); ++k) {
    const float* result = regs + static_cast<std::size_t>(prog.results[k]) * 4 * B;
    float* to = out + k * 4 * B;
    for (int comp = 0; comp < 4; ++comp) std::copy(result + comp * B, result + comp * B + n, to + comp * B);
  }
}

std::string PassShader::glsl(int pass, const std::function<bool(const std::string&)>& has_image,
                             std::vector<std::string>* images) const {
  const Program& prog = programs_[static_cast<std::size_t>(pass)];
  auto exact = [](float x) { return fmt::format("uintBitsToFloat({}u)", std::bit_cast<std::uint32_t>(x)); };
  auto operand = [&](const Source& s) {
    std::string base;
    switch (s.from) {
      case From::Register: base = fmt::format("r{}", s.index); break;
      case From::Interpolant: {
        // A difference interpolant arrives as its value: the GPU's own difference across its 2x2
        // quad (coarse or fine, as the driver has it; the simulator's is the forward one), and a
        // neighbour's value is the value plus that. OpenGL's window y goes up, the image's rows down.
        const int d = screen_difference(s.index);
        static constexpr const char* kForm[] = {"v{}", "dFdx(v{})", "(-dFdy(v{}))", "(v{0} + dFdx(v{0}))", "(v{0} - dFdy(v{0}))"};
        base = fmt::format(fmt::runtime(kForm[std::clamp(d, 0, 4)]), s.index);
        break;
      }
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
  std::string body, procedurals, uniforms, functions;
  std::map<std::string, std::string> texture_call;  // name -> GLSL function or sampler
  // One instruction's value from its operands' texts (`node`: a TEX's texture, `grad`: the
  // interpolant with an image lookup's derivatives, or -1).
  auto expression = [&](Opcode op, const TNode* node, const std::string& a, const std::string& b, const std::string& c, int grad) {
    std::string e;
    switch (op) {
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
      // The GPU's difference across its quad (OpenGL's window y goes up, the image's rows down).
      case Opcode::DDX: e = fmt::format("dFdx({})", a); break;
      case Opcode::DDY: e = fmt::format("(-dFdy({}))", a); break;
      case Opcode::TEX: {
        const TNode& t = *node;
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
        if (!it->second.starts_with("image")) e = fmt::format("{}({}.xy)", it->second, coord);
        else if (grad >= 0)  // the footprint from the derivative interpolant, as the simulator takes it
          e = fmt::format("textureGrad({0}, {1}.xy, dFdx(v{2}.xy), dFdy(v{2}.xy))", it->second, coord, grad);
        else
          e = fmt::format("texture({}, {}.xy)", it->second, coord);
        break;
      }
    }
    return e;
  };
  // A dynamic loop as a function of its operands (the carried values' initial values, then the
  // invariants), returning its results packed as the Loop node packs them; the loops of its body
  // first, each its own function.
  std::map<std::pair<const TLoop*, std::vector<dag::NodeId>>, std::string> loop_functions;
  std::function<std::string(const TNode&)> loop_function = [&](const TNode& loop) -> std::string {
    const TLoop& l = *loop.loop;
    const auto key = std::make_pair(&l, loop.lanes);
    if (auto f = loop_functions.find(key); f != loop_functions.end()) return f->second;
    const std::string fn = fmt::format("loop{}", loop_functions.size());
    loop_functions.emplace(key, fn);
    const TargetDag& b = l.body;
    auto text = [&](const Operand& o) {
      const TNode& n = b.node(o.node);
      std::string base;
      if (n.kind == TKind::LoopValue) base = fmt::format("{}{}", n.dims < l.carried ? "c" : "a", n.dims);
      else if (n.kind == TKind::Constant) base = fmt::format("vec4({}, {}, {}, {})", exact(n.value[0]), exact(n.value[1]), exact(n.value[2]), exact(n.value[3]));
      else base = fmt::format("t{}", o.node);
      std::string swizzle = ".";
      for (auto x : o.swizzle.lane) swizzle += "xyzw"[x];
      return fmt::format("({}{}{})", o.negate ? "-" : "", base, swizzle == ".xyzw" ? "" : swizzle);
    };
    std::string code, params;
    for (std::size_t k = 0; k < loop.src.size(); ++k) params += fmt::format("{}vec4 a{}", k ? ", " : "", k);
    code += fmt::format("vec4 {}({}) {{  // {}\n", fn, params, l.label);
    for (int k = 0; k < l.carried; ++k) code += fmt::format("  vec4 c{0} = a{0};\n", k);
    code += "  vec4 result = vec4(0.0);\n";
    for (const TNode& n : b.nodes)
      if (b.is_operation(n.id)) code += fmt::format("  vec4 t{};\n", n.id);
    code += fmt::format("  for (int pass = 0; pass < {}; ++pass) {{\n", l.max_iterations);
    for (const TNode& n : b.nodes) {
      if (!b.is_operation(n.id)) continue;
      std::string e;
      if (n.kind == TKind::Loop) {
        const std::string inner = loop_function(n);
        std::string args;
        for (std::size_t k = 0; k < n.src.size(); ++k) args += (k ? ", " : "") + text(n.src[k]);
        e = fmt::format("{}({})", inner, args);
      } else {
        e = expression(n.kind == TKind::Texture ? Opcode::TEX : n.op, &n, n.src.size() > 0 ? text(n.src[0]) : "",
                       n.src.size() > 1 ? text(n.src[1]) : "", n.src.size() > 2 ? text(n.src[2]) : "", -1);
        if (n.kind == TKind::Instruction && n.saturate) e = fmt::format("clamp({}, 0.0, 1.0)", e);
      }
      code += fmt::format("    t{} = {};\n", n.id, e);
    }
    std::size_t lane = 0;
    for (dag::NodeId k : loop.lanes) {
      const int w = l.result_width.at(k);
      code += fmt::format("    result.{} = {}.{};\n", std::string("xyzw").substr(lane, static_cast<std::size_t>(w)), text(l.results.at(k)),
                          std::string("xyzw").substr(0, static_cast<std::size_t>(w)));
      lane += static_cast<std::size_t>(w);
    }
    code += fmt::format("    if ({}.x == 0.0) break;\n", text(l.go_on));
    for (int k = 0; k < l.carried; ++k) code += fmt::format("    vec4 n{} = {};\n", k, text(l.next[static_cast<std::size_t>(k)]));
    for (int k = 0; k < l.carried; ++k) code += fmt::format("    c{0} = n{0};\n", k);
    code += "  }\n";
    if (lane > 0) code += fmt::format("  return result.{};\n", std::string("xyzw").substr(0, lane) + std::string(4 - lane, "xyzw"[lane - 1]));
    else code += "  return result;\n";
    code += "}\n";
    functions += code;
    return fn;
  };
  int registers = 0;
  for (const Instruction& ins : prog.code) {
    if (ins.shadow) continue;  // the quad partner's work, which the GPU does on the other pixel
    registers = std::max(registers, ins.dst + 1);
    if (ins.node->kind == TKind::Loop) {
      std::string args;
      for (std::size_t k = 0; k < ins.operands.size(); ++k) args += (k ? ", " : "") + operand(ins.operands[k]);
      body += fmt::format("  r{} = {}({});\n", ins.dst, loop_function(*ins.node), args);
      continue;
    }
    std::string a = ins.sources > 0 ? operand(ins.src[0]) : "", b = ins.sources > 1 ? operand(ins.src[1]) : "",
                c = ins.sources > 2 ? operand(ins.src[2]) : "";
    std::string e = expression(ins.op, ins.node, a, b, c, ins.grad);
    if (ins.saturate) e = fmt::format("clamp({}, 0.0, 1.0)", e);
    body += fmt::format("  r{} = {};\n", ins.dst, e);
  }
  std::string out = "#version 330 core\n";
  out += fmt::format("// Pass {} of {}: {} instructions.\n", pass + 1, programs_.size(), count_instructions(prog));
  for (int k = 0; k < interpolants(); ++k) out += fmt::format("in vec4 v{};\n", k);
  for (std::size_t r = 0; r < prog.restores.size(); ++r) out += fmt::format("uniform sampler2D restore{};\n", r);
  out += "uniform sampler3D noise_lattice;\n" + uniforms;
  // One value: `result`; several (multiple render targets): value k to location k, `result<k>`.
  const bool several = prog.results.size() > 1;
  if (!several) out += "layout(location = 0) out vec4 result;\n";
  else
    for (std::size_t k = 0; k < prog.results.size(); ++k) out += fmt::format("layout(location = {0}) out vec4 result{0};\n", k);
  out += procedurals;
  out += functions;
  out += "void main() {\n";
  if (registers > 0) {
    out += "  vec4";
    for (int r = 0; r < registers; ++r) out += fmt::format("{} r{}", r ? "," : "", r);
    out += ";\n";
  }
  out += body;
  for (std::size_t k = 0; k < prog.results.size(); ++k)
    out += several ? fmt::format("  result{} = r{};\n", k, prog.results[k]) : fmt::format("  result = r{};\n", prog.results[k]);
  out += "}\n";
  return out;
}

}  // namespace passlab::fp
