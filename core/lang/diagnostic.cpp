// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnostics: what the compiler tells the user, the sink it reports to, text and JSON forms.
#include "core/lang/diagnostic.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace passlab::lang {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}

void DiagnosticSink::error(std::string code, Span span, std::string message) {
  report({Severity::Error, std::move(code), std::move(message), span, {}});
}

void DiagnosticSink::warning(std::string code, Span span, std::string message) {
  report({Severity::Warning, std::move(code), std::move(message), span, {}});
}

void DiagnosticList::report(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  if (d.severity == Severity::Warning) ++warnings_;
  if (truncated_) return;
  if (errors_ > limit_) {
    truncated_ = true;
    items_.push_back({Severity::Error, "too-many-errors", "too many errors; stopping here", d.span, {}});
    return;
  }
  items_.push_back(std::move(d));
}

void DiagnosticList::clear() {
  items_.clear();
  errors_ = warnings_ = 0;
  truncated_ = false;
}

namespace {

void append_location(std::string& out, const Span& span, const SourceManager& sm) {
  if (span.file == 0 || span.file > sm.size()) return;
  PresumedLoc loc = sm.presumed(span);
  out += loc.file;
  if (loc.line) out += ":" + std::to_string(loc.line);
  if (loc.line && loc.col) out += ":" + std::to_string(loc.col);
  out += ": ";
}

void append_snippet(std::string& out, const Span& span, const SourceManager& sm) {
  if (!span.valid() || span.file > sm.size()) return;
  std::string_view line = sm.file(span.file).line_text(span.line);
  if (line.empty()) return;
  out += "  ";
  out += line;
  out += "\n  ";
  std::uint32_t col = std::max<std::uint32_t>(span.col, 1);
  for (std::uint32_t i = 1; i < col && i <= line.size(); ++i) out += line[i - 1] == '\t' ? '\t' : ' ';
  out += '^';
  std::uint32_t room = line.size() >= col ? static_cast<std::uint32_t>(line.size()) - col : 0;
  std::uint32_t tildes = span.length > 1 ? std::min(span.length - 1, room) : 0;
  out.append(tildes, '~');
  out += '\n';
}

nlohmann::json span_json(const Span& span, const SourceManager& sm) {
  nlohmann::json j = nlohmann::json::object();
  if (span.file == 0 || span.file > sm.size()) return j;
  PresumedLoc loc = sm.presumed(span);
  j["file"] = std::string(loc.file);
  j["line"] = loc.line;
  j["column"] = loc.col;
  j["length"] = span.length;
  return j;
}

}  // namespace

std::string format_text(const Diagnostic& d, const SourceManager& sm) {
  std::string out;
  append_location(out, d.span, sm);
  out += to_string(d.severity);
  out += ": ";
  out += d.message;
  if (!d.code.empty()) out += " [" + d.code + "]";
  out += '\n';
  append_snippet(out, d.span, sm);
  for (const auto& n : d.notes) {
    append_location(out, n.span, sm);
    out += "note: " + n.message + '\n';
    append_snippet(out, n.span, sm);
  }
  return out;
}

std::string format_text(const std::vector<Diagnostic>& ds, const SourceManager& sm) {
  std::string out;
  for (const auto& d : ds) out += format_text(d, sm);
  return out;
}

nlohmann::json to_json(const Diagnostic& d, const SourceManager& sm) {
  nlohmann::json j;
  j["severity"] = to_string(d.severity);
  j["code"] = d.code;
  j["message"] = d.message;
  j["location"] = span_json(d.span, sm);
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& n : d.notes) notes.push_back({{"message", n.message}, {"location", span_json(n.span, sm)}});
  j["notes"] = notes;
  return j;
}

nlohmann::json to_json(const std::vector<Diagnostic>& ds, const SourceManager& sm) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& d : ds) j.push_back(to_json(d, sm));
  return j;
}

}  // namespace passlab::lang
