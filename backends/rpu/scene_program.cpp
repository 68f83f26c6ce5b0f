// SPDX-License-Identifier: GPL-3.0-or-later
// Compiling a scene's shaders and its main shader into one RPU program.
#include "backends/rpu/scene_program.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/sim/raster.h"

namespace passlab::rpu {

std::string camera_main_source(const sim::Scene& scene, int width, int height) {
  // The rasterizer's projection: focal length 0.5 min(w, h) / tan(fov / 2) pixels. The parameter
  // is not called P, as in the thesis, because that would shadow the global (a warning the user
  // could do nothing about).
  sim::Projection proj{width, height, scene.fov_degrees, 1e-3f};
  const float focal = proj.focal();
  const float dx = static_cast<float>(width) / focal, dy = -static_cast<float>(height) / focal;
  return "/* The pinhole camera of the scene, as the RPU's main shader (written by Passlab). */\n"
         "color main(point screen)\n{\n"
         "    vector d = vector(" +
         format_float(dx) + ", " + format_float(dy) +
         ", 0);\n"
         "    return trace(point(0, 0, 0), normalize(vector(0, 0, 1) + (screen - point(0.5, 0.5, 0)) * d));\n}\n";
}

const FunctionInfo* object_shader(const CompiledProgram& program, std::size_t file) {
  const FunctionInfo* shader = nullptr;
  for (const FunctionInfo& f : program.functions)
    if (f.file == file && f.shader) shader = &f;
  return shader;
}

SceneProgram compile_scene(const sim::Scene& scene, int width, int height, const std::string& default_shader, const std::string& main_path,
                           const std::string& main_function, const CompileOptions& options) {
  SceneProgram sp;
  // One translation unit per distinct shader file, in the order objects name them.
  std::vector<std::string> files;
  std::vector<int> object_file(scene.objects.size(), -1);
  for (std::size_t i = 0; i < scene.objects.size(); ++i) {
    const std::string& s = scene.objects[i].shader.empty() ? default_shader : scene.objects[i].shader;
    if (s.empty()) continue;
    auto it = std::find(files.begin(), files.end(), s);
    if (it == files.end()) it = files.insert(files.end(), s);
    object_file[i] = static_cast<int>(it - files.begin());
  }
  std::vector<std::pair<std::string, std::string>> sources;
  for (const std::string& f : files) {
    if (const std::string* text = unsaved_text(options, f)) {
      sources.push_back({f, *text});
      continue;
    }
    std::string text, error;
    lang::SourceManager probe;
    std::optional<lang::FileId> id = probe.load(f, &error);
    if (!id) {
      sp.compiled = std::make_unique<CompiledProgram>();
      sp.compiled->diagnostics.error("file-not-found", {}, error);
      return sp;
    }
    sources.push_back({f, probe.file(*id).text});
  }
  std::string main_name = main_function.empty() ? "main" : main_function;
  if (main_path.empty()) {
    sp.main_source = camera_main_source(scene, width, height);
    sources.push_back({"<camera main>", sp.main_source});
    main_name = "main";
  } else {
    std::string error;
    lang::SourceManager probe;
    std::optional<lang::FileId> id = probe.load(main_path, &error);
    if (!id) {
      sp.compiled = std::make_unique<CompiledProgram>();
      sp.compiled->diagnostics.error("file-not-found", {}, error);
      return sp;
    }
    sources.push_back({main_path, probe.file(*id).text});
  }
  CompileOptions with_scene = options;
  with_scene.scene_path = scene.path;
  with_scene.world_to_camera = scene.world_to_camera.m;
  with_scene.textures = scene.textures;
  sp.compiled = compile_sources(sources, with_scene);
  if (!sp.compiled->ok()) return sp;
  const std::size_t main_file = sources.size() - 1;
  const FunctionInfo* main = nullptr;
  for (const FunctionInfo& f : sp.compiled->functions)
    if (f.file == main_file && f.name == main_name && !f.shader) main = &f;
  if (!main) {
    sp.compiled->diagnostics.error("rpu-no-main", {}, "no function '" + main_name + "' in " + sources.back().first +
                                                          " (the main shader is a function `color " + main_name + "(point P)`)");
    return sp;
  }
  if (main->args.size() != 1 || !lang::is_triple(main->args[0]) || main->results.size() != 1 || !lang::is_triple(main->results[0])) {
    sp.compiled->diagnostics.error("rpu-no-main", {}, "the main shader '" + main_name + "' must be `color " + main_name + "(point P)`");
    return sp;
  }
  sp.main_entry = main->address;
  for (const sim::SceneObject& o : scene.objects)
    if (!o.lights.empty())
      sp.compiled->diagnostics.warning("rpu-object-lights", {},
                                       "object \"" + o.name + "\" names its own light setup, which the RPU does not use: its surface is lit by " +
                                           (scene.has_lights ? "the scene's \"lights\"" : "its shader's light setup or the point light"));
  // Each object's shader: the last surface shader of its file (as for fragment targets).
  sp.object_shader.assign(scene.objects.size(), -1.0f);
  for (std::size_t i = 0; i < scene.objects.size(); ++i) {
    if (object_file[i] < 0) {
      sp.compiled->diagnostics.error("rpu-no-shader", {}, "object \"" + scene.objects[i].name + "\" has no shader (give one in the scene or on the command line)");
      continue;
    }
    const FunctionInfo* shader = object_shader(*sp.compiled, static_cast<std::size_t>(object_file[i]));
    if (!shader) {
      sp.compiled->diagnostics.error("rpu-no-shader", {}, files[static_cast<std::size_t>(object_file[i])] + " defines no surface shader");
      continue;
    }
    sp.object_shader[i] = static_cast<float>(shader->address);
  }
  return sp;
}

}  // namespace passlab::rpu
