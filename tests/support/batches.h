// SPDX-License-Identifier: GPL-3.0-or-later
// Runs a renderer's FragmentShader (any backend's) over fragments as the renderer does: kBatch at a
// time, pass after pass, each restoring what earlier ones saved, interpolants given only where a
// pass reads them.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "core/ir/interpreter.h"
#include "core/sim/shading.h"

namespace passlab::test {

// Runs every pass of `shader` over `frags`, kBatch at a time, and returns each fragment's colour.
inline std::vector<std::array<float, 4>> run_batches(const sim::FragmentShader& shader, const std::vector<ir::FragmentInputs>& frags) {
  constexpr std::size_t kB = sim::kBatch;
  const int k = shader.interpolants();
  std::vector<std::array<float, 4>> result(frags.size());
  std::vector<std::vector<float>> buffers(static_cast<std::size_t>(shader.buffers()), std::vector<float>(frags.size() * 4));
  std::vector<float> scratch, corner(static_cast<std::size_t>(k) * 4);
  for (std::size_t at = 0; at < frags.size(); at += kB) {
    const int n = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(kB), frags.size() - at));
    std::vector<std::vector<float>> values;
    for (int j = 0; j < n; ++j) {
      shader.corner(frags[at + static_cast<std::size_t>(j)], corner.data());
      values.push_back(corner);
    }
    for (int p = 0; p < shader.passes(); ++p) {
      // Only the interpolant components the pass reads are given; the others, and the lanes past
      // n, hold junk, as they may in the renderer.
      std::vector<float> in(static_cast<std::size_t>(k) * 4 * kB, 1e30f);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < k; ++i)
          for (int c = 0; c < 4; ++c)
            if (shader.interpolant_mask(p, i) & (1u << c))
              in[(static_cast<std::size_t>(i) * 4 + static_cast<std::size_t>(c)) * kB + static_cast<std::size_t>(j)] = values[static_cast<std::size_t>(j)][static_cast<std::size_t>(i * 4 + c)];
      std::vector<const float*> in_ptr;
      for (int i = 0; i < k; ++i) in_ptr.push_back(in.data() + static_cast<std::size_t>(i) * 4 * kB);
      const auto& restores = shader.restores(p);
      std::vector<float> rest(restores.size() * 4 * kB, -7.0f), out(4 * kB);
      std::vector<const float*> rest_ptr;
      for (std::size_t r = 0; r < restores.size(); ++r) {
        for (int j = 0; j < n; ++j)
          for (int c = 0; c < 4; ++c)
            rest[(r * 4 + static_cast<std::size_t>(c)) * kB + static_cast<std::size_t>(j)] =
                buffers[static_cast<std::size_t>(restores[r])][(at + static_cast<std::size_t>(j)) * 4 + static_cast<std::size_t>(c)];
        rest_ptr.push_back(rest.data() + r * 4 * kB);
      }
      shader.run(p, n, in_ptr.data(), rest_ptr.data(), out.data(), scratch);
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < 4; ++c) {
          const float v = out[static_cast<std::size_t>(c) * kB + static_cast<std::size_t>(j)];
          if (shader.saves(p) >= 0) buffers[static_cast<std::size_t>(shader.saves(p))][(at + static_cast<std::size_t>(j)) * 4 + static_cast<std::size_t>(c)] = v;
          if (p + 1 == shader.passes()) result[at + static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] = v;
        }
    }
  }
  return result;
}

}  // namespace passlab::test
