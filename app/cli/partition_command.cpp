// passlab-cli partition: RDSh, RDS and the optimal search on one shader and target, with the
// per-pass resources of the paper's Table 5 and a summary like its Tables 3 and 4.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "session/target_program.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/algorithms.h"
#include "core/partition/validate.h"

namespace passlab::cli {

namespace {

std::string limit_text(int v) { return v == partition::kUnlimited ? "inf" : std::to_string(v); }

// Writes a file atomically: a temporary beside it, then a rename.
bool write_atomic(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!(out << text)) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

nlohmann::json pass_json(const partition::Pass& p, const partition::Problem& pr) {
  const auto& r = p.resources;
  return {{"root", p.root},          {"root_label", pr.labels[p.root]}, {"members", p.members.size()},
          {"restores", p.restores},  {"operations", r.operations},     {"registers", r.registers},
          {"textures", r.textures},  {"interpolants", r.interpolants}, {"dependent_levels", r.dependent_levels},
          {"texture_fetches", r.texture_fetches}, {"arithmetic", r.arithmetic}, {"fits", p.failure.empty()}};
}

}  // namespace

int run_partition(const CommonOptions& o, const PartitionOptions& po) {
  std::string error;
  auto target = partition::load_target(po.target, &error);
  if (!target) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kUsage;
  }
  auto model = partition::parse_cost_model(po.cost, &error);
  if (!model) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kUsage;
  }
  driver::ProgramOptions popt;
  popt.include_paths = o.include_paths;
  popt.lights_path = o.lights;
  auto prog = driver::compile_file(o.file, popt);
  std::optional<dag::FragmentDag> fdag;
  if (prog->ok() && prog->module) fdag = dag::flatten(*prog->module, prog->binding, prog->diagnostics);
  std::string diag = lang::format_text(prog->diagnostics.items(), *prog->sources);
  if (!diag.empty()) std::cerr << diag;
  if (!fdag) return kDiagnostics;
  auto program = session::TargetProgram::make(*fdag, *target, &error);
  if (!program) {
    std::cerr << o.file << ": error: " << error << '\n';
    return kDiagnostics;
  }
  const partition::Problem& problem = program->problem();
  std::unique_ptr<partition::Backend> owned_backend = program->backend();
  partition::Backend& backend = *owned_backend;

  std::vector<std::string> algos = po.algo == "all" ? std::vector<std::string>{"rdsh", "rds", "optimal"}
                                                    : std::vector<std::string>{po.algo};
  std::vector<partition::Partition> results;
  partition::TraceLog trace;
  partition::AlgorithmOptions ao;
  ao.model = *model;
  ao.trace = po.trace ? &trace : nullptr;
  bool all_ok = true;
  results.reserve(algos.size());
  // The optimal search starts from the better of RDSh's and RDS's partitions.
  auto incumbent = [&]() {
    partition::AlgorithmOptions quiet = ao;
    quiet.trace = nullptr;
    partition::Partition best;
    best.cost = std::numeric_limits<double>::infinity();
    for (const auto& r : results)
      if (r.valid && r.cost < best.cost) best = r;
    if (!std::isfinite(best.cost)) {
      partition::Partition a = partition::rdsh(problem, backend, quiet), b = partition::rds(problem, backend, quiet);
      best = (b.valid && (!a.valid || b.cost <= a.cost)) ? b : a;
    }
    return best;
  };
  for (const std::string& a : algos) {
    partition::Partition part;
    if (a == "rdsh") part = partition::rdsh(problem, backend, ao);
    else if (a == "rds") part = partition::rds(problem, backend, ao);
    else {
      partition::OptimalOptions so;
      so.budget_seconds = po.budget;
      so.table_bytes = static_cast<std::size_t>(po.table_mb) << 20;
      partition::Partition seed = incumbent();
      so.incumbent = &seed;
      part = partition::optimal(problem, backend, ao, so);
    }
    std::vector<std::string> problems = program->check(part, *model, prog->binding);
    for (const auto& pr : problems) std::cerr << fmt::format("{}: {}: {}\n", o.file, a, pr);
    all_ok = all_ok && problems.empty();
    results.push_back(std::move(part));
  }
  const partition::Partition* best = nullptr;
  for (const auto& r : results)
    if (r.algorithm == "optimal") best = &r;

  if (!po.emit.empty()) {
    std::error_code ec;
    for (const auto& r : results) {
      std::filesystem::path dir = std::filesystem::path(po.emit) / r.algorithm;
      std::filesystem::create_directories(dir, ec);
      std::vector<std::string> texts = program->listings(r, nullptr);
      const std::string ext = program->listing_extension();
      for (std::size_t i = 0; i < texts.size(); ++i) {
        if (!write_atomic(dir / fmt::format("pass{:02}.{}", i + 1, ext), texts[i])) {
          std::cerr << "passlab-cli: cannot write " << (dir / fmt::format("pass{:02}.{}", i + 1, ext)).string() << '\n';
          return kDiagnostics;
        }
      }
    }
  }

  if (o.format == "json") {
    nlohmann::json j;
    j["file"] = o.file;
    j["target"] = {{"name", target->name},
                   {"operations", limit_text(target->limits.operations)},
                   {"registers", limit_text(target->limits.registers)},
                   {"textures", limit_text(target->limits.textures)},
                   {"interpolants", limit_text(target->limits.interpolants)}};
    j["cost_model"] = model->name;
    j["dag"] = {{"nodes", problem.is_op.size()}, {"operations", std::count(problem.is_op.begin(), problem.is_op.end(), 1)}};
    nlohmann::json rs = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json x;
      x["algorithm"] = r.algorithm;
      x["cost"] = r.cost;
      x["passes"] = r.passes.size();
      x["restores"] = r.restores;
      x["texture_fetches"] = r.texture_fetches;
      x["instructions"] = r.instructions;
      x["recomputed"] = r.recomputed;
      x["intermediate_textures"] = r.intermediate_textures;
      x["valid"] = r.valid;
      if (r.algorithm == "optimal") {
        x["proven_optimal"] = r.proven_optimal;
        x["lower_bound"] = r.lower_bound;
      }
      if (best && best->valid && r.valid) x["over_optimal_percent"] = 100.0 * (r.cost - best->cost) / best->cost;
      if (po.timing) {
        x["valid_calls"] = r.stats.valid_calls;
        x["valid_generated"] = r.stats.valid_generated;
        x["subdivide_calls"] = r.stats.subdivide_calls;
        if (r.algorithm == "optimal") {
          x["nodes_explored"] = r.stats.nodes_explored;
          x["states_merged"] = r.stats.states_merged;
          x["floors_proven"] = r.stats.floors_proven;
        }
        x["milliseconds"] = r.stats.milliseconds;
      }
      nlohmann::json ps = nlohmann::json::array();
      for (const auto& p : r.passes) ps.push_back(pass_json(p, problem));
      x["pass_list"] = ps;
      rs.push_back(x);
    }
    j["results"] = rs;
    if (po.trace) {
      nlohmann::json ev = nlohmann::json::array();
      for (const auto& e : trace.trace) {
        const auto nodes = trace.trace.concerned(e);
        ev.push_back({{"kind", partition::to_string(e.kind)}, {"nodes", std::vector<std::uint32_t>(nodes.begin(), nodes.end())},
                      {"ok", e.ok}, {"reason", trace.trace.describe(e)}});
      }
      j["trace"] = ev;
    }
    std::cout << j.dump(1) << '\n';
    return all_ok ? kOk : kDiagnostics;
  }

  if (po.trace)
    for (std::size_t i = 0; i < trace.trace.size(); ++i)
      std::cout << fmt::format("{:6} {:<15} {}\n", i, partition::to_string(trace.trace[i].kind), trace.trace.describe(trace.trace[i]));
  std::cout << fmt::format("{}: {} instructions ({} nodes) on {} ({}o/{}r/{}t/{}v), cost {}\n\n", o.file,
                           std::count(problem.is_op.begin(), problem.is_op.end(), 1), problem.is_op.size(), target->name,
                           limit_text(target->limits.operations), limit_text(target->limits.registers),
                           limit_text(target->limits.textures), limit_text(target->limits.interpolants), model->name);
  std::cout << fmt::format("{:<9} {:>9} {:>7} {:>9} {:>9} {:>8} {:>12} {:>10}{}\n", "algorithm", "cost", "passes",
                           "restores", "fetches", "instr", "recomputed", "vs optimal", po.timing ? "         ms" : "");
  for (const auto& r : results) {
    std::string eff = best && best->valid && r.valid ? fmt::format("{:+.1f}%", 100.0 * (r.cost - best->cost) / best->cost) : "";
    std::cout << fmt::format("{:<9} {:>9.2f} {:>7} {:>9} {:>9} {:>8} {:>12} {:>10}{}\n", r.algorithm, r.cost,
                             r.passes.size(), r.restores, r.texture_fetches, r.instructions, r.recomputed, eff,
                             po.timing ? fmt::format(" {:>10.2f}", r.stats.milliseconds) : "");
  }
  for (const auto& r : results) {
    if (r.algorithm == "optimal" && !r.valid)
      std::cout << fmt::format("\noptimal: no partition fits {}: some operation does not fit a pass of its own (below)\n", target->name);
    else if (r.algorithm == "optimal")
      std::cout << (r.proven_optimal ? "\noptimal: proven optimal\n"
                                     : fmt::format("\noptimal: best within budget; no partition costs less than {:.2f} (gap {:.1f}%)\n",
                                                   r.lower_bound, 100.0 * (r.cost - r.lower_bound) / r.cost));
    std::cout << fmt::format("\n{} passes (o r t v R: operations, registers, texture units, interpolants, restores)\n", r.algorithm);
    for (std::size_t i = 0; i < r.passes.size(); ++i) {
      const auto& p = r.passes[i];
      const auto& s = p.resources;
      std::cout << fmt::format("  {:>3}  n{:<5} {:<12} o{:<4} r{:<3} t{:<3} v{:<3} R{:<3}{}\n", i + 1, p.root,
                               problem.labels[p.root], s.operations, s.registers, s.textures, s.interpolants, s.restores,
                               p.failure.empty() ? "" : "  does not fit: " + p.failure);
    }
  }
  return all_ok ? kOk : kDiagnostics;
}

}  // namespace passlab::cli
