// SPDX-License-Identifier: GPL-3.0-or-later
// The C-style preprocessor of RSL: includes, object- and function-like macros, conditionals, #line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/lang/diagnostic.h"
#include "core/lang/token.h"

namespace passlab::lang {

struct PreprocessOptions {
  std::vector<std::string> include_paths;                    // searched after the including file's folder
  std::vector<std::pair<std::string, std::string>> defines;  // like -DNAME=VALUE ("" value means 1)
  int max_include_depth = 64;
  std::size_t max_output_tokens = 2'000'000;  // guards against exponential macro expansion
};

// Preprocesses `main` (already in `sm`) and returns the token stream the parser reads, ending in
// Eof. Included files are loaded into `sm`. Tokens keep the physical span they were read from;
// tokens produced by a macro expansion carry the span of the macro use and, in macro_definition,
// the span in the #define. `#line N ["file"]` is recorded in `sm` so diagnostics show presumed
// locations. Errors (unterminated #if, bad #include, malformed #define, ...) go to `sink`; the
// result is still a best-effort token stream.
std::vector<Token> preprocess(SourceManager& sm, FileId main, const PreprocessOptions& options,
                              DiagnosticSink& sink);

}  // namespace passlab::lang
