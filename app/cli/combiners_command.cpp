// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli combiners: a shader compiled for NVIDIA register combiners in one rendering pass,
// as Mark & Proudfoot's compiler does: the !!TS1.0/!!RC1.0 programs, or, when the pass cannot
// hold it, a diagnostic naming the constraint at the place in the source that breaks it.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "backends/combiners/compiler.h"
#include "backends/registry/registry.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/nvparse_check.h"
#include "backends/combiners/tables.h"
#include "core/driver/program.h"
#include "core/paths/atomic_file.h"
#include "core/lang/json_dump.h"
#include "core/sim/image.h"

namespace passlab::cli {

namespace {

lang::Span span_of(const dag::FragmentDag& d, dag::NodeId id) {
  const dag::Node& n = d.node(id);
  return n.spans.empty() ? lang::Span{} : n.spans.front();
}

}  // namespace

int run_combiners(const CommonOptions& o, const CombinersCliOptions& c) {
  lang::Diagnostics problems;
  auto target = backends::load_target(c.target, &problems);
  if (!target) return report_problems(o, problems, kUsage);
  if (target->backend != "combiners") {
    problems.error("target", {}, "'" + c.target + "' is not a register-combiner target (geforce1, geforce3)");
    return report_problems(o, problems, kUsage);
  }
  auto machine = combiners::parse_machine(*target, &problems);
  if (!machine) return report_problems(o, problems, kUsage);
  const session::Compiled compiled = compile_shader(o);
  const auto& prog = compiled.program;
  const auto& fdag = compiled.dag;
  if (!fdag) {
    std::cerr << lang::format_text(prog->diagnostics.items(), *prog->sources);
    return kDiagnostics;
  }
  const dag::FragmentDag d = combiners::lower(*fdag);
  const std::vector<combiners::Interval> ranges = combiners::intervals(d);
  combiners::CompileOptions co;
  co.trace = c.trace || !c.emit.empty();
  co.exact_schedule = c.exact;
  co.final_arithmetic = !c.paper;
  co.reassociate = !c.paper;
  const combiners::CompileResult r = combiners::compile_single(d, ranges, *machine, co);

  // Diagnostics: the constraint at its source line; the values the hardware will clamp.
  if (!r.ok) {
    lang::Diagnostic diag;
    diag.severity = lang::Severity::Error;
    diag.code = "combiners-" + r.failure.constraint;
    diag.message = fmt::format("{} cannot run this shader in one pass: {}", machine->name, r.failure.message);
    if (r.failure.has_node) diag.span = span_of(d, r.failure.node);
    const bool resource = r.failure.constraint == "stages" || r.failure.constraint == "texture-units" || r.failure.constraint == "interpolants" ||
                          r.failure.constraint == "registers" || r.failure.constraint == "constants";
    if (resource)
      diag.notes.push_back({{}, fmt::format("split it into passes: passlab-cli partition {} --target {}", o.file, c.target)});
    prog->diagnostics.report(diag);
  } else {
    int shown = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> seen;  // one warning a place
    for (dag::NodeId id : r.clamped) {
      const combiners::Interval& iv = ranges[id];
      if (!std::isfinite(iv.lo) || !std::isfinite(iv.hi) || shown >= 5) continue;
      const lang::Span sp = span_of(d, id);
      if (std::find(seen.begin(), seen.end(), std::make_pair(sp.offset, sp.length)) != seen.end()) continue;
      seen.emplace_back(sp.offset, sp.length);
      prog->diagnostics.warning("combiners-clamp", span_of(d, id),
                                fmt::format("this value can reach [{:g}, {:g}]; the combiners' registers clamp it to [-1, 1]", iv.lo, iv.hi));
      ++shown;
    }
  }
  std::cerr << lang::format_text(prog->diagnostics.items(), *prog->sources);

  if (c.trace)
    for (std::size_t i = 0; i < r.trace.size(); ++i) std::cout << fmt::format("{:5} {}\n", i, combiners::reason(r.trace[i], *machine));
  if (!c.emit.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(c.emit, ec);
    std::string trace;
    for (const auto& e : r.trace) trace += combiners::reason(e, *machine) + "\n";
    bool ok = paths::write_atomically(std::filesystem::path(c.emit) / "trace.txt", trace);
    if (r.ok) {
      ok = ok && paths::write_atomically(std::filesystem::path(c.emit) / "hardware_dag.txt", combiners::to_text(r.program.hdag, d));
      for (const combiners::ListingFile& f : combiners::listing_files(r.program, *machine, {&d, 0, 1}))
        ok = ok && paths::write_atomically(std::filesystem::path(c.emit) / ("pass." + f.extension), f.text);
      ok = ok && paths::write_atomically(std::filesystem::path(c.emit) / "pass.json", lang::dump_json(combiners::to_json(r.program, *machine), 1) + "\n");
      // Each function table's texels as the texture the program binds (tableN.png, N its unit;
      // "256x1" or "1x256", combiners::table_layout), so it can be loaded or looked at.
      for (std::size_t u = 0; u < r.program.units.size(); ++u) {
        const combiners::TextureUnit& unit = r.program.units[u];
        if (!unit.table) continue;
        const combiners::FunctionTable& t = *unit.table;
        const bool column = combiners::table_layout(t) == fmt::format("1x{}", t.size);
        sim::Image image(column ? 1 : t.size, column ? t.size : 1);
        for (int i = 0; i < t.size && static_cast<std::size_t>(i) < t.texels.size(); ++i)
          std::copy(t.texels[static_cast<std::size_t>(i)].begin(), t.texels[static_cast<std::size_t>(i)].end(), image.at(column ? 0 : i, column ? i : 0));
        std::string error;
        ok = ok && sim::write_png((std::filesystem::path(c.emit) / fmt::format("table{}.png", u)).string(), image, &error);
      }
    }
    if (!ok) {
      std::cerr << "passlab-cli: cannot write into " << c.emit << '\n';
      return kDiagnostics;
    }
  }
  if (!r.ok) return kDiagnostics;
  if (c.exact && !r.schedule_proven) std::cerr << "passlab-cli: the exact search stopped at its budget: the stage count is not proven minimal\n";
  if (o.format == "json") {
    nlohmann::ordered_json j = combiners::to_json(r.program, *machine);
    j["resources"] = {{"stages", r.resources.operations}, {"texture_units", r.resources.textures}, {"colour_interpolants", r.resources.interpolants},
                      {"temporaries", r.resources.registers}};
    std::cout << lang::dump_json(j, 1) << '\n';
  } else if (!c.trace) {
    if (c.output.empty()) {
      std::cout << combiners::listing(r.program, *machine, {&d, 0, 1});
    } else {
      // One program per file, as nvparse() loads them: the !!RC1.0 program in the file named, its
      // !!TS1.0 program (when the pass has one) beside it with the extension .ts.
      for (const combiners::ListingFile& f : combiners::listing_files(r.program, *machine, {&d, 0, 1})) {
        const std::filesystem::path to = f.extension == "rc" ? std::filesystem::path(c.output) : std::filesystem::path(c.output).replace_extension("." + f.extension);
        if (std::string why; !paths::write_atomically(to.string(), f.text, &why)) {
          std::cerr << "passlab-cli: " << why << '\n';
          return kDiagnostics;
        }
      }
    }
  }
  return prog->diagnostics.has_errors() ? kDiagnostics : kOk;
}

int run_nvparse_check(const NvparseCliOptions& c) {
  lang::Diagnostics problems;
  auto target = backends::load_target(c.target, &problems);
  std::optional<combiners::Machine> machine;
  if (target && target->backend == "combiners") machine = combiners::parse_machine(*target, &problems);
  else if (target) problems.error("target", {}, "'" + c.target + "' is not a register-combiner target (geforce1, geforce3)");
  if (!machine) {
    std::cerr << problems.text();
    return kUsage;
  }
  combiners::NvparseOptions no;
  no.general_combiners = machine->general_stages;
  no.per_stage_constants = machine->per_stage_constants;
  no.texture_units = machine->texture_units;
  bool clean = true;
  for (const std::string& file : c.files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << "passlab-cli: cannot read " << file << '\n';
      return kUsage;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<combiners::NvparseProblem> found = combiners::check_nvparse(text, no);
    for (const combiners::NvparseProblem& p : found)
      std::cout << file << (p.line > 0 ? ":" + std::to_string(p.line) : "") << ": error: " << p.message << '\n';
    clean = clean && found.empty();
  }
  return clean ? kOk : kDiagnostics;
}

}  // namespace passlab::cli
