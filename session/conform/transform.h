// SPDX-License-Identifier: GPL-3.0-or-later
// Semantics-preserving transformations of a shader's text (after GraphicsFuzz, Donaldson et al.,
// OOPSLA 2017): the same program written differently, which every backend must still compile to
// the same image. Each step edits one place and parses the result again; an edit the front end
// does not accept is dropped and another place tried.
//
// The transformations:
//   identity      an expression x becomes x * 1, x + 0, x - 0, x / 1, mix(x, x, c) or (1 > 0 ? x : x)
//   function      x becomes passlab_id_<type>(x), a function returning its argument, defined
//                 before the shader
//   array         a statement's expression x is stored in an array first and read back from it
//   dead code     an unreachable branch (if (0 > 1) {...}) or an unused variable is inserted
//   reorder       two adjacent statements that share no variable are swapped
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace passlab::conform {

struct TransformOptions {
  std::uint64_t seed = 1;
  int steps = 6;  // edits applied in turn
};

struct Transformed {
  bool ok = false;
  std::string text;
  std::string summary;  // the edits made, e.g. "identity x2, reorder, dead code"
  std::string error;    // when !ok: the original does not check
};

Transformed transform(const std::string& path, const std::string& text, const TransformOptions& options,
                      const std::vector<std::string>& include_paths = {});

}  // namespace passlab::conform
