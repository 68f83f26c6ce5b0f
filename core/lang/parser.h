// SPDX-License-Identifier: GPL-3.0-or-later
// The recursive-descent RSL parser: tokens to a syntax tree, reporting every independent error.
#pragma once

#include <memory>
#include <vector>

#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"
#include "core/lang/token.h"

namespace passlab::lang {

// Parses a whole preprocessed token stream (ending in Eof). Always returns a tree: after an
// error the parser skips to the next statement or definition and goes on, so one run reports
// all independent errors. Nesting deeper than a fixed limit is an error, not a stack overflow.
std::unique_ptr<TranslationUnit> parse(const std::vector<Token>& tokens, DiagnosticSink& sink);

}  // namespace passlab::lang
