// SPDX-License-Identifier: GPL-3.0-or-later
// The optimal search's transposition table: a number per search state (a bound on the cost of
// its completions), keyed by the state's units (16-bit numbers, see optimal.cpp), in a memory
// budget. A state is one record in an arena of fixed-size chunks: its bound, its key's length
// and its key. An open-addressing index of 64-bit slots holds a record's place and 32 bits of
// its key's hash (which also place it), so a lookup touches the index and, when the hash bits
// agree, one record: two cache misses where a table of millions of states is far larger than
// the cache (and no page walks: both live in huge pages, see page_array.h). Growing never
// copies records (a chunk is added), and clear() frees everything at once. Keys are compared
// in full: the search stays exact.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "core/partition/page_array.h"

namespace passlab::partition {

class StateTable {
 public:
  // At most about `max_bytes` of memory (records and index together).
  explicit StateTable(std::size_t max_bytes) : max_bytes_(max_bytes) {
    while (chunk_shift_ > 6 && (std::size_t{1} << chunk_shift_) * sizeof(std::uint16_t) * 4 > max_bytes_) --chunk_shift_;
    chunk_units_ = std::size_t{1} << chunk_shift_;
  }

  static constexpr std::uint32_t kFull = ~std::uint32_t{0};

  // The slot of `key`, and *found = true when it was stored before; a new key is stored with
  // `value` (*found = false), unless the table is at its memory budget: then kFull. Slots stay
  // valid until clear() or retain().
  std::uint32_t find_or_add(std::span<const std::uint16_t> key, double value, bool* found) {
    return find_or_add(key, hash(key), value, found);
  }
  // The same, with the key's hash() given (see prefetch()).
  std::uint32_t find_or_add(std::span<const std::uint16_t> key, std::uint64_t key_hash, double value, bool* found) {
    if (index_.empty()) index_ = PageArray<std::uint64_t>(kFirstIndex);
    const std::uint64_t tag = key_hash >> 32;
    const std::size_t mask = index_.size() - 1;
    std::size_t i = tag & mask;
    for (; index_[i] != 0; i = (i + 1) & mask) {
      if ((index_[i] >> 32) != tag) continue;
      const auto slot = static_cast<std::uint32_t>(index_[i] - 1);
      if (same(slot, key)) {
        *found = true;
        return slot;
      }
    }
    *found = false;
    const std::size_t units = kHeader + key.size();
    if (units > chunk_units_ || key.size() >= kUnused) return kFull;
    // Room: a new chunk when this one is full, a larger index past three quarters.
    if (chunks_.empty() || used_ + units > chunk_units_) {
      if (bytes() + chunk_units_ * sizeof(std::uint16_t) > max_bytes_) return kFull;
      if (chunks_.size() + 1 > (std::size_t{1} << 32) / chunk_units_) return kFull;  // slots are 32 bits
      add_chunk();
    }
    const bool grow = 4 * (size_ + 1) > 3 * index_.size();
    if (grow && bytes() + index_.size() * sizeof(std::uint64_t) > max_bytes_) return kFull;
    const auto slot = static_cast<std::uint32_t>((chunks_.size() - 1) * chunk_units_ + used_);
    std::uint16_t* r = chunks_.back().data() + used_;
    store(r, value);
    r[kLength] = static_cast<std::uint16_t>(key.size());
    std::memcpy(r + kHeader, key.data(), key.size() * sizeof(std::uint16_t));
    used_ += units;
    ++size_;
    index_[i] = (tag << 32) | (std::uint64_t{slot} + 1);
    if (grow) grow_index();
    return slot;
  }

  // A key's hash, for find_or_add(); prefetch() asks for its first index slot early, so the
  // lookup's cache miss overlaps whatever the caller does meanwhile (on Wood/PC6 that miss was
  // four fifths of find_or_add's time, and find_or_add a fifth of the search's).
  static std::uint64_t hash(std::span<const std::uint16_t> k) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the units, then mixed
    for (std::uint16_t v : k) h = (h ^ v) * 1099511628211ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
  }
  void prefetch(std::uint64_t key_hash) const {
    if (!index_.empty()) __builtin_prefetch(&index_[(key_hash >> 32) & (index_.size() - 1)]);
  }

  double value(std::uint32_t slot) const {
    double v;
    std::memcpy(&v, record(slot), sizeof v);
    return v;
  }
  // The slot's bound becomes the larger of it and v.
  void raise(std::uint32_t slot, double v) {
    if (v > value(slot)) store(record(slot), v);
  }

  // Calls f(key units, value) for every record, in the order they were added.
  template <class F>
  void visit(F f) const {
    for_each_record([&](std::uint32_t slot) { f(key(slot), value(slot)); });
  }
  // Keeps the records `keep(key units, value)` accepts, in their order (slots change).
  template <class Keep>
  void retain(Keep keep) {
    std::vector<PageArray<std::uint16_t>> old = std::move(chunks_);
    const std::size_t old_used = used_;
    chunks_.clear();
    used_ = 0;
    size_ = 0;
    for (std::size_t c = 0; c < old.size(); ++c) {
      const std::size_t end = c + 1 == old.size() ? old_used : chunk_units_;
      for (std::size_t at = 0; at + kHeader <= end && old[c][at + kLength] != kUnused;) {
        const std::uint16_t* r = old[c].data() + at;
        const std::size_t units = kHeader + r[kLength];
        double v;
        std::memcpy(&v, r, sizeof v);
        if (keep(std::span<const std::uint16_t>(r + kHeader, r[kLength]), v)) {
          if (chunks_.empty() || used_ + units > chunk_units_) add_chunk();
          std::memcpy(chunks_.back().data() + used_, r, units * sizeof(std::uint16_t));
          used_ += units;
          ++size_;
        }
        at += units;
      }
      old[c] = PageArray<std::uint16_t>();  // the memory goes back as the copy proceeds
    }
    std::size_t slots = kFirstIndex;
    while (4 * size_ > 3 * slots) slots *= 2;
    rebuild_index(slots);
  }

  void clear() {
    chunks_.clear();
    index_ = PageArray<std::uint64_t>();
    used_ = 0;
    size_ = 0;
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const {
    return chunks_.size() * chunk_units_ * sizeof(std::uint16_t) + index_.size() * sizeof(std::uint64_t);
  }

 private:
  static constexpr std::size_t kLength = 4;  // a record: the bound (a double, four units), the key's length, the key
  static constexpr std::size_t kHeader = 5;
  static constexpr std::size_t kFirstIndex = 16;
  static constexpr std::uint16_t kUnused = 0xffff;  // a length no record has: the chunk ends

  const std::uint16_t* record(std::uint32_t slot) const { return chunks_[slot >> chunk_shift_].data() + (slot & (chunk_units_ - 1)); }
  std::uint16_t* record(std::uint32_t slot) { return chunks_[slot >> chunk_shift_].data() + (slot & (chunk_units_ - 1)); }
  std::span<const std::uint16_t> key(std::uint32_t slot) const {
    const std::uint16_t* r = record(slot);
    return {r + kHeader, r[kLength]};
  }
  bool same(std::uint32_t slot, std::span<const std::uint16_t> k) const {
    const std::uint16_t* r = record(slot);
    return r[kLength] == k.size() && std::memcmp(r + kHeader, k.data(), k.size() * sizeof(std::uint16_t)) == 0;
  }
  static void store(std::uint16_t* r, double v) { std::memcpy(r, &v, sizeof v); }
  // Marks where the last chunk's records end (a length of kUnused), unless no record fits after
  // them: a walk over the records stops there.
  void seal() {
    if (!chunks_.empty() && used_ + kHeader <= chunk_units_) chunks_.back()[used_ + kLength] = kUnused;
  }
  void add_chunk() {
    seal();
    chunks_.emplace_back(chunk_units_);
    used_ = 0;
  }
  template <class F>
  void for_each_record(F f) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const std::size_t end = c + 1 == chunks_.size() ? used_ : chunk_units_;
      for (std::size_t at = 0; at + kHeader <= end && chunks_[c][at + kLength] != kUnused; at += kHeader + chunks_[c][at + kLength])
        f(static_cast<std::uint32_t>(c * chunk_units_ + at));
    }
  }
  // An index slot's place is its hash bits modulo the index's size, so a larger index is built
  // from the old one alone (no record is read or hashed again).
  void place(std::uint64_t entry) {
    const std::size_t mask = index_.size() - 1;
    std::size_t i = (entry >> 32) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = entry;
  }
  void grow_index() {
    PageArray<std::uint64_t> old(index_.size() * 2);
    old.swap(index_);
    for (std::uint64_t entry : old)
      if (entry != 0) place(entry);
  }
  void rebuild_index(std::size_t slots) {
    seal();
    index_ = PageArray<std::uint64_t>(slots);
    for_each_record([&](std::uint32_t slot) { place(((hash(key(slot)) >> 32) << 32) | (std::uint64_t{slot} + 1)); });
  }
  std::size_t max_bytes_;
  unsigned chunk_shift_ = 21;  // chunks of 2^21 units (4 MB), fewer in a small budget
  std::size_t chunk_units_;
  std::vector<PageArray<std::uint16_t>> chunks_;
  std::size_t used_ = 0;  // units of the last chunk in use
  std::size_t size_ = 0;
  PageArray<std::uint64_t> index_;  // (hash's high 32 bits, slot + 1); 0 is empty
};

}  // namespace passlab::partition
