// SPDX-License-Identifier: GPL-3.0-or-later
// The noise texture's batched lookups (SIMD where the processor has it) against one lookup at a
// time: the same bits for every lane, including the awkward coordinates.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/ir/value.h"

namespace passlab::ir {
namespace {

std::vector<float> coordinates(std::uint32_t seed, int n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-200.0f, 200.0f), unit(0.0f, 1.0f);
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 31.0f, 32.0f, -32.0f, 0.5f, -0.5f, 1e-30f, 1e9f, -1e9f, 3e9f, -7e12f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), std::nextafter(1.0f, 0.0f), std::nextafter(-3.0f, 0.0f)};
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    const std::uint32_t pick = rng() % 8;
    x = pick == 0 ? specials[rng() % std::size(specials)] : pick < 4 ? unit(rng) * 32 : wide(rng);
  }
  return v;
}

TEST(Noise, BatchedLookupsGiveTheBitsOfSingleOnes) {
  for (int dims = 1; dims <= 3; ++dims)
    for (int channels = 1; channels <= 4; ++channels)
      for (int n : {1, 7, 8, 9, 64, 203}) {
        std::vector<float> axis[3];
        for (int i = 0; i < 3; ++i) axis[i] = coordinates(static_cast<std::uint32_t>(dims * 1000 + channels * 100 + n + i), n);
        std::vector<float> plane[4];
        for (auto& p : plane) p.assign(static_cast<std::size_t>(n), -1.0f);
        const float* coords[3] = {axis[0].data(), axis[1].data(), axis[2].data()};
        float* out[4] = {plane[0].data(), plane[1].data(), plane[2].data(), plane[3].data()};
        sample_noise_batch(dims, n, coords, channels, out);
        for (int k = 0; k < n; ++k) {
          const float c[3] = {axis[0][static_cast<std::size_t>(k)], axis[1][static_cast<std::size_t>(k)], axis[2][static_cast<std::size_t>(k)]};
          const std::array<float, 4> one = sample_noise(dims, c, channels);
          for (int ch = 0; ch < 4; ++ch) {
            const float got = plane[ch][static_cast<std::size_t>(k)];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(one[static_cast<std::size_t>(ch)]))
                << "dims " << dims << " channels " << channels << " lane " << k << " of " << n << " channel " << ch
                << " at (" << c[0] << ", " << c[1] << ", " << c[2] << "): " << got << " vs " << one[static_cast<std::size_t>(ch)];
            if (ch >= channels) EXPECT_EQ(got, 0.0f);
            else {
              EXPECT_GE(got, 0.0f);
              EXPECT_LE(got, 1.0f);
            }
          }
        }
      }
}

TEST(Noise, IsTrilinearBetweenLatticePoints) {
  // Halfway between two lattice points along x, the value is the mean of the two.
  for (int y = 0; y < 4; ++y) {
    const float a[3] = {3, static_cast<float>(y), 5}, b[3] = {4, static_cast<float>(y), 5}, mid[3] = {3.5f, static_cast<float>(y), 5};
    EXPECT_NEAR(sample_noise(3, mid)[0], 0.5f * (sample_noise(3, a)[0] + sample_noise(3, b)[0]), 1e-6f);
  }
}

}  // namespace
}  // namespace passlab::ir
