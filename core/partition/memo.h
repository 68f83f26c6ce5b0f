// SPDX-License-Identifier: GPL-3.0-or-later
// Memoized VALID: the same subregion asked twice is answered once.
#pragma once

#include <cstdint>
#include <vector>

#include "core/partition/problem.h"

namespace passlab::partition {

// Wraps a backend and remembers its answers by (root, members). RDS's trials rebuild mostly the
// same regions, and the optimal search revisits regions under different marks of unrelated
// nodes, so most questions repeat. Answers are exact (the key is compared in full), so results
// do not depend on the cache. Bounded: past `capacity` entries or kArenaWords members the cache
// starts over.
class MemoBackend : public Backend {
 public:
  explicit MemoBackend(Backend& inner, std::size_t capacity = 1 << 20);
  Check valid(NodeId root, const std::vector<NodeId>& members) override { return answer(root, members); }
  // Passes of several outputs are rare (pass merging asks about each pair once): not remembered.
  Check valid_outputs(const std::vector<NodeId>& outputs, const std::vector<NodeId>& members) override {
    return outputs.size() == 1 ? answer(outputs.front(), members) : inner_.valid_outputs(outputs, members);
  }
  // The same answer by reference, valid until the next question (no copy of its failure text).
  const Check& answer(NodeId root, const std::vector<NodeId>& members);
  const Limits& limits() const override { return inner_.limits(); }
  bool recompute(const Resources& r) const override { return inner_.recompute(r); }
  std::size_t merge(const std::vector<Resources>& candidates) const override { return inner_.merge(candidates); }
  long hits() const { return hits_; }
  long misses() const { return misses_; }

 private:
  // An answer, its members in arena_[offset, offset + size); entries with the same hash are
  // chained through `next`.
  struct Entry {
    NodeId root;
    std::uint32_t size;
    std::size_t offset;
    std::uint32_t next;
    Check check;
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  // The members remembered, at most (128 MB): large subregions would otherwise fill gigabytes
  // before the entry count is reached (Wood on PC2: 300-node questions).
  static constexpr std::size_t kArenaWords = std::size_t{1} << 25;
  // The hash of a subregion: the sum of a random key per member (no chain of dependent steps,
  // so it costs about a load and an add per member), mixed with the root.
  std::uint64_t hash(NodeId root, const std::vector<NodeId>& members);
  Backend& inner_;
  std::size_t capacity_;
  std::vector<Entry> entries_;
  std::vector<NodeId> arena_;
  // Per distinct hash, its chain's first entry (kNone: an empty slot).
  struct Head {
    std::uint64_t hash = 0;
    std::uint32_t first = kNone;
  };
  Head& find(std::uint64_t h);
  void grow();
  std::vector<Head> heads_;
  std::size_t used_heads_ = 0;
  std::vector<std::uint64_t> keys_;
  long hits_ = 0, misses_ = 0;
  std::uint32_t asker_, questions_ = 0;
};

}  // namespace passlab::partition
