// SPDX-License-Identifier: GPL-3.0-or-later
// The runtime's tables in RPU data memory.
#include "backends/rpu/memory_map.h"

#include "core/ir/value.h"

namespace passlab::rpu {

void write_noise_lattice(std::vector<Vec4>& memory) {
  if (memory.size() < kNoiseLattice + kNoiseWords) memory.resize(kNoiseLattice + kNoiseWords, Vec4{});
  for (int z = 0; z < kNoiseSize; ++z)
    for (int y = 0; y < kNoiseSize; ++y)
      for (int x = 0; x < kNoiseSize; ++x) {
        Vec4& w = memory[kNoiseLattice + static_cast<std::uint32_t>((z * kNoiseSize + y) * kNoiseSize + x)];
        for (int c = 0; c < 4; ++c) w[static_cast<std::size_t>(c)] = ir::noise_lattice(x, y, z, c);
      }
}

}  // namespace passlab::rpu
