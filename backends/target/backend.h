// SPDX-License-Identifier: GPL-3.0-or-later
// What a backend tells the rest of Passlab about itself: its name (a target file's "backend"),
// what it runs, and how a shader gets onto a target of its kind. Each backend describes itself in
// its own folder (fp::registration(), combiners::registration(), rpu::registration()); the
// registry (backends/registry) lists them, and nothing else names a backend.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backends/target/target_program.h"
#include "core/dag/fragment_dag.h"
#include "core/partition/target.h"

namespace passlab::backends {

struct Backend {
  std::string name;         // "fp": how a target file names it ("backend": "fp")
  std::string description;  // one line for --help and the Studio's target list
  // What a pass listing of this backend is saved as ("fp", "rc"); "" for none.
  std::string listing_extension;
  // A backend that runs whole compiled programs (loops, calls, rays) rather than a fragment DAG
  // cut into passes: the RPU. Its targets are machines, not pass limits; `make` is empty.
  bool whole_programs = false;
  // Whether its targets need the object named after the backend (the machine description).
  bool needs_machine = false;
  // Checks a target's machine description: true when it is sound, else false with diagnostics
  // (code "target"). Empty: nothing to check.
  std::function<bool(const partition::TargetDesc&, lang::Diagnostics&)> check_machine;
  // The shader on a target of this kind; nullptr when the target cannot take it at all, with a
  // diagnostic at the source of what it cannot take (spans of `d`'s nodes). `d` must outlive the
  // program.
  std::function<std::unique_ptr<TargetProgram>(const dag::FragmentDag& d, const partition::TargetDesc& target, lang::DiagnosticSink& sink)> make;
};

}  // namespace passlab::backends
