// SPDX-License-Identifier: GPL-3.0-or-later
// The passlab-cli subcommands: each takes parsed options and returns the process exit code.
#include "app/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/dag/export.h"
#include "core/driver/program.h"
#include "core/ir/printer.h"
#include "core/lang/json_dump.h"

namespace passlab::cli {

driver::ProgramOptions program_options(const CommonOptions& o) {
  driver::ProgramOptions p;
  p.include_paths = o.include_paths;
  for (const auto& d : o.defines) {
    auto eq = d.find('=');
    if (eq == std::string::npos) p.defines.push_back({d, ""});
    else p.defines.push_back({d.substr(0, eq), d.substr(eq + 1)});
  }
  p.lights_path = o.lights;
  p.aov = o.aov;
  p.all_outputs = o.all_outputs;
  return p;
}

namespace {

// Diagnostics go to stderr as text; with --format json they are part of stdout's document.
void print_diagnostics(const driver::Program& prog) {
  std::string text = lang::format_text(prog.diagnostics.items(), *prog.sources);
  if (!text.empty()) std::cerr << text;
  if (prog.diagnostics.error_count() > 0 || prog.diagnostics.warning_count() > 0)
    std::cerr << fmt::format("{} error{}, {} warning{}\n", prog.diagnostics.error_count(), prog.diagnostics.error_count() == 1 ? "" : "s",
                             prog.diagnostics.warning_count(), prog.diagnostics.warning_count() == 1 ? "" : "s");
}

std::string value_text(const ir::Value& v) {
  if (v.type == ir::BaseType::String) return "\"" + v.s + "\"";
  int n = std::max(1, lang::component_count(v.type));
  if (n == 1) return fmt::format("{:g}", v.f[0]);
  std::string s = "(";
  for (int i = 0; i < n; ++i) s += fmt::format("{}{:g}", i ? ", " : "", v.f[i]);
  return s + ")";
}

// The value a shader parameter takes: the light setup's, else its default when constant.
std::string param_value(const driver::Program& prog, const ir::ShaderParamInfo& p) {
  auto it = prog.binding.surface_params.find(p.name);
  if (it != prog.binding.surface_params.end()) return value_text(it->second) + " (light setup)";
  if (!prog.module) return "?";
  const ir::Function& fn = prog.module->shader();
  for (const auto& in : fn.values) {
    if (in.removed || in.op != ir::Op::ShaderParam || in.text != p.name) continue;
    const ir::Instr& def = fn.at(in.args[0]);
    if (def.op != ir::Op::Const) return "(computed)";
    return value_text(ir::evaluate(ir::Op::Const, def.type, 0, def.text, def.data, {}, {}));
  }
  return "(unused)";
}


}  // namespace

int report_problems(const CommonOptions& o, const lang::Diagnostics& problems, int exit_code) {
  std::cerr << problems.text();
  if (o.format == "json") {
    nlohmann::json j;
    j["file"] = o.file;
    j["errors"] = std::count_if(problems.items().begin(), problems.items().end(),
                                [](const lang::Diagnostic& d) { return d.severity == lang::Severity::Error; });
    j["diagnostics"] = problems.json();
    std::cout << lang::dump_json(j, 2) << '\n';
  }
  return exit_code;
}

int run_check(const CommonOptions& o) {
  driver::ProgramOptions po = program_options(o);
  po.lower = false;
  auto prog = driver::compile_file(o.file, po);
  if (o.format == "json") {
    nlohmann::json j;
    j["file"] = o.file;
    j["errors"] = prog->diagnostics.error_count();
    j["warnings"] = prog->diagnostics.warning_count();
    j["diagnostics"] = lang::to_json(prog->diagnostics.items(), *prog->sources);
    std::cout << lang::dump_json(j, 2) << '\n';
  } else {
    print_diagnostics(*prog);
    if (prog->ok()) {
      const lang::ShaderDecl* s = prog->shader();
      std::cout << fmt::format("{}: ok{}\n", o.file, s ? fmt::format(" ({} shader '{}')", lang::to_string(s->kind), s->name) : "");
    }
  }
  return prog->ok() ? kOk : kDiagnostics;
}

int run_ir(const CommonOptions& o, bool optimize) {
  driver::ProgramOptions po = program_options(o);
  po.optimize = optimize;
  auto prog = driver::compile_file(o.file, po);
  print_diagnostics(*prog);
  if (!prog->ok() || !prog->module) return kDiagnostics;
  std::cout << ir::print(*prog->module);
  return kOk;
}

session::Compiled compile_shader(const CommonOptions& o, const partition::TargetDesc* target) {
  return session::compile({o.file, std::nullopt}, program_options(o), target);
}

int run_dag(const CommonOptions& o, const std::string& target_name) {
  std::optional<partition::TargetDesc> target;
  if (!target_name.empty()) {
    lang::Diagnostics problems;
    target = partition::load_target(target_name, &problems);
    if (!target) return report_problems(o, problems, kUsage);
  }
  const session::Compiled c = compile_shader(o, target ? &*target : nullptr);
  const auto& prog = c.program;
  const auto& dag = c.dag;
  print_diagnostics(*prog);
  if (!dag) return kDiagnostics;
  if (o.format == "json") std::cout << lang::dump_json(dag::to_json(*dag, *prog->sources), 1) << '\n';
  else if (o.format == "dot") std::cout << dag::to_dot(*dag);
  else std::cout << dag::to_text(*dag);
  return kOk;
}

int run_report(const CommonOptions& o) {
  const session::Compiled c = compile_shader(o);
  const auto& prog = c.program;
  const auto& dag = c.dag;
  print_diagnostics(*prog);
  if (!prog->module) return kDiagnostics;
  const ir::Module& m = *prog->module;
  std::size_t instrs = 0, blocks = 0;
  for (const auto& fn : m.functions) {
    for (const auto& in : fn.values) instrs += in.removed ? 0 : 1;
    for (const auto& b : fn.blocks) blocks += b.removed ? 0 : 1;
  }
  std::string lights = prog->lights_file.empty() ? "default (no .lights.json next to the shader)" : prog->lights_file;
  if (o.format == "json") {
    nlohmann::json j;
    j["file"] = o.file;
    j["shader"] = {{"kind", lang::to_string(m.kind)}, {"name", m.shader_name}};
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : m.params)
      params.push_back({{"name", p.name}, {"type", lang::to_string(p.type)}, {"output", p.output}, {"value", param_value(*prog, p)}});
    j["parameters"] = params;
    j["light_setup"] = prog->lights_file;
    nlohmann::json ls = nlohmann::json::array();
    for (const auto& l : prog->binding.lights) ls.push_back(l.label);
    j["lights"] = ls;
    j["ir"] = {{"instructions", instrs}, {"blocks", blocks}, {"passes", prog->stats}};
    if (dag) j["dag"] = dag::to_json(dag::compute_stats(*dag));
    j["errors"] = prog->diagnostics.error_count();
    std::cout << lang::dump_json(j, 2) << '\n';
    return dag || m.kind != lang::ShaderKind::Surface ? (prog->ok() ? kOk : kDiagnostics) : kDiagnostics;
  }
  std::cout << fmt::format("{} shader '{}'  ({})\n\n", lang::to_string(m.kind), m.shader_name, o.file);
  std::cout << "Parameters\n";
  if (m.params.empty()) std::cout << "  (none)\n";
  for (const auto& p : m.params)
    std::cout << fmt::format("  {:<24} {:<18} {}\n", p.name, (p.output ? "output " : "") + lang::to_string(p.type), param_value(*prog, p));
  if (m.kind == lang::ShaderKind::Surface) {
    std::cout << fmt::format("\nLights   {}\n", lights);
    for (const auto& l : prog->binding.lights) {
      std::string what = l.shader->has_light_statement ? "light '" + l.shader->name + "'" : "ambient light '" + l.shader->name + "'";
      auto cat = l.params.find("__category");
      if (cat != l.params.end()) what += ", category " + cat->second.s;
      std::cout << fmt::format("  {:<20} {}\n", l.label, what);
    }
  }
  std::cout << fmt::format("\nIR       {} instructions in {} blocks after optimization\n", instrs, blocks);
  if (dag) {
    dag::DagStats s = dag::compute_stats(*dag);
    std::cout << "\nFragment DAG (cf. Table 1 of Chan et al. 2002)\n";
    std::cout << fmt::format("  total nodes (n)            {:>5}\n", s.nodes);
    std::cout << fmt::format("  MR nodes (k)               {:>5}\n", s.mr_nodes);
    std::cout << fmt::format("  non-texture operations     {:>5}\n", s.non_texture_ops);
    std::cout << fmt::format("  texture operations         {:>5}   ({} dependent, {} level{})\n", s.texture_ops,
                             s.dependent_texture_ops, s.dependency_levels, s.dependency_levels == 1 ? "" : "s");
    std::cout << fmt::format("  total operations           {:>5}\n", s.operations);
    std::cout << fmt::format("  registers                  {:>5}   (peak live temporaries)\n", s.registers);
    std::cout << fmt::format("  texture units              {:>5}\n", s.texture_units);
    std::cout << fmt::format("  interpolants               {:>5}\n", s.interpolants);
    std::cout << fmt::format("  constants                  {:>5}\n", s.constants);
    std::cout << "\n  operations by kind\n";
    for (const auto& [k, n] : s.ops_by_kind) std::cout << fmt::format("    {:<22} {:>5}\n", k, n);
  }
  return prog->ok() ? kOk : kDiagnostics;
}

}  // namespace passlab::cli
