// SPDX-License-Identifier: GPL-3.0-or-later
// Lowering: a checked RSL syntax tree, bound to its lights, to SSA IR.
#pragma once

#include <optional>

#include "core/ir/binding.h"
#include "core/ir/ir.h"
#include "core/lang/diagnostic.h"

namespace passlab::ir {

// Builds SSA directly from the tree (Braun et al., "Simple and Efficient Construction of Static
// Single Assignment Form", CC 2013): variables are read and written per block, phis appear on
// demand and are completed when a block is sealed. Light loops (illuminance, diffuse, specular,
// phong, ambient) are expanded over `binding.lights`, with each light shader's body inlined at
// the loop; user functions become separate Functions reached by Call (the inliner removes them).
// Precondition: `unit` passed semantic analysis without errors. Returns nullopt after reporting
// a diagnostic when something cannot be lowered (no shader, a light loop in a light shader, ...).
std::optional<Module> lower(const lang::TranslationUnit& unit, const Binding& binding, lang::DiagnosticSink& sink);

// For targets that keep calls (the RPU): every user function, in source order, then every
// shader; Module::entry is the last shader (0 when there is none). Calls stay calls; a file
// without a shader is fine.
std::optional<Module> lower_program(const lang::TranslationUnit& unit, const Binding& binding, lang::DiagnosticSink& sink);

}  // namespace passlab::ir
