// SPDX-License-Identifier: GPL-3.0-or-later
// Partitioning problems for the tests: hand-built and random DAGs, the RDS paper's Figure 2, and
// a backend that counts operations, restores and textures against limits.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "core/partition/partition.h"
#include "core/partition/target.h"

namespace passlab::partition::test {

// What the test backends share: the problem, the limits, and the verdict on what they counted.
class TestBackend : public Backend {
 public:
  TestBackend(const Problem& p, Limits l) : p_(p), l_(l) {}
  const Limits& limits() const override { return l_; }

 protected:
  Check verdict(Check c) const {
    c.failure = exceeded(c.resources, l_);
    c.ok = c.failure.empty();
    return c;
  }
  const Problem& p_;
  Limits l_;
};

// A backend that counts: operations (members + restores), and "textures" = restores.
class CountingBackend : public TestBackend {
 public:
  CountingBackend(const Problem& p, Limits l) : TestBackend(p, l) {}
  Check valid(NodeId, const std::vector<NodeId>& members) override {
    ++calls;
    Check c;
    std::vector<char> in(p_.graph.children.size(), 0);
    for (NodeId m : members) in[m] = 1;
    std::vector<char> restored(in.size(), 0);
    for (NodeId m : members)
      for (NodeId k : p_.graph.children[m])
        if (p_.is_op[k] && !in[k] && !restored[k]) {
          restored[k] = 1;
          ++c.resources.restores;
        }
    c.resources.arithmetic = static_cast<int>(members.size());
    c.resources.texture_fetches = c.resources.restores;
    c.resources.operations = c.resources.arithmetic + c.resources.restores;
    c.resources.textures = c.resources.restores;
    return verdict(c);
  }
  long calls = 0;
};

inline Problem make(std::vector<std::vector<NodeId>> children, NodeId root, std::vector<char> is_op = {}) {
  Problem p;
  p.graph.children = std::move(children);
  p.graph.root = root;
  p.is_op = is_op.empty() ? std::vector<char>(p.graph.children.size(), 1) : std::move(is_op);
  p.labels.assign(p.graph.children.size(), "op");
  return p;
}

// A random DAG of n operations, each with one to three operands among the earlier ones; the
// last is the root.
inline Problem random_dag(std::mt19937& rng, int n) {
  std::vector<std::vector<NodeId>> kids(static_cast<std::size_t>(n));
  for (int i = 1; i < n; ++i) {
    int arity = 1 + static_cast<int>(rng() % 3);
    for (int a = 0; a < arity; ++a) kids[static_cast<std::size_t>(i)].push_back(static_cast<NodeId>(rng() % static_cast<unsigned>(i)));
  }
  return make(kids, static_cast<NodeId>(n - 1));
}

inline CostModel paper() {
  return *parse_cost_model("15p+5t+i", nullptr);
}

/* The paper's Figure 2 shape (node ids are a postorder):

        A(11)
       /     \
     B(9)    C(10)
     / \       |
   E(7) D(8)---+      D is shared by B and C
   / \
 F(6) H(5)            H is shared by F and E
 / \   |
G(2) I(4)
     / \
   K(0) L(3)  J(1) under H
*/
inline Problem figure2() {
  return make({{}, {}, {}, {}, {0, 3}, {1}, {2, 4, 5}, {6, 5}, {}, {7, 8}, {8}, {9, 10}}, 11);
}

}  // namespace passlab::partition::test
