// SPDX-License-Identifier: GPL-3.0-or-later
// A small cache of Graphviz layouts by layout_key().
#include "views/layout_cache.h"

#include <algorithm>

namespace passlab::views {

std::shared_ptr<const Layout> LayoutCache::find(std::uint64_t key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = layouts_.find(key);
  return it == layouts_.end() ? nullptr : it->second;
}

void LayoutCache::put(std::uint64_t key, std::shared_ptr<const Layout> layout) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!layouts_.count(key)) order_.push_back(key);
  layouts_[key] = std::move(layout);
  if (order_.size() > capacity_) {
    layouts_.erase(order_.front());
    order_.erase(order_.begin());
  }
}

}  // namespace passlab::views
