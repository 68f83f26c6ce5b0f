// The fp and register-combiner implementations of TargetProgram.
#include "app/pipeline/target_program.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "app/pipeline/checks.h"
#include "backends/combiners/backend.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/pass_shader.h"
#include "backends/fp/codegen.h"
#include "backends/fp/pass_shader.h"
#include "core/dag/export.h"
#include "core/partition/validate.h"

namespace passlab::pipeline {

namespace {

std::string constant_text(const float* v, int width) {
  bool same = true;
  for (int i = 1; i < width; ++i) same = same && v[i] == v[0];
  if (same || width == 1) return fmt::format("{:g}", v[0]);
  std::string s = "(";
  for (int i = 0; i < width; ++i) s += fmt::format("{}{:g}", i ? "," : "", v[i]);
  return s + ")";
}

// ---- the fp pipeline ----------------------------------------------------------------------------

class FpProgram : public TargetProgram {
 public:
  FpProgram(const dag::FragmentDag& d, fp::TargetDag t, const partition::TargetDesc& target) : d_(d), t_(std::move(t)) {
    target_ = target;
    problem_ = fp::make_problem(t_);
    graph_.root = t_.root;
    for (const fp::TNode& n : t_.nodes) {
      GraphNode g;
      switch (n.kind) {
        case fp::TKind::Instruction:
          g.kind = GraphNode::Kind::Instruction;
          g.label = std::string(fp::to_string(n.op)) + (n.saturate ? "_SAT" : "");
          break;
        case fp::TKind::Texture:
          g.kind = GraphNode::Kind::Texture;
          g.label = n.name == "$noise" ? "noise" : n.name;
          break;
        case fp::TKind::Interpolant:
          g.kind = GraphNode::Kind::Interpolant;
          g.label = n.name;
          break;
        case fp::TKind::Constant:
          g.kind = GraphNode::Kind::Constant;
          g.label = constant_text(n.value.data(), n.width);
          break;
      }
      g.deps = n.deps;
      g.spans = n.spans;
      graph_.nodes.push_back(std::move(g));
    }
  }
  std::unique_ptr<partition::Backend> backend() const override { return std::make_unique<fp::FpBackend>(t_, target_); }
  std::vector<std::string> check(const partition::Partition& part, const partition::CostModel& model, const ir::Binding& binding) const override {
    fp::FpBackend b(t_, target_);
    return check_partition(problem_, b, d_, part, model, binding);
  }
  std::vector<std::string> listings(const partition::Partition& part, std::vector<std::vector<std::uint32_t>>* line_nodes) const override {
    return pipeline::listings(t_, part, target_, line_nodes);
  }
  std::string listing_extension() const override { return "fp"; }
  std::unique_ptr<sim::FragmentShader> shader(const partition::Partition* part, const ir::EvalContext& ctx, std::string*,
                                              const ShaderOptions&) const override {
    if (!part) return std::make_unique<fp::PassShader>(t_, d_, ctx);
    return std::make_unique<fp::PassShader>(t_, d_, *part, ctx);
  }
  const fp::TargetDag* fp_dag() const override { return &t_; }

 private:
  const dag::FragmentDag& d_;
  fp::TargetDag t_;
};

// ---- register combiners -------------------------------------------------------------------------

class CombinerProgram : public TargetProgram {
 public:
  CombinerProgram(const dag::FragmentDag& original, const partition::TargetDesc& target, combiners::Machine m)
      : lowered_(combiners::lower(original)), d_(lowered_), machine_(std::move(m)), ranges_(combiners::intervals(d_)) {
    const dag::FragmentDag& d = d_;
    target_ = target;
    problem_ = combiners::make_problem(d);
    graph_.root = d.root;
    for (const dag::Node& n : d.nodes) {
      GraphNode g;
      g.kind = n.kind == dag::NodeKind::Texture ? GraphNode::Kind::Texture
               : n.kind == dag::NodeKind::Interpolant ? GraphNode::Kind::Interpolant
               : n.kind == dag::NodeKind::Constant   ? GraphNode::Kind::Constant
                                                      : GraphNode::Kind::Instruction;
      g.label = dag::label(n);
      for (dag::NodeId c : n.children)
        if (std::find(g.deps.begin(), g.deps.end(), c) == g.deps.end()) g.deps.push_back(c);
      g.spans = n.spans;
      graph_.nodes.push_back(std::move(g));
    }
  }
  std::unique_ptr<partition::Backend> backend() const override {
    return std::make_unique<combiners::CombinerBackend>(d_, target_, machine_);
  }
  std::vector<std::string> check(const partition::Partition& part, const partition::CostModel& model, const ir::Binding& binding) const override {
    combiners::CombinerBackend b(d_, target_, machine_);
    std::vector<std::string> problems = partition::validate(problem_, b, part, model);
    if (!problems.empty() || !part.valid) return problems;
    const combiners::CompiledPartition cp = combiners::compile_partition(d_, ranges_, machine_, part);
    if (!cp.ok) return {"compile: " + cp.failure};
    // Execution: the passes, each restoring what earlier ones wrote, against the reference on
    // fragments where no value leaves the registers' [-1, 1] (there the hardware clamps and the
    // reference does not, by design).
    ir::EvalContext ctx;
    ctx.spaces = binding.spaces;
    int compared = 0;
    for (std::uint64_t seed = 1; seed <= 400 && compared < 32 && problems.empty(); ++seed) {
      const ir::FragmentInputs in = ir::random_fragment(seed);
      const std::vector<ir::Value> all = dag::evaluate_all(d_, in, ctx);
      if (!unclamped(in, ctx, all)) continue;
      ++compared;
      Reference src(d_, in, ctx);
      const combiners::Rgba got = combiners::run_passes(cp, part, machine_, src);
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
    const combiners::CompiledPartition cp = combiners::compile_partition(d_, ranges_, machine_, part);
    for (std::size_t i = 0; i < cp.passes.size(); ++i) {
      combiners::ListingContext lc{&d_, static_cast<int>(i), static_cast<int>(cp.passes.size())};
      out.push_back(cp.passes[i].ok ? combiners::listing(cp.passes[i].program, machine_, lc)
                                    : fmt::format("// pass {} does not fit {}: {}\n", i + 1, machine_.name, cp.passes[i].failure.message));
      if (line_nodes) line_nodes->push_back(line_map(out.back(), cp.passes[i]));
    }
    return out;
  }
  std::string listing_extension() const override { return "rc"; }
  std::unique_ptr<sim::FragmentShader> shader(const partition::Partition* part, const ir::EvalContext& ctx, std::string* error,
                                              const ShaderOptions& options) const override {
    // The shader keeps references to its partition and compiled passes: it owns them here.
    auto holder = std::make_unique<Owned>();
    if (part) {
      holder->part = *part;
    } else {
      holder->part.passes.push_back(whole_pass());
      holder->part.valid = true;
    }
    holder->cp = combiners::compile_partition(d_, ranges_, machine_, holder->part);
    if (!holder->cp.ok) {
      if (error) *error = fmt::format("{} cannot run it in {}: {}", machine_.name, part ? "these passes" : "one pass", holder->cp.failure);
      return nullptr;
    }
    combiners::SimOptions so;
    so.hardware_precision = options.hardware_precision;
    holder->shader = std::make_unique<combiners::PassShader>(d_, holder->part, holder->cp, machine_, ctx, so);
    return holder;
  }
  const combiners::Machine* combiner_machine() const override { return &machine_; }

 private:
  // A FragmentShader that owns the partition and compiled passes its combiner shader reads.
  struct Owned : sim::FragmentShader {
    partition::Partition part;
    combiners::CompiledPartition cp;
    std::unique_ptr<combiners::PassShader> shader;
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
  class Reference : public combiners::FragmentSource {
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
    combiners::Rgba sample(const std::string& t, int dims, const float* c) const override {
      if (t == "$noise") return ir::sample_noise(dims, c);
      return ctx_.textures ? ctx_.textures->sample(t, dims, c) : ir::ProceduralTextures().sample(t, dims, c);
    }
    combiners::Rgba restored(dag::NodeId) const override { return {0, 0, 0, 0}; }

   private:
    const dag::FragmentDag& d_;
    const ir::FragmentInputs& in_;
    const ir::EvalContext& ctx_;
    std::vector<ir::Value> vertex_;
  };

  // Whether the registers' [-1, 1] changes nothing on this fragment (then the hardware must
  // reproduce the reference; elsewhere it clamps by design).
  bool unclamped(const ir::FragmentInputs& in, const ir::EvalContext& ctx, const std::vector<ir::Value>& all) const {
    const std::vector<ir::Value> c = dag::evaluate_all_clamped(d_, in, ctx, -1.0f, 1.0f);
    for (std::size_t k = 0; k < 4; ++k)
      if (!(std::fabs(std::clamp(all[d_.root].f[k], 0.0f, 1.0f) - std::clamp(c[d_.root].f[k], 0.0f, 1.0f)) <= 1e-6f)) return false;
    return true;
  }
  partition::Pass whole_pass() const {
    partition::Pass p;
    p.root = d_.root;
    for (const dag::Node& n : d_.nodes)
      if (n.kind == dag::NodeKind::Operation || n.kind == dag::NodeKind::Texture) p.members.push_back(n.id);
    return p;
  }
  // Listing lines name the FragmentDag nodes a general combiner stage computes only as a whole;
  // the map gives each stage's first line the first node it computes.
  static std::vector<std::uint32_t> line_map(const std::string& text, const combiners::CompileResult& r) {
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    std::vector<std::uint32_t> map(lines, kNoNode);
    if (!r.ok) return map;
    std::size_t line = 0, pos = 0;
    int stage = -1;
    while (pos < text.size() && line < lines) {
      const std::size_t end = text.find('\n', pos);
      const std::string l = text.substr(pos, end - pos);
      if (l.rfind("{ // stage ", 0) == 0) stage = std::atoi(l.c_str() + 11);
      if (stage >= 0)
        for (const combiners::PartialCombiner& pc : r.program.combiners)
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
  combiners::Machine machine_;
  std::vector<combiners::Interval> ranges_;
};

}  // namespace

std::unique_ptr<TargetProgram> TargetProgram::make(const dag::FragmentDag& d, const partition::TargetDesc& target, std::string* error) {
  if (target.backend == "combiners") {
    auto m = combiners::parse_machine(target, error);
    if (!m) return nullptr;
    return std::make_unique<CombinerProgram>(d, target, std::move(*m));
  }
  std::string why;
  auto t = fp::select(d, &why);
  if (!t) {
    if (error) *error = "the fp target cannot run this shader: " + why;
    return nullptr;
  }
  return std::make_unique<FpProgram>(d, std::move(*t), target);
}

std::vector<std::uint32_t> nodes_on_line(const TargetGraph& g, const lang::SourceManager& sources, const std::string& path, std::uint32_t line) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& sp : g.nodes[i].spans)
      if (sp.valid() && sp.line == line && sources.file(sp.file).path == path) {
        out.push_back(static_cast<std::uint32_t>(i));
        break;
      }
  return out;
}

}  // namespace passlab::pipeline
