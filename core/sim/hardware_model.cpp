// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/hardware_model.h"

#include <algorithm>
#include <cmath>

namespace passlab::sim {

int tile_side(int spp, const HardwareModel& m) {
  const double pixels = static_cast<double>(m.tile_bytes) / (static_cast<double>(std::max(1, m.sample_bytes)) * std::max(1, spp));
  return std::max(1, static_cast<int>(std::floor(std::sqrt(pixels))));
}

}  // namespace passlab::sim
