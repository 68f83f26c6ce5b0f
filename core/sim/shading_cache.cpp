// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/shading_cache.h"

#include <algorithm>

namespace passlab::sim {

CacheStats& CacheStats::operator+=(const CacheStats& o) {
  lookups += o.lookups;
  hits += o.hits;
  misses += o.misses;
  evictions += o.evictions;
  return *this;
}

ShadingCache::ShadingCache(long capacity, int block) : max_entries_(capacity > 0 ? std::max(1L, capacity / std::max(1, block)) : 0) {
  table_.assign(64, kNone);
}

void ShadingCache::clear() {
  nodes_.clear();
  free_.clear();
  std::fill(table_.begin(), table_.end(), kNone);
  head_ = tail_ = kNone;
  live_ = 0;
  stats_ = {};
}

std::size_t ShadingCache::slot_of(const ShadingKey& key) const {
  std::uint64_t h = (static_cast<std::uint64_t>(key.triangle) << 1 | key.space) * 0x9e3779b97f4a7c15ull;
  h ^= (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.x)) << 32 | static_cast<std::uint32_t>(key.y)) * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 29;
  return static_cast<std::size_t>(h) & (table_.size() - 1);
}

std::uint32_t ShadingCache::find(const ShadingKey& key) const {
  for (std::size_t i = slot_of(key);; i = (i + 1) & (table_.size() - 1)) {
    const std::uint32_t n = table_[i];
    if (n == kNone) return kNone;
    if (nodes_[n].key == key) return n;
  }
}

bool ShadingCache::contains(const ShadingKey& key) const { return find(key) != kNone; }

void ShadingCache::insert_into_table(const ShadingKey& key, std::uint32_t node) {
  std::size_t i = slot_of(key);
  while (table_[i] != kNone) i = (i + 1) & (table_.size() - 1);
  table_[i] = node;
}

// Linear probing's deletion by backward shift: later entries of the run move into the hole when
// their home slot allows it, so lookups never need tombstones.
void ShadingCache::erase_from_table(const ShadingKey& key) {
  const std::size_t mask = table_.size() - 1;
  std::size_t i = slot_of(key);
  while (nodes_[table_[i]].key != key) i = (i + 1) & mask;
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask; table_[j] != kNone; j = (j + 1) & mask) {
    const std::size_t home = slot_of(nodes_[table_[j]].key);
    // j's entry may fill the hole if its home is not in (hole, j] (cyclically).
    const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = kNone;
}

void ShadingCache::unlink(std::uint32_t n) {
  Node& node = nodes_[n];
  if (node.prev != kNone) nodes_[node.prev].next = node.next;
  else head_ = node.next;
  if (node.next != kNone) nodes_[node.next].prev = node.prev;
  else tail_ = node.prev;
  node.prev = node.next = kNone;
}

void ShadingCache::push_front(std::uint32_t n) {
  Node& node = nodes_[n];
  node.prev = kNone;
  node.next = head_;
  if (head_ != kNone) nodes_[head_].prev = n;
  head_ = n;
  if (tail_ == kNone) tail_ = n;
}

void ShadingCache::grow() {
  std::vector<std::uint32_t> old;
  old.swap(table_);
  table_.assign(old.size() * 2, kNone);
  for (std::uint32_t n : old)
    if (n != kNone) insert_into_table(nodes_[n].key, n);
}

ShadingCache::Result ShadingCache::lookup(const ShadingKey& key, std::uint32_t value_if_missed) {
  ++stats_.lookups;
  const std::uint32_t found = find(key);
  if (found != kNone) {
    ++stats_.hits;
    if (head_ != found) {
      unlink(found);
      push_front(found);
    }
    return {true, nodes_[found].value};
  }
  ++stats_.misses;
  if (max_entries_ > 0 && live_ >= max_entries_) {  // evict the least recently used
    const std::uint32_t victim = tail_;
    erase_from_table(nodes_[victim].key);
    unlink(victim);
    free_.push_back(victim);
    --live_;
    ++stats_.evictions;
  }
  std::uint32_t n;
  if (!free_.empty()) {
    n = free_.back();
    free_.pop_back();
  } else {
    n = static_cast<std::uint32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[n].key = key;
  nodes_[n].value = value_if_missed;
  push_front(n);
  ++live_;
  if (static_cast<std::size_t>(live_) * 2 > table_.size()) grow();
  insert_into_table(key, n);
  return {false, value_if_missed};
}

}  // namespace passlab::sim
