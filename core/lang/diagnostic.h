// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnostics: what the compiler tells the user, the sink it reports to, text and JSON forms.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/lang/source.h"

namespace passlab::lang {

enum class Severity { Note, Warning, Error };
const char* to_string(Severity s);

struct DiagnosticNote {
  Span span;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;  // stable kebab-case identifier, e.g. "undeclared-identifier"
  std::string message;
  Span span;
  std::vector<DiagnosticNote> notes;
};

// The compiler never prints: every phase reports to a sink and keeps going.
class DiagnosticSink {
 public:
  virtual ~DiagnosticSink() = default;
  virtual void report(Diagnostic d) = 0;

  void error(std::string code, Span span, std::string message);
  void warning(std::string code, Span span, std::string message);
};

// Collects diagnostics in order; stops storing after `limit` errors so a broken file cannot flood.
class DiagnosticList : public DiagnosticSink {
 public:
  explicit DiagnosticList(std::size_t limit = 200) : limit_(limit) {}
  void report(Diagnostic d) override;

  const std::vector<Diagnostic>& items() const { return items_; }
  std::size_t error_count() const { return errors_; }
  std::size_t warning_count() const { return warnings_; }
  bool has_errors() const { return errors_ > 0; }
  void clear();

 private:
  std::size_t limit_;
  std::size_t errors_ = 0;
  std::size_t warnings_ = 0;
  bool truncated_ = false;
  std::vector<Diagnostic> items_;
};

// `file:line:col: error: message`, the source line and a caret under the span, then notes.
std::string format_text(const Diagnostic& d, const SourceManager& sm);
std::string format_text(const std::vector<Diagnostic>& ds, const SourceManager& sm);
nlohmann::json to_json(const Diagnostic& d, const SourceManager& sm);
nlohmann::json to_json(const std::vector<Diagnostic>& ds, const SourceManager& sm);

}  // namespace passlab::lang
