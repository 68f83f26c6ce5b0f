// SPDX-License-Identifier: GPL-3.0-or-later
// A shader program: the surface (or light) shader, its light setup, and the IR built from them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/binding.h"
#include "core/ir/ir.h"
#include "core/ir/passes/pass.h"
#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"

namespace passlab::driver {

struct ProgramOptions {
  std::vector<std::string> include_paths;
  std::vector<std::pair<std::string, std::string>> defines;
  std::string lights_path;   // "" : <stem>.lights.json next to the shader if present, else the default
  bool optimize = true;      // run the optimization pipeline
  bool verify = false;       // verify the IR after every pass (tests)
  bool lower = true;         // false: stop after the front end (`check`)
  // "": the fragment programs compute Ci and Oi; else this output parameter (an AOV) as the colour
  // (dag::FlattenOptions::aov).
  std::string aov;
  bool all_outputs = false;  // the colour and every output parameter (dag::FlattenOptions::all_outputs)
};

struct Program {
  std::shared_ptr<lang::SourceManager> sources = std::make_shared<lang::SourceManager>();
  lang::DiagnosticList diagnostics;
  std::shared_ptr<lang::TranslationUnit> unit;
  std::string lights_file;  // the light setup used; "" for the default lights
  ir::Binding binding;
  std::optional<ir::Module> module;
  ir::PassStats stats;

  bool ok() const { return !diagnostics.has_errors(); }
  const lang::ShaderDecl* shader() const { return unit ? unit->shader() : nullptr; }
};

// Compiles a shader file end to end as far as options ask. Never throws for bad input: problems
// are in `diagnostics`, and later stages are skipped after errors.
std::unique_ptr<Program> compile_file(const std::string& path, const ProgramOptions& options);
// The same for source text held in memory (`name` is used in diagnostics and to find includes).
std::unique_ptr<Program> compile_source(const std::string& name, const std::string& text, const ProgramOptions& options);

// The light setup file that `compile_file` would use for `shader_path` by default, or "".
std::string default_lights_path(const std::string& shader_path);

}  // namespace passlab::driver
