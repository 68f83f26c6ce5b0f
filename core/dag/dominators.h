// SPDX-License-Identifier: GPL-3.0-or-later
// Dominators of a rooted DAG (root = the shader output, edges from a node to its operands) and
// the partial dominator tree (PDT) of the RDS paper, section 3.3.
#pragma once

#include <cstdint>
#include <vector>

namespace passlab::dag {

// A rooted DAG given by operand lists: children[n] are the operands of node n (a node may list
// the same operand twice). Node ids are 0..n-1; `root` reaches every node that matters.
struct Graph {
  std::vector<std::vector<std::uint32_t>> children;
  std::uint32_t root = 0;
};

constexpr std::uint32_t kNone = static_cast<std::uint32_t>(-1);

// The dominator tree: idom[root] == root; idom[n] == kNone for nodes the root does not reach.
// Computed with the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
// Algorithm", 2001) over a reverse postorder; O(n + e) per sweep and two sweeps on a DAG.
struct DominatorTree {
  std::vector<std::uint32_t> idom;
  std::vector<std::vector<std::uint32_t>> children;  // tree children, in increasing DAG-postorder
  std::vector<int> postorder;                        // DAG postorder number (children in operand order)
  bool dominates(std::uint32_t a, std::uint32_t b) const;  // not constant time: walks idom links
};
DominatorTree dominators(const Graph& g);

// Nodes with more than one distinct parent that `counts` says to consider (operations; leaves
// are free to read twice). `consider` may be empty: then every node counts.
std::vector<char> multiply_referenced(const Graph& g, const std::vector<char>& consider = {});

// The partial dominator tree: the dominator tree restricted to the root, the MR nodes and their
// immediate dominators. Each kept node's parent is its nearest kept dominator-tree ancestor.
// Children are ordered by DAG postorder (the order RDSh visits them, keeping DAG dependencies).
struct PartialDominatorTree {
  std::vector<char> kept;
  std::vector<std::uint32_t> parent;                 // kNone for the root and nodes not kept
  std::vector<std::vector<std::uint32_t>> children;  // by DAG postorder
  std::uint32_t root = 0;
};
PartialDominatorTree partial_dominator_tree(const Graph& g, const DominatorTree& dom, const std::vector<char>& mr);

}  // namespace passlab::dag
