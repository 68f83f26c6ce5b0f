// SPDX-License-Identifier: GPL-3.0-or-later
// Which scene a shader is shown in, and scenes read once per file version.
#pragma once

#include <optional>
#include <string>

#include "core/sim/scene.h"

namespace passlab::session {

// The scene a shader is shown in when it has none: samples/scenes/<stem>.json next to the
// shader's folder if there is one, else a lit sphere.
sim::Scene default_scene_for(const std::string& shader_path);

// A sample scene (beside the shader's folder, in ../scenes) with an object that uses the shader,
// or "". What the RPU shows a shader in.
std::string rpu_scene_for(const std::string& shader_path);

// The scene in `path`, read once per version of the file (meshes such as the bunny take a while
// to parse); nullopt with the problems added to *problems.
std::optional<sim::Scene> cached_scene(const std::string& path, lang::Diagnostics* problems);

}  // namespace passlab::session
