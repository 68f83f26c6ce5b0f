// SPDX-License-Identifier: GPL-3.0-or-later
// The front end as one call: preprocess, parse and check a file into a typed syntax tree.
#include "core/lang/frontend.h"

#include "core/lang/parser.h"
#include "core/lang/sema.h"

namespace passlab::lang {

std::unique_ptr<TranslationUnit> compile(SourceManager& sm, FileId file, const FrontendOptions& options,
                                         DiagnosticSink& sink) {
  std::vector<Token> tokens = preprocess(sm, file, options.preprocess, sink);
  std::unique_ptr<TranslationUnit> unit = parse(tokens, sink);
  analyze(*unit, sink, {options.allow_recursion});
  return unit;
}

}  // namespace passlab::lang
