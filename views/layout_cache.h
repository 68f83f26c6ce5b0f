// SPDX-License-Identifier: GPL-3.0-or-later
// A small cache of Graphviz layouts by layout_key(), shared by whoever lays graphs out (the
// compile service's DAG pictures, the pass graph): a graph laid out before is shown again
// without running dot. Thread-safe; past its capacity the oldest layout goes first.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "views/graph_layout.h"

namespace passlab::views {

class LayoutCache {
 public:
  explicit LayoutCache(std::size_t capacity) : capacity_(capacity) {}
  std::shared_ptr<const Layout> find(std::uint64_t key) const;
  void put(std::uint64_t key, std::shared_ptr<const Layout> layout);

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, std::shared_ptr<const Layout>> layouts_;
  std::vector<std::uint64_t> order_;  // oldest first
};

}  // namespace passlab::views
