// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli partition: the partitioning algorithms (RDSh, RDS, the optimal search) on one shader and target, with the
// per-pass resources of the paper's Table 5 and a summary like its Tables 3 and 4.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "backends/registry/registry.h"
#include "core/driver/program.h"
#include "core/partition/marks.h"
#include "core/partition/registry.h"
#include "core/partition/validate.h"
#include "core/paths/atomic_file.h"
#include "core/lang/json_dump.h"

namespace passlab::cli {

namespace {

std::string limit_text(int v) { return v == partition::kUnlimited ? "inf" : std::to_string(v); }

nlohmann::json pass_json(const partition::Pass& p, const partition::Problem& pr) {
  const auto& r = p.resources;
  return {{"root", p.root},          {"root_label", pr.labels[p.root]}, {"members", p.members.size()},
          {"restores", p.restores},  {"operations", r.operations},     {"registers", r.registers},
          {"textures", r.textures},  {"interpolants", r.interpolants}, {"dependent_levels", r.dependent_levels},
          {"texture_fetches", r.texture_fetches}, {"arithmetic", r.arithmetic}, {"outputs", p.outputs},
          {"fits", p.failure.empty()}};
}

// Whether a pass of the partition writes several values (multiple render targets): the exact
// search, a one-output optimum, is then no bound for it.
bool several_outputs(const partition::Partition& r) {
  for (const partition::Pass& p : r.passes)
    if (p.outputs.size() > 1) return true;
  return false;
}

// A pass's entry, with the limit it breaks when it does not fit ("registers: 5 > 4").
nlohmann::json pass_entry(const partition::Pass& p, const partition::Problem& pr) {
  nlohmann::json j = pass_json(p, pr);
  if (!p.failure.empty()) j["failure"] = p.failure;
  return j;
}

// One result row of `partition --format json`: the partition's figures and passes (and, given by
// hand, its marks), against the exact search's `best` when there is one.
nlohmann::json result_entry(const partition::Partition& r, const partition::Algorithm* algo, const partition::Partition* best,
                            const partition::Problem& problem, bool timing) {
  const bool exact = algo && algo->exact;
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
  if (exact) {
    x["proven_optimal"] = r.proven_optimal;
    x["lower_bound"] = r.lower_bound;
    if (!r.not_run.empty()) x["not_run"] = r.not_run;
  }
  if (best && best->valid && r.valid && !several_outputs(r)) x["over_optimal_percent"] = 100.0 * (r.cost - best->cost) / best->cost;
  if (timing) {
    x["valid_calls"] = r.stats.valid_calls;
    x["valid_generated"] = r.stats.valid_generated;
    x["subdivide_calls"] = r.stats.subdivide_calls;
    if (exact) {
      x["nodes_explored"] = r.stats.nodes_explored;
      x["states_merged"] = r.stats.states_merged;
      x["floors_proven"] = r.stats.floors_proven;
    }
    x["milliseconds"] = r.stats.milliseconds;
  }
  nlohmann::json ps = nlohmann::json::array();
  for (const auto& p : r.passes) ps.push_back(pass_entry(p, problem));
  if (!algo) {  // a partition given by hand: its marks
    nlohmann::json marks = nlohmann::json::array();
    for (const auto& m : partition::marks_of(r)) marks.push_back(m.node);
    x["marks"] = marks;
  }
  x["pass_list"] = ps;
  return x;
}

// The text output's table: each partition's cost, passes, restores, fetches, instructions and
// recomputation, and how far it is from the exact search's `best`.
void print_table(const std::vector<partition::Partition>& results, const partition::Partition* best, bool timing) {
  std::cout << fmt::format("{:<11} {:>9} {:>7} {:>9} {:>9} {:>8} {:>12} {:>10}{}\n", "algorithm", "cost", "passes",
                           "restores", "fetches", "instr", "recomputed", "vs optimal", timing ? "         ms" : "");
  for (const auto& r : results) {
    std::string eff = best && best->valid && r.valid ? fmt::format("{:+.1f}%", 100.0 * (r.cost - best->cost) / best->cost) : "";
    if (best && several_outputs(r)) eff = "not bound";  // the exact search is a one-output optimum
    std::cout << fmt::format("{:<11} {:>9.2f} {:>7} {:>9} {:>9} {:>8} {:>12} {:>10}{}\n", r.algorithm, r.cost,
                             r.passes.size(), r.restores, r.texture_fetches, r.instructions, r.recomputed, eff,
                             timing ? fmt::format(" {:>10.2f}", r.stats.milliseconds) : "");
  }
}

// The text output's pass lists, each algorithm's (and the hand-made partition's), with what the
// exact search proved and which passes break a limit.
void print_pass_lists(const std::vector<partition::Partition>& results, const std::vector<const partition::Algorithm*>& algos,
                      const partition::TargetDesc& target, const partition::Problem& problem) {
  for (std::size_t k = 0; k < results.size(); ++k) {
    const partition::Partition& r = results[k];
    const bool exact = algos[k] && algos[k]->exact;
    if (!algos[k] && !r.valid)
      std::cout << fmt::format("\nyours: does not fit {}: the passes marked below break a limit\n", target.name);
    if (exact && !r.not_run.empty())
      std::cout << fmt::format("\n{}: {}; its row is the best partition above it\n", r.algorithm, r.not_run);
    else if (exact && !r.valid)
      std::cout << fmt::format("\n{}: no partition fits {}: some operation does not fit a pass of its own (below)\n", r.algorithm, target.name);
    else if (exact)
      std::cout << (r.proven_optimal ? fmt::format("\n{}: proven optimal\n", r.algorithm)
                                     : fmt::format("\n{}: best within budget; no partition costs less than {:.2f} (gap {:.1f}%)\n",
                                                   r.algorithm, r.lower_bound, 100.0 * (r.cost - r.lower_bound) / r.cost));
    std::cout << fmt::format("\n{} passes (o r t v R: operations, registers, texture units, interpolants, restores)\n", r.algorithm);
    for (std::size_t i = 0; i < r.passes.size(); ++i) {
      const auto& p = r.passes[i];
      const auto& s = p.resources;
      std::string also;  // a pass of several outputs: the others it writes
      for (std::size_t k = 0; k + 1 < p.outputs.size(); ++k) also += fmt::format(" +n{}", p.outputs[k]);
      std::cout << fmt::format("  {:>3}  n{:<5} {:<12} o{:<4} r{:<3} t{:<3} v{:<3} R{:<3}{}{}\n", i + 1, p.root,
                               problem.labels[p.root], s.operations, s.registers, s.textures, s.interpolants, s.restores,
                               also.empty() ? "" : "  writes" + also + " too",
                               p.failure.empty() ? "" : "  does not fit: " + p.failure);
    }
  }
}

}  // namespace

int run_partition(const CommonOptions& o, const PartitionOptions& po) {
  lang::Diagnostics problems;
  auto target = backends::load_target(po.target, &problems);
  auto model = partition::parse_cost_model(po.cost, &problems);
  if (!target || !model) return report_problems(o, problems, kUsage);
  const session::Compiled c = compile_shader(o, &*target);
  const auto& prog = c.program;
  std::string diag = lang::format_text(prog->diagnostics.items(), *prog->sources);
  if (!diag.empty()) std::cerr << diag;
  const auto& program = c.target;
  if (!c.dag || !program) return kDiagnostics;  // why is among the diagnostics above
  const partition::Problem& problem = program->problem();
  std::unique_ptr<partition::Backend> owned_backend = program->backend();
  partition::Backend& backend = *owned_backend;

  // Rows: the hand-made partition first (algos[i] null), then the algorithms asked for.
  std::vector<const partition::Algorithm*> algos;
  std::vector<partition::Partition> results;
  bool all_ok = true;
  if (!po.marks.empty()) {
    std::ifstream in(po.marks, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      problems.error("file-not-found", lang::file_span(problems.sources().add(po.marks, "")), "cannot read the marks file");
      return report_problems(o, problems, kUsage);
    }
    const auto marks = partition::parse_marks(text.str(), po.marks, problem, &problems);
    if (!marks) return report_problems(o, problems, kDiagnostics);
    partition::Partition yours = partition::evaluate_marks(problem, backend, *marks, *model);
    // A pass that does not fit is the answer, not an error of the program: the table says which
    // limit it breaks; the execution check runs only on partitions that fit.
    if (yours.valid)
      for (const auto& pr : program->check(yours, *model, prog->binding)) {
        std::cerr << fmt::format("{}: yours: {}\n", o.file, pr);
        all_ok = false;
      }
    all_ok = all_ok && yours.valid;
    algos.push_back(nullptr);
    results.push_back(std::move(yours));
  }
  // `all`: those the target lists (the multiple-output ones where a pass may write several values).
  const std::vector<const partition::Algorithm*> listed = partition::algorithms_for(target->limits);
  for (const partition::Algorithm& a : partition::algorithms())
    if ((po.marks.empty() || po.algo_given) &&
        ((po.algo == "all" && std::find(listed.begin(), listed.end(), &a) != listed.end()) || a.name == po.algo)) {
      // The exact search bounds sums of linear terms: under a per-pass metric it does not run.
      if (a.exact && !model->linear()) {
        if (po.algo == a.name) {
          std::cerr << fmt::format("passlab-cli: the {} search needs a linear cost model (like 15p+5t+i), not the per-pass metric {}\n",
                                   a.name, model->name);
          return kUsage;
        }
        continue;
      }
      algos.push_back(&a);
    }
  if (!po.save_marks.empty() && algos.size() != 1) {
    std::cerr << "passlab-cli: --save-marks writes one partition's marks: give --marks or one --algo\n";
    return kUsage;
  }
  partition::TraceLog trace;
  results.reserve(algos.size());
  for (const partition::Algorithm* a : algos) {
    if (!a) continue;
    partition::RunRequest request;
    request.options.model = *model;
    request.options.trace = po.trace ? &trace : nullptr;
    request.search.budget_seconds = po.budget;
    request.search.table_bytes = static_cast<std::size_t>(po.table_mb) << 20;
    request.known = results;  // a search starts from the best of the partitions above it
    partition::Partition part = a->run(problem, backend, request);
    std::vector<std::string> problems = program->check(part, *model, prog->binding);
    for (const auto& pr : problems) std::cerr << fmt::format("{}: {}: {}\n", o.file, a->name, pr);
    all_ok = all_ok && problems.empty();
    results.push_back(std::move(part));
  }
  // The others are measured against the exact search's partition.
  const partition::Partition* best = nullptr;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (algos[i] && algos[i]->exact && results[i].not_run.empty()) best = &results[i];
  if (std::string why; !po.save_marks.empty() &&
                       !paths::write_atomically(po.save_marks, partition::marks_to_json(partition::marks_of(results.front()), problem), &why)) {
    std::cerr << "passlab-cli: " << why << '\n';
    return kDiagnostics;
  }

  if (!po.emit.empty()) {
    std::error_code ec;
    for (const auto& r : results) {
      std::filesystem::path dir = std::filesystem::path(po.emit) / r.algorithm;
      std::filesystem::create_directories(dir, ec);
      const std::vector<std::vector<backends::PassFile>> files = program->listing_files(r);
      for (std::size_t i = 0; i < files.size(); ++i)
        for (const backends::PassFile& f : files[i])
          if (std::string why; !paths::write_atomically(dir / fmt::format("pass{:02}.{}", i + 1, f.extension), f.text, &why)) {
            std::cerr << "passlab-cli: " << why << '\n';
            return kDiagnostics;
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
                   {"interpolants", limit_text(target->limits.interpolants)},
                   {"render_targets", limit_text(target->limits.render_targets)}};
    j["cost_model"] = model->name;
    j["dag"] = {{"nodes", problem.is_op.size()}, {"operations", std::count(problem.is_op.begin(), problem.is_op.end(), 1)}};
    nlohmann::json rs = nlohmann::json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
      rs.push_back(result_entry(results[i], algos[i], best, problem, po.timing));
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
    std::cout << lang::dump_json(j, 1) << '\n';
    return all_ok ? kOk : kDiagnostics;
  }

  if (po.trace)
    for (std::size_t i = 0; i < trace.trace.size(); ++i)
      std::cout << fmt::format("{:6} {:<15} {}\n", i, partition::to_string(trace.trace[i].kind), trace.trace.describe(trace.trace[i]));
  std::cout << fmt::format("{}: {} instructions ({} nodes) on {} ({}o/{}r/{}t/{}v), cost {}\n\n", o.file,
                           std::count(problem.is_op.begin(), problem.is_op.end(), 1), problem.is_op.size(), target->name,
                           limit_text(target->limits.operations), limit_text(target->limits.registers),
                           limit_text(target->limits.textures), limit_text(target->limits.interpolants), model->name);
  print_table(results, best, po.timing);
  if (best && std::any_of(results.begin(), results.end(), several_outputs))
    std::cout << fmt::format("\n{} is the cheapest partition of one output per pass: passes of several render targets are not "
                             "bounded by it\n", best->algorithm);
  print_pass_lists(results, algos, *target, problem);
  return all_ok ? kOk : kDiagnostics;
}

}  // namespace passlab::cli
