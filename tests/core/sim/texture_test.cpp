// SPDX-License-Identifier: GPL-3.0-or-later
// Texture filtering: the level of detail from a lookup's screen footprint, and trilinear lookups
// in the mip chain.
#include <cmath>

#include <gtest/gtest.h>

#include "core/sim/texture.h"

namespace passlab::sim {
namespace {

// A black-and-white checker of single texels.
Image checker(int size) {
  Image im(size, size);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      const float v = (x + y) % 2 ? 1.0f : 0.0f;
      float* p = im.at(x, y);
      p[0] = p[1] = p[2] = v;
      p[3] = 1;
    }
  return im;
}

TEST(Texture, LevelOfDetailIsLog2OfTheLargerFootprintSide) {
  // One texel per pixel along x and four along y (a 64-texel image): level 2.
  const float grad[4] = {1.0f / 64, 0, 0, 4.0f / 64};
  EXPECT_FLOAT_EQ(TextureSet::level_of_detail(grad, 64, 64), 2.0f);
  const float diagonal[4] = {3.0f / 64, 4.0f / 64, 0, 0};  // five texels along a diagonal
  EXPECT_FLOAT_EQ(TextureSet::level_of_detail(diagonal, 64, 64), std::log2(5.0f));
  const float none[4] = {0, 0, 0, 0};
  EXPECT_EQ(TextureSet::level_of_detail(none, 64, 64), 0.0f);
  const float nan[4] = {NAN, 0, 0, 0};
  EXPECT_EQ(TextureSet::level_of_detail(nan, 64, 64), 0.0f);
  const float infinite[4] = {INFINITY, 0, 0, 0};  // past the horizon: the coarsest level
  EXPECT_GT(TextureSet::level_of_detail(infinite, 64, 64), 6.0f);
}

TEST(Texture, MinifiedLookupsAverageAndMagnifiedOnesAreBilinear) {
  TextureSet set;
  set.add("checks", checker(64));
  ASSERT_EQ(set.levels("checks")->size(), 7u);  // 64, 32, ..., 1
  // Magnified: the bilinear lookup of level 0, a texel centre giving the texel itself.
  const float magnified[4] = {0.25f / 64, 0, 0, 0.25f / 64};
  const float c[2] = {0.5f / 64, 0.5f / 64};
  EXPECT_FLOAT_EQ(set.sample_grad("checks", c[0], c[1], magnified)[0], set.sample("checks", 2, c)[0]);
  EXPECT_FLOAT_EQ(set.sample_grad("checks", c[0], c[1], magnified)[0], 0.0f);
  // Minified by two texels a pixel or more: every level past 0 is the checker's mean.
  for (float texels : {2.0f, 3.0f, 8.0f, 64.0f, 1000.0f}) {
    const float grad[4] = {texels / 64, 0, 0, texels / 64};
    for (float s : {0.1f, 0.37f, 0.9f}) EXPECT_NEAR(set.sample_grad("checks", s, 0.6f, grad)[1], 0.5f, 1e-6f) << texels;
  }
  // Between levels 0 and 1, a blend: at a texel centre, 0 at level 0 and 0.5 at level 1.
  const float between[4] = {std::sqrt(2.0f) / 64, 0, 0, 0};
  EXPECT_NEAR(set.sample_grad("checks", c[0], c[1], between)[0], 0.25f, 1e-5f);
  // A name without an image is the procedural stand-in, whatever the footprint.
  const float big[4] = {1, 0, 0, 1};
  const float st[2] = {0.3f, 0.7f};
  EXPECT_EQ(set.sample_grad("nothing", st[0], st[1], big), set.sample("nothing", 2, st));
}

}  // namespace
}  // namespace passlab::sim
