// SPDX-License-Identifier: GPL-3.0-or-later
// OpenGL (Mesa's llvmpipe) as a second opinion: every sample rendered from the GLSL of its single
// pass and of its passes with render-to-texture intermediates matches the simulator. Tolerance:
// under 1% of pixels may differ by more than 2/255 in a channel (coverage at silhouette edges,
// where OpenGL's rasterization rules and ours may pick different triangles, and transcendental
// functions that llvmpipe approximates), and the mean difference stays under 0.002.
#include <gtest/gtest.h>

#include "session/render_job.h"
#include "tools/glcompare/compare.h"
#include "tools/glcompare/gl_render.h"

namespace passlab {
namespace {

class GlSample : public testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    gl_ = gl::GlRenderer::create(&error).release();
    ASSERT_NE(gl_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    delete gl_;
    gl_ = nullptr;
  }
  static gl::GlRenderer* gl_;
};
gl::GlRenderer* GlSample::gl_ = nullptr;

TEST_P(GlSample, LlvmpipeMatchesTheSimulatorInOnePassAndInPasses) {
  ASSERT_NE(gl_, nullptr);
  EXPECT_NE(gl_->renderer().find("llvmpipe"), std::string::npos) << gl_->renderer();
  lang::Diagnostics problems;
  auto scene = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + GetParam() + ".json", &problems);
  ASSERT_TRUE(scene);
  scene->width = scene->height = 64;
  for (const auto store : {sim::Storage::SinglePass, sim::Storage::RenderToTexture}) {
    session::RenderRequest req;
    req.target = "PC4";
    req.options.storage = store;
    std::string diagnostics, error;
    auto shaders = session::SceneShaders::build(*scene, req, &diagnostics);
    ASSERT_TRUE(shaders) << diagnostics;
    const std::vector<const sim::FragmentShader*> per(shaders->per_object().begin(), shaders->per_object().end());
    sim::RenderOptions o;
    o.storage = store;
    sim::RenderStats stats;
    auto ours = sim::render(*scene, per, o, &stats, &error);
    auto theirs = gl_->render(*scene, shaders->per_object(), shaders->textures(), 64, 64, &error);
    ASSERT_TRUE(ours && theirs) << error;
    if (store == sim::Storage::RenderToTexture && GetParam() != "matte") {
      EXPECT_GT(stats.passes, 2);  // (matte takes 2 passes on PC4)
    }
    const gl::Difference d = gl::compare(*ours, *theirs, 2.0 / 255);
    EXPECT_LT(d.over_fraction, 0.01) << sim::to_string(store) << ": max " << d.max << ", mean " << d.mean;
    EXPECT_LT(d.mean, 0.002) << sim::to_string(store);
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, GlSample,
                         testing::Values("bowling_pin", "brick", "bump_pin", "marble", "matte", "plastic", "toon", "wood",
                                         "transparent"));

}  // namespace
}  // namespace passlab
