// SPDX-License-Identifier: GPL-3.0-or-later
// The RSL-to-RPU compiler driver: every stage in order, over every file of a program.
#include "backends/rpu/compiler.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/rpu/assembler.h"
#include "backends/rpu/codegen.h"
#include "backends/rpu/output.h"
#include "backends/rpu/passes.h"
#include "backends/rpu/verifier.h"
#include "core/driver/light_setup.h"
#include "core/driver/program.h"
#include "backends/rpu/fp24.h"
#include "core/ir/lower.h"
#include "core/ir/pipeline.h"
#include "core/ir/printer.h"
#include "core/lang/frontend.h"

namespace passlab::rpu {

const FunctionInfo* CompiledProgram::function(const std::string& name) const {
  for (const FunctionInfo& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::string light_shader_path() { return machines_dir() + "/light.sl"; }
std::string runtime_library_path() { return machines_dir() + "/runtime.sl"; }

namespace {

constexpr const char* kLightLabel = "rpu_light";

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A surface's own parameters are compiled in (their defaults): the RPU has no per-object
// parameter storage in the thesis. A light's runtime parameters stay.
void bind_parameters(ir::Module& m) {
  for (ir::Function& fn : m.functions) {
    for (ir::ValueId v = 0; v < fn.values.size(); ++v) {
      ir::Instr& in = fn.at(v);
      if (in.removed || in.op != ir::Op::ShaderParam || in.aux == ir::kRuntimeParam) continue;
      const ir::ValueId def = in.args.at(0);
      fn.replace_all_uses(v, def);
      in.removed = true;
    }
    fn.compact();
  }
}

struct Unit {
  lang::FileId file = 0;
  std::string name;
  std::shared_ptr<lang::TranslationUnit> tree;
  std::optional<ir::Module> module;
  std::map<std::string, ir::Matrix> spaces;  // its light setup's named coordinate systems
};

// Compiles one translation unit to optimised IR; false after diagnostics.
bool to_ir(CompiledProgram& out, Unit& u, const ir::Binding& binding, const CompileOptions& options) {
  if (!u.tree || out.diagnostics.has_errors()) return false;
  u.module = ir::lower_program(*u.tree, binding, out.diagnostics);
  if (!u.module) return false;
  bind_parameters(*u.module);
  ir::PipelineOptions po;
  po.optimize = options.optimize;
  po.inline_limit = options.inline_limit;
  try {
    ir::PassStats s = ir::run_pipeline(*u.module, po);
    for (const auto& [k, v] : s) out.stats["ir." + k] += v;
  } catch (const std::logic_error& e) {
    out.diagnostics.error("internal-error", {u.file, 0, 1, 1, 1}, std::string("internal compiler error: ") + e.what());
    return false;
  }
  return true;
}

std::shared_ptr<lang::TranslationUnit> front_end(CompiledProgram& out, lang::FileId file, const CompileOptions& options) {
  lang::FrontendOptions fe;
  fe.preprocess.include_paths = options.include_paths;
  fe.preprocess.defines = options.defines;
  fe.allow_recursion = true;
  std::shared_ptr<lang::TranslationUnit> tree = lang::compile(*out.sources, file, fe, out.diagnostics);
  return tree;
}

void append_stage(CompiledProgram& out, const std::string& name, const std::string& text) {
  for (Stage& s : out.stages)
    if (s.name == name) {
      s.text += text;
      return;
    }
  out.stages.push_back({name, text});
}

// The point light: parsed into this program's sources so its spans print correctly. False
// after diagnostics.
bool bind_point_light(CompiledProgram& out, ir::Binding& binding) {
  const std::string path = light_shader_path();
  std::optional<std::string> text = read_text(path);
  if (!text) {
    out.diagnostics.error("rpu-install", {}, "cannot read the RPU light shader " + path + " (an incomplete installation)");
    return false;
  }
  const lang::FileId lf = out.sources->add(path, *text);
  std::shared_ptr<lang::TranslationUnit> light = front_end(out, lf, {});
  if (!light || out.diagnostics.has_errors() || !light->shader()) return false;
  ir::LightInstance li;
  li.unit = light;
  li.shader = light->shader();
  li.label = kLightLabel;
  li.runtime_params = {"from", "lightcolor"};
  binding.lights.push_back(li);
  return true;
}

// The files' front ends and optimised IR, each surface against its light setup (as on fragment
// targets) or the point light. False after diagnostics.
bool lower_units(CompiledProgram& out, const std::vector<lang::FileId>& files, const ir::Binding& binding, const CompileOptions& options,
                 std::vector<Unit>& units) {
  for (lang::FileId f : files) {
    Unit u;
    u.file = f;
    u.name = out.sources->file(f).path;
    u.tree = front_end(out, f, options);
    units.push_back(std::move(u));
  }
  if (out.diagnostics.has_errors()) return false;
  lang::FrontendOptions fe;
  fe.preprocess.include_paths = options.include_paths;
  ir::Binding scene;
  scene.lights_as_functions = true;
  if (!options.scene_path.empty() &&
      !driver::load_scene_lights(options.scene_path, options.world_to_camera, *out.sources, fe, &scene, out.diagnostics))
    return false;
  for (std::size_t i = 0; i < units.size(); ++i) {
    Unit& u = units[i];
    // A surface in a scene with lights sees those; else one with a light setup sees its lights,
    // as on fragment targets; else the point light. A setup's parameters and spaces hold either way.
    const lang::ShaderDecl* surface = u.tree->shader();
    std::string setup = i == 0 && !options.lights_path.empty() ? options.lights_path : driver::default_lights_path(u.name);
    ir::Binding own;
    own.lights_as_functions = true;
    const bool is_surface = surface && surface->kind == lang::ShaderKind::Surface;
    if (is_surface && !setup.empty() && !driver::load_light_setup(setup, *out.sources, fe, surface, &own, out.diagnostics)) return false;
    if (is_surface && !scene.lights.empty()) own.lights = scene.lights;  // its setup's parameters and spaces stay
    for (const auto& [name, m] : scene.spaces) own.spaces.try_emplace(name, m);  // "world", unless a setup says
    if (own.lights.empty()) own.lights = binding.lights;  // the point light (inlined: its parameters are registers)
    if (!to_ir(out, u, own, options)) return false;
    u.spaces = own.spaces;
  }
  return true;
}

// Labels: SUBROUTINE_ENTRY_<name>, numbered when a name repeats (overloads, or two files); the
// runtime library's entries; the point light's parameters in C0 and C1.
Linkage link(const std::vector<Unit>& units, const TextureMemory& textures) {
  Linkage links;
  links.textures = &textures;
  std::set<std::string> taken;
  static const char* kRuntime[] = {"__rpu_exp2", "__rpu_log2", "__rpu_exp", "__rpu_log", "__rpu_logb", "__rpu_pow", "__rpu_sin_turns",
                                   "__rpu_sin", "__rpu_cos", "__rpu_tan", "__rpu_atan", "__rpu_atan2", "__rpu_asin", "__rpu_acos",
                                   "__rpu_noise1", "__rpu_noise3", "__rpu_texture_band"};
  std::vector<std::string> runtime(std::begin(kRuntime), std::end(kRuntime));
  for (const TextureImage& t : textures.images()) runtime.push_back(texels_function(t.index));
  for (const std::string& r : runtime) {
    links.runtime[r] = std::string(kEntryPrefix) + r;
    taken.insert(links.runtime[r]);
  }
  auto unique_label = [&](const std::string& name) {
    std::string label = std::string(kEntryPrefix) + name;
    for (int k = 2; taken.count(label); ++k) label = std::string(kEntryPrefix) + name + "_" + std::to_string(k);
    taken.insert(label);
    return label;
  };
  std::map<std::string, std::string> light_labels;  // a light function's IR -> its label
  for (std::size_t ui = 0; ui < units.size(); ++ui) {
    const Unit& u = units[ui];
    links.labels.emplace_back();
    for (std::size_t fi = 0; fi < u.module->functions.size(); ++fi) {
      const ir::Function& fn = u.module->functions[fi];
      if (fn.light.empty()) {
        links.labels.back().push_back(unique_label(fn.name));
        continue;
      }
      auto [it, fresh] = light_labels.try_emplace(ir::print(fn));
      if (fresh) it->second = unique_label(fn.name);
      else links.copies.insert({ui, fi});
      links.labels.back().push_back(it->second);
    }
    links.spaces.push_back(u.spaces);
  }
  const Source c_xyz[2] = {Source::reg(Bank::C, 0, Swizzle{{0, 1, 2, 2}}), Source::reg(Bank::C, 1, Swizzle{{0, 1, 2, 2}})};
  links.runtime_params["$" + std::string(kLightLabel) + ".from"] = c_xyz[0];
  links.runtime_params["$" + std::string(kLightLabel) + ".lightcolor"] = c_xyz[1];
  return links;
}

// Each function from the IR to listed assembly: code generation, the assembly passes until nothing
// changes, register allocation, scheduling and output, with the verifier after every stage.
class FunctionBackend {
 public:
  FunctionBackend(CompiledProgram& out, const CompileOptions& options, const Machine& machine, const Linkage& links)
      : out_(out), options_(options), machine_(machine), links_(links), strings_(machine.fp24 ? 17 : 24) {}

  void compile(const ir::Module& m, std::size_t module_index, std::size_t function) {
    std::optional<AsmFunction> gen = generate_function(m, module_index, function, links_, strings_, constants_, runtime_used_, out_.diagnostics);
    if (!gen) {
      failed_ = true;
      return;
    }
    AsmFunction f = std::move(*gen);
    if (machine_.fp24) out_of_range_literals(f, module_index != links_.runtime_module);
    // A stage that leaves malformed assembly is our bug: said as an internal error naming it.
    auto sound_after = [&](const char* stage, bool allocated) {
      if (!options_.verify) return true;
      const std::vector<std::string> problems = verify(f, allocated, 1);
      if (problems.empty()) return true;
      out_.diagnostics.error("internal-error", f.span, fmt::format("internal compiler error: the assembly is malformed after {}: {}", stage, problems.front()));
      failed_ = true;
      return false;
    };
    if (!sound_after("codegen", false)) return;
    if (options_.keep_stages) append_stage(out_, "codegen", to_text(f) + "\n");
    if (options_.optimize) {
      for (int round = 0; round < 16; ++round) {
        bool changed = simplify_opcodes(f, machine_, stats_);
        if (options_.keep_stages && round == 0) append_stage(out_, "simplify", to_text(f) + "\n");
        changed = forward(f, machine_, stats_, options_.keep_decisions ? &out_.forwarding[f.label] : nullptr) || changed;
        if (options_.keep_stages && round == 0) append_stage(out_, "forward", to_text(f) + "\n");
        changed = eliminate_dead_code(f, stats_) || changed;
        if (!sound_after("simplify, forward and dce", false)) return;
        if (!changed) break;
      }
      if (options_.keep_stages) append_stage(out_, "dce", to_text(f) + "\n");
    }
    if (options_.keep_decisions) out_.facts[f.label] = forwarding_facts(f, machine_);
    std::optional<Allocation> alloc = allocate_registers(f, out_.diagnostics, stats_);
    if (!alloc) {
      failed_ = true;
      return;
    }
    if (!sound_after("register allocation", true)) return;
    if (options_.keep_stages) append_stage(out_, "regalloc", allocation_text(f, *alloc) + to_text(f) + "\n");
    if (options_.schedule) {
      ScheduleOptions so;
      so.pair = options_.pair;
      FunctionSchedule s = schedule_function(f, machine_, so, stats_);
      out_.scheduled_cycles += s.cycles;
      out_.unscheduled_cycles += s.unscheduled_cycles;
      if (!sound_after("scheduling", true)) return;
      if (options_.keep_stages) append_stage(out_, "schedule", to_text(f) + "\n");
      out_.schedules[f.label] = std::move(s);
    }
    out_.allocations[f.label] = std::move(*alloc);
    output_function(f, next_label_, listing_, stats_);
    listing_.text += "\n";
  }

  bool failed() const { return failed_; }
  const std::set<std::string>& runtime_used() const { return runtime_used_; }

  // A number beyond the 24-bit floats' range is infinity on the machine, one below it 0: the
  // literal becomes that (the listing shows what runs, and the assembler refuses the original),
  // with a warning at the shader's number (1e30 is a common stand-in for infinity).
  void out_of_range_literals(AsmFunction& f, bool warn) {
    std::set<std::tuple<std::uint32_t, std::uint32_t, bool>> said;  // one warning per place and kind
    auto fix = [&](Operation& o, const lang::Span& span) {
      for (int k = 0; k < source_count(o.op); ++k) {
        Source& src = o.src[static_cast<std::size_t>(k)];
        const float v = src.literal_value();
        if (!src.is_literal() || !std::isfinite(v) || v == 0) continue;
        const float r = round_fp24(v);
        if (r != 0 && std::isfinite(r)) continue;
        src = Source::lit(r);
        if (warn && said.insert({span.line, span.col, std::isinf(r)}).second)
          out_.diagnostics.warning("rpu-literal", span,
                                   std::isinf(r) ? fmt::format("{:g} is beyond the RPU's 24-bit floats (the largest is about 1.8e19): it is "
                                                               "infinity on this machine", v)
                                                 : fmt::format("{:g} is below the RPU's smallest 24-bit float (about 2.2e-19): it is 0 on "
                                                               "this machine", v));
      }
    };
    for (AsmBlock& b : f.blocks) {
      for (AsmInstr& in : b.body) {
        fix(in.word.primary, in.span);
        fix(in.word.secondary, in.span);
      }
      if (b.term.kind == Terminator::Kind::Branch) fix(b.term.test, b.term.span);
    }
  }
  const Listing& listing() const { return listing_; }
  const ConstantPool& constants() const { return constants_; }
  const AsmStats& stats() const { return stats_; }

 private:
  CompiledProgram& out_;
  const CompileOptions& options_;
  const Machine& machine_;
  const Linkage& links_;
  StringTable strings_;
  ConstantPool constants_;
  std::set<std::string> runtime_used_;
  Listing listing_;
  int next_label_ = 0;
  bool failed_ = false;
  AsmStats stats_;
};

// The runtime library: what the program calls, and what that calls in turn, compiled into the same
// listing, with a lookup function for each of the scene's texture images. False after diagnostics.
bool compile_runtime(CompiledProgram& out, Linkage& links, FunctionBackend& backend) {
  const std::string path = runtime_library_path();
  std::optional<std::string> text = read_text(path);
  if (!text) {
    out.diagnostics.error("rpu-install", {}, "cannot read the RPU runtime library " + path + " (an incomplete installation)");
    return false;
  }
  Unit rt;
  rt.file = out.sources->add(path, *text + texels_source(out.textures.images()));
  rt.name = path;
  rt.tree = front_end(out, rt.file, {});
  if (!to_ir(out, rt, {}, CompileOptions{})) return false;
  const ir::Module& rm = *rt.module;
  links.labels.emplace_back();
  links.spaces.emplace_back();
  for (const ir::Function& fn : rm.functions) links.labels.back().push_back(std::string(kEntryPrefix) + fn.name);
  const std::size_t rmi = links.labels.size() - 1;
  links.runtime_module = rmi;
  std::set<std::size_t> needed;
  std::vector<std::size_t> stack;
  for (std::size_t fi = 0; fi < rm.functions.size(); ++fi)
    if (backend.runtime_used().count(rm.functions[fi].name)) stack.push_back(fi);
  while (!stack.empty()) {
    const std::size_t fi = stack.back();
    stack.pop_back();
    if (!needed.insert(fi).second) continue;
    for (const ir::Instr& in : rm.functions[fi].values)
      if (!in.removed && in.op == ir::Op::Call) stack.push_back(in.aux);
  }
  for (std::size_t fi : needed) backend.compile(rm, rmi, fi);
  // Runtime functions call only each other, never the builtins that call back into the runtime.
  return true;
}

// The listing assembled by the assembler users have, then verified. False after diagnostics (our
// bug if the listing does not assemble).
bool assemble_listing(CompiledProgram& out, const Listing& listing, const ConstantPool& constants, const std::vector<Unit>& units,
                      const Machine& machine, const CompileOptions& options) {
  out.assembly = constants_text(constants.values()) + (constants.values().empty() ? "" : "\n") + listing.text;
  if (options.keep_stages) append_stage(out, "final", out.assembly);
  const lang::FileId asm_file = out.sources->add(units.empty() ? "program.s" : units.front().name + ".s", out.assembly);
  AssembleOptions ao;
  ao.machine = &machine;
  lang::DiagnosticList asm_diags;
  out.program = assemble(*out.sources, asm_file, ao, asm_diags);
  if (!out.program) {
    // The compiler made text its own assembler rejects: Passlab's bug, said plainly.
    for (const lang::Diagnostic& d : asm_diags.items())
      out.diagnostics.error("internal-error", d.span, "internal compiler error: the generated assembly does not assemble: " + d.message);
    return false;
  }
  if (options.verify)
    if (const std::vector<std::string> problems = verify(*out.program, machine, 1); !problems.empty()) {
      out.diagnostics.error("internal-error", {}, "internal compiler error: the assembled program is malformed: " + problems.front());
      return false;
    }
  return true;
}

// What the debugger and the CLI read: each function's label, address, arguments and results, and
// the modules they came from.
void describe_functions(CompiledProgram& out, const Listing& listing, std::vector<Unit>& units, const Linkage& links) {
  out.spans = listing.spans;
  for (std::size_t ui = 0; ui < units.size(); ++ui) {
    const ir::Module& m = *units[ui].module;
    for (std::size_t fi = 0; fi < m.functions.size(); ++fi) {
      if (links.copies.count({ui, fi})) continue;  // described where it was compiled
      const ir::Function& fn = m.functions[fi];
      FunctionInfo info;
      info.name = fn.name;
      info.label = links.labels[ui][fi];
      info.shader = fn.is_shader;
      info.args = fn.arg_types;
      info.arg_names = fn.arg_names;
      info.results = fn.result_types;
      info.result_names = fn.result_names;
      info.address = out.program->labels.at(info.label);
      info.file = ui;
      info.function = fi;
      out.functions.push_back(std::move(info));
    }
  }
  for (Unit& u : units) {
    out.module_paths.push_back(u.name);
    out.modules.push_back(std::move(*u.module));
    out.module_spaces.push_back(std::move(u.spaces));
  }
}

std::unique_ptr<CompiledProgram> compile(std::unique_ptr<CompiledProgram> out, const std::vector<lang::FileId>& files,
                                         const CompileOptions& options) {
  const Machine& machine = options.machine ? *options.machine : default_machine();
  ir::Binding binding;
  if (!bind_point_light(*out, binding)) return out;
  std::vector<Unit> units;
  if (!lower_units(*out, files, binding, options, units)) return out;
  if (options.keep_stages)
    for (const Unit& u : units) append_stage(*out, "ir", "; " + u.name + "\n" + ir::print(*u.module) + "\n");
  if (!out->textures.load(options.textures, out->diagnostics)) return out;
  Linkage links = link(units, out->textures);
  FunctionBackend backend(*out, options, machine, links);
  for (std::size_t ui = 0; ui < units.size(); ++ui)
    for (std::size_t fi = 0; fi < units[ui].module->functions.size(); ++fi)
      if (!links.copies.count({ui, fi})) backend.compile(*units[ui].module, ui, fi);
  if (!backend.runtime_used().empty() && !backend.failed() && !compile_runtime(*out, links, backend)) return out;
  for (const auto& [k, v] : backend.stats()) out->stats[k] += v;
  if (backend.failed() || out->diagnostics.has_errors()) return out;
  if (!assemble_listing(*out, backend.listing(), backend.constants(), units, machine, options)) return out;
  describe_functions(*out, backend.listing(), units, links);
  return out;
}

}  // namespace

const std::string* unsaved_text(const CompileOptions& options, const std::string& path) {
  if (options.unsaved.empty()) return nullptr;
  std::error_code ec;
  const std::string want = std::filesystem::weakly_canonical(path, ec).string();
  for (const auto& [p, text] : options.unsaved)
    if (p == path || std::filesystem::weakly_canonical(p, ec).string() == want) return &text;
  return nullptr;
}

std::unique_ptr<CompiledProgram> compile_files(const std::vector<std::string>& paths, const CompileOptions& options) {
  auto out = std::make_unique<CompiledProgram>();
  std::vector<lang::FileId> files;
  for (const std::string& p : paths) {
    if (const std::string* text = unsaved_text(options, p)) {
      files.push_back(out->sources->add(p, *text));
      continue;
    }
    std::string error;
    std::optional<lang::FileId> f = out->sources->load(p, &error);
    if (!f) {
      out->diagnostics.error("file-not-found", {}, error);
      return out;
    }
    files.push_back(*f);
  }
  return compile(std::move(out), files, options);
}

std::unique_ptr<CompiledProgram> compile_sources(const std::vector<std::pair<std::string, std::string>>& sources,
                                                 const CompileOptions& options) {
  auto out = std::make_unique<CompiledProgram>();
  std::vector<lang::FileId> files;
  for (const auto& [name, text] : sources) files.push_back(out->sources->add(name, text));
  return compile(std::move(out), files, options);
}

}  // namespace passlab::rpu
