// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/math.h"

#include <numbers>

namespace passlab::sim {

Mat4 Mat4::translate(const Vec3& t) {
  Mat4 r;
  r.m[12] = t.x;
  r.m[13] = t.y;
  r.m[14] = t.z;
  return r;
}

Mat4 Mat4::scale(const Vec3& s) {
  Mat4 r;
  r.m[0] = s.x;
  r.m[5] = s.y;
  r.m[10] = s.z;
  return r;
}

Mat4 Mat4::rotate(float degrees, const Vec3& axis) {
  const Vec3 a = normalize(axis);
  const float rad = degrees * std::numbers::pi_v<float> / 180.0f;
  const float c = std::cos(rad), s = std::sin(rad), k = 1 - c;
  // The rotation for row vectors (the transpose of the column-vector form).
  Mat4 r;
  r.m = {a.x * a.x * k + c,       a.x * a.y * k + a.z * s, a.x * a.z * k - a.y * s, 0,
         a.x * a.y * k - a.z * s, a.y * a.y * k + c,       a.y * a.z * k + a.x * s, 0,
         a.x * a.z * k + a.y * s, a.y * a.z * k - a.x * s, a.z * a.z * k + c,       0,
         0,                       0,                       0,                       1};
  return r;
}

Mat4 Mat4::look_at(const Vec3& from, const Vec3& to, const Vec3& up) {
  const Vec3 z = normalize(to - from);
  const Vec3 x = normalize(cross(up, z));  // left-handed: x right when y is up and z forward
  const Vec3 y = cross(z, x);
  Mat4 r;
  r.m = {x.x, y.x, z.x, 0, x.y, y.y, z.y, 0, x.z, y.z, z.z, 0, -dot(from, x), -dot(from, y), -dot(from, z), 1};
  return r;
}

Mat4 Mat4::operator*(const Mat4& o) const {
  Mat4 r;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float sum = 0;
      for (int k = 0; k < 4; ++k) sum += m[i * 4 + k] * o.m[k * 4 + j];
      r.m[i * 4 + j] = sum;
    }
  return r;
}

Vec3 Mat4::point(const Vec3& p) const {
  const float x = p.x * m[0] + p.y * m[4] + p.z * m[8] + m[12];
  const float y = p.x * m[1] + p.y * m[5] + p.z * m[9] + m[13];
  const float z = p.x * m[2] + p.y * m[6] + p.z * m[10] + m[14];
  const float w = p.x * m[3] + p.y * m[7] + p.z * m[11] + m[15];
  return w != 1.0f && w != 0.0f ? Vec3{x / w, y / w, z / w} : Vec3{x, y, z};
}

Vec3 Mat4::vector(const Vec3& v) const {
  return {v.x * m[0] + v.y * m[4] + v.z * m[8], v.x * m[1] + v.y * m[5] + v.z * m[9], v.x * m[2] + v.y * m[6] + v.z * m[10]};
}

Vec3 Mat4::normal(const Vec3& n) const {
  Mat4 inv;
  if (!inverse(&inv)) return n;
  // n' = n * (M^-1)^T: row i of the result uses column i of the inverse.
  return {n.x * inv.m[0] + n.y * inv.m[1] + n.z * inv.m[2], n.x * inv.m[4] + n.y * inv.m[5] + n.z * inv.m[6],
          n.x * inv.m[8] + n.y * inv.m[9] + n.z * inv.m[10]};
}

bool Mat4::inverse(Mat4* out) const {
  // Gauss-Jordan elimination with partial pivoting.
  std::array<double, 32> a{};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) a[i * 8 + j] = m[i * 4 + j];
    a[i * 8 + 4 + i] = 1;
  }
  for (int c = 0; c < 4; ++c) {
    int pivot = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::fabs(a[r * 8 + c]) > std::fabs(a[pivot * 8 + c])) pivot = r;
    if (std::fabs(a[pivot * 8 + c]) < 1e-12) return false;
    for (int j = 0; j < 8; ++j) std::swap(a[c * 8 + j], a[pivot * 8 + j]);
    const double d = a[c * 8 + c];
    for (int j = 0; j < 8; ++j) a[c * 8 + j] /= d;
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const double f = a[r * 8 + c];
      for (int j = 0; j < 8; ++j) a[r * 8 + j] -= f * a[c * 8 + j];
    }
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) out->m[i * 4 + j] = static_cast<float>(a[i * 8 + 4 + j]);
  return true;
}

}  // namespace passlab::sim
