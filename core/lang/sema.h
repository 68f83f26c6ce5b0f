// Semantic analysis: names, types, overloads, uniform/varying inference and definite assignment.
#pragma once

#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"

namespace passlab::lang {

// Checks `unit` in place. Afterwards every expression has a type (BaseType::Error where it
// failed), names point at symbols, calls at a builtin signature or a user function, implicit
// promotions are explicit ConvertExpr nodes, and undeclared details are inferred
// (a local is varying when any value it receives, or the control it is assigned under, is).
// Errors and warnings go to `sink`; analysis continues past errors.
void analyze(TranslationUnit& unit, DiagnosticSink& sink);

}  // namespace passlab::lang
