// SPDX-License-Identifier: GPL-3.0-or-later
// The driver: the five stages in the paper's order.
#include "backends/combiners/compiler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace passlab::combiners {

namespace {

// Whether clamping `id` to the registers' [-1, 1] changes nothing its users compute: each clamps
// it at least as much (clamp(x, lo, hi) within [-1, 1]; the final output, which the frame buffer
// clamps to [0, 1]), or cannot tell apart the values the clamp cuts (min(x, k) with k <= 1 for a
// value that never goes below -1; max(x, k) with k >= -1 for one that never goes above 1).
bool clamp_is_harmless(const dag::FragmentDag& d, const std::vector<Interval>& ranges, dag::NodeId id) {
  const Interval& r = ranges[id];
  for (const dag::Node& u : d.nodes) {
    if (std::find(u.children.begin(), u.children.end(), id) == u.children.end()) continue;
    auto constant = [&](std::size_t i, float* k) {
      if (i >= u.children.size()) return false;
      const dag::Node& c = d.node(u.children[i]);
      if (c.kind != dag::NodeKind::Constant || c.value.empty()) return false;
      *k = c.value[0];
      return true;
    };
    if (u.id == d.root && u.op == ir::Op::Output) continue;
    if (u.kind != dag::NodeKind::Operation || u.op != ir::Op::Builtin) return false;
    const auto b = static_cast<lang::Builtin>(u.aux);
    float lo = 0, hi = 0, k = 0;
    if (b == lang::Builtin::Clamp && u.children.size() == 3 && u.children[0] == id && constant(1, &lo) && constant(2, &hi) && lo >= -1 && hi <= 1) continue;
    const std::size_t other = u.children.size() == 2 && u.children[0] == id ? 1 : 0;
    if (u.children.size() == 2 && constant(other, &k)) {
      if (b == lang::Builtin::Min && k <= 1 && r.lo >= -1) continue;
      if (b == lang::Builtin::Max && k >= -1 && r.hi <= 1) continue;
    }
    return false;
  }
  return true;  // every user (or, for the final output, the frame buffer) clamps it anyway
}

}  // namespace

partition::Resources resources_of(const Program& p, const Machine& m) {
  partition::Resources r;
  r.operations = static_cast<int>(p.stages.size());
  r.arithmetic = r.operations;
  int units = 0, fetches = 0, restores = 0;
  for (const TextureUnit& u : p.units) {
    if (u.nodes.empty() && u.op == UnitOp::Texture2D && u.texture.empty()) continue;  // an idle unit before a pass-through
    ++units;
    if (u.op != UnitOp::PassThrough && u.op != UnitOp::DotProduct && u.op != UnitOp::CubeDot) ++fetches;
    if (u.op == UnitOp::Restore) ++restores;
  }
  r.textures = units;
  r.texture_fetches = fetches;
  r.restores = restores;
  std::vector<int> colours;
  for (const PassInput& in : p.inputs)
    if (in.cls == InputClass::Interpolant && in.reg >= 0 && m.registers[static_cast<std::size_t>(in.reg)].texture_unit < 0) colours.push_back(in.reg);
  std::sort(colours.begin(), colours.end());
  r.interpolants = static_cast<int>(std::unique(colours.begin(), colours.end()) - colours.begin());
  // Temporaries: the most computed values alive at once.
  int peak = 0;
  for (int s = 0; s <= static_cast<int>(p.stages.size()); ++s) {
    int live = 0;
    for (const Lifetime& l : p.lifetimes)
      if (!l.input && l.first <= s && s <= l.last) ++live;
    peak = std::max(peak, live);
  }
  r.registers = peak;
  for (const TextureUnit& u : p.units)
    if (u.previous >= 0) r.dependent_levels = 1;
  return r;
}

CompileResult compile_pass(const PassSpec& pass, const Machine& m, const CompileOptions& options) {
  CompileResult out;
  bool selected = false;  // stage 3 was reached: a failure from here on may be the extensions'
  CompileTrace trace(options.trace);
  HDag h;
  std::vector<PartialCombiner> pcs;
  Program& p = out.program;
  bool ok = false;
  try {
    ok = extract_texture_units(pass, m, h, out.failure, trace) && rewrite(pass, m, h, out.failure, trace) &&
         (options.reassociate ? (reassociate(pass, h, trace), true) : true) && recognise_mappings(pass, h, out.failure, trace) &&
         ((selected = true), select_combiners(h, m, pcs, out.failure, trace, options.final_arithmetic)) && allocate_inputs(h, pcs, m, out.failure, trace) &&
         schedule(h, pcs, m, pass.final(), p, out.failure, trace, {options.exact_schedule, options.exact_budget}, &out.schedule_proven);
  } catch (const std::logic_error& e) {
    // A broken invariant of the compiler's own: the pass fails with it rather than the program.
    out.failure = {"internal", std::string("internal compiler error: ") + e.what(), pass.root, true};
    if (std::getenv("PASSLAB_COMBINER_DEBUG")) std::fprintf(stderr, "%s\n%s\n", out.failure.message.c_str(), to_text(h, *pass.dag).c_str());
    ok = false;
  }
  // What fails with the final combiner's arithmetic or reassociated products (a register the
  // final combiner's reads keep to the end, a constant the folding made) is compiled again as the
  // paper's compiler would.
  if (!ok && selected && (options.final_arithmetic || options.reassociate)) {
    CompileOptions paper = options;
    paper.final_arithmetic = paper.reassociate = false;
    return compile_pass(pass, m, paper);
  }
  out.trace = std::move(trace.events);
  if (!ok) {
    if (out.failure.constraint.empty()) out.failure.constraint = "internal";
    return out;
  }
  p.units = h.units;
  p.inputs = h.inputs;
  p.combiners = pcs;
  p.writes_intermediate = !pass.final();
  if (!pass.final()) {
    p.encoding = saved_encoding((*pass.ranges)[pass.root]);
    p.saved_scalar = h.rgb_root == kNoH;
  }
  p.hdag = std::move(h);
  out.resources = resources_of(p, m);
  // What a register clamps: values the combiners compute (a table's steps and a unit's
  // coordinates are not clamped; tables.h).
  std::vector<char> computed(pass.dag->size(), 0);
  for (HId i : p.hdag.topological())
    if (p.hdag[i].has_origin && p.hdag[i].op != HOp::Input && p.hdag[i].origin < computed.size()) computed[p.hdag[i].origin] = 1;
  for (dag::NodeId id : pass.members)
    if (computed[id] && !(*pass.ranges)[id].within(-1.0f, 1.0f) && pass.dag->node(id).type != ir::BaseType::Bool &&
        !clamp_is_harmless(*pass.dag, *pass.ranges, id))
      out.clamped.push_back(id);
  out.ok = true;
  return out;
}

CompileResult compile_single(const dag::FragmentDag& dag, const std::vector<Interval>& ranges, const Machine& m, const CompileOptions& options) {
  PassSpec pass;
  pass.dag = &dag;
  pass.ranges = &ranges;
  pass.root = dag.root;
  for (const dag::Node& n : dag.nodes)
    if (n.kind == dag::NodeKind::Operation || n.kind == dag::NodeKind::Texture) pass.members.push_back(n.id);
  return compile_pass(pass, m, options);
}

}  // namespace passlab::combiners
