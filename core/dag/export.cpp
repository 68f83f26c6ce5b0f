// SPDX-License-Identifier: GPL-3.0-or-later
// FragmentDag output forms: JSON, Graphviz DOT drawn like the RDS paper's figures, and text.
#include "core/dag/export.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace passlab::dag {

namespace {

std::string number(float x) { return fmt::format("{:g}", x); }

std::string value_text(const Node& n) {
  if (n.value.size() == 1) return number(n.value[0]);
  std::string s = "(";
  for (std::size_t i = 0; i < n.value.size(); ++i) s += (i ? "," : "") + number(n.value[i]);
  return s + ")";
}

std::string escape_dot(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string label(const Node& n) {
  switch (n.kind) {
    case NodeKind::Interpolant: return n.name;
    case NodeKind::Constant: return value_text(n);
    case NodeKind::Texture:
      if (n.name == "$noise") return "noise";
      return n.aux ? fmt::format("{}[{}]", n.name, n.aux) : n.name;  // texture("name"[k]): from channel k
    case NodeKind::Operation:
      if (n.op == ir::Op::Builtin) return lang::to_string(static_cast<lang::Builtin>(n.aux));
      // Differences and neighbours' values by their direction, as listings name them.
      if (n.op == ir::Op::ScreenDiff) return n.aux == 0 ? "dx" : "dy";
      if (n.op == ir::Op::Neighbour) return n.aux == 0 ? "right" : "below";
      // A dynamic loop's result k, and a loop body's input k.
      if (n.op == ir::Op::Loop) return fmt::format("loop[{}]", n.aux);
      if (n.op == ir::Op::LoopValue) return fmt::format("in{}", n.aux);
      return ir::to_string(n.op);
  }
  return "?";
}

namespace {

void expression(const std::vector<Node>& nodes, NodeId id, std::string& out, std::size_t limit) {
  if (out.size() > limit) return;
  const Node& n = nodes[id];
  if (n.kind == NodeKind::Constant && n.value.size() == 16) {
    out += "M";
    return;
  }
  out += label(n);
  if (n.children.empty()) return;
  out += "(";
  for (std::size_t i = 0; i < n.children.size(); ++i) {
    if (i) out += ", ";
    expression(nodes, n.children[i], out, limit);
  }
  out += ")";
}

}  // namespace

std::string vertex_expression(const FragmentDag& dag, const Node& interpolant, std::size_t limit) {
  if (interpolant.vertex_output < 0) return interpolant.name;
  std::string out;
  expression(dag.vertex_nodes, dag.vertex_outputs.at(static_cast<std::size_t>(interpolant.vertex_output)), out, limit);
  if (out.size() > limit) out = out.substr(0, limit) + "...";
  return out;
}

nlohmann::json to_json(const FragmentDag& dag, const lang::SourceManager& sm) {
  nlohmann::json j;
  j["shader"] = dag.shader;
  j["root"] = dag.root;
  std::vector<int> parents = dag.parent_counts();
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : dag.nodes) {
    nlohmann::json o;
    o["id"] = n.id;
    o["kind"] = to_string(n.kind);
    o["label"] = label(n);
    o["type"] = lang::to_string(n.type);
    o["children"] = n.children;
    o["parents"] = parents[n.id];
    if (n.kind == NodeKind::Constant) o["value"] = n.value;
    if (n.vertex_output >= 0) o["vertex"] = vertex_expression(dag, n, 1000);
    nlohmann::json spans = nlohmann::json::array();
    for (const auto& s : n.spans) {
      if (s.file == 0 || s.file > sm.size()) continue;
      spans.push_back({{"file", sm.file(s.file).path}, {"line", s.line}, {"column", s.col}, {"length", s.length}});
    }
    o["spans"] = spans;
    nodes.push_back(o);
  }
  j["nodes"] = nodes;
  nlohmann::json vnodes = nlohmann::json::array();
  for (const Node& n : dag.vertex_nodes) {
    nlohmann::json o{{"id", n.id}, {"kind", to_string(n.kind)}, {"label", label(n)}, {"type", lang::to_string(n.type)}, {"children", n.children}};
    if (n.kind == NodeKind::Constant) o["value"] = n.value;
    vnodes.push_back(o);
  }
  j["vertex_program"] = {{"nodes", vnodes}, {"outputs", dag.vertex_outputs}};
  j["stats"] = to_json(compute_stats(dag));
  return j;
}

nlohmann::json to_json(const DagStats& s) {
  return {{"nodes", s.nodes},
          {"mr_nodes", s.mr_nodes},
          {"operations", s.operations},
          {"texture_operations", s.texture_ops},
          {"non_texture_operations", s.non_texture_ops},
          {"registers", s.registers},
          {"texture_units", s.texture_units},
          {"interpolants", s.interpolants},
          {"constants", s.constants},
          {"dependent_texture_operations", s.dependent_texture_ops},
          {"dependent_texture_levels", s.dependency_levels},
          {"operations_by_kind", s.ops_by_kind}};
}

std::string to_dot(const FragmentDag& dag) {
  std::vector<int> parents = dag.parent_counts();
  std::string out = fmt::format("digraph \"{}\" {{\n", escape_dot(dag.shader));
  out += "  graph [rankdir=TB, ordering=out, fontname=\"Helvetica\"];\n";
  out += "  node [fontname=\"Helvetica\", fontsize=10, style=filled, fillcolor=white];\n";
  out += "  edge [arrowsize=0.6];\n";
  for (const Node& n : dag.nodes) {
    const char* shape = "ellipse";
    switch (n.kind) {
      case NodeKind::Texture: shape = "diamond"; break;
      case NodeKind::Interpolant: shape = "triangle"; break;
      case NodeKind::Constant: shape = "square"; break;
      case NodeKind::Operation: shape = n.id == dag.root ? "doublecircle" : "ellipse"; break;
    }
    bool mr = parents[n.id] > 1 && (n.kind == NodeKind::Operation || n.kind == NodeKind::Texture);
    std::string fill = mr ? "gray80" : "white";
    std::string text = escape_dot(label(n));
    if (n.vertex_output >= 0) text += "\\n" + escape_dot(vertex_expression(dag, n, 28));
    out += fmt::format("  n{} [label=\"{}\", shape={}, fillcolor={}];\n", n.id, text, shape, fill);
  }
  for (const Node& n : dag.nodes)
    for (NodeId c : n.children) out += fmt::format("  n{} -> n{};\n", n.id, c);
  out += "}\n";
  return out;
}

std::string to_text(const FragmentDag& dag) {
  std::vector<int> parents = dag.parent_counts();
  std::string out;
  for (const Node& n : dag.nodes) {
    std::string line = fmt::format("n{} = {}", n.id, label(n));
    if (n.kind == NodeKind::Interpolant) line = fmt::format("n{} = interpolant {}", n.id, n.name);
    if (n.vertex_output >= 0) line += " = " + vertex_expression(dag, n, 200);
    if (n.kind == NodeKind::Constant) line = fmt::format("n{} = const {}", n.id, value_text(n));
    if (n.kind == NodeKind::Texture) line = fmt::format("n{} = texture {}", n.id, label(n));
    for (std::size_t i = 0; i < n.children.size(); ++i) line += fmt::format("{}n{}", i ? ", " : " ", n.children[i]);
    line += fmt::format(" : {}", lang::to_string(n.type));
    std::string notes;
    if (parents[n.id] > 1 && (n.kind == NodeKind::Operation || n.kind == NodeKind::Texture))
      notes += fmt::format(" MR({})", parents[n.id]);
    if (!n.spans.empty()) {
      notes += " line";
      if (n.spans.size() > 1) notes += "s";
      for (std::size_t i = 0; i < n.spans.size() && i < 6; ++i) notes += fmt::format("{}{}", i ? "," : " ", n.spans[i].line);
      if (n.spans.size() > 6) notes += ",...";
    }
    if (n.id == dag.root) notes += " root";
    if (n.op == ir::Op::Loop && n.loop) notes += " " + n.loop->label;
    if (!notes.empty()) line += "   ;" + notes;
    out += line + '\n';
    // A loop's body after its first result, indented: its inputs are the loop's operands (the
    // carried values, then the invariants); its root lists the next values, the results and the test.
    if (n.op == ir::Op::Loop && n.loop && n.aux == 0) {
      const LoopBody& l = *n.loop;
      out += fmt::format("  {} ({} carried, {} invariant, {} results; at most {} passes through its test):\n", l.label, l.carried,
                         l.invariants, l.results, l.max_iterations);
      const std::string body = to_text(l.body);
      for (std::size_t at = 0; at < body.size();) {
        const std::size_t end = body.find('\n', at);
        out += "    " + body.substr(at, end - at + 1);
        at = end + 1;
      }
    }
  }
  return out;
}

}  // namespace passlab::dag
