// SPDX-License-Identifier: GPL-3.0-or-later
// The textures every evaluator shares: the noise lattice that `noise()` reads, filtered
// trilinearly like a GPU's 3D texture (with an AVX2 path of the same bits), and the procedural
// stand-ins for named textures without images.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/ir/value.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define PASSLAB_NOISE_AVX2 1
#include <immintrin.h>
#else
#define PASSLAB_NOISE_AVX2 0
#endif

namespace passlab::ir {

namespace {

std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

std::uint32_t hash_string(const std::string& s) {
  std::uint32_t h = 2166136261U;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 16777619U;
  return h;
}

float lattice(int x, int y, int z, int channel) {
  std::uint32_t h = hash32(static_cast<std::uint32_t>(x & 31) * 73856093U ^ static_cast<std::uint32_t>(y & 31) * 19349663U ^
                           static_cast<std::uint32_t>(z & 31) * 83492791U ^ static_cast<std::uint32_t>(channel) * 2654435761U);
  return static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

// The lattice as a texture in memory, one plane per channel (128 KB each): a lookup instead of
// four hashes per corner, and a one-channel lookup touches one plane.
const std::vector<float>& lattice_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(4 * 32 * 32 * 32);
    for (int ch = 0; ch < 4; ++ch)
      for (int z = 0; z < 32; ++z)
        for (int y = 0; y < 32; ++y)
          for (int x = 0; x < 32; ++x) t[static_cast<std::size_t>(((ch * 32 + z) * 32 + y) * 32 + x)] = lattice(x, y, z, ch);
    return t;
  }();
  return table;
}

}  // namespace

float noise_lattice(int x, int y, int z, int channel) {
  return lattice_table()[static_cast<std::size_t>(((channel & 3) * 32 + (z & 31)) * 32 + (y & 31)) * 32 + static_cast<std::size_t>(x & 31)];
}

std::array<float, 4> sample_noise(int dims, const float* coords) { return sample_noise(dims, coords, 4); }

std::array<float, 4> sample_noise(int dims, const float* coords, int channels) {
  float c[3] = {0, 0, 0};
  for (int i = 0; i < dims && i < 3; ++i) c[i] = coords[i];
  std::array<float, 4> out{};
  float* planes[4] = {&out[0], &out[1], &out[2], &out[3]};
  const float* axes[3] = {&c[0], &c[1], &c[2]};
  sample_noise_batch(3, 1, axes, channels, planes);
  return out;
}

namespace {

// Lookups [from, n) one at a time.
PASSLAB_HOT_CLONES void noise_lanes(int dims, int from, int n, const float* const coords[3], int channels,
                                    float* const out[4]) {
  const float* table = lattice_table().data();
  for (int lane = from; lane < n; ++lane) {
    int base[3];
    float w[3];
    for (int i = 0; i < 3; ++i) {
      const float x = i < dims ? coords[i][lane] : 0.0f;
      float fl = std::floor(x);
      // NaN, infinite or huge coordinates read lattice point 0.
      const bool sane = std::fabs(fl) <= 1e9f;
      if (!sane) fl = 0;
      base[i] = static_cast<int>(fl);
      w[i] = sane && std::isfinite(x - fl) ? x - fl : 0.0f;
    }
    float acc[4] = {0, 0, 0, 0};
    // The weight of corner (dx, dy, dz) is (wx * wy) * wz, multiplied in that order.
    const float wx[2] = {1 - w[0], w[0]}, wy[2] = {1 - w[1], w[1]}, wz[2] = {1 - w[2], w[2]};
    const float wxy[4] = {wx[0] * wy[0], wx[1] * wy[0], wx[0] * wy[1], wx[1] * wy[1]};
    for (int corner = 0; corner < 8; ++corner) {
      const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
      const float weight = wxy[corner & 3] * wz[dz];
      const std::size_t at = static_cast<std::size_t>((((base[2] + dz) & 31) * 32 + ((base[1] + dy) & 31)) * 32 + ((base[0] + dx) & 31));
      for (int ch = 0; ch < channels; ++ch) acc[ch] += weight * table[static_cast<std::size_t>(ch) * 32768 + at];
    }
    for (int ch = 0; ch < 4; ++ch) out[ch][lane] = acc[ch];
  }
}

#if PASSLAB_NOISE_AVX2
// Eight lookups at a time with AVX2 gathers: lane for lane the operations of noise_lanes, in the
// same order and without fused multiply-adds, so the bits are the same. Returns the lookups done
// (a multiple of 8).
__attribute__((target("avx2"))) int noise_lanes_avx2(int dims, int n, const float* const coords[3], int channels,
                                                      float* const out[4]) {
  const float* table = lattice_table().data();
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), limit = _mm256_set1_ps(1e9f),
               infinity = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256i mask31 = _mm256_set1_epi32(31), one_i = _mm256_set1_epi32(1);
  int lane = 0;
  for (; lane + 8 <= n; lane += 8) {
    __m256i base[3];
    __m256 w[3];
    for (int i = 0; i < 3; ++i) {
      const __m256 x = i < dims ? _mm256_loadu_ps(coords[i] + lane) : zero;
      __m256 fl = _mm256_floor_ps(x);
      const __m256 sane = _mm256_cmp_ps(_mm256_and_ps(fl, abs_mask), limit, _CMP_LE_OQ);
      fl = _mm256_and_ps(fl, sane);
      base[i] = _mm256_cvttps_epi32(fl);
      const __m256 d = _mm256_sub_ps(x, fl);
      w[i] = _mm256_and_ps(_mm256_and_ps(d, sane), _mm256_cmp_ps(_mm256_and_ps(d, abs_mask), infinity, _CMP_LT_OQ));
    }
    const __m256 wx[2] = {_mm256_sub_ps(one, w[0]), w[0]}, wy[2] = {_mm256_sub_ps(one, w[1]), w[1]},
                 wz[2] = {_mm256_sub_ps(one, w[2]), w[2]};
    const __m256 wxy[4] = {_mm256_mul_ps(wx[0], wy[0]), _mm256_mul_ps(wx[1], wy[0]), _mm256_mul_ps(wx[0], wy[1]),
                           _mm256_mul_ps(wx[1], wy[1])};
    __m256i ix[2], iy[2], iz[2];
    for (int d = 0; d < 2; ++d) {
      const __m256i step = d ? one_i : _mm256_setzero_si256();
      ix[d] = _mm256_and_si256(_mm256_add_epi32(base[0], step), mask31);
      iy[d] = _mm256_slli_epi32(_mm256_and_si256(_mm256_add_epi32(base[1], step), mask31), 5);
      iz[d] = _mm256_slli_epi32(_mm256_and_si256(_mm256_add_epi32(base[2], step), mask31), 10);
    }
    __m256 acc[4] = {zero, zero, zero, zero};
    for (int corner = 0; corner < 8; ++corner) {
      const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
      const __m256 weight = _mm256_mul_ps(wxy[corner & 3], wz[dz]);
      const __m256i at = _mm256_add_epi32(_mm256_add_epi32(iz[dz], iy[dy]), ix[dx]);
      for (int ch = 0; ch < channels; ++ch)
        acc[ch] = _mm256_add_ps(acc[ch], _mm256_mul_ps(weight, _mm256_i32gather_ps(table + ch * 32768, at, 4)));
    }
    for (int ch = 0; ch < 4; ++ch) _mm256_storeu_ps(out[ch] + lane, acc[ch]);
  }
  return lane;
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace

void sample_noise_batch(int dims, int n, const float* const coords[3], int channels, float* const out[4]) {
  channels = std::clamp(channels, 0, 4);
  int done = 0;
#if PASSLAB_NOISE_AVX2
  if (n >= 8 && has_avx2()) done = noise_lanes_avx2(dims, n, coords, channels, out);
#endif
  noise_lanes(dims, done, n, coords, channels, out);
}

ProceduralBand procedural_band(const std::string& name, int channel) {
  const std::uint32_t k = hash32(hash_string(name) + static_cast<std::uint32_t>(channel) * 0x9e3779b9U);
  return {1.0f + static_cast<float>(k & 7), 1.0f + static_cast<float>((k >> 3) & 7),
          static_cast<float>((k >> 8) & 1023) / 1024.0f * 6.2831853f};
}

std::array<float, 4> ProceduralTextures::sample(const std::string& name, int dims, const float* coords) const {
  float s = dims > 0 ? coords[0] : 0.0f, t = dims > 1 ? coords[1] : 0.0f;
  std::array<float, 4> out{};
  for (int ch = 0; ch < 3; ++ch) {
    const ProceduralBand b = procedural_band(name, ch);
    out[static_cast<std::size_t>(ch)] = 0.5f + 0.5f * std::sin(6.2831853f * (b.fs * s + b.ft * t) + b.phase);
  }
  out[3] = 1.0f;
  return out;
}

}  // namespace passlab::ir
