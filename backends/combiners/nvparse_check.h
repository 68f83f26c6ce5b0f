// SPDX-License-Identifier: GPL-3.0-or-later
// A checker of the programs nvparse() loads: !!RC1.0 register-combiner programs and !!TS1.0
// texture-shader programs, written from how nvparse (NVIDIA SDK, 2001-2003) scans, parses and
// validates them and from the NV_register_combiners(2) and NV_texture_shader specifications.
// Passlab checks every listing it emits with it, and a user can check a hand-written one
// (`passlab-cli combiners check FILE`).
//
// What it holds a program to, beyond nvparse's grammar:
// - nvparse dispatches on the first bytes: nothing (not even a comment) may come before the
//   header, and a file holds one program;
// - nvparse skips a word it does not know and ignores stray characters; both are errors here;
// - what nvparse passes on for the driver to reject (a dot product in an alpha portion, a
//   register written twice, a dependent texture unit reading a later one) is an error here;
// - every constant a stage or the final combiner reads is set by the program, or it would read
//   whatever an earlier program left in the GL state (fog.rgb, the fog colour, is GL state that
//   nvparse cannot set: reading it is allowed, and the listing says what to set);
// - per-stage constants need NV_register_combiners2 (nvparse ignores them without it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace passlab::combiners {

struct NvparseProblem {
  int line = 0;  // 1-based; 0 for the program as a whole
  std::string message;
};

struct NvparseOptions {
  int general_combiners = 8;          // MAX_GENERAL_COMBINERS_NV of the card (GeForce1: 2, GeForce3: 8)
  bool per_stage_constants = true;    // NV_register_combiners2
  int texture_units = 4;              // for !!TS1.0
};

// What a program configures, as the checker read it.
struct NvparseFacts {
  int general_combiners = 0;  // !!RC1.0: the general combiner stages it sets up
  int texture_units = 0;      // !!TS1.0: the units it sets up
};

// The problems of one program, !!RC1.0 or !!TS1.0 by its header (none: it loads as written).
std::vector<NvparseProblem> check_nvparse(std::string_view text, const NvparseOptions& options = {}, NvparseFacts* facts = nullptr);

// "3: message" lines, one per problem.
std::string to_text(const std::vector<NvparseProblem>& problems);

}  // namespace passlab::combiners
