// SPDX-License-Identifier: GPL-3.0-or-later
// Semantic analysis: names, types, overloads, uniform/varying inference and definite assignment.
#pragma once

#include <string>
#include <string_view>

#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"

namespace passlab::lang {

// Checks `unit` in place. Afterwards every expression has a type (BaseType::Error where it
// failed), names point at symbols, calls at a builtin signature or a user function, implicit
// promotions are explicit ConvertExpr nodes, and undeclared details are inferred
// (a local is varying when any value it receives, or the control it is assigned under, is).
// Errors and warnings go to `sink`; analysis continues past errors.
struct SemaOptions {
  // RSL forbids recursion (renderers inline every call); a target that keeps calls as calls
  // (the RPU) allows it.
  bool allow_recursion = false;
};
void analyze(TranslationUnit& unit, DiagnosticSink& sink, const SemaOptions& options = {});

// The coordinate systems every renderer defines (RI 3.2 §4.1.1); any other name is one the scene
// defines, bound by the light setup's "spaces".
bool is_standard_space(std::string_view name);

// The colour spaces of `color "space" (...)` and ctransform: rgb, hsv, hsl, xyz, xyY, YIQ (any
// case of xyz, xyy and yiq); canonical_color_space gives that spelling, or "" for another name.
std::string canonical_color_space(std::string_view name);
inline bool is_color_space(std::string_view name) { return !canonical_color_space(name).empty(); }

}  // namespace passlab::lang
