// Graph layout and the drawable graphs: Graphviz places every node, users above operands, and
// the drawable DAG mirrors the snapshot's target DAG.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app/pipeline/hover.h"
#include "app/pipeline/snapshot.h"
#include "views/draw_graph.h"
#include "views/graph_layout.h"

namespace passlab::views {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

pipeline::Request sample_request(const std::string& name, const std::string& target) {
  pipeline::Request r;
  r.path = std::string(PASSLAB_SAMPLES_DIR) + "/shaders/" + name + ".sl";
  r.text = read(r.path);
  std::string error;
  r.target = *partition::load_target(target, &error);
  r.model = *partition::parse_cost_model("15p+5t+i", &error);
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
  auto s = pipeline::build_snapshot(sample_request("bowling_pin", "PC5"));
  ASSERT_TRUE(s->has_dag());
  DrawGraph dag = make_draw_graph(*s, GraphKind::Dag);
  EXPECT_EQ(dag.nodes.size(), s->target_dag->size());
  std::size_t edges = 0;
  for (const auto& n : s->target_dag->nodes) edges += n.deps.size();
  EXPECT_EQ(dag.edges.size(), edges);
  EXPECT_EQ(dag.nodes.front().id, s->target_dag->root);  // the output is drawn first (on top)
  DrawGraph dom = make_draw_graph(*s, GraphKind::Dominators);
  DrawGraph pdt = make_draw_graph(*s, GraphKind::PartialDominators);
  EXPECT_EQ(dom.edges.size() + 1, dom.nodes.size());  // a tree
  EXPECT_EQ(pdt.edges.size() + 1, pdt.nodes.size());
  EXPECT_LT(pdt.nodes.size(), dom.nodes.size());
  Layout l = layout_graph(dag.layout_request());
  EXPECT_TRUE(l.ok) << l.error;
}

TEST(Snapshot, PartitionsLikeTheCliAndKeepsDiagnostics) {
  auto good = pipeline::build_snapshot(sample_request("wood", "PC4"));
  ASSERT_NE(good->run("rds"), nullptr);
  EXPECT_TRUE(good->run("rds")->problems.empty());
  EXPECT_EQ(good->run("rds")->listings.size(), good->run("rds")->partition.passes.size());
  auto req = sample_request("wood", "PC4");
  req.text.insert(req.text.rfind('}'), "  Ci = undefined_thing;\n");
  auto bad = pipeline::build_snapshot(req);
  EXPECT_FALSE(bad->has_dag());
  ASSERT_GT(bad->errors, 0u);
  EXPECT_TRUE(bad->messages.front().in_main_file);
  EXPECT_GT(bad->messages.front().line, 0u);
}

TEST(Hover, ShowsTypeAndFrequencyOfNames) {
  auto s = pipeline::build_snapshot(sample_request("bowling_pin", "PC5"));
  const std::string& text = s->request.text;
  auto at = static_cast<std::uint32_t>(text.find("Pobj = transform"));
  auto h = pipeline::hover_at(*s, at + 1);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->name, "Pobj");
  EXPECT_NE(h->type.find("point"), std::string::npos);
  EXPECT_NE(h->type.find("varying"), std::string::npos);
  auto call = pipeline::hover_at(*s, static_cast<std::uint32_t>(text.find("faceforward")) + 2);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->kind, "builtin function");
}

}  // namespace
}  // namespace passlab::views
