// SPDX-License-Identifier: GPL-3.0-or-later
// What a generated program may use, per backend family: the fragment pipeline's targets, the
// register combiners, and the RPU. The generator writes only what the family's backends claim to
// run, so that a refusal of a generated program is itself a finding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace passlab::conform {

enum class Family : std::uint8_t { Fragment, Combiners, Rpu };
const char* to_string(Family f);
std::optional<Family> family_from_string(std::string_view name);

struct Profile {
  Family family = Family::Fragment;
  bool varying_loops = false;   // loop bounds that differ per fragment (the RPU branches per lane)
  bool long_loops = false;      // 9 to 16 iterations with a condition that differs per fragment:
                                // targets with dynamic loops keep them as loops, others unroll them
  bool recursion = false;       // functions that call themselves (the RPU keeps calls as calls)
  bool rays = false;            // trace(): only a ray tracer runs it
  bool noise = true;            // noise(), a 3D texture on fragment targets
  bool textures = true;         // texture() of named (procedural) textures
  bool transcendental = true;   // sqrt, pow, exp, log, the trigonometric functions, division by a value
  bool user_functions = true;   // functions at file scope with output parameters, and local functions
  bool arrays = true;
  bool loops = true;            // for and while with constant or uniform trip counts
  bool light_loops = true;      // illuminance() over the bound lights
  bool vectors = true;          // points, vectors and normals beyond normalize(N) and friends
  bool sign = true;             // sign(): the RPU's is 1 at 0 where RSL says 0 (the thesis's choice)
  // Du, Dv, Deriv, area, calculatenormal, du and dv of values interpolated from the vertices
  // (what fp targets differentiate, and the RPU across its pixel quads; the combiners have none)
  bool derivatives = false;
  // Matrices that differ per fragment (rotations by a varying angle, choices, products), which
  // fp targets keep as rows; the combiners and the RPU have no matrices.
  bool matrices = false;
  // Constants the generator writes lie in [-max_constant, max_constant]; the combiners hold
  // [-1, 1] in their registers, so their programs keep values there.
  float max_constant = 4;
  bool edge_constants = true;   // 0, +-1, tiny (1e-6) and huge (1e6) constants now and then
};

// The profile of each family.
Profile profile_for(Family f);

}  // namespace passlab::conform
