// SPDX-License-Identifier: GPL-3.0-or-later
// Decoupled sampling (Ragan-Kelley, Lehtinen, Chen, Doggett and Durand, "Decoupled Sampling for
// Graphics Pipelines", ACM TOG 2011): motion and defocus blur from many visibility samples per
// pixel (x, y, lens u, v, time t), with shading done after visibility, on demand, at a point of a
// per-triangle shading grid, and memoized in a small cache. The same renderer gives the two
// references a decoupled image is judged against: supersampling (every visible sample shaded
// where it is) and multisampling (one shading per pixel and triangle).
//
// A frame goes triangle by triangle in drawing order (sort-last, as a GPU); each triangle's
// samples are visited in 32 x 32 pixel tiles in Morton order and 2 x 2 pixel quads in Morton
// order inside them. A sample that is covered and passes the depth test is mapped to its shading
// location and looked up in the cache; a miss creates a shading run there. Runs are shaded in
// batches through all of the shader's passes, each pass's values kept per run (an F-buffer with a
// slot per shading sample); the frame buffer keeps, per visibility sample, the run it shows.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/image.h"
#include "core/sim/scene.h"
#include "core/sim/shading.h"
#include "core/sim/shading_cache.h"

namespace passlab::sim {

enum class Shading : std::uint8_t {
  Decoupled,      // the paper: shade at the sample's shading-grid point, memoized per triangle
  Supersample,    // the reference: every visible sample shaded at itself
  Msaa,           // one shading per pixel and triangle, at the pixel centre
  Opportunistic,  // a cache that shades where the miss happened (reprojection-style): order-dependent
  Exact,          // the ground truth: every visible sample shaded at its own point, lens point and time
};
enum class CacheScope : std::uint8_t { Global, Tile };  // one cache (sort-last) or one per 32 x 32 tile (sort-middle)
enum class Reconstruct : std::uint8_t { Nearest, Bilinear };
const char* to_string(Shading s);
const char* to_string(CacheScope s);
const char* to_string(Reconstruct r);

// What a render keeps for inspection: one pixel's visibility samples and the shading runs they
// used, and a map of where shading happened.
struct SampleTrace {
  int k = 0;                    // the sample's index in its pixel
  float sx = 0, sy = 0;         // its screen position
  float u = 0, v = 0, t = 0;    // its lens point (unit disc) and time (0 to 1 over the shutter)
  std::uint32_t object = 0;     // the scene object it hit
  std::uint32_t triangle = 0;   // the frame's triangle it hit
  float z = 0;                  // camera z of the hit
  bool hit = false;             // its (first) cache lookup hit
  bool visible = false;         // it is in the final image (not hidden by a later, nearer one)
  int taps = 1;                 // shading runs it blends (4 with bilinear reconstruction)
  std::array<std::uint32_t, 4> runs{};       // the runs
  std::array<float, 4> weights{1, 0, 0, 0};  // and their weights
  std::array<std::array<float, 2>, 4> shading_points{};  // each run's location on screen (as seen from the reference view)
  std::array<float, 4> colour{};             // what the sample shows (premultiplied RGBA)
};

struct DecoupledCapture {
  int probe_x = -1, probe_y = -1;  // the pixel whose samples to trace
  bool heat = false;               // fill `shading_heat`
  std::vector<SampleTrace> samples;
  // Per pixel: shading runs whose location lies in it (a picture of where the shading work went).
  std::vector<float> shading_heat;
  int width = 0, height = 0;
};

struct DecoupledOptions {
  int width = 0, height = 0;   // 0: the scene's size
  int spp = 27;                // visibility samples per pixel (1 to 256)
  Shading shading = Shading::Decoupled;
  long cache = 4096;           // shading cache size in shading samples; 0: unlimited
  CacheScope scope = CacheScope::Global;
  bool quads = true;           // shade 2 x 2 quads of shading points per miss (as GPUs do)
  Reconstruct reconstruct = Reconstruct::Nearest;
  float rate = 1;              // shading rate: pixels of area per shading sample (RenderMan's ShadingRate), times each object's
  bool adaptive = false;       // defocus: widen a triangle's shading grid with its smallest circle of confusion
  float blur = 1;              // scales the lens aperture and the shutter's span (for sweeps)
  float motion_angle = 0;      // degrees: turns every corner's motion about the view axis (for sweeps of
                               // the motion's direction on screen against the traversal order)
  std::uint32_t seed = 0;      // of the sample pattern
  bool accumulate = false;     // every pixel's sample k sees the same lens point and time: spp pinhole
                               // frames averaged, an accumulation buffer (Haeberli and Akeley 1990)
  std::uint32_t shuffle = 0;   // nonzero: each triangle's samples are looked up in a shuffled order (a check)
  int threads = 0;             // 0: every hardware thread
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<int>* progress = nullptr;  // set to per mille of the triangles done
  DecoupledCapture* capture = nullptr;
};

// 4 when a miss shades a 2 x 2 quad of shading points (decoupled and MSAA shading with quads),
// else 1 (supersampling and opportunistic shading shade single samples).
int shading_block(const DecoupledOptions& o);

// The shading cache a render with `o` uses, in shading samples: 0 unlimited, kNoCache for modes
// without one of a size (supersampling shades every sample; MSAA memoizes per pixel and triangle
// without a limit), else `cache` in whole blocks (4,097 with quads holds 4,096 samples).
inline constexpr long kNoCache = -1;
long cache_samples(const DecoupledOptions& o);

struct DecoupledStats {
  int width = 0, height = 0, spp = 0;
  long visibility_samples = 0;  // width * height * spp
  long covered_pixels = 0;      // pixels with a drawn sample in the final image
  long covered_samples = 0;     // samples drawn in the final image
  long samples_tested = 0;      // samples that were covered and passed the depth test when drawn:
                                // what an ideal supersampler shades (overdraw included)
  long shader_runs = 0;         // shading samples shaded (quads count four)
  long triangles[4] = {};       // by class: static, moving, defocused, both
  long reference_fallbacks = 0; // triangles shaded from the end of the shutter (none valid at its start)
  long barycentric_grids = 0;   // triangles with no valid reference view, shaded on a barycentric grid
  long partial_views = 0;       // moving triangles crossing the near plane: the opening's view where it
                                // shows their points, the barycentric grid elsewhere
  CacheStats cache;
  double blur_area = 0;         // the paper's blur area: mean pixels a shading run's point reaches over
                                // the lens and shutter (its circle of confusion swept along its trail)
  double seen_pixels = 0;       // mean pixels one shading run is seen in (at most the samples that use it)
  int passes = 0;               // the shader's passes (most over the objects)
  long slot_passes = 0;         // shading runs times passes: F-buffer slots written and shaded
  // Counts for the hardware studies (sim/hardware_study.h).
  long depth_tests = 0;         // covered samples depth-tested (passing or not)
  int bin_tile = 0;             // the side of a sort-middle tile whose samples fit 128 kB (hardware_study.h)
  long binned_triangles = 0;    // triangles with pixels on screen (over their blur)
  long bin_entries = 0;         // the tiles of bin_tile pixels their blurred bounds touch, summed
  double run_operations = 0;    // shader instructions per shading run (0: the shaders do not say)
  double milliseconds = 0, raster_ms = 0, shade_ms = 0, resolve_ms = 0;

  double shading_rate() const { return covered_pixels ? static_cast<double>(shader_runs) / static_cast<double>(covered_pixels) : 0.0; }
  double savings() const { return shader_runs ? static_cast<double>(samples_tested) / static_cast<double>(shader_runs) : 0.0; }
};

// Renders `scene` with its lens and motion; shaders[i] shades scene.objects[i] (whole or in
// passes). Returns nullopt with `error` for options out of range, a frame too large, or a
// cancelled render.
std::optional<Image> render_decoupled(const Scene& scene, const std::vector<const FragmentShader*>& shaders,
                                      const DecoupledOptions& options, DecoupledStats* stats, std::string* error);

// What the cache did, in words for a report: "cache hit rate 96.9% (global 4096 samples)", "per-pixel
// reuse 96.8%" for MSAA, "no shading cache (every sample shaded)" for supersampling.
std::string cache_summary(const DecoupledOptions& o, const DecoupledStats& s);

// Error of an image against a reference of the same size: root mean square over RGB and PSNR (dB).
struct ImageError {
  double rmse = 0, psnr = 0, max_abs = 0;
};
ImageError image_error(const Image& image, const Image& reference);
// Per pixel (row-major from the top), the largest difference of its R, G and B (0 to 1); empty
// when the sizes differ. Drawn as a heat map, it shows where an image departs from its reference.
std::vector<float> error_map(const Image& image, const Image& reference);

}  // namespace passlab::sim
