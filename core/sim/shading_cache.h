// SPDX-License-Identifier: GPL-3.0-or-later
// Decoupled sampling's shading cache (Ragan-Kelley et al. 2011, §3.2): memoized shading keyed by
// (triangle, shading index), fully associative, least recently used out first, every lookup
// refreshing its entry. Sizes are in shading samples; an entry holds a block of them (one
// sample, or a 2 x 2 quad of four).
#pragma once

#include <cstdint>
#include <vector>

namespace passlab::sim {

struct ShadingKey {
  std::uint32_t triangle = 0;  // unique among the frame's triangles
  std::uint32_t space = 0;     // 0: the screen grid of the reference view; 1: a barycentric grid
  std::int32_t x = 0, y = 0;   // the block's cell in that grid
  friend bool operator==(const ShadingKey&, const ShadingKey&) = default;
};

struct CacheStats {
  long lookups = 0, hits = 0, misses = 0, evictions = 0;
  double hit_rate() const { return lookups ? static_cast<double>(hits) / static_cast<double>(lookups) : 0.0; }
  CacheStats& operator+=(const CacheStats& o);
};

class ShadingCache {
 public:
  // capacity: shading samples it holds (0: unlimited); block: samples per entry (1 or 4).
  explicit ShadingCache(long capacity = 0, int block = 1);
  struct Result {
    bool hit = false;
    std::uint32_t value = 0;  // what the entry holds (the caller's: its first run, say)
  };
  // Looks `key` up. A hit refreshes the entry; a miss stores `value_if_missed` in a new entry,
  // evicting least recently used entries until it fits.
  Result lookup(const ShadingKey& key, std::uint32_t value_if_missed);
  // Whether `key` is held, without refreshing it.
  bool contains(const ShadingKey& key) const;
  long entries() const { return live_; }
  const CacheStats& stats() const { return stats_; }
  void clear();

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  struct Node {
    ShadingKey key;
    std::uint32_t value = 0;
    std::uint32_t prev = kNone, next = kNone;  // towards the most / least recently used
  };
  std::size_t slot_of(const ShadingKey& key) const;
  std::uint32_t find(const ShadingKey& key) const;
  void erase_from_table(const ShadingKey& key);
  void insert_into_table(const ShadingKey& key, std::uint32_t node);
  void unlink(std::uint32_t n);
  void push_front(std::uint32_t n);
  void grow();

  long max_entries_;  // 0: unlimited
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> table_;  // open addressing, linear probing; kNone: empty
  std::uint32_t head_ = kNone, tail_ = kNone;  // most and least recently used
  long live_ = 0;
  CacheStats stats_;
};

}  // namespace passlab::sim
