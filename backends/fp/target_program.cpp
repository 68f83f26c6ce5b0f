// SPDX-License-Identifier: GPL-3.0-or-later
// The fp pipeline as a target: instruction selection to the target DAG, VALID by code generation,
// the validator plus an execution check, `!!ARBfp1.0` listings and the passes as the renderer's shader.
#include "backends/fp/target_program.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "backends/fp/codegen.h"
#include "backends/fp/execute.h"
#include "backends/fp/pass_shader.h"
#include "core/partition/validate.h"

namespace passlab::fp {

namespace {

using backends::kNoNode;

std::string constant_text(const float* v, int width) {
  bool same = true;
  for (int i = 1; i < width; ++i) same = same && v[i] == v[0];
  if (same || width == 1) return fmt::format("{:g}", v[0]);
  std::string s = "(";
  for (int i = 0; i < width; ++i) s += fmt::format("{}{:g}", i ? "," : "", v[i]);
  return s + ")";
}

// The independent validator, then the passes run against the single-pass program on random fragments.
std::vector<std::string> check_partition(const partition::Problem& problem, FpBackend& backend, const dag::FragmentDag& fdag, const partition::Partition& part,
                                         const partition::CostModel& model, const ir::Binding& binding) {
  std::vector<std::string> problems = partition::validate(problem, backend, part, model);
  ir::EvalContext ctx;
  ctx.spaces = binding.spaces;
  const TargetDag& t = backend.dag();
  for (std::uint64_t seed = 1; seed <= 16 && problems.empty(); ++seed) {
    ir::FragmentInputs in = ir::random_fragment(seed);
    const ir::Neighbours next = ir::random_neighbours(in, seed);  // for the derivatives' differences
    ExecutionResult run = run_passes(t, fdag, part, in, ctx, &next);
    std::vector<Vec4> whole = evaluate_all(t, fdag, in, ctx, &next);
    if (!run.ok) problems.push_back("execution: " + run.error);
    else if (std::memcmp(run.output.data(), whole[t.root].data(), sizeof(Vec4)) != 0)
      problems.push_back(fmt::format("execution: fragment {} differs from the single-pass result", seed));
    else
      for (const auto& [node, value] : run.saved)  // every saved value, those of passes of several outputs too
        if (std::memcmp(value.data(), whole[node].data(), sizeof(Vec4)) != 0) {
          problems.push_back(fmt::format("execution: fragment {}: the value saved for n{} differs from the single pass's", seed, node));
          break;
        }
  }
  return problems;
}

// The `!!ARBfp1.0` listing of each pass; with `line_nodes`, the node each line computes.
std::vector<std::string> pass_listings(const TargetDag& t, const partition::Partition& part,
                                  const partition::TargetDesc& target,
                                  std::vector<std::vector<std::uint32_t>>* line_nodes) {
  ListingContext lc;
  lc.pass_count = static_cast<int>(part.passes.size());
  for (std::size_t i = 0; i < part.passes.size(); ++i)
    for (TNodeId o : part.passes[i].outputs) lc.saved_by_pass[o] = static_cast<int>(i);
  for (const auto& [n, tex] : part.texture) lc.saved_texture[n] = tex;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < part.passes.size(); ++i) {
    lc.pass_index = static_cast<int>(i);
    PassWorkspace ws;
    PassProgram prog;
    const std::vector<TNodeId>& outputs = part.passes[i].outputs.empty() ? std::vector<TNodeId>{part.passes[i].root} : part.passes[i].outputs;
    generate_pass(t, outputs, part.passes[i].members, target.limits, target.restore_uses_interpolant, ws, prog);
    out.push_back(listing(t, prog, lc));
    if (line_nodes) {
      // The schedule's instructions are the listing's last lines before END, in issue order, each
      // output a member reads followed by its copy to its render target.
      std::size_t lines = static_cast<std::size_t>(std::count(out.back().begin(), out.back().end(), '\n'));
      std::vector<std::uint32_t> map(lines, kNoNode);
      std::size_t copies = 0;
      for (char c : prog.copied_out) copies += c ? 1 : 0;
      std::size_t line = lines - 1 - prog.schedule.size() - copies;
      for (std::size_t k = 0; k < prog.schedule.size(); ++k) {
        map[line++] = prog.schedule[k];
        if (prog.is_restore[k]) continue;
        auto o = std::find(prog.outputs.begin(), prog.outputs.end(), prog.schedule[k]);
        if (o != prog.outputs.end() && prog.copied_out[static_cast<std::size_t>(o - prog.outputs.begin())]) map[line++] = prog.schedule[k];
      }
      line_nodes->push_back(std::move(map));
    }
  }
  return out;
}

class FpProgram : public backends::TargetProgram {
 public:
  FpProgram(const dag::FragmentDag& d, TargetDag t, const partition::TargetDesc& target) : d_(d), t_(std::move(t)) {
    target_ = target;
    problem_ = make_problem(t_);
    graph_.root = t_.root;
    for (const TNode& n : t_.nodes) {
      backends::GraphNode g;
      switch (n.kind) {
        case TKind::Instruction:
          g.kind = backends::GraphNode::Kind::Instruction;
          g.label = std::string(to_string(n.op)) + (n.saturate ? "_SAT" : "");
          break;
        case TKind::Texture:
          g.kind = backends::GraphNode::Kind::Texture;
          g.label = n.name == "$noise" ? "noise" : n.name;
          break;
        case TKind::Interpolant:
          g.kind = backends::GraphNode::Kind::Interpolant;
          g.label = n.name;
          break;
        case TKind::Constant:
          g.kind = backends::GraphNode::Kind::Constant;
          g.label = constant_text(n.value.data(), n.width);
          break;
        case TKind::Loop:
          g.kind = backends::GraphNode::Kind::Instruction;
          g.label = "REP (" + n.name + ")";
          break;
        case TKind::LoopValue:  // only inside a loop's body
          g.kind = backends::GraphNode::Kind::Interpolant;
          g.label = n.name;
          break;
      }
      g.deps = n.deps;
      g.spans = n.spans;
      graph_.nodes.push_back(std::move(g));
    }
    if (!t_.outputs.empty()) {  // the partition problem's pseudo-root (make_problem), drawn over the outputs
      backends::GraphNode g;
      g.kind = backends::GraphNode::Kind::Instruction;
      g.label = "outputs";
      g.deps = t_.outputs;
      graph_.root = static_cast<std::uint32_t>(graph_.nodes.size());
      graph_.nodes.push_back(std::move(g));
    }
  }
  std::unique_ptr<partition::Backend> backend() const override { return std::make_unique<FpBackend>(t_, target_); }
  std::vector<std::string> check(const partition::Partition& part, const partition::CostModel& model, const ir::Binding& binding) const override {
    FpBackend b(t_, target_);
    return check_partition(problem_, b, d_, part, model, binding);
  }
  std::vector<std::string> listings(const partition::Partition& part, std::vector<std::vector<std::uint32_t>>* line_nodes) const override {
    return pass_listings(t_, part, target_, line_nodes);
  }
  std::string listing_extension() const override { return "fp"; }
  std::unique_ptr<sim::FragmentShader> shader(const partition::Partition* part, const ir::EvalContext& ctx, std::string*,
                                              const backends::ShaderOptions&) const override {
    if (!part) return std::make_unique<PassShader>(t_, d_, ctx);
    return std::make_unique<PassShader>(t_, d_, *part, ctx);
  }

 private:
  const dag::FragmentDag& d_;
  TargetDag t_;
};

}  // namespace

backends::Backend registration() {
  backends::Backend b;
  b.name = "fp";
  b.description = "an ARB_fragment_program-style pipeline: the pass limits of the target file";
  b.listing_extension = "fp";
  b.make = [](const dag::FragmentDag& d, const partition::TargetDesc& target, lang::DiagnosticSink& sink) -> std::unique_ptr<backends::TargetProgram> {
    lang::Diagnostic why;
    auto t = select(d, &why, target);
    if (!t) {
      why.message = "the fp target cannot run this shader: " + why.message;
      sink.report(std::move(why));
      return nullptr;
    }
    return std::make_unique<FpProgram>(d, std::move(*t), target);
  };
  return b;
}

}  // namespace passlab::fp
