// SPDX-License-Identifier: GPL-3.0-or-later
// Test helpers for the combiner backend: shaders from text or samples to FragmentDags, the
// machines, and a FragmentSource that feeds the simulator what the reference interpreter sees.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "backends/combiners/backend.h"
#include "backends/combiners/compiler.h"
#include "backends/combiners/lower.h"
#include "core/partition/algorithms.h"
#include "backends/combiners/simulate.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/ir/interpreter.h"
#include "core/sim/draw_list.h"
#include "core/sim/scene.h"
#include "tests/support/samples.h"

namespace passlab::test {

struct CombinerShader {
  std::unique_ptr<driver::Program> prog;
  std::optional<dag::FragmentDag> dag;
  std::vector<combiners::Interval> ranges;
  ir::EvalContext ctx;
};

inline CombinerShader combiner_shader_from(std::unique_ptr<driver::Program> prog) {
  CombinerShader c;
  c.prog = std::move(prog);
  EXPECT_TRUE(c.prog->ok()) << lang::format_text(c.prog->diagnostics.items(), *c.prog->sources);
  if (!c.prog->ok()) return c;
  lang::DiagnosticList sink;
  c.dag = dag::flatten(*c.prog->module, c.prog->binding, sink);
  EXPECT_TRUE(c.dag) << lang::format_text(sink.items(), *c.prog->sources);
  if (c.dag) c.ranges = combiners::intervals(*c.dag);
  c.ctx.spaces = c.prog->binding.spaces;
  return c;
}

inline CombinerShader combiner_shader(const std::string& source) {
  driver::ProgramOptions o;
  o.verify = true;
  return combiner_shader_from(driver::compile_source("test.sl", source, o));
}

inline CombinerShader combiner_sample(const std::string& rel) {
  driver::ProgramOptions o;
  o.verify = true;
  return combiner_shader_from(driver::compile_file(sample_path(rel), o));
}

inline const combiners::Machine& machine(const std::string& name) {
  static std::map<std::string, combiners::Machine> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    lang::Diagnostics problems;
    auto t = partition::load_target(name, &problems);
    EXPECT_TRUE(t) << problems.text();
    auto m = combiners::parse_machine(*t, &problems);
    EXPECT_TRUE(m) << problems.text();
    it = cache.emplace(name, *m).first;
  }
  return it->second;
}

// One fragment's inputs as the reference interpreter sees them; restored values come from a map.
class ReferenceSource : public combiners::FragmentSource {
 public:
  ReferenceSource(const dag::FragmentDag& d, const ir::FragmentInputs& in, const ir::EvalContext& ctx) : d_(d), in_(in), ctx_(ctx) {
    vertex_ = dag::vertex_outputs(d, in, ctx);
  }
  std::array<float, 3> value(dag::NodeId node) const override {
    const dag::Node& n = d_.node(node);
    if (n.kind == dag::NodeKind::Constant) return {n.value.size() > 0 ? n.value[0] : 0.0f, n.value.size() > 1 ? n.value[1] : 0.0f, n.value.size() > 2 ? n.value[2] : 0.0f};
    const ir::Value v = dag::interpolant_value(d_, node, in_, vertex_);
    return {v.f[0], v.f[1], v.f[2]};
  }
  combiners::Rgba sample(const std::string& texture, int dims, const float* coords) const override {
    if (texture == "$noise") return ir::sample_noise(dims, coords);
    if (ctx_.textures) return ctx_.textures->sample(texture, dims, coords);
    return ir::ProceduralTextures().sample(texture, dims, coords);
  }
  combiners::Rgba restored(dag::NodeId node) const override {
    auto it = saved.find(node);
    return it == saved.end() ? combiners::Rgba{0, 0, 0, 0} : it->second;
  }
  std::map<dag::NodeId, combiners::Rgba> saved;

 private:
  const dag::FragmentDag& d_;
  const ir::FragmentInputs& in_;
  const ir::EvalContext& ctx_;
  std::vector<ir::Value> vertex_;
};

// Fragments as a render of a sample scene produces them: random points on random triangles of
// its objects facing the camera, every RSL global interpolated from the triangle's corners as the
// rasterizer does (without perspective, which changes nothing for these checks).
inline std::vector<ir::FragmentInputs> scene_fragments(const std::string& scene_rel, int count, std::uint64_t seed = 1) {
  std::vector<ir::FragmentInputs> out;
  auto scene = sim::load_scene(sample_path(scene_rel), nullptr);
  EXPECT_TRUE(scene) << scene_rel;
  if (!scene) return out;
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  auto unit = [&] { return static_cast<float>(next() >> 40) / static_cast<float>(1ull << 24); };
  for (int guard = 0; static_cast<int>(out.size()) < count && guard < count * 20; ++guard) {
    const sim::SceneObject& o = scene->objects[next() % scene->objects.size()];
    if (o.mesh.triangles.empty()) continue;
    const auto& tri = o.mesh.triangles[next() % o.mesh.triangles.size()];
    const sim::Vertex& a = o.mesh.vertices[tri[0]];
    const sim::Vertex& b = o.mesh.vertices[tri[1]];
    const sim::Vertex& c = o.mesh.vertices[tri[2]];
    const sim::Vec3 pa = o.to_camera.point(a.p), pb = o.to_camera.point(b.p), pc = o.to_camera.point(c.p);
    const sim::Vec3 ng = sim::normalize(sim::cross(pb - pa, pc - pa));
    if (sim::dot(ng, pa) >= 0) continue;  // facing away from the camera
    float u = unit(), v = unit();
    if (u + v > 1) u = 1 - u, v = 1 - v;
    const float w = 1 - u - v;
    auto mix = [&](const sim::Vec3& p, const sim::Vec3& q, const sim::Vec3& r) { return p * w + q * u + r * v; };
    sim::Vertex m;
    m.p = mix(a.p, b.p, c.p);
    m.n = sim::normalize(mix(a.n, b.n, c.n));
    m.s = a.s * w + b.s * u + c.s * v;
    m.t = a.t * w + b.t * u + c.t * v;
    m.u = a.u * w + b.u * u + c.u * v;
    m.v = a.v * w + b.v * u + c.v * v;
    m.dpdu = mix(a.dpdu, b.dpdu, c.dpdu);
    m.dpdv = mix(a.dpdv, b.dpdv, c.dpdv);
    out.push_back(sim::corner_globals(o, m, o.to_camera.point(m.p), ng));
  }
  return out;
}

// A shader from text, lowered, partitioned by RDS on a machine and compiled pass by pass (held
// together: the backend and the passes point into the DAG).
struct CombinerPartition {
  CombinerShader shader;
  dag::FragmentDag lowered;
  std::vector<combiners::Interval> ranges;
  partition::Partition part;
  combiners::CompiledPartition compiled;
};
inline std::unique_ptr<CombinerPartition> combiner_partition(const std::string& source, const std::string& machine_name) {
  auto c = std::make_unique<CombinerPartition>();
  c->shader = combiner_shader(source);
  if (!c->shader.dag) return nullptr;
  c->lowered = combiners::lower(*c->shader.dag, machine(machine_name).texture_units);
  c->ranges = combiners::intervals(c->lowered);
  const auto target = partition::load_target(machine_name, nullptr);
  combiners::CombinerBackend backend(c->lowered, *target, machine(machine_name));
  c->part = partition::rds(combiners::make_problem(c->lowered), backend, {});
  if (c->part.valid) c->compiled = combiners::compile_partition(c->lowered, c->ranges, machine(machine_name), c->part);
  return c;
}

// Whether the registers' [-1, 1] changes nothing on this fragment (combiners::clamping_changes_nothing).
inline bool clamping_changes_nothing(const dag::FragmentDag& d, const ir::FragmentInputs& in, const ir::EvalContext& ctx,
                                     const std::vector<ir::Value>& all, const std::vector<char>* exact = nullptr, bool every_step = false) {
  return combiners::clamping_changes_nothing(d, all, dag::evaluate_all_clamped(d, in, ctx, -1.0f, 1.0f, exact), every_step);
}

}  // namespace passlab::test
