// SPDX-License-Identifier: GPL-3.0-or-later
// Light setups: the small JSON file next to a shader that binds its lights, parameters and spaces.
#include "core/driver/light_setup.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/lang/diagnostics.h"
#include "core/lang/json_error.h"

namespace passlab::driver {

namespace {

using nlohmann::json;
using lang::BaseType;

using lang::key_span;
using lang::offset_span;

// Converts a JSON value to a parameter of type `type`; returns false with a reason otherwise.
bool to_value(const json& j, BaseType type, ir::Value* out, std::string* why) {
  auto numbers = [&](std::size_t n) -> bool {
    if (!j.is_array() || j.size() != n) return false;
    for (const auto& x : j)
      if (!x.is_number()) return false;
    return true;
  };
  switch (type) {
    case BaseType::Float:
      if (j.is_number()) {
        *out = ir::Value::scalar(j.get<float>());
        return true;
      }
      if (j.is_boolean()) {
        *out = ir::Value::scalar(j.get<bool>() ? 1.0f : 0.0f);
        return true;
      }
      *why = "expected a number";
      return false;
    case BaseType::Color:
    case BaseType::Point:
    case BaseType::Vector:
    case BaseType::Normal:
      if (j.is_number()) {
        float x = j.get<float>();
        *out = ir::Value::triple(type, x, x, x);
        return true;
      }
      if (numbers(3)) {
        *out = ir::Value::triple(type, j[0].get<float>(), j[1].get<float>(), j[2].get<float>());
        return true;
      }
      *why = "expected a number or an array of 3 numbers";
      return false;
    case BaseType::Matrix:
      if (numbers(16)) {
        ir::Matrix m{};
        for (std::size_t i = 0; i < 16; ++i) m[i] = j[i].get<float>();
        *out = ir::Value::matrix(m);
        return true;
      }
      *why = "expected an array of 16 numbers";
      return false;
    case BaseType::String:
      if (j.is_string()) {
        *out = ir::Value::string(j.get<std::string>());
        return true;
      }
      *why = "expected a string";
      return false;
    default:
      *why = "this parameter type cannot be set from a light setup";
      return false;
  }
}

bool bind_params(const json& params, const std::vector<lang::Param>& decls, const std::string& who,
                 std::map<std::string, ir::Value>* out, const lang::SourceManager& sm, lang::FileId file,
                 lang::DiagnosticSink& sink) {
  bool ok = true;
  if (!params.is_object()) {
    sink.error("light-setup", key_span(sm, file, "params"), "the parameters of " + who + " must be a JSON object");
    return false;
  }
  for (const auto& [name, value] : params.items()) {
    const lang::Param* decl = nullptr;
    for (const auto& p : decls)
      if (p.name == name) decl = &p;
    if (!decl) {
      std::string known;
      for (const auto& p : decls) known += (known.empty() ? "" : ", ") + p.name;
      sink.error("light-setup", key_span(sm, file, name),
                 who + " has no parameter '" + name + "'" + (known.empty() ? "" : " (it has: " + known + ")"));
      ok = false;
      continue;
    }
    ir::Value v;
    std::string why;
    if (!to_value(value, decl->type.base, &v, &why)) {
      sink.error("light-setup", key_span(sm, file, name),
                 "parameter '" + name + "' of " + who + " is a " + lang::to_string(decl->type.base) + ": " + why);
      ok = false;
      continue;
    }
    (*out)[name] = v;
  }
  return ok;
}

bool add_light(lang::SourceManager& sm, lang::FileId light_file, const lang::FrontendOptions& options, const json* params,
               const std::string& label, lang::FileId setup_file, const ir::Matrix* world_to_camera, ir::Binding* binding,
               lang::DiagnosticSink& sink) {
  lang::DiagnosticList local;
  std::shared_ptr<lang::TranslationUnit> unit = lang::compile(sm, light_file, options, local);
  for (const auto& d : local.items()) sink.report(d);
  if (local.has_errors()) return false;
  const lang::ShaderDecl* shader = unit->shader();
  if (!shader || shader->kind != lang::ShaderKind::Light) {
    sink.error("light-setup", key_span(sm, setup_file, "shader"), "'" + sm.file(light_file).path + "' does not define a light shader");
    return false;
  }
  ir::LightInstance li;
  li.unit = unit;
  li.shader = shader;
  li.label = label;
  if (params && !bind_params(*params, shader->params, "light '" + shader->name + "'", &li.params, sm, setup_file, sink)) return false;
  if (world_to_camera)
    for (auto& [name, value] : li.params) value = ir::transform_by(value, *world_to_camera);  // world to camera space
  binding->lights.push_back(std::move(li));
  return true;
}

// A "lights" array: each light's shader (a path relative to `base`) and parameters, located in
// `file`. Labels are "<shader file stem>#<k>".
bool read_lights(const json& lights, const std::filesystem::path& base, lang::SourceManager& sm, lang::FileId file,
                 const lang::FrontendOptions& options, const ir::Matrix* world_to_camera, ir::Binding* binding,
                 lang::DiagnosticSink& sink) {
  if (!lights.is_array()) {
    sink.error("light-setup", key_span(sm, file, "lights"), "\"lights\" must be an array");
    return false;
  }
  bool ok = true;
  std::map<std::string, int> counts;
  for (const auto& l : lights) {
    if (!l.is_object() || !l.contains("shader") || !l["shader"].is_string()) {
      sink.error("light-setup", key_span(sm, file, "lights"), "each light needs a \"shader\" path");
      ok = false;
      continue;
    }
    std::string rel = l["shader"].get<std::string>();
    std::filesystem::path p = std::filesystem::path(rel).is_absolute() ? std::filesystem::path(rel) : base / rel;
    std::string err;
    auto lf = sm.load(p.lexically_normal().string(), &err);
    if (!lf) {
      sink.error("light-setup", key_span(sm, file, rel), err);
      ok = false;
      continue;
    }
    std::string stem = std::filesystem::path(rel).stem().string();
    std::string label = stem + "#" + std::to_string(counts[stem]++);
    const json* params = l.contains("params") ? &l["params"] : nullptr;
    ok = add_light(sm, *lf, options, params, label, file, world_to_camera, binding, sink) && ok;
  }
  return ok;
}

// A JSON file loaded into `sm` and parsed; nullopt after a diagnostic.
std::optional<std::pair<lang::FileId, json>> parse_file(const std::string& path, lang::SourceManager& sm, lang::DiagnosticSink& sink,
                                                        const char* code) {
  std::string error;
  auto file = sm.load(path, &error);
  if (!file) {
    sink.error(code, {}, error);
    return std::nullopt;
  }
  try {
    return std::make_pair(*file, json::parse(sm.file(*file).text));
  } catch (const json::exception& e) {
    sink.report(lang::json_diagnostic(code, sm, *file, e));
    return std::nullopt;
  }
}

}  // namespace

bool load_light_setup(const std::string& path, lang::SourceManager& sm, const lang::FrontendOptions& options,
                      const lang::ShaderDecl* surface, ir::Binding* binding, lang::DiagnosticSink& sink) {
  auto parsed = parse_file(path, sm, sink, "light-setup");
  if (!parsed) return false;
  const auto& [file, doc] = *parsed;
  if (!doc.is_object()) {
    sink.error("light-setup", offset_span(sm, file, 0), "a light setup must be a JSON object with a \"lights\" array");
    return false;
  }
  bool ok = true;
  std::filesystem::path base = std::filesystem::path(path).parent_path();
  if (doc.contains("lights") && !read_lights(doc["lights"], base, sm, file, options, nullptr, binding, sink)) {
    if (!doc["lights"].is_array()) return false;
    ok = false;
  }
  if (doc.contains("surface")) {
    if (surface) ok = bind_params(doc["surface"], surface->params, "the surface shader", &binding->surface_params, sm, file, sink) && ok;
  }
  if (doc.contains("spaces")) {
    const json& spaces = doc["spaces"];
    if (!spaces.is_object()) {
      sink.error("light-setup", key_span(sm, file, "spaces"), "\"spaces\" must be an object of 16-number matrices");
      return false;
    }
    for (const auto& [name, m] : spaces.items()) {
      ir::Value v;
      std::string why;
      if (!to_value(m, BaseType::Matrix, &v, &why)) {
        sink.error("light-setup", key_span(sm, file, name), "space '" + name + "': " + why);
        ok = false;
        continue;
      }
      binding->spaces[name] = v.f;
    }
  }
  for (const auto& [key, _] : doc.items())
    if (key != "lights" && key != "surface" && key != "spaces" && key != "comment")
      sink.warning("light-setup", key_span(sm, file, key), "unknown key \"" + key + "\" in the light setup is ignored");
  return ok;
}

bool load_scene_lights(const std::string& scene_path, const ir::Matrix& world_to_camera, lang::SourceManager& sm,
                       const lang::FrontendOptions& options, ir::Binding* binding, lang::DiagnosticSink& sink) {
  binding->spaces["world"] = world_to_camera;
  auto parsed = parse_file(scene_path, sm, sink, "scene");
  if (!parsed) return false;
  const auto& [file, doc] = *parsed;
  if (!doc.is_object() || !doc.contains("lights")) return true;
  return read_lights(doc["lights"], std::filesystem::path(scene_path).parent_path(), sm, file, options, &world_to_camera, binding, sink);
}

bool default_light_setup(lang::SourceManager& sm, ir::Binding* binding, lang::DiagnosticSink& sink) {
  static const char* source =
      "light passlab_default_distant(float intensity = 1; color lightcolor = 1;\n"
      "                              vector direction = vector(0.3, -0.5, 1)) {\n"
      "  solar(direction, 0) { Cl = intensity * lightcolor; }\n"
      "}\n";
  static const char* ambient =
      "light passlab_default_ambient(float intensity = 0.1; color lightcolor = 1) {\n"
      "  Cl = intensity * lightcolor;\n"
      "}\n";
  lang::FrontendOptions options;
  bool ok = add_light(sm, sm.add("<default distant light>", source), options, nullptr, "default-distant#0", 0, nullptr, binding, sink);
  ok = add_light(sm, sm.add("<default ambient light>", ambient), options, nullptr, "default-ambient#0", 0, nullptr, binding, sink) && ok;
  return ok;
}

}  // namespace passlab::driver
