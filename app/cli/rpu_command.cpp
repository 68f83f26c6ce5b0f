// passlab-cli rpu: the RenderMan-to-RPU compiler, the assembler, the function runner and the
// renderer of the thesis, headless.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "backends/rpu/assembler.h"
#include "backends/rpu/compiler.h"
#include "backends/rpu/reference.h"
#include "backends/rpu/regalloc.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "core/sim/image.h"

namespace passlab::cli {

namespace {

namespace fs = std::filesystem;
using rpu::Vec4;

bool write_file(const fs::path& path, const std::string& text) {
  // Atomically: a temporary beside the file, then a rename.
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return false;
    out << text;
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

const rpu::Machine* machine_for(const RpuCliOptions& r, rpu::Machine* storage) {
  if (r.machine.empty() && !r.ieee) return nullptr;
  std::string error;
  std::optional<rpu::Machine> m = rpu::load_machine(r.machine.empty() ? "rpu" : r.machine, &error);
  if (!m) {
    std::cerr << "passlab-cli: " << error << '\n';
    return nullptr;
  }
  *storage = *m;
  if (r.ieee) storage->fp24 = false;
  return storage;
}

rpu::CompileOptions compile_options(const CommonOptions& o, const RpuCliOptions& r, const rpu::Machine* m) {
  rpu::CompileOptions c;
  c.include_paths = o.include_paths;
  for (const std::string& d : o.defines) {
    const auto eq = d.find('=');
    c.defines.push_back(eq == std::string::npos ? std::make_pair(d, std::string("1")) : std::make_pair(d.substr(0, eq), d.substr(eq + 1)));
  }
  c.machine = m;
  c.lights_path = o.lights;
  c.optimize = !r.no_opt;
  c.schedule = !r.no_schedule;
  c.pair = r.pair;
  c.inline_limit = r.inline_limit;
  return c;
}

void print_diagnostics(const rpu::CompiledProgram& p) {
  std::string text = lang::format_text(p.diagnostics.items(), *p.sources);
  if (!text.empty()) std::cerr << text;
}

std::string vec_text(const Vec4& v) {
  return "(" + rpu::format_float(v[0]) + ", " + rpu::format_float(v[1]) + ", " + rpu::format_float(v[2]) + ", " + rpu::format_float(v[3]) + ")";
}

nlohmann::ordered_json vec_json(const Vec4& v) { return {v[0], v[1], v[2], v[3]}; }

nlohmann::ordered_json stats_json(const rpu::VmStats& s) {
  nlohmann::ordered_json j;
  j["threads"] = s.threads;
  j["instructions"] = s.instructions;
  j["issues"] = s.issues;
  j["paired_issues"] = s.paired_issues;
  j["cycles"] = s.cycles;
  j["stalls"] = s.stalls;
  j["partial_issues"] = s.partial_issues;
  j["splits"] = s.splits;
  j["merges"] = s.merges;
  j["chunk_occupancy"] = std::round(s.occupancy() * 1e6) / 1e6;
  j["traces"] = s.traces;
  j["calls"] = s.calls;
  j["loads"] = s.loads;
  j["faults"] = s.faults;
  return j;
}

void print_stats_text(const rpu::VmStats& s) {
  std::cout << fmt::format("threads          {}\ninstructions     {}\nissues           {} ({} paired)\ncycles           {} ({} stalls)\n", s.threads,
                           s.instructions, s.issues, s.paired_issues, s.cycles, s.stalls)
            << fmt::format("divergence       {} splits, {} merges, {} issues with lanes idle\nchunk occupancy  {:.4f}\n", s.splits, s.merges,
                           s.partial_issues, s.occupancy())
            << fmt::format("traces {}  calls {}  loads {}  faults {}\n", s.traces, s.calls, s.loads, s.faults);
}

bool is_assembly(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".s" || ext == ".asm" || ext == ".rpu";
}

// "1,2,3" or "5" -> a 4-vector (missing lanes 0); false if not numbers.
bool parse_numbers(const std::string& text, Vec4* out) {
  *out = {};
  std::stringstream ss(text);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i >= 4) return false;
    try {
      std::size_t used = 0;
      (*out)[static_cast<std::size_t>(i++)] = std::stof(part, &used);
      if (used != part.size()) return false;
    } catch (...) {
      return false;
    }
  }
  return i > 0;
}

}  // namespace

int run_rpu_compile(const CommonOptions& o, const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  rpu::CompileOptions c = compile_options(o, r, m);
  c.keep_stages = !r.emit.empty();
  std::unique_ptr<rpu::CompiledProgram> p = rpu::compile_files(r.files, c);
  print_diagnostics(*p);
  if (!p->ok()) return kDiagnostics;
  const std::string stem = fs::path(r.files.front()).stem().string();
  if (!r.emit.empty()) {
    std::error_code ec;
    fs::create_directories(r.emit, ec);
    for (const rpu::Stage& s : p->stages)
      if (!write_file(fs::path(r.emit) / (stem + "." + s.name + (s.name == "final" ? ".s" : ".txt")), s.text)) {
        std::cerr << "passlab-cli: cannot write into " << r.emit << '\n';
        return kDiagnostics;
      }
    write_file(fs::path(r.emit) / (stem + ".epts"), rpu::epts_text(*p->program));
  }
  if (!r.output.empty()) {
    if (!write_file(r.output, p->assembly) || !write_file(fs::path(r.output).replace_extension(".epts"), rpu::epts_text(*p->program))) {
      std::cerr << "passlab-cli: cannot write " << r.output << '\n';
      return kDiagnostics;
    }
  } else if (r.stats.empty()) {
    std::cout << p->assembly;
  }
  if (r.stats == "text") {
    std::cout << fmt::format("words {}\nscheduled cycles {} (in program order {})\n", p->program->code.size(), p->scheduled_cycles, p->unscheduled_cycles);
    for (const auto& [k, v] : p->stats) std::cout << k << " " << v << '\n';
  } else if (r.stats == "json") {
    nlohmann::ordered_json j;
    j["words"] = p->program->code.size();
    j["scheduled_cycles"] = p->scheduled_cycles;
    j["unscheduled_cycles"] = p->unscheduled_cycles;
    for (const auto& [k, v] : p->stats) j["passes"][k] = v;
    std::cout << j.dump(2) << '\n';
  }
  return kOk;
}

int run_rpu_asm(const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  lang::SourceManager sm;
  std::string error;
  std::optional<lang::FileId> f = sm.load(r.files.front(), &error);
  if (!f) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kDiagnostics;
  }
  lang::DiagnosticList diags;
  rpu::AssembleOptions ao;
  ao.machine = m;
  std::optional<rpu::Program> p = rpu::assemble(sm, *f, ao, diags);
  std::cerr << lang::format_text(diags.items(), sm);
  if (!p) return kDiagnostics;
  const fs::path epts = fs::path(r.output.empty() ? r.files.front() : r.output).replace_extension(".epts");
  if (!write_file(epts, rpu::epts_text(*p))) {
    std::cerr << "passlab-cli: cannot write " << epts.string() << '\n';
    return kDiagnostics;
  }
  if (!r.output.empty()) {
    if (!write_file(r.output, rpu::listing_text(*p))) return kDiagnostics;
  } else {
    std::cout << rpu::listing_text(*p);
  }
  return kOk;
}

int run_rpu_run(const CommonOptions& o, const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  std::unique_ptr<rpu::CompiledProgram> compiled;
  std::optional<rpu::Program> assembled;
  const rpu::Program* prog = nullptr;
  const rpu::FunctionInfo* fn = nullptr;
  std::uint32_t entry = 0;
  if (is_assembly(r.files.front())) {
    lang::SourceManager sm;
    std::string error;
    std::optional<lang::FileId> f = sm.load(r.files.front(), &error);
    if (!f) {
      std::cerr << "passlab-cli: " << error << '\n';
      return kDiagnostics;
    }
    lang::DiagnosticList diags;
    rpu::AssembleOptions ao;
    ao.machine = m;
    assembled = rpu::assemble(sm, *f, ao, diags);
    std::cerr << lang::format_text(diags.items(), sm);
    if (!assembled) return kDiagnostics;
    prog = &*assembled;
    if (!r.entry.empty()) {
      std::optional<std::uint32_t> a = prog->entry(r.entry);
      if (!a) {
        std::cerr << "passlab-cli: no entry point '" << r.entry << "' in " << r.files.front() << '\n';
        return kUsage;
      }
      entry = *a;
    }
    if (!r.args.empty()) {
      std::cerr << "passlab-cli: --arg needs an RSL file (its types place the arguments); give registers with --reg\n";
      return kUsage;
    }
  } else {
    compiled = rpu::compile_files(r.files, compile_options(o, r, m));
    print_diagnostics(*compiled);
    if (!compiled->ok()) return kDiagnostics;
    prog = &*compiled->program;
    for (const rpu::FunctionInfo& f : compiled->functions)
      if (f.file == 0 && (r.entry.empty() || f.name == r.entry) && !fn) fn = &f;
    if (!fn) {
      std::cerr << "passlab-cli: no function '" << r.entry << "' in " << r.files.front() << '\n';
      return kUsage;
    }
    entry = fn->address;
  }
  rpu::ThreadState t = rpu::thread_at(entry);
  if (fn) {
    if (r.args.size() != fn->args.size()) {
      std::cerr << "passlab-cli: '" << fn->name << "' takes " << fn->args.size() << " argument(s); --arg gave " << r.args.size() << '\n';
      return kUsage;
    }
    int nv = 0, ns = 0;
    for (std::size_t i = 0; i < fn->args.size(); ++i) {
      Vec4 v;
      if (!parse_numbers(r.args[i], &v)) {
        std::cerr << "passlab-cli: --arg \"" << r.args[i] << "\" is not a list of numbers\n";
        return kUsage;
      }
      if (lang::is_triple(fn->args[i])) {
        Vec4& reg = t.r(nv++);
        reg[0] = v[0];
        reg[1] = v[1];
        reg[2] = v[2];
      } else {
        t.r(ns++)[3] = v[0];
      }
    }
  }
  for (const std::string& spec : r.regs) {
    std::smatch mt;
    Vec4 v;
    if (!std::regex_match(spec, mt, std::regex(R"((R|C)(\d{1,2})=(.*))")) || !parse_numbers(mt[3], &v)) {
      std::cerr << "passlab-cli: --reg takes R<n>=x,y,z,w or C<n>=x,y,z,w, not \"" << spec << "\"\n";
      return kUsage;
    }
    const int n = std::stoi(mt[2]);
    if ((mt[1] == "R" && n > 15) || (mt[1] == "C" && n > 31)) {
      std::cerr << "passlab-cli: no register " << mt[1] << n << '\n';
      return kUsage;
    }
    if (mt[1] == "R") t.r(n) = v;
  }
  rpu::VmOptions vo;
  vo.machine = m;
  rpu::Vm vm(*prog, vo);
  for (const std::string& spec : r.regs) {
    std::smatch mt;
    Vec4 v;
    if (std::regex_match(spec, mt, std::regex(R"(C(\d{1,2})=(.*))")) && parse_numbers(mt[2], &v)) vm.constants()[static_cast<std::size_t>(std::stoi(mt[1]))] = v;
  }
  std::vector<Vec4> memory(static_cast<std::size_t>(r.memory_words), Vec4{});
  vm.set_memory(&memory, true);
  rpu::VmStats stats;
  vm.run(t, stats);
  if (t.status == rpu::ThreadStatus::Faulted) std::cerr << "passlab-cli: the thread faulted: " << t.fault << '\n';
  if (r.format == "json") {
    nlohmann::ordered_json j;
    j["status"] = t.status == rpu::ThreadStatus::Done ? "done" : "faulted";
    if (t.status == rpu::ThreadStatus::Faulted) j["fault"] = t.fault;
    if (fn) {
      int nv = 0, ns = 0;
      for (std::size_t i = 0; i < fn->results.size(); ++i) {
        const Vec4& reg = lang::is_triple(fn->results[i]) ? t.r(nv++) : t.r(ns++);
        j["results"][fn->result_names[i]] =
            lang::is_triple(fn->results[i]) ? nlohmann::ordered_json{reg[0], reg[1], reg[2]} : nlohmann::ordered_json(reg[3]);
      }
    }
    for (int i = 0; i < 16; ++i) j["registers"]["R" + std::to_string(i)] = vec_json(t.r(i));
    j["registers"]["S"] = vec_json(t.r(rpu::kRegS));
    if (!r.stats.empty()) j["stats"] = stats_json(stats);
    std::cout << j.dump(2) << '\n';
  } else {
    if (fn) {
      int nv = 0, ns = 0;
      for (std::size_t i = 0; i < fn->results.size(); ++i) {
        const bool triple = lang::is_triple(fn->results[i]);
        const Vec4& reg = triple ? t.r(nv) : t.r(ns);
        const std::string where = triple ? "R" + std::to_string(nv++) + ".xyz" : "R" + std::to_string(ns++) + ".w";
        std::cout << fn->result_names[i] << " = "
                  << (triple ? "(" + rpu::format_float(reg[0]) + ", " + rpu::format_float(reg[1]) + ", " + rpu::format_float(reg[2]) + ")"
                             : rpu::format_float(reg[3]))
                  << "  (" << where << ")\n";
      }
    }
    for (int i = 0; i < 16; ++i)
      if (t.r(i) != Vec4{}) std::cout << "R" << i << " = " << vec_text(t.r(i)) << '\n';
    if (t.r(rpu::kRegS) != Vec4{}) std::cout << "S = " << vec_text(t.r(rpu::kRegS)) << '\n';
    if (r.stats == "text") print_stats_text(stats);
    else if (r.stats == "json") std::cout << stats_json(stats).dump(2) << '\n';
  }
  return t.status == rpu::ThreadStatus::Done ? kOk : kDiagnostics;
}

int run_rpu_render(const CommonOptions& o, const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  sim::Problems problems;
  std::optional<sim::Scene> scene = sim::load_scene(r.scene, &problems);
  for (const sim::Problem& p : problems) std::cerr << p.text() << '\n';
  if (!scene) return kDiagnostics;
  int w = scene->width, h = scene->height;
  if (!r.size.empty()) {
    std::smatch mt;
    if (!std::regex_match(r.size, mt, std::regex(R"((\d{1,5})x(\d{1,5}))")) || std::stoi(mt[1]) < 1 || std::stoi(mt[2]) < 1 ||
        std::stoi(mt[1]) > 16384 || std::stoi(mt[2]) > 16384) {
      std::cerr << "passlab-cli: --size must be WxH with sides from 1 to 16384, not \"" << r.size << "\"\n";
      return kUsage;
    }
    w = std::stoi(mt[1]);
    h = std::stoi(mt[2]);
  }
  const std::string default_shader = r.files.empty() ? "" : fs::absolute(r.files.front()).lexically_normal().string();
  const auto t0 = std::chrono::steady_clock::now();
  rpu::SceneProgram sp = rpu::compile_scene(*scene, w, h, default_shader, r.main, r.main_function, compile_options(o, r, m));
  print_diagnostics(*sp.compiled);
  if (!sp.ok()) return kDiagnostics;
  const auto t1 = std::chrono::steady_clock::now();
  rpu::SceneData data(*scene, sp.object_shader);
  if (r.reference) {
    rpu::ReferenceOptions ro;
    ro.width = w;
    ro.height = h;
    ro.threads = r.threads;
    rpu::ReferenceResult ref = rpu::reference_render(sp, data, *scene, ro);
    if (ref.errors) std::cerr << "passlab-cli: the interpreter stopped on " << ref.errors << " pixel(s); first " << ref.first_error << '\n';
    std::string error;
    if (!sim::write_png(r.output, ref.image, &error)) {
      std::cerr << "passlab-cli: " << error << '\n';
      return kDiagnostics;
    }
    return ref.errors ? kDiagnostics : kOk;
  }
  rpu::RenderOptions ro;
  ro.width = w;
  ro.height = h;
  ro.threads = r.threads;
  ro.machine = m;
  rpu::RenderResult out = rpu::render(*sp.compiled->program, sp.main_entry, data, *scene, ro);
  const auto t2 = std::chrono::steady_clock::now();
  for (const std::string& f : out.faults) std::cerr << "passlab-cli: fault at " << f << '\n';
  if (out.fault_count > out.faults.size()) std::cerr << "passlab-cli: ... " << out.fault_count << " threads faulted in all\n";
  std::string error;
  if (!sim::write_png(r.output, out.image, &error)) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kDiagnostics;
  }
  if (r.stats == "json") {
    nlohmann::ordered_json j;
    j["width"] = w;
    j["height"] = h;
    j["words"] = sp.compiled->program->code.size();
    j["vm"] = stats_json(out.stats);
    if (r.timing) {
      j["compile_ms"] = std::chrono::duration<double, std::milli>(t1 - t0).count();
      j["render_ms"] = std::chrono::duration<double, std::milli>(t2 - t1).count();
    }
    std::cout << j.dump(2) << '\n';
  } else if (r.stats == "text") {
    std::cout << fmt::format("image            {}x{}\nprogram          {} words\n", w, h, sp.compiled->program->code.size());
    print_stats_text(out.stats);
    if (r.timing)
      std::cout << fmt::format("compile {:.1f} ms, render {:.1f} ms\n", std::chrono::duration<double, std::milli>(t1 - t0).count(),
                               std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  return out.fault_count ? kDiagnostics : kOk;
}

}  // namespace passlab::cli
