// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU's entry in the backend registry (backends/registry), and its targets: an RPU target is a
// machine (a preset of resources/rpu or a machine file) that runs the whole compiled shader.
#pragma once

#include <string>

#include "backends/target/backend.h"
#include "core/partition/target.h"

namespace passlab::rpu {

backends::Backend registration();

// The target that runs shaders on `machine` (a preset name or a file; "" : the default "rpu"),
// shown as `name`. The machine is checked when the target is used (backends::check_target).
partition::TargetDesc target(const std::string& name, const std::string& machine);
// The machine an RPU target names ("rpu" when it names none).
std::string machine_of(const partition::TargetDesc& target);

}  // namespace passlab::rpu
