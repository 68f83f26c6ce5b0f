// SPDX-License-Identifier: GPL-3.0-or-later
// What hovering over a name in the editor shows: the name's declared type and frequency.
#pragma once

#include <optional>
#include <string>

#include "session/snapshot.h"

namespace passlab::session {

struct HoverInfo {
  std::string name;
  std::string type;  // "varying color", "uniform float"
  std::string kind;  // "shader parameter", "local", "global", "builtin function", ...
  std::uint32_t offset = 0, length = 0;
};

// The innermost name or call at byte `offset` of the main file, if the last compile typed it.
std::optional<HoverInfo> hover_at(const Snapshot& s, std::uint32_t offset);

}  // namespace passlab::session
