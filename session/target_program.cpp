// SPDX-License-Identifier: GPL-3.0-or-later
// The fp and register-combiner implementations of TargetProgram.
#include "session/target_program.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "session/checks.h"
#include "backends/combiners/backend.h"
#include "backends/combiners/listing.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/pass_shader.h"
#include "backends/fp/codegen.h"
#include "backends/fp/pass_shader.h"
#include "core/dag/export.h"
#include "core/partition/validate.h"

namespace passlab::session {

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
    return session::listings(t_, part, target_, line_nodes);
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

  Timeline timeline(const partition::Partition& part, const partition::CostModel& model, partition::Trace* codegen) const override {
    Timeline t = TargetProgram::timeline(part, model, nullptr);
    t.combiners = true;
    t.stage_limit = machine_.general_stages;
    const combiners::CompiledPartition cp = combiners::compile_partition(d_, ranges_, machine_, part, codegen != nullptr);
    for (std::size_t i = 0; i < cp.passes.size() && i < t.passes.size(); ++i) {
      const combiners::CompileResult& r = cp.passes[i];
      if (codegen)
        for (const combiners::CompileEvent& e : r.trace) {
          partition::TraceEvent ev;
          ev.kind = partition::EventKind::Codegen;
          ev.ok = e.kind != combiners::CEvent::Fail;
          ev.pass = static_cast<int>(i);
          ev.stage = e.hw_stage;
          codegen->add(ev, e.nodes, fmt::format("pass {}, {}", i + 1, combiners::reason(e, machine_)));
        }
      if (r.ok) fill_pass(t.passes[i], r.program);
      else if (t.passes[i].failure.empty()) {
        t.passes[i].failure = r.failure.message;
        if (r.failure.has_node) t.passes[i].failure_nodes = {r.failure.node};
      }
    }
    return t;
  }

 private:
  std::vector<std::uint32_t> origins(std::initializer_list<combiners::HId> ids, const combiners::HDag& h) const {
    std::vector<std::uint32_t> out;
    for (combiners::HId id : ids)
      if (id != combiners::kNoH && id < h.nodes.size() && h[id].has_origin) out.push_back(h[id].origin);
    return out;
  }
  std::string value_name(combiners::HId id, const combiners::HDag& h) const {
    if (id == combiners::kNoH || id >= h.nodes.size() || !h[id].has_origin) return "";
    return fmt::format("n{} {}", h[id].origin, dag::label(d_.node(h[id].origin)));
  }
  void fill_pass(TimelinePass& tp, const combiners::Program& p) const {
    const combiners::HDag& h = p.hdag;
    for (const combiners::TextureUnit& u : p.units) tp.texture_units.push_back(combiners::unit_summary(u));
    tp.stages.assign(p.stages.size(), TimelineStage{});
    auto reg = [&](int r) { return r < 0 ? std::string("discard") : machine_.registers[static_cast<std::size_t>(r)].rc; };
    for (std::size_t s = 0; s < p.stages.size(); ++s) {
      const combiners::Stage& st = p.stages[s];
      TimelineStage& ts = tp.stages[s];
      for (int part = 0; part < 2; ++part) {
        const bool rgb = part == 0;
        const combiners::Portion& po = rgb ? st.rgb : st.alpha;
        TimelinePortion& out = rgb ? ts.rgb : ts.alpha;
        if (!po.used()) continue;
        std::vector<const combiners::PartialCombiner*> pcs;
        for (const combiners::PartialCombiner& pc : p.combiners)
          if (pc.stage == static_cast<int>(s) && !combiners::is_final(pc.kind) && (combiners::part_of(pc.kind) == combiners::Part::Rgb) == rgb) pcs.push_back(&pc);
        const bool full = po.sum_out >= 0;
        out.kind = full ? "FULL" : pcs.size() > 1 ? "HALF+HALF" : "HALF";
        auto product = [&](const combiners::Variable& a, const combiners::Variable& b, bool dot, int dst, const combiners::PartialCombiner* pc,
                           combiners::HId node, combiners::HId written) {
          out.units.push_back({TimelineUnit::Kind::Input, combiners::rc_variable(a, machine_, rgb), pc ? origins({pc->a.value}, h) : std::vector<std::uint32_t>{}});
          out.units.push_back({TimelineUnit::Kind::Input, combiners::rc_variable(b, machine_, rgb), pc ? origins({pc->b.value}, h) : std::vector<std::uint32_t>{}});
          out.units.push_back({TimelineUnit::Kind::Product, dot ? "DOT" : "MUL", origins({node}, h)});
          if (dst >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(dst), origins({written}, h)});
        };
        const combiners::PartialCombiner* first = pcs.empty() ? nullptr : pcs.front();
        if (full && first) {
          out.units.push_back({TimelineUnit::Kind::Input, combiners::rc_variable(po.a, machine_, rgb), origins({first->a.value}, h)});
          out.units.push_back({TimelineUnit::Kind::Input, combiners::rc_variable(po.b, machine_, rgb), origins({first->b.value}, h)});
          out.units.push_back({TimelineUnit::Kind::Product, po.ab_dot ? "DOT" : "MUL", origins({first->ab_node}, h)});
          if (po.ab_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.ab_out), origins({first->ab_value}, h)});
          out.units.push_back({TimelineUnit::Kind::Input, combiners::rc_variable(po.c, machine_, rgb), origins({first->c.value}, h)});
          out.units.push_back({TimelineUnit::Kind::Input, combiners::rc_variable(po.d, machine_, rgb), origins({first->d.value}, h)});
          out.units.push_back({TimelineUnit::Kind::Product, po.cd_dot ? "DOT" : "MUL", origins({first->cd_node}, h)});
          if (po.cd_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.cd_out), origins({first->cd_value}, h)});
          out.units.push_back({TimelineUnit::Kind::Combine, po.mux ? "MUX" : "ADD", origins({first->combine_node}, h)});
        } else {
          const combiners::PartialCombiner* second = pcs.size() > 1 ? pcs[1] : nullptr;
          if (po.ab_out >= 0) product(po.a, po.b, po.ab_dot, -1, first, first ? first->ab_node : combiners::kNoH, combiners::kNoH);
          if (po.cd_out >= 0) product(po.c, po.d, po.cd_dot, -1, second, second ? second->ab_node : combiners::kNoH, combiners::kNoH);
        }
        if (po.out != combiners::OutMap::None) out.units.push_back({TimelineUnit::Kind::OutMap, combiners::paper_name(po.out), {}});
        if (full) out.units.push_back({TimelineUnit::Kind::Output, reg(po.sum_out), origins({first ? first->sum_value : combiners::kNoH}, h)});
        else {
          if (po.ab_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.ab_out), origins({first ? first->ab_value : combiners::kNoH}, h)});
          if (po.cd_out >= 0) out.units.push_back({TimelineUnit::Kind::Output, reg(po.cd_out), origins({pcs.size() > 1 ? pcs[1]->ab_value : combiners::kNoH}, h)});
        }
        for (const combiners::PartialCombiner* pc : pcs) out.nodes.insert(out.nodes.end(), pc->origin.begin(), pc->origin.end());
      }
      auto constant = [](const char* name, const std::array<float, 4>& c) { return fmt::format("{} ({:.2f}, {:.2f}, {:.2f}, {:.2f})", name, c[0], c[1], c[2], c[3]); };
      if (st.c0) ts.constants += constant("const0", *st.c0);
      if (st.c1) ts.constants += (ts.constants.empty() ? "" : "  ") + constant("const1", *st.c1);
    }
    for (const combiners::Lifetime& l : p.lifetimes) {
      TimelineLane lane;
      lane.reg = machine_.registers[static_cast<std::size_t>(l.reg)].name + (l.part == combiners::Part::Rgb ? ".rgb" : ".alpha");
      lane.first = l.first;
      lane.last = l.last;
      lane.input = l.input;
      lane.value = value_name(l.value, h);
      lane.nodes = origins({l.value}, h);
      tp.lanes.push_back(std::move(lane));
    }
    tp.final_rgb = combiners::rc_final_variable(p.final.d, machine_, true);
    tp.final_alpha = combiners::rc_final_variable(p.final.g, machine_, false);
  }

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

Timeline TargetProgram::timeline(const partition::Partition& part, const partition::CostModel& model, partition::Trace*) const {
  Timeline t;
  t.target = target_.name;
  for (const partition::Pass& p : part.passes) {
    TimelinePass tp;
    tp.root = p.root;
    tp.root_label = p.root < problem_.labels.size() ? problem_.labels[p.root] : "";
    tp.resources = p.resources;
    tp.members = p.members;
    tp.failure = p.failure;
    tp.cost = model.cost(1, p.resources.texture_fetches, p.resources.arithmetic);
    t.passes.push_back(std::move(tp));
  }
  return t;
}

std::unique_ptr<TargetProgram> TargetProgram::make(const dag::FragmentDag& d, const partition::TargetDesc& target, std::string* error) {
  if (target.backend == "combiners") {
    auto m = combiners::parse_machine(target, error);
    if (!m) return nullptr;
    return std::make_unique<CombinerProgram>(d, target, std::move(*m));
  }
  std::string why;
  auto t = fp::select(d, &why, target.derivatives);
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

}  // namespace passlab::session
