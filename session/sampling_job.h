// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio's Sampling view's work, run off the UI thread: the edited shader on every object of a
// blurred scene by decoupled sampling (with a probed pixel's samples and the heat of where shading
// went), its error against the exact reference, or the paper's sweeps. The view draws the result.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/decoupled.h"
#include "core/sim/image.h"
#include "core/sim/sampling_sweep.h"
#include "session/snapshot.h"

namespace passlab::session {

struct SamplingRequest {
  SnapshotPtr snapshot;
  std::shared_ptr<const AlgorithmRun> run;  // its partition runs per shading sample (an F-buffer); null: one pass
  std::string scene_path;                   // "": the default scene for the shader
  int size = 256;                           // the image's longer side, in pixels
  sim::DecoupledOptions options;
  int probe_x = -1, probe_y = -1;           // the pixel whose samples are traced
  bool sweep = false;                       // the sweeps (spp, cache size, cache scope, blur) instead of one render
  bool truth = false;                       // also render the exact reference and the error against it
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<int>* progress = nullptr;     // per mille
};

struct SamplingResult {
  bool sweep = false;
  std::optional<sim::Image> image;
  sim::DecoupledCapture capture;          // the probed pixel's samples and the shading heat
  sim::DecoupledStats stats;
  sim::DecoupledOptions options;          // what rendered it
  std::optional<sim::ImageError> truth;   // against the exact reference, when asked for
  std::optional<sim::Image> truth_map;    // its error map as a heat picture
  std::string truth_problem;              // why the reference could not be rendered
  std::vector<sim::SweepRow> rows;
  std::string error;                      // "cancelled" when cancelled
  double ms = 0;
};

// Loads the scene (sized to `size` on its longer side), builds the shader from the snapshot and
// renders or sweeps. The exact reference is rendered by the whole shader in one pass (what the
// passes must reproduce; each sample sets up its own corners, which one program does far faster
// than a partition's).
SamplingResult render_sampling(SamplingRequest request);

}  // namespace passlab::session
