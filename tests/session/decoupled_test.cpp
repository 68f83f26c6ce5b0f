// SPDX-License-Identifier: GPL-3.0-or-later
// Decoupled sampling end to end on real shaders: without blur it is multisampling exactly; its
// picture does not depend on the order samples are looked up in or the cache's size (an
// opportunistic cache's does); supersampling shades every visible sample; a partitioned shader's
// passes run once per shading sample; scene files give lens, shutter and motion.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "session/render_job.h"
#include "session/sampling_job.h"
#include "tests/support/snapshot.h"
#include "core/sim/decoupled.h"
#include "core/sim/hardware_study.h"
#include "core/sim/sampling_sweep.h"
#include "core/sim/stochastic.h"
#include "tests/support/diagnostics.h"

namespace passlab {
namespace {

const std::string kSamples = PASSLAB_SAMPLES_DIR;

sim::Scene scene(const std::string& name, int size) {
  lang::Diagnostics problems;
  auto s = sim::load_scene(kSamples + "/scenes/" + name + ".json", &problems);
  EXPECT_TRUE(s) << problems.text();
  if (!s) return {};
  s.value().width = s.value().height = size;
  return *s;
}

struct Frame {
  std::optional<sim::Image> image;
  sim::DecoupledStats stats;
  std::string diagnostics;
};

Frame render(const sim::Scene& s, const sim::DecoupledOptions& o, sim::Storage store = sim::Storage::SinglePass) {
  session::RenderRequest req;
  req.options.storage = store;
  req.decoupled = o;
  req.decoupled->threads = 2;
  auto out = session::render_scene(s, req);
  return {out.image, out.decoupled, out.diagnostics};
}

bool same(const sim::Image& a, const sim::Image& b) { return a.width == b.width && a.height == b.height && a.rgba == b.rgba; }

long differing_pixels(const sim::Image& a, const sim::Image& b) {
  long n = 0;
  for (std::size_t i = 0; i < a.rgba.size(); i += 4)
    for (std::size_t c = 0; c < 3; ++c)
      if (a.rgba[i + c] != b.rgba[i + c]) {
        ++n;
        break;
      }
  return n;
}

// The paper's claim: with no blur, the standard mapping sends every sample of a pixel to that
// pixel's centre, so decoupled sampling is multisampling, bit for bit, whatever the cache.
TEST(Decoupled, WithoutBlurEqualsMultisamplingExactly) {
  sim::Scene s = scene("ds_defocus", 96);
  s.aperture = 0;
  sim::DecoupledOptions o;
  o.spp = 8;
  o.shading = sim::Shading::Msaa;
  const Frame msaa = render(s, o);
  ASSERT_TRUE(msaa.image) << msaa.diagnostics;
  for (const bool quads : {true, false})
    for (const long cache : {16L, 4096L, 0L}) {
      o.shading = sim::Shading::Decoupled;
      o.quads = quads;
      o.cache = cache;
      const Frame ds = render(s, o);
      ASSERT_TRUE(ds.image) << ds.diagnostics;
      EXPECT_TRUE(same(*ds.image, *msaa.image)) << "quads " << quads << " cache " << cache << ": "
                                                << differing_pixels(*ds.image, *msaa.image) << " pixels differ";
      EXPECT_EQ(ds.stats.triangles[0], ds.stats.triangles[0] + ds.stats.triangles[1] + ds.stats.triangles[2] + ds.stats.triangles[3]);
    }
  // And the pinhole renderer's 8x multisampling (its own rasterizer, the same sample positions)
  // agrees to within rounding away from the few samples exactly on edges.
  session::RenderRequest req;
  req.options.storage = sim::Storage::SinglePass;
  req.options.multisample = 8;
  const auto pinhole = session::render_scene(s, req);
  ASSERT_TRUE(pinhole.image);
  const sim::ImageError e = sim::image_error(*msaa.image, *pinhole.image);
  EXPECT_GT(e.psnr, 45.0) << "rmse " << e.rmse;
}

TEST(Decoupled, AFloorReachingBehindTheEyeRendersInEveryMode) {
  // One quad from behind the camera to the horizon (resources/conform/decoupled.json): it has no
  // view of all its corners. Bilinear reconstruction read its barycentric-grid run as a tap and
  // crashed; multisampling shaded pixels as cells of the barycentric grid. Without blur its one
  // view still maps what is visible: decoupled equals multisampling again, bilinear renders.
  lang::Diagnostics problems;
  auto loaded = sim::load_scene(std::string(PASSLAB_SOURCE_DIR) + "/resources/conform/decoupled.json", &problems);
  ASSERT_TRUE(loaded) << problems.text();
  sim::Scene s = *loaded;
  s.width = s.height = 48;
  for (auto& obj : s.objects) obj.shader = kSamples + "/shaders/matte.sl";
  sim::DecoupledOptions o;
  o.spp = 8;
  o.shading = sim::Shading::Msaa;
  const Frame msaa = render(s, o);
  ASSERT_TRUE(msaa.image) << msaa.diagnostics;
  o.shading = sim::Shading::Decoupled;
  const Frame ds = render(s, o);
  ASSERT_TRUE(ds.image) << ds.diagnostics;
  EXPECT_TRUE(same(*ds.image, *msaa.image)) << differing_pixels(*ds.image, *msaa.image) << " pixels differ";
  const long unblurred_grids = ds.stats.barycentric_grids;  // the ball's pole triangles have no area, hence no view
  o.reconstruct = sim::Reconstruct::Bilinear;
  const Frame bilinear = render(s, o);
  ASSERT_TRUE(bilinear.image) << bilinear.diagnostics;
  EXPECT_GT(sim::image_error(*bilinear.image, *msaa.image).psnr, 30.0);
  // With a lens the quad still does not move: the same view maps every point the lens sees, in
  // every mode (it fell back to a barycentric grid, and rendered as a blocky checker).
  s.aperture = 0.1f;
  s.focus = 6;
  for (const sim::Reconstruct r : {sim::Reconstruct::Nearest, sim::Reconstruct::Bilinear}) {
    o.reconstruct = r;
    const Frame blurred = render(s, o);
    ASSERT_TRUE(blurred.image) << blurred.diagnostics;
    EXPECT_EQ(blurred.stats.barycentric_grids, unblurred_grids);
  }
  o.shading = sim::Shading::Msaa;
  ASSERT_TRUE(render(s, o).image);
}

sim::Scene test_scene(const std::string& name) {
  lang::Diagnostics problems;
  auto s = sim::load_scene(std::string(PASSLAB_SOURCE_DIR) + "/tests/data/scenes/" + name + ".json", &problems);
  EXPECT_TRUE(s) << problems.text();
  return s ? *s : sim::Scene{};
}

// Decoupled shading against every sample shaded where it is, on the scene's own shader.
double psnr_against_supersampling(const sim::Scene& s, sim::DecoupledStats* stats) {
  sim::DecoupledOptions o;
  o.spp = 16;
  const Frame ds = render(s, o);
  o.shading = sim::Shading::Supersample;
  const Frame ss = render(s, o);
  EXPECT_TRUE(ds.image && ss.image) << ds.diagnostics << ss.diagnostics;
  if (!ds.image || !ss.image) return 0;
  *stats = ds.stats;
  return sim::image_error(*ds.image, *ss.image).psnr;
}

// A brick floor from behind the eye to the horizon (tests/data/scenes). Under defocus its one
// view at the opening still maps every point the rasterizer draws (all in front of the near
// plane, and still); it was shaded on a 16 x 16 barycentric grid instead: blocky mortar, 26.6 dB.
// With the camera moving over it, no view shows all of it at either end of the shutter: the
// opening's view maps the samples whose points were in front of the eye then and the barycentric
// grid, now as fine as the floor's visible part, the rest (32.6 dB before, on the coarse grid).
TEST(Decoupled, AFloorReachingBehindTheEyeIsShadedOnItsViewUnderBlur) {
  sim::DecoupledStats stats;
  EXPECT_GT(psnr_against_supersampling(test_scene("floor_behind_the_eye_defocus"), &stats), 34.0);
  EXPECT_EQ(stats.barycentric_grids, 0);
  EXPECT_EQ(stats.partial_views, 0);
  EXPECT_GT(psnr_against_supersampling(test_scene("floor_behind_the_eye_dolly"), &stats), 36.0);
  EXPECT_EQ(stats.barycentric_grids, 0);
  EXPECT_EQ(stats.partial_views, 2);
}

// The paper shades at the start of the shutter interval. A ball that moves across the frame and
// turns over its unit of motion, seen by a shutter open for its last thousandth: it was lit as it
// stood when the motion began (22.8 dB against the ball standing at its end; the supersampled
// reference shared the error, as both read the same corners).
TEST(Decoupled, ShadingSeesTheObjectAsItIsWhenTheShutterOpens) {
  const sim::Scene late = test_scene("late_shutter");
  ASSERT_EQ(late.shutter[0], 0.999f);
  sim::Scene still = late;  // where the ball stands at the end of its motion, not moving
  still.shutter = {0, 1};
  for (auto& obj : still.objects) {
    obj.to_camera = obj.to_camera_end;
    obj.moving = false;
  }
  sim::DecoupledOptions o;
  o.spp = 16;
  o.shading = sim::Shading::Supersample;
  const Frame truth = render(still, o);
  ASSERT_TRUE(truth.image) << truth.diagnostics;
  for (const sim::Shading mode : {sim::Shading::Decoupled, sim::Shading::Supersample}) {
    o.shading = mode;
    const Frame f = render(late, o);
    ASSERT_TRUE(f.image) << f.diagnostics;
    EXPECT_GT(sim::image_error(*f.image, *truth.image).psnr, 45.0) << sim::to_string(mode);
  }
}

// Back faces are culled per sample, from the sample's own lens point: a closed ball's culled back
// faces never show, so culling them changes nothing, under any defocus. The draw list culled
// triangles facing away from the lens centre: silhouette triangles that some lens points see lost
// their samples (104 of 40,275 here, pixels off by 14/255).
TEST(Decoupled, CullingBackFacesUnderDefocusLosesNoSample) {
  sim::Scene culled = test_scene("defocused_ball_culled");
  ASSERT_GT(culled.aperture, 0);
  sim::Scene drawn = culled;
  for (auto& obj : drawn.objects) obj.cull = sim::Cull::None;
  sim::DecoupledOptions o;
  o.spp = 27;
  const Frame a = render(culled, o), b = render(drawn, o);
  ASSERT_TRUE(a.image && b.image) << a.diagnostics << b.diagnostics;
  EXPECT_EQ(a.stats.covered_samples, b.stats.covered_samples);
  EXPECT_TRUE(same(*a.image, *b.image)) << differing_pixels(*a.image, *b.image) << " pixels differ";
}

// The paper's blur area is the pixels a shading sample's point reaches (its circle of confusion
// under defocus, its trail under motion). It was counted as the pixels a run was seen in, which
// cannot pass the samples that use it: 26 px at blur 1 and 7.8 px at blur 4, where the circles
// grew sixteen times. Now it is 1 without blur and grows with the circles' area.
TEST(Decoupled, BlurAreaIsTheCircleOfConfusionNotTheSamplesThatSawIt) {
  const sim::Scene s = scene("ds_defocus", 96);
  sim::DecoupledOptions o;
  o.spp = 8;
  auto area = [&](float blur) {
    o.blur = blur;
    const Frame f = render(s, o);
    EXPECT_TRUE(f.image) << f.diagnostics;
    return f.stats;
  };
  EXPECT_DOUBLE_EQ(area(0).blur_area, 1.0);
  const sim::DecoupledStats one = area(1), four = area(4);
  EXPECT_GT(one.blur_area, 3.0);
  EXPECT_GT(four.blur_area / one.blur_area, 10.0);  // the circles' area: 16x, less what leaves the image
  EXPECT_LT(four.seen_pixels, 4 * one.seen_pixels);  // what the samples see saturates
  // Motion alone: one pixel wide trails; the ball moving, nothing else.
  sim::Scene moving = scene("ds_motion", 96);
  moving.aperture = 0;
  o.blur = 1;
  const Frame m = render(moving, o);
  ASSERT_TRUE(m.image) << m.diagnostics;
  EXPECT_GT(m.stats.blur_area, 1.5);
}

// The ground truth shades every visible sample at its own point, lens point and time (distributed
// ray tracing's answer). Without blur there is one lens point and one time: it is supersampling,
// bit for bit. Under defocus a view-dependent surface (plastic's highlight) looks different from
// each lens point, which supersampling at the lens centre cannot show: its departure from the
// truth grows with the blur (55 dB at the scene's aperture, 46 dB at four times it).
TEST(Decoupled, TheGroundTruthShadesEachSampleAtItsLensPointAndTime) {
  const sim::Scene s = scene("ds_defocus", 64);
  sim::DecoupledOptions o;
  o.spp = 8;
  sim::Scene pinhole = s;
  pinhole.aperture = 0;
  o.shading = sim::Shading::Supersample;
  const Frame ss0 = render(pinhole, o);
  o.shading = sim::Shading::Exact;
  const Frame exact0 = render(pinhole, o);
  ASSERT_TRUE(ss0.image && exact0.image) << ss0.diagnostics << exact0.diagnostics;
  EXPECT_TRUE(same(*ss0.image, *exact0.image)) << differing_pixels(*ss0.image, *exact0.image) << " pixels differ";

  auto departure = [&](float blur) {
    o.blur = blur;
    o.shading = sim::Shading::Exact;
    const Frame exact = render(s, o);
    o.shading = sim::Shading::Supersample;
    const Frame ss = render(s, o);
    EXPECT_TRUE(exact.image && ss.image);
    EXPECT_EQ(exact.stats.shader_runs, ss.stats.shader_runs);  // the same samples, shaded elsewhere
    return exact.image && ss.image ? sim::image_error(*ss.image, *exact.image).psnr : 0.0;
  };
  const double one = departure(1), four = departure(4);
  EXPECT_LT(one, 70.0);
  EXPECT_LT(four, one - 5);
}

// A light that moves while the shutter is open (samples/scenes/ds_moving_light.json: the ball's
// own light setup, a point light reading RSL's `time`, left at the opening, right at the close).
// Every method shades at the shutter's opening, so the highlight stays on the ball's left; the
// ground truth shades each sample at its own time and smears it across. With the shutter closed
// to an instant, `time` is the opening's for every sample and the two agree exactly.
TEST(Decoupled, ALightMovingOverTheShutterShowsOnlyInTheGroundTruth) {
  sim::Scene s = scene("ds_moving_light", 64);
  ASSERT_EQ(s.objects.size(), 2u);
  ASSERT_NE(s.objects[0].lights.find("moving_light.lights.json"), std::string::npos);
  sim::DecoupledOptions o;
  o.spp = 16;
  const Frame ds = render(s, o);
  o.shading = sim::Shading::Exact;
  const Frame exact = render(s, o);
  ASSERT_TRUE(ds.image && exact.image) << ds.diagnostics << exact.diagnostics;
  EXPECT_LT(sim::image_error(*ds.image, *exact.image).psnr, 25.0);
  auto right_half = [](const sim::Image& im) {
    double sum = 0;
    for (int y = 0; y < im.height; ++y)
      for (int x = im.width / 2; x < im.width; ++x) sum += im.at(x, y)[0] + im.at(x, y)[1] + im.at(x, y)[2];
    return sum;
  };
  EXPECT_GT(right_half(*exact.image), 1.5 * right_half(*ds.image));  // the light reached the right

  s.shutter = {0, 0};
  const Frame instant_exact = render(s, o);
  o.shading = sim::Shading::Supersample;
  const Frame instant_ss = render(s, o);
  ASSERT_TRUE(instant_exact.image && instant_ss.image);
  EXPECT_TRUE(same(*instant_exact.image, *instant_ss.image)) << differing_pixels(*instant_exact.image, *instant_ss.image);
}

// An accumulation buffer renders spp pinhole frames, each at one lens point and time, and
// averages them: sample k of every pixel shares its lens point and time. Without blur that is
// the stochastic pattern's picture exactly; with it, the frames show as ghosts the stochastic
// pattern spreads into noise.
TEST(Decoupled, AnAccumulationBufferSharesEachFramesLensPointAndTime) {
  const sim::SamplePattern shared(27, 5, true), own(27, 5);
  int differ = 0;
  for (int k = 0; k < 27; ++k) {
    EXPECT_EQ(shared.uvt(0, 0, k), shared.uvt(17, 9, k));
    differ += own.uvt(0, 0, k) != own.uvt(17, 9, k);
  }
  EXPECT_GT(differ, 20);
  sim::Scene s = scene("ds_motion", 48);
  sim::DecoupledOptions o;
  o.spp = 8;
  o.shading = sim::Shading::Exact;
  sim::Scene still = s;
  still.aperture = 0;
  for (auto& obj : still.objects) obj.moving = false;
  const Frame a = render(still, o);
  o.accumulate = true;
  const Frame b = render(still, o);
  ASSERT_TRUE(a.image && b.image);
  EXPECT_TRUE(same(*a.image, *b.image));
  const Frame blurred = render(s, o);
  o.accumulate = false;
  const Frame stochastic = render(s, o);
  ASSERT_TRUE(blurred.image && stochastic.image);
  EXPECT_FALSE(same(*blurred.image, *stochastic.image));
  EXPECT_GT(sim::image_error(*blurred.image, *stochastic.image).psnr, 20.0);  // the same scene, sampled otherwise
}

// The paper's hardware studies under sim/hardware_study.h's model: a 128 kB tile holds fewer
// pixels as samples per pixel grow (45, 24 and 16 pixels a side at 8, 27 and 64 spp); blur spreads
// a triangle over more of them (its Figure 11); the cost model charges decoupling per visible
// sample and shading per run, so supersampling costs more, all of it shading (its Figure 13).
TEST(Decoupled, TheHardwareStudiesFollowThePapersModel) {
  EXPECT_EQ(sim::tile_side(8), 45);
  EXPECT_EQ(sim::tile_side(27), 24);
  EXPECT_EQ(sim::tile_side(64), 16);
  const sim::Scene s = scene("ds_defocus", 96);
  sim::DecoupledOptions o;
  o.spp = 27;
  auto study = [&](float blur, sim::Shading shading) {
    o.blur = blur;
    o.shading = shading;
    const Frame f = render(s, o);
    EXPECT_TRUE(f.image) << f.diagnostics;
    EXPECT_GE(f.stats.depth_tests, f.stats.samples_tested);  // (drawn back to front here: none loses)
    EXPECT_GT(f.stats.run_operations, 0);                    // the fp shaders say how long they are
    return sim::hardware_study(o, f.stats);
  };
  const sim::HardwareStudy still = study(0, sim::Shading::Decoupled), blurred = study(4, sim::Shading::Decoupled);
  EXPECT_EQ(still.tile_side, 24);
  EXPECT_GE(still.bin_spread, 1.0);
  EXPECT_GT(blurred.bin_spread, 1.5 * still.bin_spread);
  const sim::HardwareStudy ds = study(1, sim::Shading::Decoupled), ss = study(1, sim::Shading::Supersample);
  EXPECT_GT(ds.decouple, 0);
  EXPECT_EQ(ss.decouple, 0);
  EXPECT_EQ(ss.cache_write_bytes + ss.cache_read_bytes, 0);
  EXPECT_GT(ds.cache_read_bytes, ds.cache_write_bytes);  // hits read what one miss wrote
  EXPECT_GT(ss.shade, 2 * ds.shade);  // 4.2x the runs; the objects that overshade in quads have the longer shaders
  EXPECT_GT(ss.total(), ds.total());
  EXPECT_EQ(ss.framebuffer_bytes, ds.framebuffer_bytes);  // the same visibility
}

// A sweep of the motion's direction turns every corner's motion about the view axis: the trails
// lie otherwise against the traversal (and reach other parts of the frame). Nothing that does not
// move changes.
TEST(Decoupled, TurningTheMotionChangesTheTrailsAndLeavesStillScenesAlone) {
  const sim::Scene moving = scene("ds_long_motion", 64), still = scene("ds_specular", 48);
  sim::DecoupledOptions o;
  o.spp = 8;
  const Frame along = render(moving, o), still_along = render(still, o);
  o.motion_angle = 90;
  const Frame across = render(moving, o), still_across = render(still, o);
  ASSERT_TRUE(along.image && across.image && still_along.image && still_across.image);
  EXPECT_FALSE(same(*along.image, *across.image));
  EXPECT_GT(across.stats.triangles[1] + across.stats.triangles[3], 0);  // still moving
  EXPECT_TRUE(same(*still_along.image, *still_across.image));
  sim::SweepAxis axis;
  ASSERT_TRUE(sim::parse_sweep_axis("direction", &axis));
  EXPECT_EQ(axis, sim::SweepAxis::Direction);
}

// Shading happens at the grid point, not where the miss happened: the picture is the same for
// any order of lookups and any cache size (only the work changes). An opportunistic cache, which
// shades where the miss happened, changes its picture with the order.
TEST(Decoupled, ThePictureDoesNotDependOnLookupOrderOrCacheSizeButAnOpportunisticCachesDoes) {
  const sim::Scene s = scene("ds_defocus", 80);
  sim::DecoupledOptions o;
  o.spp = 8;
  o.cache = 4096;
  const Frame base = render(s, o);
  ASSERT_TRUE(base.image) << base.diagnostics;
  o.shuffle = 12345;
  const Frame shuffled = render(s, o);
  o.shuffle = 0;
  o.cache = 64;
  const Frame small = render(s, o);
  o.cache = 0;
  o.scope = sim::CacheScope::Tile;
  const Frame tiles = render(s, o);
  for (const Frame* f : {&shuffled, &small, &tiles}) {
    ASSERT_TRUE(f->image);
    EXPECT_TRUE(same(*f->image, *base.image)) << differing_pixels(*f->image, *base.image) << " pixels differ";
  }
  EXPECT_GT(small.stats.shader_runs, base.stats.shader_runs);  // a smaller cache shades more
  EXPECT_GT(small.stats.cache.evictions, 0);
  EXPECT_NE(shuffled.stats.cache.misses, 0);

  o = {};
  o.spp = 8;
  o.shading = sim::Shading::Opportunistic;
  const Frame opp = render(s, o);
  o.shuffle = 12345;
  const Frame opp_shuffled = render(s, o);
  ASSERT_TRUE(opp.image && opp_shuffled.image);
  EXPECT_GT(differing_pixels(*opp.image, *opp_shuffled.image), 100);
}

TEST(Decoupled, SupersamplingShadesEveryVisibleSampleAndDecouplingSavesMostOfIt) {
  const sim::Scene s = scene("ds_defocus", 160);
  sim::DecoupledOptions o;
  o.spp = 27;
  o.shading = sim::Shading::Supersample;
  const Frame ss = render(s, o);
  ASSERT_TRUE(ss.image) << ss.diagnostics;
  EXPECT_EQ(ss.stats.shader_runs, ss.stats.samples_tested);
  EXPECT_EQ(ss.stats.visibility_samples, 160L * 160 * 27);
  o.shading = sim::Shading::Decoupled;
  const Frame ds = render(s, o);
  ASSERT_TRUE(ds.image);
  EXPECT_EQ(ds.stats.samples_tested, ss.stats.samples_tested);  // the same visibility
  EXPECT_GT(ds.stats.savings(), 4.0);
  EXPECT_LT(ds.stats.shading_rate(), 27 / 4.0);  // (small triangles at this size: quads overshade)
  EXPECT_GT(ds.stats.blur_area, 2.0);  // the defocused objects spread each shading over pixels
  // Shading constant over the lens is the method's approximation; the picture stays close.
  EXPECT_GT(sim::image_error(*ds.image, *ss.image).psnr, 30.0);
  // Bilinear reconstruction and the adaptive rate change the work, not the picture much.
  o.reconstruct = sim::Reconstruct::Bilinear;
  o.adaptive = true;
  const Frame smooth = render(s, o);
  ASSERT_TRUE(smooth.image);
  EXPECT_LT(smooth.stats.shader_runs, ds.stats.shader_runs * 2);
  EXPECT_GT(sim::image_error(*smooth.image, *ss.image).psnr, 30.0);
}

// Beyond the paper: a partitioned shader's passes run over an F-buffer with a slot per shading
// sample, and give the single pass's picture bit for bit.
TEST(Decoupled, PartitionedShadersRunTheirPassesOncePerShadingSample) {
  sim::Scene s = scene("wood", 96);
  s.aperture = 0.2f;
  s.focus = 4;
  sim::DecoupledOptions o;
  o.spp = 8;
  o.quads = false;  // (a pin 40 pixels tall has triangles smaller than a quad)
  const Frame one = render(s, o, sim::Storage::SinglePass);
  const Frame passes = render(s, o, sim::Storage::FBuffer);
  ASSERT_TRUE(one.image && passes.image) << passes.diagnostics;
  EXPECT_EQ(one.stats.passes, 1);
  EXPECT_GT(passes.stats.passes, 10);
  EXPECT_TRUE(same(*one.image, *passes.image)) << differing_pixels(*one.image, *passes.image);
  EXPECT_EQ(passes.stats.slot_passes, passes.stats.shader_runs * passes.stats.passes);
  o.shading = sim::Shading::Supersample;
  const Frame ss = render(s, o, sim::Storage::FBuffer);
  ASSERT_TRUE(ss.image);
  EXPECT_GT(ss.stats.slot_passes, 2 * passes.stats.slot_passes);
}

TEST(Decoupled, ScenesGiveLensShutterAndMotionAndBadOnesSayWhere) {
  const auto dir = std::filesystem::temp_directory_path() / "passlab_decoupled_scene";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "white.sl") << "surface white() { Oi = Os; Ci = Os; }\n";
  std::ofstream(dir / "scene.json") << R"({"size": [48, 48], "background": [0, 0, 0, 1],
    "camera": {"aperture": 0, "focus": 4, "shutter": [0, 1]},
    "objects": [{"mesh": {"sphere": {"radius": 0.5}}, "translate": [-1, 0, 4], "shader": "white.sl",
                 "motion": {"translate": [2, 0, 0]}}]})";
  lang::Diagnostics problems;
  auto s = sim::load_scene((dir / "scene.json").string(), &problems);
  ASSERT_TRUE(s) << problems.text();
  EXPECT_TRUE(s->objects[0].moving);
  EXPECT_TRUE(s->blurred());
  sim::DecoupledOptions o;
  o.spp = 16;
  const Frame f = render(*s, o);
  ASSERT_TRUE(f.image) << f.diagnostics;
  EXPECT_EQ(f.stats.triangles[1], f.stats.triangles[0] + f.stats.triangles[1]);  // all moving
  // The ball sweeps across the middle row: grey streaks, brightest nowhere at full white.
  int grey = 0;
  for (int x = 0; x < 48; ++x) {
    const float v = f.image->at(x, 24)[0];
    grey += v > 0.05f && v < 0.95f;
  }
  EXPECT_GT(grey, 20);
  // A shutter closed at its opening is a still frame.
  s->shutter = {0.5f, 0.5f};
  EXPECT_FALSE(s->blurred());

  std::ofstream(dir / "bad.json") << R"({"camera": {"shutter": [0.8, 0.2]},
    "objects": [{"mesh": {"sphere": {}}, "shader": "white.sl", "motion": {"spin": 3}},
                {"mesh": {"sphere": {}}, "shader": "white.sl", "lights": 3}]})";
  lang::Diagnostics bad_scene;
  EXPECT_FALSE(sim::load_scene((dir / "bad.json").string(), &bad_scene));
  const std::vector<test::Located> found = test::located(bad_scene);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].line, 1);
  EXPECT_NE(found[0].message.find("0 ≤ open ≤ close ≤ 1"), std::string::npos) << found[0].message;
  EXPECT_EQ(found[1].line, 2);
  EXPECT_NE(found[1].message.find("unknown motion key \"spin\""), std::string::npos) << found[1].message;
  EXPECT_EQ(found[2].line, 3);
  EXPECT_NE(found[2].message.find("\"lights\" must be the path of a light setup"), std::string::npos) << found[2].message;

  o.spp = 300;
  const Frame bad = render(*s, o);
  EXPECT_FALSE(bad.image);
  EXPECT_NE(bad.diagnostics.find("1 to 256"), std::string::npos) << bad.diagnostics;
}

// The Studio's Sampling view asks the session for its frames (the view only draws them): the
// edited shader on every object of the scene, sized to the view, with the probed pixel's samples,
// the heat of where shading went and the error against the exact reference; partitioned, the
// passes run per shading sample and give the same picture; a scene that cannot be read says why.
TEST(Decoupled, TheSamplingViewsFramesComeFromTheSession) {
  const auto snap = test::sample_snapshot("shaders/plastic.sl");
  ASSERT_TRUE(snap->has_dag());
  session::SamplingRequest q;
  q.snapshot = snap;
  q.scene_path = kSamples + "/scenes/ds_defocus.json";
  q.size = 48;
  q.options.spp = 8;
  q.probe_x = 20;
  q.probe_y = 30;
  q.truth = true;
  const session::SamplingResult one = session::render_sampling(q);
  ASSERT_TRUE(one.image) << one.error;
  EXPECT_EQ(one.image->width, 48);
  EXPECT_EQ(one.stats.spp, 8);
  EXPECT_FALSE(one.capture.samples.empty());
  EXPECT_EQ(one.capture.shading_heat.size(), 48u * 48u);
  ASSERT_TRUE(one.truth && one.truth_map) << one.truth_problem;
  EXPECT_GT(one.truth->psnr, 30.0);
  q.run = std::shared_ptr<const session::AlgorithmRun>(snap, snap->run("rds"));  // (kept alive by the snapshot)
  ASSERT_TRUE(q.run && q.run->partition.passes.size() > 1);
  q.truth = false;
  const session::SamplingResult passes = session::render_sampling(q);
  ASSERT_TRUE(passes.image) << passes.error;
  EXPECT_EQ(passes.stats.passes, static_cast<int>(q.run->partition.passes.size()));
  EXPECT_TRUE(same(*one.image, *passes.image)) << differing_pixels(*one.image, *passes.image) << " pixels differ";
  q.scene_path = kSamples + "/scenes/no_such_scene.json";
  const session::SamplingResult missing = session::render_sampling(q);
  EXPECT_FALSE(missing.image);
  EXPECT_NE(missing.error.find("no_such_scene.json"), std::string::npos) << missing.error;
}

TEST(Decoupled, TracesAPixelsSamplesAndTheShadingPointsTheyUsed) {
  const sim::Scene s = scene("ds_defocus", 64);
  sim::DecoupledCapture cap;
  cap.probe_x = 20;
  cap.probe_y = 44;  // on the near ball, out of focus
  cap.heat = true;
  sim::DecoupledOptions o;
  o.spp = 27;
  o.capture = &cap;
  const Frame f = render(s, o);
  ASSERT_TRUE(f.image);
  ASSERT_GE(cap.samples.size(), 27u);
  float mean[3] = {};
  int visible = 0;
  for (const auto& t : cap.samples) {
    EXPECT_GE(t.sx, 20.0f);
    EXPECT_LT(t.sx, 21.0f);
    EXPECT_TRUE(std::isfinite(t.shading_points[0][0]));
    if (!t.visible) continue;
    ++visible;
    for (int c = 0; c < 3; ++c) mean[c] += t.colour[static_cast<std::size_t>(c)];
  }
  EXPECT_LE(visible, 27);
  // The visible samples (over the background's) make the pixel.
  EXPECT_EQ(visible, 27);  // nothing shows through at this pixel
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(mean[c] / 27, f.image->at(20, 44)[c], 1e-5f);
  // Where shading happened adds up to all of it.
  double total = 0;
  for (float v : cap.shading_heat) total += v;
  EXPECT_LE(total, static_cast<double>(f.stats.shader_runs));
  EXPECT_GT(total, 0.8 * static_cast<double>(f.stats.shader_runs));
}

}  // namespace
}  // namespace passlab
