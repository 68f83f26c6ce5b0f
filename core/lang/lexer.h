// SPDX-License-Identifier: GPL-3.0-or-later
// The hand-written lexer: one file's text to tokens (comments and line continuations removed).
#pragma once

#include <vector>

#include "core/lang/diagnostic.h"
#include "core/lang/token.h"

namespace passlab::lang {

// Lexes the whole file; the result always ends with an Eof token. Never throws on bad input:
// unknown characters, unterminated strings and comments are reported to `sink`.
std::vector<Token> lex(const SourceManager& sm, FileId file, DiagnosticSink& sink);

}  // namespace passlab::lang
