// SPDX-License-Identifier: GPL-3.0-or-later
// Work shared among threads: the renderer's tiles and chunks, and triangle corners.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace passlab::sim {

inline int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Runs fn(0) ... fn(n - 1) on `threads` threads, handing out indices in order; stops handing
// them out once *cancel is set.
inline void parallel_for(int n, int threads, const std::atomic<bool>* cancel, const std::function<void(int)>& fn) {
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  if (threads <= 1 || n <= 1) {
    for (int i = 0; i < n && !cancelled(); ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < std::min(threads, n); ++t)
    pool.emplace_back([&] {
      for (int i = next++; i < n && !cancelled(); i = next++) fn(i);
    });
  for (auto& th : pool) th.join();
}

}  // namespace passlab::sim
