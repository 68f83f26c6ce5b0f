// SPDX-License-Identifier: GPL-3.0-or-later
// A render of a scene with its shaders compiled, partitioned for a target and run pass by pass:
// what `passlab-cli render` and the Studio's preview do.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/decoupled.h"
#include "core/sim/render.h"
#include "core/sim/scene.h"
#include "core/sim/texture.h"
#include "session/scenes.h"
#include "session/snapshot.h"


namespace passlab::session {

struct RenderRequest {
  std::string shader;            // the shader of objects that name none
  std::string lights;            // light setup ("": the shader's default)
  std::vector<std::string> include_paths;
  std::vector<std::pair<std::string, std::string>> defines;  // -D NAME=VALUE
  std::string aov;               // "": render Ci; else this output parameter of every shader
  bool all_outputs = false;      // every shader with its output parameters too, each to its own render target
  std::string target = "PC5";    // preset or JSON file
  std::string cost = "15p+5t+i";
  std::string algorithm = "rds"; // a partition::algorithms() name; the single-pass store ignores it
  double optimal_budget = 10;    // seconds
  sim::RenderOptions options;
  backends::ShaderOptions shading;         // e.g. the register combiners' hardware precision
  // Set: render with the scene's lens and motion by decoupled sampling (or its references)
  // instead; options.storage still chooses one pass or the partition's passes, and width,
  // height and threads come from here.
  std::optional<sim::DecoupledOptions> decoupled;
};

struct ShaderReport {
  std::string path;
  int passes = 0;
  double cost = 0;
  bool partition_checked = false;  // the validator and the execution check found nothing
};

struct RenderOutcome {
  std::optional<sim::Image> image;
  sim::RenderStats stats;
  sim::DecoupledStats decoupled;  // when the request asked for decoupled sampling
  std::vector<ShaderReport> shaders;
  std::string diagnostics;  // compiler and scene problems, formatted; empty when none
};

// The shaders of a scene's objects, each distinct shader compiled and partitioned once, with the
// scene's textures they sample.
class SceneShaders {
 public:
  // nullptr when a shader or a texture has problems (formatted into *diagnostics).
  static std::unique_ptr<SceneShaders> build(const sim::Scene& scene, const RenderRequest& request, std::string* diagnostics);
  ~SceneShaders();
  const std::vector<const sim::FragmentShader*>& per_object() const { return per_object_; }
  const sim::TextureSet& textures() const { return *textures_; }
  const std::vector<ShaderReport>& reports() const { return reports_; }
  struct Built;  // one compiled shader (render_job.cpp)

 private:
  SceneShaders() = default;
  std::unique_ptr<sim::TextureSet> textures_;
  std::vector<std::unique_ptr<Built>> built_;
  std::vector<const sim::FragmentShader*> per_object_;
  std::vector<ShaderReport> reports_;
};

// Loads the scene, compiles each distinct shader once, partitions it (unless single-pass) and
// renders. On any problem, `image` is empty and `diagnostics` says what and where.
RenderOutcome render_scene(const std::string& scene_path, const RenderRequest& request);
// The same for a scene already loaded.
RenderOutcome render_scene(const sim::Scene& scene, const RenderRequest& request);

// Renders with a shader the Studio already compiled and partitioned: every object of `scene` uses
// the snapshot's shader, whole (run == null, or the single-pass store) or in run's passes. The
// scene's textures are `textures` when given (loaded once for several renders), else loaded here
// (their problems reported). The snapshot must have a DAG.
RenderOutcome render_snapshot(const sim::Scene& scene, const Snapshot& snapshot, const AlgorithmRun* run,
                              const sim::RenderOptions& options, const sim::TextureSet* textures = nullptr, const backends::ShaderOptions& shading = {});
// The same with the scene's lens and motion by decoupled sampling (`decoupled` set; options
// chooses one pass or the partition's passes), its measures in the outcome's `decoupled`.
RenderOutcome render_snapshot(const sim::Scene& scene, const Snapshot& snapshot, const AlgorithmRun* run,
                              const sim::RenderOptions& options, const sim::DecoupledOptions* decoupled,
                              const sim::TextureSet* textures = nullptr, const backends::ShaderOptions& shading = {});

// The snapshot's shader as the renderer runs it: whole (run == null or the single-pass store) or
// in run's passes, sampling `textures` (which must outlive it). Null with *why when it cannot.
std::unique_ptr<sim::FragmentShader> snapshot_shader(const Snapshot& snapshot, const AlgorithmRun* run, sim::Storage storage,
                                                     const sim::TextureSet& textures, const backends::ShaderOptions& shading, std::string* why);

}  // namespace passlab::session
