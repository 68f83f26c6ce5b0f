// SPDX-License-Identifier: GPL-3.0-or-later
// The front end as one call: preprocess, parse and check a file into a typed syntax tree.
#pragma once

#include <memory>

#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"
#include "core/lang/preprocessor.h"

namespace passlab::lang {

struct FrontendOptions {
  PreprocessOptions preprocess;
  bool allow_recursion = false;  // see SemaOptions
};

// Runs preprocess -> parse -> sema on `file` (already in `sm`). Always returns a tree; whether it
// is usable is told by the errors reported to `sink`.
std::unique_ptr<TranslationUnit> compile(SourceManager& sm, FileId file, const FrontendOptions& options,
                                         DiagnosticSink& sink);

}  // namespace passlab::lang
