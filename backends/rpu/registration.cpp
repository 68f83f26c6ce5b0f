// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/rpu/registration.h"

#include "backends/rpu/machine.h"

namespace passlab::rpu {

namespace {

constexpr const char* kName = "rpu";

}  // namespace

backends::Backend registration() {
  backends::Backend b;
  b.name = kName;
  b.description = "the RPU ray-tracing processor: the shader compiled whole (calls, loops, rays), no passes";
  b.whole_programs = true;
  b.check_machine = [](const partition::TargetDesc& t, lang::Diagnostics& diagnostics) {
    return load_machine(machine_of(t), &diagnostics).has_value();
  };
  return b;
}

partition::TargetDesc target(const std::string& name, const std::string& machine) {
  partition::TargetDesc t;
  t.name = name;
  t.backend = kName;
  t.machine_json = machine;  // for the RPU, the machine's preset name or file
  t.description = registration().description;
  return t;
}

std::string machine_of(const partition::TargetDesc& target) { return target.machine_json.empty() ? kName : target.machine_json; }

}  // namespace passlab::rpu
