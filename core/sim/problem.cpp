// SPDX-License-Identifier: GPL-3.0-or-later
// Problems with input files as text, in the form compilers use so editors can jump to them.
#include "core/sim/problem.h"

namespace passlab::sim {

std::string Problem::text() const {
  std::string where = file;
  if (line > 0) {
    where += ":" + std::to_string(line);
    if (column > 0) where += ":" + std::to_string(column);
  }
  // Without a file or line there is no location to print, only the message.
  if (where.empty()) return "error: " + message;
  return where + ": error: " + message;
}

}  // namespace passlab::sim
