// SPDX-License-Identifier: GPL-3.0-or-later
// The multipass renderer end to end: passes reproduce the single pass, render-to-texture breaks
// where transparent fragments overlap and the F-buffer does not, and the F-buffer's overflow
// arithmetic of the ATI paper.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <gtest/gtest.h>

#include "tests/support/snapshot.h"

#include "session/render_job.h"
#include "core/partition/target.h"
#include "core/sim/raster.h"

namespace passlab {
namespace {

const std::string kSamples = PASSLAB_SAMPLES_DIR;

sim::Scene scene(const std::string& name, int size) {
  lang::Diagnostics problems;
  auto s = sim::load_scene(kSamples + "/scenes/" + name + ".json", &problems);
  EXPECT_TRUE(s) << problems.text();
  if (!s) return {};
  s->width = s->height = size;
  return *s;
}

session::RenderOutcome render(const sim::Scene& s, sim::Storage store, const std::string& target = "PC5",
                               const std::string& algo = "rds") {
  session::RenderRequest req;
  req.target = target;
  req.algorithm = algo;
  req.optimal_budget = 0.3;
  req.options.storage = store;
  req.options.threads = 2;
  return session::render_scene(s, req);
}

class EverySample : public testing::TestWithParam<std::string> {};

// For every target and algorithm, the passes with an F-buffer give the single pass's image bit
// for bit: each fragment runs the same instructions, its saved values restored exactly. (The
// single pass of the target's own program: on a quad target, nv30, textures take their filter
// footprint from the quad partners, as the hardware's do.)
TEST_P(EverySample, FBufferPassesEqualTheSinglePass) {
  const sim::Scene s = scene(GetParam(), 40);
  int multipass_cases = 0;
  for (const std::string& target : partition::preset_targets()) {
    const auto single = render(s, sim::Storage::SinglePass, target);
    if (!single.image) continue;  // a target that cannot run the shader (the combiners)
    for (const std::string algo : {"rdsh", "rds", "optimal"}) {
      const auto multi = render(s, sim::Storage::FBuffer, target, algo);
      if (!multi.image && multi.diagnostics.find("found no partition") != std::string::npos) continue;  // does not fit
      ASSERT_TRUE(multi.image) << target << " " << algo << ": " << multi.diagnostics;
      ASSERT_EQ(multi.image->rgba.size(), single.image->rgba.size());
      EXPECT_EQ(std::memcmp(multi.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0)
          << GetParam() << " on " << target << " with " << algo << " differs from the single pass";
      for (const auto& sh : multi.shaders) {
        EXPECT_TRUE(sh.partition_checked) << sh.path;
        if (sh.passes > 1) ++multipass_cases;
      }
    }
  }
  EXPECT_GT(multipass_cases, 0) << "no target split " << GetParam() << " into passes";
  // Opaque scenes: render-to-texture is right too (the visible fragment's values win each pixel).
  const auto single = render(s, sim::Storage::SinglePass);
  ASSERT_TRUE(single.image) << single.diagnostics;
  const auto rtt = render(s, sim::Storage::RenderToTexture, "PC4", "rds");
  ASSERT_TRUE(rtt.image) << rtt.diagnostics;
  EXPECT_EQ(std::memcmp(rtt.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0)
      << GetParam() << " with render-to-texture differs from the single pass";
}

INSTANTIATE_TEST_SUITE_P(Samples, EverySample,
                         testing::Values("bowling_pin", "brick", "bump_pin", "marble", "matte", "plastic", "toon", "wood"));

// Passes of several render targets: RDS + merge and MRDS on the four-target presets give, with
// render-to-texture and with the F-buffer, the single pass's picture bit for bit.
TEST(MultipleRenderTargets, MergedPassesRenderTheSinglePassPicture) {
  for (const std::string name : {"wood", "bowling_pin", "plastic"}) {
    const sim::Scene s = scene(name, 40);
    for (const std::string target : {"PC6_mrt4", "ps_2_0_mrt4"}) {
      const auto single = render(s, sim::Storage::SinglePass, target);
      ASSERT_TRUE(single.image) << single.diagnostics;
      for (const std::string algo : {"rds+merge", "mrds"})
        for (sim::Storage store : {sim::Storage::FBuffer, sim::Storage::RenderToTexture}) {
          const auto multi = render(s, store, target, algo);
          ASSERT_TRUE(multi.image) << name << " " << target << " " << algo << ": " << multi.diagnostics;
          for (const auto& sh : multi.shaders) EXPECT_TRUE(sh.partition_checked) << sh.path;
          EXPECT_EQ(std::memcmp(multi.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0)
              << name << " on " << target << " with " << algo << " differs from the single pass";
        }
    }
  }
}

// A shader of several outputs (--all-outputs): its passes write each output, the colour last, and
// the picture is the single pass's; the other outputs are written to buffers of their own.
TEST(MultipleRenderTargets, AShaderOfSeveralOutputsRendersItsColourThroughItsPasses) {
  const sim::Scene s = scene("plastic_aovs", 40);
  for (const std::string target : {"PC6", "ps_2_0_mrt4"}) {
    session::RenderRequest req;
    req.target = target;
    req.algorithm = target == "PC6" ? "rds" : "mrds";
    req.all_outputs = true;
    req.options.threads = 2;
    req.options.storage = sim::Storage::SinglePass;
    const auto single = session::render_scene(s, req);
    ASSERT_TRUE(single.image) << single.diagnostics;
    EXPECT_GT(single.stats.bytes_written, 0) << "the single pass writes the other outputs too";
    for (sim::Storage store : {sim::Storage::FBuffer, sim::Storage::RenderToTexture}) {
      req.options.storage = store;
      const auto multi = session::render_scene(s, req);
      ASSERT_TRUE(multi.image) << target << ": " << multi.diagnostics;
      EXPECT_GT(multi.stats.passes, 1) << target;
      for (const auto& sh : multi.shaders) EXPECT_TRUE(sh.partition_checked) << sh.path;
      EXPECT_EQ(std::memcmp(multi.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0) << target;
    }
  }
}

// Multisampling: the F-buffer's passes still give the single pass's picture bit for bit (each
// fragment keeps its values and its coverage); the transparent scene included.
TEST(Multisampling, FBufferPassesEqualTheSinglePass) {
  for (const std::string name : {"bowling_pin", "plastic", "transparent"}) {
    const sim::Scene s = scene(name, 40);
    session::RenderRequest req;
    req.target = "PC4";
    req.options.multisample = 4;
    req.options.threads = 2;
    req.options.storage = sim::Storage::SinglePass;
    const auto single = session::render_scene(s, req);
    ASSERT_TRUE(single.image) << single.diagnostics;
    req.options.storage = sim::Storage::FBuffer;
    const auto multi = session::render_scene(s, req);
    ASSERT_TRUE(multi.image) << multi.diagnostics;
    EXPECT_GT(multi.stats.passes, 1) << name;
    EXPECT_EQ(std::memcmp(multi.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0) << name;
    if (name == "plastic") {
      // One value per pixel between passes: where two triangles of the sphere share a pixel on
      // their common edge, the texture keeps only one of their values, so render-to-texture
      // (right for opaque scenes without multisampling) goes wrong along the edges, which on a
      // finely tessellated sphere are many of its pixels.
      const sim::Scene larger = scene(name, 64);
      req.options.storage = sim::Storage::SinglePass;
      const auto one = session::render_scene(larger, req);
      req.options.storage = sim::Storage::RenderToTexture;
      const auto rtt = session::render_scene(larger, req);
      ASSERT_TRUE(one.image && rtt.image) << rtt.diagnostics;
      int wrong = 0;
      for (std::size_t i = 0; i < rtt.image->rgba.size(); i += 4) wrong += std::memcmp(&rtt.image->rgba[i], &one.image->rgba[i], 16) != 0;
      EXPECT_GT(wrong, 0);
    }
    req.options.storage = sim::Storage::FBuffer;
    req.options.multisample = 1;
    const auto aliased = session::render_scene(s, req);
    ASSERT_TRUE(aliased.image);
    EXPECT_GT(multi.stats.fragments_rasterized, aliased.stats.fragments_rasterized) << "pixels on edges have a fragment per triangle";
  }
}

// A white sphere on black with four samples a pixel: inside and outside are exactly white and
// black, and silhouette pixels are the fraction of samples covered, k/4; without multisampling
// there is nothing in between.
TEST(Multisampling, SilhouettePixelsAreTheFractionOfSamplesCovered) {
  const auto dir = std::filesystem::temp_directory_path() / "passlab_render_msaa";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "white.sl") << "surface white() { Oi = Os; Ci = Os; }\n";
  std::ofstream(dir / "scene.json") << R"({"size": [64, 64], "background": [0, 0, 0, 1],
    "objects": [{"mesh": {"sphere": {"radius": 1}}, "translate": [0, 0, 4], "shader": "white.sl"}]})";
  session::RenderRequest req;
  req.options.storage = sim::Storage::SinglePass;
  auto count = [&](int samples) {
    req.options.multisample = samples;
    const auto out = session::render_scene((dir / "scene.json").string(), req);
    EXPECT_TRUE(out.image) << out.diagnostics;
    // Pixels by quarters of white (interpolating a constant over a triangle may be off by an ulp).
    std::map<float, int> values;
    if (out.image)
      for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
          const float v = out.image->at(x, y)[0], quarter = std::round(v * 4) / 4;
          EXPECT_NEAR(v, quarter, 1e-6f) << x << ", " << y;
          ++values[quarter];
        }
    return values;
  };
  const auto one = count(1), four = count(4);
  EXPECT_EQ(one.size(), 2u);  // black and white
  EXPECT_EQ(four.size(), 5u);
  EXPECT_GT(four.at(0.5f), 10);  // a silhouette's worth of partial pixels
  // The covered area stays the same, to within the silhouette's length in pixels.
  auto area = [](const std::map<float, int>& m) {
    double a = 0;
    for (const auto& [v, n] : m) a += v * n;
    return a;
  };
  EXPECT_NEAR(area(four), area(one), 30.0);
  req.options.multisample = 3;
  const auto bad = session::render_scene((dir / "scene.json").string(), req);
  EXPECT_FALSE(bad.image);
  EXPECT_NE(bad.diagnostics.find("1, 2, 4 or 8"), std::string::npos) << bad.diagnostics;
}

// How many transparent fragments land on each pixel in front of the opaque ones.
std::vector<int> transparent_overlap(const sim::Scene& s) {
  sim::Projection proj{s.width, s.height, s.fov_degrees, 1e-3f};
  std::vector<float> depth(static_cast<std::size_t>(s.width) * s.height, std::numeric_limits<float>::infinity());
  std::vector<int> count(depth.size(), 0);
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& o : s.objects) {
      if (o.transparent != (pass == 1)) continue;
      std::vector<std::array<sim::Vec3, 3>> tris;
      for (const auto& t : o.mesh.triangles)
        tris.push_back({o.to_camera.point(o.mesh.vertices[t[0]].p), o.to_camera.point(o.mesh.vertices[t[1]].p),
                        o.to_camera.point(o.mesh.vertices[t[2]].p)});
      std::vector<sim::Fragment> frags;
      sim::rasterize(tris, proj, o.cull, frags);
      for (const auto& f : frags) {
        const std::size_t p = static_cast<std::size_t>(f.y) * s.width + f.x;
        if (pass == 0) depth[p] = std::min(depth[p], f.depth);
        else if (f.depth < depth[p]) ++count[p];
      }
    }
  return count;
}

TEST(Transparency, RenderToTextureBreaksExactlyWhereTransparentFragmentsOverlap) {
  const sim::Scene s = scene("transparent", 128);
  const auto single = render(s, sim::Storage::SinglePass);
  const auto rtt = render(s, sim::Storage::RenderToTexture);
  const auto fbuf = render(s, sim::Storage::FBuffer);
  ASSERT_TRUE(single.image && rtt.image && fbuf.image) << single.diagnostics << rtt.diagnostics << fbuf.diagnostics;
  bool split = false;
  for (const auto& sh : rtt.shaders) split = split || sh.passes > 1;
  ASSERT_TRUE(split) << "the scene's transparent shader must need several passes on PC5";
  const std::vector<int> overlap = transparent_overlap(s);
  long overlapping = 0, differing_there = 0, differing_elsewhere = 0;
  for (std::size_t p = 0; p < overlap.size(); ++p) {
    const bool differs = std::memcmp(&rtt.image->rgba[p * 4], &single.image->rgba[p * 4], 4 * sizeof(float)) != 0;
    if (overlap[p] >= 2) {
      ++overlapping;
      differing_there += differs;
    } else {
      differing_elsewhere += differs;
    }
  }
  ASSERT_GT(overlapping, 300);
  EXPECT_EQ(differing_elsewhere, 0);
  EXPECT_GT(differing_there, overlapping * 9 / 10);
  // The F-buffer keeps every fragment's values apart: the single pass's image exactly.
  EXPECT_EQ(std::memcmp(fbuf.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0);
}

// Section 3.2 of the F-buffer paper: a 1024x1024 sphere through a 64x64 F-buffer overflows 162
// times and submits its geometry 489 times for a 3-pass shader; through a 256x256 one, 10 and 33.
TEST(FBufferOverflow, TheArithmeticOfTheAtiPaper) {
  sim::Scene s = scene("fbuffer_sphere", 1024);
  struct Case {
    long side, overflows, submissions;
  };
  for (const Case c : {Case{64, 162, 489}, Case{256, 10, 33}}) {
    session::RenderRequest req;
    req.target = "PC4";  // where RDS splits plastic into 3 passes
    req.algorithm = "rds";
    req.options.storage = sim::Storage::FBuffer;
    req.options.overflow = sim::Overflow::Window;
    req.options.fbuffer_slots = c.side * c.side;
    req.options.threads = 2;
    const auto out = session::render_scene(s, req);
    ASSERT_TRUE(out.image) << out.diagnostics;
    ASSERT_EQ(out.stats.passes, 3) << "the scene's shader must take 3 passes on PC4";
    EXPECT_EQ(out.stats.overflows, c.overflows) << c.side << "x" << c.side;
    EXPECT_EQ(out.stats.geometry_submissions, c.submissions) << c.side << "x" << c.side;
    EXPECT_EQ(out.stats.windows, c.overflows + 1);
    // Every submission rasterizes the whole sphere; each fragment is shaded once per pass,
    // whatever the window size.
    EXPECT_EQ(out.stats.fragments_shaded * out.stats.windows, out.stats.fragments_rasterized);
  }
}

// The 9800's policy: a batch whose first pass overflows is resubmitted in halves; the picture
// is the same, the wasted first passes show in the statistics.
TEST(FBufferOverflow, RestartResubmitsSmallerBatchesAndKeepsThePicture) {
  const sim::Scene s = scene("plastic", 128);
  session::RenderRequest req;
  req.target = "PC4";
  req.options.threads = 2;
  req.options.storage = sim::Storage::SinglePass;
  const auto single = session::render_scene(s, req);
  req.options.storage = sim::Storage::FBuffer;
  req.options.overflow = sim::Overflow::Restart;
  req.options.fbuffer_slots = 1500;
  const auto restart = session::render_scene(s, req);
  ASSERT_TRUE(single.image && restart.image) << single.diagnostics << restart.diagnostics;
  EXPECT_EQ(std::memcmp(restart.image->rgba.data(), single.image->rgba.data(), single.image->rgba.size() * sizeof(float)), 0);
  const long fragments = single.stats.fragments_rasterized;
  ASSERT_GT(fragments, 3 * 1500);
  EXPECT_GT(restart.stats.overflows, 0);
  // Each batch that fit was shaded by all 3 passes; each overflow cost one extra submission.
  EXPECT_EQ(restart.stats.geometry_submissions, 3 * restart.stats.windows + restart.stats.overflows);
  EXPECT_GE(restart.stats.windows, (fragments + 1499) / 1500);
  // A triangle bigger than the F-buffer cannot be split further: a clear error, no picture.
  req.options.fbuffer_slots = 4;
  const auto tiny = session::render_scene(s, req);
  EXPECT_FALSE(tiny.image);
  EXPECT_NE(tiny.diagnostics.find("one triangle alone covers"), std::string::npos) << tiny.diagnostics;
}

// The same scene gives the same bits with any number of threads, in every storage mode.
TEST(Determinism, ThreadsDoNotChangeThePicture) {
  const sim::Scene s = scene("wood", 64);
  for (const auto store : {sim::Storage::SinglePass, sim::Storage::RenderToTexture, sim::Storage::FBuffer}) {
    session::RenderRequest req;
    req.options.storage = store;
    req.options.threads = 1;
    const auto one = session::render_scene(s, req);
    req.options.threads = 3;
    const auto three = session::render_scene(s, req);
    ASSERT_TRUE(one.image && three.image) << one.diagnostics;
    EXPECT_EQ(one.image->rgba, three.image->rgba) << sim::to_string(store);
  }
}

// The inspection data the Studio shows: each pass's values as a picture, and a pixel's fragments
// through every pass; a probe sees the same fragment values whatever the storage.
TEST(Capture, PassPicturesAndAProbedPixelsFragments) {
  const sim::Scene s = scene("transparent", 96);
  const auto overlap = transparent_overlap(s);
  int px = -1, py = -1;
  for (int y = 0; y < s.height && px < 0; ++y)
    for (int x = 0; x < s.width; ++x)
      if (overlap[static_cast<std::size_t>(y) * s.width + x] == 2) {
        px = x;
        py = y;
        break;
      }
  ASSERT_GE(px, 0);
  auto probe = [&](sim::Storage store) {
    sim::RenderCapture c;
    c.pass_images = true;
    c.probe_x = px;
    c.probe_y = py;
    session::RenderRequest req;
    req.options.storage = store;
    req.options.capture = &c;
    auto out = session::render_scene(s, req);
    EXPECT_TRUE(out.image) << out.diagnostics;
    return std::make_pair(std::move(out), std::move(c));
  };
  auto [single, cs] = probe(sim::Storage::SinglePass);
  auto [fbuf, cf] = probe(sim::Storage::FBuffer);
  ASSERT_EQ(cs.passes.size(), 1u);
  ASSERT_EQ(static_cast<int>(cf.passes.size()), fbuf.stats.passes);
  // In one pass, the picture at an opaque pixel (the floor, bottom row) is the image there.
  EXPECT_EQ(std::memcmp(cs.passes[0].at(s.width / 2, s.height - 1), single.image->at(s.width / 2, s.height - 1), 4 * sizeof(float)), 0);
  // The floor and both spheres reach the probed pixel; the spheres' colours are the same
  // numbers in one pass and in the last of several.
  // The floor (matte) and the spheres (plastic) are separate batches; the spheres' are the two
  // fragments with more passes than the floor's shader has.
  auto finals = [](const sim::RenderCapture& c, int last_pass) {
    std::vector<std::array<float, 4>> v;
    for (const auto& f : c.probed)
      if (f.pass == last_pass) v.push_back(f.value);
    return v;
  };
  const auto a = finals(cs, 0);
  const auto b = finals(cf, fbuf.stats.passes - 1);
  ASSERT_EQ(b.size(), 2u);  // the spheres' last pass
  ASSERT_GE(a.size(), 2u);  // (the floor's fragment first, where the floor reaches the pixel)
  EXPECT_EQ(std::vector(a.end() - 2, a.end()), b);
  int visible = 0;
  for (const auto& f : cf.probed) visible += f.pass == fbuf.stats.passes - 1 && f.visible;
  EXPECT_EQ(visible, 2);
}

// The Studio renders the snapshot it already has: its passes give the single pass's picture too.
TEST(Snapshot, RendersTheStudiosSnapshotInItsPasses) {
  const auto snap = test::sample_snapshot("shaders/bowling_pin.sl");
  ASSERT_TRUE(snap->has_dag());
  sim::Scene s = session::default_scene_for(snap->request.path);
  ASSERT_EQ(s.objects.size(), 1u);  // samples/scenes/bowling_pin.json
  s.width = s.height = 48;
  sim::RenderOptions o;
  o.storage = sim::Storage::SinglePass;
  const auto single = session::render_snapshot(s, *snap, nullptr, o);
  o.storage = sim::Storage::FBuffer;
  const auto passes = session::render_snapshot(s, *snap, snap->run("rds"), o);
  ASSERT_TRUE(single.image && passes.image) << single.diagnostics << passes.diagnostics;
  EXPECT_GT(passes.stats.passes, 1);
  EXPECT_EQ(single.image->rgba, passes.image->rgba);
  // A shader without a scene of its own is shown on a sphere.
  EXPECT_EQ(session::default_scene_for("/tmp/nowhere/mine.sl").objects.front().name, "sphere");
}

// A scene's PNG textures and mesh files are what shaders sample and draw (not stand-ins).
TEST(SceneFiles, PngTexturesAndObjMeshesReachTheShader) {
  const auto dir = std::filesystem::temp_directory_path() / "passlab_render_files";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tex.sl") << "surface tex() { Oi = Os; Ci = Os * color texture(\"swatch\", s, t); }\n";
  std::ofstream(dir / "quad.obj") << "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 4/4\n";
  std::ofstream(dir / "scene.json") << R"({"size": [24, 24], "background": [0, 0, 0, 1], "textures": {"swatch": "swatch.png"},
    "objects": [{"mesh": "quad.obj", "translate": [0, 0, 4], "shader": "tex.sl"}]})";
  std::string error;
  ASSERT_TRUE(sim::write_png((dir / "swatch.png").string(), sim::Image(1, 1, {0.2f, 0.6f, 0.4f, 1}), &error)) << error;
  session::RenderRequest req;
  req.options.storage = sim::Storage::SinglePass;
  const auto out = session::render_scene((dir / "scene.json").string(), req);
  ASSERT_TRUE(out.image) << out.diagnostics;
  const float* centre = out.image->at(12, 12);
  EXPECT_FLOAT_EQ(centre[0], 51.0f / 255);  // the PNG's 8-bit values
  EXPECT_FLOAT_EQ(centre[1], 153.0f / 255);
  EXPECT_FLOAT_EQ(centre[2], 102.0f / 255);
  EXPECT_FLOAT_EQ(out.image->at(0, 0)[0], 0.0f);  // the quad does not reach the corner
  // A missing texture file is named, with no picture.
  std::filesystem::remove(dir / "swatch.png");
  const auto missing = session::render_scene((dir / "scene.json").string(), req);
  EXPECT_FALSE(missing.image);
  EXPECT_NE(missing.diagnostics.find("swatch.png"), std::string::npos) << missing.diagnostics;
}

// A checker of single texels on a floor receding to the horizon: near the eye it is magnified and
// shows; far away each pixel covers many texels, and the mip chain gives their mean, grey, where
// level 0 alone would alias.
TEST(Mipmaps, AFloorOfFineChecksTurnsGreyInTheDistance) {
  const auto dir = std::filesystem::temp_directory_path() / "passlab_render_mip";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "checker.sl") << "surface checker() { Oi = Os; Ci = Os * color texture(\"checks\", s * 2, t * 2); }\n";
  std::ofstream(dir / "scene.json") << R"({"size": [96, 96], "background": [0, 0, 0, 1], "textures": {"checks": "checks.png"},
    "objects": [{"mesh": {"plane": {"width": 40, "height": 40}}, "rotate": [80, 1, 0, 0], "translate": [0, -1.5, 21],
                 "shader": "checker.sl"}]})";
  sim::Image checks(64, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      float* p = checks.at(x, y);
      p[0] = p[1] = p[2] = (x + y) % 2 ? 1.0f : 0.0f;
      p[3] = 1;
    }
  std::string error;
  ASSERT_TRUE(sim::write_png((dir / "checks.png").string(), checks, &error)) << error;
  session::RenderRequest req;
  req.options.storage = sim::Storage::SinglePass;
  const auto out = session::render_scene((dir / "scene.json").string(), req);
  ASSERT_TRUE(out.image) << out.diagnostics;
  // The floor's rows: from the horizon (the first row drawn) down to the bottom of the picture.
  int horizon = -1;
  for (int y = 0; y < 96 && horizon < 0; ++y)
    if (out.image->at(48, y)[0] > 0.01f) horizon = y;
  ASSERT_GT(horizon, 20);
  ASSERT_LT(horizon, 70);
  auto spread = [&](int y) {
    float lo = 1, hi = 0;
    for (int x = 0; x < 96; ++x) {
      lo = std::min(lo, out.image->at(x, y)[1]);
      hi = std::max(hi, out.image->at(x, y)[1]);
    }
    return std::pair{lo, hi};
  };
  for (int y = horizon + 1; y < horizon + 8; ++y) {  // far: grey
    const auto [lo, hi] = spread(y);
    EXPECT_GT(lo, 0.4f) << "row " << y;
    EXPECT_LT(hi, 0.6f) << "row " << y;
  }
  const auto [lo, hi] = spread(95);  // near: the checks
  EXPECT_LT(lo, 0.25f);
  EXPECT_GT(hi, 0.75f);
}

TEST(Capture, ACancelledRenderStopsWithoutAPicture) {
  const sim::Scene s = scene("wood", 64);
  std::atomic<bool> cancel{true};
  session::RenderRequest req;
  req.options.cancel = &cancel;
  const auto out = session::render_scene(s, req);
  EXPECT_FALSE(out.image);
  EXPECT_NE(out.diagnostics.find("cancelled"), std::string::npos) << out.diagnostics;
}

}  // namespace
}  // namespace passlab
