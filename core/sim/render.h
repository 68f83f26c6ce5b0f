// SPDX-License-Identifier: GPL-3.0-or-later
// The renderer: a scene rasterized and shaded in one pass, or pass by pass with intermediate
// values kept per pixel (render-to-texture) or per fragment (F-buffer, with the overflow policies
// of the ATI 9800 and X800), multi-threaded by screen tiles, deterministic.
#pragma once

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/image.h"
#include "core/sim/scene.h"
#include "core/sim/shading.h"

namespace passlab::sim {

enum class Storage { SinglePass, RenderToTexture, FBuffer };
enum class Overflow {
  Restart,  // 9800: overflow is seen after the first pass; the batch is resubmitted in halves
  Window,   // X800: the geometry is submitted once per pass and F-buffer-sized fragment window
};
const char* to_string(Storage s);
const char* to_string(Overflow o);

// What a render can keep for inspection: each pass's values as a picture, and every value computed
// for the fragments of one pixel.
struct ProbedFragment {
  int pass = 0;
  int layer = 0;  // the fragment's rank among those of its pixel, in rasterization order
  float depth = 0;
  std::array<float, 4> value{};
  bool visible = false;  // passed the depth test when it was resolved
};

struct RenderCapture {
  bool pass_images = false;          // fill `passes`
  int probe_x = -1, probe_y = -1;    // the pixel to probe (in the rendered image's pixels)
  std::vector<Image> passes;         // per pass: the value of the last fragment drawn at each pixel
  std::vector<ProbedFragment> probed;
};

struct RenderOptions {
  int width = 0, height = 0;  // 0: the scene's size
  Storage storage = Storage::FBuffer;
  long fbuffer_slots = 0;     // F-buffer size in fragments; 0: as many as a batch needs
  Overflow overflow = Overflow::Window;
  int supersample = 1;        // shaded samples per pixel along each axis (averaged)
  int multisample = 1;        // coverage and depth samples per pixel (1, 2, 4, 8), shaded once per pixel
  int threads = 0;            // 0: every hardware thread
  const std::atomic<bool>* cancel = nullptr;  // set: the render stops early and returns nullopt
  RenderCapture* capture = nullptr;           // optional inspection data
};

struct RenderStats {
  int passes = 0;
  long geometry_submissions = 0;  // times a batch of geometry went through the pipeline
  long fragments_rasterized = 0;  // over all submissions
  long fragments_shaded = 0;      // pass programs run, over all passes (wasted work included)
  long bytes_written = 0;         // intermediate values stored (4 floats each)
  long bytes_read = 0;            // intermediate values restored
  long overflows = 0;             // F-buffer: batches or windows that did not fit
  long windows = 0;               // F-buffer windows (X800) or batches shaded (9800)
  double milliseconds = 0;
};

// Renders `scene`; shaders[i] shades scene.objects[i]. Objects adjacent in drawing order with the
// same shader and opacity form one batch of geometry (sim/draw_list.h). Opaque objects are drawn
// first, in file order, then transparent ones (back to front if the scene sorts them), blended as
// premultiplied colour over what is behind. Returns nullopt with `error` when a single triangle overflows the F-buffer
// or the render was cancelled.
std::optional<Image> render(const Scene& scene, const std::vector<const FragmentShader*>& shaders,
                            const RenderOptions& options, RenderStats* stats, std::string* error);

}  // namespace passlab::sim
