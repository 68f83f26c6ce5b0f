// SPDX-License-Identifier: GPL-3.0-or-later
// Memoized VALID: the same subregion asked twice is answered once.
#include "core/partition/memo.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace passlab::partition {

namespace {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Every memo a number of its own, so that the numbers of its questions are told apart from
// another memo's (a trace may hear from several).
std::uint32_t next_asker() {
  static std::atomic<std::uint32_t> count{0};
  return ++count;
}

}  // namespace

MemoBackend::MemoBackend(Backend& inner, std::size_t capacity) : inner_(inner), capacity_(capacity), asker_(next_asker()) {}

std::uint64_t MemoBackend::hash(NodeId root, const std::vector<NodeId>& members) {
  NodeId top = root;
  for (NodeId m : members) top = std::max(top, m);
  while (keys_.size() <= top) keys_.push_back(splitmix(keys_.size()));
  std::uint64_t h = splitmix(keys_[root] ^ members.size());
  for (NodeId m : members) h += keys_[m];
  return h;
}

const Check& MemoBackend::answer(NodeId root, const std::vector<NodeId>& members) {
  const std::uint64_t h = hash(root, members);
  Head& head = find(h);
  for (std::uint32_t e = head.first; e != kNone; e = entries_[e].next) {
    const Entry& entry = entries_[e];
    if (entry.root == root && entry.size == members.size() && (members.empty() ||
        std::memcmp(arena_.data() + entry.offset, members.data(), members.size() * sizeof(NodeId)) == 0)) {
      ++hits_;
      return entry.check;
    }
  }
  ++misses_;
  Check c = inner_.valid(root, members);
  c.asker = asker_;
  c.question = ++questions_;  // never reused, even after the memo starts over
  if (entries_.size() >= capacity_ || arena_.size() + members.size() > kArenaWords) {
    entries_.clear();
    arena_.clear();
    std::fill(heads_.begin(), heads_.end(), Head{});
    used_heads_ = 0;
  }
  Head* slot = &find(h);  // the clear above may have emptied it
  if (slot->first == kNone) {  // a new hash: its slot is taken now
    if (2 * (used_heads_ + 1) > heads_.size()) {
      grow();
      slot = &find(h);
    }
    slot->hash = h;
    ++used_heads_;
  }
  entries_.push_back({root, static_cast<std::uint32_t>(members.size()), arena_.size(), slot->first, std::move(c)});
  slot->first = static_cast<std::uint32_t>(entries_.size() - 1);
  arena_.insert(arena_.end(), members.begin(), members.end());
  return entries_.back().check;
}

// The head of h's chain, or the empty slot where it would go (open addressing, linear probing).
MemoBackend::Head& MemoBackend::find(std::uint64_t h) {
  if (heads_.empty()) heads_.resize(1024);
  const std::size_t mask = heads_.size() - 1;
  std::size_t i = h & mask;
  while (heads_[i].first != kNone && heads_[i].hash != h) i = (i + 1) & mask;
  return heads_[i];
}

void MemoBackend::grow() {
  std::vector<Head> old(heads_.size() * 2);
  old.swap(heads_);
  for (const Head& head : old)
    if (head.first != kNone) find(head.hash) = head;
}

}  // namespace passlab::partition
