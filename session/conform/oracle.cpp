// SPDX-License-Identifier: GPL-3.0-or-later
// The conformance oracle (see oracle.h).
#include "session/conform/oracle.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "session/conform/reference_shader.h"
#include "backends/registry/registry.h"
#include "backends/combiners/backend.h"
#include "backends/combiners/lower.h"
#include "backends/combiners/machine.h"
#include "backends/combiners/nvparse_check.h"
#include "backends/rpu/quad.h"
#include "backends/rpu/reference.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "core/dag/flatten.h"
#include "core/driver/program.h"
#include "core/partition/registry.h"
#include "core/partition/validate.h"
#include "core/paths/data_dir.h"
#include "core/sim/decoupled.h"
#include "core/sim/render.h"
#include "core/sim/scene.h"

namespace passlab::conform {

namespace {

using Rgba = std::array<float, 4>;

// A backend's arithmetic, as the oracle models its rounding: Monte Carlo perturbations of each
// operation's result (ir::Perturbation; its seed is set per run), and the floor under which
// values always agree.
struct Precision {
  const char* name;
  ir::Perturbation perturb;
  float floor_abs = 0, floor_rel = 0;
};
Precision precision(const char* name, float relative, float absolute, float floor_abs, float floor_rel) {
  Precision p{name, {}, floor_abs, floor_rel};
  p.perturb.relative = relative;
  p.perturb.absolute = absolute;
  return p;
}
// The interpreter against itself (the optimised IR, the flattened DAG): IEEE single precision, operations that differ by a few units in the last place.
const Precision& ieee() {
  static const Precision p = precision("ieee", 0x1p-20f, 0, 1e-5f, 1e-5f);
  return p;
}
// The combiners' float mode: IEEE single, in registers of range [-1, 1] where the machine's own
// steps are absolute, not relative: x > y is tested as y - x + 1/2 >= 1/2 and a signed value
// crosses a pass stored biased, (x + 1) / 2, so a value within a few units in the last place of 1
// (2^-24) of zero may read as zero or change sign ((0.3 s t)^2 > 0 was false at s t = 5e-4).
const Precision& combiners_float() {
  static const Precision p = precision("combiners-float", 0x1p-20f, 0x1p-22f, 1e-5f, 1e-5f);
  return p;
}
// The fp ISA: IEEE single, and acos, asin, atan and atan2 as Abramowitz and Stegun's polynomial
// 4.4.45 (within 7e-5; backends/fp/select.cpp).
const Precision& fp_isa() {
  static const Precision p = [] {
    Precision q = precision("fp", 0x1p-20f, 0, 1e-5f, 1e-5f);
    for (lang::Builtin b : {lang::Builtin::Acos, lang::Builtin::Asin, lang::Builtin::Atan, lang::Builtin::Atan2})
      q.perturb.builtin[static_cast<std::size_t>(b)] = 7e-5f;
    return q;
  }();
  return p;
}
// The RPU's IEEE mode: its runtime library computes sin, pow, exp and log by series; its sign(0) is 1
// (the thesis's choice, backends/rpu/README.md), so sign of an exact zero is not compared.
const Precision& rpu_ieee() {
  static const Precision p = [] {
    Precision q = precision("rpu-ieee", 0x1p-18f, 0, 1e-5f, 1e-5f);
    q.perturb.equality = 0x1p-18f;
    q.perturb.integral = 0x1p23f;  // IEEE single holds no fractions from 2^23
    q.perturb.sign_of_zero_undefined = true;
    return q;
  }();
  return p;
}
// The RPU's 24-bit floats: 16 mantissa bits, rounded to nearest (2^-17 relative per operation),
// magnitudes from 2^64 infinite and below 2^-62 zero (a value beyond that range is undefined
// there), no fractions from 2^16 (floor or mod of such a value is undefined there too).
const Precision& fp24() {
  static const Precision p = [] {
    Precision q = precision("fp24", 0x1p-15f, 0, 1e-4f, 1e-4f);
    q.perturb.overflow = 0x1p64f;
    q.perturb.underflow = 0x1p-62f;
    q.perturb.integral = 0x1p16f;
    q.perturb.equality = 0x1p-15f;
    q.perturb.sign_of_zero_undefined = true;
    return q;
  }();
  return p;
}
// The combiners' hardware precision: 8-bit inputs and intermediates, 9-bit signed registers; a
// signed value stored biased, (x + 1) / 2, steps by 2/255 once expanded, so an operation's
// result is within 2/255 of the exact one (1/255 was optimistic: a normal's squared length, from
// three such components, reached past it).
const Precision& fixed8() {
  static const Precision p = precision("fixed8", 0, 2.0f / 255, 4.0f / 255, 0);
  return p;
}

// What IEEE single precision leaves undefined, without perturbing anything: == or != of values a
// few roundings apart (ir::Perturbation::equality; the fp target's normalize, by RSQ, and the
// reference's differ by that much), and floor, ceil, round and mod of values past 2^23, where it
// has no fractions. The reference's answers for the fragment pipeline and the combiners.
const ir::Perturbation& single_range() {
  static const ir::Perturbation p = [] {
    ir::Perturbation e;
    e.equality = 0x1p-20f;
    e.integral = 0x1p23f;
    return e;
  }();
  return p;
}

// Steps one run of the reference may take (a generated loop runs tens of iterations; a reduced
// candidate may loop forever, and is then undefined rather than slow).
constexpr std::uint64_t kMaxSteps = 2'000'000;

constexpr int kQuickRuns = 4;     // perturbed runs that set the tolerance
constexpr int kConfirmRuns = 48;  // and that a difference beyond it must survive
constexpr int kDeepRuns = 256;    // and then these: a step a result crosses in a few percent of runs
constexpr float kSafety = 4;

// Whether a difference beyond the quick tolerance survives confirmation: within twice the widest
// deviation of 48 perturbed runs, or else of 256. A pseudo-random hash (fract(sin(x) * 43758))
// stepped at 0.985 flips in 1.5% of runs, which 48 runs miss half the time and 256 almost never
// (a transformed sample found it). `deviation(n)` is the widest of the first n runs; `tolerance`
// gets the last one tried.
template <class Deviation>
bool confirmed_within(float difference, float floor, Deviation deviation, float* tolerance) {
  for (int n : {kConfirmRuns, kDeepRuns}) {
    *tolerance = floor + 2 * deviation(n);
    // An infinite tolerance: some perturbed run of the reference met a NaN or an infinity there
    // (a square root of a value that may round below zero), so any value, NaN too, is one of its.
    if (difference <= *tolerance || std::isinf(*tolerance)) return true;
  }
  return false;
}

bool same_bits(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

Rgba rgba_of(const ir::RunResult& r) {
  Rgba out{0, 0, 0, 1};
  if (r.results.size() >= 1)
    for (int c = 0; c < 3; ++c) out[static_cast<std::size_t>(c)] = r.results[0].f[static_cast<std::size_t>(c)];
  if (r.results.size() >= 2) out[3] = r.results[1].f[0];
  return out;
}

bool nonfinite(const std::vector<ir::Value>& values) {
  for (const ir::Value& v : values) {
    if (v.type == lang::BaseType::String) continue;
    const int n = v.type == lang::BaseType::Bool ? 1 : std::max(1, lang::component_count(v.type));
    for (int i = 0; i < n; ++i)
      if (!std::isfinite(v.f[static_cast<std::size_t>(i)])) return true;
  }
  return false;
}

// One random fragment and what the reference makes of it.
struct Case {
  ir::FragmentInputs in;
  ir::Neighbours next;  // the fragments a pixel right and below, for screen-space derivatives
  ir::RunOptions options(const ir::Perturbation* perturb = nullptr) const {
    ir::RunOptions ro;
    ro.max_steps = kMaxSteps;
    ro.perturb = perturb;
    ro.right = &next.right;
    ro.below = &next.below;
    return ro;
  }
  Rgba ref{};
  bool defined = false;      // the reference finished and met no NaN or infinity
  bool dag_defined = true;   // no node of the if-converted DAG is a NaN or infinity either
  bool loop_dag_defined = true;  // nor of the DAG with dynamic loops
  std::map<const Precision*, std::vector<Rgba>> runs;  // perturbed reference runs
};

// The whole compiled program the checks share.
struct Compiled {
  std::unique_ptr<driver::Program> reference;  // unoptimised: the oracle
  std::unique_ptr<driver::Program> optimized;
  ir::EvalContext ctx;
  std::vector<Case> cases;
  std::optional<dag::FragmentDag> dag;
  std::string dag_refusal;
  // The DAG a target with dynamic loops runs (dag::FlattenOptions::dynamic_loops), when it keeps
  // a loop as a loop; else such targets take `dag`.
  std::optional<dag::FragmentDag> loop_dag;
  std::string loop_dag_refusal;
  // The DAG target `t` runs, if the shader flattens for it.
  const dag::FragmentDag* dag_for(const partition::TargetDesc& t) const {
    if (t.dynamic_loops > 0 && (loop_dag || !loop_dag_refusal.empty())) return loop_dag ? &*loop_dag : nullptr;
    return dag ? &*dag : nullptr;
  }
};

bool has_loops(const dag::FragmentDag& d) {
  return std::any_of(d.nodes.begin(), d.nodes.end(), [](const dag::Node& n) { return n.op == ir::Op::Loop; });
}

std::string first_error(const lang::DiagnosticList& d, const lang::SourceManager& sm) {
  for (const lang::Diagnostic& x : d.items())
    if (x.severity == lang::Severity::Error) return lang::format_text(x, sm);
  return "";
}
bool internal_error(const lang::DiagnosticList& d) {
  for (const lang::Diagnostic& x : d.items())
    if (x.code == "internal-error") return true;
  return false;
}

Rgba reference_run(const Compiled& c, const Case& k, const Precision& p, std::uint64_t seed) {
  ir::Perturbation pert = p.perturb;
  pert.seed = seed;
  const ir::RunResult r = ir::interpret(*c.reference->module, k.in, c.reference->binding.surface_params, c.ctx, k.options(&pert));
  if (!r.ok) return {NAN, NAN, NAN, NAN};
  return rgba_of(r);
}

const std::vector<Rgba>& runs(const Compiled& c, Case& k, const Precision& p, int n) {
  std::vector<Rgba>& v = k.runs[&p];
  while (static_cast<int>(v.size()) < n) v.push_back(reference_run(c, k, p, 1000003ULL * (v.size() + 1)));
  return v;
}

float floor_of(const Precision& p, float r) { return p.floor_abs + p.floor_rel * std::fabs(r); }

// Whether `got` agrees with the reference on this fragment at precision `p` (values clamped to
// [0, 1] first where the target's output is).
bool agrees(const Compiled& c, Case& k, const Rgba& got, const Precision& p, bool clamp, std::string* why, float* difference) {
  const auto val = [&](float x) { return clamp && !std::isnan(x) ? std::clamp(x, 0.0f, 1.0f) : x; };
  for (std::size_t ch = 0; ch < 4; ++ch) {
    const float r = val(k.ref[ch]), g = val(got[ch]);
    const float fl = floor_of(p, r);
    if (std::fabs(g - r) <= fl) continue;
    float dev = 0;
    for (const Rgba& run : runs(c, k, p, kQuickRuns)) dev = std::max(dev, std::fabs(val(run[ch]) - r));
    if (std::fabs(g - r) <= fl + kSafety * dev) continue;
    // Beyond the quick tolerance: confirm with many more runs before calling it a difference.
    const auto wide = [&](int n) {
      float w = 0;
      for (const Rgba& run : runs(c, k, p, n)) w = std::isnan(run[ch]) ? INFINITY : std::max(w, std::fabs(val(run[ch]) - r));
      return w;
    };
    float tolerance = 0;
    if (confirmed_within(std::fabs(g - r), fl, wide, &tolerance)) continue;
    if (why)
      *why = fmt::format("channel {}: {:.9g}, the reference {:.9g} (tolerance {:.3g} at {} precision)", "rgba"[ch], g, r, tolerance, p.name);
    if (difference) *difference = std::isnan(g - r) ? INFINITY : std::fabs(g - r);
    return false;
  }
  return true;
}

// Runs a renderer's shader on single fragments: each fragment's interpolants are what corner()
// makes of its globals (no interpolation), each pass reads what earlier passes saved.
std::vector<Rgba> run_fragments(const sim::FragmentShader& sh, const std::vector<Case>& cases) {
  std::vector<Rgba> out(cases.size());
  const int ni = sh.interpolants();
  std::vector<float> corner(static_cast<std::size_t>(ni) * 4), right(corner.size()), below(corner.size());
  bool differences = false;
  for (int k = 0; k < ni; ++k) differences = differences || sh.screen_difference(k) != 0;
  std::vector<float> scratch;
  for (std::size_t first = 0; first < cases.size(); first += sim::kBatch) {
    const int n = static_cast<int>(std::min<std::size_t>(sim::kBatch, cases.size() - first));
    std::vector<std::vector<float>> in(static_cast<std::size_t>(ni), std::vector<float>(4 * sim::kBatch, 0.0f));
    for (int i = 0; i < n; ++i) {
      // The fragment's interpolants are the corner values at it; a difference interpolant's, its
      // value on the neighbour minus here, or there (the fragment's neighbours, as the reference's).
      const Case& cs = cases[first + static_cast<std::size_t>(i)];
      sh.corner(cs.in, corner.data());
      if (differences) {
        sh.corner(cs.next.right, right.data());
        sh.corner(cs.next.below, below.data());
      }
      for (int k = 0; k < ni; ++k) {
        const int d = sh.screen_difference(k);
        for (int c = 0; c < 4; ++c) {
          const std::size_t at = static_cast<std::size_t>(k) * 4 + static_cast<std::size_t>(c);
          in[static_cast<std::size_t>(k)][static_cast<std::size_t>(c) * sim::kBatch + static_cast<std::size_t>(i)] =
              d == 0 ? corner[at] : (d == 1 || d == 3 ? right[at] : below[at]) - (d <= 2 ? corner[at] : 0.0f);
        }
      }
    }
    std::vector<const float*> in_ptr;
    for (const auto& v : in) in_ptr.push_back(v.data());
    std::vector<std::vector<float>> buffers(static_cast<std::size_t>(std::max(sh.buffers(), 0)), std::vector<float>(4 * sim::kBatch, 0.0f));
    std::vector<float> result(4 * sim::kBatch, 0.0f);
    for (int pass = 0; pass < sh.passes(); ++pass) {
      std::vector<const float*> restored;
      for (int r : sh.restores(pass)) restored.push_back(buffers.at(static_cast<std::size_t>(r)).data());
      // Value k of a pass of several outputs (multiple render targets) to buffer saves(pass, k).
      const int outputs = sh.outputs(pass);
      std::vector<float> value(static_cast<std::size_t>(outputs) * 4 * sim::kBatch, 0.0f);
      sh.run(pass, n, in_ptr.data(), restored.data(), value.data(), scratch);
      for (int k = 0; k < outputs; ++k) {
        const auto from = value.begin() + static_cast<std::ptrdiff_t>(k) * 4 * sim::kBatch;
        const int s = sh.saves(pass, k);
        if (s >= 0) buffers.at(static_cast<std::size_t>(s)).assign(from, from + 4 * sim::kBatch);
        else result.assign(from, from + 4 * sim::kBatch);
      }
    }
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 4; ++c) out[first + static_cast<std::size_t>(i)][static_cast<std::size_t>(c)] = result[static_cast<std::size_t>(c) * sim::kBatch + static_cast<std::size_t>(i)];
  }
  return out;
}

// Where two renders of the same scene differ bit for bit ("" when nowhere).
std::string bitwise_difference(const sim::Image& a, const sim::Image& b) {
  if (a.width != b.width || a.height != b.height) return "the images differ in size";
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x)
      for (int c = 0; c < 4; ++c)
        if (!same_bits(a.at(x, y)[c], b.at(x, y)[c]))
          return fmt::format("pixel ({}, {}) channel {}: {:.9g} against {:.9g}", x, y, "rgba"[c], a.at(x, y)[c], b.at(x, y)[c]);
  return "";
}

}  // namespace

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::Agrees: return "agrees";
    case Outcome::Refused: return "refused";
    case Outcome::Failed: return "FAILED";
  }
  return "?";
}

bool Report::failed() const { return first_failure() != nullptr; }

const Check* Report::first_failure() const {
  for (const Check& c : checks)
    if (c.outcome == Outcome::Failed) return &c;
  return nullptr;
}

bool same_failure(const Report& candidate, const Report& original) {
  const Check* c = candidate.first_failure();
  const Check* o = original.first_failure();
  if (!c || !o || c->backend != o->backend || c->kind != o->kind) return false;
  return c->kind != "mismatch" || c->difference >= 0.1f * o->difference;
}

std::string Report::signature() const {
  const Check* f = first_failure();
  return f ? f->backend + ": " + f->kind : "";
}

void expect_acceptance(Report& r, Family family) {
  for (Check& c : r.checks) {
    if (c.outcome != Outcome::Refused) continue;
    const std::string& b = c.backend;
    const bool own = family == Family::Fragment ? (b == "dag" || b == "dag loops" || b.rfind("fp ", 0) == 0)
                     : family == Family::Combiners ? b == "dag"
                                                   : b.rfind("rpu", 0) == 0;
    // The RPU cannot spill: a program may outgrow its registers or its 8-slot stack window
    // whatever the profile (a resource, like the combiners' stages).
    const bool resources = c.detail.find("[rpu-stack]") != std::string::npos || c.detail.find("[rpu-registers]") != std::string::npos;
    if (!own || resources) continue;
    c.outcome = Outcome::Failed;
    c.kind = "refused within its profile";
  }
}

struct Oracle::State {
  OracleOptions options;
  std::string error;
  std::optional<sim::Scene> raster, rpu, decoupled;
  std::vector<partition::TargetDesc> fp_targets, combiner_targets;
  int loop_iterations = 0;  // the dynamic loops' count of the fp targets that have them
  partition::CostModel model;

  bool wants(const char* family) const {
    return options.only.empty() || std::find(options.only.begin(), options.only.end(), family) != options.only.end();
  }

  // ---- the checks ---------------------------------------------------------------------------

  void check_ir(Compiled& c, Report& rep) const {
    Check k{"ir"};
    for (Case& cs : c.cases) {
      if (!cs.defined) {
        ++k.undefined;
        continue;
      }
      const ir::RunResult r = ir::interpret(*c.optimized->module, cs.in, c.optimized->binding.surface_params, c.ctx, cs.options());
      std::string why;
      if (!r.ok) {
        fail(k, "mismatch", "the optimised IR stops: " + r.error);
        break;
      }
      ++k.compared;
      if (!agrees(c, cs, rgba_of(r), ieee(), false, &why, &k.difference)) {
        fail(k, "mismatch", fragment_text(c, cs) + why);
        break;
      }
    }
    rep.checks.push_back(std::move(k));
  }

  // A transformed program against the program it was made from: the same results.
  void check_transform(Compiled& c, const std::string& path, const std::string& original, Report& rep) const {
    Check k{"transform"};
    driver::ProgramOptions po;
    po.include_paths = options.include_paths;
    po.optimize = false;
    const std::unique_ptr<driver::Program> o = driver::compile_source(path, original, po);
    if (!o->ok() || !o->module) {
      fail(k, "reference", "the original does not compile: " + first_error(o->diagnostics, *o->sources));
      rep.checks.push_back(std::move(k));
      return;
    }
    for (Case& cs : c.cases) {
      const ir::RunResult r = ir::interpret(*o->module, cs.in, o->binding.surface_params, c.ctx, cs.options());
      if (!cs.defined || !r.ok || r.nonfinite) {
        ++k.undefined;
        continue;
      }
      ++k.compared;
      std::string why;
      if (!agrees(c, cs, rgba_of(r), ieee(), false, &why, &k.difference)) {
        fail(k, "mismatch", fragment_text(c, cs) + "the original gives " + why);
        break;
      }
    }
    rep.checks.push_back(std::move(k));
  }

  // The DAG of the targets with dynamic loops, when it differs from the other targets' (it keeps
  // a loop as a loop) or is refused where theirs is not.
  void check_loop_dag(Compiled& c, Report& rep) const {
    if (c.loop_dag) {
      check_dag(c, *c.loop_dag, &Case::loop_dag_defined, "dag loops", rep);
    } else if (!c.loop_dag_refusal.empty() && c.dag) {
      Check k{"dag loops"};
      refuse_or_fail(k, c.loop_dag_refusal, false);
      rep.checks.push_back(std::move(k));
    }
  }

  void check_dag(Compiled& c, Report& rep) const {
    Check k{"dag"};
    if (!c.dag) {
      refuse_or_fail(k, c.dag_refusal, internal_error(c.optimized->diagnostics));
      rep.checks.push_back(std::move(k));
      return;
    }
    check_dag(c, *c.dag, &Case::dag_defined, "dag", rep);
  }

  // The DAG `d` on every fragment against the reference; `defined` records where it is finite.
  void check_dag(Compiled& c, const dag::FragmentDag& d, bool Case::*defined, const char* name, Report& rep) const {
    Check k{name};
    for (Case& cs : c.cases) {
      const std::vector<ir::Value> all = dag::evaluate_all(d, cs.in, c.ctx, &cs.next);
      cs.*defined = !nonfinite(all);
      if (!cs.defined || !(cs.*defined)) {
        ++k.undefined;
        continue;
      }
      ++k.compared;
      const ir::Value& v = all[d.root];
      std::string why;
      if (!agrees(c, cs, {v.f[0], v.f[1], v.f[2], v.f[3]}, ieee(), false, &why, &k.difference)) {
        fail(k, "mismatch", fragment_text(c, cs) + why);
        break;
      }
    }
    rep.checks.push_back(std::move(k));
  }

  // Every target of one backend kind, with each algorithm.
  void check_targets(Compiled& c, Report& rep, const std::vector<partition::TargetDesc>& targets, bool combiners) const {
    const char* family = combiners ? "combiners" : "fp";
    std::optional<dag::FragmentDag> lowered;
    for (const partition::TargetDesc& t : targets) {
      if (!options.targets.empty() && std::find(options.targets.begin(), options.targets.end(), t.name) == options.targets.end()) continue;
      const std::string base = fmt::format("{} {}", family, t.name);
      const dag::FragmentDag* d = c.dag_for(t);
      if (!d) continue;  // the "dag" checks say why
      const bool Case::*defined = c.dag && d == &*c.dag ? &Case::dag_defined : &Case::loop_dag_defined;
      lang::DiagnosticList refused;
      std::unique_ptr<backends::TargetProgram> program = backends::make_program(*d, t, refused);
      const std::string why = refused.items().empty() ? "" : refused.items().front().message;
      if (!program) {
        Check k{base};
        refuse_or_fail(k, why, false);
        rep.checks.push_back(std::move(k));
        continue;
      }
      std::unique_ptr<partition::Backend> backend = program->backend();
      std::optional<combiners::Machine> machine;
      if (combiners) {
        lang::Diagnostics ignored;
        machine = combiners::parse_machine(t, &ignored);
        // As the target's program lowers it (its node ids are the partition's).
        if (machine) lowered = combiners::lower(*d, machine->texture_units);
      }
      // Every algorithm the target lists, each search starting from the partitions above it.
      const std::vector<const partition::Algorithm*> listed = partition::algorithms_for(t.limits);
      std::vector<partition::Partition> parts;
      parts.reserve(listed.size());
      for (const partition::Algorithm* a : listed) {
        partition::RunRequest r;
        r.options.model = model;
        r.search.budget_seconds = options.optimal_budget;
        r.search.table_bytes = std::size_t{16} << 20;
        r.known = parts;
        parts.push_back(a->run(program->problem(), *backend, r));
      }
      // The whole program in one pass, where it fits: the renders of the partitions must equal it.
      std::optional<sim::Image> single;
      if (!combiners && raster) single = render_single(c, *d, *program, rep, base);
      for (const partition::Partition& part : parts) {
        const std::string name = fmt::format("{} {}", base, part.algorithm);
        if (!part.valid) {
          Check k{name};
          std::string reason;
          for (const partition::Pass& p : part.passes)
            if (!p.failure.empty()) {
              reason = fmt::format("pass {} does not fit {}: {}", &p - part.passes.data() + 1, t.name, p.failure);
              break;
            }
          refuse_or_fail(k, reason, false);
          rep.checks.push_back(std::move(k));
          continue;
        }
        {
          // The independent validator (the backends' own execution checks compare with a fixed
          // tolerance; the oracle's comparisons below replace them).
          Check k{name + " validator"};
          std::unique_ptr<partition::Backend> fresh = program->backend();
          const std::vector<std::string> problems = partition::validate(program->problem(), *fresh, part, model);
          if (!problems.empty()) fail(k, "validator", problems.front());
          rep.checks.push_back(std::move(k));
        }
        if (combiners && machine) {
          // Every program of every pass loads in nvparse as written.
          Check k{name + " nvparse"};
          combiners::NvparseOptions no;
          no.general_combiners = machine->general_stages;
          no.per_stage_constants = machine->per_stage_constants;
          no.texture_units = machine->texture_units;
          const std::vector<std::vector<backends::PassFile>> files = program->listing_files(part);
          for (std::size_t i = 0; i < files.size() && k.outcome != Outcome::Failed; ++i)
            for (const backends::PassFile& f : files[i]) {
              if (f.extension != "rc" && f.extension != "ts") continue;
              const std::vector<combiners::NvparseProblem> found = combiners::check_nvparse(f.text, no);
              if (!found.empty()) {
                fail(k, "nvparse", fmt::format("pass {} .{}: {}", i + 1, f.extension, combiners::to_text(found)));
                break;
              }
            }
          rep.checks.push_back(std::move(k));
        }
        // What the passes compute without the registers' clamp: a function table's steps, texture
        // coordinates (backends/combiners/tables.h). Those may leave [-1, 1] on a compared fragment.
        std::vector<char> unclamped;
        if (combiners && machine)
          unclamped = combiners::unclamped_nodes(*lowered, combiners::compile_partition(*lowered, combiners::intervals(*lowered), *machine, part));
        for (int hw = 0; hw < (combiners ? 2 : 1); ++hw) {
          Check k{combiners ? fmt::format("{} {}", name, hw ? "hardware" : "float") : name};
          backends::ShaderOptions so;
          so.hardware_precision = hw == 1;
          std::string err;
          std::unique_ptr<sim::FragmentShader> sh = program->shader(&part, c.ctx, &err, so);
          if (!sh) {
            refuse_or_fail(k, err, false);
            rep.checks.push_back(std::move(k));
            continue;
          }
          const std::vector<Rgba> got = run_fragments(*sh, c.cases);
          for (std::size_t i = 0; i < c.cases.size(); ++i) {
            Case& cs = c.cases[i];
            if (!cs.defined || !(cs.*defined) || (combiners && clamped(*lowered, cs, c.ctx, unclamped))) {
              ++k.undefined;
              continue;
            }
            ++k.compared;
            std::string diff;
            if (!agrees(c, cs, got[i], hw ? fixed8() : combiners ? combiners_float() : fp_isa(), combiners, &diff, &k.difference)) {
              fail(k, "mismatch", fragment_text(c, cs) + diff);
              break;
            }
          }
          rep.checks.push_back(std::move(k));
        }
        if (!combiners && single && raster) check_storage(c, *program, part, *single, rep, name);
      }
    }
  }

  // Whether the combiners' registers ([-1, 1]) may clamp on this fragment: some value of the
  // (lowered) DAG lies outside [-1, 1], an operation's or an interpolant's the program reads as it
  // is (one read only through normalize() is a cube-map lookup; `unclamped` marks the others the
  // passes never clamp: a function table's steps, texture coordinates). There the hardware clamps
  // by design and the reference does not; elsewhere it must reproduce the reference.
  static bool clamped(const dag::FragmentDag& lowered, const Case& cs, const ir::EvalContext& ctx, const std::vector<char>& unclamped) {
    const std::vector<ir::Value> all = dag::evaluate_all(lowered, cs.in, ctx, &cs.next);
    std::vector<char> only_normalized(lowered.size(), 1);
    for (const dag::Node& n : lowered.nodes) {
      const bool normalize = n.kind == dag::NodeKind::Operation && n.op == ir::Op::Builtin && n.aux == static_cast<std::uint32_t>(lang::Builtin::Normalize);
      if (!normalize)
        for (dag::NodeId c : n.children) only_normalized[c] = 0;
    }
    for (const dag::Node& n : lowered.nodes) {
      if (n.kind == dag::NodeKind::Constant || n.id == lowered.root || n.type == ir::BaseType::Bool || n.type == ir::BaseType::String) continue;
      if (n.kind == dag::NodeKind::Interpolant && only_normalized[n.id]) continue;
      if (n.id < unclamped.size() && unclamped[n.id]) continue;
      const ir::Value& v = all[n.id];
      for (int k = 0; k < std::max(1, lang::component_count(v.type)); ++k)
        if (!(std::fabs(v.f[static_cast<std::size_t>(k)]) <= 1.0f + 1e-6f)) return true;
    }
    return false;
  }

  // The single-pass render of the target's shader, checked against the reference's render.
  std::optional<sim::Image> render_single(Compiled& c, const dag::FragmentDag& d, const backends::TargetProgram& program, Report& rep,
                                          const std::string& base) const {
    std::string err;
    std::unique_ptr<sim::FragmentShader> sh = program.shader(nullptr, c.ctx, &err, {});
    if (!sh) return std::nullopt;  // the whole program does not fit one pass: only the partitions render
    std::optional<sim::Image> img = render(*raster, *sh, sim::Storage::SinglePass, &err);
    Check k{base + " single-pass render"};
    if (!img) {
      fail(k, "mismatch", "the render failed: " + err);
      rep.checks.push_back(std::move(k));
      return std::nullopt;
    }
    // pervertex(x) is x at the corners, interpolated (exact only where x is affine): a render
    // differs from the interpreter's per-fragment x by design, so only the partitions' renders
    // (against this one) are compared.
    if (uses_pervertex(*c.reference->module)) k.undefined = img->width * img->height;
    else compare_with_reference(c, &d, *img, fp_isa(), sh->quad_differences(), k);
    rep.checks.push_back(std::move(k));
    return img;
  }

  static bool uses_pervertex(const ir::Module& m) {
    for (const ir::Function& f : m.functions)
      for (const ir::Instr& in : f.values)
        if (!in.removed && in.op == ir::Op::Builtin && in.aux == static_cast<std::uint32_t>(lang::Builtin::PerVertex)) return true;
    return false;
  }

  // Render-to-texture and the F-buffer must reproduce the single pass bit for bit.
  void check_storage(Compiled& c, const backends::TargetProgram& program, const partition::Partition& part, const sim::Image& single,
                     Report& rep, const std::string& name) const {
    std::string err;
    std::unique_ptr<sim::FragmentShader> sh = program.shader(&part, c.ctx, &err, {});
    if (!sh) return;
    for (sim::Storage s : {sim::Storage::RenderToTexture, sim::Storage::FBuffer}) {
      Check k{fmt::format("{} {}", name, s == sim::Storage::FBuffer ? "fbuffer" : "rtt")};
      std::optional<sim::Image> img = render(*raster, *sh, s, &err);
      if (!img) fail(k, "mismatch", "the render failed: " + err);
      else {
        k.compared = img->width * img->height;
        const std::string d = bitwise_difference(*img, single);
        if (!d.empty()) fail(k, "mismatch", "differs from the single pass at " + d);
      }
      rep.checks.push_back(std::move(k));
    }
  }

  std::optional<sim::Image> render(const sim::Scene& scene, const sim::FragmentShader& sh, sim::Storage storage, std::string* err) const {
    sim::RenderOptions ro;
    ro.width = ro.height = options.image;
    ro.storage = storage;
    ro.threads = 1;
    std::vector<const sim::FragmentShader*> shaders(scene.objects.size(), &sh);
    return sim::render(scene, shaders, ro, nullptr, err);
  }

  // A render against the reference interpreter's render of the same scene (Monte Carlo runs of
  // the reference set the tolerance per pixel, as for fragments).
  // `d`: the DAG the target runs (the pixels where it meets a NaN or infinity are not compared).
  void compare_with_reference(Compiled& c, const dag::FragmentDag* d, const sim::Image& img, const Precision& p, bool quad, Check& k) const {
    std::string err;
    ReferenceShader ref(*c.reference->module, c.reference->binding.surface_params, c.ctx, &single_range(), d);
    ref.set_quad_differences(quad);
    std::optional<sim::Image> want = render(*raster, ref, sim::Storage::SinglePass, &err);
    if (!want) {
      fail(k, "reference", "the reference render failed: " + err);
      return;
    }
    // Fragments the interpreter could not finish (a step or depth limit, rays with no scene) are
    // NaN, not compared, like domain errors.
    std::vector<sim::Image> runs;
    auto deviation = [&](int x, int y, int ch, int n) {
      while (static_cast<int>(runs.size()) < n) {
        ir::Perturbation pert = p.perturb;
        pert.seed = 7919ULL * (runs.size() + 1);
        ReferenceShader perturbed(*c.reference->module, c.reference->binding.surface_params, c.ctx, &pert, nullptr);
        perturbed.set_quad_differences(quad);
        std::optional<sim::Image> r = render(*raster, perturbed, sim::Storage::SinglePass, &err);
        runs.push_back(r ? *r : sim::Image(want->width, want->height, {NAN, NAN, NAN, NAN}));
      }
      float dev = 0;
      for (int i = 0; i < n; ++i) {
        const float d = std::fabs(std::clamp(runs[static_cast<std::size_t>(i)].at(x, y)[ch], 0.0f, 1.0f) - std::clamp(want->at(x, y)[ch], 0.0f, 1.0f));
        dev = std::isnan(d) ? INFINITY : std::max(dev, d);
      }
      return dev;
    };
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x) {
        if (std::isnan(want->at(x, y)[0])) {
          ++k.undefined;
          continue;
        }
        ++k.compared;
        for (int ch = 0; ch < 4; ++ch) {
          // As a frame buffer holds them.
          const float r = std::clamp(want->at(x, y)[ch], 0.0f, 1.0f), g = std::isnan(img.at(x, y)[ch]) ? NAN : std::clamp(img.at(x, y)[ch], 0.0f, 1.0f);
          const float fl = floor_of(p, r);
          if (std::fabs(g - r) <= fl || std::fabs(g - r) <= fl + kSafety * deviation(x, y, ch, kQuickRuns)) continue;
          float tolerance = 0;
          if (confirmed_within(std::fabs(g - r), fl, [&](int n) { return deviation(x, y, ch, n); }, &tolerance)) continue;
          fail(k, "mismatch", fmt::format("pixel ({}, {}) channel {}: {:.9g}, the reference {:.9g} (tolerance {:.3g} at {} precision)", x, y,
                                          "rgba"[ch], g, r, tolerance, p.name));
          k.difference = std::isnan(g - r) ? INFINITY : std::fabs(g - r);
          return;
        }
      }
  }

  void check_rpu(const std::string& path, const std::string& text, Report& rep) const {
    const int w = options.image;
    for (bool ieee : {true, false}) {
      // Compiled for the machine it runs on: the compiler folds constants in its arithmetic.
      rpu::Machine machine = rpu::default_machine();
      if (ieee) machine.fp24 = false;
      machine.max_steps = kMaxSteps;
      rpu::CompileOptions co;
      co.include_paths = options.include_paths;
      co.unsaved[path] = text;
      co.machine = &machine;
      rpu::SceneProgram sp = rpu::compile_scene(*rpu, w, w, path, "", "", co);
      if (!sp.ok()) {
        Check k{"rpu"};
        refuse_or_fail(k, sp.compiled ? first_error(sp.compiled->diagnostics, *sp.compiled->sources) : "", sp.compiled && internal_error(sp.compiled->diagnostics));
        rep.checks.push_back(std::move(k));
        return;
      }
      const rpu::SceneData data(*rpu, sp.object_shader, sp.compiled->textures);
      const Precision& p = ieee ? rpu_ieee() : fp24();
      rpu::ReferenceOptions refo;
      refo.width = refo.height = w;
      refo.threads = 1;
      refo.max_steps = kMaxSteps;
      // The reference, with the values the machine's format cannot hold marked undefined.
      ir::Perturbation range = p.perturb;
      range.relative = range.absolute = 0;
      range.builtin = {};
      refo.perturb = &range;
      const rpu::ReferenceResult want = rpu::reference_render(sp, data, *rpu, refo);
      std::vector<sim::Image> perturbed;
      auto deviation = [&](int x, int y, int ch, int n) {
        while (static_cast<int>(perturbed.size()) < n) {
          ir::Perturbation pert = p.perturb;
          pert.seed = 104729ULL * (perturbed.size() + 1);
          rpu::ReferenceOptions o = refo;
          o.perturb = &pert;
          perturbed.push_back(rpu::reference_render(sp, data, *rpu, o).image);
        }
        float dev = 0;
        for (int i = 0; i < n; ++i) {
          const float d = std::fabs(perturbed[static_cast<std::size_t>(i)].at(x, y)[ch] - want.image.at(x, y)[ch]);
          dev = std::isnan(d) ? INFINITY : std::max(dev, d);
        }
        return dev;
      };
      std::optional<sim::Image> chunks;
      for (int lanes : {4, 1}) {
        // One thread at a time has no pixel quad: a program that takes derivatives needs its
        // chunks (backends/rpu/quad.h).
        if (lanes == 1 && rpu::takes_derivatives(*sp.compiled->program)) continue;
        Check k{fmt::format("rpu {} {}", ieee ? "ieee" : "fp24", lanes == 4 ? "chunks" : "lanes")};
        rpu::RenderOptions ro;
        ro.width = ro.height = w;
        ro.threads = 1;
        ro.ieee = ieee;
        ro.machine = &machine;
        ro.lanes = lanes;
        const rpu::RenderResult got = rpu::render(*sp.compiled->program, sp.main_entry, data, *rpu, ro);
        if (got.fault_count > 0 && got.fault_count > want.errors) {
          fail(k, "mismatch", "the VM faulted: " + (got.faults.empty() ? std::string("?") : got.faults.front()));
        } else if (lanes == 1 && chunks && !bitwise_difference(got.image, *chunks).empty()) {
          fail(k, "mismatch", "one thread at a time differs from chunks of four at " + bitwise_difference(got.image, *chunks));
        } else {
          for (int y = 0; y < w && k.outcome != Outcome::Failed; ++y)
            for (int x = 0; x < w && k.outcome != Outcome::Failed; ++x) {
              if (want.undefined[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)]) {
                ++k.undefined;
                continue;
              }
              ++k.compared;
              for (int ch = 0; ch < 3; ++ch) {
                const float r = want.image.at(x, y)[ch], g = got.image.at(x, y)[ch];
                const float fl = floor_of(p, r);
                if (std::fabs(g - r) <= fl || std::fabs(g - r) <= fl + kSafety * deviation(x, y, ch, kQuickRuns)) continue;
                float tolerance = 0;
                if (confirmed_within(std::fabs(g - r), fl, [&](int n) { return deviation(x, y, ch, n); }, &tolerance)) continue;
                fail(k, "mismatch", fmt::format("pixel ({}, {}) channel {}: {:.9g}, the reference {:.9g} (tolerance {:.3g} at {} precision)", x, y,
                                                "rgba"[ch], g, r, tolerance, p.name));
                k.difference = std::isnan(g - r) ? INFINITY : std::fabs(g - r);
                break;
              }
            }
        }
        if (lanes == 4) chunks = got.image;
        rep.checks.push_back(std::move(k));
      }
    }
  }

  // Decoupled sampling with no blur must equal its multisampling mode, for the single pass and the
  // partitioned shader.
  void check_decoupled(Compiled& c, Report& rep) const {
    if (!c.dag) return;
    lang::DiagnosticList refused;
    std::unique_ptr<backends::TargetProgram> program = backends::make_program(*c.dag, fp_targets.front(), refused);
    if (!program) return;
    std::string err;
    std::unique_ptr<sim::FragmentShader> sh = program->shader(nullptr, c.ctx, &err, {});
    if (!sh) return;
    std::vector<const sim::FragmentShader*> shaders(decoupled->objects.size(), sh.get());
    auto draw = [&](sim::Shading s, sim::Reconstruct r, std::string* e) {
      sim::DecoupledOptions o;
      o.width = o.height = options.image;
      o.spp = 4;
      o.shading = s;
      o.reconstruct = r;
      o.threads = 1;
      return sim::render_decoupled(*decoupled, shaders, o, nullptr, e);
    };
    std::string e1, e2;
    const std::optional<sim::Image> msaa = draw(sim::Shading::Msaa, sim::Reconstruct::Nearest, &e1);
    for (sim::Reconstruct r : {sim::Reconstruct::Nearest, sim::Reconstruct::Bilinear}) {
      Check k{fmt::format("decoupled {}", to_string(r))};
      const std::optional<sim::Image> ds = draw(sim::Shading::Decoupled, r, &e2);
      if (!msaa || !ds) fail(k, "mismatch", "the render failed: " + (msaa ? e2 : e1));
      else if (r == sim::Reconstruct::Nearest) {
        k.compared = ds->width * ds->height;
        const std::string d = bitwise_difference(*ds, *msaa);
        if (!d.empty()) fail(k, "mismatch", "differs from multisampling at " + d);
      }
      rep.checks.push_back(std::move(k));
    }
  }

  // ---- verdict helpers ----------------------------------------------------------------------

  // A failure; a mismatch found by comparing values sets its difference afterwards (an exact
  // comparison's is infinite).
  static void fail(Check& k, const std::string& kind, const std::string& detail) {
    k.outcome = Outcome::Failed;
    k.kind = kind;
    k.detail = detail;
    k.difference = INFINITY;
  }
  static void refuse_or_fail(Check& k, const std::string& diagnostic, bool internal) {
    if (internal) fail(k, "internal error", diagnostic);
    else if (diagnostic.empty()) fail(k, "refusal without a diagnostic", "the backend refused the program and said nothing");
    else {
      k.outcome = Outcome::Refused;
      k.detail = diagnostic;
    }
  }
  static std::string fragment_text(const Compiled& c, const Case& cs) {
    return fmt::format("fragment {} (s={:.6g} t={:.6g}): ", &cs - c.cases.data() + 1, cs.in[lang::Global::s].f[0], cs.in[lang::Global::t].f[0]);
  }
};

Oracle::Oracle(OracleOptions options) : s_(std::make_unique<State>()) {
  s_->options = std::move(options);
  const std::string dir = paths::data_dirs().resources + "/conform/";
  auto scene = [&](const char* name, std::optional<sim::Scene>& out) {
    lang::Diagnostics problems;
    out = sim::load_scene(dir + name, &problems);
    if (!out && s_->error.empty()) s_->error = problems.summary();
  };
  scene("raster.json", s_->raster);
  scene("rpu.json", s_->rpu);
  scene("decoupled.json", s_->decoupled);
  lang::Diagnostics problems;
  for (const char* t : {"PC1", "PC2", "PC3", "PC4", "PC5", "PC6", "PC7", "PC8", "radeon8500", "nv30", "nv40"})
    if (auto d = partition::load_target(t, &problems)) s_->fp_targets.push_back(*d);
  // Targets with dynamic loops share one DAG, flattened for the first one's loop count.
  for (const partition::TargetDesc& t : s_->fp_targets)
    if (t.dynamic_loops > 0 && s_->loop_iterations == 0) s_->loop_iterations = t.dynamic_loops;
  for (partition::TargetDesc& t : s_->fp_targets)
    if (t.dynamic_loops > 0) t.dynamic_loops = s_->loop_iterations;
  // A small target that differences across quads, so that passes are cut near DDX and DDY.
  if (auto d = partition::load_target("PC5", &problems)) {
    d->name = "PC5-quad";
    d->derivatives = partition::Derivatives::Quad;
    s_->fp_targets.push_back(*d);
  }
  // A small target of four render targets, so that RDS + merge and MRDS merge passes (MRT).
  if (auto d = partition::load_target("PC5", &problems)) {
    d->name = "PC5-mrt4";
    d->limits.render_targets = 4;
    s_->fp_targets.push_back(*d);
  }
  for (const char* t : {"geforce1", "geforce3"})
    if (auto d = partition::load_target(t, &problems)) s_->combiner_targets.push_back(*d);
  if (auto m = partition::parse_cost_model("15p+5t+i", &problems)) s_->model = *m;
  if (s_->error.empty() && problems.has_errors()) s_->error = problems.summary();
}

Oracle::~Oracle() = default;
bool Oracle::ok() const { return s_->error.empty(); }
const std::string& Oracle::error() const { return s_->error; }

Report Oracle::check(const std::string& path, const std::string& text, const std::string* original) const {
  const State& s = *s_;
  Report rep;
  rep.program = path;
  Compiled c;
  driver::ProgramOptions po;
  po.include_paths = s.options.include_paths;
  po.optimize = false;
  c.reference = driver::compile_source(path, text, po);
  if (!c.reference->ok() || !c.reference->module) {
    rep.front_end = lang::format_text(c.reference->diagnostics.items(), *c.reference->sources);
    if (internal_error(c.reference->diagnostics)) {
      Check k{"front end"};
      State::fail(k, "internal error", rep.front_end);
      rep.checks.push_back(std::move(k));
      return rep;
    }
    rep.recursion = true;
    for (const lang::Diagnostic& d : c.reference->diagnostics.items())
      if (d.severity == lang::Severity::Error && d.code != "recursion") rep.recursion = false;
    // The RPU compiles recursion (its own front end allows it) and checks against its own IR.
    if (rep.recursion && s.wants("rpu")) s.check_rpu(path, text, rep);
    return rep;
  }
  rep.front_end_ok = true;
  po.optimize = true;
  po.verify = true;
  c.optimized = driver::compile_source(path, text, po);
  c.ctx.spaces = c.reference->binding.spaces;
  if (!c.optimized->ok() || !c.optimized->module) {
    Check k{"ir"};
    State::fail(k, internal_error(c.optimized->diagnostics) ? "internal error" : "mismatch",
                "the optimiser rejects what the front end accepted: " + first_error(c.optimized->diagnostics, *c.optimized->sources));
    rep.checks.push_back(std::move(k));
    return rep;
  }
  // The fragments and the reference's answers.
  for (int i = 0; i < s.options.fragments; ++i) {
    Case cs;
    cs.in = ir::random_fragment(static_cast<std::uint64_t>(i) + 1);
    cs.next = ir::random_neighbours(cs.in, static_cast<std::uint64_t>(i) + 1);
    const ir::RunResult r = ir::interpret(*c.reference->module, cs.in, c.reference->binding.surface_params, c.ctx, cs.options(&single_range()));
    cs.defined = r.ok && !r.nonfinite;
    if (r.ok) cs.ref = rgba_of(r);
    c.cases.push_back(std::move(cs));
  }
  const bool surface = c.reference->module->kind == lang::ShaderKind::Surface;
  if (original) s.check_transform(c, path, *original, rep);
  if (s.wants("ir")) s.check_ir(c, rep);
  if (surface && (s.wants("fragment") || s.wants("combiners") || s.wants("decoupled"))) {
    lang::DiagnosticList sink;
    c.dag = dag::flatten(*c.optimized->module, c.optimized->binding, sink);
    if (!c.dag) c.dag_refusal = first_error(sink, *c.optimized->sources);
    if (s.loop_iterations > 0 && s.wants("fragment")) {
      // The same shader for the targets with dynamic loops, if it keeps a loop as a loop there.
      dag::FlattenOptions fo;
      fo.dynamic_loops = s.loop_iterations;
      lang::DiagnosticList loop_sink;
      c.loop_dag = dag::flatten(*c.optimized->module, c.optimized->binding, loop_sink, fo);
      if (!c.loop_dag) c.loop_dag_refusal = first_error(loop_sink, *c.optimized->sources);
      else if (!has_loops(*c.loop_dag)) c.loop_dag.reset();
      if (internal_error(loop_sink)) {
        Check k{"dag loops"};
        State::fail(k, "internal error", c.loop_dag_refusal);
        rep.checks.push_back(std::move(k));
      } else {
        s.check_loop_dag(c, rep);
      }
    }
    if (internal_error(sink)) {
      Check k{"dag"};
      State::fail(k, "internal error", c.dag_refusal);
      rep.checks.push_back(std::move(k));
    } else {
      s.check_dag(c, rep);
    }
    if (s.wants("fragment")) s.check_targets(c, rep, s.fp_targets, false);
    if (s.wants("combiners")) s.check_targets(c, rep, s.combiner_targets, true);
    if (s.wants("decoupled")) s.check_decoupled(c, rep);
  }
  if (surface && s.wants("rpu")) s.check_rpu(path, text, rep);
  return rep;
}

}  // namespace passlab::conform
