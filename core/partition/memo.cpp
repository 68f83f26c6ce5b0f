// Memoized VALID: the same subregion asked twice is answered once.
#include "core/partition/memo.h"

namespace passlab::partition {

namespace {

std::uint64_t hash(NodeId root, const std::vector<NodeId>& members) {
  std::uint64_t h = 1469598103934665603ULL ^ root;
  for (NodeId m : members) {
    h ^= m + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

Check MemoBackend::valid(NodeId root, const std::vector<NodeId>& members) {
  std::uint64_t h = hash(root, members);
  auto it = table_.find(h);
  if (it != table_.end())
    for (const Entry& e : it->second)
      if (e.root == root && e.members == members) {
        ++hits_;
        return e.check;
      }
  ++misses_;
  Check c = inner_.valid(root, members);
  if (size_ >= capacity_) {
    table_.clear();
    size_ = 0;
  }
  table_[h].push_back({root, members, c});
  ++size_;
  return c;
}

}  // namespace passlab::partition
