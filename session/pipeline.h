// SPDX-License-Identifier: GPL-3.0-or-later
// The one way from a shader to its shader on a target, shared by the CLI, the Studio's snapshots
// and the render jobs: the front end, light binding, lowering and optimisation (driver::compile_*),
// flattening to the fragment DAG (dag::flatten), and the shader on the target through its backend
// (backends::make_program). Each caller then partitions, renders or lists what it needs.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "backends/target/target_program.h"
#include "core/dag/fragment_dag.h"
#include "core/driver/program.h"
#include "core/partition/target.h"

namespace passlab::session {

struct ShaderSource {
  std::string path;                 // the file: diagnostics, includes, the default light setup
  std::optional<std::string> text;  // the editor's contents; nullopt: read `path`
};

struct Compiled {
  // Always set; its diagnostics include flattening's and the target's (why it does not take the
  // shader, at the source of what it cannot take).
  std::shared_ptr<driver::Program> program;
  std::shared_ptr<const dag::FragmentDag> dag;  // when the shader compiled and flattened
  // When a target was asked for and takes the shader. It keeps its DAG alive.
  std::shared_ptr<const backends::TargetProgram> target;
  bool cancelled = false;  // `cancel` stopped it between stages
};

// Runs the stages as far as they go: to the DAG when `target` is null, else to the target
// program. Stops between stages when `cancel` becomes true. Never throws for bad input: problems
// are in program->diagnostics.
Compiled compile(const ShaderSource& source, const driver::ProgramOptions& options, const partition::TargetDesc* target = nullptr,
                 const std::atomic<bool>* cancel = nullptr);

}  // namespace passlab::session
