// SPDX-License-Identifier: GPL-3.0-or-later
// Dominators of a rooted DAG, multiply-referenced nodes, and the RDS partial dominator tree.
//
// Terms. The DAG's edges run from a consumer (parent) to its operands (children); the root is
// the shader output. Node a *dominates* node b when every path from the root to b passes
// through a (so every node dominates itself). The *immediate dominator* idom(b) of b != root is
// the strict dominator of b that every other strict dominator of b dominates; hanging each node
// under its idom gives the *dominator tree*. A node is *multiply referenced* (MR) when it has
// more than one distinct parent. The *partial dominator tree* (PDT) of Chan et al., "Efficient
// Partitioning of Fragment Shaders for Multipass Rendering on Programmable Graphics Hardware"
// (2002), section 3.3 and Figure 3, keeps only the root, the MR nodes and their idoms; each kept
// node hangs under its nearest kept proper ancestor in the dominator tree.
//
// Why. RDS asks, for each MR node A, whether A's subregion and that of idom(A) fit one pass:
// then every reference to A can read it in that pass and the save-or-recompute question
// disappears. RDSh walks the PDT top-down and visits the PDT children of a node in DAG
// postorder, so a child is handled before the children that read it (Figure 3: H before E).
//
// Steps.
//  1. Postorder from the root, children in operand order, with an explicit stack (shader DAGs
//     can be long chains; recursion depth must not depend on the input). Unreachable nodes get
//     postorder -1. Reverse postorder lists every parent before its children.
//  2. Cooper-Harvey-Kennedy, "A Simple, Fast Dominance Algorithm" (2001): the "predecessors"
//     of a node are its reachable parents. Visit nodes in reverse postorder and set idom(b) to
//     the intersection (nearest common dominator-tree ancestor, found by walking two fingers up
//     the idom links and comparing postorder numbers) of its already-processed parents. Repeat
//     until nothing changes. On a DAG every parent is processed before its child, so the first
//     sweep is already exact and the second only confirms it.
//  3. Dominator-tree children: push nodes onto their idom's list in increasing postorder, which
//     sorts every list by postorder without a sort.
//  4. MR: count distinct reachable parents with a "last parent seen" stamp per node, so x*x
//     (the same operand twice) counts one parent.
//  5. PDT: mark the root, the reachable MR nodes and their idoms. Walk nodes in decreasing
//     postorder (a dominator always finishes after the nodes it dominates, since it is their
//     ancestor in the DFS tree) carrying each node's nearest kept strict dominator; kept nodes
//     take it as their PDT parent. Children again come out sorted by postorder.
//
// Cost. Steps 1, 3, 4 and 5 are O(n + e). Each CHK sweep is O(n + e) plus the finger walks,
// which are short on shader DAGs (the paper's O(n^2) worst case needs deep, wide cross-links).
#include "core/dag/dominators.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace passlab::dag {
namespace {

// A postorder from the root: `order` lists reachable nodes children-first; `number[v]` is v's
// index in it, or -1 when the root does not reach v.
struct Postorder {
  std::vector<std::uint32_t> order;
  std::vector<int> number;
};

void check_graph(const Graph& g) {
  const std::size_t n = g.children.size();
  if (n == 0) return;
  if (g.root >= n)
    throw std::invalid_argument("dominators: root " + std::to_string(g.root) + " out of range (" + std::to_string(n) +
                                " nodes)");
  for (std::size_t v = 0; v < n; ++v)
    for (std::uint32_t c : g.children[v])
      if (c >= n)
        throw std::invalid_argument("dominators: node " + std::to_string(v) + " has operand " + std::to_string(c) +
                                    " out of range (" + std::to_string(n) + " nodes)");
}

Postorder postorder(const Graph& g) {
  const std::size_t n = g.children.size();
  Postorder p;
  p.number.assign(n, -1);
  if (n == 0) return p;
  p.order.reserve(n);
  std::vector<char> seen(n, 0);
  // Each frame is a node and the index of the next operand to look at.
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;
  stack.emplace_back(g.root, 0);
  seen[g.root] = 1;
  while (!stack.empty()) {
    const std::uint32_t v = stack.back().first;
    const std::size_t i = stack.back().second;
    if (i < g.children[v].size()) {
      ++stack.back().second;
      const std::uint32_t c = g.children[v][i];
      if (!seen[c]) {
        seen[c] = 1;
        stack.emplace_back(c, 0);
      }
      continue;
    }
    p.number[v] = static_cast<int>(p.order.size());
    p.order.push_back(v);
    stack.pop_back();
  }
  return p;
}

}  // namespace

bool DominatorTree::dominates(std::uint32_t a, std::uint32_t b) const {
  if (a >= idom.size() || b >= idom.size() || idom[a] == kNone || idom[b] == kNone) return false;
  // Dominators have larger postorder numbers than what they dominate, so stop once we pass a.
  std::uint32_t x = b;
  while (postorder[x] < postorder[a]) {
    if (idom[x] == x) return false;  // reached the root
    x = idom[x];
  }
  return x == a;
}

DominatorTree dominators(const Graph& g) {
  check_graph(g);
  const std::size_t n = g.children.size();
  DominatorTree t;
  t.idom.assign(n, kNone);
  t.children.assign(n, {});
  Postorder po = postorder(g);
  t.postorder = po.number;
  if (n == 0) return t;

  // Parents of reachable nodes, from reachable parents only, in compressed rows.
  std::vector<std::uint32_t> start(n + 1, 0);
  for (std::uint32_t v : po.order)
    for (std::uint32_t c : g.children[v]) ++start[c + 1];
  for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<std::uint32_t> parents(start[n]);
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (std::uint32_t v : po.order)
    for (std::uint32_t c : g.children[v]) parents[fill[c]++] = v;

  const std::vector<int>& num = po.number;
  std::vector<std::uint32_t>& idom = t.idom;
  auto intersect = [&](std::uint32_t a, std::uint32_t b) {
    while (a != b) {
      while (num[a] < num[b]) a = idom[a];
      while (num[b] < num[a]) b = idom[b];
    }
    return a;
  };

  idom[g.root] = g.root;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = po.order.rbegin(); it != po.order.rend(); ++it) {
      const std::uint32_t b = *it;
      if (b == g.root) continue;
      std::uint32_t next = kNone;
      for (std::uint32_t k = start[b]; k < start[b + 1]; ++k) {
        const std::uint32_t p = parents[k];
        if (idom[p] == kNone) continue;  // not processed yet (only possible on a cycle)
        next = next == kNone ? p : intersect(p, next);
      }
      if (idom[b] != next) {
        idom[b] = next;
        changed = true;
      }
    }
  }

  for (std::uint32_t v : po.order)
    if (v != g.root) t.children[idom[v]].push_back(v);
  return t;
}

std::vector<char> multiply_referenced(const Graph& g, const std::vector<char>& consider) {
  check_graph(g);
  const std::size_t n = g.children.size();
  if (!consider.empty() && consider.size() != n)
    throw std::invalid_argument("multiply_referenced: `consider` has " + std::to_string(consider.size()) +
                                " entries for " + std::to_string(n) + " nodes");
  std::vector<char> mr(n, 0);
  if (n == 0) return mr;
  Postorder po = postorder(g);
  std::vector<int> count(n, 0);
  std::vector<std::uint32_t> last_parent(n, kNone);
  for (std::uint32_t v : po.order)
    for (std::uint32_t c : g.children[v])
      if (last_parent[c] != v) {
        last_parent[c] = v;
        ++count[c];
      }
  for (std::size_t v = 0; v < n; ++v) mr[v] = count[v] > 1 && (consider.empty() || consider[v]);
  return mr;
}

PartialDominatorTree partial_dominator_tree(const Graph& g, const DominatorTree& dom, const std::vector<char>& mr) {
  const std::size_t n = g.children.size();
  if (dom.idom.size() != n || dom.postorder.size() != n)
    throw std::invalid_argument("partial_dominator_tree: the dominator tree is for another graph");
  if (!mr.empty() && mr.size() != n)
    throw std::invalid_argument("partial_dominator_tree: `mr` has " + std::to_string(mr.size()) + " entries for " +
                                std::to_string(n) + " nodes");
  PartialDominatorTree p;
  p.kept.assign(n, 0);
  p.parent.assign(n, kNone);
  p.children.assign(n, {});
  p.root = g.root;
  if (n == 0) return p;

  p.kept[g.root] = 1;
  for (std::size_t v = 0; v < n; ++v)
    if (!mr.empty() && mr[v] && dom.idom[v] != kNone) {
      p.kept[v] = 1;
      p.kept[dom.idom[v]] = 1;
    }

  // Reachable nodes by postorder number; walking it backwards visits dominators first.
  std::size_t reachable = 0;
  for (int k : dom.postorder) reachable += k >= 0;
  std::vector<std::uint32_t> by_number(reachable, kNone);
  for (std::size_t v = 0; v < n; ++v)
    if (dom.postorder[v] >= 0) by_number.at(static_cast<std::size_t>(dom.postorder[v])) = static_cast<std::uint32_t>(v);
  std::vector<std::uint32_t> nearest(n, kNone);  // nearest kept strict dominator
  for (auto it = by_number.rbegin(); it != by_number.rend(); ++it) {
    const std::uint32_t v = *it;
    if (v == kNone || v == g.root) continue;
    const std::uint32_t d = dom.idom[v];
    nearest[v] = p.kept[d] ? d : nearest[d];
    if (p.kept[v]) p.parent[v] = nearest[v];
  }
  for (std::uint32_t v : by_number)
    if (v != kNone && v != g.root && p.kept[v]) p.children[p.parent[v]].push_back(v);
  return p;
}

}  // namespace passlab::dag
