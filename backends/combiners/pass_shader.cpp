// SPDX-License-Identifier: GPL-3.0-or-later
// The combiner simulator behind the renderer's FragmentShader interface.
#include "backends/combiners/pass_shader.h"

#include <algorithm>
#include <map>

#include "core/ir/value.h"
#include "core/lang/types.h"

namespace passlab::combiners {

namespace {

// One fragment of a batch: interpolants from the batch's arrays, restores from the buffers.
class BatchFragment : public FragmentSource {
 public:
  BatchFragment(const std::vector<dag::NodeId>& leaves, const std::vector<dag::NodeId>& colours, const std::vector<std::vector<dag::NodeId>>& lookups,
                const float* const* in, const std::vector<dag::NodeId>& restored_nodes, const float* const* restored, int i, const ir::EvalContext& ctx)
      : leaves_(leaves), colours_(colours), lookups_(lookups), in_(in), restored_nodes_(restored_nodes), restored_(restored), i_(i), ctx_(ctx) {}
  std::optional<std::array<float, 4>> footprint(const TextureUnit& u) const override {
    const auto it = std::find(lookups_.begin(), lookups_.end(), u.coords);
    if (it == lookups_.end()) return std::nullopt;
    const float* g = in_[leaves_.size() + colours_.size() + static_cast<std::size_t>(it - lookups_.begin())];
    constexpr int B = sim::kBatch;
    return std::array<float, 4>{g[i_], g[B + i_], g[2 * B + i_], g[3 * B + i_]};
  }
  Rgba sample_footprint(const std::string& texture, float s, float t, const std::array<float, 4>& grad) const override {
    if (ctx_.textures) return ctx_.textures->sample_grad(texture, s, t, grad.data());
    const float c[2] = {s, t};
    return ir::ProceduralTextures().sample(texture, 2, c);
  }
  std::optional<std::array<float, 3>> vertex_colour(dag::NodeId node) const override {
    const auto it = std::lower_bound(colours_.begin(), colours_.end(), node);
    if (it == colours_.end() || *it != node) return std::nullopt;
    const float* v = in_[leaves_.size() + static_cast<std::size_t>(it - colours_.begin())];
    return std::array<float, 3>{v[i_], v[sim::kBatch + i_], v[2 * sim::kBatch + i_]};
  }
  std::array<float, 3> value(dag::NodeId node) const override {
    const auto it = std::lower_bound(leaves_.begin(), leaves_.end(), node);
    const auto k = static_cast<std::size_t>(it - leaves_.begin());
    const float* v = in_[k];
    return {v[i_], v[sim::kBatch + i_], v[2 * sim::kBatch + i_]};
  }
  Rgba sample(const std::string& texture, int dims, const float* coords) const override {
    if (texture == "$noise") return ir::sample_noise(dims, coords);
    if (ctx_.textures) return ctx_.textures->sample(texture, dims, coords);
    return ir::ProceduralTextures().sample(texture, dims, coords);
  }
  Rgba restored(dag::NodeId node) const override {
    for (std::size_t r = 0; r < restored_nodes_.size(); ++r)
      if (restored_nodes_[r] == node) {
        const float* v = restored_[r];
        return {v[i_], v[sim::kBatch + i_], v[2 * sim::kBatch + i_], v[3 * sim::kBatch + i_]};
      }
    return {0, 0, 0, 0};
  }

 private:
  const std::vector<dag::NodeId>& leaves_;
  const std::vector<dag::NodeId>& colours_;
  const std::vector<std::vector<dag::NodeId>>& lookups_;
  const float* const* in_;
  const std::vector<dag::NodeId>& restored_nodes_;
  const float* const* restored_;
  int i_;
  const ir::EvalContext& ctx_;
};

// A plain 2D lookup of interpolated coordinates: mip-mapped by its footprint. (Lookups at computed
// coordinates, tables and restores read level 0: restores are at the fragment's own pixel, and
// the hardware's level for a dependent read is the driver's, not the shader's.)
bool mip_mapped(const TextureUnit& u) {
  return u.op == UnitOp::Texture2D && !u.projective && !u.texture.empty() && u.texture != "$noise" && !u.coords.empty();
}

}  // namespace

PassShader::PassShader(const dag::FragmentDag& d, const partition::Partition& part, const CompiledPartition& cp, const Machine& m,
                       const ir::EvalContext& ctx, SimOptions options)
    : d_(d), cp_(cp), m_(m), ctx_(ctx), options_(options) {
  // Every leaf any pass reads: interpolated values and texture coordinates.
  std::vector<std::vector<dag::NodeId>> per_pass(cp.passes.size()), colour_per_pass(cp.passes.size());
  std::map<dag::NodeId, bool> colour_bias;
  for (std::size_t p = 0; p < cp.passes.size(); ++p) {
    const Program& prog = cp.passes[p].program;
    for (const PassInput& in : prog.inputs) {
      if (in.cls != InputClass::Interpolant) continue;
      if (in.reg >= 0 && m.registers[static_cast<std::size_t>(in.reg)].texture_unit < 0) {
        colour_per_pass[p].push_back(in.node);
        colour_bias[in.node] = in.biased;
      } else {
        per_pass[p].push_back(in.node);
      }
    }
    for (const TextureUnit& u : prog.units) {
      for (dag::NodeId c : u.coords) per_pass[p].push_back(c);
      if (u.projective) per_pass[p].push_back(u.q);  // the unit divides by it
      if (mip_mapped(u) && std::find(lookups_.begin(), lookups_.end(), u.coords) == lookups_.end()) lookups_.push_back(u.coords);
    }
    for (dag::NodeId id : per_pass[p]) leaves_.push_back(id);
  }
  std::sort(leaves_.begin(), leaves_.end());
  leaves_.erase(std::unique(leaves_.begin(), leaves_.end()), leaves_.end());
  for (const auto& [id, biased] : colour_bias) {
    colours_.push_back(id);
    colour_biased_.push_back(biased ? 1 : 0);
  }
  reads_.assign(cp.passes.size(), std::vector<std::uint8_t>(leaves_.size() + colours_.size() + lookups_.size(), 0));
  for (std::size_t p = 0; p < cp.passes.size(); ++p) {
    for (const TextureUnit& u : cp.passes[p].program.units)
      if (mip_mapped(u))
        reads_[p][leaves_.size() + colours_.size() + static_cast<std::size_t>(std::find(lookups_.begin(), lookups_.end(), u.coords) - lookups_.begin())] = 0xF;
    for (dag::NodeId id : per_pass[p]) {
      const auto k = static_cast<std::size_t>(std::lower_bound(leaves_.begin(), leaves_.end(), id) - leaves_.begin());
      reads_[p][k] = lang::is_triple(d.node(id).type) ? 0x7 : 0x1;
    }
    for (dag::NodeId id : colour_per_pass[p]) {
      const auto k = leaves_.size() + static_cast<std::size_t>(std::lower_bound(colours_.begin(), colours_.end(), id) - colours_.begin());
      reads_[p][k] = lang::is_triple(d.node(id).type) ? 0x7 : 0x1;
    }
  }
  // Intermediate buffers: the partition's texture assignment.
  buffers_ = part.intermediate_textures;
  for (std::size_t p = 0; p < part.passes.size(); ++p) {
    std::vector<int> rs;
    std::vector<dag::NodeId> nodes;
    for (dag::NodeId r : part.passes[p].restores) {
      auto it = part.texture.find(r);
      rs.push_back(it == part.texture.end() ? 0 : it->second);
      nodes.push_back(r);
    }
    restores_.push_back(rs);
    restore_nodes_.push_back(nodes);
    const bool last = p + 1 == part.passes.size();
    auto it = part.texture.find(part.passes[p].root);
    saves_.push_back(last ? -1 : it == part.texture.end() ? 0 : it->second);
  }
}

void PassShader::corner(const ir::FragmentInputs& in, float* out) const {
  const std::vector<ir::Value> vertex = dag::vertex_outputs(d_, in, ctx_);
  for (std::size_t k = 0; k < leaves_.size(); ++k) {
    const dag::Node& n = d_.node(leaves_[k]);
    float* o = out + k * 4;
    if (n.kind == dag::NodeKind::Constant) {
      for (int c = 0; c < 4; ++c) o[c] = c < static_cast<int>(n.value.size()) ? n.value[static_cast<std::size_t>(c)] : 0.0f;
      continue;
    }
    const ir::Value v = dag::interpolant_value(d_, leaves_[k], in, vertex);
    for (int c = 0; c < 4; ++c) o[c] = v.f[static_cast<std::size_t>(c)];
  }
  for (std::size_t j = 0; j < lookups_.size(); ++j) {  // (s, t, s, t): the renderer differentiates them
    float st[2] = {0, 0};
    int n = 0;
    for (dag::NodeId c : lookups_[j]) {
      const dag::Node& node = d_.node(c);
      const int comps = lang::is_triple(node.type) ? 3 : 1;
      if (node.kind == dag::NodeKind::Constant) {
        for (int k = 0; k < comps && n < 2; ++k) st[n++] = static_cast<std::size_t>(k) < node.value.size() ? node.value[static_cast<std::size_t>(k)] : 0.0f;
        continue;
      }
      const ir::Value v = dag::interpolant_value(d_, c, in, vertex);
      for (int k = 0; k < comps && n < 2; ++k) st[n++] = v.f[static_cast<std::size_t>(k)];
    }
    float* o = out + (leaves_.size() + colours_.size() + j) * 4;
    o[0] = o[2] = st[0];
    o[1] = o[3] = st[1];
  }
  for (std::size_t j = 0; j < colours_.size(); ++j) {  // GL clamps a vertex's colours, then interpolates
    const ir::Value v = dag::interpolant_value(d_, colours_[j], in, vertex);
    float* o = out + (leaves_.size() + j) * 4;
    for (int c = 0; c < 4; ++c) {
      const float x = v.f[static_cast<std::size_t>(c)];
      o[c] = std::clamp(colour_biased_[j] ? (x + 1.0f) * 0.5f : x, 0.0f, 1.0f);
    }
  }
}

unsigned PassShader::interpolant_mask(int pass, int k) const {
  return reads_[static_cast<std::size_t>(pass)][static_cast<std::size_t>(k)];
}

void PassShader::run(int pass, int n, const float* const* in, const float* const* restored, float* out, std::vector<float>&) const {
  const Program& prog = cp_.passes[static_cast<std::size_t>(pass)].program;
  for (int i = 0; i < n; ++i) {
    BatchFragment f(leaves_, colours_, lookups_, in, restore_nodes_[static_cast<std::size_t>(pass)], restored, i, ctx_);
    const Rgba c = simulate(prog, m_, f, options_);
    for (int comp = 0; comp < 4; ++comp) out[comp * sim::kBatch + i] = c[static_cast<std::size_t>(comp)];
  }
}

}  // namespace passlab::combiners
