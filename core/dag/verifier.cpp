// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/dag/verifier.h"

#include <fmt/format.h>

#include "core/lang/types.h"

namespace passlab::dag {

namespace {

class Verifier {
 public:
  Verifier(const FragmentDag& d, std::size_t limit) : d_(d), limit_(limit) {}

  std::vector<std::string> run() {
    nodes(d_.nodes, "node");
    nodes(d_.vertex_nodes, "vertex node");
    if (d_.nodes.empty()) {
      fail("the DAG has no nodes");
    } else if (d_.root >= d_.nodes.size()) {
      fail(fmt::format("the root n{} is not a node (the DAG has {})", d_.root, d_.nodes.size()));
    } else {
      reachability();
    }
    for (std::size_t k = 0; k < d_.vertex_outputs.size(); ++k)
      if (d_.vertex_outputs[k] >= d_.vertex_nodes.size())
        fail(fmt::format("vertex output {} is vertex node {}, which does not exist (there are {})", k, d_.vertex_outputs[k], d_.vertex_nodes.size()));
    return std::move(out_);
  }

 private:
  void fail(std::string message) {
    if (out_.size() < limit_) out_.push_back(std::move(message));
  }

  void nodes(const std::vector<Node>& list, const char* what) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Node& n = list[i];
      const std::string name = fmt::format("{} {} ({} {})", what, i, to_string(n.kind), ir::to_string(n.op));
      if (n.id != i) fail(fmt::format("{} has id {}", name, n.id));
      for (NodeId c : n.children)
        if (c >= i) fail(fmt::format("{}: operand {} does not come before it (nodes must be in topological order)", name, c));
      switch (n.kind) {
        case NodeKind::Constant: {
          const std::size_t want = static_cast<std::size_t>(std::max(1, lang::component_count(n.type)));
          if (!n.children.empty()) fail(fmt::format("{}: a constant has operands", name));
          if (n.value.size() != want) fail(fmt::format("{}: {} values for a {} ({} components)", name, n.value.size(), lang::to_string(n.type), want));
          break;
        }
        case NodeKind::Interpolant:
          if (!n.children.empty()) fail(fmt::format("{}: an interpolant has operands", name));
          if (n.vertex_output >= 0 && static_cast<std::size_t>(n.vertex_output) >= d_.vertex_outputs.size())
            fail(fmt::format("{}: vertex output {} does not exist (there are {})", name, n.vertex_output, d_.vertex_outputs.size()));
          if (n.vertex_output < 0 && n.name.empty()) fail(fmt::format("{}: an interpolant names no global", name));
          break;
        case NodeKind::Texture:
          if (n.name.empty()) fail(fmt::format("{}: a texture lookup names no texture", name));
          if (n.children.empty()) fail(fmt::format("{}: a texture lookup has no coordinates", name));
          break;
        case NodeKind::Operation:
          if (n.op == ir::Op::Const) fail(fmt::format("{}: an operation node holds a constant", name));
          if (n.op == ir::Op::LoopValue) fail(fmt::format("{}: a loop body's input outside its loop", name));
          if (n.op == ir::Op::Loop) loop(n, name);
          break;
      }
    }
  }

  // A Loop node: its body's shape, and operands for every input the body reads.
  void loop(const Node& n, const std::string& name) {
    if (!n.loop) return fail(fmt::format("{}: a loop without a body", name));
    const LoopBody& l = *n.loop;
    if (n.children.size() != static_cast<std::size_t>(l.carried + l.invariants))
      fail(fmt::format("{}: {} operands for {} carried and {} invariant values", name, n.children.size(), l.carried, l.invariants));
    if (static_cast<int>(n.aux) >= l.results) fail(fmt::format("{}: result {} of {}", name, n.aux, l.results));
    if (l.max_iterations < 1) fail(fmt::format("{}: at most {} iterations", name, l.max_iterations));
    const auto outputs = static_cast<std::size_t>(l.carried + l.results + 1);
    if (l.body.nodes.empty() || l.body.root >= l.body.nodes.size() || l.body.nodes[l.body.root].op != ir::Op::Outputs ||
        l.body.nodes[l.body.root].children.size() != outputs)
      return fail(fmt::format("{}: its body's root does not list {} outputs", name, outputs));
    for (const Node& b : l.body.nodes)
      if (b.kind == NodeKind::Operation && b.op == ir::Op::LoopValue && static_cast<int>(b.aux) >= l.carried + l.invariants)
        fail(fmt::format("{}: its body reads input {} of {}", name, b.aux, l.carried + l.invariants));
  }

  void reachability() {
    // Operands come first, so one sweep from the root down marks everything the root reaches.
    std::vector<char> reached(d_.nodes.size(), 0);
    reached[d_.root] = 1;
    for (std::size_t i = d_.root + 1; i-- > 0;)
      if (reached[i])
        for (NodeId c : d_.nodes[i].children)
          if (c < reached.size()) reached[c] = 1;
    for (std::size_t i = 0; i < reached.size(); ++i)
      if (!reached[i]) fail(fmt::format("node {} ({}) is not reached from the root n{}", i, to_string(d_.nodes[i].kind), d_.root));
  }

  const FragmentDag& d_;
  std::size_t limit_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> verify(const FragmentDag& d, std::size_t limit) { return Verifier(d, limit).run(); }

}  // namespace passlab::dag
