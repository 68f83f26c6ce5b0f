// SPDX-License-Identifier: GPL-3.0-or-later
// Graph layout and the drawable graphs: Graphviz places every node, users above operands, and
// the drawable DAG mirrors the snapshot's target DAG.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <map>
#include <sstream>

#include "session/hover.h"
#include "session/snapshot.h"
#include "views/draw_graph.h"
#include "views/graph_layout.h"
#include "views/stable_layout.h"

namespace passlab::views {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

session::Request sample_request(const std::string& name, const std::string& target) {
  session::Request r;
  r.path = std::string(PASSLAB_SAMPLES_DIR) + "/shaders/" + name + ".sl";
  r.text = read(r.path);
  r.target = *partition::load_target(target, nullptr);
  r.model = *partition::parse_cost_model("15p+5t+i", nullptr);
  return r;
}

TEST(GraphLayout, PlacesUsersAboveOperandsDeterministically) {
  LayoutRequest r;
  r.nodes = {{40, 30, ""}, {40, 30, ""}, {40, 30, ""}, {40, 30, ""}};
  r.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 2}};  // a repeated edge is allowed
  Layout a = layout_graph(r), b = layout_graph(r);
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_EQ(a.centers.size(), 4u);
  EXPECT_LT(a.centers[0].y, a.centers[1].y);
  EXPECT_LT(a.centers[1].y, a.centers[3].y);
  ASSERT_EQ(a.edges.size(), r.edges.size());
  for (const auto& e : a.edges) EXPECT_EQ((e.bezier.size() - 1) % 3, 0u);
  EXPECT_EQ(a.key, b.key);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(a.centers[i].x, b.centers[i].x);
}

TEST(GraphLayout, RejectsEdgesToMissingNodes) {
  LayoutRequest r;
  r.nodes = {{40, 30, ""}};
  r.edges = {{0, 3}};
  Layout l = layout_graph(r);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.error.find("does not exist"), std::string::npos);
}

TEST(DrawGraph, MirrorsTheTargetDagAndItsDominatorTrees) {
  auto s = session::build_snapshot(sample_request("bowling_pin", "PC5"));
  ASSERT_TRUE(s->has_dag());
  DrawGraph dag = make_draw_graph(*s, GraphKind::Dag);
  EXPECT_EQ(dag.nodes.size(), s->graph().size());
  std::size_t edges = 0;
  for (const auto& n : s->graph().nodes) edges += n.deps.size();
  EXPECT_EQ(dag.edges.size(), edges);
  EXPECT_EQ(dag.nodes.front().id, s->graph().root);  // the output is drawn first (on top)
  DrawGraph dom = make_draw_graph(*s, GraphKind::Dominators);
  DrawGraph pdt = make_draw_graph(*s, GraphKind::PartialDominators);
  EXPECT_EQ(dom.edges.size() + 1, dom.nodes.size());  // a tree
  EXPECT_EQ(pdt.edges.size() + 1, pdt.nodes.size());
  EXPECT_LT(pdt.nodes.size(), dom.nodes.size());
  Layout l = layout_graph(dag.layout_request());
  EXPECT_TRUE(l.ok) << l.error;
}

// The pass graph of Wood on PC5 (dozens of passes): a node per pass sized by its cost, an edge
// for each value one pass saves and another restores, laid out in order of execution.
TEST(DrawGraph, PassGraphHasANodePerPassAndAnEdgePerSavedValueRead) {
  auto s = session::build_snapshot(sample_request("wood", "PC5"));
  const auto* run = s->run("rds");
  ASSERT_NE(run, nullptr);
  const auto& part = run->partition;
  ASSERT_GT(part.passes.size(), 40u);
  const DrawGraph g = make_pass_graph(*s, part);
  ASSERT_EQ(g.nodes.size(), part.passes.size());
  std::map<std::uint32_t, std::size_t> pass_of_root;
  for (std::size_t p = 0; p < part.passes.size(); ++p) pass_of_root[part.passes[p].root] = p;
  std::set<std::pair<std::size_t, std::size_t>> expected;  // (saving pass, restoring pass)
  for (std::size_t p = 0; p < part.passes.size(); ++p)
    for (auto v : part.passes[p].restores) {
      ASSERT_TRUE(pass_of_root.count(v)) << "a restored value no pass saves";
      expected.insert({pass_of_root[v], p});
    }
  std::set<std::pair<std::size_t, std::size_t>> drawn;
  for (const auto& [a, b] : g.edges) drawn.insert({g.nodes[a].id, g.nodes[b].id});
  EXPECT_EQ(drawn, expected);
  EXPECT_EQ(drawn.size(), g.edges.size());  // no edge twice
  // Costlier passes are drawn bigger.
  auto cost = [&](std::size_t p) {
    const auto& r = part.passes[p].resources;
    return s->request.model.cost(1, r.texture_fetches, r.arithmetic);
  };
  for (std::size_t a = 0; a < g.nodes.size(); ++a)
    for (std::size_t b = 0; b < g.nodes.size(); ++b) {
      if (cost(g.nodes[a].id) < cost(g.nodes[b].id)) {
        EXPECT_LT(g.nodes[a].width * g.nodes[a].height, g.nodes[b].width * g.nodes[b].height);
      }
    }
  // Left to right: a pass is drawn right of every pass whose value it reads.
  const Layout l = layout_graph(g.layout_request());
  ASSERT_TRUE(l.ok) << l.error;
  for (const auto& [a, b] : g.edges) EXPECT_LT(l.centers[a].x, l.centers[b].x);

  // A pass's subgraph: its members, and the values it restores as leaves.
  const DrawGraph dag = make_draw_graph(*s, GraphKind::Dag);
  for (std::size_t p = 0; p < part.passes.size(); p += 7) {
    const auto& pass = part.passes[p];
    const DrawGraph sub = make_pass_subgraph(dag, part, static_cast<int>(p));
    std::set<std::uint32_t> want(pass.members.begin(), pass.members.end());
    want.insert(pass.restores.begin(), pass.restores.end());
    std::set<std::uint32_t> got;
    for (const auto& n : sub.nodes) got.insert(n.id);
    EXPECT_EQ(got, want) << "pass " << p + 1;
    for (const auto& [a, b] : sub.edges) {
      const std::uint32_t user = sub.nodes[a].id, operand = sub.nodes[b].id;
      EXPECT_TRUE(std::binary_search(pass.members.begin(), pass.members.end(), user)) << "an edge from a restored value";
      const auto& deps = s->graph().nodes[user].deps;
      EXPECT_NE(std::find(deps.begin(), deps.end(), operand), deps.end());
    }
  }
  EXPECT_TRUE(make_pass_subgraph(dag, part, static_cast<int>(part.passes.size())).nodes.empty());
}

TEST(Snapshot, PartitionsLikeTheCliAndKeepsDiagnostics) {
  auto good = session::build_snapshot(sample_request("wood", "PC4"));
  ASSERT_NE(good->run("rds"), nullptr);
  EXPECT_TRUE(good->run("rds")->problems.empty());
  EXPECT_EQ(good->run("rds")->listings.size(), good->run("rds")->partition.passes.size());
  auto req = sample_request("wood", "PC4");
  req.text.insert(req.text.rfind('}'), "  Ci = undefined_thing;\n");
  auto bad = session::build_snapshot(req);
  EXPECT_FALSE(bad->has_dag());
  ASSERT_GT(bad->errors, 0u);
  EXPECT_TRUE(bad->messages.front().in_main_file);
  EXPECT_GT(bad->messages.front().line, 0u);
}

TEST(Hover, ShowsTypeAndFrequencyOfNames) {
  auto s = session::build_snapshot(sample_request("bowling_pin", "PC5"));
  const std::string& text = s->request.text;
  auto at = static_cast<std::uint32_t>(text.find("Pobj = transform"));
  auto h = session::hover_at(*s, at + 1);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->name, "Pobj");
  EXPECT_NE(h->type.find("point"), std::string::npos);
  EXPECT_NE(h->type.find("varying"), std::string::npos);
  auto call = session::hover_at(*s, static_cast<std::uint32_t>(text.find("faceforward")) + 2);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind, "builtin function");
}


// Replaces the first occurrence of `from` in a sample's text and builds the snapshot.
session::SnapshotPtr edited(const std::string& name, const std::string& from, const std::string& to) {
  auto r = sample_request(name, "PC5");
  const auto at = r.text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  r.text.replace(at, from.size(), to);
  return session::build_snapshot(r);
}

TEST(StableLayout, AnEditedConstantKeepsEveryNodeInPlace) {
  auto before = session::build_snapshot(sample_request("bowling_pin", "PC5"));
  auto after = edited("bowling_pin", "float Kd = .5;", "float Kd = .6;");
  ASSERT_TRUE(before->has_dag() && after->has_dag());
  const DrawGraph gb = make_draw_graph(*before, GraphKind::Dag), ga = make_draw_graph(*after, GraphKind::Dag);
  ASSERT_EQ(gb.nodes.size(), ga.nodes.size());
  const auto match = match_nodes(gb, ga);
  EXPECT_EQ(std::count(match.begin(), match.end(), -1), 0);
  const Layout lb = layout_graph(gb.layout_request());
  auto la = stable_layout(gb, lb, ga);
  ASSERT_TRUE(la.has_value());
  EXPECT_TRUE(la->derived);
  ASSERT_EQ(la->centers.size(), ga.nodes.size());
  for (std::size_t i = 0; i < ga.nodes.size(); ++i) {
    EXPECT_EQ(la->centers[i].x, lb.centers[match[i]].x);
    EXPECT_EQ(la->centers[i].y, lb.centers[match[i]].y);
  }
  // The node whose label changed is the one matched by position, not by structure.
  bool relabelled = false;
  for (std::size_t i = 0; i < ga.nodes.size(); ++i) relabelled |= ga.nodes[i].label != gb.nodes[match[i]].label;
  EXPECT_TRUE(relabelled);
}

TEST(StableLayout, ANewStatementPlacesOnlyTheNewNodesAndKeepsTheRest) {
  auto before = session::build_snapshot(sample_request("bowling_pin", "PC5"));
  auto after = edited("bowling_pin", "Ci = (Base * Label) * (Marks * Cd) + Cspec;",
                      "Ci = ((Base * Label) * (Marks * Cd) + Cspec) * 0.5;");
  ASSERT_TRUE(before->has_dag() && after->has_dag());
  const DrawGraph gb = make_draw_graph(*before, GraphKind::Dag), ga = make_draw_graph(*after, GraphKind::Dag);
  ASSERT_GT(ga.nodes.size(), gb.nodes.size());
  const Layout lb = layout_graph(gb.layout_request());
  auto la = stable_layout(gb, lb, ga);
  ASSERT_TRUE(la.has_value());
  const auto match = match_nodes(gb, ga);
  const auto fresh = std::count(match.begin(), match.end(), -1);
  EXPECT_GE(fresh, 1);
  EXPECT_LE(fresh, 3);
  EXPECT_EQ(la->placed_since_dot, fresh);
  int kept = 0;
  for (std::size_t i = 0; i < ga.nodes.size(); ++i)
    if (match[i] >= 0) {
      EXPECT_EQ(la->centers[i].x, lb.centers[match[i]].x);
      EXPECT_EQ(la->centers[i].y, lb.centers[match[i]].y);
      ++kept;
    }
  EXPECT_GE(kept, static_cast<int>(gb.nodes.size()) - 2);
  // New nodes do not sit on top of kept ones, and every edge has a route.
  for (std::size_t i = 0; i < ga.nodes.size(); ++i) {
    if (match[i] >= 0) continue;
    for (std::size_t k = 0; k < ga.nodes.size(); ++k) {
      if (k == i) continue;
      const bool overlap = std::abs(la->centers[i].x - la->centers[k].x) < (ga.nodes[i].width + ga.nodes[k].width) / 2 &&
                           std::abs(la->centers[i].y - la->centers[k].y) < (ga.nodes[i].height + ga.nodes[k].height) / 2;
      EXPECT_FALSE(overlap) << "new node " << i << " overlaps node " << k;
    }
  }
  for (const auto& e : la->edges) EXPECT_GE(e.bezier.size(), 4u);
  // Deterministic.
  auto again = stable_layout(gb, lb, ga);
  ASSERT_TRUE(again.has_value());
  for (std::size_t i = 0; i < ga.nodes.size(); ++i) EXPECT_EQ(again->centers[i].x, la->centers[i].x);
}

TEST(StableLayout, ADifferentShaderIsLaidOutAfresh) {
  auto a = session::build_snapshot(sample_request("bowling_pin", "PC5"));
  auto b = session::build_snapshot(sample_request("wood", "PC5"));
  const DrawGraph ga = make_draw_graph(*a, GraphKind::Dag), gb = make_draw_graph(*b, GraphKind::Dag);
  const Layout la = layout_graph(ga.layout_request());
  EXPECT_FALSE(stable_layout(ga, la, gb).has_value());
}

}  // namespace
}  // namespace passlab::views
