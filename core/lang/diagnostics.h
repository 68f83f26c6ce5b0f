// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnostics with the files they point into: what a reader of the user's files reports when no
// compile is under way (targets, machines, cost models, scenes, meshes, textures). The same shape
// as the compiler's diagnostics (severity, code, message, location, notes), printed and written as
// JSON the same way, so every user error reads alike wherever it comes from.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/lang/diagnostic.h"
#include "core/lang/source.h"

namespace passlab::lang {

class Diagnostics : public DiagnosticSink {
 public:
  void report(Diagnostic d) override { list_.report(std::move(d)); }

  // The files the diagnostics point into; a reader adds what it reads here.
  SourceManager& sources() { return sources_; }
  const SourceManager& sources() const { return sources_; }
  const std::vector<Diagnostic>& items() const { return list_.items(); }
  bool has_errors() const { return list_.has_errors(); }
  bool empty() const { return list_.items().empty(); }
  void clear() { list_.clear(); }

  // Every diagnostic as the compiler prints them: `file:line:col: error: message [code]`, then the
  // line and a caret when the text is kept.
  std::string text() const { return format_text(list_.items(), sources_); }
  // The first error's (or diagnostic's) first line, without the source line: for a status bar.
  std::string summary() const;
  nlohmann::json json() const;

 private:
  SourceManager sources_;
  DiagnosticList list_;
};

// Where in a file a diagnostic points when the reader did not keep the text (binary files, big
// meshes): a line and column (0: unknown), or the whole file.
Span line_span(FileId file, std::uint32_t line, std::uint32_t col, std::uint32_t length = 1);
inline Span file_span(FileId file) { return {file, 0, 0, 0, 0}; }
// The span of byte `at` of a file the source manager holds.
Span offset_span(const SourceManager& sm, FileId file, std::size_t at, std::uint32_t length = 1);

}  // namespace passlab::lang
