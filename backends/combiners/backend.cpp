// SPDX-License-Identifier: GPL-3.0-or-later
// The combiner backend for RDSh, RDS and the optimal search, and multipass execution.
#include "backends/combiners/backend.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "backends/combiners/tables.h"
#include "core/dag/export.h"

namespace passlab::combiners {

// Conditions (comparisons and their && || !) are never saved between passes: a MUX control is
// made in the pass of the MUX that reads it (one ALPHA combiner) from what the condition compares.
// So in the partitioning problem a condition is not a node: its readers read its operands.
bool is_condition(const dag::Node& n) { return n.kind == dag::NodeKind::Operation && n.type == ir::BaseType::Bool; }

partition::Problem make_problem(const dag::FragmentDag& d) {
  partition::Problem pr;
  pr.graph.root = d.root;
  pr.graph.children.resize(d.size());
  pr.is_op.resize(d.size());
  pr.labels.resize(d.size());
  pr.texture.assign(d.size(), -1);
  pr.is_interpolant.assign(d.size(), 0);
  std::map<std::string, int> names;
  for (const dag::Node& n : d.nodes) {
    // Operands, with conditions replaced by what they compare (ids are in postorder, so a
    // condition's operands were expanded before it).
    std::vector<std::uint32_t>& kids = pr.graph.children[n.id];
    for (dag::NodeId c : n.children) {
      if (is_condition(d.node(c))) {
        for (std::uint32_t k : pr.graph.children[c])
          if (std::find(kids.begin(), kids.end(), k) == kids.end()) kids.push_back(k);
      } else if (std::find(kids.begin(), kids.end(), c) == kids.end()) {
        kids.push_back(c);
      }
    }
    pr.is_op[n.id] = (n.kind == dag::NodeKind::Operation || n.kind == dag::NodeKind::Texture) && !is_condition(n);
    pr.is_interpolant[n.id] = n.kind == dag::NodeKind::Interpolant;
    if (n.kind == dag::NodeKind::Texture) pr.texture[n.id] = names.try_emplace(n.name, static_cast<int>(names.size())).first->second;
    pr.labels[n.id] = n.kind == dag::NodeKind::Texture ? "TEX " + dag::label(n) : dag::label(n);
  }
  return pr;
}

PassSpec pass_spec(const dag::FragmentDag& d, const std::vector<Interval>& ranges, const partition::Pass& p) {
  PassSpec s;
  s.dag = &d;
  s.ranges = &ranges;
  s.root = p.root;
  s.members = p.members;
  s.restores = p.restores;
  return s;
}

CombinerBackend::CombinerBackend(const dag::FragmentDag& d, const partition::TargetDesc& target, Machine machine)
    : d_(d), target_(target), machine_(std::move(machine)), ranges_(intervals(d)), problem_(make_problem(d)), scratch_(d.size(), 0) {}

partition::Check CombinerBackend::valid(partition::NodeId root, const std::vector<partition::NodeId>& members) {
  ++calls_;
  PassSpec s;
  s.dag = &d_;
  s.ranges = &ranges_;
  s.root = root;
  s.members = members;
  std::sort(s.members.begin(), s.members.end());
  // Restores: operations the members read that another pass computes.
  for (partition::NodeId m : s.members) scratch_[m] = 1;
  for (partition::NodeId m : s.members)
    for (dag::NodeId c : problem_.graph.children[m]) {
      if (!scratch_[c] && problem_.is_op[c]) {
        scratch_[c] = 2;
        s.restores.push_back(c);
      }
    }
  for (partition::NodeId m : s.members) scratch_[m] = 0;
  for (dag::NodeId r : s.restores) scratch_[r] = 0;
  std::sort(s.restores.begin(), s.restores.end());
  const CompileResult r = compile_pass(s, machine_);
  partition::Check c;
  c.ok = r.ok;
  c.resources = r.ok ? r.resources : partition::Resources{};
  if (!r.ok) c.failure = r.failure.message;
  return c;
}

CompiledPartition compile_partition(const dag::FragmentDag& d, const std::vector<Interval>& ranges, const Machine& m,
                                    const partition::Partition& part, bool trace) {
  CompiledPartition cp;
  cp.ok = !part.passes.empty();
  for (const partition::Pass& p : part.passes) {
    CompileOptions o;
    o.trace = trace;
    cp.passes.push_back(compile_pass(pass_spec(d, ranges, p), m, o));
    if (!cp.passes.back().ok && cp.ok) {
      cp.ok = false;
      cp.failure = fmt::format("pass {} (n{}): {}", cp.passes.size(), p.root, cp.passes.back().failure.message);
    }
  }
  return cp;
}

std::vector<char> unclamped_nodes(const dag::FragmentDag& d, const CompiledPartition& cp) {
  std::vector<char> exact(d.size(), 0);
  for (const CompileResult& r : cp.passes) mark_unclamped(r.program.units, exact);
  for (const CompileResult& r : cp.passes) {
    for (const PassInput& in : r.program.inputs)
      if (in.cls == InputClass::Interpolant && in.reg >= 0 && in.node < exact.size()) exact[in.node] = 0;
    // A value a combiner also computes (for another reader) is a register's, and clamped.
    for (HId i : r.program.hdag.topological()) {
      const HNode& h = r.program.hdag[i];
      if (h.has_origin && h.op != HOp::Input && h.op != HOp::Const && h.origin < exact.size()) exact[h.origin] = 0;
    }
  }
  return exact;
}

bool clamping_changes_nothing(const dag::FragmentDag& d, const std::vector<ir::Value>& all, const std::vector<ir::Value>& clamped, bool every_step) {
  if (every_step)
    for (const dag::Node& n : d.nodes) {
      if (n.kind != dag::NodeKind::Operation || n.type == ir::BaseType::Bool || n.id == d.root) continue;
      for (int k = 0; k < std::max(1, lang::component_count(n.type)); ++k)
        if (!(std::fabs(all[n.id].f[static_cast<std::size_t>(k)] - clamped[n.id].f[static_cast<std::size_t>(k)]) <= 1e-6f)) return false;
    }
  for (std::size_t k = 0; k < 4; ++k)
    if (!(std::fabs(std::clamp(all[d.root].f[k], 0.0f, 1.0f) - std::clamp(clamped[d.root].f[k], 0.0f, 1.0f)) <= 1e-6f)) return false;
  return true;
}

namespace {

// Gives a pass the values earlier passes saved.
class WithRestores : public FragmentSource {
 public:
  explicit WithRestores(FragmentSource& inner) : inner_(inner) {}
  std::array<float, 3> value(dag::NodeId node) const override { return inner_.value(node); }
  Rgba sample(const std::string& t, int dims, const float* c) const override { return inner_.sample(t, dims, c); }
  Rgba restored(dag::NodeId node) const override {
    auto it = saved.find(node);
    return it == saved.end() ? Rgba{0, 0, 0, 0} : it->second;
  }
  std::map<dag::NodeId, Rgba> saved;

 private:
  FragmentSource& inner_;
};

}  // namespace

Rgba run_passes(const CompiledPartition& cp, const partition::Partition& part, const Machine& m, FragmentSource& src, const SimOptions& o) {
  WithRestores w(src);
  Rgba last{0, 0, 0, 0};
  for (std::size_t i = 0; i < cp.passes.size() && i < part.passes.size(); ++i) {
    last = simulate(cp.passes[i].program, m, w, o);
    w.saved[part.passes[i].root] = last;
  }
  return last;
}

}  // namespace passlab::combiners
