// SPDX-License-Identifier: GPL-3.0-or-later
// Where things live in RPU data memory (one 4-vector per address). The thesis leaves the layout
// to "the application that generates the scenes"; compiled code and hand-written assembly rely on
// this one:
//
//   0 .. 32767   the noise lattice, read-only: the word at (z * 32 + y) * 32 + x holds the four
//                channels of lattice point (x, y, z) of the 32^3 periodic lattice that every
//                evaluator's noise() filters (core/ir/builtin_textures.cpp)
//   32768 ...    the scene's texture images, one texel per word (texture_memory.h), then the
//                scene's records (scene_data.h)
#pragma once

#include <cstdint>
#include <vector>

#include "backends/rpu/isa.h"

namespace passlab::rpu {

inline constexpr std::uint32_t kNoiseLattice = 0;  // its first word
inline constexpr int kNoiseSize = 32;              // points per axis
inline constexpr std::uint32_t kNoiseWords = kNoiseSize * kNoiseSize * kNoiseSize;
inline constexpr std::uint32_t kTextureMemory = kNoiseLattice + kNoiseWords;  // textures, then the scene's records

// Writes the noise lattice into memory[kNoiseLattice, kNoiseLattice + kNoiseWords), growing it.
void write_noise_lattice(std::vector<Vec4>& memory);

}  // namespace passlab::rpu
