// SPDX-License-Identifier: GPL-3.0-or-later
// A shader program: the surface (or light) shader, its light setup, and the IR built from them.
#include "core/driver/program.h"

#include <filesystem>
#include <stdexcept>

#include "core/driver/light_setup.h"
#include "core/ir/lower.h"
#include "core/ir/pipeline.h"
#include "core/lang/frontend.h"

namespace passlab::driver {

std::string default_lights_path(const std::string& shader_path) {
  std::filesystem::path p(shader_path);
  std::filesystem::path candidate = p.parent_path() / (p.stem().string() + ".lights.json");
  std::error_code ec;
  return std::filesystem::is_regular_file(candidate, ec) ? candidate.string() : "";
}

namespace {

void build(Program& prog, lang::FileId file, const std::string& path, const ProgramOptions& options) {
  lang::FrontendOptions fe;
  fe.preprocess.include_paths = options.include_paths;
  fe.preprocess.defines = options.defines;
  prog.unit = lang::compile(*prog.sources, file, fe, prog.diagnostics);
  if (!prog.ok() || !options.lower) return;
  const lang::ShaderDecl* shader = prog.unit->shader();
  if (!shader) {
    prog.diagnostics.error("no-shader", {file, 0, 1, 1, 1}, "the file defines no shader (surface, light or displacement)");
    return;
  }
  if (shader->kind == lang::ShaderKind::Surface || shader->kind == lang::ShaderKind::Volume) {  // both run illuminance
    prog.lights_file = options.lights_path.empty() ? default_lights_path(path) : options.lights_path;
    bool bound = prog.lights_file.empty()
                     ? default_light_setup(*prog.sources, &prog.binding, prog.diagnostics)
                     : load_light_setup(prog.lights_file, *prog.sources, fe, shader, &prog.binding, prog.diagnostics);
    if (!bound) return;
  }
  prog.module = ir::lower(*prog.unit, prog.binding, prog.diagnostics);
  if (!prog.module) return;
  ir::PipelineOptions po;
  po.optimize = options.optimize;
  po.verify = options.verify;
  try {
    prog.stats = ir::run_pipeline(*prog.module, po);
  } catch (const std::logic_error& e) {
    // A broken invariant is Passlab's bug, not the user's; say so plainly.
    prog.diagnostics.error("internal-error", {file, 0, 1, 1, 1}, std::string("internal compiler error: ") + e.what());
    prog.module.reset();
  }
}

}  // namespace

std::unique_ptr<Program> compile_file(const std::string& path, const ProgramOptions& options) {
  auto prog = std::make_unique<Program>();
  std::string error;
  auto file = prog->sources->load(path, &error);
  if (!file) {
    prog->diagnostics.error("file-not-found", {}, error);
    return prog;
  }
  build(*prog, *file, path, options);
  return prog;
}

std::unique_ptr<Program> compile_source(const std::string& name, const std::string& text, const ProgramOptions& options) {
  auto prog = std::make_unique<Program>();
  lang::FileId file = prog->sources->add(name, text);
  build(*prog, file, name, options);
  return prog;
}

}  // namespace passlab::driver
