// SPDX-License-Identifier: GPL-3.0-or-later
// Source files, spans and the #line mapping from physical to presumed locations.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace passlab::lang {

using FileId = std::uint32_t;  // 0 means "no file"

// A range of characters in one physical file; line and column are 1-based, 0 means unknown.
struct Span {
  FileId file = 0;
  std::uint32_t offset = 0;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  std::uint32_t length = 0;

  bool valid() const { return file != 0 && line != 0; }
  friend bool operator==(const Span&, const Span&) = default;
};

// Smallest span covering both (they must be in the same file; otherwise returns a).
Span join(const Span& a, const Span& b);

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<std::uint32_t> line_starts;  // offset of each line's first character

  std::uint32_t line_count() const { return static_cast<std::uint32_t>(line_starts.size()); }
  std::string_view line_text(std::uint32_t line) const;  // without the newline; empty if out of range
};

// Where a location appears to be after #line directives.
struct PresumedLoc {
  std::string_view file;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
};

// Owns every file the compiler read; ids stay valid for its lifetime.
class SourceManager {
 public:
  FileId add(std::string path, std::string text);
  // Reads a file from disk; on failure returns nullopt and sets *error to a readable reason.
  std::optional<FileId> load(const std::string& path, std::string* error);
  const SourceFile& file(FileId id) const;
  std::size_t size() const { return files_.size(); }
  // The file last added under `path`, or 0.
  FileId find(const std::string& path) const;

  // From physical line `from_line` of `file` on, lines are presumed to be `presumed_line`, ...
  // of `presumed_file` (an empty name keeps the current one).
  void add_line_directive(FileId file, std::uint32_t from_line, std::uint32_t presumed_line,
                          std::string presumed_file);
  PresumedLoc presumed(const Span& span) const;

 private:
  struct LineDirective {
    FileId file;
    std::uint32_t from_line;
    std::uint32_t presumed_line;
    std::string presumed_file;
  };
  std::vector<std::unique_ptr<SourceFile>> files_;
  std::vector<LineDirective> directives_;
};

}  // namespace passlab::lang
