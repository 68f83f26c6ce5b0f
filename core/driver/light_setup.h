// SPDX-License-Identifier: GPL-3.0-or-later
// Light setups: the small JSON file next to a shader that binds its lights, parameters and spaces.
#pragma once

#include <string>

#include "core/ir/binding.h"
#include "core/lang/diagnostic.h"
#include "core/lang/frontend.h"

namespace passlab::driver {

// Reads a light setup:
//   { "lights": [ {"shader": "../lights/pointlight.sl", "params": {"intensity": 40, "from": [0,4,-3]}} ],
//     "surface": { "Kd": 0.8 },
//     "spaces": { "shader": [16 numbers, row-major, shader space -> camera space] } }
// Shader paths are relative to the JSON file. Each light shader is compiled with `options`.
// Problems (bad JSON, unknown parameters, wrong value types, light shaders with errors) are
// reported to `sink` with their location in the JSON or the light shader; returns false then.
// `surface` (may be null) lets "surface" overrides be checked against its parameters.
bool load_light_setup(const std::string& path, lang::SourceManager& sm, const lang::FrontendOptions& options,
                      const lang::ShaderDecl* surface, ir::Binding* binding, lang::DiagnosticSink& sink);

// The binding used when a shader has no light setup: one white distant light shining along
// (0.3, -0.5, 1) from behind the viewer's left shoulder, plus a dim ambient light.
bool default_light_setup(lang::SourceManager& sm, ir::Binding* binding, lang::DiagnosticSink& sink);

}  // namespace passlab::driver
