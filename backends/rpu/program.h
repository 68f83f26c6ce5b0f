// SPDX-License-Identifier: GPL-3.0-or-later
// An assembled RPU program: instruction words at addresses, labels, and the entry points that
// the thesis's `.epts` file lists (every `SUBROUTINE_ENTRY_<name>` label).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/rpu/isa.h"

namespace passlab::rpu {

inline constexpr const char* kEntryPrefix = "SUBROUTINE_ENTRY_";

struct EntryPoint {
  std::string name;       // without the prefix
  std::uint32_t address = 0;
};

struct Program {
  // What the program puts in constant registers when it is loaded (`.const Cn, x, y, z, w`): the
  // columns of the coordinate systems it transforms by. The loader writes them over the scene's.
  std::map<std::uint32_t, Vec4> constants;
  std::vector<Instruction> code;
  std::map<std::string, std::uint32_t> labels;
  std::vector<EntryPoint> entries;  // in address order

  // The address of SUBROUTINE_ENTRY_<name>, or of a label spelled exactly `name`.
  std::optional<std::uint32_t> entry(const std::string& name) const;
};

// One line per entry point: "<name> <address>", in address order.
std::string epts_text(const Program& p);
// The program with addresses, labels on their own lines (its constants first): what
// `passlab-cli rpu asm` prints.
std::string listing_text(const Program& p);
// The `.const` lines that set these constants ("" when there are none).
std::string constants_text(const std::map<std::uint32_t, Vec4>& constants);

}  // namespace passlab::rpu
