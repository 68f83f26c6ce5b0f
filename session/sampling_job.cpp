// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/sampling_job.h"

#include <algorithm>
#include <chrono>

#include "core/sim/heat.h"
#include "core/sim/scene.h"
#include "core/sim/texture.h"
#include "session/render_job.h"

namespace passlab::session {

SamplingResult render_sampling(SamplingRequest request) {
  SamplingResult f;
  f.sweep = request.sweep;
  const auto start = std::chrono::steady_clock::now();
  lang::Diagnostics problems;
  std::optional<sim::Scene> scene = request.scene_path.empty()
                                        ? std::optional<sim::Scene>(default_scene_for(request.snapshot->request.path))
                                        : sim::load_scene(request.scene_path, &problems);
  if (!scene) {
    f.error = problems.summary();
    return f;
  }
  const int size = request.size;
  const double aspect = static_cast<double>(std::max(1, scene->width)) / std::max(1, scene->height);
  scene->width = aspect >= 1 ? size : std::max(1, static_cast<int>(size * aspect));
  scene->height = aspect >= 1 ? std::max(1, static_cast<int>(size / aspect)) : size;
  sim::TextureSet textures;
  textures.load(scene->textures, &problems);
  std::string why;
  const sim::Storage storage = request.run ? sim::Storage::FBuffer : sim::Storage::SinglePass;
  auto shader = snapshot_shader(*request.snapshot, request.run.get(), storage, textures, {}, &why);
  if (!shader) {
    f.error = why;
    return f;
  }
  const std::vector<const sim::FragmentShader*> shaders(scene->objects.size(), shader.get());
  sim::DecoupledOptions o = request.options;
  o.cancel = request.cancel;
  o.progress = request.progress;
  auto cancelled = [&] { return request.cancel && request.cancel->load(); };
  std::string error;
  if (request.sweep) {
    f.rows = sim::sweep(*scene, shaders, o, {sim::SweepAxis::Spp, sim::SweepAxis::Cache, sim::SweepAxis::Scope, sim::SweepAxis::Blur},
                        [&](int i, int n) {
                          if (request.progress) request.progress->store(1000 * i / std::max(1, n));
                          return !cancelled();
                        },
                        &error);
    if (f.rows.empty()) f.error = cancelled() ? "cancelled" : error;
  } else {
    o.capture = &f.capture;
    f.capture.heat = true;
    f.capture.probe_x = request.probe_x;
    f.capture.probe_y = request.probe_y;
    f.image = sim::render_decoupled(*scene, shaders, o, &f.stats, &error);
    o.capture = nullptr;
    f.options = o;
    if (!f.image) f.error = error;
    if (f.image && request.truth) {
      sim::DecoupledOptions exact = o;
      exact.shading = sim::Shading::Exact;
      exact.accumulate = false;
      exact.progress = nullptr;
      sim::DecoupledStats exact_stats;
      std::string why_not;
      auto whole = snapshot_shader(*request.snapshot, nullptr, sim::Storage::SinglePass, textures, {}, &why_not);
      const std::vector<const sim::FragmentShader*> whole_shaders(scene->objects.size(), whole ? whole.get() : shader.get());
      if (const auto reference = sim::render_decoupled(*scene, whole_shaders, exact, &exact_stats, &error)) {
        f.truth = sim::image_error(*f.image, *reference);
        f.truth_map = sim::heat_image(sim::error_map(*f.image, *reference), f.image->width, f.image->height, 0.1f);
      } else if (!cancelled()) {
        f.truth_problem = error;
      }
    }
  }
  f.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return f;
}

}  // namespace passlab::session
