// SPDX-License-Identifier: GPL-3.0-or-later
// A scene compiled for the RPU: every object's surface shader and the main shader in one
// program, with each object's shader address for the scene's data memory.
//
// The main shader (thesis §12.1) is an RSL function `color main(point P)` run once per pixel
// with P = ((x + 0.5) / width, (y + 0.5) / height, 0). Unless one is given, Passlab writes the
// pinhole camera of the scene as one, the thesis's shape with the scene's field of view:
//   color main(point P) { return trace(point(0, 0, 0), normalize(vector(0, 0, 1) + (P - s) * d)); }
// which casts the same rays as the rasterizer's camera.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/rpu/compiler.h"
#include "core/sim/scene.h"

namespace passlab::rpu {

struct SceneProgram {
  std::unique_ptr<CompiledProgram> compiled;  // diagnostics are here when it failed
  std::uint32_t main_entry = 0;
  std::vector<float> object_shader;            // per object: its surface shader's address
  std::string main_source;                     // the generated main shader ("" when given)
  bool ok() const { return compiled && compiled->ok(); }
};

// The shader an object whose shader is input file `file` runs: that file's last surface shader
// (as for fragment targets). Null when it defines none.
const FunctionInfo* object_shader(const CompiledProgram& program, std::size_t file);

// The pinhole main shader for a scene rendered at width x height.
std::string camera_main_source(const sim::Scene& scene, int width, int height);

// Compiles the shaders of `scene` (an object without one uses `default_shader`, which may be "")
// and the main shader: `main_path` (a file defining `main_function`) or the generated camera.
SceneProgram compile_scene(const sim::Scene& scene, int width, int height, const std::string& default_shader, const std::string& main_path,
                           const std::string& main_function, const CompileOptions& options);

}  // namespace passlab::rpu
