// SPDX-License-Identifier: GPL-3.0-or-later
// Differences of values computed per fragment, by computing the value again one pixel over.
//
// A rasterizer knows how each interpolant changes from pixel to pixel, so the difference of an
// interpolated value (Du(s), calculatenormal(P)) is one more interpolant. A value computed per
// fragment (after a texture lookup, a product of interpolants, a square root) has no such
// difference: later hardware takes it across a 2x2 quad (DDX, DDY), running the same program on
// the neighbouring pixels in lockstep. A target without those instructions can still do what the
// quad does, in its own instructions: compute the value a second time from its interpolants taken
// one pixel over (interpolateAtOffset in GLSL 4.0 terms; here the rasterizer's plane evaluated at
// the neighbouring pixel's centre, an interpolant like the difference ones), and subtract. That
// is the technique of forward-differenced bump mapping (a height map fetched again at offset
// coordinates), and it is exact: the same program on the neighbour's interpolants is what the
// reference interpreter differences.
//
// So screendiff(x), x computed per fragment, becomes screendiff(x, x'): x' - x, where x' is x's
// cone rebuilt with every interpolant I replaced by neighbour(I) (ir::Op::Neighbour) and
// everything else (lookups, operations) recomputed over those. The difference keeps x as its
// first operand so that a target with DDX and DDY (partition::Derivatives::Quad) can take it
// across its quad in one instruction and leave x' alone; the others subtract. A derivative inside the cone is the fragment's own (the
// interpreter's rule: a derivative of a derivative is 0, the neighbours share the fragment's).
// The cost is the cone again per direction, which the partitioner sees and places like any other
// work; Wood and the RDS paper's shaders have no such derivatives and do not change.
#include <algorithm>
#include <array>

#include "core/dag/fragment_dag.h"

namespace passlab::dag {

namespace {

bool interpolated(const Node& n) { return n.kind == NodeKind::Interpolant || n.kind == NodeKind::Constant; }
bool difference(const Node& n) { return n.kind == NodeKind::Operation && n.op == ir::Op::ScreenDiff; }
// A difference of a value computed per fragment, not yet given its value one pixel over.
bool to_recompute(const FragmentDag& d, const Node& n) { return difference(n) && n.children.size() == 1 && !interpolated(d.node(n.children[0])); }

class Recompute {
 public:
  explicit Recompute(const FragmentDag& dag) : dag_(dag), now_(dag.size()) {}

  FragmentDag run() {
    for (const Node& n : dag_.nodes) {  // postorder: operands first
      std::vector<NodeId> kids;
      for (NodeId c : n.children) kids.push_back(now_[c]);
      if (to_recompute(dag_, n)) {
        const NodeId x = n.children[0];
        now_[n.id] = b_.rebuild(n, {now_[x], over(x, n.aux, n.spans)});
      } else {
        now_[n.id] = b_.rebuild(n, std::move(kids));
      }
    }
    FragmentDag out;
    out.shader = dag_.shader;
    std::vector<NodeId> roots;
    out.nodes = b_.finish_many({now_[dag_.root]}, &roots);
    out.root = roots[0];
    out.vertex_nodes = dag_.vertex_nodes;
    out.vertex_outputs = dag_.vertex_outputs;
    return out;
  }

 private:
  // Node x of the input, computed one pixel right (dir 0) or below (1): a node of the output.
  NodeId over(NodeId x, std::uint32_t dir, const std::vector<lang::Span>& why) {
    std::map<NodeId, NodeId>& memo = over_[dir];
    // The part of x's cone not yet rebuilt in this direction, in postorder (ids ascend).
    std::vector<NodeId> cone, stack{x};
    std::vector<char> seen(dag_.size(), 0);
    while (!stack.empty()) {
      const NodeId k = stack.back();
      stack.pop_back();
      if (seen[k] || memo.count(k)) continue;
      seen[k] = 1;
      cone.push_back(k);
      const Node& n = dag_.node(k);
      if (!interpolated(n) && !difference(n))
        for (NodeId c : n.children) stack.push_back(c);
    }
    std::sort(cone.begin(), cone.end());
    for (NodeId k : cone) {
      const Node& n = dag_.node(k);
      if (n.kind == NodeKind::Constant || difference(n)) {
        memo[k] = now_[k];  // the same everywhere; a derivative's is the fragment's own
      } else if (n.kind == NodeKind::Interpolant) {
        Node shifted;
        shifted.kind = NodeKind::Operation;
        shifted.op = ir::Op::Neighbour;
        shifted.type = n.type;
        shifted.aux = dir;
        shifted.spans = why;
        memo[k] = b_.rebuild(shifted, {now_[k]});
      } else {
        std::vector<NodeId> kids;
        for (NodeId c : n.children) kids.push_back(memo.at(c));
        memo[k] = b_.rebuild(n, std::move(kids));
      }
    }
    return memo.at(x);
  }

  const FragmentDag& dag_;
  DagBuilder b_;
  std::vector<NodeId> now_;                   // input id -> output id
  std::array<std::map<NodeId, NodeId>, 2> over_;  // per direction: input id -> its value one pixel over
};

}  // namespace

FragmentDag recompute_differences(const FragmentDag& dag) {
  const bool any = std::any_of(dag.nodes.begin(), dag.nodes.end(), [&](const Node& n) { return to_recompute(dag, n); });
  return any ? Recompute(dag).run() : dag;
}

}  // namespace passlab::dag
