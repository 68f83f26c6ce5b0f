// SPDX-License-Identifier: GPL-3.0-or-later
// Small vector and matrix types for scenes and rasterization (float, as the shading is).
#pragma once

#include <array>
#include <cmath>

namespace passlab::sim {

struct Vec3 {
  float x = 0, y = 0, z = 0;
  Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(float k) const { return {x * k, y * k, z * k}; }
  Vec3 operator-() const { return {-x, -y, -z}; }
  friend bool operator==(const Vec3&, const Vec3&) = default;
};

inline float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
// a at f = 0, b at f = 1 (a point moving linearly, as scene motion does).
inline Vec3 lerp(const Vec3& a, const Vec3& b, float f) { return a + (b - a) * f; }
inline Vec3 cross(const Vec3& a, const Vec3& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline float length(const Vec3& a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(const Vec3& a) {
  const float l = length(a);
  return l > 0 ? a * (1.0f / l) : a;
}

// Row-major 4x4; points are row vectors as in RenderMan: p' = p * M.
struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  static Mat4 identity() { return {}; }
  static Mat4 translate(const Vec3& t);
  static Mat4 scale(const Vec3& s);
  static Mat4 rotate(float degrees, const Vec3& axis);
  // The camera transform of RenderMan's camera space: eye at the origin looking down +z, y up
  // (left-handed). `from`, `to` and `up` are in world space.
  static Mat4 look_at(const Vec3& from, const Vec3& to, const Vec3& up);
  Mat4 operator*(const Mat4& o) const;  // apply this, then o
  Vec3 point(const Vec3& p) const;
  Vec3 vector(const Vec3& v) const;
  Vec3 normal(const Vec3& n) const;  // by the inverse transpose
  bool inverse(Mat4* out) const;
};

}  // namespace passlab::sim
