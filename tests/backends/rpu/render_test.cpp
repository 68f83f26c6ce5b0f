// SPDX-License-Identifier: GPL-3.0-or-later
// Rendering on the RPU: the thesis's two bunny images and a scene of recursive reflections and
// ray-traced shadows, each against the reference renderer (the interpreter with C++ rays);
// determinism across host threads; faults shown and reported, never a crash.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "backends/rpu/bvh.h"
#include "backends/rpu/reference.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

namespace fs = std::filesystem;

std::string scene_path(const std::string& name) { return std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + name; }

struct Rendered {
  sim::Scene scene;
  SceneProgram program;
  RenderResult vm;
};

Rendered render_scene(const std::string& path, int w, int h, int threads = 0, const Machine* machine = nullptr) {
  Rendered r;
  lang::Diagnostics problems;
  std::optional<sim::Scene> s = sim::load_scene(path, &problems);
  std::string why;
  why += problems.text();
  EXPECT_TRUE(s) << why << "(the bunny comes from scripts/setup.sh)";
  if (!s) return r;
  r.scene = *s;
  CompileOptions co;
  co.machine = machine;
  r.program = compile_scene(r.scene, w, h, "", "", "", co);
  EXPECT_TRUE(r.program.ok()) << lang::format_text(r.program.compiled->diagnostics.items(), *r.program.compiled->sources);
  if (!r.program.ok()) return r;
  SceneData data(r.scene, r.program.object_shader, r.program.compiled->textures);
  RenderOptions ro;
  ro.width = w;
  ro.height = h;
  ro.threads = threads;
  ro.machine = machine;
  r.vm = render(*r.program.compiled->program, r.program.main_entry, data, r.scene, ro);
  return r;
}

// The share of channel values further apart than `tolerance`.
double share_different(const sim::Image& a, const sim::Image& b, float tolerance) {
  std::size_t over = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) over += std::fabs(a.rgba[i] - b.rgba[i]) > tolerance;
  return static_cast<double>(over) / static_cast<double>(a.rgba.size());
}

sim::Image reference_of(const Rendered& r, int w, int h) {
  SceneData data(r.scene, r.program.object_shader, r.program.compiled->textures);
  ReferenceOptions ro;
  ro.width = w;
  ro.height = h;
  ReferenceResult ref = reference_render(r.program, data, r.scene, ro);
  EXPECT_EQ(ref.errors, 0u) << ref.first_error;
  return ref.image;
}

TEST(RpuRender, TheThesisDepthShadedBunnyMatchesTheReference) {
  const Rendered r = render_scene(scene_path("rpu_depth.json"), 96, 96);
  if (!r.program.ok()) return;
  EXPECT_EQ(r.vm.fault_count, 0u);
  EXPECT_LT(share_different(r.vm.image, reference_of(r, 96, 96), 2.5f / 255), 0.002);
  // Green where the bunny is near, magenta where it is far.
  int near = 0, far = 0;
  for (int y = 0; y < 96; ++y)
    for (int x = 0; x < 96; ++x) {
      const float* p = r.vm.image.at(x, y);
      if (p[1] > 0.8f && p[0] < 0.2f) ++near;
      if (p[0] > 0.5f && p[0] > p[1]) ++far;
    }
  EXPECT_GT(near, 20);
  EXPECT_GT(far, 20);
}

TEST(RpuRender, TheThesisFlatShadedBunnyMatchesTheReference) {
  const Rendered r = render_scene(scene_path("rpu_flat.json"), 96, 96);
  if (!r.program.ok()) return;
  EXPECT_EQ(r.vm.fault_count, 0u);
  EXPECT_LT(share_different(r.vm.image, reference_of(r, 96, 96), 2.5f / 255), 0.002);
  EXPECT_EQ(r.vm.stats.traces, 96u * 96u);  // one ray a pixel: the thesis's shaders cast no more
}

TEST(RpuRender, RecursiveReflectionsAndShadowsMatchTheReference) {
  const Rendered r = render_scene(scene_path("rpu_reflections.json"), 96, 72);
  if (!r.program.ok()) return;
  EXPECT_EQ(r.vm.fault_count, 0u);
  EXPECT_LT(share_different(r.vm.image, reference_of(r, 96, 72), 3.0f / 255), 0.01);
  // With one ray level the mirrors see only the background: fewer shader calls, another image.
  sim::Scene shallow = r.scene;
  shallow.ray_depth = 1;
  SceneData data(shallow, r.program.object_shader, r.program.compiled->textures);
  RenderOptions ro;
  ro.width = 96;
  ro.height = 72;
  const RenderResult flat = render(*r.program.compiled->program, r.program.main_entry, data, shallow, ro);
  EXPECT_LT(flat.stats.calls, r.vm.stats.calls);
  EXPECT_GT(share_different(flat.image, r.vm.image, 0.05f), 0.01);
  EXPECT_GT(r.vm.stats.traces, 3u * 96 * 72 / 2);  // shadow rays on top of the camera's
}

TEST(RpuBvh, ATriangleWithoutAreaIsNeverHit) {
  // A sphere's pole triangles have two corners on a line with the third: Möller-Trumbore's
  // determinant is then zero up to rounding, and dividing by it gave hits anywhere (one at t = 1,
  // u = v = 0 made the VM and the reference disagree on a reflection).
  const sim::Vec3 a{0.1f, 0.2f, 5}, b{0.7f, 0.35f, 5.3f};
  const sim::Vec3 c = a + (b - a) * 3.1f;  // on the line through a and b, up to rounding
  const Bvh bvh(std::vector<std::array<sim::Vec3, 3>>{{a, b, c}, {sim::Vec3{-1, -1, 9}, sim::Vec3{1, -1, 9}, sim::Vec3{0, 1, 9}}});
  ir::SplitMix64 rng{7};
  int flat_hits = 0;
  for (int i = 0; i < 2000; ++i) {
    const sim::Vec3 on = a + (b - a) * rng.range(-1, 4);
    const sim::Vec3 from{rng.range(-3, 3), rng.range(-3, 3), rng.range(-2, 2)};
    const RayHit h = bvh.intersect(from, on - from, 1e-4f, 1e30f);
    flat_hits += h.hit && h.triangle == 0;
    const RayHit all = bvh.intersect_all(from, on - from, 1e-4f, 1e30f);
    EXPECT_EQ(h.hit, all.hit);
  }
  EXPECT_EQ(flat_hits, 0);
  // The real triangle behind is still hit.
  EXPECT_TRUE(bvh.intersect({0, 0, 0}, {0, 0, 1}, 1e-4f, 1e30f).hit);
}

TEST(RpuRender, PairedWordsKeepChunkOccupancyAtMostOne) {
  // Occupancy is active lanes per issued word over the chunk's lanes; a pair is one issue (it
  // once counted two instructions and read 1.0143 on the reflections scene with --pair).
  Machine m = default_machine();
  ASSERT_TRUE(m.pairing);
  lang::Diagnostics problems;
  std::optional<sim::Scene> s = sim::load_scene(scene_path("rpu_reflections.json"), &problems);
  ASSERT_TRUE(s) << "(the bunny comes from scripts/setup.sh)";
  CompileOptions co;
  co.pair = true;
  SceneProgram sp = compile_scene(*s, 48, 36, "", "", "", co);
  ASSERT_TRUE(sp.ok());
  SceneData data(*s, sp.object_shader, sp.compiled->textures);
  RenderOptions ro;
  ro.width = 48;
  ro.height = 36;
  const RenderResult r = render(*sp.compiled->program, sp.main_entry, data, *s, ro);
  EXPECT_GT(r.stats.paired_issues, 0u);
  EXPECT_LE(r.stats.occupancy(), 1.0);
  EXPECT_GT(r.stats.occupancy(), 0.5);
  for (float o : r.pixel_occupancy) EXPECT_LE(o, 1.0f);
}

TEST(RpuRender, ImagesAndStatisticsDoNotDependOnHostThreads) {
  const Rendered one = render_scene(scene_path("rpu_reflections.json"), 64, 48, 1);
  const Rendered two = render_scene(scene_path("rpu_reflections.json"), 64, 48, 2);
  if (!one.program.ok() || !two.program.ok()) return;
  EXPECT_EQ(one.vm.image.rgba, two.vm.image.rgba);
  EXPECT_EQ(one.vm.pixel_instructions, two.vm.pixel_instructions);
  const VmStats &a = one.vm.stats, &b = two.vm.stats;
  EXPECT_EQ(std::tie(a.instructions, a.issues, a.cycles, a.stalls, a.splits, a.merges, a.traces, a.calls),
            std::tie(b.instructions, b.issues, b.cycles, b.stalls, b.splits, b.merges, b.traces, b.calls));
  EXPECT_EQ(one.program.compiled->assembly, two.program.compiled->assembly);
}

TEST(RpuRender, AShaderThatNeverEndsFaultsItsPixelsAndTheRestRenders) {
  const fs::path dir = fs::temp_directory_path() / "passlab_rpu_fault_test";
  fs::create_directories(dir);
  std::ofstream(dir / "spin.sl") << "surface spin() {\n  float x = 0;\n  while (x >= 0) x += 1;\n  Ci = x;\n}\n";
  std::ofstream(dir / "ok.sl") << "surface ok() { Ci = color(0, 1, 0); }\n";
  std::ofstream(dir / "scene.json")
      << R"({"size": [16, 16], "objects": [
             {"mesh": {"plane": {"width": 2, "height": 4}}, "translate": [-1, 0, 3], "shader": "spin.sl"},
             {"mesh": {"plane": {"width": 2, "height": 4}}, "translate": [1, 0, 3], "shader": "ok.sl"}]})";
  Machine m = test::ieee_machine();
  m.max_steps = 5000;
  const Rendered r = render_scene((dir / "scene.json").string(), 16, 16, 0, &m);
  if (!r.program.ok()) return;
  EXPECT_GT(r.vm.fault_count, 0u);
  ASSERT_FALSE(r.vm.faults.empty());
  EXPECT_NE(r.vm.faults[0].find("ran 5000 instructions without finishing"), std::string::npos) << r.vm.faults[0];
  EXPECT_EQ(r.vm.faults[0].rfind("pixel (", 0), 0u);
  int magenta = 0, green = 0;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) {
      const float* p = r.vm.image.at(x, y);
      magenta += p[0] == 1 && p[1] == 0 && p[2] == 1;
      green += p[0] == 0 && p[1] == 1 && p[2] == 0;
    }
  EXPECT_GT(magenta, 10);
  EXPECT_GT(green, 10);
  fs::remove_all(dir);
}

// The scene's light shaders (spot, point, distant, ambient) run as lights: each compiled once to a
// function that all three surfaces call (thesis §3.3), and the frame is the reference's.
TEST(RpuRender, TheScenesLightShadersAreFunctionsEverySurfaceCalls) {
  const Rendered r = render_scene(scene_path("rpu_three_lights.json"), 96, 72, 0, &test::ieee_machine());
  if (!r.program.ok()) return;
  EXPECT_EQ(r.vm.fault_count, 0u);
  EXPECT_EQ(share_different(r.vm.image, reference_of(r, 96, 72), 1.5f / 255), 0.0);
  const std::string& listing = r.program.compiled->assembly;
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = listing.find(what); at != std::string::npos; at = listing.find(what, at + 1)) ++n;
    return n;
  };
  for (const char* light : {"spotlight_0", "pointlight_0", "distantlight_0"}) {
    EXPECT_EQ(count(std::string("\nSUBROUTINE_ENTRY_light_") + light + ":"), 1u) << light;
    EXPECT_GE(count(std::string("call SUBROUTINE_ENTRY_light_") + light + " "), 3u) << light;  // floor, bunny, mirror
  }
  // The spotlight's pool is where the light is: a light tile in it is brighter than one outside it.
  auto mean = [&](int x0, int x1, int y0, int y1) {
    float sum = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) sum += r.vm.image.at(x, y)[0] + r.vm.image.at(x, y)[1];
    return sum / static_cast<float>((x1 - x0) * (y1 - y0));
  };
  EXPECT_GT(mean(26, 46, 48, 54), 2 * mean(54, 84, 62, 70));
}

// A scene's light parameters are in world space, as its "light" is: the same light given both ways
// lights a scene seen from a turned camera identically.
TEST(RpuRender, AScenesLightsArePlacedInWorldSpace) {
  const fs::path dir = fs::temp_directory_path() / "passlab_rpu_scene_lights_test";
  fs::create_directories(dir);
  std::ofstream(dir / "same.sl") << "light same(point from = 0; color lightcolor = 1) { illuminate(from) Cl = lightcolor; }\n";
  std::ofstream(dir / "lit.sl") << "surface lit() {\n  normal Nf = faceforward(normalize(N), I);\n  Ci = 0;\n"
                                   "  illuminance (P, Nf, PI / 2) Ci += Cl * (normalize(L) . Nf);\n}\n";
  const std::string common = R"("size": [32, 32], "camera": {"from": [3, 2, -4], "to": [0, 0, 0], "up": [0, 1, 0], "fov": 60},
      "objects": [{"mesh": {"sphere": {"radius": 1, "slices": 24, "stacks": 12}}, "shader": "lit.sl"},
                  {"mesh": {"plane": {"width": 8, "height": 8}}, "rotate": [90, 1, 0, 0], "translate": [0, -1, 0], "shader": "lit.sl"}])";
  std::ofstream(dir / "point.json") << "{" << common << R"(, "light": {"from": [-2, 3, 1], "color": [1, 0.5, 0.25]}})";
  std::ofstream(dir / "shader.json") << "{" << common
                                     << R"(, "lights": [{"shader": "same.sl", "params": {"from": [-2, 3, 1], "lightcolor": [1, 0.5, 0.25]}}]})";
  const Rendered point = render_scene((dir / "point.json").string(), 32, 32, 0, &test::ieee_machine());
  const Rendered shader = render_scene((dir / "shader.json").string(), 32, 32, 0, &test::ieee_machine());
  if (point.program.ok() && shader.program.ok()) {
    EXPECT_EQ(share_different(point.vm.image, shader.vm.image, 1e-4f), 0.0);
    EXPECT_GT(share_different(point.vm.image, sim::Image(32, 32, {0, 0, 0, 1}), 0.05f), 0.3);  // lit, not black
  }
  fs::remove_all(dir);
}

TEST(RpuRender, AMistakeInTheScenesLightsIsReportedAtItsLine) {
  const fs::path dir = fs::temp_directory_path() / "passlab_rpu_scene_lights_error_test";
  fs::create_directories(dir);
  std::ofstream(dir / "ok.sl") << "surface ok() { Ci = diffuse(N); }\n";
  std::ofstream(dir / "scene.json") << "{\"objects\": [{\"mesh\": {\"plane\": {\"width\": 2, \"height\": 2}}, \"shader\": \"ok.sl\"}],\n"
                                       " \"lights\": [\n   {\"shader\": \"" PASSLAB_SAMPLES_DIR "/lights/pointlight.sl\",\n"
                                       "    \"params\": {\"intensty\": 3}}]}\n";
  lang::Diagnostics problems;
  std::optional<sim::Scene> scene = sim::load_scene((dir / "scene.json").string(), &problems);
  ASSERT_TRUE(scene) << problems.text();
  const SceneProgram sp = compile_scene(*scene, 8, 8, "", "", "", CompileOptions{});
  EXPECT_FALSE(sp.ok());
  const lang::Diagnostic* error = nullptr;
  for (const lang::Diagnostic& d : sp.compiled->diagnostics.items())
    if (d.severity == lang::Severity::Error && !error) error = &d;
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->message.find("no parameter 'intensty'"), std::string::npos) << error->message;
  EXPECT_EQ(error->span.line, 4u);
  EXPECT_NE(sp.compiled->sources->file(error->span.file).path.find("scene.json"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RpuRender, TheCameraMainCastsTheRasterizersRays) {
  sim::Scene scene;
  scene.fov_degrees = 90;
  const std::string main = camera_main_source(scene, 200, 100);
  // 90 degrees over the shorter side (100 pixels): the direction spans 4 x 2 across the image.
  EXPECT_NE(main.find("vector d = vector(4.0, -2.0, 0);"), std::string::npos) << main;
}

}  // namespace
}  // namespace passlab::rpu
