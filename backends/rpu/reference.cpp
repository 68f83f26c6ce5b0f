// SPDX-License-Identifier: GPL-3.0-or-later
// The reference renderer: the interpreter shades, a C++ tracer casts the rays.
#include "backends/rpu/reference.h"

#include <cmath>
#include <mutex>

#include "backends/rpu/render.h"
#include "core/ir/interpreter.h"
#include "core/sim/parallel.h"

namespace passlab::rpu {

namespace {

using ir::Value;

struct Context {
  const CompiledProgram& program;
  const SceneData& data;
  std::array<Vec4, 32> constants;
  std::vector<const FunctionInfo*> object_shader;
  std::map<std::string, Value> params;
  ir::RunOptions run;
};

sim::Vec3 xyz(const Vec4& v) { return {v[0], v[1], v[2]}; }
Value triple(lang::BaseType t, const sim::Vec3& v) { return Value::triple(t, v.x, v.y, v.z); }

struct Failure {
  std::string message;
};

class Tracer : public ir::RayTracer {
 public:
  Tracer(const Context& c, int level, const ir::RunOptions& run, bool* nonfinite) : c_(c), level_(level), run_(run), nonfinite_(nonfinite) {}

  Value trace(const Value& P, const Value& R) const override {
    const int level = level_ + 1;
    const Vec4& bg = c_.constants[30];
    const Value background = Value::triple(lang::BaseType::Color, bg[0], bg[1], bg[2]);
    if (level_ >= 0 && static_cast<float>(level) - c_.constants[31][3] >= 0) return background;
    const sim::Vec3 o{P.f[0], P.f[1], P.f[2]}, d{R.f[0], R.f[1], R.f[2]};
    const RayHit h = c_.data.bvh().intersect(o, d, c_.constants[31][0], std::numeric_limits<float>::infinity());
    if (!h.hit) return background;
    return shade(h, o, d, level);
  }

  float visibility(const Value& p1, const Value& p2) const override {
    const sim::Vec3 a{p1.f[0], p1.f[1], p1.f[2]}, b{p2.f[0], p2.f[1], p2.f[2]};
    const RayHit h = c_.data.bvh().intersect(a, b - a, c_.constants[31][0], std::numeric_limits<float>::infinity());
    return h.hit && h.t < 1 ? 0.0f : 1.0f;
  }

  float level() const override { return static_cast<float>(level_); }

 private:
  Value shade(const RayHit& h, const sim::Vec3& o, const sim::Vec3& d, int level) const {
    const std::vector<Vec4>& mem = c_.data.memory();
    const Vec4& tri = mem[c_.data.triangle_record(h.triangle)];
    const auto vertex = [&](int k, int word) { return mem[static_cast<std::size_t>(tri[static_cast<std::size_t>(k)]) + static_cast<std::size_t>(word)]; };
    const std::size_t object = static_cast<std::size_t>(tri[3]);
    const float u = h.u, v = h.v;
    auto interp = [&](int word) {
      Vec4 a = vertex(0, word), b = vertex(1, word), c = vertex(2, word), r;
      for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] + (b[i] - a[i]) * u + (c[i] - a[i]) * v;
      return r;
    };
    ir::FragmentInputs in;
    using G = lang::Global;
    const sim::Vec3 I = d * h.t;
    in[G::P] = triple(lang::BaseType::Point, o + I);
    in[G::I] = triple(lang::BaseType::Vector, I);
    in[G::E] = Value::triple(lang::BaseType::Point, 0, 0, 0);
    in[G::N] = triple(lang::BaseType::Normal, sim::normalize(xyz(interp(1))));
    in[G::Ng] = triple(lang::BaseType::Normal, sim::normalize(sim::cross(xyz(vertex(1, 0)) - xyz(vertex(0, 0)), xyz(vertex(2, 0)) - xyz(vertex(0, 0)))));
    const Vec4 st = interp(2);
    in[G::s] = Value::scalar(st[0]);
    in[G::t] = Value::scalar(st[1]);
    in[G::u] = Value::scalar(st[2]);
    in[G::v] = Value::scalar(st[3]);
    in[G::dPdu] = triple(lang::BaseType::Vector, xyz(interp(3)));
    in[G::dPdv] = triple(lang::BaseType::Vector, xyz(interp(4)));
    in[G::du] = in[G::dv] = Value::scalar(0);
    in[G::Cs] = triple(lang::BaseType::Color, xyz(mem[object]));
    in[G::Os] = triple(lang::BaseType::Color, xyz(mem[object + 1]));
    const std::size_t index = c_.data.object_index(object);
    const FunctionInfo* shader = index < c_.object_shader.size() ? c_.object_shader[index] : nullptr;
    if (!shader) throw Failure{"a ray hit an object without a shader"};
    Tracer deeper(c_, level, run_, nonfinite_);
    ir::EvalContext ctx;
    ctx.rays = &deeper;
    ctx.textures = &c_.program.textures.sampler();
    ctx.spaces = c_.program.module_spaces.at(shader->file);
    const ir::RunResult r = ir::interpret_function(c_.program.modules.at(shader->file), shader->function, {}, in, c_.params, ctx, run_);
    if (!r.ok) throw Failure{r.error};
    *nonfinite_ = *nonfinite_ || r.nonfinite;
    return r.results.at(0);
  }

  const Context& c_;
  int level_;
  const ir::RunOptions& run_;
  bool* nonfinite_;
};

}  // namespace

ReferenceResult reference_render(const SceneProgram& program, const SceneData& data, const sim::Scene& scene, const ReferenceOptions& options) {
  const int w = options.width > 0 ? options.width : scene.width;
  const int h = options.height > 0 ? options.height : scene.height;
  ReferenceResult out;
  out.image = sim::Image(w, h, {0, 0, 0, 1});
  out.undefined.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), 0);
  const CompiledProgram& cp = *program.compiled;
  Context c{cp, data, scene_constants(scene, data, *cp.program), {}, {}, {}};
  c.run.max_depth = 4096;
  c.run.max_steps = options.max_steps;
  for (float address : program.object_shader) {
    const FunctionInfo* f = nullptr;
    for (const FunctionInfo& info : cp.functions)
      if (static_cast<float>(info.address) == address && info.shader) f = &info;
    c.object_shader.push_back(f);
  }
  const FunctionInfo* main = nullptr;
  for (const FunctionInfo& info : cp.functions)
    if (info.address == program.main_entry && !info.shader) main = &info;
  c.params["$rpu_light.from"] = Value::triple(lang::BaseType::Point, c.constants[0][0], c.constants[0][1], c.constants[0][2]);
  c.params["$rpu_light.lightcolor"] = Value::triple(lang::BaseType::Color, c.constants[1][0], c.constants[1][1], c.constants[1][2]);
  std::mutex m;
  const int threads = options.threads > 0 ? options.threads : sim::hardware_threads();
  sim::parallel_for(h, threads, options.cancel, [&](int y) {
    for (int x = 0; x < w; ++x) {
      float* px = out.image.at(x, y);
      try {
        if (!main) throw Failure{"no main shader"};
        ir::RunOptions run = c.run;
        ir::Perturbation perturb;
        if (options.perturb) {
          perturb = *options.perturb;
          perturb.seed = perturb.seed * 0x100000001B3ULL + static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(w) + static_cast<std::uint64_t>(x);
          run.perturb = &perturb;
        }
        bool nonfinite = false;
        Tracer camera(c, -1, run, &nonfinite);
        ir::EvalContext ctx;
        ctx.rays = &camera;
        ctx.textures = &cp.textures.sampler();
        ctx.spaces = cp.module_spaces.at(main->file);
        const Value P = Value::triple(lang::BaseType::Point, (static_cast<float>(x) + 0.5f) / static_cast<float>(w),
                                      (static_cast<float>(y) + 0.5f) / static_cast<float>(h), 0);
        const ir::RunResult r = ir::interpret_function(cp.modules.at(main->file), main->function, {P}, {}, c.params, ctx, run);
        if (!r.ok) throw Failure{r.error};
        out.undefined[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] = nonfinite || r.nonfinite;
        px[0] = r.results.at(0).f[0];
        px[1] = r.results.at(0).f[1];
        px[2] = r.results.at(0).f[2];
        px[3] = 1;
      } catch (const Failure& f) {
        out.undefined[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] = 1;
        px[0] = 1;
        px[1] = 0;
        px[2] = 1;
        std::lock_guard<std::mutex> lock(m);
        if (out.errors++ == 0) out.first_error = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + "): " + f.message;
      }
    }
  });
  return out;
}

}  // namespace passlab::rpu
