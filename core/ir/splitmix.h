// SPDX-License-Identifier: GPL-3.0-or-later
// SplitMix64 (Steele, Lea and Flood 2014): a tiny, seedable generator, identical on every
// machine, for the random fragments of the checks and the simulator's sample tables.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace passlab::ir {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) / static_cast<float>(1 << 24); }  // [0, 1)
  float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }  // [0, n)
  template <class T>
  void shuffle(std::vector<T>& v) {  // Fisher–Yates
    for (int i = static_cast<int>(v.size()) - 1; i > 0; --i) std::swap(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(below(i + 1))]);
  }
};

}  // namespace passlab::ir
