// SPDX-License-Identifier: GPL-3.0-or-later
// The random program generator: well-typed RSL surface shaders by construction, for differential
// testing of the backends against the reference interpreter (after Csmith, Yang et al., PLDI 2011).
#pragma once

#include <cstdint>
#include <string>

#include "session/conform/profile.h"

namespace passlab::conform {

struct GeneratorOptions {
  std::uint64_t seed = 1;
  Family family = Family::Fragment;
  int statements = 10;  // statements at the shader's top level (nested ones come on top)
  int max_depth = 4;    // expression nesting
};

struct GeneratedProgram {
  std::string source;  // one file: user functions, then the surface shader
  std::string name;    // the shader's name, "g<family>_<seed>"
};

// The same options give the same program on every machine. The program type-checks, reads
// every variable after assigning it, ends every loop, and keeps array indices in range; what it
// uses is limited to `profile_for(options.family)`.
GeneratedProgram generate(const GeneratorOptions& options);

}  // namespace passlab::conform
