// SPDX-License-Identifier: GPL-3.0-or-later
// What the simulator reports about a bad input file: where (file, line, column) and what.
#pragma once

#include <string>
#include <vector>

namespace passlab::sim {

struct Problem {
  std::string file;
  int line = 0, column = 0;  // 1-based; 0 when the file as a whole is at fault
  std::string message;
  // "file:line:column: error: message" (the line and column only when known).
  std::string text() const;
};

using Problems = std::vector<Problem>;

}  // namespace passlab::sim
