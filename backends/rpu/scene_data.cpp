// SPDX-License-Identifier: GPL-3.0-or-later
// The scene's records in RPU data memory, and the trace unit over its BVH.
#include "backends/rpu/scene_data.h"

#include <cmath>

#include "backends/rpu/memory_map.h"

namespace passlab::rpu {

SceneData::SceneData(const sim::Scene& scene, const std::vector<float>& shader_address, const TextureMemory& textures)
    : shader_(shader_address) {
  shader_.resize(scene.objects.size(), -1.0f);
  std::size_t vertex_count = 0, triangle_count = 0;
  for (const sim::SceneObject& o : scene.objects) {
    vertex_count += o.mesh.vertices.size();
    triangle_count += o.mesh.triangles.size();
  }
  objects_ = textures.end();
  const auto vertices = objects_ + static_cast<std::uint32_t>(scene.objects.size() * kObjectWords);
  triangles_ = vertices + static_cast<std::uint32_t>(vertex_count * kVertexWords);
  memory_.assign(triangles_ + triangle_count * kTriangleWords, Vec4{});
  write_noise_lattice(memory_);
  textures.write(memory_);
  std::vector<std::array<sim::Vec3, 3>> tris;
  tris.reserve(triangle_count);
  triangle_object_.reserve(triangle_count);
  std::uint32_t next_vertex = vertices, next_triangle = triangles_;
  for (std::size_t oi = 0; oi < scene.objects.size(); ++oi) {
    const sim::SceneObject& o = scene.objects[oi];
    const std::uint32_t record = objects_ + static_cast<std::uint32_t>(oi * kObjectWords);
    memory_[record] = {o.cs.x, o.cs.y, o.cs.z, static_cast<float>(oi)};
    memory_[record + 1] = {o.os.x, o.os.y, o.os.z, 0};
    memory_[record + 2] = {shader_[oi], 0, 0, 0};
    const std::uint32_t first = next_vertex;
    std::vector<sim::Vec3> camera(o.mesh.vertices.size());
    for (std::size_t vi = 0; vi < o.mesh.vertices.size(); ++vi) {
      const sim::Vertex& v = o.mesh.vertices[vi];
      const sim::Vec3 p = o.to_camera.point(v.p);
      const sim::Vec3 n = sim::normalize(o.to_camera.normal(v.n));
      const sim::Vec3 du = o.to_camera.vector(v.dpdu), dv = o.to_camera.vector(v.dpdv);
      camera[vi] = p;
      Vec4* w = &memory_[next_vertex];
      w[0] = {p.x, p.y, p.z, 1};
      w[1] = {n.x, n.y, n.z, 0};
      w[2] = {v.s, v.t, v.u, v.v};
      w[3] = {du.x, du.y, du.z, 0};
      w[4] = {dv.x, dv.y, dv.z, 0};
      next_vertex += kVertexWords;
    }
    for (const auto& t : o.mesh.triangles) {
      memory_[next_triangle] = {static_cast<float>(first + t[0] * kVertexWords), static_cast<float>(first + t[1] * kVertexWords),
                                static_cast<float>(first + t[2] * kVertexWords), static_cast<float>(record)};
      next_triangle += kTriangleWords;
      tris.push_back({camera[t[0]], camera[t[1]], camera[t[2]]});
      triangle_object_.push_back(static_cast<std::uint32_t>(oi));
    }
  }
  bvh_ = Bvh(tris);
  extent_ = std::max(1e-6f, sim::length(bvh_.upper() - bvh_.lower()));
}

Hit SceneData::trace(const Vec4& origin, const Vec4& direction, const Vec4& args) const {
  Hit h;
  const float t_max = args[1] > 0 ? args[1] : std::numeric_limits<float>::infinity();
  const RayHit r = bvh_.intersect({origin[0], origin[1], origin[2]}, {direction[0], direction[1], direction[2]}, args[0], t_max);
  h.boxes = r.boxes;
  h.triangles = r.triangles;
  if (!r.hit) return h;
  const std::uint32_t obj = triangle_object_[r.triangle];
  h.u = r.u;
  h.v = r.v;
  h.t = r.t;
  h.shader = shader_[obj];
  h.triangle = static_cast<std::int32_t>(triangle_record(r.triangle));
  h.object = static_cast<std::int32_t>(objects_ + obj * kObjectWords);
  return h;
}

}  // namespace passlab::rpu
