// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for dominators, MR nodes and the PDT, checked against a brute-force oracle.
//
// Covered: the paper's Figure 3, small shapes, 100k-node stress shapes, random DAGs and the Wood
// sample. Graph drawings sit in /* */ blocks: a trailing backslash would continue a // comment
// onto the next line (-Wcomment).
#include "core/dag/dominators.h"

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/dag/flatten.h"
#include "core/dag/fragment_dag.h"
#include "core/lang/diagnostic.h"
#include "tests/support/samples.h"

namespace passlab::dag {
namespace {

// A graph written as text: "A: B C; B: D; C: D" gives A the operands B then C, and so on.
// Nodes are numbered in order of first appearance; the first node named is the root.
struct Named {
  Graph g;
  std::map<std::string, std::uint32_t> id;
  std::vector<std::string> name;

  explicit Named(const std::string& text) {
    std::stringstream all(text);
    std::string clause;
    bool first = true;
    while (std::getline(all, clause, ';')) {
      auto colon = clause.find(':');
      std::stringstream head(clause.substr(0, colon));
      std::string parent;
      if (!(head >> parent)) continue;
      std::uint32_t p = get(parent);
      if (first) g.root = p, first = false;
      if (colon == std::string::npos) continue;
      std::stringstream rest(clause.substr(colon + 1));
      for (std::string c; rest >> c;) {
        std::uint32_t k = get(c);
        g.children[p].push_back(k);
      }
    }
  }
  std::uint32_t get(const std::string& s) {
    auto it = id.find(s);
    if (it != id.end()) return it->second;
    auto k = static_cast<std::uint32_t>(name.size());
    id[s] = k;
    name.push_back(s);
    g.children.emplace_back();
    return k;
  }
  std::uint32_t operator[](const std::string& s) const { return id.at(s); }
  // Node names, space separated, e.g. "H E".
  std::string names(const std::vector<std::uint32_t>& ids) const {
    std::string out;
    for (std::uint32_t v : ids) out += (out.empty() ? "" : " ") + name.at(v);
    return out;
  }
  std::string names_where(const std::vector<char>& flag) const {
    std::vector<std::uint32_t> ids;
    for (std::uint32_t v = 0; v < flag.size(); ++v)
      if (flag[v]) ids.push_back(v);
    std::sort(ids.begin(), ids.end(), [&](auto a, auto b) { return name[a] < name[b]; });
    return names(ids);
  }
  std::string idom_of(const DominatorTree& t, const std::string& s) const {
    std::uint32_t d = t.idom.at(id.at(s));
    return d == kNone ? "-" : name.at(d);
  }
};

// ---------------------------------------------------------------------------------------------
// The brute-force oracle: a dominates b iff b is reachable and removing a (a != b) makes b
// unreachable from the root; idom(b) is the strict dominator of b that all the others dominate.

std::vector<char> reach(const Graph& g, std::uint32_t banned) {
  std::vector<char> seen(g.children.size(), 0);
  if (g.children.empty() || g.root == banned) return seen;
  std::vector<std::uint32_t> work{g.root};
  seen[g.root] = 1;
  while (!work.empty()) {
    std::uint32_t v = work.back();
    work.pop_back();
    for (std::uint32_t c : g.children[v])
      if (c != banned && !seen[c]) seen[c] = 1, work.push_back(c);
  }
  return seen;
}

struct Brute {
  std::vector<char> reachable;
  std::vector<std::vector<char>> dom;  // dom[a][b]: a dominates b
  std::vector<std::uint32_t> idom;

  explicit Brute(const Graph& g) {
    const std::size_t n = g.children.size();
    reachable = reach(g, kNone);
    dom.assign(n, std::vector<char>(n, 0));
    for (std::uint32_t a = 0; a < n; ++a) {
      if (!reachable[a]) continue;
      std::vector<char> without = reach(g, a);
      for (std::uint32_t b = 0; b < n; ++b) dom[a][b] = reachable[b] && (a == b || !without[b]);
    }
    idom.assign(n, kNone);
    for (std::uint32_t b = 0; b < n; ++b) {
      if (!reachable[b]) continue;
      if (b == g.root) {
        idom[b] = b;
        continue;
      }
      for (std::uint32_t a = 0; a < n; ++a) {
        if (a == b || !dom[a][b]) continue;
        bool all = true;
        for (std::uint32_t o = 0; o < n && all; ++o)
          if (o != b && dom[o][b]) all = dom[o][a];
        if (all) idom[b] = a;
      }
    }
  }
};

// Reference postorder (recursive; fine for test-sized graphs).
std::vector<int> reference_postorder(const Graph& g) {
  std::vector<int> num(g.children.size(), -1);
  std::vector<char> seen(g.children.size(), 0);
  int next = 0;
  std::function<void(std::uint32_t)> go = [&](std::uint32_t v) {
    seen[v] = 1;
    for (std::uint32_t c : g.children[v])
      if (!seen[c]) go(c);
    num[v] = next++;
  };
  if (!g.children.empty()) go(g.root);
  return num;
}

// Checks everything dominators(), multiply_referenced() and partial_dominator_tree() return on
// `g` against the brute force. `consider` is passed through to multiply_referenced().
void check_against_oracle(const Graph& g, const std::vector<char>& consider, const std::string& what) {
  SCOPED_TRACE(what);
  const std::size_t n = g.children.size();
  Brute brute(g);
  DominatorTree t = dominators(g);

  ASSERT_EQ(t.postorder, reference_postorder(g));
  for (std::uint32_t b = 0; b < n; ++b) ASSERT_EQ(t.idom[b], brute.idom[b]) << "idom of node " << b;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b)
      ASSERT_EQ(t.dominates(a, b), static_cast<bool>(brute.dom[a][b])) << a << " dominates " << b;

  // Dominator-tree children: exactly the nodes whose idom is v, in increasing postorder.
  for (std::uint32_t v = 0; v < n; ++v) {
    std::vector<std::uint32_t> want;
    for (std::uint32_t c = 0; c < n; ++c)
      if (c != g.root && brute.idom[c] == v) want.push_back(c);
    std::sort(want.begin(), want.end(), [&](auto x, auto y) { return t.postorder[x] < t.postorder[y]; });
    ASSERT_EQ(t.children[v], want) << "dominator-tree children of " << v;
  }

  // MR: more than one distinct reachable parent.
  std::vector<char> mr = multiply_referenced(g, consider);
  std::vector<char> want_mr(n, 0);
  for (std::uint32_t c = 0; c < n; ++c) {
    if (!brute.reachable[c] || (!consider.empty() && !consider[c])) continue;
    std::set<std::uint32_t> parents;
    for (std::uint32_t p = 0; p < n; ++p)
      if (brute.reachable[p] && std::count(g.children[p].begin(), g.children[p].end(), c)) parents.insert(p);
    want_mr[c] = parents.size() > 1;
  }
  ASSERT_EQ(mr, want_mr);

  // PDT: kept = root + MR + idom(MR); parent = the kept strict dominator all other kept strict
  // dominators dominate; children by postorder.
  PartialDominatorTree pdt = partial_dominator_tree(g, t, mr);
  std::vector<char> kept(n, 0);
  kept[g.root] = 1;
  for (std::uint32_t v = 0; v < n; ++v)
    if (mr[v]) kept[v] = kept[brute.idom[v]] = 1;
  ASSERT_EQ(pdt.kept, kept);
  ASSERT_EQ(pdt.root, g.root);
  for (std::uint32_t v = 0; v < n; ++v) {
    std::uint32_t want = kNone;
    if (kept[v] && v != g.root)
      for (std::uint32_t a = 0; a < n; ++a) {
        if (a == v || !kept[a] || !brute.dom[a][v]) continue;
        bool deepest = true;
        for (std::uint32_t o = 0; o < n && deepest; ++o)
          if (o != v && kept[o] && brute.dom[o][v]) deepest = brute.dom[o][a];
        if (deepest) want = a;
      }
    ASSERT_EQ(pdt.parent[v], want) << "PDT parent of " << v;
  }
  for (std::uint32_t v = 0; v < n; ++v) {
    std::vector<std::uint32_t> want;
    for (std::uint32_t c = 0; c < n; ++c)
      if (pdt.parent[c] == v) want.push_back(c);
    std::sort(want.begin(), want.end(), [&](auto x, auto y) { return t.postorder[x] < t.postorder[y]; });
    ASSERT_EQ(pdt.children[v], want) << "PDT children of " << v;
  }
}

// ---------------------------------------------------------------------------------------------
// The paper's Figures 2 and 3. The figures' pictures are not in our copy of the paper, so this
// DAG is rebuilt from what the text says about them: with A, B, H marked, subregion(F) is
// {F, G, I, K, L} (Fig. 2b); with A, E marked, H and J are computed twice (Fig. 2c, so H has a
// parent inside E's subregion and one outside it); B is the idom of H and E the idom of the MR
// nodes G and K (Fig. 3b); and H and E are both PDT children of B, H first (Fig. 3c).
/*
                  A
                 / \
                B   C
               / \
              D   E ------------.
              |   | \           |
              |   F  \          |
              |   |\  \         |
              |   | `--G        |
              |   I    |        |
              |   |\   |        |
              |   L `--K        |
              H <---------------'
              |
              J
*/
// MR nodes: G (parents E, F), K (G, I), H (D, E).
// Postorder (operands left to right): J H D K G L I F E B C A.
/*
 Dominator tree:          PDT (root, MR nodes, their idoms):
        A                        A
       / \                       |
      B   C                      B
    / | \                       / \
   H  D  E                     H   E
   |   / | \                      / \
   J  K  G  F                    K   G
            |
            I
            |
            L
*/
const char* kFigure3 = "A: B C; B: D E; D: H; E: F G H; F: G I; G: K; I: K L; H: J";

TEST(DominatorTree, PaperFigure3) {
  Named f(kFigure3);
  DominatorTree t = dominators(f.g);

  std::vector<std::uint32_t> order(f.g.children.size());
  for (std::uint32_t v = 0; v < order.size(); ++v) order[t.postorder[v]] = v;
  EXPECT_EQ(f.names(order), "J H D K G L I F E B C A");

  EXPECT_EQ(f.idom_of(t, "A"), "A");
  EXPECT_EQ(f.idom_of(t, "H"), "B");  // "Node B is the parent and therefore the immediate dominator of H."
  EXPECT_EQ(f.idom_of(t, "G"), "E");  // "Similarly, E is the immediate dominator of both G and K."
  EXPECT_EQ(f.idom_of(t, "K"), "E");
  EXPECT_EQ(f.idom_of(t, "B"), "A");
  EXPECT_EQ(f.idom_of(t, "C"), "A");
  EXPECT_EQ(f.idom_of(t, "D"), "B");
  EXPECT_EQ(f.idom_of(t, "E"), "B");
  EXPECT_EQ(f.idom_of(t, "F"), "E");
  EXPECT_EQ(f.idom_of(t, "I"), "F");
  EXPECT_EQ(f.idom_of(t, "L"), "I");
  EXPECT_EQ(f.idom_of(t, "J"), "H");

  EXPECT_EQ(f.names(t.children[f["A"]]), "B C");
  EXPECT_EQ(f.names(t.children[f["B"]]), "H D E");
  EXPECT_EQ(f.names(t.children[f["E"]]), "K G F");
  EXPECT_EQ(f.names(t.children[f["D"]]), "");

  EXPECT_TRUE(t.dominates(f["B"], f["K"]));
  EXPECT_TRUE(t.dominates(f["E"], f["E"]));
  EXPECT_FALSE(t.dominates(f["D"], f["H"]));
  EXPECT_FALSE(t.dominates(f["F"], f["G"]));
  EXPECT_FALSE(t.dominates(f["K"], f["E"]));

  std::vector<char> mr = multiply_referenced(f.g);
  EXPECT_EQ(f.names_where(mr), "G H K");

  PartialDominatorTree pdt = partial_dominator_tree(f.g, t, mr);
  EXPECT_EQ(f.names_where(pdt.kept), "A B E G H K");
  EXPECT_EQ(pdt.root, f["A"]);
  EXPECT_EQ(pdt.parent[f["A"]], kNone);
  EXPECT_EQ(pdt.parent[f["B"]], f["A"]);
  EXPECT_EQ(pdt.parent[f["H"]], f["B"]);
  EXPECT_EQ(pdt.parent[f["E"]], f["B"]);
  EXPECT_EQ(pdt.parent[f["G"]], f["E"]);
  EXPECT_EQ(pdt.parent[f["K"]], f["E"]);
  for (const char* gone : {"C", "D", "F", "I", "J", "L"}) {
    EXPECT_EQ(pdt.parent[f[gone]], kNone) << gone;
    EXPECT_TRUE(pdt.children[f[gone]].empty()) << gone;
  }
  EXPECT_EQ(f.names(pdt.children[f["A"]]), "B");
  EXPECT_EQ(f.names(pdt.children[f["B"]]), "H E");  // DAG postorder: H before E, as RDSh visits them
  EXPECT_EQ(f.names(pdt.children[f["E"]]), "K G");
  EXPECT_EQ(f.names(pdt.children[f["H"]]), "");

  check_against_oracle(f.g, {}, "figure 3");
}

// A diamond: the join's idom is the split, and the join is the only MR node.
/*
      A
     / \
    B   C
     \ /
      D
*/
TEST(DominatorTree, Diamond) {
  Named f("A: B C; B: D; C: D");
  DominatorTree t = dominators(f.g);
  EXPECT_EQ(f.idom_of(t, "D"), "A");
  EXPECT_EQ(f.names(t.children[f["A"]]), "D B C");  // postorder D B C A
  std::vector<char> mr = multiply_referenced(f.g);
  EXPECT_EQ(f.names_where(mr), "D");
  PartialDominatorTree pdt = partial_dominator_tree(f.g, t, mr);
  EXPECT_EQ(f.names_where(pdt.kept), "A D");
  EXPECT_EQ(pdt.parent[f["D"]], f["A"]);
  EXPECT_EQ(f.names(pdt.children[f["A"]]), "D");
  check_against_oracle(f.g, {}, "diamond");
}

// Two diamonds joined by chains: the PDT skips the chain nodes P and Q, which are neither MR
// nor the idom of one, and links each kept node to its nearest kept dominator.
/*
      R
      |
      P
      |
      S
     / \
    B   C
     \ /
      J        J is MR, idom S
      |
      Q
      |
      T
     / \
    X   Y
     \ /
      K        K is MR, idom T

  PDT:  R - S - J - T - K
*/
TEST(DominatorTree, StackedDiamonds) {
  Named f("R: P; P: S; S: B C; B: J; C: J; J: Q; Q: T; T: X Y; X: K; Y: K");
  DominatorTree t = dominators(f.g);
  EXPECT_EQ(f.idom_of(t, "S"), "P");
  EXPECT_EQ(f.idom_of(t, "J"), "S");
  EXPECT_EQ(f.idom_of(t, "T"), "Q");
  EXPECT_EQ(f.idom_of(t, "K"), "T");
  std::vector<char> mr = multiply_referenced(f.g);
  EXPECT_EQ(f.names_where(mr), "J K");
  PartialDominatorTree pdt = partial_dominator_tree(f.g, t, mr);
  EXPECT_EQ(f.names_where(pdt.kept), "J K R S T");
  EXPECT_EQ(pdt.parent[f["S"]], f["R"]);  // skips P
  EXPECT_EQ(pdt.parent[f["J"]], f["S"]);
  EXPECT_EQ(pdt.parent[f["T"]], f["J"]);  // skips Q
  EXPECT_EQ(pdt.parent[f["K"]], f["T"]);
  EXPECT_EQ(f.names(pdt.children[f["R"]]), "S");
  EXPECT_EQ(f.names(pdt.children[f["J"]]), "T");
  EXPECT_EQ(pdt.parent[f["P"]], kNone);
  EXPECT_EQ(pdt.parent[f["Q"]], kNone);
  check_against_oracle(f.g, {}, "stacked diamonds");
}

// A chain: every node's idom is its parent; nothing is MR; the PDT is the root alone.
//
//    A - B - C - D
TEST(DominatorTree, Chain) {
  Named f("A: B; B: C; C: D");
  DominatorTree t = dominators(f.g);
  EXPECT_EQ(f.idom_of(t, "B"), "A");
  EXPECT_EQ(f.idom_of(t, "C"), "B");
  EXPECT_EQ(f.idom_of(t, "D"), "C");
  std::vector<char> mr = multiply_referenced(f.g);
  EXPECT_EQ(f.names_where(mr), "");
  PartialDominatorTree pdt = partial_dominator_tree(f.g, t, mr);
  EXPECT_EQ(f.names_where(pdt.kept), "A");
  EXPECT_TRUE(pdt.children[f["A"]].empty());
  check_against_oracle(f.g, {}, "chain");
}

// A leaf read by two operations is MR unless `consider` leaves it out (leaves are free to read
// twice); an operation read twice stays MR.
/*
        A
       / \
      M   N
     / \ / \
    u   P   v       P is an operation; u, v and the shared T are leaves
        |
        T <- also read by M and N
*/
TEST(DominatorMultiplyReferenced, SharedLeaf) {
  Named f("A: M N; M: u P T; N: P v T; P: T");
  std::vector<char> all = multiply_referenced(f.g);
  EXPECT_EQ(f.names_where(all), "P T");
  std::vector<char> ops(f.g.children.size(), 0);
  for (const char* op : {"A", "M", "N", "P"}) ops[f[op]] = 1;
  std::vector<char> only_ops = multiply_referenced(f.g, ops);
  EXPECT_EQ(f.names_where(only_ops), "P");
  DominatorTree t = dominators(f.g);
  EXPECT_EQ(f.idom_of(t, "T"), "A");
  PartialDominatorTree pdt = partial_dominator_tree(f.g, t, only_ops);
  EXPECT_EQ(f.names_where(pdt.kept), "A P");
  check_against_oracle(f.g, ops, "shared leaf, operations only");
  check_against_oracle(f.g, {}, "shared leaf, every node");
}

// x*x: the same operand twice is one parent, not two.
/*
    A
    |
    M   (mul x, x)
    ||
    x
*/
TEST(DominatorMultiplyReferenced, DuplicateOperandIsOneParent) {
  Named f("A: M; M: x x");
  EXPECT_EQ(f.names_where(multiply_referenced(f.g)), "");
  DominatorTree t = dominators(f.g);
  EXPECT_EQ(f.idom_of(t, "x"), "M");
  EXPECT_EQ(f.names(t.children[f["M"]]), "x");
  check_against_oracle(f.g, {}, "x*x");

  // With a second, distinct reader it is MR, however many times each reader lists it.
  Named g("A: M N; M: x x; N: x x x");
  EXPECT_EQ(g.names_where(multiply_referenced(g.g)), "x");
  EXPECT_EQ(g.idom_of(dominators(g.g), "x"), "A");
  check_against_oracle(g.g, {}, "x*x and x*x*x");
}

// Nodes the root does not reach: no idom, postorder -1, never MR, never kept; their edges do not
// make reachable nodes MR. The root is not node 0 here.
/*
    U  (unreachable)     R (root)
    |  \                 |
    V   `-------------.  S
    |                  \ |
    W <- also from X    T      T's parents: S and U, but U does not count
*/
TEST(DominatorTree, UnreachableNodes) {
  Named f("U: V T; V: W; X: W; R: S; S: T");
  f.g.root = f["R"];
  DominatorTree t = dominators(f.g);
  for (const char* gone : {"U", "V", "W", "X"}) {
    EXPECT_EQ(t.idom[f[gone]], kNone) << gone;
    EXPECT_EQ(t.postorder[f[gone]], -1) << gone;
    EXPECT_TRUE(t.children[f[gone]].empty()) << gone;
    EXPECT_FALSE(t.dominates(f[gone], f[gone])) << gone;
    EXPECT_FALSE(t.dominates(f["R"], f[gone])) << gone;
  }
  EXPECT_EQ(f.idom_of(t, "R"), "R");
  EXPECT_EQ(f.idom_of(t, "T"), "S");
  std::vector<char> mr = multiply_referenced(f.g);
  EXPECT_EQ(f.names_where(mr), "");  // W has two parents, but both unreachable; T has one reachable
  PartialDominatorTree pdt = partial_dominator_tree(f.g, t, mr);
  EXPECT_EQ(f.names_where(pdt.kept), "R");
  EXPECT_EQ(pdt.root, f["R"]);

  // An MR flag on an unreachable node (from a caller's own list) is ignored by the PDT.
  std::vector<char> forced(f.g.children.size(), 0);
  forced[f["W"]] = 1;
  EXPECT_EQ(f.names_where(partial_dominator_tree(f.g, t, forced).kept), "R");
  check_against_oracle(f.g, {}, "unreachable");
}

TEST(DominatorTree, SingleNodeAndEmptyGraph) {
  Named one("A");
  DominatorTree t = dominators(one.g);
  EXPECT_EQ(t.idom, std::vector<std::uint32_t>{0});
  EXPECT_EQ(t.postorder, std::vector<int>{0});
  EXPECT_TRUE(t.dominates(0, 0));
  PartialDominatorTree pdt = partial_dominator_tree(one.g, t, multiply_referenced(one.g));
  EXPECT_EQ(pdt.kept, std::vector<char>{1});
  EXPECT_EQ(pdt.parent, std::vector<std::uint32_t>{kNone});

  Graph empty;
  DominatorTree e = dominators(empty);
  EXPECT_TRUE(e.idom.empty());
  EXPECT_TRUE(multiply_referenced(empty).empty());
  EXPECT_TRUE(partial_dominator_tree(empty, e, {}).kept.empty());
}

TEST(DominatorTree, RejectsMalformedInput) {
  Graph bad_child{{{1}, {5}}, 0};
  EXPECT_THROW(dominators(bad_child), std::invalid_argument);
  Graph bad_root{{{1}, {}}, 2};
  EXPECT_THROW(dominators(bad_root), std::invalid_argument);
  Named f("A: B");
  EXPECT_THROW(multiply_referenced(f.g, {1}), std::invalid_argument);
  DominatorTree t = dominators(f.g);
  EXPECT_THROW(partial_dominator_tree(f.g, t, {1, 0, 0}), std::invalid_argument);
  Named other("A: B C");
  EXPECT_THROW(partial_dominator_tree(other.g, t, {}), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// 100k-node shapes: deep enough that a recursive DFS would overflow the stack, and wide enough
// that anything quadratic would run into the test's timeout (the speed itself is measured in
// bench/, never asserted here).

constexpr std::uint32_t kBig = 100000;

// 0 - 1 - 2 - ... - 99999
TEST(DominatorTree, LongChainOf100kNodes) {
  Graph g;
  g.children.resize(kBig);
  for (std::uint32_t i = 0; i + 1 < kBig; ++i) g.children[i] = {i + 1};
  DominatorTree t = dominators(g);
  std::vector<char> mr = multiply_referenced(g);
  PartialDominatorTree pdt = partial_dominator_tree(g, t, mr);
  for (std::uint32_t i = 1; i < kBig; ++i) ASSERT_EQ(t.idom[i], i - 1);
  EXPECT_EQ(t.postorder[kBig - 1], 0);
  EXPECT_EQ(t.postorder[0], static_cast<int>(kBig - 1));
  EXPECT_EQ(std::count(mr.begin(), mr.end(), 1), 0);
  EXPECT_EQ(std::count(pdt.kept.begin(), pdt.kept.end(), 1), 1);
  EXPECT_TRUE(t.dominates(0, kBig - 1));
  EXPECT_FALSE(t.dominates(kBig - 1, 0));
}

// A comb: the root reads every node and each node reads the next, so every node from 2 on has
// two parents (the root and its predecessor) and its idom is the root.
/*
    0 ----+----+----+-- ...
    |     |    |    |
    1 --> 2 -> 3 -> 4 -> ...
*/
TEST(DominatorTree, CombOf100kNodes) {
  Graph g;
  g.children.resize(kBig);
  for (std::uint32_t i = 1; i < kBig; ++i) g.children[0].push_back(i);
  for (std::uint32_t i = 1; i + 1 < kBig; ++i) g.children[i] = {i + 1};
  DominatorTree t = dominators(g);
  std::vector<char> mr = multiply_referenced(g);
  PartialDominatorTree pdt = partial_dominator_tree(g, t, mr);
  for (std::uint32_t i = 1; i < kBig; ++i) ASSERT_EQ(t.idom[i], 0u);
  EXPECT_EQ(std::count(mr.begin(), mr.end(), 1), static_cast<long>(kBig - 2));
  EXPECT_EQ(pdt.children[0].size(), kBig - 2);
  // Sorted by postorder, which here is deepest first.
  EXPECT_EQ(pdt.children[0].front(), kBig - 1);
  EXPECT_EQ(pdt.children[0].back(), 2u);
}

// 33k diamonds in a row: each join's idom is the split just above it.
/*
    s0       s(k) = 3k, its arms 3k+1 and 3k+2, the join is s(k+1)
   /  \
  a0  b0
   \  /
    s1 ...
*/
TEST(DominatorTree, DiamondLadderOf100kNodes) {
  const std::uint32_t k = kBig / 3;
  Graph g;
  g.children.resize(3 * k + 1);
  for (std::uint32_t i = 0; i < k; ++i) {
    g.children[3 * i] = {3 * i + 1, 3 * i + 2};
    g.children[3 * i + 1] = {3 * i + 3};
    g.children[3 * i + 2] = {3 * i + 3};
  }
  DominatorTree t = dominators(g);
  std::vector<char> mr = multiply_referenced(g);
  PartialDominatorTree pdt = partial_dominator_tree(g, t, mr);
  for (std::uint32_t i = 1; i <= k; ++i) {
    ASSERT_EQ(t.idom[3 * i], 3 * (i - 1));
    ASSERT_TRUE(mr[3 * i]);
    ASSERT_EQ(pdt.parent[3 * i], 3 * (i - 1));
  }
}

// ---------------------------------------------------------------------------------------------
// The oracle on random DAGs. Nodes are laid out in a random topological order and given 0-4
// operands further down that order (mostly nearby, to make long paths; duplicates allowed),
// then ids are shuffled so that neither ids nor operand order match any traversal order.
// Nodes the root does not reach occur naturally. std::mt19937 is fully specified; the
// distributions are not, so the graphs may differ between standard libraries (the test does not
// depend on which graphs it gets).

Graph random_dag(std::mt19937& rng, std::uint32_t n) {
  std::vector<std::uint32_t> id(n);
  for (std::uint32_t i = 0; i < n; ++i) id[i] = i;
  std::shuffle(id.begin(), id.end(), rng);
  Graph g;
  g.children.resize(n);
  g.root = id[0];
  std::uniform_int_distribution<int> arity(0, 4);
  std::uniform_int_distribution<int> percent(0, 99);
  for (std::uint32_t pos = 0; pos + 1 < n; ++pos) {
    int k = arity(rng);
    if (pos == 0 && k == 0) k = 1;
    std::vector<std::uint32_t>& kids = g.children[id[pos]];
    for (int j = 0; j < k; ++j) {
      std::uint32_t hi = n - 1;
      if (percent(rng) < 70) hi = std::min(n - 1, pos + 4);
      std::uint32_t target = std::uniform_int_distribution<std::uint32_t>(pos + 1, hi)(rng);
      kids.push_back(id[target]);
      if (percent(rng) < 10) kids.push_back(id[target]);  // x*x
    }
  }
  return g;
}

TEST(DominatorOracle, RandomDagsMatchBruteForce) {
  std::mt19937 rng(20020901);
  std::uniform_int_distribution<std::uint32_t> size(2, 200);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    std::uint32_t n = size(rng);
    Graph g = random_dag(rng, n);
    std::vector<char> consider;
    if (trial % 3 == 0) {
      consider.resize(n);
      for (char& c : consider) c = static_cast<char>(coin(rng));
    }
    check_against_oracle(g, consider, "trial " + std::to_string(trial) + ", " + std::to_string(n) + " nodes");
    if (HasFatalFailure()) return;
  }
}

// Exhaustive: every DAG on 4 nodes in a fixed topological order 0 < 1 < 2 < 3 with root 0
// (each of the 6 forward edges present or not, 64 graphs).
TEST(DominatorOracle, EveryFourNodeDag) {
  const std::pair<std::uint32_t, std::uint32_t> edges[] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int mask = 0; mask < 64; ++mask) {
    Graph g;
    g.children.resize(4);
    for (int e = 0; e < 6; ++e)
      if (mask & (1 << e)) g.children[edges[e].first].push_back(edges[e].second);
    check_against_oracle(g, {}, "mask " + std::to_string(mask));
    if (HasFatalFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------------
// A real shader: the Wood sample's fragment DAG, checked against the brute force.

TEST(DominatorSample, WoodMatchesBruteForce) {
  auto program = test::compile_sample("wood");
  ASSERT_TRUE(program->ok()) << lang::format_text(program->diagnostics.items(), *program->sources);
  lang::DiagnosticList sink;
  auto dag = flatten(*program->module, program->binding, sink);
  ASSERT_TRUE(dag) << lang::format_text(sink.items(), *program->sources);

  Graph g;
  g.root = dag->root;
  for (const Node& node : dag->nodes) g.children.emplace_back(node.children.begin(), node.children.end());
  const std::size_t n = g.children.size();
  ASSERT_GT(n, 10u);

  DominatorTree t = dominators(g);
  Brute brute(g);
  for (std::uint32_t b = 0; b < n; ++b) {
    ASSERT_TRUE(brute.reachable[b]) << "flatten keeps only what the root reaches";
    std::uint32_t d = t.idom[b];
    ASSERT_NE(d, kNone);
    EXPECT_TRUE(brute.dom[d][b]) << "idom " << d << " of " << b;
    EXPECT_EQ(d, brute.idom[b]) << "idom of " << b;
  }

  // MR as the DAG statistics count it: operations and texture fetches with two or more parents.
  std::vector<char> consider(n, 0);
  for (const Node& node : dag->nodes)
    consider[node.id] = node.kind == NodeKind::Operation || node.kind == NodeKind::Texture;
  std::vector<char> mr = multiply_referenced(g, consider);
  EXPECT_EQ(std::count(mr.begin(), mr.end(), 1), compute_stats(*dag).mr_nodes);
  EXPECT_GT(std::count(mr.begin(), mr.end(), 1), 0) << "Wood should have shared subexpressions";

  PartialDominatorTree pdt = partial_dominator_tree(g, t, mr);
  std::vector<int> parents = dag->parent_counts();
  for (const Node& node : dag->nodes)
    if (node.kind == NodeKind::Operation && parents[node.id] > 1) {
      EXPECT_TRUE(pdt.kept[node.id]) << "MR operation " << node.id;
      EXPECT_TRUE(pdt.kept[t.idom[node.id]]) << "idom of MR operation " << node.id;
    }
  // Every PDT parent is a kept strict dominator, and the tree hangs from the root.
  for (std::uint32_t v = 0; v < n; ++v) {
    if (!pdt.kept[v] || v == g.root) continue;
    ASSERT_NE(pdt.parent[v], kNone);
    EXPECT_TRUE(pdt.kept[pdt.parent[v]]);
    EXPECT_TRUE(brute.dom[pdt.parent[v]][v] && pdt.parent[v] != v);
  }
  check_against_oracle(g, consider, "wood");
}

}  // namespace
}  // namespace passlab::dag
