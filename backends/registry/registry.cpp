// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/registry/registry.h"

#include "backends/combiners/target_program.h"
#include "backends/fp/target_program.h"
#include "backends/rpu/registration.h"
#include "core/lang/json_error.h"

namespace passlab::backends {

const std::vector<Backend>& all() {
  // The registration lines: one per backend, the default first.
  static const std::vector<Backend> backends = {
      fp::registration(),
      combiners::registration(),
      rpu::registration(),
  };
  return backends;
}

const Backend* find(const std::string& name) {
  if (name.empty()) return &all().front();
  for (const Backend& b : all())
    if (b.name == name) return &b;
  return nullptr;
}

std::string names() {
  std::string out;
  for (const Backend& b : all()) out += (out.empty() ? "" : ", ") + b.name;
  return out;
}

bool runs_whole_programs(const partition::TargetDesc& target) {
  const Backend* b = find(target.backend);
  return b && b->whole_programs;
}

namespace {

// The target's backend, or null with a diagnostic when it is unknown or lacks its machine object
// (at the "backend" key of the target file, when the diagnostics hold it).
const Backend* backend_of(const partition::TargetDesc& target, lang::Diagnostics& d) {
  const Backend* b = find(target.backend);
  std::string problem;
  if (!b) problem = "unknown backend \"" + target.backend + "\" (known: " + names() + ")";
  else if (b->needs_machine && target.machine_json.empty())
    problem = "a \"" + b->name + "\" target needs a \"" + b->name + "\" object describing its machine";
  if (problem.empty()) return b;
  const lang::FileId file = target.source.empty() ? 0 : d.sources().find(target.source);
  d.error("target", file ? lang::key_span(d.sources(), file, "backend") : lang::Span{},
          file ? problem : (target.name.empty() ? "" : "target '" + target.name + "': ") + problem);
  return nullptr;
}

}  // namespace

bool check_target(const partition::TargetDesc& target, lang::Diagnostics* diagnostics) {
  lang::Diagnostics own;
  lang::Diagnostics& d = diagnostics ? *diagnostics : own;
  const Backend* b = backend_of(target, d);
  if (!b) return false;
  return !b->check_machine || b->check_machine(target, d);
}

std::optional<partition::TargetDesc> load_target(const std::string& name_or_path, lang::Diagnostics* diagnostics) {
  std::optional<partition::TargetDesc> t = partition::load_target(name_or_path, diagnostics);
  if (t && !check_target(*t, diagnostics)) return std::nullopt;
  return t;
}

std::unique_ptr<TargetProgram> make_program(const dag::FragmentDag& d, const partition::TargetDesc& target, lang::DiagnosticSink& sink) {
  // The backend's make reads (and so checks) the machine itself: it is not parsed twice.
  lang::Diagnostics problems;
  const Backend* found = backend_of(target, problems);
  if (!found) {
    sink.error("target", {}, problems.summary());
    return nullptr;
  }
  const Backend& b = *found;
  if (!b.make) {
    sink.error("target", {}, "the " + b.name + " backend runs whole programs, not a fragment DAG cut into passes");
    return nullptr;
  }
  return b.make(d, target, sink);
}

}  // namespace passlab::backends
