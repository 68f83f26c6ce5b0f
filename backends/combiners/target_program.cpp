// SPDX-License-Identifier: GPL-3.0-or-later
// The register combiners as a target: the FragmentDag with multi-step functions expanded, VALID by
// Mark & Proudfoot's five stages per pass, the validator plus an execution check against the
// reference, nvparse listings, the timeline and the passes as the renderer's shader.
#include "backends/combiners/target_program.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "backends/combiners/backend.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/tables.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/pass_shader.h"
#include "backends/combiners/timeline.h"
#include "core/dag/export.h"
#include "core/partition/validate.h"

namespace passlab::combiners {

namespace {

class CombinerProgram : public backends::TargetProgram {
 public:
  CombinerProgram(const dag::FragmentDag& original, const partition::TargetDesc& target, Machine m)
      : lowered_(lower(original, m.texture_units)), d_(lowered_), machine_(std::move(m)), ranges_(intervals(d_)) {
    const dag::FragmentDag& d = d_;
    target_ = target;
    problem_ = make_problem(d);
    graph_.root = d.root;
    for (const dag::Node& n : d.nodes) {
      backends::GraphNode g;
      g.kind = n.kind == dag::NodeKind::Texture ? backends::GraphNode::Kind::Texture
               : n.kind == dag::NodeKind::Interpolant ? backends::GraphNode::Kind::Interpolant
               : n.kind == dag::NodeKind::Constant   ? backends::GraphNode::Kind::Constant
                                                      : backends::GraphNode::Kind::Instruction;
      g.label = dag::label(n);
      for (dag::NodeId c : n.children)
        if (std::find(g.deps.begin(), g.deps.end(), c) == g.deps.end()) g.deps.push_back(c);
      g.spans = n.spans;
      graph_.nodes.push_back(std::move(g));
    }
  }
  std::unique_ptr<partition::Backend> backend() const override {
    return std::make_unique<CombinerBackend>(d_, target_, machine_);
  }
  std::vector<std::string> check(const partition::Partition& part, const partition::CostModel& model, const ir::Binding& binding) const override {
    CombinerBackend b(d_, target_, machine_);
    std::vector<std::string> problems = partition::validate(problem_, b, part, model);
    if (!problems.empty() || !part.valid) return problems;
    const CompiledPartition cp = compile_partition(d_, ranges_, machine_, part);
    if (!cp.ok) return {"compile: " + cp.failure};
    // Execution: the passes, each restoring what earlier ones wrote, against the reference on
    // fragments where no value leaves the registers' [-1, 1] (there the hardware clamps and the
    // reference does not, by design).
    ir::EvalContext ctx;
    ctx.spaces = binding.spaces;
    const std::vector<char> exact = unclamped_nodes(d_, cp);
    int compared = 0;
    for (std::uint64_t seed = 1; seed <= 400 && compared < 32 && problems.empty(); ++seed) {
      const ir::FragmentInputs in = ir::random_fragment(seed);
      const std::vector<ir::Value> all = dag::evaluate_all(d_, in, ctx);
      // Exact where no step's clamp changes a value (clamping_changes_nothing says why the colour
      // alone is not enough).
      if (!clamping_changes_nothing(d_, all, dag::evaluate_all_clamped(d_, in, ctx, -1.0f, 1.0f, &exact), true)) continue;
      ++compared;
      Reference src(d_, in, ctx);
      const Rgba got = run_passes(cp, part, machine_, src);
      const ir::Value& want = all[d_.root];
      for (int k = 0; k < 4; ++k)
        if (std::fabs(got[static_cast<std::size_t>(k)] - std::clamp(want.f[static_cast<std::size_t>(k)], 0.0f, 1.0f)) > 1e-4f) {
          problems.push_back(fmt::format("execution: fragment {} gives {:g} in channel {}, the reference {:g}", seed, got[static_cast<std::size_t>(k)], k,
                                         want.f[static_cast<std::size_t>(k)]));
          break;
        }
    }
    return problems;
  }
  std::vector<std::string> listings(const partition::Partition& part, std::vector<std::vector<std::uint32_t>>* line_nodes) const override {
    std::vector<std::string> out;
    const CompiledPartition cp = compile_partition(d_, ranges_, machine_, part);
    for (std::size_t i = 0; i < cp.passes.size(); ++i) {
      ListingContext lc{&d_, static_cast<int>(i), static_cast<int>(cp.passes.size())};
      out.push_back(cp.passes[i].ok ? listing(cp.passes[i].program, machine_, lc)
                                    : fmt::format("// pass {} does not fit {}: {}\n", i + 1, machine_.name, cp.passes[i].failure.message));
      if (line_nodes) line_nodes->push_back(line_map(out.back(), cp.passes[i]));
    }
    return out;
  }
  std::string listing_extension() const override { return "rc"; }
  std::vector<std::vector<backends::PassFile>> listing_files(const partition::Partition& part) const override {
    std::vector<std::vector<backends::PassFile>> out;
    const CompiledPartition cp = compile_partition(d_, ranges_, machine_, part);
    for (std::size_t i = 0; i < cp.passes.size(); ++i) {
      ListingContext lc{&d_, static_cast<int>(i), static_cast<int>(cp.passes.size())};
      out.emplace_back();
      if (!cp.passes[i].ok) {
        out.back().push_back({"txt", fmt::format("pass {} does not fit {}: {}\n", i + 1, machine_.name, cp.passes[i].failure.message)});
        continue;
      }
      for (ListingFile& f : combiners::listing_files(cp.passes[i].program, machine_, lc)) out.back().push_back({f.extension, std::move(f.text)});
    }
    return out;
  }
  std::unique_ptr<sim::FragmentShader> shader(const partition::Partition* part, const ir::EvalContext& ctx, std::string* error,
                                              const backends::ShaderOptions& options) const override {
    // The shader keeps references to its partition and compiled passes: it owns them here.
    auto holder = std::make_unique<Owned>();
    if (part) {
      holder->part = *part;
    } else {
      holder->part.passes.push_back(whole_pass());
      holder->part.valid = true;
    }
    holder->cp = compile_partition(d_, ranges_, machine_, holder->part);
    if (!holder->cp.ok) {
      if (error) *error = fmt::format("{} cannot run it in {}: {}", machine_.name, part ? "these passes" : "one pass", holder->cp.failure);
      return nullptr;
    }
    SimOptions so;
    so.hardware_precision = options.hardware_precision;
    holder->shader = std::make_unique<PassShader>(d_, holder->part, holder->cp, machine_, ctx, so);
    return holder;
  }

  backends::Timeline timeline(const partition::Partition& part, const partition::CostModel& model, partition::Trace* codegen) const override {
    backends::Timeline t = TargetProgram::timeline(part, model, nullptr);
    t.combiners = true;
    t.stage_limit = machine_.general_stages;
    const CompiledPartition cp = compile_partition(d_, ranges_, machine_, part, codegen != nullptr);
    for (std::size_t i = 0; i < cp.passes.size() && i < t.passes.size(); ++i) {
      const CompileResult& r = cp.passes[i];
      if (codegen)
        for (const CompileEvent& e : r.trace) {
          partition::TraceEvent ev;
          ev.kind = partition::EventKind::Codegen;
          ev.ok = e.kind != CEvent::Fail;
          ev.pass = static_cast<int>(i);
          ev.stage = e.hw_stage;
          codegen->add(ev, e.nodes, fmt::format("pass {}, {}", i + 1, reason(e, machine_)));
        }
      if (r.ok) fill_timeline_pass(t.passes[i], r.program, machine_, d_);
      else if (t.passes[i].failure.empty()) {
        t.passes[i].failure = r.failure.message;
        if (r.failure.has_node) t.passes[i].failure_nodes = {r.failure.node};
      }
    }
    return t;
  }

 private:
  // A FragmentShader that owns the partition and compiled passes its combiner shader reads.
  struct Owned : sim::FragmentShader {
    partition::Partition part;
    CompiledPartition cp;
    std::unique_ptr<PassShader> shader;
    int passes() const override { return shader->passes(); }
    int interpolants() const override { return shader->interpolants(); }
    bool screen_derivatives(int k) const override { return shader->screen_derivatives(k); }
    void corner(const ir::FragmentInputs& in, float* out) const override { shader->corner(in, out); }
    unsigned interpolant_mask(int pass, int k) const override { return shader->interpolant_mask(pass, k); }
    int buffers() const override { return shader->buffers(); }
    const std::vector<int>& restores(int pass) const override { return shader->restores(pass); }
    int saves(int pass) const override { return shader->saves(pass); }
    void run(int pass, int n, const float* const* in, const float* const* restored, float* out, std::vector<float>& scratch) const override {
      shader->run(pass, n, in, restored, out, scratch);
    }
  };
  class Reference : public FragmentSource {
   public:
    Reference(const dag::FragmentDag& d, const ir::FragmentInputs& in, const ir::EvalContext& ctx) : d_(d), in_(in), ctx_(ctx) {
      vertex_ = dag::vertex_outputs(d, in, ctx);
    }
    std::array<float, 3> value(dag::NodeId node) const override {
      const dag::Node& n = d_.node(node);
      if (n.kind == dag::NodeKind::Constant)
        return {n.value.size() > 0 ? n.value[0] : 0.0f, n.value.size() > 1 ? n.value[1] : 0.0f, n.value.size() > 2 ? n.value[2] : 0.0f};
      const ir::Value v = dag::interpolant_value(d_, node, in_, vertex_);
      return {v.f[0], v.f[1], v.f[2]};
    }
    Rgba sample(const std::string& t, int dims, const float* c) const override {
      if (t == "$noise") return ir::sample_noise(dims, c);
      return ctx_.textures ? ctx_.textures->sample(t, dims, c) : ir::ProceduralTextures().sample(t, dims, c);
    }
    Rgba restored(dag::NodeId) const override { return {0, 0, 0, 0}; }

   private:
    const dag::FragmentDag& d_;
    const ir::FragmentInputs& in_;
    const ir::EvalContext& ctx_;
    std::vector<ir::Value> vertex_;
  };

  partition::Pass whole_pass() const {
    partition::Pass p;
    p.root = d_.root;
    p.outputs = {d_.root};
    for (const dag::Node& n : d_.nodes)
      if (n.kind == dag::NodeKind::Operation || n.kind == dag::NodeKind::Texture) p.members.push_back(n.id);
    return p;
  }
  // Listing lines name the FragmentDag nodes a general combiner stage computes only as a whole;
  // the map gives each stage's first line the first node it computes.
  static std::vector<std::uint32_t> line_map(const std::string& text, const CompileResult& r) {
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    std::vector<std::uint32_t> map(lines, backends::kNoNode);
    if (!r.ok) return map;
    std::size_t line = 0, pos = 0;
    int stage = -1;
    while (pos < text.size() && line < lines) {
      const std::size_t end = text.find('\n', pos);
      const std::string l = text.substr(pos, end - pos);
      if (l.rfind("{ // stage ", 0) == 0) stage = std::atoi(l.c_str() + 11);
      if (stage >= 0)
        for (const PartialCombiner& pc : r.program.combiners)
          if (pc.stage == stage && !pc.origin.empty()) {
            map[line] = pc.origin.back();
            break;
          }
      pos = end + 1;
      ++line;
    }
    return map;
  }

  // The combiners partition the shader with multi-step functions expanded (combiners/lower.h).
  dag::FragmentDag lowered_;
  const dag::FragmentDag& d_;
  Machine machine_;
  std::vector<Interval> ranges_;
};

}  // namespace

backends::Backend registration() {
  backends::Backend b;
  b.name = "combiners";
  b.description = "NVIDIA register combiners and texture shaders (the target's \"combiners\" object is the machine)";
  b.listing_extension = "rc";
  b.needs_machine = true;
  b.check_machine = [](const partition::TargetDesc& target, lang::Diagnostics& diagnostics) {
    return parse_machine(target, &diagnostics).has_value();
  };
  b.make = [](const dag::FragmentDag& d, const partition::TargetDesc& target, lang::DiagnosticSink& sink) -> std::unique_ptr<backends::TargetProgram> {
    // The registry checked the machine with its file; here only the shader's sink is at hand.
    lang::Diagnostics problems;
    auto m = parse_machine(target, &problems);
    if (!m) {
      sink.error("target", {}, problems.summary());
      return nullptr;
    }
    // The combiners' final stage writes one colour: a shader of several outputs (--all-outputs)
    // needs render targets the GeForces do not have.
    if (d.node(d.root).kind == dag::NodeKind::Operation && d.node(d.root).op == ir::Op::Outputs) {
      sink.error("several-outputs", d.node(d.root).spans.empty() ? lang::Span{} : d.node(d.root).spans.front(),
                 fmt::format("the register combiners write one colour, and this shader has {} outputs (its output parameters "
                             "compiled too): compile its colour alone, or choose a target of the fp backend",
                             d.node(d.root).children.size()));
      return nullptr;
    }
    return std::make_unique<CombinerProgram>(d, target, std::move(*m));
  };
  return b;
}

}  // namespace passlab::combiners
