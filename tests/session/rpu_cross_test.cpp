// SPDX-License-Identifier: GPL-3.0-or-later
// One shader, two machines: a sample scene rasterized by the fragment pipeline and ray-traced by
// the RPU (each shader compiled against the same light setup) gives the same picture, for the
// samples whose shaders stay inside the RPU's subset.
#include <gtest/gtest.h>

#include "session/render_job.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"

namespace passlab {
namespace {

class BothTargets : public testing::TestWithParam<std::string> {};

TEST_P(BothTargets, RayTracingOnTheRpuGivesTheRasterizersPicture) {
  lang::Diagnostics problems;
  std::optional<sim::Scene> scene = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + GetParam() + ".json", &problems);
  ASSERT_TRUE(scene) << problems.text();
  const int size = 96;
  scene->width = scene->height = size;
  session::RenderRequest req;
  req.options.storage = sim::Storage::SinglePass;
  req.options.threads = 2;
  const session::RenderOutcome raster = session::render_scene(*scene, req);
  ASSERT_TRUE(raster.image) << raster.diagnostics;
  const rpu::SceneProgram sp = rpu::compile_scene(*scene, size, size, "", "", "", {});
  ASSERT_TRUE(sp.ok()) << lang::format_text(sp.compiled->diagnostics.items(), *sp.compiled->sources);
  const rpu::SceneData data(*scene, sp.object_shader, sp.compiled->textures);
  const rpu::RenderResult rpu = rpu::render(*sp.compiled->program, sp.main_entry, data, *scene, {});
  ASSERT_EQ(rpu.fault_count, 0u);
  std::size_t over = 0;
  for (std::size_t i = 0; i < rpu.image.rgba.size(); ++i) {
    // As a PNG stores them: both clamped to [0, 1].
    const float a = std::clamp(rpu.image.rgba[i], 0.0f, 1.0f), b = std::clamp(raster.image->rgba[i], 0.0f, 1.0f);
    over += std::fabs(a - b) > 2.0f / 255;
  }
  EXPECT_LT(static_cast<double>(over) / static_cast<double>(rpu.image.rgba.size()), 0.005) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Samples, BothTargets, testing::Values("matte", "plastic"));

}  // namespace
}  // namespace passlab
