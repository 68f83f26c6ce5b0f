// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/messages.h"

namespace passlab::session {

std::vector<Message> to_messages(const std::vector<lang::Diagnostic>& diagnostics, const lang::SourceManager& sources, const std::string& main_path) {
  std::vector<Message> out;
  for (const auto& d : diagnostics) {
    Message m;
    m.severity = d.severity;
    m.code = d.code;
    m.message = d.message;
    m.text = lang::format_text(d, sources);
    if (d.span.valid()) {
      const lang::SourceFile& f = sources.file(d.span.file);
      m.file = f.path;
      m.line = d.span.line;
      m.col = d.span.col;
      m.offset = d.span.offset;
      m.length = d.span.length;
      m.in_main_file = f.path == main_path;
    } else {
      m.in_main_file = false;
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace passlab::session
