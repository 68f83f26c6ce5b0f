// SPDX-License-Identifier: GPL-3.0-or-later
// Source files, spans and the #line mapping from physical to presumed locations.
#include "core/lang/source.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace passlab::lang {

Span join(const Span& a, const Span& b) {
  if (!a.valid()) return b;
  if (!b.valid() || a.file != b.file) return a;
  const Span& first = a.offset <= b.offset ? a : b;
  std::uint32_t end = std::max(a.offset + a.length, b.offset + b.length);
  Span s = first;
  s.length = end - first.offset;
  return s;
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts.size()) return {};
  std::uint32_t begin = line_starts[line - 1];
  std::uint32_t end = line < line_starts.size() ? line_starts[line] : static_cast<std::uint32_t>(text.size());
  while (end > begin && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  return std::string_view(text).substr(begin, end - begin);
}

FileId SourceManager::add(std::string path, std::string text) {
  auto f = std::make_unique<SourceFile>();
  f->path = std::move(path);
  f->text = std::move(text);
  f->line_starts.push_back(0);
  for (std::uint32_t i = 0; i < f->text.size(); ++i)
    if (f->text[i] == '\n' && i + 1 < f->text.size()) f->line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<FileId>(files_.size());
}

std::optional<FileId> SourceManager::load(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot open file '" + path + "'";
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    if (error) *error = "cannot read file '" + path + "'";
    return std::nullopt;
  }
  return add(path, ss.str());
}

FileId SourceManager::find(const std::string& path) const {
  for (std::size_t i = files_.size(); i > 0; --i)
    if (files_[i - 1]->path == path) return static_cast<FileId>(i);
  return 0;
}

const SourceFile& SourceManager::file(FileId id) const {
  if (id == 0 || id > files_.size()) throw std::out_of_range("SourceManager::file: bad file id");
  return *files_[id - 1];
}

void SourceManager::add_line_directive(FileId file, std::uint32_t from_line, std::uint32_t presumed_line,
                                       std::string presumed_file) {
  if (presumed_file.empty()) {  // keep the name an earlier directive of this file gave
    for (auto it = directives_.rbegin(); it != directives_.rend(); ++it)
      if (it->file == file) {
        presumed_file = it->presumed_file;
        break;
      }
  }
  directives_.push_back({file, from_line, presumed_line, std::move(presumed_file)});
}

PresumedLoc SourceManager::presumed(const Span& span) const {
  PresumedLoc loc;
  if (span.file == 0 || span.file > files_.size()) return loc;
  loc.file = files_[span.file - 1]->path;
  loc.line = span.line;
  loc.col = span.col;
  // The last directive of this file at or before the line wins; directives arrive in line order.
  const LineDirective* best = nullptr;
  for (const auto& d : directives_)
    if (d.file == span.file && d.from_line <= span.line) best = &d;
  if (best) {
    loc.line = best->presumed_line + (span.line - best->from_line);
    if (!best->presumed_file.empty()) loc.file = best->presumed_file;
  }
  return loc;
}

}  // namespace passlab::lang
