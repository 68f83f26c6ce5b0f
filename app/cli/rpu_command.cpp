// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli rpu: the RenderMan-to-RPU compiler, the assembler, the function runner and the
// renderer of the thesis, headless.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <iostream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/rpu_model_report.h"
#include "backends/rpu/memory_map.h"
#include "backends/rpu/assembler.h"
#include "backends/rpu/compiler.h"
#include "backends/rpu/debugger.h"
#include "backends/rpu/reference.h"
#include "backends/rpu/regalloc.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "core/paths/atomic_file.h"
#include "core/paths/canonical.h"
#include "core/sim/image.h"
#include "core/lang/json_dump.h"
#include "core/lang/json_error.h"

namespace passlab::cli {

namespace {

namespace fs = std::filesystem;
using rpu::Vec4;

const rpu::Machine* machine_for(const RpuCliOptions& r, rpu::Machine* storage) {
  if (r.machine.empty() && !r.ieee) return nullptr;
  lang::Diagnostics problems;
  std::optional<rpu::Machine> m = rpu::load_machine(r.machine.empty() ? "rpu" : r.machine, &problems);
  if (!m) {
    std::cerr << problems.text();
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

// A number, or "inf", "-inf" or "nan" as a string: JSON has no such numbers (a library writes
// null, which says nothing of which it was).
nlohmann::ordered_json num_json(float x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

nlohmann::ordered_json vec_json(const Vec4& v) { return {num_json(v[0]), num_json(v[1]), num_json(v[2]), num_json(v[3])}; }

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
  j["quads"] = s.quads;
  return j;
}

void print_stats_text(const rpu::VmStats& s) {
  std::cout << fmt::format("threads          {}\ninstructions     {}\nissues           {} ({} paired)\ncycles           {} ({} stalls)\n", s.threads,
                           s.instructions, s.issues, s.paired_issues, s.cycles, s.stalls)
            << fmt::format("divergence       {} splits, {} merges, {} issues with lanes idle\nchunk occupancy  {:.4f}\n", s.splits, s.merges,
                           s.partial_issues, s.occupancy())
            << fmt::format("traces {}  calls {}  loads {}  faults {}\n", s.traces, s.calls, s.loads, s.faults);
  if (s.quads) std::cout << fmt::format("quads            {} (hits shaded with helpers for derivatives)\n", s.quads);
}

// Assembles the file at `path` for machine `m` (null: the default), printing its diagnostics.
std::optional<rpu::Program> assemble_file(const std::string& path, const rpu::Machine* m) {
  lang::SourceManager sm;
  std::string error;
  std::optional<lang::FileId> f = sm.load(path, &error);
  if (!f) {
    std::cerr << "passlab-cli: " << error << '\n';
    return std::nullopt;
  }
  lang::DiagnosticList diags;
  rpu::AssembleOptions ao;
  ao.machine = m;
  std::optional<rpu::Program> p = rpu::assemble(sm, *f, ao, diags);
  std::cerr << lang::format_text(diags.items(), sm);
  return p;
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
  if (!r.scene.empty()) {
    lang::Diagnostics problems;
    const std::optional<sim::Scene> scene = sim::load_scene(r.scene, &problems);
    std::cerr << problems.text();
    if (!scene) return kDiagnostics;
    c.scene_path = scene->path;
    c.world_to_camera = scene->world_to_camera.m;
    c.textures = scene->textures;
  }
  std::unique_ptr<rpu::CompiledProgram> p = rpu::compile_files(r.files, c);
  print_diagnostics(*p);
  const std::string stem = fs::path(r.files.front()).stem().string();
  if (!r.emit.empty()) {
    // The stages made before a failure too: what register allocation met, for instance.
    std::error_code ec;
    fs::create_directories(r.emit, ec);
    for (const rpu::Stage& s : p->stages)
      if (!paths::write_atomically(fs::path(r.emit) / (stem + "." + s.name + (s.name == "final" ? ".s" : ".txt")), s.text)) {
        std::cerr << "passlab-cli: cannot write into " << r.emit << '\n';
        return kDiagnostics;
      }
    if (p->ok()) paths::write_atomically(fs::path(r.emit) / (stem + ".epts"), rpu::epts_text(*p->program));
  }
  if (!p->ok()) return kDiagnostics;
  if (!r.output.empty()) {
    std::string why;
    if (!paths::write_atomically(r.output, p->assembly, &why) ||
        !paths::write_atomically(fs::path(r.output).replace_extension(".epts"), rpu::epts_text(*p->program), &why)) {
      std::cerr << "passlab-cli: " << why << '\n';
      return kDiagnostics;
    }
  } else if (r.stats.empty() && !r.schedule_table) {
    std::cout << p->assembly;
  }
  if (r.schedule_table) {
    // Per function in address order (the runtime library's too), each block's pieces as the
    // scheduler saw them: a block is cut at calls, traces and stores.
    for (const rpu::EntryPoint& e : p->program->entries) {
      auto it = p->schedules.find(rpu::kEntryPrefix + e.name);
      if (it == p->schedules.end()) continue;
      for (std::size_t k = 0; k < it->second.pieces.size(); ++k) {
        const rpu::BlockSchedule& b = it->second.pieces[k];
        if (b.text.empty()) continue;
        std::cout << fmt::format("; {}, block {}{}\n", e.name, b.block, k > 0 && it->second.pieces[k - 1].block == b.block ? " (continued)" : "");
        std::cout << rpu::schedule_table_text(b) << '\n';
      }
    }
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
    std::cout << lang::dump_json(j, 2) << '\n';
  }
  return kOk;
}

int run_rpu_asm(const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  std::optional<rpu::Program> p = assemble_file(r.files.front(), m);
  if (!p) return kDiagnostics;
  const fs::path epts = fs::path(r.output.empty() ? r.files.front() : r.output).replace_extension(".epts");
  if (std::string why; !paths::write_atomically(epts, rpu::epts_text(*p), &why)) {
    std::cerr << "passlab-cli: " << why << '\n';
    return kDiagnostics;
  }
  if (!r.output.empty()) {
    if (std::string why; !paths::write_atomically(r.output, rpu::listing_text(*p), &why)) {
      std::cerr << "passlab-cli: " << why << '\n';
      return kDiagnostics;
    }
  } else {
    std::cout << rpu::listing_text(*p);
  }
  return kOk;
}

namespace {

// An object's shader in a hand-written (or saved) program: the entry named like its shader file
// (tiles.sl: tiles).
std::optional<std::uint32_t> object_entry(const rpu::Program& program, const sim::SceneObject& obj) {
  if (obj.shader.empty()) return std::nullopt;
  return program.entry(fs::path(obj.shader).stem().string());
}

// "a;b;c": one value per lane; a value without ';' is every lane's. Empty when the count is wrong.
std::vector<std::string> per_lane(const std::string& spec, int lanes) {
  std::vector<std::string> out;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ';');) out.push_back(part);
  if (out.size() == 1) out.assign(static_cast<std::size_t>(lanes), out.front());
  if (out.size() != static_cast<std::size_t>(lanes)) out.clear();
  return out;
}

// A memory image: [{"at": address, "words": [[x, y, z, w], ...]}, ...] written into `memory`
// (grown to hold it). Problems are printed with the file's line and column; false then.
bool load_memory_image(const std::string& path, std::vector<Vec4>& memory) {
  lang::Diagnostics d;
  const std::optional<lang::FileId> file = d.sources().load(path, nullptr);
  if (!file) {
    std::cerr << "passlab-cli: cannot read the memory image " << path << '\n';
    return false;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(d.sources().file(*file).text);
  } catch (const nlohmann::json::exception& e) {
    d.report(lang::json_diagnostic("memory-image", d.sources(), *file, e));
    std::cerr << d.text();
    return false;
  }
  auto fail = [&](std::size_t block, const std::string& why) {
    std::cerr << path << ": block " << block + 1 << ": " << why << " (a memory image is [{\"at\": address, \"words\": [[x,y,z,w], ...]}, ...])\n";
    return false;
  };
  if (!j.is_array()) return fail(0, "the image must be an array of blocks");
  for (std::size_t b = 0; b < j.size(); ++b) {
    const nlohmann::json& block = j[b];
    if (!block.is_object() || !block.contains("at") || !block["at"].is_number_integer() || !block.contains("words") || !block["words"].is_array())
      return fail(b, "each block needs a whole-number \"at\" and a \"words\" array");
    const long long at = block["at"].get<long long>();
    const std::size_t n = block["words"].size();
    if (at < 0 || at + static_cast<long long>(n) > (1LL << 24)) return fail(b, "its words must lie at addresses 0 to 16777215");
    if (memory.size() < static_cast<std::size_t>(at) + n) memory.resize(static_cast<std::size_t>(at) + n, Vec4{});
    for (std::size_t k = 0; k < n; ++k) {
      const nlohmann::json& w = block["words"][k];
      if (!w.is_array() || w.size() != 4 || !std::all_of(w.begin(), w.end(), [](const nlohmann::json& x) { return x.is_number(); }))
        return fail(b, "word " + std::to_string(k + 1) + " is not four numbers");
      for (std::size_t c = 0; c < 4; ++c) memory[static_cast<std::size_t>(at) + k][c] = w[c].get<float>();
    }
  }
  return true;
}

}  // namespace

int run_rpu_run(const CommonOptions& o, const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  std::optional<sim::Scene> scene;
  if (!r.scene.empty()) {
    lang::Diagnostics problems;
    scene = sim::load_scene(r.scene, &problems);
    std::cerr << problems.text();
    if (!scene) return kDiagnostics;
  }
  std::unique_ptr<rpu::CompiledProgram> compiled;
  std::optional<rpu::Program> assembled;
  const rpu::Program* prog = nullptr;
  const rpu::FunctionInfo* fn = nullptr;
  std::uint32_t entry = 0;
  std::vector<float> object_shader;  // with a scene: each object's shader address (-1: none)
  if (is_assembly(r.files.front())) {
    assembled = assemble_file(r.files.front(), m);
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
    if (scene)  // as rpu render does
      for (const sim::SceneObject& obj : scene->objects) {
        const std::optional<std::uint32_t> at = object_entry(*prog, obj);
        object_shader.push_back(at ? static_cast<float>(*at) : -1.0f);
      }
  } else {
    // With a scene, its objects' shaders are compiled in too (after the given files), lit by its lights.
    std::vector<std::string> files = r.files;
    std::vector<int> object_file;
    rpu::CompileOptions co = compile_options(o, r, m);
    if (scene) {
      co.scene_path = scene->path;
      co.world_to_camera = scene->world_to_camera.m;
      co.textures = scene->textures;
      for (const sim::SceneObject& obj : scene->objects) {
        int k = -1;
        for (std::size_t i = 0; i < files.size() && !obj.shader.empty(); ++i)
          if (paths::canonical(files[i]) == paths::canonical(obj.shader)) k = static_cast<int>(i);
        if (k < 0 && !obj.shader.empty()) {
          k = static_cast<int>(files.size());
          files.push_back(obj.shader);
        }
        object_file.push_back(k);
      }
    }
    compiled = rpu::compile_files(files, co);
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
    for (int k : object_file) {  // as in a render
      const rpu::FunctionInfo* shader = k < 0 ? nullptr : rpu::object_shader(*compiled, static_cast<std::size_t>(k));
      object_shader.push_back(shader ? static_cast<float>(shader->address) : -1.0f);
    }
  }
  const int lanes = r.lanes;
  std::vector<rpu::ThreadState> threads(static_cast<std::size_t>(lanes), rpu::thread_at(entry));
  if (fn) {
    if (r.args.size() != fn->args.size()) {
      std::cerr << "passlab-cli: '" << fn->name << "' takes " << fn->args.size() << " argument(s); --arg gave " << r.args.size() << '\n';
      return kUsage;
    }
    int nv = 0, ns = 0;
    for (std::size_t i = 0; i < fn->args.size(); ++i) {
      const std::vector<std::string> values = per_lane(r.args[i], lanes);
      const bool triple = lang::is_triple(fn->args[i]);
      const int reg = triple ? nv++ : ns++;
      for (int l = 0; l < lanes; ++l) {
        Vec4 v;
        if (values.empty() || !parse_numbers(values[static_cast<std::size_t>(l)], &v)) {
          std::cerr << "passlab-cli: --arg \"" << r.args[i] << "\" is not a list of numbers" << (lanes > 1 ? " (or one per lane, split by ';')" : "") << '\n';
          return kUsage;
        }
        Vec4& dst = threads[static_cast<std::size_t>(l)].r(reg);
        if (triple) {
          dst[0] = v[0];
          dst[1] = v[1];
          dst[2] = v[2];
        } else {
          dst[3] = v[0];
        }
      }
    }
  }
  std::vector<std::pair<int, Vec4>> constants;  // C registers: the same for every lane
  for (const std::string& spec : r.regs) {
    std::smatch mt;
    const bool ok = std::regex_match(spec, mt, std::regex(R"((R|C)(\d{1,2})=(.*))"));
    const std::vector<std::string> values = ok ? per_lane(mt[3], mt[1] == "R" ? lanes : 1) : std::vector<std::string>{};
    std::vector<Vec4> v(values.size());
    bool numbers = !values.empty();
    for (std::size_t l = 0; l < values.size(); ++l) numbers = numbers && parse_numbers(values[l], &v[l]);
    if (!numbers) {
      std::cerr << "passlab-cli: --reg takes R<n>=x,y,z,w or C<n>=x,y,z,w" << (lanes > 1 ? " (R values per lane split by ';')" : "") << ", not \""
                << spec << "\"\n";
      return kUsage;
    }
    const int n = std::stoi(mt[2]);
    if ((mt[1] == "R" && n > 15) || (mt[1] == "C" && n > 31)) {
      std::cerr << "passlab-cli: no register " << mt[1] << n << '\n';
      return kUsage;
    }
    if (mt[1] == "R")
      for (int l = 0; l < lanes; ++l) threads[static_cast<std::size_t>(l)].r(n) = v[static_cast<std::size_t>(l)];
    else
      constants.push_back({n, v.front()});
  }
  rpu::VmOptions vo;
  vo.machine = m;
  rpu::Vm vm(*prog, vo);
  // Memory: a scene's (the noise lattice, then its records), or the lattice alone; then --memory
  // free words. A scene also sets its constants (the light, the background, C31) and traces rays.
  // The texture images: the compiled program's, or (for assembly) the scene's in the same layout.
  rpu::TextureMemory assembly_textures;
  if (!compiled && scene) {
    lang::DiagnosticList problems;
    if (!assembly_textures.load(scene->textures, problems)) {
      for (const lang::Diagnostic& d : problems.items()) std::cerr << "passlab-cli: " << d.message << '\n';
      return kDiagnostics;
    }
  }
  const rpu::TextureMemory& textures = compiled ? compiled->textures : assembly_textures;
  std::optional<rpu::SceneData> data;
  std::vector<Vec4> memory;
  if (scene) {
    data.emplace(*scene, object_shader, textures);
    memory = data->memory();
    vm.constants() = rpu::scene_constants(*scene, *data, *prog);
    vm.set_trace_unit(&*data);
  } else {
    rpu::write_noise_lattice(memory);
    textures.write(memory);
  }
  memory.resize(memory.size() + static_cast<std::size_t>(r.memory_words), Vec4{});
  if (!r.memory_image.empty() && !load_memory_image(r.memory_image, memory)) return kUsage;
  for (const auto& [n, v] : constants) vm.constants()[static_cast<std::size_t>(n)] = v;
  vm.set_memory(&memory, true);
  rpu::VmStats stats;
  if (lanes == 1) vm.run(threads.front(), stats);
  else vm.run_chunk(threads, stats);
  bool all_done = true;
  for (int l = 0; l < lanes; ++l) {
    const rpu::ThreadState& t = threads[static_cast<std::size_t>(l)];
    if (t.status == rpu::ThreadStatus::Faulted)
      std::cerr << "passlab-cli: " << (lanes > 1 ? "lane " + std::to_string(l) + ": " : std::string()) << "the thread faulted: " << t.fault
                << (!scene && t.fault.find("trace needs a scene") != std::string::npos ? " (give --scene FILE)" : "") << '\n';
    all_done = all_done && t.status == rpu::ThreadStatus::Done;
  }
  auto thread_json = [&](const rpu::ThreadState& t) {
    nlohmann::ordered_json j;
    j["status"] = t.status == rpu::ThreadStatus::Done ? "done" : "faulted";
    if (t.status == rpu::ThreadStatus::Faulted) j["fault"] = t.fault;
    if (fn && t.status == rpu::ThreadStatus::Done) {  // a faulted thread has no results, only its state
      int nv = 0, ns = 0;
      for (std::size_t i = 0; i < fn->results.size(); ++i) {
        const Vec4& reg = lang::is_triple(fn->results[i]) ? t.r(nv++) : t.r(ns++);
        j["results"][fn->result_names[i]] =
            lang::is_triple(fn->results[i]) ? nlohmann::ordered_json{num_json(reg[0]), num_json(reg[1]), num_json(reg[2])} : num_json(reg[3]);
      }
    }
    for (int i = 0; i < 16; ++i) j["registers"]["R" + std::to_string(i)] = vec_json(t.r(i));
    j["registers"]["S"] = vec_json(t.r(rpu::kRegS));
    return j;
  };
  auto print_thread = [&](const rpu::ThreadState& t, const std::string& indent) {
    if (fn && t.status == rpu::ThreadStatus::Done) {
      int nv = 0, ns = 0;
      for (std::size_t i = 0; i < fn->results.size(); ++i) {
        const bool triple = lang::is_triple(fn->results[i]);
        const Vec4& reg = triple ? t.r(nv) : t.r(ns);
        const std::string where = triple ? "R" + std::to_string(nv++) + ".xyz" : "R" + std::to_string(ns++) + ".w";
        std::cout << indent << fn->result_names[i] << " = "
                  << (triple ? "(" + rpu::format_float(reg[0]) + ", " + rpu::format_float(reg[1]) + ", " + rpu::format_float(reg[2]) + ")"
                             : rpu::format_float(reg[3]))
                  << "  (" << where << ")\n";
      }
    }
    for (int i = 0; i < 16; ++i)
      if (t.r(i) != Vec4{}) std::cout << indent << "R" << i << " = " << vec_text(t.r(i)) << '\n';
    if (t.r(rpu::kRegS) != Vec4{}) std::cout << indent << "S = " << vec_text(t.r(rpu::kRegS)) << '\n';
  };
  if (r.format == "json") {
    nlohmann::ordered_json j;
    if (lanes == 1) {
      j = thread_json(threads.front());
    } else {
      j["status"] = all_done ? "done" : "faulted";
      for (const rpu::ThreadState& t : threads) j["lanes"].push_back(thread_json(t));
    }
    if (!r.stats.empty()) j["stats"] = stats_json(stats);
    std::cout << lang::dump_json(j, 2) << '\n';
  } else {
    for (int l = 0; l < lanes; ++l) {
      if (lanes > 1) std::cout << "lane " << l << (threads[static_cast<std::size_t>(l)].status == rpu::ThreadStatus::Done ? "" : " (faulted)") << ":\n";
      print_thread(threads[static_cast<std::size_t>(l)], lanes > 1 ? "  " : "");
    }
    if (r.stats == "text") print_stats_text(stats);
    else if (r.stats == "json") std::cout << lang::dump_json(stats_json(stats), 2) << '\n';
  }
  return all_done ? kOk : kDiagnostics;
}

namespace {

// A scene loaded and its shaders compiled at the size asked for; an exit code on failure.
struct PreparedScene {
  std::optional<sim::Scene> scene;
  int w = 0, h = 0;
  rpu::SceneProgram sp;
  double compile_ms = 0;
};

// A hand-written (or saved) program for a scene: the assembly file holds every shader. The
// main shader is the entry --main-function (default main); each object's shader is the entry
// named like its shader file (tiles.sl: tiles), else --entry.
std::optional<int> prepare_assembly(const RpuCliOptions& r, const rpu::Machine* m, PreparedScene& out) {
  if (!r.main.empty() || r.reference) {
    std::cerr << "passlab-cli: " << (r.reference ? "--reference" : "--main")
              << " needs RSL; with an assembly program the main shader is its entry --main-function (default main)\n";
    return kUsage;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<rpu::Program> program = assemble_file(r.files.front(), m);
  if (!program) return kDiagnostics;
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string main = r.main_function.empty() ? "main" : r.main_function;
  const std::optional<std::uint32_t> main_at = program->entry(main);
  if (!main_at) {
    std::cerr << "passlab-cli: " << r.files.front() << " has no entry '" << main << "' for the main shader (--main-function names another)\n";
    return kDiagnostics;
  }
  std::optional<std::uint32_t> fallback;
  if (!r.entry.empty() && !(fallback = program->entry(r.entry))) {
    std::cerr << "passlab-cli: " << r.files.front() << " has no entry '" << r.entry << "' (--entry)\n";
    return kUsage;
  }
  out.sp.main_entry = *main_at;
  out.sp.object_shader.assign(out.scene->objects.size(), -1.0f);
  bool ok = true;
  for (std::size_t i = 0; i < out.scene->objects.size(); ++i) {
    const sim::SceneObject& obj = out.scene->objects[i];
    const std::string stem = obj.shader.empty() ? "" : fs::path(obj.shader).stem().string();
    std::optional<std::uint32_t> at = object_entry(*program, obj);
    if (!at) at = fallback;
    if (!at) {
      std::cerr << "passlab-cli: object \"" << obj.name << "\": " << r.files.front() << " has no entry "
                << (stem.empty() ? std::string("for it") : "'" + stem + "'") << " (give --entry NAME for objects without their own)\n";
      ok = false;
      continue;
    }
    out.sp.object_shader[i] = static_cast<float>(*at);
  }
  if (!ok) return kDiagnostics;
  out.sp.compiled = std::make_unique<rpu::CompiledProgram>();
  out.sp.compiled->program = std::move(*program);
  return std::nullopt;
}

std::optional<int> prepare_scene(const CommonOptions& o, const RpuCliOptions& r, const rpu::Machine* m, PreparedScene& out) {
  lang::Diagnostics problems;
  out.scene = sim::load_scene(r.scene, &problems);
  std::cerr << problems.text();
  if (!out.scene) return kDiagnostics;
  out.w = out.scene->width;
  out.h = out.scene->height;
  if (!r.size.empty()) {
    std::smatch mt;
    if (!std::regex_match(r.size, mt, std::regex(R"((\d{1,5})x(\d{1,5}))")) || std::stoi(mt[1]) < 1 || std::stoi(mt[2]) < 1 ||
        std::stoi(mt[1]) > 16384 || std::stoi(mt[2]) > 16384) {
      std::cerr << "passlab-cli: --size must be WxH with sides from 1 to 16384, not \"" << r.size << "\"\n";
      return kUsage;
    }
    out.w = std::stoi(mt[1]);
    out.h = std::stoi(mt[2]);
  }
  if (!r.files.empty() && is_assembly(r.files.front())) return prepare_assembly(r, m, out);
  const std::string default_shader = r.files.empty() ? "" : fs::absolute(r.files.front()).lexically_normal().string();
  const auto t0 = std::chrono::steady_clock::now();
  out.sp = rpu::compile_scene(*out.scene, out.w, out.h, default_shader, r.main, r.main_function, compile_options(o, r, m));
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  print_diagnostics(*out.sp.compiled);
  if (!out.sp.ok()) return kDiagnostics;
  return std::nullopt;
}

}  // namespace

int run_rpu_render(const CommonOptions& o, const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  PreparedScene ps;
  if (std::optional<int> code = prepare_scene(o, r, m, ps)) return *code;
  const sim::Scene* scene = &*ps.scene;
  const int w = ps.w, h = ps.h;
  rpu::SceneProgram& sp = ps.sp;
  const auto t1 = std::chrono::steady_clock::now();
  rpu::SceneData data(*scene, sp.object_shader, sp.compiled->textures);
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
  ro.time_limit_s = r.time_limit;
  ro.model = r.model || r.cores || r.chunks_in_flight || !r.sweep.empty();
  rpu::Machine modelled;
  if (r.cores || r.chunks_in_flight) {
    modelled = m ? *m : rpu::default_machine();
    if (r.cores) modelled.cores = r.cores;
    if (r.chunks_in_flight) modelled.chunks_in_flight = r.chunks_in_flight;
    ro.machine = &modelled;
  }
  if (!r.sweep.empty()) {
    std::stringstream list(r.sweep);
    std::string item;
    while (std::getline(list, item, ',')) {
      int n = 0;
      if (!std::regex_match(item, std::regex(R"(\d{1,4})")) || (n = std::stoi(item)) < 1 || n > 1024) {
        std::cerr << "passlab-cli: --sweep takes numbers of chunks in flight from 1 to 1024, separated by commas, not \"" << r.sweep << "\"\n";
        return kUsage;
      }
      ro.sweep_in_flight.push_back(n);
    }
  }
  rpu::RenderResult out = rpu::render(*sp.compiled->program, sp.main_entry, data, *scene, ro);
  const auto t2 = std::chrono::steady_clock::now();
  if (out.timed_out) {
    std::cerr << fmt::format("passlab-cli: the render stopped at its time limit of {} s, with {} of {} rows of chunks done; raise --time-limit "
                             "or render smaller (--size); no image written\n",
                             r.time_limit, out.rows_done, out.rows);
    return kDiagnostics;
  }
  for (const std::string& f : out.faults) std::cerr << "passlab-cli: fault at " << f << '\n';
  if (out.fault_count > out.faults.size()) std::cerr << "passlab-cli: ... " << out.fault_count << " threads faulted in all\n";
  std::string error;
  if (!sim::write_png(r.output, out.image, &error)) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kDiagnostics;
  }
  // The model's figures are what --model asks for: text unless --stats says otherwise.
  const std::string stats = r.stats.empty() && ro.model ? "text" : r.stats;
  if (stats == "json") {
    nlohmann::ordered_json j;
    j["width"] = w;
    j["height"] = h;
    j["words"] = sp.compiled->program->code.size();
    j["vm"] = stats_json(out.stats);
    if (out.model) j["model"] = model_json(*out.model);
    if (!out.sweep.empty()) {
      nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
      for (const rpu::ModelStats& s : out.sweep) sweep.push_back(model_json(s));
      j["sweep"] = sweep;
    }
    if (r.timing) {
      j["compile_ms"] = ps.compile_ms;
      j["render_ms"] = std::chrono::duration<double, std::milli>(t2 - t1).count();
    }
    std::cout << lang::dump_json(j, 2) << '\n';
  } else if (stats == "text") {
    std::cout << fmt::format("image            {}x{}\nprogram          {} words\n", w, h, sp.compiled->program->code.size());
    print_stats_text(out.stats);
    if (out.model) std::cout << model_text(*out.model);
    if (!out.sweep.empty()) std::cout << sweep_text(out.sweep);
    if (r.timing)
      std::cout << fmt::format("compile {:.1f} ms, render {:.1f} ms\n", ps.compile_ms,
                               std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  return out.fault_count ? kDiagnostics : kOk;
}

}  // namespace passlab::cli

namespace passlab::cli {

namespace {

// The source location of word `pc`, "file:line:col" ("" when the word has none).
std::string word_source(const rpu::CompiledProgram& p, std::uint32_t pc) {
  if (pc >= p.spans.size() || !p.spans[pc].valid()) return "";
  const lang::Span& s = p.spans[pc];
  return fmt::format("{}:{}:{}", fs::path(p.sources->file(s.file).path).filename().string(), s.line, s.col);
}

std::string lanes_text(std::uint8_t lanes, int count) {
  std::string t;
  for (int l = 0; l < count; ++l) t += (lanes >> l) & 1u ? static_cast<char>('0' + l) : '.';
  return t;
}

nlohmann::ordered_json change_json(const rpu::Change& c) {
  nlohmann::ordered_json j;
  switch (c.kind) {
    case rpu::ChangeKind::Register:
      j["register"] = rpu::thread_register_name(static_cast<int>(c.index));
      j["before"] = vec_json(c.before);
      j["after"] = vec_json(c.after);
      break;
    case rpu::ChangeKind::Address:
      if (c.index == 0) {
        j["register"] = "A";
        j["before"] = vec_json(c.before);
        j["after"] = vec_json(c.after);
      } else {
        j["register"] = "HIT_TRI/HIT_OBJ";
        j["before"] = {c.before[2], c.before[3]};
        j["after"] = {c.after[2], c.after[3]};
      }
      break;
    case rpu::ChangeKind::Stack:
      j["stack_slot"] = c.index;
      j["before"] = vec_json(c.before);
      j["after"] = vec_json(c.after);
      break;
    case rpu::ChangeKind::Push:
      j["push_frame"] = {{"return", static_cast<std::uint32_t>(c.before[0])}, {"shift", static_cast<std::uint32_t>(c.before[1])}};
      break;
    case rpu::ChangeKind::Pop:
      j["pop_frame"] = {{"return", static_cast<std::uint32_t>(c.before[0])}, {"shift", static_cast<std::uint32_t>(c.before[1])}};
      break;
    case rpu::ChangeKind::Status: {
      const auto to = static_cast<rpu::ThreadStatus>(static_cast<int>(c.after[0]));
      j["status"] = to == rpu::ThreadStatus::Done ? "done" : to == rpu::ThreadStatus::Faulted ? "faulted" : "running";
      break;
    }
  }
  return j;
}

std::string change_text(const rpu::Change& c) {
  switch (c.kind) {
    case rpu::ChangeKind::Register: return rpu::thread_register_name(static_cast<int>(c.index)) + " " + vec_text(c.before) + " -> " + vec_text(c.after);
    case rpu::ChangeKind::Address:
      return c.index == 0 ? "A " + vec_text(c.before) + " -> " + vec_text(c.after)
                          : fmt::format("HIT_TRI {} -> {}, HIT_OBJ {} -> {}", c.before[2], c.after[2], c.before[3], c.after[3]);
    case rpu::ChangeKind::Stack: return fmt::format("stack[{}] ", c.index) + vec_text(c.before) + " -> " + vec_text(c.after);
    case rpu::ChangeKind::Push: return fmt::format("call: frame (return {}, shift {}) pushed", c.before[0], c.before[1]);
    case rpu::ChangeKind::Pop: return fmt::format("return: frame (return {}, shift {}) popped", c.before[0], c.before[1]);
    case rpu::ChangeKind::Status: {
      const auto to = static_cast<rpu::ThreadStatus>(static_cast<int>(c.after[0]));
      return to == rpu::ThreadStatus::Done ? "the thread is done" : "the thread faulted";
    }
  }
  return "";
}

nlohmann::ordered_json thread_state_json(const rpu::ThreadState& t) {
  nlohmann::ordered_json j;
  j["status"] = t.status == rpu::ThreadStatus::Done ? "done" : t.status == rpu::ThreadStatus::Faulted ? "faulted" : "running";
  if (t.status == rpu::ThreadStatus::Faulted) j["fault"] = t.fault;
  j["pc"] = t.pc;
  for (int i = 0; i < rpu::kRegCount; ++i) j["registers"][rpu::thread_register_name(i)] = vec_json(t.r(i));
  j["registers"]["A"] = {t.a[0], t.a[1], t.a[2], t.a[3]};
  j["registers"]["HIT_TRI"] = t.hit_tri;
  j["registers"]["HIT_OBJ"] = t.hit_obj;
  j["stack_base"] = t.base;
  for (int s = 0; s < 8; ++s)
    j["window"]["S" + std::to_string(s)] = t.base + static_cast<std::uint32_t>(s) < t.stack.size() ? vec_json(t.stack[t.base + static_cast<std::size_t>(s)]) : vec_json({});
  j["frames"] = nlohmann::ordered_json::array();
  for (const rpu::Frame& f : t.frames) j["frames"].push_back({{"return", f.return_address}, {"shift", f.push}});
  return j;
}

// Words whose RSL is at one of `breaks` (LINE in the first file, or FILE:LINE).
std::function<bool(std::uint32_t)> break_matcher(const rpu::CompiledProgram& p, const std::vector<std::string>& breaks, const std::string& first_file,
                                                 std::string* error) {
  std::vector<std::pair<std::string, std::uint32_t>> at;
  for (const std::string& b : breaks) {
    std::smatch mt;
    if (!std::regex_match(b, mt, std::regex(R"((?:(.+):)?(\d+))"))) {
      *error = "--break takes LINE or FILE:LINE, not \"" + b + "\"";
      return {};
    }
    std::string file = mt[1].matched ? fs::path(mt[1].str()).filename().string() : fs::path(first_file).filename().string();
    at.push_back({file, static_cast<std::uint32_t>(std::stoul(mt[2]))});
  }
  std::vector<char> hit(p.spans.size(), 0);
  for (std::size_t pc = 0; pc < p.spans.size(); ++pc) {
    const lang::Span& s = p.spans[pc];
    if (!s.valid()) continue;
    const std::string name = fs::path(p.sources->file(s.file).path).filename().string();
    for (const auto& [f, line] : at) hit[pc] = hit[pc] || (f == name && s.line == line);
  }
  if (std::find(hit.begin(), hit.end(), 1) == hit.end()) {
    *error = "no word of the program comes from " + breaks.front() + (breaks.size() > 1 ? " or the other --break lines" : "");
    return {};
  }
  return [hit = std::move(hit)](std::uint32_t pc) { return pc < hit.size() && hit[pc]; };
}

}  // namespace

int run_rpu_debug(const CommonOptions& o, const RpuCliOptions& r) {
  rpu::Machine storage;
  const rpu::Machine* m = machine_for(r, &storage);
  if ((!r.machine.empty() || r.ieee) && !m) return kUsage;
  std::smatch mt;
  if (!std::regex_match(r.pixel, mt, std::regex(R"((\d{1,5}),(\d{1,5}))"))) {
    std::cerr << "passlab-cli: --pixel takes X,Y, not \"" << r.pixel << "\"\n";
    return kUsage;
  }
  const int px = std::stoi(mt[1]), py = std::stoi(mt[2]);
  PreparedScene ps;
  if (std::optional<int> code = prepare_scene(o, r, m, ps)) return *code;
  if (px >= ps.w || py >= ps.h) {
    std::cerr << fmt::format("passlab-cli: pixel ({}, {}) is outside the {}x{} image\n", px, py, ps.w, ps.h);
    return kUsage;
  }
  const rpu::CompiledProgram& cp = *ps.sp.compiled;
  rpu::SceneData data(*ps.scene, ps.sp.object_shader, ps.sp.compiled->textures);
  rpu::Debugger d(rpu::record_pixel_chunk(*cp.program, ps.sp.main_entry, data, *ps.scene, ps.w, ps.h, px, py, m, r.ieee));
  // Where to stop: the end, a breakpoint, a NaN or a fault.
  std::size_t stop = d.step_count();
  if (!r.breaks.empty()) {
    std::string error;
    const std::string first = r.files.empty() ? "" : r.files.front();
    std::function<bool(std::uint32_t)> at = break_matcher(cp, r.breaks, first, &error);
    if (!at) {
      std::cerr << "passlab-cli: " << error << '\n';
      return kUsage;
    }
    d.run_to(at);
  } else if (r.run_to == "nan") {
    d.run_to_nan();
  } else if (r.run_to == "fault") {
    d.run_to_fault();
  } else {
    d.seek(d.step_count());
  }
  stop = d.position();
  const bool stopped_early = !r.breaks.empty() || !r.run_to.empty();
  const int lanes = d.lanes();
  std::vector<int> shown;
  for (int l = 0; l < lanes; ++l)
    if (r.all_threads || l == d.run().chunk.lane || (stopped_early && l == d.lane())) shown.push_back(l);
  // Replay the depths of every lane from the start.
  std::array<std::size_t, 4> depth{};
  nlohmann::ordered_json j;
  j["pixel"] = {px, py};
  j["size"] = {ps.w, ps.h};
  j["chunk"]["index"] = d.run().chunk.index;
  j["chunk"]["lane"] = d.run().chunk.lane;
  for (int l = 0; l < lanes; ++l) j["chunk"]["pixels"].push_back({d.run().chunk.pixel[static_cast<std::size_t>(l)][0], d.run().chunk.pixel[static_cast<std::size_t>(l)][1]});
  std::map<int, nlohmann::ordered_json> steps;
  const bool text = r.format != "json";
  if (text)
    std::cout << fmt::format("pixel ({}, {}) of {}x{}: chunk {}, thread {} of {}; {} steps\n", px, py, ps.w, ps.h, d.run().chunk.index, d.run().chunk.lane,
                             lanes, d.step_count());
  for (std::size_t i = 0; i < stop; ++i) {
    const rpu::Step& s = d.step(i);
    const auto changes = d.changes(i);
    for (int l : shown) {
      if (!((s.lanes >> l) & 1u)) continue;
      const std::uint32_t pc = d.pc_before(i, l);
      nlohmann::ordered_json e;
      e["step"] = i;
      e["pc"] = pc;
      e["word"] = s.merged ? "(the split lanes meet again and return together)" : rpu::to_text(cp.program->code[pc]);
      const std::string src = word_source(cp, pc);
      if (!src.empty()) e["source"] = src;
      else e["source"] = nullptr;
      e["lanes"] = lanes_text(s.lanes, lanes);
      e["cycle"] = s.cycle;
      e["stall"] = s.stall;
      e["depth"] = depth[static_cast<std::size_t>(l)];
      e["changes"] = nlohmann::ordered_json::array();
      for (const rpu::Change& c : changes)
        if (c.lane == l) e["changes"].push_back(change_json(c));
      if (text) {
        std::cout << fmt::format("{:>6}  t{}  pc {:<4} {:<44} {:<18} lanes {}  cycle {}{}\n", i, l, pc, e["word"].get<std::string>(), src, e["lanes"].get<std::string>(),
                                 s.cycle, s.stall ? fmt::format(" (+{} stall)", s.stall) : "");
        for (const rpu::Change& c : changes)
          if (c.lane == l) std::cout << "                 " << change_text(c) << '\n';
      } else {
        steps[l].push_back(std::move(e));
      }
    }
    for (const rpu::Change& c : changes) {
      if (c.kind == rpu::ChangeKind::Push) ++depth[c.lane];
      if (c.kind == rpu::ChangeKind::Pop) --depth[c.lane];
    }
  }
  if (stopped_early) {
    static const char* kReasons[] = {"none", "step", "breakpoint", "nan", "fault", "start", "end"};
    j["stopped"] = {{"reason", kReasons[static_cast<int>(d.stop_reason())]}, {"message", d.stop_message()}, {"step", d.position()}, {"thread", d.lane()}};
    if (text) std::cout << "stopped: " << d.stop_message() << " (step " << d.position() << ", thread " << d.lane() << ")\n";
  }
  for (int l : shown) {
    nlohmann::ordered_json t;
    t["lane"] = l;
    t["pixel"] = {d.run().chunk.pixel[static_cast<std::size_t>(l)][0], d.run().chunk.pixel[static_cast<std::size_t>(l)][1]};
    t["steps"] = steps.count(l) ? steps[l] : nlohmann::ordered_json::array();
    t["state"] = thread_state_json(d.thread(l));
    j["threads"].push_back(std::move(t));
    if (text) {
      const rpu::ThreadState& th = d.thread(l);
      std::cout << fmt::format("thread {} ({}, {}): {}{}\n", l, d.run().chunk.pixel[static_cast<std::size_t>(l)][0], d.run().chunk.pixel[static_cast<std::size_t>(l)][1],
                               th.status == rpu::ThreadStatus::Done ? "done" : th.status == rpu::ThreadStatus::Faulted ? "faulted: " + th.fault : "running",
                               th.status == rpu::ThreadStatus::Done ? ", colour " + vec_text(th.r(0)) : "");
    }
  }
  j["stats"] = stats_json(d.run().stats);
  if (!text) std::cout << lang::dump_json(j, 2) << '\n';
  return kOk;
}

}  // namespace passlab::cli
