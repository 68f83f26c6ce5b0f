// SPDX-License-Identifier: GPL-3.0-or-later
// Layout stability: structural node matching between two versions of a graph, and placement of
// the new nodes around the kept ones.
#include "views/stable_layout.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <unordered_map>

namespace passlab::views {

namespace {

struct Adjacency {
  std::vector<std::vector<int>> operands;                // in edge order: operand slots
  std::vector<std::vector<std::pair<int, int>>> users;   // (user, slot in the user)
};

Adjacency adjacency(const DrawGraph& g) {
  Adjacency a;
  a.operands.resize(g.nodes.size());
  a.users.resize(g.nodes.size());
  for (const auto& [from, to] : g.edges) {
    if (from >= g.nodes.size() || to >= g.nodes.size()) continue;
    a.users[to].emplace_back(static_cast<int>(from), static_cast<int>(a.operands[from].size()));
    a.operands[from].push_back(static_cast<int>(to));
  }
  return a;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}

std::uint64_t hash_text(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::uint64_t node_hash(const DrawNode& n) { return mix(hash_text(n.kind), hash_text(n.label)); }

// Operands before their users (a post-order of the edges user -> operand); tolerant of cycles.
std::vector<int> operands_first(const Adjacency& a) {
  const std::size_t n = a.operands.size();
  std::vector<int> order;
  std::vector<char> state(n, 0);
  std::vector<std::pair<int, std::size_t>> stack;
  for (std::size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack.emplace_back(static_cast<int>(root), 0);
    state[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < a.operands[v].size()) {
        const int o = a.operands[v][next++];
        if (!state[o]) {
          state[o] = 1;
          stack.emplace_back(o, 0);
        }
      } else {
        state[v] = 2;
        order.push_back(v);
        stack.pop_back();
      }
    }
  }
  return order;
}

// A node's hash from the subgraph below it, and from the uses above it.
void structural_hashes(const DrawGraph& g, const Adjacency& a, std::vector<std::uint64_t>& up,
                       std::vector<std::uint64_t>& down) {
  const std::vector<int> order = operands_first(a);
  up.assign(g.nodes.size(), 0);
  for (int v : order) {
    std::uint64_t h = node_hash(g.nodes[v]);
    for (int o : a.operands[v]) h = mix(h, up[o]);
    up[v] = h;
  }
  down.assign(g.nodes.size(), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    std::vector<std::uint64_t> uses;
    for (const auto& [u, slot] : a.users[v]) uses.push_back(mix(down[u], static_cast<std::uint64_t>(slot)));
    std::sort(uses.begin(), uses.end());
    std::uint64_t h = mix(node_hash(g.nodes[v]), uses.empty() ? 0x5151 : uses.size());
    for (auto x : uses) h = mix(h, x);
    down[v] = h;
  }
}

// Hash -> the one node that has it, or -1 when several do.
std::unordered_map<std::uint64_t, int> unique_index(const std::vector<std::uint64_t>& hashes) {
  std::unordered_map<std::uint64_t, int> out;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    auto [it, fresh] = out.emplace(hashes[i], static_cast<int>(i));
    if (!fresh) it->second = -1;
  }
  return out;
}

Point boundary(const Point& c, const DrawNode& n, const Point& toward) {
  const double dx = toward.x - c.x, dy = toward.y - c.y;
  const double len = std::hypot(dx, dy);
  if (len < 1e-9) return c;
  // The node's box, shrunk a little for round and pointed shapes.
  const double hw = n.width / 2 * (n.shape == Shape::Square ? 1.0 : 0.8), hh = n.height / 2;
  const double t = std::min(dx != 0 ? hw / std::abs(dx) : 1e300, dy != 0 ? hh / std::abs(dy) : 1e300);
  return {c.x + dx * t, c.y + dy * t};
}

// A straight edge in the shape dot produces: a cubic Bézier to the arrow's base, then the tip.
EdgePath straight_edge(const Point& a, const DrawNode& na, const Point& b, const DrawNode& nb) {
  EdgePath e;
  const Point from = boundary(a, na, b), tip = boundary(b, nb, a);
  const double dx = tip.x - from.x, dy = tip.y - from.y, len = std::hypot(dx, dy);
  const double arrow = std::min(10.0, len / 2);
  const Point base = len > 0 ? Point{tip.x - dx / len * arrow, tip.y - dy / len * arrow} : tip;
  e.bezier = {from, {from.x + (base.x - from.x) / 3, from.y + (base.y - from.y) / 3},
              {from.x + 2 * (base.x - from.x) / 3, from.y + 2 * (base.y - from.y) / 3}, base};
  e.arrow = true;
  e.tip = tip;
  return e;
}

}  // namespace

std::vector<int> match_nodes(const DrawGraph& before, const DrawGraph& after) {
  const Adjacency ab = adjacency(before), aa = adjacency(after);
  std::vector<std::uint64_t> up_b, down_b, up_a, down_a;
  structural_hashes(before, ab, up_b, down_b);
  structural_hashes(after, aa, up_a, down_a);
  std::vector<int> match(after.nodes.size(), -1);
  std::vector<char> used(before.nodes.size(), 0);
  std::deque<int> work;
  auto pair = [&](int i, int j) {
    match[i] = j;
    used[j] = 1;
    work.push_back(i);
  };
  // The same subgraph below, then the same uses above, each when unique on both sides.
  for (const auto* hashes : {&up_a, &down_a}) {
    const auto& other = hashes == &up_a ? up_b : down_b;
    const auto in_after = unique_index(*hashes), in_before = unique_index(other);
    for (std::size_t i = 0; i < after.nodes.size(); ++i) {
      if (match[i] >= 0 || in_after.at((*hashes)[i]) < 0) continue;
      auto it = in_before.find((*hashes)[i]);
      if (it != in_before.end() && it->second >= 0 && !used[it->second]) pair(static_cast<int>(i), it->second);
    }
  }
  // Next to a matched pair: the operand in the same slot, the user through the same slot.
  while (!work.empty()) {
    const int i = work.front();
    work.pop_front();
    const int j = match[i];
    const auto& oa = aa.operands[i];
    const auto& ob = ab.operands[j];
    for (std::size_t s = 0; s < oa.size() && s < ob.size(); ++s)
      if (match[oa[s]] < 0 && !used[ob[s]] && after.nodes[oa[s]].kind == before.nodes[ob[s]].kind) pair(oa[s], ob[s]);
    for (const auto& [u, slot] : aa.users[i]) {
      if (match[u] >= 0) continue;
      int same_label = -1, same_kind = -1, n_label = 0, n_kind = 0;
      for (const auto& [v, vslot] : ab.users[j]) {
        if (vslot != slot || used[v] || after.nodes[u].kind != before.nodes[v].kind) continue;
        ++n_kind;
        same_kind = v;
        if (after.nodes[u].label == before.nodes[v].label) {
          ++n_label;
          same_label = v;
        }
      }
      if (n_label == 1) pair(u, same_label);
      else if (n_label == 0 && n_kind == 1) pair(u, same_kind);
    }
  }
  return match;
}

std::optional<Layout> stable_layout(const DrawGraph& before, const Layout& before_layout, const DrawGraph& after,
                                    const StableLayoutOptions& options) {
  const std::size_t n = after.nodes.size();
  if (!before_layout.ok || before_layout.centers.size() != before.nodes.size() || n == 0) return std::nullopt;
  const std::vector<int> match = match_nodes(before, after);
  const int fresh = static_cast<int>(std::count(match.begin(), match.end(), -1));
  const double size = static_cast<double>(n);
  if (fresh == static_cast<int>(n) || fresh > std::max(3.0, options.max_new_fraction * size) ||
      before_layout.placed_since_dot + fresh > std::max(6.0, options.max_drift_fraction * size))
    return std::nullopt;

  Layout out;
  out.ok = true;
  out.key = layout_key(after.layout_request());
  out.derived = true;
  out.placed_since_dot = before_layout.placed_since_dot + fresh;
  out.centers.resize(n);
  std::vector<char> placed(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (match[i] >= 0) {
      out.centers[i] = before_layout.centers[match[i]];
      placed[i] = 1;
    }

  // New nodes go beside their placed neighbours: below their users, above their operands.
  const Adjacency a = adjacency(after);
  const double step = 64;
  auto overlaps = [&](std::size_t i) {
    for (std::size_t k = 0; k < n; ++k) {
      if (k == i || !placed[k]) continue;
      const double dx = std::abs(out.centers[k].x - out.centers[i].x), dy = std::abs(out.centers[k].y - out.centers[i].y);
      if (dx < (after.nodes[k].width + after.nodes[i].width) / 2 + 12 &&
          dy < (after.nodes[k].height + after.nodes[i].height) / 2 + 8)
        return true;
    }
    return false;
  };
  auto settle = [&](std::size_t i) {
    // Slide sideways, alternating right and left, to the nearest free spot.
    const Point want = out.centers[i];
    const double d = after.nodes[i].width / 2 + 16;
    for (int k = 1; overlaps(i) && k < 400; ++k)
      out.centers[i].x = want.x + (k % 2 ? 1 : -1) * d * ((k + 1) / 2);
    placed[i] = 1;
  };
  for (int remaining = fresh; remaining > 0;) {
    int progress = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      double sx = 0, max_user_y = -1e300, min_operand_y = 1e300;
      int count = 0;
      for (const auto& [u, slot] : a.users[i])
        if (placed[u]) {
          sx += out.centers[u].x;
          max_user_y = std::max(max_user_y, out.centers[u].y);
          ++count;
        }
      for (int o : a.operands[i])
        if (placed[o]) {
          sx += out.centers[o].x;
          min_operand_y = std::min(min_operand_y, out.centers[o].y);
          ++count;
        }
      if (count == 0) continue;
      out.centers[i] = {sx / count, max_user_y > -1e300 ? max_user_y + step : min_operand_y - step};
      settle(i);
      ++progress;
      --remaining;
    }
    if (progress == 0) {
      // New nodes with no placed neighbour at all: a row under the graph.
      double bottom = 0, x = 0;
      for (std::size_t k = 0; k < n; ++k)
        if (placed[k]) bottom = std::max(bottom, out.centers[k].y + after.nodes[k].height / 2);
      for (std::size_t i = 0; i < n; ++i)
        if (!placed[i]) {
          out.centers[i] = {x + after.nodes[i].width / 2, bottom + step};
          x += after.nodes[i].width + 16;
          settle(i);
          --remaining;
          break;
        }
    }
  }

  // Edges between kept nodes keep their route; the others are drawn straight.
  std::map<std::pair<int, int>, std::size_t> old_edges;
  for (std::size_t k = 0; k < before.edges.size() && k < before_layout.edges.size(); ++k)
    old_edges.emplace(std::pair<int, int>(before.edges[k].first, before.edges[k].second), k);
  out.edges.resize(after.edges.size());
  for (std::size_t k = 0; k < after.edges.size(); ++k) {
    const auto [from, to] = after.edges[k];
    if (from >= n || to >= n) continue;
    if (match[from] >= 0 && match[to] >= 0) {
      auto it = old_edges.find({match[from], match[to]});
      if (it != old_edges.end() && !before_layout.edges[it->second].bezier.empty()) {
        out.edges[k] = before_layout.edges[it->second];
        continue;
      }
    }
    out.edges[k] = straight_edge(out.centers[from], after.nodes[from], out.centers[to], after.nodes[to]);
  }

  // The extent: the old one, grown to take in whatever now lies outside it.
  double left = before_layout.left, top = before_layout.top;
  double right = left + before_layout.width, bottom = top + before_layout.height;
  for (std::size_t i = 0; i < n; ++i) {
    left = std::min(left, out.centers[i].x - after.nodes[i].width / 2);
    right = std::max(right, out.centers[i].x + after.nodes[i].width / 2);
    top = std::min(top, out.centers[i].y - after.nodes[i].height / 2);
    bottom = std::max(bottom, out.centers[i].y + after.nodes[i].height / 2);
  }
  out.left = left;
  out.top = top;
  out.width = right - left;
  out.height = bottom - top;
  return out;
}

}  // namespace passlab::views
