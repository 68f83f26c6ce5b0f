// SPDX-License-Identifier: GPL-3.0-or-later
// The FragmentDag: one basic block of fragment operations with a single output, as in the RDS paper.
#include "core/dag/fragment_dag.h"

#include <algorithm>
#include <limits>
#include <set>

namespace passlab::dag {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::Interpolant: return "interpolant";
    case NodeKind::Constant: return "constant";
    case NodeKind::Texture: return "texture";
    case NodeKind::Operation: return "operation";
  }
  return "?";
}

std::vector<int> FragmentDag::parent_counts() const {
  std::vector<int> counts(nodes.size(), 0);
  for (const Node& n : nodes) {
    std::set<NodeId> distinct(n.children.begin(), n.children.end());
    for (NodeId c : distinct) ++counts[c];
  }
  return counts;
}

NodeId DagBuilder::intern(Node n, const lang::Span& span) {
  Key k{n.kind, n.op, n.type, n.aux, n.name, n.value, n.children, n.vertex_output};
  auto it = index_.find(k);
  NodeId id;
  if (it != index_.end()) {
    id = it->second;
  } else {
    id = static_cast<NodeId>(nodes_.size());
    n.id = id;
    nodes_.push_back(std::move(n));
    index_.emplace(std::move(k), id);
  }
  auto& spans = nodes_[id].spans;
  if (span.valid() && std::find(spans.begin(), spans.end(), span) == spans.end()) spans.push_back(span);
  return id;
}

NodeId DagBuilder::constant(const ir::Value& v, const lang::Span& span) {
  Node n;
  n.kind = NodeKind::Constant;
  n.type = v.type;
  int count = std::max(1, lang::component_count(v.type));
  n.value.assign(v.f.begin(), v.f.begin() + count);
  for (float& x : n.value)
    if (x == 0.0f) x = 0.0f;  // one node for +0 and -0 keeps listings tidy; both behave alike here
  return intern(std::move(n), span);
}

NodeId DagBuilder::interpolant(lang::Global g, ir::BaseType type, const lang::Span& span) {
  Node n;
  n.kind = NodeKind::Interpolant;
  n.op = ir::Op::Global;
  n.type = type;
  n.aux = static_cast<std::uint32_t>(g);
  n.name = lang::to_string(g);
  return intern(std::move(n), span);
}

NodeId DagBuilder::texture(const std::string& name, ir::BaseType type, std::vector<NodeId> coords, const lang::Span& span,
                           std::uint32_t channel) {
  Node n;
  n.kind = NodeKind::Texture;
  n.op = ir::Op::Texture;
  n.type = type;
  n.aux = channel;
  n.name = name;
  n.children = std::move(coords);
  return intern(std::move(n), span);
}

NodeId DagBuilder::operation(ir::Op op, ir::BaseType type, std::uint32_t aux, std::vector<NodeId> children, const lang::Span& span) {
  Node n;
  n.kind = NodeKind::Operation;
  n.op = op;
  n.type = type;
  n.aux = aux;
  n.children = std::move(children);
  return intern(std::move(n), span);
}

NodeId DagBuilder::loop(std::shared_ptr<const LoopBody> loop, int result, ir::BaseType type, std::vector<NodeId> operands,
                        const lang::Span& span) {
  Node n;
  n.kind = NodeKind::Operation;
  n.op = ir::Op::Loop;
  n.type = type;
  n.aux = static_cast<std::uint32_t>(result);
  n.name = loop->label;  // keeps two loops over the same operands apart
  n.children = std::move(operands);
  n.loop = std::move(loop);
  return intern(std::move(n), span);
}

NodeId DagBuilder::loop_value(const std::string& label, int index, ir::BaseType type) {
  Node n;
  n.kind = NodeKind::Operation;
  n.op = ir::Op::LoopValue;
  n.type = type;
  n.aux = static_cast<std::uint32_t>(index);
  n.name = label;
  return intern(std::move(n), {});
}

NodeId DagBuilder::vertex_interpolant(int output, const std::string& name, ir::BaseType type, const std::vector<lang::Span>& spans) {
  Node n;
  n.kind = NodeKind::Interpolant;
  n.op = ir::Op::Global;
  n.type = type;
  n.name = name;
  n.vertex_output = output;
  NodeId id = intern(std::move(n), {});
  for (const auto& s : spans)
    if (std::find(nodes_[id].spans.begin(), nodes_[id].spans.end(), s) == nodes_[id].spans.end()) nodes_[id].spans.push_back(s);
  return id;
}

NodeId DagBuilder::copy(const std::vector<Node>& from, NodeId id, std::map<NodeId, NodeId>& memo) {
  // Operands first (ids are in postorder, so a simple loop over the reachable set works).
  std::vector<NodeId> stack{id};
  while (!stack.empty()) {
    NodeId x = stack.back();
    if (memo.count(x)) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    for (NodeId c : from[x].children)
      if (!memo.count(c)) {
        stack.push_back(c);
        ready = false;
      }
    if (!ready) continue;
    std::vector<NodeId> children;
    for (NodeId c : from[x].children) children.push_back(memo.at(c));
    memo[x] = rebuild(from[x], std::move(children));
    stack.pop_back();
  }
  return memo.at(id);
}

NodeId DagBuilder::rebuild(const Node& from, std::vector<NodeId> children) {
  Node n = from;
  n.children = std::move(children);
  n.spans.clear();
  const NodeId id = intern(std::move(n), {});
  for (const auto& s : from.spans)
    if (std::find(nodes_[id].spans.begin(), nodes_[id].spans.end(), s) == nodes_[id].spans.end()) nodes_[id].spans.push_back(s);
  return id;
}

FragmentDag DagBuilder::finish(NodeId root, const std::string& shader) const {
  FragmentDag dag;
  dag.shader = shader;
  std::vector<NodeId> roots;
  dag.nodes = finish_many({root}, &roots);
  dag.root = roots[0];
  return dag;
}

std::vector<Node> DagBuilder::finish_many(const std::vector<NodeId>& roots, std::vector<NodeId>* new_roots) const {
  std::vector<Node> out;
  std::vector<NodeId> remap(nodes_.size(), static_cast<NodeId>(-1));
  std::vector<char> seen(nodes_.size(), 0);
  for (NodeId root : roots) {
  if (seen[root]) continue;
  // Iterative postorder, children in operand order.
  std::vector<std::pair<NodeId, std::size_t>> stack{{root, 0}};
  seen[root] = 1;
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Node& n = nodes_[id];
    if (next < n.children.size()) {
      NodeId c = n.children[next++];
      if (!seen[c]) {
        seen[c] = 1;
        stack.push_back({c, 0});
      }
      continue;
    }
    Node copy = n;
    copy.id = static_cast<NodeId>(out.size());
    for (NodeId& c : copy.children) c = remap[c];
    remap[id] = copy.id;
    out.push_back(std::move(copy));
    stack.pop_back();
  }
  }
  new_roots->clear();
  for (NodeId r : roots) new_roots->push_back(remap[r]);
  return out;
}

DagStats compute_stats(const FragmentDag& dag) {
  DagStats s;
  s.nodes = static_cast<int>(dag.size());
  std::vector<int> parents = dag.parent_counts();
  std::set<std::string> textures;
  std::vector<int> level(dag.size(), 0);  // dependent-texturing depth feeding into each node
  for (const Node& n : dag.nodes) {
    if (parents[n.id] > 1 && (n.kind == NodeKind::Operation || n.kind == NodeKind::Texture)) ++s.mr_nodes;
    int deepest = 0;
    bool computed_input = false;
    for (NodeId c : n.children) {
      deepest = std::max(deepest, level[c]);
      NodeKind ck = dag.node(c).kind;
      if (ck == NodeKind::Operation || ck == NodeKind::Texture) computed_input = true;
    }
    switch (n.kind) {
      case NodeKind::Interpolant: ++s.interpolants; break;
      case NodeKind::Constant: ++s.constants; break;
      case NodeKind::Texture:
        ++s.texture_ops;
        textures.insert(n.name);
        if (computed_input) {
          ++s.dependent_texture_ops;
          level[n.id] = deepest + 1;
        } else {
          level[n.id] = deepest;
        }
        s.dependency_levels = std::max(s.dependency_levels, level[n.id]);
        ++s.ops_by_kind["texture"];
        break;
      case NodeKind::Operation: {
        ++s.non_texture_ops;
        level[n.id] = deepest;
        std::string name = ir::to_string(n.op);
        if (n.op == ir::Op::Builtin) name = lang::to_string(static_cast<lang::Builtin>(n.aux));
        ++s.ops_by_kind[name];
        break;
      }
    }
  }
  s.operations = s.texture_ops + s.non_texture_ops;
  s.texture_units = static_cast<int>(textures.size());

  // Registers: Sethi-Ullman need per computed node, then a depth-first order that evaluates the
  // needier operand first, and a liveness count over that order. Leaves live in input registers.
  auto computed = [&](NodeId id) { return dag.node(id).kind == NodeKind::Operation || dag.node(id).kind == NodeKind::Texture; };
  std::vector<int> need(dag.size(), 0);
  for (const Node& n : dag.nodes) {
    if (!computed(n.id)) continue;
    std::vector<int> kids;
    for (NodeId c : n.children)
      if (computed(c)) kids.push_back(need[c]);
    std::sort(kids.rbegin(), kids.rend());
    int r = 1;
    for (std::size_t i = 0; i < kids.size(); ++i) r = std::max(r, kids[i] + static_cast<int>(i));
    need[n.id] = r;
  }
  std::vector<NodeId> order;
  std::vector<char> done(dag.size(), 0);
  std::vector<std::pair<NodeId, std::size_t>> stack{{dag.root, 0}};
  std::vector<std::vector<NodeId>> sorted_kids(dag.size());
  for (const Node& n : dag.nodes) {
    sorted_kids[n.id] = n.children;
    std::stable_sort(sorted_kids[n.id].begin(), sorted_kids[n.id].end(), [&](NodeId a, NodeId b) { return need[a] > need[b]; });
  }
  done[dag.root] = 1;
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    if (next < sorted_kids[id].size()) {
      NodeId c = sorted_kids[id][next++];
      if (!done[c]) {
        done[c] = 1;
        stack.push_back({c, 0});
      }
      continue;
    }
    if (computed(id)) order.push_back(id);
    stack.pop_back();
  }
  std::vector<std::size_t> last_use(dag.size(), 0), position(dag.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  for (std::size_t i = 0; i < order.size(); ++i)
    for (NodeId c : dag.node(order[i]).children)
      if (computed(c)) last_use[c] = std::max(last_use[c], i);
  int live = 0, peak = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::set<NodeId> dying;
    for (NodeId c : dag.node(order[i]).children)
      if (computed(c) && last_use[c] == i) dying.insert(c);
    live += 1;  // the result (the root's result is the output register)
    peak = std::max(peak, live);
    live -= static_cast<int>(dying.size());
  }
  s.registers = peak;
  return s;
}

void unshare_constants(FragmentDag& dag) {
  std::vector<Node> out;
  std::vector<NodeId> remap(dag.nodes.size(), static_cast<NodeId>(-1));
  auto emit = [&](Node n) {
    n.id = static_cast<NodeId>(out.size());
    out.push_back(std::move(n));
    return out.back().id;
  };
  std::vector<std::pair<NodeId, std::size_t>> stack{{dag.root, 0}};
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Node& n = dag.nodes[id];
    if (next < n.children.size()) {
      NodeId c = n.children[next++];
      if (dag.nodes[c].kind != NodeKind::Constant && remap[c] == static_cast<NodeId>(-1)) stack.push_back({c, 0});
      continue;
    }
    Node copy = n;
    for (NodeId& c : copy.children) c = dag.nodes[c].kind == NodeKind::Constant ? emit(dag.nodes[c]) : remap[c];
    remap[id] = emit(std::move(copy));
    stack.pop_back();
  }
  dag.root = remap[dag.root];
  dag.nodes = std::move(out);
}

namespace {

// The fragments right and below, and what the vertex program delivers there.
struct Neighbourhood {
  const ir::FragmentInputs* right;
  const ir::FragmentInputs* below;
  std::vector<ir::Value> right_vertex, below_vertex;
};

// One node's value, its operands' in `vals` (a difference's too: `right`, `below`).
ir::Value node_value(const Node& n, const std::vector<ir::Value>& vals, const ir::FragmentInputs& in, const ir::EvalContext& ctx,
                     const std::vector<ir::Value>* vertex_values, const std::vector<ir::Value>* right, const std::vector<ir::Value>* below) {
  ir::Value v;
  std::vector<const ir::Value*> ops;
  switch (n.kind) {
    case NodeKind::Interpolant:
      v = n.vertex_output >= 0 && vertex_values ? (*vertex_values)[static_cast<std::size_t>(n.vertex_output)] : in.globals.at(n.aux);
      v.type = n.type;
      return v;
    case NodeKind::Constant: return ir::evaluate(ir::Op::Const, n.type, 0, "", n.value, {}, ctx);
    case NodeKind::Texture: {
      ir::Value name = ir::Value::string(n.name);
      ops.assign(1, &name);
      for (NodeId c : n.children) ops.push_back(&vals[c]);
      return ir::evaluate(ir::Op::Texture, n.type, n.aux, "", {}, ops, ctx);
    }
    case NodeKind::Operation:
      if (n.op == ir::Op::Loop && n.loop) {
        std::vector<ir::Value> operands;
        for (NodeId c : n.children) operands.push_back(vals[c]);
        v = run_loop(*n.loop, operands, in, ctx).at(n.aux);
        v.type = n.type;
        return v;
      }
      if (n.op == ir::Op::ScreenDiff && n.children.size() == 2) {
        // A value computed per fragment, given its value one pixel over (dag/neighbour_values.cpp).
        v = ir::Value::zero(n.type);
        for (int i = 0; i < std::max(1, lang::component_count(n.type)); ++i) {
          const auto k = static_cast<std::size_t>(i);
          v.f[k] = vals[n.children[1]].f[k] - vals[n.children[0]].f[k];
        }
        return v;
      }
      if (n.op == ir::Op::ScreenDiff || n.op == ir::Op::Neighbour) {
        // The child's value on the neighbour (minus here, for a difference); without neighbours,
        // undefined.
        const std::vector<ir::Value>* there = n.aux == 0 ? right : below;
        v = ir::Value::zero(n.type);
        const NodeId c = n.children.at(0);
        const bool minus = n.op == ir::Op::ScreenDiff;
        for (int i = 0; i < std::max(1, lang::component_count(n.type)); ++i) {
          const auto k = static_cast<std::size_t>(i);
          v.f[k] = there ? (*there)[c].f[k] - (minus ? vals[c].f[k] : 0.0f) : std::numeric_limits<float>::quiet_NaN();
        }
        return v;
      }
      for (NodeId c : n.children) ops.push_back(&vals[c]);
      return ir::evaluate(n.op, n.type, n.aux, n.name, n.value, ops, ctx);
  }
  return v;
}

bool reads_neighbours(const Node& n) { return n.kind == NodeKind::Operation && (n.op == ir::Op::ScreenDiff || n.op == ir::Op::Neighbour); }

bool has_differences(const std::vector<Node>& nodes) { return std::any_of(nodes.begin(), nodes.end(), reads_neighbours); }

// Evaluates nodes in id order; interpolants read the fragment's globals or the vertex program.
// With neighbours, the fragments right and below are evaluated in step with this one, each node
// on all three, and a difference is the same on all three (one per pixel pair, as on hardware,
// and as the interpreter has it); so is a neighbour's value (never itself differenced: the
// differences it feeds are the only ones of their cones, dag/neighbour_values.cpp).
std::vector<ir::Value> run_nodes(const std::vector<Node>& nodes, const ir::FragmentInputs& in, const ir::EvalContext& ctx,
                                 const std::vector<ir::Value>* vertex_values, const float* range = nullptr,
                                 const Neighbourhood* next = nullptr, const std::vector<char>* exact = nullptr) {
  std::vector<ir::Value> vals(nodes.size());
  const bool lockstep = next && has_differences(nodes);
  std::vector<ir::Value> right(lockstep ? nodes.size() : 0), below(lockstep ? nodes.size() : 0);
  for (const Node& n : nodes) {
    if (range && n.id > 0) {  // the value before this one as a fixed-range datapath keeps it
      ir::Value& v = vals[n.id - 1];
      const Node& p = nodes[n.id - 1];
      const bool kept = exact && p.id < exact->size() && (*exact)[p.id];
      if (p.kind != NodeKind::Constant && v.type != ir::BaseType::Bool && v.type != ir::BaseType::String && !kept)
        for (int i = 0; i < std::max(1, lang::component_count(v.type)); ++i) v.f[static_cast<std::size_t>(i)] = std::clamp(v.f[static_cast<std::size_t>(i)], range[0], range[1]);
    }
    vals[n.id] = node_value(n, vals, in, ctx, vertex_values, lockstep ? &right : nullptr, lockstep ? &below : nullptr);
    if (!lockstep) continue;
    if (reads_neighbours(n)) {
      right[n.id] = below[n.id] = vals[n.id];
    } else {
      right[n.id] = node_value(n, right, *next->right, ctx, &next->right_vertex, nullptr, nullptr);
      below[n.id] = node_value(n, below, *next->below, ctx, &next->below_vertex, nullptr, nullptr);
    }
  }
  return vals;
}

}  // namespace

std::vector<ir::Value> run_loop(const LoopBody& loop, const std::vector<ir::Value>& operands, const ir::FragmentInputs& in,
                                const ir::EvalContext& ctx, int* iterations) {
  const std::vector<Node>& nodes = loop.body.nodes;
  const Node& root = nodes.at(loop.body.root);
  std::vector<ir::Value> inputs = operands, vals(nodes.size()), results(static_cast<std::size_t>(loop.results));
  const auto carried = static_cast<std::size_t>(loop.carried);
  int runs = 0;
  while (runs < loop.max_iterations) {
    ++runs;
    for (const Node& n : nodes)
      vals[n.id] = n.kind == NodeKind::Operation && n.op == ir::Op::LoopValue ? inputs.at(n.aux)
                                                                              : node_value(n, vals, in, ctx, nullptr, nullptr, nullptr);
    for (std::size_t k = 0; k < results.size(); ++k) results[k] = vals[root.children[carried + k]];
    if (!vals[root.children.back()].truth()) break;
    for (std::size_t k = 0; k < carried; ++k) inputs[k] = vals[root.children[k]];
  }
  if (iterations) *iterations = runs;
  return results;
}

std::vector<ir::Value> vertex_outputs(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx) {
  std::vector<ir::Value> outputs;
  if (!dag.vertex_nodes.empty()) {
    std::vector<ir::Value> v = run_nodes(dag.vertex_nodes, in, ctx, nullptr);
    for (NodeId r : dag.vertex_outputs) outputs.push_back(v[r]);
  }
  return outputs;
}

ir::Value interpolant_value(const FragmentDag& dag, NodeId id, const ir::FragmentInputs& in,
                            const std::vector<ir::Value>& vertex_values) {
  const Node& n = dag.node(id);
  ir::Value v = n.vertex_output >= 0 ? vertex_values.at(static_cast<std::size_t>(n.vertex_output)) : in.globals.at(n.aux);
  v.type = n.type;
  return v;
}

ir::Value evaluate(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next) {
  if (dag.nodes.empty()) return {};
  return evaluate_all(dag, in, ctx, next)[dag.root];
}

std::vector<ir::Value> evaluate_all(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx, const ir::Neighbours* next) {
  std::vector<ir::Value> outputs = vertex_outputs(dag, in, ctx);
  if (!next) return run_nodes(dag.nodes, in, ctx, &outputs);
  const Neighbourhood nb{&next->right, &next->below, vertex_outputs(dag, next->right, ctx), vertex_outputs(dag, next->below, ctx)};
  return run_nodes(dag.nodes, in, ctx, &outputs, nullptr, &nb);
}

std::vector<ir::Value> evaluate_all_clamped(const FragmentDag& dag, const ir::FragmentInputs& in, const ir::EvalContext& ctx, float lo,
                                            float hi, const std::vector<char>* exact) {
  std::vector<ir::Value> outputs = vertex_outputs(dag, in, ctx);
  const float range[2] = {lo, hi};
  std::vector<ir::Value> v = run_nodes(dag.nodes, in, ctx, &outputs, range, nullptr, exact);
  if (!v.empty() && dag.nodes.back().kind != NodeKind::Constant && v.back().type != ir::BaseType::Bool)
    for (int i = 0; i < std::max(1, lang::component_count(v.back().type)); ++i) v.back().f[static_cast<std::size_t>(i)] = std::clamp(v.back().f[static_cast<std::size_t>(i)], lo, hi);
  return v;
}

}  // namespace passlab::dag
