#include "app/pipeline/render_job.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "app/pipeline/checks.h"
#include "backends/fp/codegen.h"
#include "backends/fp/pass_shader.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/algorithms.h"
#include "core/sim/texture.h"

namespace passlab::pipeline {

namespace {

// One shader compiled for the render; the pass shader refers to the DAGs, so they stay put.
struct Built {
  std::unique_ptr<driver::Program> program;
  std::unique_ptr<dag::FragmentDag> fdag;
  std::unique_ptr<fp::TargetDag> tdag;
  partition::Partition partition;
  std::unique_ptr<fp::PassShader> shader;
};

std::unique_ptr<Built> build(const std::string& path, const std::string& lights, const RenderRequest& req,
                             const partition::TargetDesc& target, const partition::CostModel& model,
                             const ir::TextureSampler* textures, ShaderReport* report, std::string* diagnostics) {
  auto b = std::make_unique<Built>();
  driver::ProgramOptions popt;
  popt.include_paths = req.include_paths;
  popt.lights_path = lights;
  b->program = driver::compile_file(path, popt);
  std::optional<dag::FragmentDag> fdag;
  if (b->program->ok() && b->program->module) fdag = dag::flatten(*b->program->module, b->program->binding, b->program->diagnostics);
  *diagnostics += lang::format_text(b->program->diagnostics.items(), *b->program->sources);
  if (!fdag) return nullptr;
  b->fdag = std::make_unique<dag::FragmentDag>(std::move(*fdag));
  std::string error;
  auto tdag = fp::select(*b->fdag, &error);
  if (!tdag) {
    *diagnostics += fmt::format("{}: error: the fp target cannot run this shader: {}\n", path, error);
    return nullptr;
  }
  b->tdag = std::make_unique<fp::TargetDag>(std::move(*tdag));
  ir::EvalContext ctx;
  ctx.spaces = b->program->binding.spaces;
  ctx.textures = textures;
  report->path = path;
  if (req.options.storage == sim::Storage::SinglePass) {
    b->shader = std::make_unique<fp::PassShader>(*b->tdag, *b->fdag, ctx);
    report->passes = 1;
    return b;
  }
  partition::Problem problem = fp::make_problem(*b->tdag);
  fp::FpBackend backend(*b->tdag, target);
  partition::AlgorithmOptions ao;
  ao.model = model;
  if (req.algorithm == "rdsh") {
    b->partition = partition::rdsh(problem, backend, ao);
  } else if (req.algorithm == "rds") {
    b->partition = partition::rds(problem, backend, ao);
  } else {
    partition::Partition a = partition::rdsh(problem, backend, ao), r = partition::rds(problem, backend, ao);
    partition::Partition seed = (r.valid && (!a.valid || r.cost <= a.cost)) ? r : a;
    partition::OptimalOptions so;
    so.budget_seconds = req.optimal_budget;
    so.incumbent = &seed;
    b->partition = partition::optimal(problem, backend, ao, so);
  }
  if (!b->partition.valid) {
    *diagnostics += fmt::format("{}: error: {} found no partition that fits {}\n", path, req.algorithm, target.name);
    return nullptr;
  }
  const auto problems = check_partition(problem, backend, *b->fdag, b->partition, model, b->program->binding);
  for (const auto& p : problems) *diagnostics += fmt::format("{}: error: {}: {}\n", path, req.algorithm, p);
  report->partition_checked = problems.empty();
  report->passes = static_cast<int>(b->partition.passes.size());
  report->cost = b->partition.cost;
  b->shader = std::make_unique<fp::PassShader>(*b->tdag, *b->fdag, b->partition, ctx);
  return b;
}

}  // namespace

RenderOutcome render_scene(const std::string& scene_path, const RenderRequest& request) {
  RenderOutcome out;
  sim::Problems problems;
  auto scene = sim::load_scene(scene_path, &problems);
  if (!scene) {
    for (const auto& p : problems) out.diagnostics += p.text() + "\n";
    return out;
  }
  return render_scene(*scene, request);
}

RenderOutcome render_scene(const sim::Scene& scene, const RenderRequest& request) {
  RenderOutcome out;
  std::string error;
  auto target = partition::load_target(request.target, &error);
  auto model = target ? partition::parse_cost_model(request.cost, &error) : std::nullopt;
  if (!target || !model) {
    out.diagnostics = error + "\n";
    return out;
  }
  sim::TextureSet textures;
  sim::Problems problems;
  if (!textures.load(scene.textures, &problems)) {
    for (const auto& p : problems) out.diagnostics += p.text() + "\n";
    return out;
  }
  std::map<std::string, std::unique_ptr<Built>> built;
  std::vector<const sim::FragmentShader*> shaders;
  for (const auto& o : scene.objects) {
    const std::string path = o.shader.empty() ? request.shader : o.shader;
    if (path.empty()) {
      out.diagnostics += fmt::format("{}: error: object \"{}\" names no shader and none was given\n", scene.path, o.name);
      return out;
    }
    auto it = built.find(path);
    if (it == built.end()) {
      ShaderReport report;
      auto b = build(path, path == request.shader ? request.lights : "", request, *target, *model, &textures, &report,
                     &out.diagnostics);
      if (!b) return out;
      out.shaders.push_back(report);
      it = built.emplace(path, std::move(b)).first;
    }
    shaders.push_back(it->second->shader.get());
  }
  out.image = sim::render(scene, shaders, request.options, &out.stats, &error);
  if (!out.image) out.diagnostics += scene.path + ": error: " + error + "\n";
  return out;
}

RenderOutcome render_snapshot(const sim::Scene& scene, const Snapshot& snapshot, const AlgorithmRun* run,
                              const sim::RenderOptions& options) {
  RenderOutcome out;
  if (!snapshot.has_dag() || !snapshot.fragment_dag || !snapshot.program) {
    out.diagnostics = "the shader has no DAG to render\n";
    return out;
  }
  sim::TextureSet textures;
  sim::Problems problems;
  if (!textures.load(scene.textures, &problems))
    for (const auto& p : problems) out.diagnostics += p.text() + "\n";
  ir::EvalContext ctx;
  ctx.spaces = snapshot.program->binding.spaces;
  ctx.textures = &textures;
  const bool whole = !run || options.storage == sim::Storage::SinglePass;
  fp::PassShader shader = whole ? fp::PassShader(*snapshot.target_dag, *snapshot.fragment_dag, ctx)
                                : fp::PassShader(*snapshot.target_dag, *snapshot.fragment_dag, run->partition, ctx);
  ShaderReport report;
  report.path = snapshot.request.path;
  report.passes = shader.passes();
  report.cost = whole ? 0 : run->partition.cost;
  report.partition_checked = whole || run->problems.empty();
  out.shaders.push_back(report);
  std::vector<const sim::FragmentShader*> shaders(scene.objects.size(), &shader);
  std::string error;
  out.image = sim::render(scene, shaders, options, &out.stats, &error);
  if (!out.image) out.diagnostics += error + "\n";
  return out;
}

sim::Scene default_scene_for(const std::string& shader_path) {
  namespace fs = std::filesystem;
  const fs::path shader(shader_path);
  const fs::path candidate = shader.parent_path().parent_path() / "scenes" / (shader.stem().string() + ".json");
  std::error_code ec;
  if (!shader_path.empty() && fs::is_regular_file(candidate, ec))
    if (auto s = sim::load_scene(candidate.string(), nullptr)) {
      for (auto& o : s->objects) o.shader.clear();  // shown with the shader being edited
      return *s;
    }
  sim::Scene s;
  s.background = {0.08f, 0.09f, 0.11f, 1};
  sim::SceneObject ball;
  ball.name = "sphere";
  ball.mesh = sim::make_sphere(1.6f, 96, 48);
  ball.mesh.complete();
  ball.to_camera = sim::Mat4::translate({0, 0, 7});
  ball.cull = sim::Cull::Back;
  s.objects.push_back(std::move(ball));
  return s;
}

}  // namespace passlab::pipeline
