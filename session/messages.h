// SPDX-License-Identifier: GPL-3.0-or-later
// The one shape a user error takes on its way to a panel, a squiggle or a CLI line: a compiler
// diagnostic flattened, with its file, line and column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/lang/diagnostic.h"
#include "core/lang/source.h"

namespace passlab::session {

// One diagnostic of the main file, flattened for lists, squiggles and margins.
struct Message {
  lang::Severity severity = lang::Severity::Error;
  std::string code, message, file;
  std::uint32_t line = 0, col = 0, offset = 0, length = 0;  // 1-based line and column
  bool in_main_file = true;
  std::string text;  // the full formatted diagnostic (source line, caret, notes)
};

// Diagnostics flattened; those in the file `main_path` are marked in_main_file.
std::vector<Message> to_messages(const std::vector<lang::Diagnostic>& diagnostics, const lang::SourceManager& sources, const std::string& main_path);

}  // namespace passlab::session
