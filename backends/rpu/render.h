// SPDX-License-Identifier: GPL-3.0-or-later
// Rendering on the RPU (thesis §2.1, §12): one thread per pixel runs the "main" shader, which
// casts the primary ray and calls the shader of the object it hits; neighbouring 2x2 pixels form
// a chunk of four threads.
//
// The main shader is an RSL function `color main(point P)` with P = ((x + 0.5) / width,
// (y + 0.5) / height, 0), as in the thesis's example; its colour is the pixel's. The constant
// registers hold what the scene gives every shader:
//   C0.xyz  the point light's position (camera space)   C1.xyz  its colour
//   C30     the background colour (a ray that hits nothing sees it)
//   C31     the trace arguments: (t_min, t_max, 0, deepest ray level)
//   C2-C29  the program's own constants (`.const`): the columns of the coordinate systems its
//           shaders transform by (the compiler allocates them from C2 up)
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/rpu/machine_model.h"
#include "backends/rpu/scene_data.h"
#include "backends/rpu/vm.h"
#include "core/sim/image.h"
#include "core/sim/scene.h"

namespace passlab::rpu {

struct RenderOptions {
  int width = 0, height = 0;  // 0: the scene's size
  int threads = 0;            // host threads; 0: all cores
  const std::atomic<bool>* cancel = nullptr;
  const Machine* machine = nullptr;  // null: the default machine
  bool ieee = false;                 // IEEE single arithmetic instead of 24-bit
  // Casts the rays instead of the scene's own BVH (which still provides data memory); it must
  // answer as the scene would and be safe to call from every host thread. Benchmarks time the
  // trace unit through it.
  const TraceUnit* trace_unit = nullptr;
  // Threads per chunk: 4 (the RPU's 2x2 pixels in lockstep) or 1 (every pixel alone), which must
  // give the same image: the conformance oracle compares them.
  int lanes = 4;
  // Wall-clock seconds the render may take (0: no limit); past it, the rows not yet started are
  // left black and RenderResult::timed_out says so.
  double time_limit_s = 0;
  // Also time the render on the machine model (machine_model.h) with the machine's cores, chunks
  // in flight and trace unit: RenderResult::model and the pixel_model_* maps. Chunks go to the
  // model in row-major order, rows rendered in batches so that memory stays bounded.
  bool model = false;
  // With model: also time the same chunks with each of these numbers of chunks in flight (the
  // machine's other knobs as they are), for RenderResult::sweep. One render feeds them all.
  std::vector<int> sweep_in_flight;
};

struct RenderResult {
  sim::Image image;
  VmStats stats;
  std::vector<std::uint32_t> pixel_instructions;  // instructions each pixel's thread ran, row-major
  // Per pixel, its chunk's (row-major, like the image): cycles (issues and stalls), stalls,
  // splits (divergence), and occupancy (active lanes per issue over the chunk's lanes).
  std::vector<std::uint32_t> pixel_cycles, pixel_stalls, pixel_splits;
  std::vector<float> pixel_occupancy;
  // With RenderOptions::model: the model's figures, and per pixel its chunk's cycles on its core
  // (arrival to last issue) and the share of them spent waiting for the trace unit.
  std::optional<ModelStats> model;
  std::vector<std::uint32_t> pixel_model_cycles;
  std::vector<float> pixel_trace_share;
  std::vector<ModelStats> sweep;  // one per RenderOptions::sweep_in_flight, in its order
  std::vector<std::string> faults;                // the first few, each naming its pixel
  std::uint64_t fault_count = 0;
  bool cancelled = false;
  bool timed_out = false;     // stopped at RenderOptions::time_limit_s
  int rows_done = 0, rows = 0;  // rows of chunks (two pixel rows each) rendered, of all
};

// The constant registers a render loads (see above).
std::array<Vec4, 32> scene_constants(const sim::Scene& scene, const SceneData& data, const Program& program);

// Renders `scene` with `program`, each pixel's thread starting at `main_entry`. Deterministic:
// the image and statistics do not depend on the number of host threads. A faulted pixel is
// magenta. Not constant time: every pixel runs its shaders.
RenderResult render(const Program& program, std::uint32_t main_entry, const SceneData& data, const sim::Scene& scene,
                    const RenderOptions& options);

}  // namespace passlab::rpu
