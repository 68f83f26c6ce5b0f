// SPDX-License-Identifier: GPL-3.0-or-later
// The reference renderer: the interpreter shades, a C++ tracer casts the rays.
#include "backends/rpu/reference.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <optional>

#include "backends/rpu/quad.h"
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
  // The program takes derivatives, so the VM shades every hit in a quad (quad.h): each shader
  // run gets its neighbours, the partners' rays on the hit's triangle.
  bool quads = false;
  const FunctionInfo* main = nullptr;
  int width = 0, height = 0;
};

struct Pixel {
  int x = 0, y = 0;
};

sim::Vec3 xyz(const Vec4& v) { return {v[0], v[1], v[2]}; }
Value triple(lang::BaseType t, const sim::Vec3& v) { return Value::triple(t, v.x, v.y, v.z); }

struct Failure {
  std::string message;
};
// A probe of main at a partner pixel reached the ray it was run for.
struct Probed {
  Vec4 origin, direction;
};

Vec4 vec4(const Value& v) { return {v.f[0], v.f[1], v.f[2], 0}; }

// Main's run at `pixel` (the camera's level).
ir::RunResult run_main(const Context& c, const ir::RayTracer& rays, const Pixel& pixel, const ir::RunOptions& run) {
  const CompiledProgram& cp = c.program;
  ir::EvalContext ctx;
  ctx.rays = &rays;
  ctx.textures = &cp.textures.sampler();
  ctx.spaces = cp.module_spaces.at(c.main->file);
  const Value P = Value::triple(lang::BaseType::Point, (static_cast<float>(pixel.x) + 0.5f) / static_cast<float>(c.width),
                                (static_cast<float>(pixel.y) + 0.5f) / static_cast<float>(c.height), 0);
  return ir::interpret_function(cp.modules.at(c.main->file), c.main->function, {P}, {}, c.params, ctx, run);
}

class Tracer : public ir::RayTracer {
 public:
  // `pixel`: the camera's tracer for main's run there (level -1).
  Tracer(const Context& c, int level, const ir::RunOptions& run, bool* nonfinite, const Pixel* pixel = nullptr)
      : c_(c), level_(level), run_(run), nonfinite_(nonfinite), pixel_(pixel) {}

  Value trace(const Value& P, const Value& R) const override {
    const std::size_t k = rays_++;
    if (!c_.quads || !pixel_) return cast(P, R, nullptr);
    // A camera ray's partners: the rays the quad's pixels beside and above or below cast as
    // their k-th, as the VM's chunk of four pixels casts them together.
    NeighbourRays nb;
    for (int axis = 0; axis < 2; ++axis) {
      const Pixel p{axis == 0 ? (pixel_->x ^ 1) : pixel_->x, axis == 1 ? (pixel_->y ^ 1) : pixel_->y};
      if (p.x >= c_.width || p.y >= c_.height) continue;
      std::optional<Probed> ray = probe(p, k);
      if (!ray) continue;
      NeighbourRay r{Value::triple(lang::BaseType::Point, ray->origin[0], ray->origin[1], ray->origin[2]),
                     Value::triple(lang::BaseType::Vector, ray->direction[0], ray->direction[1], ray->direction[2])};
      (axis == 0 ? nb.right : nb.below) = r;
    }
    return cast(P, R, &nb);
  }

  Value trace(const Value& P, const Value& R, const NeighbourRays& neighbours) const override {
    ++rays_;
    return cast(P, R, c_.quads ? &neighbours : nullptr);
  }

  // A helper's hits shade nothing: it sees the background (quad.h).
  Value helper_trace(const Value& P, const Value& R) const override {
    (void)P, (void)R;
    const Vec4& bg = c_.constants[30];
    return Value::triple(lang::BaseType::Color, bg[0], bg[1], bg[2]);
  }

 private:
  // Main's run at pixel p up to its k-th ray: that ray, or none where it casts fewer or its k-th
  // is a shadow ray.
  std::optional<Probed> probe(const Pixel& p, std::size_t k) const {
    class Probe : public ir::RayTracer {
     public:
      Probe(const Tracer& camera, std::size_t k) : camera_(camera), k_(k) {}
      Value trace(const Value& P, const Value& R) const override {
        if (n_++ == k_) throw Probed{vec4(P), vec4(R)};
        return camera_.trace(P, R);
      }
      float visibility(const Value& p1, const Value& p2) const override {
        if (n_++ == k_) throw Failure{""};
        return camera_.visibility(p1, p2);
      }
      float level() const override { return camera_.level(); }
      const Tracer& camera_;
      std::size_t k_;
      mutable std::size_t n_ = 0;
    };
    bool nonfinite = false;
    const Tracer camera(c_, -1, run_, &nonfinite, &p);
    const Probe rays(camera, k);
    try {
      run_main(c_, rays, p, run_);
    } catch (const Probed& ray) {
      *nonfinite_ = *nonfinite_ || nonfinite;
      return ray;
    } catch (const Failure&) {
    }
    return std::nullopt;
  }

 public:
  Value cast(const Value& P, const Value& R, const NeighbourRays* neighbours) const {
    const int level = level_ + 1;
    const Vec4& bg = c_.constants[30];
    const Value background = Value::triple(lang::BaseType::Color, bg[0], bg[1], bg[2]);
    if (level_ >= 0 && static_cast<float>(level) - c_.constants[31][3] >= 0) return background;
    const sim::Vec3 o{P.f[0], P.f[1], P.f[2]}, d{R.f[0], R.f[1], R.f[2]};
    const RayHit h = c_.data.bvh().intersect(o, d, c_.constants[31][0], std::numeric_limits<float>::infinity());
    if (!h.hit) return background;
    return shade(h, o, d, level, neighbours);
  }

  float visibility(const Value& p1, const Value& p2) const override {
    ++rays_;
    const sim::Vec3 a{p1.f[0], p1.f[1], p1.f[2]}, b{p2.f[0], p2.f[1], p2.f[2]};
    const RayHit h = c_.data.bvh().intersect(a, b - a, c_.constants[31][0], std::numeric_limits<float>::infinity());
    return h.hit && h.t < 1 ? 0.0f : 1.0f;
  }

  float level() const override { return static_cast<float>(level_); }

 private:
  Value shade(const RayHit& h, const sim::Vec3& o, const sim::Vec3& d, int level, const NeighbourRays* neighbours) const {
    const std::vector<Vec4>& mem = c_.data.memory();
    const std::size_t record = c_.data.triangle_record(h.triangle);
    const Vec4& tri = mem[record];
    const std::size_t object = static_cast<std::size_t>(tri[3]);
    ir::FragmentInputs in = inputs(mem, tri, h.u, h.v, h.t, o, d);
    const std::size_t index = c_.data.object_index(object);
    const FunctionInfo* shader = index < c_.object_shader.size() ? c_.object_shader[index] : nullptr;
    if (!shader) throw Failure{"a ray hit an object without a shader"};
    ir::RunOptions run = run_;
    ir::FragmentInputs right, below;
    if (neighbours) {
      // The helpers: each partner's ray into the plane of this triangle (quad.h), or nothing
      // (NaN, so that a derivative says nothing) where a partner has no ray or misses the plane.
      using G = lang::Global;
      for (int side = 0; side < 2; ++side) {
        const std::optional<NeighbourRay>& ray = side == 0 ? neighbours->right : neighbours->below;
        ir::FragmentInputs& at = side == 0 ? right : below;
        std::optional<PlanePoint> pp;
        if (ray) pp = plane_point(mem, static_cast<std::int64_t>(record), vec4(ray->P), vec4(ray->R));
        if (pp) {
          at = inputs(mem, tri, pp->u, pp->v, pp->t, {ray->P.f[0], ray->P.f[1], ray->P.f[2]}, {ray->R.f[0], ray->R.f[1], ray->R.f[2]});
        } else {
          at = in;
          for (int g = 0; g < static_cast<int>(G::Count); ++g)
            for (float& x : at[static_cast<G>(g)].f) x = std::numeric_limits<float>::quiet_NaN();
        }
      }
      // du and dv: how far u and v move across the pixel; the helpers read the anchor's.
      in[G::du] = Value::scalar(std::fabs(right[G::u].f[0] - in[G::u].f[0]) + std::fabs(below[G::u].f[0] - in[G::u].f[0]));
      in[G::dv] = Value::scalar(std::fabs(right[G::v].f[0] - in[G::v].f[0]) + std::fabs(below[G::v].f[0] - in[G::v].f[0]));
      for (ir::FragmentInputs* at : {&right, &below}) {
        (*at)[G::du] = in[G::du];
        (*at)[G::dv] = in[G::dv];
      }
      run.right = &right;
      run.below = &below;
    }
    Tracer deeper(c_, level, run_, nonfinite_);
    ir::EvalContext ctx;
    ctx.rays = &deeper;
    ctx.textures = &c_.program.textures.sampler();
    ctx.spaces = c_.program.module_spaces.at(shader->file);
    const ir::RunResult r = ir::interpret_function(c_.program.modules.at(shader->file), shader->function, {}, in, c_.params, ctx, run);
    if (!r.ok) throw Failure{r.error};
    *nonfinite_ = *nonfinite_ || r.nonfinite;
    return r.results.at(0);
  }

  // A shader's globals where the ray o + t d meets the triangle `tri` at barycentrics (u, v).
  ir::FragmentInputs inputs(const std::vector<Vec4>& mem, const Vec4& tri, float u, float v, float t, const sim::Vec3& o, const sim::Vec3& d) const {
    const auto vertex = [&](int k, int word) { return mem[static_cast<std::size_t>(tri[static_cast<std::size_t>(k)]) + static_cast<std::size_t>(word)]; };
    const std::size_t object = static_cast<std::size_t>(tri[3]);
    auto interp = [&](int word) {
      Vec4 a = vertex(0, word), b = vertex(1, word), c = vertex(2, word), r;
      for (std::size_t i = 0; i < 4; ++i) r[i] = a[i] + (b[i] - a[i]) * u + (c[i] - a[i]) * v;
      return r;
    };
    ir::FragmentInputs in;
    using G = lang::Global;
    const sim::Vec3 I = d * t;
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
    return in;
  }

  const Context& c_;
  int level_;
  const ir::RunOptions& run_;
  bool* nonfinite_;
  const Pixel* pixel_;
  mutable std::size_t rays_ = 0;  // the camera's: rays main has cast (trace and visibility)
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
  c.main = main;
  c.width = w;
  c.height = h;
  c.quads = takes_derivatives(*cp.program);
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
        const Pixel pixel{x, y};
        Tracer camera(c, -1, run, &nonfinite, &pixel);
        const ir::RunResult r = run_main(c, camera, pixel, run);
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
