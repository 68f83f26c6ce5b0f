// SPDX-License-Identifier: GPL-3.0-or-later
// Texture lookups on the RPU: a scene's images in data memory, filtered by RPU instructions, and
// the procedural stand-ins of names without an image, each run on the VM against the reference
// interpreter (IEEE and 24-bit arithmetic) on random coordinates, repeats included; the textured
// bowling pin and its projector lights rendered against the reference renderer; and the
// diagnostics of what cannot be looked up.
#include <filesystem>

#include <gtest/gtest.h>

#include "backends/rpu/reference.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "core/sim/image.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using ir::Value;

// A w x h image whose texels all differ, alpha included, written as a PNG in the test's temporary
// folder. Odd sizes make each axis wrap and offset by half a texel on its own.
std::string write_image(const std::string& file, int w, int h) {
  sim::Image im(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float* p = im.at(x, y);
      p[0] = static_cast<float>(x + 1) / static_cast<float>(w + 1);
      p[1] = static_cast<float>(y + 1) / static_cast<float>(h + 1);
      p[2] = static_cast<float>((x * 3 + y * 5) % 7) / 6.0f;
      p[3] = 0.25f + 0.375f * static_cast<float>((x + y) % 3);
    }
  const std::string path = (std::filesystem::path(::testing::TempDir()) / file).string();
  std::string why;
  EXPECT_TRUE(sim::write_png(path, im, &why)) << why;
  return path;
}

CompileOptions with_image(const std::string& name, const std::string& path, const Machine* machine = nullptr) {
  CompileOptions o;
  o.textures[name] = path;
  o.machine = machine;
  return o;
}

// f(s, t) on the VM and in the reference at 200 points of [-2.5, 3.5]^2 (each axis wraps), within
// `tolerance`; the number of points that differ.
int mismatches(const std::string& rsl, const CompileOptions& options, bool fp24, float tolerance) {
  CompileOptions o = options;
  o.machine = fp24 ? &default_machine() : &test::ieee_machine();
  std::unique_ptr<CompiledProgram> p = test::compile_rsl(rsl, o);
  if (!p->ok()) return -1;
  test::Rng rng{7};
  int failures = 0;
  for (int i = 0; i < 200; ++i) {
    const std::vector<Value> args = {Value::scalar(rng.uniform(-2.5f, 3.5f)), Value::scalar(rng.uniform(-2.5f, 3.5f))};
    const std::vector<Value> got = test::run_function(*p, "f", args, *o.machine);
    const std::vector<Value> want = test::run_reference(*p, "f", args);
    if (got.empty() || want.empty()) return -1;
    const int n = lang::is_triple(want[0].type) ? 3 : 1;
    for (int c = 0; c < n; ++c)
      if (!test::close(got[0].f[static_cast<std::size_t>(c)], want[0].f[static_cast<std::size_t>(c)], 0, tolerance) && failures++ < 3)
        ADD_FAILURE() << rsl << (fp24 ? " [fp24]" : " [ieee]") << " at (" << args[0].f[0] << ", " << args[1].f[0] << ") channel " << c
                      << ": " << got[0].f[static_cast<std::size_t>(c)] << ", the reference " << want[0].f[static_cast<std::size_t>(c)];
  }
  return failures;
}

TEST(RpuTexture, AnImageIsFilteredAsTheReferenceFiltersIt) {
  const CompileOptions o = with_image("img", write_image("rpu_texture_5x3.png", 5, 3));
  for (const char* rsl : {
           "color f(float s; float t) { return color texture(\"img\", s, t); }",
           "color f(float s; float t) { return color texture(\"img\"[1], s, t); }",  // g, b, a
           "float f(float s; float t) { return float texture(\"img\"[3], s, t) + 2 * float texture(\"img\"[2], s, t); }",
           "float f(float s; float t) { return float texture(\"img\"[abs(s) * 2], s, t); }",  // a channel chosen per point
           "color f(float s; float t) { return color environment(\"img\", vector(s, t, 1 - s)); }",
       }) {
    EXPECT_EQ(mismatches(rsl, o, false, 2e-6f), 0);
    EXPECT_EQ(mismatches(rsl, o, true, 2e-4f), 0);
  }
  // A map chosen per point: the image, or a stand-in (whose tolerance is the stand-ins', below).
  const char* either = "color f(float s; float t) { return color texture(s > 0.5 ? \"img\" : \"grain\", s, t); }";
  EXPECT_EQ(mismatches(either, o, false, 3e-5f), 0);
  EXPECT_EQ(mismatches(either, o, true, 3e-3f), 0);
}

TEST(RpuTexture, NamesWithoutAnImageReadTheStandIns) {
  for (const char* rsl : {
           "color f(float s; float t) { return color texture(\"grain\", s, t); }",
           "color f(float s; float t) { return color texture(\"wood\"[1], t, s) * float texture(\"grain\"[3], s, t); }",
           "float f(float s; float t) { return float texture(\"grain\"[2], s * 0.5, t); }",
       }) {
    // The phase fs s + ft t (up to 56 turns here) is exact to an ulp of itself: 2^-23 of it in
    // IEEE arithmetic, 2^-16 in 24-bit arithmetic.
    EXPECT_EQ(mismatches(rsl, {}, false, 3e-5f), 0);
    EXPECT_EQ(mismatches(rsl, {}, true, 3e-3f), 0);
  }
}

TEST(RpuTexture, LookupsOfOneImageAtOnePointShareOneCall) {
  // The lookups of one map at the same coordinates share the four channels one call returns.
  std::unique_ptr<CompiledProgram> p = test::compile_rsl(
      "float f(float s; float t) { return float texture(\"img\"[0], s, t) + float texture(\"img\"[1], s, t) + float texture(\"img\"[3], s, t); }",
      with_image("img", write_image("rpu_texture_share.png", 4, 4)));
  const std::string& listing = p->assembly;
  std::size_t calls = 0;
  for (std::size_t at = listing.find("call SUBROUTINE_ENTRY___rpu_texels_0"); at != std::string::npos;
       at = listing.find("call SUBROUTINE_ENTRY___rpu_texels_0", at + 1))
    ++calls;
  EXPECT_EQ(calls, 1u) << listing;
  // ...whose filter loads its four texels once.
  std::size_t loads = 0;
  for (std::size_t at = listing.find("load I"); at != std::string::npos; at = listing.find("load I", at + 1)) ++loads;
  EXPECT_EQ(loads, 4u) << listing;
}

TEST(RpuTexture, AnImageTooLargeForTheAddressesKeepsAMipLevelThatFits) {
  std::unique_ptr<CompiledProgram> p =
      test::compile_rsl("color f(float s; float t) { return color texture(\"big\", s, t); }", with_image("big", write_image("rpu_texture_big.png", 512, 384)));
  ASSERT_EQ(p->textures.images().size(), 1u);
  const TextureImage& held = p->textures.images()[0];
  EXPECT_EQ(held.level, 1);  // 512 x 384 exceeds 65,536 texels; 256 x 192 does not
  EXPECT_EQ(held.width, 256);
  EXPECT_EQ(held.height, 192);
  bool warned = false;
  for (const lang::Diagnostic& d : p->diagnostics.items()) warned = warned || d.code == "rpu-texture-reduced";
  EXPECT_TRUE(warned);
  // The reference samples the level held. In 24-bit arithmetic a position in the image is exact
  // to 2^-16 of its texel coordinate (a 128th of a texel at 900 texels), and neighbouring texels
  // of this image differ by up to 1.
  EXPECT_EQ(mismatches("color f(float s; float t) { return color texture(\"big\", s, t); }", with_image("big", write_image("rpu_texture_big.png", 512, 384)),
                       false, 2e-6f),
            0);
  EXPECT_EQ(mismatches("color f(float s; float t) { return color texture(\"big\", s, t); }", with_image("big", write_image("rpu_texture_big.png", 512, 384)),
                       true, 8e-3f),
            0);
}

TEST(RpuTexture, WhatCannotBeLookedUpIsADiagnostic) {
  // A name only known when the shader runs (a user function's argument: the RPU calls it).
  EXPECT_EQ(test::compile_error("color g(string n; float s) {\n  return color texture(n, s, 0);\n}\ncolor f(float s) { return g(\"img\", s); }"),
            "2:16: on the RPU a texture's name must be known when the program is compiled (a literal, a surface's parameter, or a choice "
            "between those); this one is computed when the shader runs");
  // An image file that cannot be read names the texture.
  std::unique_ptr<CompiledProgram> p =
      compile_sources({{"test.sl", "color f(float s) { return color texture(\"img\", s, 0); }"}}, with_image("img", "/nonexistent/img.png"));
  ASSERT_FALSE(p->ok());
  const lang::Diagnostic* error = nullptr;
  for (const lang::Diagnostic& d : p->diagnostics.items())
    if (!error && d.severity == lang::Severity::Error) error = &d;
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code, "rpu-texture");
  EXPECT_NE(error->message.find("texture 'img' (/nonexistent/img.png)"), std::string::npos) << error->message;
}

// The bowling pin of the RDS paper: five texture maps and four textured projector lights, on the
// RPU as on the fragment pipeline.
TEST(RpuTexture, TheTexturedBowlingPinMatchesTheReferenceRenderer) {
  lang::Diagnostics problems;
  std::optional<sim::Scene> scene = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/bowling_pin.json", &problems);
  ASSERT_TRUE(scene) << problems.text();
  const int w = 64, h = 64;
  SceneProgram sp = compile_scene(*scene, w, h, "", "", "", {});
  ASSERT_TRUE(sp.ok()) << lang::format_text(sp.compiled->diagnostics.items(), *sp.compiled->sources);
  EXPECT_EQ(sp.compiled->textures.images().size(), 9u);
  SceneData data(*scene, sp.object_shader, sp.compiled->textures);
  RenderOptions ro;
  ro.width = w;
  ro.height = h;
  const RenderResult vm = render(*sp.compiled->program, sp.main_entry, data, *scene, ro);
  EXPECT_EQ(vm.fault_count, 0u);
  ReferenceOptions refo;
  refo.width = w;
  refo.height = h;
  const ReferenceResult ref = reference_render(sp, data, *scene, refo);
  ASSERT_EQ(ref.errors, 0u) << ref.first_error;
  float worst = 0;
  for (std::size_t i = 0; i < vm.image.rgba.size(); ++i) worst = std::max(worst, std::fabs(vm.image.rgba[i] - ref.image.rgba[i]));
  EXPECT_LT(worst, 2.0f / 255);
  // The maps are read: the pin's red neck stripes are there (a red pixel well above its blue).
  bool red = false;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) red = red || (vm.image.at(x, y)[0] > 0.6f && vm.image.at(x, y)[2] < 0.3f);
  EXPECT_TRUE(red);
  EXPECT_GT(vm.stats.loads, static_cast<std::uint64_t>(w) * h);  // texels, beyond the hit records
}

}  // namespace
}  // namespace passlab::rpu
