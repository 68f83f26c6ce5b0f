// SPDX-License-Identifier: GPL-3.0-or-later
// What a shader is compiled against: its light sources, parameter values and named spaces.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/ir/value.h"
#include "core/lang/ast.h"

namespace passlab::ir {

// One light source: a compiled light shader and the values of the parameters it overrides.
struct LightInstance {
  std::shared_ptr<const lang::TranslationUnit> unit;  // keeps the shader alive
  const lang::ShaderDecl* shader = nullptr;
  std::map<std::string, Value> params;
  // Parameters whose values arrive when the shader runs rather than when it is compiled (the
  // RPU's point light in C0/C1): lowered as ShaderParam "$<label>.<name>", with the default.
  std::set<std::string> runtime_params;
  std::string label;  // e.g. "pointlight#0", for listings and diagnostics
};

struct Binding {
  std::vector<LightInstance> lights;
  std::map<std::string, Value> surface_params;  // overrides of the surface shader's defaults
  std::map<std::string, Matrix> spaces;         // named space -> current (camera) space
  // Each light (except those with runtime parameters) becomes one function of the module that
  // illuminance and the light functions call, instead of its body inlined at every use: how the
  // RPU maps light shaders (thesis §3.3). Fragment targets inline.
  bool lights_as_functions = false;
};

}  // namespace passlab::ir
