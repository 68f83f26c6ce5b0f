// SPDX-License-Identifier: GPL-3.0-or-later
// Where a JSON document the user wrote is wrong, for every error nlohmann's parser can raise.
//
// Scenes, targets, machines, light setups and glTF files are JSON the user writes by hand. The
// parser reports a syntax error as a parse_error with its byte offset, but a number too large for
// a double ("1e999") as an out_of_range error that carries only the offending token; both must
// become a diagnostic at a location, never an exception that escapes a loader.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/lang/diagnostic.h"
#include "core/lang/source.h"

namespace passlab::lang {

struct JsonError {
  std::size_t offset = 0;  // into the text; at most text.size()
  int line = 1;            // 1-based, from the offset
  int column = 1;
  std::string message;  // nlohmann's reason without its "[json.exception…]" and position prefix
};

// Locates and words `e`, raised while parsing `text`.
JsonError json_error(const nlohmann::json::exception& e, std::string_view text);

// A problem found in parsed JSON, placed at `offset` into its text (a reader's own checks).
JsonError json_error_at(std::string_view text, std::size_t offset, std::string message);

// The diagnostic for `e`, raised while parsing `file` (which `sm` holds): "invalid JSON: …" at
// its place, with `code` (the kind of file: "target", "scene", …).
Diagnostic json_diagnostic(std::string code, const SourceManager& sm, FileId file, const nlohmann::json::exception& e);

// nlohmann::json keeps no positions: a reader's checks point at the first "key" at or after byte
// `from` of the file instead (at `from` when there is none).
std::size_t key_offset(const SourceManager& sm, FileId file, std::string_view key, std::size_t from = 0);
Span key_span(const SourceManager& sm, FileId file, std::string_view key, std::size_t from = 0);

}  // namespace passlab::lang
