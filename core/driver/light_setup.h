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

// A scene's lights, for a ray tracer (the RPU) that lights every surface with them: the scene
// file's "lights" array, in a light setup's form, with paths relative to the scene and the point,
// vector and normal parameters given in world space (moved to camera space by `world_to_camera`).
// The binding also gets the named space "world". A scene without "lights" adds no light. Problems
// are reported at their place in the scene file; returns false then.
bool load_scene_lights(const std::string& scene_path, const ir::Matrix& world_to_camera, lang::SourceManager& sm,
                       const lang::FrontendOptions& options, ir::Binding* binding, lang::DiagnosticSink& sink);

// The binding used when a shader has no light setup: one white distant light shining along
// (0.3, -0.5, 1) from behind the viewer's left shoulder, plus a dim ambient light.
bool default_light_setup(lang::SourceManager& sm, ir::Binding* binding, lang::DiagnosticSink& sink);

}  // namespace passlab::driver
