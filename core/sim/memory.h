// SPDX-License-Identifier: GPL-3.0-or-later
// Large buffers (frame buffers, fragment lists): on Linux they ask for transparent huge pages, as
// first touching a fresh 4 KB page costs microseconds on a virtual machine, which for the
// megabytes of one render is tens of milliseconds.
#pragma once

#include <cstdint>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace passlab::sim {

// Reserves room for n elements in an empty vector, backed by huge pages where the kernel allows.
template <class T>
void reserve_large(std::vector<T>& v, std::size_t n) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (n * sizeof(T) < kHuge || !v.empty() || v.capacity() >= n) {
    v.reserve(n);
    return;
  }
  v.reserve(n + kHuge / sizeof(T));  // so that whole aligned huge pages lie inside
#ifdef __linux__
  std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(v.data());
  std::uintptr_t end = begin + v.capacity() * sizeof(T);
  begin = (begin + kHuge - 1) & ~(kHuge - 1);
  end &= ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

}  // namespace passlab::sim
