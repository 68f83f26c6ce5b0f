// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/lang/diagnostics.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace passlab::lang {

std::string Diagnostics::summary() const {
  const auto& ds = list_.items();
  auto it = std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
  if (it == ds.end()) it = ds.begin();
  if (it == ds.end()) return "";
  std::string text = format_text(*it, sources_);
  return text.substr(0, text.find('\n'));
}

nlohmann::json Diagnostics::json() const { return to_json(list_.items(), sources_); }

Span line_span(FileId file, std::uint32_t line, std::uint32_t col, std::uint32_t length) {
  return {file, 0, line, line == 0 ? 0 : col, length};
}

Span offset_span(const SourceManager& sm, FileId file, std::size_t at, std::uint32_t length) {
  if (file == 0) return {};
  const SourceFile& f = sm.file(file);
  at = std::min(at, f.text.size());
  Span s{file, static_cast<std::uint32_t>(at), 1, 1, length};
  const auto line = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), at) - f.line_starts.begin();
  if (line > 0) {
    s.line = static_cast<std::uint32_t>(line);
    s.col = static_cast<std::uint32_t>(at - f.line_starts[static_cast<std::size_t>(line - 1)]) + 1;
  }
  // The end of a text that ends with a newline is the start of the line after it, as editors show it.
  if (at == f.text.size() && at > 0 && f.text[at - 1] == '\n') {
    ++s.line;
    s.col = 1;
  }
  return s;
}

}  // namespace passlab::lang
