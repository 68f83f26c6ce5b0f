// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/draw_list.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/sim/parallel.h"

namespace passlab::sim {

namespace {

ir::Value triple(lang::BaseType t, const Vec3& v) { return ir::Value::triple(t, v.x, v.y, v.z); }

// The draw list's view of an Exposure (draw_list.h).
struct Seen {
  bool motion = false;
  float open = 0, close = 1, lens = 0;
  float cos_turn = 1, sin_turn = 0;  // the motion's turn about the view axis
};

// Whether two triangles' planes are parallel (one moved without turning), to a float's rounding.
bool same_facing(const std::array<Vec3, 3>& a, const std::array<Vec3, 3>& b) {
  const Vec3 na = cross(a[1] - a[0], a[2] - a[0]), nb = cross(b[1] - b[0], b[2] - b[0]);
  return length(cross(na, nb)) <= 1e-5f * length(na) * length(nb) && dot(na, nb) > 0;
}

// Whether triangle t faces some point of a thin lens of radius `lens` around the eye (in the
// z = 0 plane): n.(t0 - l) < 0 for some |l| <= lens, the least of n.l being -lens |(nx, ny)|.
bool faces_lens(const std::array<Vec3, 3>& t, float lens) {
  if (lens == 0) return front_facing(t);
  const Vec3 n = cross(t[1] - t[0], t[2] - t[0]);
  return dot(n, t[0]) < lens * std::hypot(n.x, n.y);
}

// The object's triangles (in camera space, back faces culled when it asks) and their corners'
// interpolants, which are independent and computed on the threads.
void add_object(DrawBatch& b, const SceneObject& o, std::uint32_t index, int threads, const Seen& exposure) {
  const bool motion = exposure.motion;
  const int k = b.shader->interpolants();
  const Mesh& m = o.mesh;
  const std::size_t first = b.triangles.size();
  std::vector<std::size_t> source;  // mesh triangle of each added one
  for (std::size_t i = 0; i < m.triangles.size(); ++i) {
    const auto& t = m.triangles[i];
    std::array<Vec3, 3> p, q;
    for (int c = 0; c < 3; ++c) p[c] = o.to_camera.point(m.vertices[t[c]].p);
    if (motion && o.moving) {
      for (int c = 0; c < 3; ++c) {
        q[c] = o.to_camera_end.point(m.vertices[t[c]].p);
        if (exposure.sin_turn != 0 || exposure.cos_turn != 1) {
          const Vec3 d = q[c] - p[c];
          q[c] = p[c] + Vec3{exposure.cos_turn * d.x - exposure.sin_turn * d.y, exposure.sin_turn * d.x + exposure.cos_turn * d.y, d.z};
        }
      }
    } else {
      q = p;
    }
    // Culled when it faces away from the eye (and every point of the lens) at both ends; the
    // rasterizer culls the rest per sample.
    if (o.cull == Cull::Back) {
      if (!motion || !o.moving) {
        if (!faces_lens(p, exposure.lens)) continue;
      } else {
        // Away at both ends of the shutter, and moved without turning (then n.(p0 - l) is linear
        // in time, so it is away all the while): the rasterizer would cull every sample.
        std::array<Vec3, 3> at_open, at_close;
        for (std::size_t c = 0; c < 3; ++c) {
          at_open[c] = lerp(p[c], q[c], exposure.open);
          at_close[c] = lerp(p[c], q[c], exposure.close);
        }
        if (!faces_lens(at_open, exposure.lens) && !faces_lens(at_close, exposure.lens) && same_facing(at_open, at_close)) continue;
      }
    }
    b.triangles.push_back(p);
    b.opaque.push_back(!o.transparent);
    if (motion) {
      b.triangles_end.push_back(q);
      b.cull_back.push_back(o.cull == Cull::Back);
      b.shading_rate.push_back(o.shading_rate);
      b.object.push_back(index);
      b.source.push_back(static_cast<std::uint32_t>(i));
    }
    source.push_back(i);
  }
  const std::size_t per_triangle = 3 * static_cast<std::size_t>(k) * 4;
  b.corners.resize(b.triangles.size() * per_triangle);
  constexpr int kChunk = 64;  // triangles per piece of work
  const int pieces = static_cast<int>((source.size() + kChunk - 1) / kChunk);
  parallel_for(pieces, threads, nullptr, [&](int piece) {
    for (std::size_t j = static_cast<std::size_t>(piece) * kChunk; j < std::min(source.size(), static_cast<std::size_t>(piece + 1) * kChunk); ++j) {
      const auto& t = m.triangles[source[j]];
      // Shaded as it stands when the shutter opens (decoupled sampling's reference time).
      std::array<Vec3, 3> p = b.triangles[first + j];
      const float time = motion ? exposure.open : 0.0f;
      if (o.moving && time != 0)
        for (int c = 0; c < 3; ++c) p[c] = lerp(p[c], b.triangles_end[first + j][c], time);
      const Vec3 ng = normalize(cross(p[1] - p[0], p[2] - p[0]));
      for (int c = 0; c < 3; ++c) {
        const ir::FragmentInputs in = corner_globals(o, m.vertices[t[c]], p[c], ng, time);
        b.shader->corner(in, b.corners.data() + (first + j) * per_triangle + static_cast<std::size_t>(c) * k * 4);
      }
    }
  });
}

}  // namespace

void corners_at(const DrawBatch& b, const Scene& scene, std::uint32_t tri, float time, const Vec3& eye, float* out) {
  const SceneObject& o = scene.objects[b.object[tri]];
  const auto& corners = o.mesh.triangles[b.source[tri]];
  std::array<Vec3, 3> p = b.triangles[tri];
  if (o.moving)
    for (std::size_t i = 0; i < 3; ++i) p[i] = lerp(p[i], b.triangles_end[tri][i], time);
  const Vec3 ng = normalize(cross(p[1] - p[0], p[2] - p[0]));
  const std::size_t per_corner = static_cast<std::size_t>(b.shader->interpolants()) * 4;
  for (std::size_t i = 0; i < 3; ++i)
    b.shader->corner(corner_globals(o, o.mesh.vertices[corners[i]], p[i], ng, time, eye), out + i * per_corner);
}

ir::FragmentInputs corner_globals(const SceneObject& o, const Vertex& v, const Vec3& p, const Vec3& ng, float time, const Vec3& eye) {
  ir::FragmentInputs in;
  for (auto& g : in.globals) g = ir::Value::zero(lang::BaseType::Float);
  using lang::Global;
  using lang::BaseType;
  in[Global::P] = in[Global::Ps] = triple(BaseType::Point, p);
  in[Global::I] = triple(BaseType::Vector, p - eye);
  in[Global::E] = triple(BaseType::Point, eye);
  // A moving object's frame at `time`: its vectors blended as its corners move, linearly.
  auto at_time = [&](Vec3 start, Vec3 end) { return !o.moving || time == 0 ? start : lerp(start, end, time); };
  in[Global::N] = triple(BaseType::Normal, normalize(at_time(o.to_camera.normal(v.n), o.to_camera_end.normal(v.n))));
  in[Global::Ng] = triple(BaseType::Normal, ng);
  in[Global::s] = ir::Value::scalar(v.s);
  in[Global::t] = ir::Value::scalar(v.t);
  in[Global::u] = ir::Value::scalar(v.u);
  in[Global::v] = ir::Value::scalar(v.v);
  in[Global::dPdu] = triple(BaseType::Vector, at_time(o.to_camera.vector(v.dpdu), o.to_camera_end.vector(v.dpdu)));
  in[Global::dPdv] = triple(BaseType::Vector, at_time(o.to_camera.vector(v.dpdv), o.to_camera_end.vector(v.dpdv)));
  in[Global::Cs] = triple(BaseType::Color, o.cs);
  in[Global::Os] = triple(BaseType::Color, o.os);
  in[Global::Ci] = ir::Value::zero(BaseType::Color);
  in[Global::Oi] = ir::Value::zero(BaseType::Color);
  in[Global::Cl] = ir::Value::zero(BaseType::Color);
  in[Global::Ol] = ir::Value::zero(BaseType::Color);
  in[Global::L] = ir::Value::zero(BaseType::Vector);
  in[Global::time] = ir::Value::scalar(time);
  return in;
}

std::vector<DrawBatch> draw_list(const Scene& scene, const std::vector<const FragmentShader*>& shaders, int threads,
                                 const Exposure* blurred) {
  Seen exposure;
  if (blurred) {
    exposure.motion = true;
    exposure.open = blurred->open;
    exposure.close = blurred->close;
    exposure.lens = blurred->lens;
  }
  if (blurred && blurred->motion_angle != 0) {
    const double a = blurred->motion_angle * std::numbers::pi / 180;
    exposure.cos_turn = static_cast<float>(std::cos(a));
    exposure.sin_turn = static_cast<float>(std::sin(a));
  }
  if (threads <= 0) threads = hardware_threads();
  // Drawing order: opaque objects as listed, then the transparent ones (back to front by their
  // centre's depth when the scene asks for it; ties keep file order).
  std::vector<std::size_t> order, clear;
  for (std::size_t i = 0; i < scene.objects.size(); ++i) (scene.objects[i].transparent ? clear : order).push_back(i);
  if (scene.sort_transparent) {
    auto depth = [&](std::size_t i) {
      const auto& o = scene.objects[i];
      Vec3 c;
      for (const auto& v : o.mesh.vertices) c = c + v.p;
      if (!o.mesh.vertices.empty()) c = c * (1.0f / static_cast<float>(o.mesh.vertices.size()));
      return o.to_camera.point(c).z;
    };
    std::stable_sort(clear.begin(), clear.end(), [&](std::size_t a, std::size_t b) { return depth(a) > depth(b); });
  }
  order.insert(order.end(), clear.begin(), clear.end());

  std::vector<DrawBatch> out;
  for (std::size_t at = 0; at < order.size();) {
    DrawBatch b;
    b.shader = shaders.at(order[at]);
    // A batch is one draw: the same shader, and opaque or transparent (opaque geometry finishes its
    // passes before transparent geometry is drawn over it, as a multipass renderer does).
    const bool transparent = scene.objects[order[at]].transparent;
    for (; at < order.size() && shaders.at(order[at]) == b.shader && scene.objects[order[at]].transparent == transparent; ++at)
      add_object(b, scene.objects[order[at]], static_cast<std::uint32_t>(order[at]), threads, exposure);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace passlab::sim
