// SPDX-License-Identifier: GPL-3.0-or-later
// The register-combiner compiler's numbers: the time to compile Mark & Proudfoot's Figure 4 pin
// for GeForce3 (source to combiner state, and the five stages alone), and the greedy stage
// scheduler against the exact one over every pass RDS makes of every sample on GeForce1 and
// GeForce3, and the compiler's stage counts against the classic hand-written programs
// (samples/combiners/handwritten). Writes a Markdown report. Usage: combiner_bench [--repeat N] [--out FILE.md]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/combiners/backend.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/nvparse_check.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/algorithms.h"

using namespace passlab;

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::optional<dag::FragmentDag> fragment_dag(const std::string& path) {
  auto prog = driver::compile_file(path, {});
  if (!prog->ok() || !prog->module) return std::nullopt;
  return dag::flatten(*prog->module, prog->binding, prog->diagnostics);
}

combiners::Machine machine(const std::string& name, partition::TargetDesc* target) {
  *target = *partition::load_target(name, nullptr);
  return *combiners::parse_machine(*target, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 21;
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--out" && i + 1 < argc) out_path = argv[++i];
    else {
      std::fprintf(stderr, "usage: combiner_bench [--repeat N] [--out FILE.md]\n");
      return 2;
    }
  }
  const std::string samples = PASSLAB_SAMPLES_DIR;
  std::string md;

  // Compile time: the Figure 4 pin for GeForce3.
  {
    partition::TargetDesc target;
    const combiners::Machine g3 = machine("geforce3", &target);
    const std::string path = samples + "/combiners/fig4_pin.sl";
    std::vector<double> whole, stages;
    int stage_count = 0;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = Clock::now();
      auto d = fragment_dag(path);
      const auto t1 = Clock::now();
      const dag::FragmentDag low = combiners::lower(*d);
      const std::vector<combiners::Interval> ranges = combiners::intervals(low);
      const combiners::CompileResult c = combiners::compile_single(low, ranges, g3);
      const auto t2 = Clock::now();
      whole.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
      stages.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
      stage_count = static_cast<int>(c.program.stages.size());
    }
    md += fmt::format("## Compile time\n\n`samples/combiners/fig4_pin.sl` (Mark & Proudfoot's Figure 4) for GeForce3, {} general combiner stages; "
                      "the median of {} runs:\n\n| | ms |\n|---|---:|\n| source to combiner state (front end, flattening, the five stages) | {:.2f} |\n"
                      "| the combiner compiler alone (lowering, intervals, the five stages) | {:.3f} |\n",
                      stage_count, repeat, median(whole), median(stages));
    std::fprintf(stderr, "fig4 pin: %.2f ms whole, %.3f ms combiner stages\n", median(whole), median(stages));
  }

  // The classic hand-written programs against the compiler, as the paper's compiler and as now.
  {
    partition::TargetDesc target;
    const combiners::Machine g3 = machine("geforce3", &target);
    const std::string dir = samples + "/combiners/handwritten/";
    auto read = [](const std::string& path) {
      std::ifstream in(path);
      return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const nlohmann::json manifest = nlohmann::json::parse(read(dir + "programs.json"));
    md += "\n## Hand-written programs\n\nClassic GeForce3 programs written by hand (`samples/combiners/handwritten`), each beside the "
          "shader it computes; general combiner stages by hand, by the compiler as Mark & Proudfoot's (`--paper`: the final combiner only "
          "chooses registers, products in the source's order), and by the compiler now (the final combiner's arithmetic, reassociated "
          "products).\n\n| program | by hand | paper's compiler | Passlab | within one stage |\n|---|---:|---:|---:|---|\n";
    for (const auto& entry : manifest.at("programs")) {
      int hand = -1;
      for (const auto& f : entry.at("files")) {
        const std::string text = read(dir + f.get<std::string>());
        combiners::NvparseFacts facts;
        if (combiners::check_nvparse(text, {}, &facts).empty() && text.rfind("!!RC1.0", 0) == 0) hand = facts.general_combiners;
      }
      auto d = fragment_dag(dir + entry.at("shader").get<std::string>());
      if (!d) continue;
      const dag::FragmentDag low = combiners::lower(*d);
      const std::vector<combiners::Interval> ranges = combiners::intervals(low);
      combiners::CompileOptions paper;
      paper.final_arithmetic = paper.reassociate = false;
      const combiners::CompileResult p = combiners::compile_single(low, ranges, g3, paper), now = combiners::compile_single(low, ranges, g3);
      auto stages = [](const combiners::CompileResult& r) { return r.ok ? std::to_string(r.program.stages.size()) : std::string("fails"); };
      const bool within = now.ok && hand >= 0 && static_cast<int>(now.program.stages.size()) <= hand + 1;
      md += fmt::format("| {} | {} | {} | {} | {} |\n", entry.at("name").get<std::string>(), hand, stages(p), stages(now), within ? "yes" : "**no**");
      std::fprintf(stderr, "%s: hand %d, paper %s, now %s\n", entry.at("name").get<std::string>().c_str(), hand, stages(p).c_str(), stages(now).c_str());
    }
  }

  // Greedy against exact scheduling over every pass of every sample.
  md += "\n## Greedy and exact scheduling\n\nEvery sample, partitioned by RDS for each machine; each pass's partial combiners scheduled by "
        "the greedy list scheduler and by the exact search (fewest stages, proven unless its budget ran out). Samples no partition fits "
        "are left out (see docs/combiners.md for why).\n\n"
        "| sample | machine | passes | stages, greedy | stages, exact | passes shorter exactly | proven |\n|---|---|---:|---:|---:|---:|---:|\n";
  int all_greedy = 0, all_exact = 0, all_passes = 0, all_shorter = 0;
  std::vector<std::string> files;
  for (const char* dir : {"shaders", "combiners"})
    for (const auto& e : std::filesystem::directory_iterator(samples + "/" + dir))
      if (e.path().extension() == ".sl") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    auto d = fragment_dag(f);
    if (!d) continue;
    for (const char* mname : {"geforce1", "geforce3"}) {
      partition::TargetDesc target;
      const combiners::Machine m = machine(mname, &target);
      const dag::FragmentDag low = combiners::lower(*d, m.texture_units);  // as the partitioner lowers it for the machine
      const std::vector<combiners::Interval> ranges = combiners::intervals(low);
      const partition::Problem problem = combiners::make_problem(low);
      combiners::CombinerBackend backend(low, target, m);
      const partition::Partition part = partition::rds(problem, backend, {});
      if (!part.valid) continue;
      int greedy = 0, exact = 0, shorter = 0, proven = 0;
      for (const partition::Pass& p : part.passes) {
        const combiners::PassSpec spec = combiners::pass_spec(low, ranges, p);
        const combiners::CompileResult g = combiners::compile_pass(spec, m);
        combiners::CompileOptions eo;
        eo.exact_schedule = true;
        const combiners::CompileResult x = combiners::compile_pass(spec, m, eo);
        greedy += static_cast<int>(g.program.stages.size());
        exact += static_cast<int>(x.program.stages.size());
        shorter += x.program.stages.size() < g.program.stages.size() ? 1 : 0;
        proven += x.schedule_proven ? 1 : 0;
      }
      const std::string name = std::filesystem::path(f).parent_path().filename().string() + "/" + std::filesystem::path(f).filename().string();
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {}/{} |\n", name, mname, part.passes.size(), greedy, exact, shorter, proven, part.passes.size());
      all_greedy += greedy;
      all_exact += exact;
      all_passes += static_cast<int>(part.passes.size());
      all_shorter += shorter;
    }
  }
  md += fmt::format("| **all** | | {} | {} | {} | {} | |\n\nThe greedy scheduler's gap over these passes: {} stages of {} ({:.1f}%).\n", all_passes,
                    all_greedy, all_exact, all_shorter, all_greedy - all_exact, all_exact,
                    all_exact ? 100.0 * (all_greedy - all_exact) / all_exact : 0.0);
  std::fprintf(stderr, "greedy %d stages, exact %d over %d passes\n", all_greedy, all_exact, all_passes);
  if (out_path.empty()) {
    std::fputs(md.c_str(), stdout);
  } else {
    std::ofstream o(out_path);
    o << md;
  }
  return 0;
}
