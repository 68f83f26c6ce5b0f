// SPDX-License-Identifier: GPL-3.0-or-later
// The backends Passlab has, in one list: adding a backend is its own folder and one line in
// registry.cpp. Targets name their backend by string (partition::TargetDesc::backend); this is
// where the string meets the code.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/target/backend.h"

namespace passlab::backends {

// Every backend, the default (fp) first.
const std::vector<Backend>& all();
// The backend named `name` ("" : the default), or null.
const Backend* find(const std::string& name);
// "fp, combiners, rpu": for diagnostics and --help.
std::string names();

// Whether the target's backend runs whole programs (the RPU) rather than passes.
bool runs_whole_programs(const partition::TargetDesc& target);

// Whether a target can be used at all: its backend is registered and its machine description
// sound. Returns false when not, with diagnostics (code "target"; at their keys when *diagnostics
// holds the target's file) added to *diagnostics when given.
bool check_target(const partition::TargetDesc& target, lang::Diagnostics* diagnostics);

// partition::load_target, then check_target: a preset or file whose backend and machine are sound.
std::optional<partition::TargetDesc> load_target(const std::string& name_or_path, lang::Diagnostics* diagnostics);

// The shader `d` on `target` through its backend; nullptr when the backend is unknown, runs whole
// programs instead (the RPU), or cannot take the shader, with the reason reported to `sink` (at
// the source of what the target cannot take: spans of `d`, in the compile's source manager).
std::unique_ptr<TargetProgram> make_program(const dag::FragmentDag& d, const partition::TargetDesc& target, lang::DiagnosticSink& sink);

}  // namespace passlab::backends
