// SPDX-License-Identifier: GPL-3.0-or-later
// Test support: diagnostics flattened to the fields a test asserts on (file, line, column,
// message), and the text the tools print.
#pragma once

#include <string>
#include <vector>

#include "core/lang/diagnostics.h"

namespace passlab::test {

struct Located {
  std::string file;
  int line = 0, column = 0;  // 0: unknown
  std::string code, message;
  std::string first_line;  // "file:line:col: error: message [code]", as printed
  const std::string& text() const { return first_line; }
};

inline std::vector<Located> located(const lang::Diagnostics& d) {
  std::vector<Located> out;
  for (const lang::Diagnostic& x : d.items()) {
    Located l;
    if (x.span.file != 0) l.file = d.sources().file(x.span.file).path;
    l.line = static_cast<int>(x.span.line);
    l.column = static_cast<int>(x.span.col);
    l.code = x.code;
    l.message = x.message;
    const std::string text = lang::format_text(x, d.sources());
    l.first_line = text.substr(0, text.find('\n'));
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace passlab::test
