// SPDX-License-Identifier: GPL-3.0-or-later
// Where a JSON document is wrong: see json_error.h.
#include "core/lang/json_error.h"

#include <algorithm>
#include <utility>
#include <cctype>

#include "core/lang/diagnostics.h"

namespace passlab::lang {
namespace {

// nlohmann words errors as "[json.exception.<kind>.<id>] <reason>", and a parse error's reason as
// "parse error at line L, column C: <why>" (or "parse error at line L, column C: syntax error …").
std::string reason(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0)
    if (const std::size_t close = what.find("] "); close != std::string::npos) what.erase(0, close + 2);
  if (what.rfind("parse error", 0) == 0)
    if (const std::size_t colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
  return what;
}

bool number_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '+';
}

// The offset of `token` standing as a number in `text` (outside strings, not part of a longer
// number), or 0.
std::size_t find_number(std::string_view text, std::string_view token) {
  if (token.empty()) return 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {  // skip a string
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (!number_char(text[i]) || (i > 0 && number_char(text[i - 1]))) continue;
    std::size_t end = i;
    while (end < text.size() && number_char(text[end])) ++end;
    if (text.substr(i, end - i) == token) return i;
  }
  return 0;
}

}  // namespace

JsonError json_error(const nlohmann::json::exception& e, std::string_view text) {
  JsonError out;
  out.message = reason(e);
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    out.offset = parse->byte > 0 ? parse->byte - 1 : 0;
  } else {
    // "number overflow parsing '1e999'": the token is all there is to go by.
    const std::size_t open = out.message.find('\'');
    const std::size_t close = open == std::string::npos ? open : out.message.find('\'', open + 1);
    if (close != std::string::npos) out.offset = find_number(text, std::string_view(out.message).substr(open + 1, close - open - 1));
    if (e.id == 406) out.message = "a number too large for a double (" + out.message + ")";
  }
  return json_error_at(text, out.offset, std::move(out.message));
}

JsonError json_error_at(std::string_view text, std::size_t offset, std::string message) {
  JsonError out;
  out.message = std::move(message);
  out.offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < out.offset; ++i) {
    if (text[i] == '\n') {
      ++out.line;
      out.column = 1;
    } else {
      ++out.column;
    }
  }
  return out;
}

Diagnostic json_diagnostic(std::string code, const SourceManager& sm, FileId file, const nlohmann::json::exception& e) {
  const JsonError at = json_error(e, sm.file(file).text);
  return {Severity::Error, std::move(code), "invalid JSON: " + at.message, offset_span(sm, file, at.offset), {}};
}

std::size_t key_offset(const SourceManager& sm, FileId file, std::string_view key, std::size_t from) {
  if (file == 0 || key.empty()) return from;
  const std::string needle = "\"" + std::string(key) + "\"";
  const std::size_t at = sm.file(file).text.find(needle, from);
  return at == std::string::npos ? from : at;
}

Span key_span(const SourceManager& sm, FileId file, std::string_view key, std::size_t from) {
  if (file == 0) return {};
  const std::size_t at = key_offset(sm, file, key, from);
  const bool found = !key.empty() && sm.file(file).text.compare(at, key.size() + 2, "\"" + std::string(key) + "\"") == 0;
  return offset_span(sm, file, at, found ? static_cast<std::uint32_t>(key.size() + 2) : 1);
}

}  // namespace passlab::lang
