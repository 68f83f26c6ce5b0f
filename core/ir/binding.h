// What a shader is compiled against: its light sources, parameter values and named spaces.
#pragma once

#include <map>
#include <memory>
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
  std::string label;  // e.g. "pointlight#0", for listings and diagnostics
};

struct Binding {
  std::vector<LightInstance> lights;
  std::map<std::string, Value> surface_params;  // overrides of the surface shader's defaults
  std::map<std::string, Matrix> spaces;         // named space -> current (camera) space
};

}  // namespace passlab::ir
