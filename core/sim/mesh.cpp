// SPDX-License-Identifier: GPL-3.0-or-later
// Procedural shapes and the completion of per-vertex attributes (mesh files: mesh_io.cpp).
#include "core/sim/mesh.h"

#include <algorithm>
#include <functional>
#include <numbers>

namespace passlab::sim {

namespace {

constexpr float kTau = 2 * std::numbers::pi_v<float>;

// A (columns + 1) x (rows + 1) vertex grid over u, v in [0, 1], two triangles per cell, each wound
// so that its face normal agrees with the vertex normals. dPdu and dPdv come from the position
// function by central differences, so every shape gets them the same way.
Mesh make_grid(int columns, int rows, const std::function<Vec3(float, float)>& position,
               const std::function<Vec3(float, float)>& normal) {
  Mesh m;
  const float h = 1e-3f;
  for (int j = 0; j <= rows; ++j)
    for (int i = 0; i <= columns; ++i) {
      const float u = static_cast<float>(i) / columns, v = static_cast<float>(j) / rows;
      Vertex x;
      x.p = position(u, v);
      x.n = normalize(normal(u, v));
      x.u = x.s = u;
      x.v = x.t = v;
      x.dpdu = (position(u + h, v) - position(u - h, v)) * (1 / (2 * h));
      x.dpdv = (position(u, std::min(v + h, 1.0f)) - position(u, std::max(v - h, 0.0f))) *
               (1 / (std::min(v + h, 1.0f) - std::max(v - h, 0.0f)));
      m.vertices.push_back(x);
    }
  auto at = [&](int i, int j) { return static_cast<std::uint32_t>(j * (columns + 1) + i); };
  auto add = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    const Vec3 face = cross(m.vertices[b].p - m.vertices[a].p, m.vertices[c].p - m.vertices[a].p);
    if (dot(face, face) == 0) return;  // degenerate (a pole)
    const Vec3 n = m.vertices[a].n + m.vertices[b].n + m.vertices[c].n;
    if (dot(face, n) < 0) std::swap(b, c);
    m.triangles.push_back({a, b, c});
  };
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < columns; ++i) {
      add(at(i, j), at(i + 1, j), at(i + 1, j + 1));
      add(at(i, j), at(i + 1, j + 1), at(i, j + 1));
    }
  return m;
}

}  // namespace

void Mesh::complete() {
  // Face normals and texture-space derivatives, accumulated per vertex.
  std::vector<Vec3> n(vertices.size()), du(vertices.size()), dv(vertices.size());
  for (const auto& t : triangles) {
    const Vertex &a = vertices[t[0]], &b = vertices[t[1]], &c = vertices[t[2]];
    const Vec3 e1 = b.p - a.p, e2 = c.p - a.p;
    const Vec3 face = cross(e1, e2);
    const float s1 = b.s - a.s, s2 = c.s - a.s, t1 = b.t - a.t, t2 = c.t - a.t;
    const float det = s1 * t2 - s2 * t1;
    Vec3 dpdu, dpdv;
    if (det != 0) {
      dpdu = (e1 * t2 - e2 * t1) * (1 / det);
      dpdv = (e2 * s1 - e1 * s2) * (1 / det);
    }
    for (auto i : t) {
      n[i] = n[i] + face;
      du[i] = du[i] + dpdu;
      dv[i] = dv[i] + dpdv;
    }
  }
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    Vertex& x = vertices[i];
    if (x.n == Vec3{}) x.n = normalize(n[i]);
    if (x.dpdu == Vec3{} && x.dpdv == Vec3{}) {
      x.dpdu = du[i];
      x.dpdv = dv[i];
    }
  }
}

Mesh flat_shaded(const Mesh& m) {
  Mesh out;
  out.vertices.reserve(m.triangles.size() * 3);
  out.triangles.reserve(m.triangles.size());
  for (const auto& t : m.triangles) {
    const Vec3 n = normalize(cross(m.vertices[t[1]].p - m.vertices[t[0]].p, m.vertices[t[2]].p - m.vertices[t[0]].p));
    const auto first = static_cast<std::uint32_t>(out.vertices.size());
    for (auto i : t) {
      Vertex v = m.vertices[i];
      v.n = n;
      out.vertices.push_back(v);
    }
    out.triangles.push_back({first, first + 1, first + 2});
  }
  return out;
}

Mesh make_sphere(float radius, int slices, int stacks) {
  auto dir = [](float u, float v) {
    const float phi = kTau * u, theta = std::numbers::pi_v<float> * (v - 0.5f);
    return Vec3{std::cos(theta) * std::cos(phi), std::sin(theta), std::cos(theta) * std::sin(phi)};
  };
  return make_grid(std::max(3, slices), std::max(2, stacks), [&](float u, float v) { return dir(u, v) * radius; }, dir);
}

Mesh make_torus(float major_radius, float minor_radius, int rings, int sides) {
  auto centre = [&](float u) { return Vec3{std::cos(kTau * u), 0, std::sin(kTau * u)}; };
  auto normal = [&](float u, float v) { return centre(u) * std::cos(kTau * v) + Vec3{0, std::sin(kTau * v), 0}; };
  return make_grid(std::max(3, rings), std::max(3, sides),
                   [&](float u, float v) { return centre(u) * major_radius + normal(u, v) * minor_radius; }, normal);
}

Mesh make_plane(float width, float height, int columns, int rows) {
  return make_grid(
      std::max(1, columns), std::max(1, rows),
      [&](float u, float v) { return Vec3{(u - 0.5f) * width, (v - 0.5f) * height, 0}; },
      [](float, float) { return Vec3{0, 0, -1}; });
}

Mesh make_lathe(const std::vector<std::array<float, 2>>& profile, int segments) {
  if (profile.size() < 2) return {};
  const int last = static_cast<int>(profile.size()) - 1;
  // The profile as a function of v in [0, 1], linear between its points.
  auto at = [&](float v) {
    const float x = std::clamp(v, 0.0f, 1.0f) * last;
    const int i = std::min(static_cast<int>(x), last - 1);
    const float f = x - i;
    return std::array<float, 2>{profile[i][0] * (1 - f) + profile[i + 1][0] * f, profile[i][1] * (1 - f) + profile[i + 1][1] * f};
  };
  auto position = [&](float u, float v) {
    const auto [r, y] = at(v);
    return Vec3{r * std::cos(kTau * u), y, r * std::sin(kTau * u)};
  };
  auto normal = [&](float u, float v) {
    // Perpendicular to the profile's tangent, pointing away from the axis.
    const float h = 0.5f / last;
    const auto a = at(v - h), b = at(v + h);
    const float dr = b[0] - a[0], dy = b[1] - a[1];
    return Vec3{dy * std::cos(kTau * u), -dr, dy * std::sin(kTau * u)};
  };
  return make_grid(std::max(3, segments), last, position, normal);
}

Mesh make_bowling_pin(int segments) {
  // Radius and height of a regulation pin scaled to height 1 (base, belly, neck, head, crown).
  const std::vector<std::array<float, 2>> profile = {
      {0.000f, 0.000f}, {0.085f, 0.000f}, {0.110f, 0.040f}, {0.140f, 0.120f}, {0.158f, 0.220f},
      {0.155f, 0.300f}, {0.135f, 0.400f}, {0.100f, 0.500f}, {0.068f, 0.600f}, {0.060f, 0.660f},
      {0.068f, 0.740f}, {0.082f, 0.820f}, {0.083f, 0.880f}, {0.070f, 0.940f}, {0.042f, 0.985f},
      {0.000f, 1.000f}};
  return make_lathe(profile, segments);
}

}  // namespace passlab::sim
