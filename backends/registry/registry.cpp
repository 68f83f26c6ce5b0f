// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/registry/registry.h"

#include "backends/combiners/target_program.h"
#include "backends/fp/target_program.h"
#include "backends/rpu/registration.h"

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

// The target's backend, or null with *error when it is unknown or lacks its machine object.
const Backend* backend_of(const partition::TargetDesc& target, std::string* error) {
  const std::string where = target.source.empty() ? target.name : target.source;
  const Backend* b = find(target.backend);
  std::string problem;
  if (!b) problem = where + ": unknown backend \"" + target.backend + "\" (known: " + names() + ")";
  else if (b->needs_machine && target.machine_json.empty())
    problem = where + ": a \"" + b->name + "\" target needs a \"" + b->name + "\" object describing its machine";
  if (problem.empty()) return b;
  if (error) *error = problem;
  return nullptr;
}

}  // namespace

bool check_target(const partition::TargetDesc& target, std::string* error) {
  const Backend* b = backend_of(target, error);
  if (!b) return false;
  const std::string problem = b->check_machine ? b->check_machine(target) : std::string();
  if (problem.empty()) return true;
  if (error) *error = problem;
  return false;
}

std::optional<partition::TargetDesc> load_target(const std::string& name_or_path, std::string* error) {
  std::optional<partition::TargetDesc> t = partition::load_target(name_or_path, error);
  if (t && !check_target(*t, error)) return std::nullopt;
  return t;
}

std::unique_ptr<TargetProgram> make_program(const dag::FragmentDag& d, const partition::TargetDesc& target, std::string* error) {
  // The backend's make reads (and so checks) the machine itself: it is not parsed twice.
  const Backend* found = backend_of(target, error);
  if (!found) return nullptr;
  const Backend& b = *found;
  if (!b.make) {
    if (error) *error = "the " + b.name + " backend runs whole programs, not a fragment DAG cut into passes";
    return nullptr;
  }
  return b.make(d, target, error);
}

}  // namespace passlab::backends
