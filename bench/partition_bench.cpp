// SPDX-License-Identifier: GPL-3.0-or-later
// Reproduces the layout of the RDS paper's Tables 3 and 4 on the RBP-, BMBP- and Wood-like
// samples: for PC1-PC8 and every cost model, the cost and passes of RDSh, RDS and the optimal
// search, efficiency against the optimum, and run times (median of repeated runs). Writes
// Markdown and CSV. Usage:
//   partition_bench [--budget S] [--other-budget S] [--repeat N] [--out DIR] [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/table_bench.h"
#include "backends/fp/codegen.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/algorithms.h"
#include "core/partition/validate.h"

using namespace passlab;

namespace {

struct Row {
  std::string shader, pc, model;
  double rdsh_cost, rds_cost, opt_cost, lower_bound;
  int rdsh_passes, rds_passes, opt_passes;
  bool proven;
  double rdsh_ms, rds_ms, opt_ms;
  long rdsh_valid, rds_valid, rds_subdivides;
};

using bench::machine;
using bench::median;

}  // namespace

int main(int argc, char** argv) {
  double budget = 60, other_budget = 10;
  int repeat = 5;
  std::string out = "docs";
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--budget") budget = std::stod(next());
    else if (a == "--other-budget") other_budget = std::stod(next());
    else if (a == "--repeat") repeat = std::stoi(next());
    else if (a == "--out") out = next();
    else if (a == "--quick") quick = true;
    else {
      std::cerr << "usage: partition_bench [--budget S] [--other-budget S] [--repeat N] [--out DIR] [--quick]\n";
      return 2;
    }
  }
  const std::vector<std::pair<std::string, std::string>> shaders = {
      {"RBP", "bowling_pin"}, {"BMBP", "bump_pin"}, {"Wood", "wood"}};
  std::vector<partition::CostModel> models = partition::paper_cost_models();
  if (quick) models.resize(1);
  std::vector<Row> rows;
  for (const auto& [label, file] : shaders) {
    auto prog = driver::compile_file(std::string(PASSLAB_SAMPLES_DIR) + "/shaders/" + file + ".sl", {});
    if (!prog->ok()) {
      std::cerr << lang::format_text(prog->diagnostics.items(), *prog->sources);
      return 1;
    }
    lang::DiagnosticList sink;
    auto fdag = dag::flatten(*prog->module, prog->binding, sink);
    lang::Diagnostic refused;
    auto tdag = fp::select(*fdag, &refused);
    if (!tdag) {
      std::cerr << refused.message << '\n';
      return 1;
    }
    partition::Problem problem = fp::make_problem(*tdag);
    for (int pc = 1; pc <= 8; ++pc) {
      auto target = partition::load_target("PC" + std::to_string(pc), nullptr);
      fp::FpBackend backend(*tdag, *target);
      for (std::size_t mi = 0; mi < models.size(); ++mi) {
        const auto& model = models[mi];
        partition::AlgorithmOptions ao{model, nullptr};
        std::vector<double> th, tr;
        partition::Partition h, r;
        for (int k = 0; k < repeat; ++k) {
          h = partition::rdsh(problem, backend, ao);
          th.push_back(h.stats.milliseconds);
          r = partition::rds(problem, backend, ao);
          tr.push_back(r.stats.milliseconds);
        }
        partition::OptimalOptions oo;
        oo.budget_seconds = mi == 0 ? budget : other_budget;
        oo.incumbent = r.cost <= h.cost ? &r : &h;
        partition::Partition o = partition::optimal(problem, backend, ao, oo);
        for (const auto* part : {&h, &r, &o}) {
          auto problems = partition::validate(problem, backend, *part, model);
          if (!problems.empty()) {
            std::cerr << label << " PC" << pc << " " << part->algorithm << ": " << problems.front() << '\n';
            return 1;
          }
        }
        rows.push_back({label, "PC" + std::to_string(pc), model.name, h.cost, r.cost, o.cost, o.lower_bound,
                        static_cast<int>(h.passes.size()), static_cast<int>(r.passes.size()),
                        static_cast<int>(o.passes.size()), o.proven_optimal, median(th), median(tr), o.stats.milliseconds,
                        h.stats.valid_calls, r.stats.valid_calls, r.stats.subdivide_calls});
        std::fprintf(stderr, "%s PC%d %-14s RDSh %.1f RDS %.1f opt %.1f%s (%.2f / %.2f / %.0f ms)\n", label.c_str(), pc,
                     model.name.c_str(), h.cost, r.cost, o.cost, o.proven_optimal ? " proven" : " bound", median(th), median(tr),
                     o.stats.milliseconds);
      }
    }
  }
  std::filesystem::create_directories(out);
  std::ofstream csv(std::filesystem::path(out) / "partition_results.csv");
  csv << "shader,pc,cost_model,rdsh_cost,rdsh_passes,rds_cost,rds_passes,optimal_cost,optimal_passes,proven,lower_bound,"
         "rdsh_ms,rds_ms,optimal_ms,rds_subdivides\n";
  for (const auto& x : rows)
    csv << fmt::format("{},{},{},{:g},{},{:g},{},{:g},{},{},{:g},{:.3f},{:.3f},{:.1f},{}\n", x.shader, x.pc, x.model, x.rdsh_cost,
                       x.rdsh_passes, x.rds_cost, x.rds_passes, x.opt_cost, x.opt_passes, x.proven ? 1 : 0, x.lower_bound,
                       x.rdsh_ms, x.rds_ms, x.opt_ms, x.rds_subdivides);
  std::ostringstream md;
  md << "# Partitioning results (generated by `partition_bench`)\n\n";
  md << fmt::format("Machine: {}. RDSh and RDS times are medians of {} runs; the optimal search had {} s for "
                    "15p+5t+i and {} s for the other models.\n\n",
                    machine(), repeat, budget, other_budget);
  auto pct = [](double a, double b) { return b > 0 && std::isfinite(a) ? 100.0 * (a - b) / b : 0.0; };
  md << "## Table 3 layout: optimal vs RDS (15p+5t+i), cost/passes, +% = RDS over optimal\n\n";
  md << "| PC | RBP opt | RBP RDS | +% | BMBP opt | BMBP RDS | +% | Wood opt | Wood RDS | +% |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (int pc = 1; pc <= 8; ++pc) {
    md << "| PC" << pc;
    for (const auto& [label, file] : shaders)
      for (const auto& x : rows)
        if (x.shader == label && x.pc == "PC" + std::to_string(pc) && x.model == models[0].name)
          md << fmt::format(" | {:g}/{}{} | {:g}/{} | {:.1f}", x.opt_cost, x.opt_passes, x.proven ? "" : fmt::format(" (≥{:g})", x.lower_bound),
                            x.rds_cost, x.rds_passes, pct(x.rds_cost, x.opt_cost));
    md << " |\n";
  }
  md << "\nA cost with (≥ b) was not proven within the budget: b is the search's lower bound.\n\n";
  md << "## Table 4 layout: RDS vs RDSh (15p+5t+i): times in ms, Eff = RDSh cost over RDS in %\n\n";
  md << "| PC | RBP RDS t | RBP RDSh t | Eff | BMBP RDS t | BMBP RDSh t | Eff | Wood RDS t | Wood RDSh t | Eff |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (int pc = 1; pc <= 8; ++pc) {
    md << "| PC" << pc;
    for (const auto& [label, file] : shaders)
      for (const auto& x : rows)
        if (x.shader == label && x.pc == "PC" + std::to_string(pc) && x.model == models[0].name)
          md << fmt::format(" | {:.2f} | {:.2f} | {:.1f}", x.rds_ms, x.rdsh_ms, pct(x.rdsh_cost, x.rds_cost));
    md << " |\n";
  }
  md << "\n## Every cost model: efficiency of RDS and RDSh against the optimum (% over)\n\n";
  md << "| shader | PC | model | optimal | proven | RDS +% | RDSh +% |\n|---|---|---|---|---|---|---|\n";
  for (const auto& x : rows)
    md << fmt::format("| {} | {} | {} | {:g} | {} | {:.1f} | {:.1f} |\n", x.shader, x.pc, x.model, x.opt_cost,
                      x.proven ? "yes" : fmt::format("no (≥{:g})", x.lower_bound), pct(x.rds_cost, x.opt_cost), pct(x.rdsh_cost, x.opt_cost));
  int cases = 0, rds_opt = 0, within5 = 0, proven = 0;
  double eff_sum = 0;
  for (const auto& x : rows) {
    if (x.model != models[0].name || x.pc == "PC8") continue;
    ++cases;
    proven += x.proven;
    rds_opt += x.rds_cost <= x.opt_cost + 1e-9;
    within5 += pct(x.rds_cost, x.opt_cost) <= 5.0 + 1e-9;
    eff_sum += pct(x.rdsh_cost, x.rds_cost);
  }
  md << fmt::format("\n## Summary (15p+5t+i, PC1-PC7)\n\n- cases: {}; optimum proven in {}\n- RDS equals the best known "
                    "optimum in {} of {} (the paper: 14 of 17 complete cases)\n- RDS within 5% in {} of {}\n- RDSh costs "
                    "{:.1f}% more than RDS on average (the paper: 10.5%)\n",
                    cases, proven, rds_opt, cases, within5, cases, cases ? eff_sum / cases : 0.0);
  // mrt_bench's section (between its markers) stays: it is generated apart.
  {
    std::ifstream old(std::filesystem::path(out) / "partition_results.md");
    const std::string text((std::istreambuf_iterator<char>(old)), std::istreambuf_iterator<char>());
    const std::size_t b = text.find("<!-- mrt_bench: begin -->"), e = text.find("<!-- mrt_bench: end -->");
    if (b != std::string::npos && e != std::string::npos && e > b) md << "\n" << text.substr(b, e + 24 - b);
  }
  std::ofstream(std::filesystem::path(out) / "partition_results.md") << md.str();
  std::cout << md.str();
  return 0;
}
