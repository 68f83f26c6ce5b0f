// The optimal search's transposition table: a number per search state (a bound on the cost of
// its completions), keyed by the state's words (see optimal.cpp). The keys live in one arena and an
// open-addressing index points at them, so a table of millions of states is a few allocations:
// it clears and frees at once (a map of vector keys took seconds to free after a proof) and costs
// no allocator overhead per state. Keys are compared in full: the search stays exact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace passlab::partition {

class StateTable {
 public:
  explicit StateTable(std::size_t capacity) : capacity_(capacity) {}

  static constexpr std::uint32_t kFull = ~std::uint32_t{0};

  // The slot of `key`, and *found = true when it was stored before; a new key is stored with
  // `value` (*found = false), unless the table is at its capacity: then kFull. Slots stay valid
  // until clear().
  std::uint32_t find_or_add(const std::vector<std::uint32_t>& key, double value, bool* found) {
    if (index_.empty()) index_.assign(1024, kEmpty);
    const std::uint64_t h = hash(key);
    const std::size_t mask = index_.size() - 1;
    std::size_t i = h & mask;
    for (; index_[i] != kEmpty; i = (i + 1) & mask) {
      const Entry& e = entries_[index_[i]];
      if (e.hash == h && e.size == key.size() &&
          std::equal(key.begin(), key.end(), arena_.begin() + static_cast<std::ptrdiff_t>(e.offset))) {
        *found = true;
        return index_[i];
      }
    }
    *found = false;
    if (entries_.size() >= capacity_ || arena_.size() + key.size() > kMaxArena) return kFull;
    const auto slot = static_cast<std::uint32_t>(entries_.size());
    index_[i] = slot;
    entries_.push_back({h, static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(key.size()), value});
    arena_.insert(arena_.end(), key.begin(), key.end());
    if (2 * entries_.size() > index_.size()) grow();
    return slot;
  }
  double& value(std::uint32_t slot) { return entries_[slot].value; }

  // Calls f(key words, value) for every entry.
  template <class F>
  void visit(F f) const {
    for (const Entry& e : entries_) f(std::span<const std::uint32_t>(arena_.data() + e.offset, e.size), e.value);
  }
  // Keeps the entries `keep(key words, value)` accepts, in their order (slots change).
  template <class Keep>
  void retain(Keep keep) {
    std::vector<Entry> kept;
    std::vector<std::uint32_t> arena;
    for (const Entry& e : entries_) {
      const std::uint32_t* words = arena_.data() + e.offset;
      if (!keep(std::span<const std::uint32_t>(words, e.size), e.value)) continue;
      kept.push_back({e.hash, static_cast<std::uint32_t>(arena.size()), e.size, e.value});
      arena.insert(arena.end(), words, words + e.size);
    }
    entries_ = std::move(kept);
    arena_ = std::move(arena);
    std::fill(index_.begin(), index_.end(), kEmpty);
    const std::size_t mask = index_.size() - 1;
    for (std::uint32_t n = 0; n < entries_.size(); ++n) {
      std::size_t i = entries_[n].hash & mask;
      while (index_[i] != kEmpty) i = (i + 1) & mask;
      index_[i] = n;
    }
  }

  void clear() {
    entries_.clear();
    arena_.clear();
    std::fill(index_.begin(), index_.end(), kEmpty);
  }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {  // 24 bytes
    std::uint64_t hash;
    std::uint32_t offset;  // the key's words in arena_ (a table of 8 million states uses ~50 million)
    std::uint32_t size;
    double value;
  };
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  static constexpr std::size_t kMaxArena = std::uint32_t{0xffffffff};  // offsets are 32 bits

  static std::uint64_t hash(const std::vector<std::uint32_t>& k) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the words, then mixed
    for (std::uint32_t v : k) h = (h ^ v) * 1099511628211ULL;
    return h ^ (h >> 29);
  }
  void grow() {
    index_.assign(index_.size() * 2, kEmpty);
    const std::size_t mask = index_.size() - 1;
    for (std::uint32_t n = 0; n < entries_.size(); ++n) {
      std::size_t i = entries_[n].hash & mask;
      while (index_[i] != kEmpty) i = (i + 1) & mask;
      index_[i] = n;
    }
  }

  std::size_t capacity_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> arena_;
  std::vector<std::uint32_t> index_;
};

}  // namespace passlab::partition
