// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/render_job.h"

#include <map>

#include <fmt/format.h>

#include "backends/registry/registry.h"
#include "core/driver/program.h"
#include "session/pipeline.h"
#include "core/partition/registry.h"
#include "core/sim/texture.h"

namespace passlab::session {

// One shader compiled for the render; the pass shader refers to the target program and its DAG,
// which the compile keeps.
struct SceneShaders::Built {
  Compiled compiled;
  const backends::TargetProgram* target = nullptr;
  partition::Partition partition;
  std::unique_ptr<sim::FragmentShader> shader;
};

namespace {

using Built = SceneShaders::Built;

std::unique_ptr<Built> build_shader(const std::string& path, const std::string& lights, const RenderRequest& req,
                             const partition::TargetDesc& target, const partition::CostModel& model,
                             const ir::TextureSampler* textures, ShaderReport* report, std::string* diagnostics) {
  auto b = std::make_unique<Built>();
  driver::ProgramOptions popt;
  popt.include_paths = req.include_paths;
  popt.defines = req.defines;
  popt.aov = req.aov;
  popt.all_outputs = req.all_outputs;
  popt.lights_path = lights;
  b->compiled = compile({path, std::nullopt}, popt, &target);
  const driver::Program& program = *b->compiled.program;
  *diagnostics += lang::format_text(program.diagnostics.items(), *program.sources);
  if (!b->compiled.dag) return nullptr;
  b->target = b->compiled.target.get();
  if (!b->target) return nullptr;  // why is among the diagnostics above
  std::string error;
  ir::EvalContext ctx;
  ctx.spaces = program.binding.spaces;
  ctx.textures = textures;
  report->path = path;
  if (req.options.storage == sim::Storage::SinglePass) {
    b->shader = b->target->shader(nullptr, ctx, &error, req.shading);
    if (!b->shader) {
      *diagnostics += fmt::format("{}: error: {}\n", path, error);
      return nullptr;
    }
    report->passes = 1;
    return b;
  }
  const partition::Problem& problem = b->target->problem();
  std::unique_ptr<partition::Backend> backend = b->target->backend();
  const partition::Algorithm* algorithm = partition::find_algorithm(req.algorithm);
  if (!algorithm) {
    *diagnostics += fmt::format("{}: error: no partitioning algorithm is called \"{}\" (there are {})\n", path,
                                req.algorithm, partition::algorithm_names());
    return nullptr;
  }
  partition::RunRequest run;
  run.options.model = model;
  run.search.budget_seconds = req.optimal_budget;
  b->partition = algorithm->run(problem, *backend, run);
  if (!b->partition.valid) {
    std::string why;
    for (const partition::Pass& p : b->partition.passes)
      if (!p.failure.empty()) {
        why = fmt::format(": a pass at n{} ({}) does not fit: {}", p.root, problem.labels[p.root], p.failure);
        break;
      }
    *diagnostics += fmt::format("{}: error: {} found no partition that fits {}{}\n", path, req.algorithm, target.name, why);
    return nullptr;
  }
  const auto problems = b->target->check(b->partition, model, program.binding);
  for (const auto& p : problems) *diagnostics += fmt::format("{}: error: {}: {}\n", path, req.algorithm, p);
  report->partition_checked = problems.empty();
  report->passes = static_cast<int>(b->partition.passes.size());
  report->cost = b->partition.cost;
  b->shader = b->target->shader(&b->partition, ctx, &error, req.shading);
  if (!b->shader) {
    *diagnostics += fmt::format("{}: error: {}\n", path, error);
    return nullptr;
  }
  return b;
}

}  // namespace

RenderOutcome render_scene(const std::string& scene_path, const RenderRequest& request) {
  RenderOutcome out;
  lang::Diagnostics problems;
  auto scene = sim::load_scene(scene_path, &problems);
  if (!scene) {
    out.diagnostics = problems.text();
    return out;
  }
  return render_scene(*scene, request);
}

SceneShaders::~SceneShaders() = default;

std::unique_ptr<SceneShaders> SceneShaders::build(const sim::Scene& scene, const RenderRequest& request, std::string* diagnostics) {
  lang::Diagnostics problems;
  auto target = backends::load_target(request.target, &problems);
  auto model = partition::parse_cost_model(request.cost, &problems);
  if (!target || !model) {
    *diagnostics += problems.text();
    return nullptr;
  }
  std::unique_ptr<SceneShaders> set(new SceneShaders);
  set->textures_ = std::make_unique<sim::TextureSet>();
  if (!set->textures_->load(scene.textures, &problems)) {
    *diagnostics += problems.text();
    return nullptr;
  }
  // One program per shader and light setup: an object's own "lights", else the request's for the
  // request's shader, else the setup beside the shader.
  std::map<std::pair<std::string, std::string>, const sim::FragmentShader*> built;
  for (const auto& o : scene.objects) {
    const std::string path = o.shader.empty() ? request.shader : o.shader;
    if (path.empty()) {
      problems.error("scene", lang::file_span(problems.sources().add(scene.path, "")),
                     fmt::format("object \"{}\" names no shader and none was given", o.name));
      *diagnostics += problems.text();
      return nullptr;
    }
    const std::string lights = !o.lights.empty() ? o.lights : path == request.shader ? request.lights : "";
    auto it = built.find({path, lights});
    if (it == built.end()) {
      ShaderReport report;
      auto b = build_shader(path, lights, request, *target, *model, set->textures_.get(), &report, diagnostics);
      if (!b) return nullptr;
      set->reports_.push_back(report);
      it = built.emplace(std::pair{path, lights}, b->shader.get()).first;
      set->built_.push_back(std::move(b));
    }
    set->per_object_.push_back(it->second);
  }
  return set;
}

RenderOutcome render_scene(const sim::Scene& scene, const RenderRequest& request) {
  RenderOutcome out;
  auto shaders = SceneShaders::build(scene, request, &out.diagnostics);
  if (!shaders) return out;
  out.shaders = shaders->reports();
  const std::vector<const sim::FragmentShader*> per_object(shaders->per_object().begin(), shaders->per_object().end());
  std::string error;
  if (request.decoupled) out.image = sim::render_decoupled(scene, per_object, *request.decoupled, &out.decoupled, &error);
  else out.image = sim::render(scene, per_object, request.options, &out.stats, &error);
  if (!out.image) out.diagnostics += scene.path + ": error: " + error + "\n";
  return out;
}

RenderOutcome render_snapshot(const sim::Scene& scene, const Snapshot& snapshot, const AlgorithmRun* run,
                              const sim::RenderOptions& options, const sim::TextureSet* given, const backends::ShaderOptions& shading) {
  return render_snapshot(scene, snapshot, run, options, nullptr, given, shading);
}

std::unique_ptr<sim::FragmentShader> snapshot_shader(const Snapshot& snapshot, const AlgorithmRun* run, sim::Storage storage,
                                                     const sim::TextureSet& textures, const backends::ShaderOptions& shading, std::string* why) {
  if (!snapshot.has_dag() || !snapshot.fragment_dag || !snapshot.program) {
    *why = "the shader has no DAG to render";
    return nullptr;
  }
  ir::EvalContext ctx;
  ctx.spaces = snapshot.program->binding.spaces;
  ctx.textures = &textures;
  const bool whole = !run || storage == sim::Storage::SinglePass;
  return snapshot.target->shader(whole ? nullptr : &run->partition, ctx, why, shading);
}

RenderOutcome render_snapshot(const sim::Scene& scene, const Snapshot& snapshot, const AlgorithmRun* run,
                              const sim::RenderOptions& options, const sim::DecoupledOptions* decoupled, const sim::TextureSet* given,
                              const backends::ShaderOptions& shading) {
  RenderOutcome out;
  if (!snapshot.has_dag() || !snapshot.fragment_dag || !snapshot.program) {
    out.diagnostics = "the shader has no DAG to render\n";
    return out;
  }
  sim::TextureSet loaded;
  if (!given) {
    lang::Diagnostics problems;
    if (!loaded.load(scene.textures, &problems)) out.diagnostics += problems.text();
  }
  const bool whole = !run || options.storage == sim::Storage::SinglePass;
  std::string why;
  std::unique_ptr<sim::FragmentShader> owned = snapshot_shader(snapshot, run, options.storage, given ? *given : loaded, shading, &why);
  if (!owned) {
    out.diagnostics += why + "\n";
    return out;
  }
  const sim::FragmentShader& shader = *owned;
  ShaderReport report;
  report.path = snapshot.request.path;
  report.passes = shader.passes();
  report.cost = whole ? 0 : run->partition.cost;
  report.partition_checked = whole || run->problems.empty();
  out.shaders.push_back(report);
  std::vector<const sim::FragmentShader*> shaders(scene.objects.size(), &shader);
  std::string error;
  if (decoupled) out.image = sim::render_decoupled(scene, shaders, *decoupled, &out.decoupled, &error);
  else out.image = sim::render(scene, shaders, options, &out.stats, &error);
  if (!out.image) out.diagnostics += error + "\n";
  return out;
}

}  // namespace passlab::session
