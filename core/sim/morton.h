// SPDX-License-Identifier: GPL-3.0-or-later
// The Morton (Z-order) code of a point: the bits of x and y interleaved, x in the even bits. The
// decoupled renderer visits tiles and quads in this order, as GPU rasterizers do, and keeps its
// sample buffers in it.
#pragma once

#include <cstdint>

namespace passlab::sim {

inline std::uint32_t morton(std::uint32_t x, std::uint32_t y) {
  auto spread = [](std::uint32_t v) {
    v &= 0xffff;
    v = (v | (v << 8)) & 0x00ff00ff;
    v = (v | (v << 4)) & 0x0f0f0f0f;
    v = (v | (v << 2)) & 0x33333333;
    v = (v | (v << 1)) & 0x55555555;
    return v;
  };
  return spread(x) | (spread(y) << 1);
}

}  // namespace passlab::sim
