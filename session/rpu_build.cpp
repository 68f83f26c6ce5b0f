// SPDX-License-Identifier: GPL-3.0-or-later
// The shader on the RPU for the Studio: scene, compile, code maps and the compiler's decisions.
#include "session/rpu_build.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "session/scenes.h"
#include "core/paths/canonical.h"
#include "backends/rpu/isa.h"
#include "core/ir/printer.h"

namespace passlab::session {

namespace fs = std::filesystem;

namespace {

std::string join_names(const std::vector<int>& v) {
  std::string t;
  for (int i : v) t += (t.empty() ? "" : ", ") + std::to_string(i + 1);
  return t.empty() ? "none" : t;
}

}  // namespace

std::vector<std::uint32_t> RpuBuild::words_on_line(std::uint32_t line) const {
  std::vector<std::uint32_t> out;
  for (std::size_t pc = 0; pc < word_source_line.size(); ++pc)
    if (line && word_source_line[pc] == line) out.push_back(static_cast<std::uint32_t>(pc));
  return out;
}

const RpuFunction* RpuBuild::function_at(std::uint32_t pc) const {
  for (const RpuFunction& f : functions)
    if (pc >= f.address && pc < f.end) return &f;
  return nullptr;
}

int RpuBuild::function_index(const std::string& label) const {
  for (std::size_t i = 0; i < functions.size(); ++i)
    if (functions[i].label == label) return static_cast<int>(i);
  return -1;
}

std::vector<int> RpuBuild::ir_lines_of(std::uint32_t line) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < ir_source_line.size(); ++i)
    if (line && ir_source_line[i] == line) out.push_back(static_cast<int>(i));
  return out;
}

rpu::RenderResult render_rpu(const RpuBuild& b, const std::atomic<bool>* cancel, int threads, bool model) {
  if (!b.ok()) return {};
  rpu::RenderOptions o;
  o.width = b.width;
  o.height = b.height;
  o.threads = threads;
  o.cancel = cancel;
  o.machine = &b.machine;
  o.model = model;
  if (model) o.sweep_in_flight.assign(std::begin(rpu::kInFlightSweep), std::end(rpu::kInFlightSweep));
  return rpu::render(*b.compiled().program, b.program.main_entry, *b.data, b.scene, o);
}

rpu::ChunkRun record_rpu_pixel(const RpuBuild& b, int x, int y) {
  x = std::clamp(x, 0, std::max(0, b.width - 1));
  y = std::clamp(y, 0, std::max(0, b.height - 1));
  return rpu::record_pixel_chunk(*b.compiled().program, b.program.main_entry, *b.data, b.scene, b.width, b.height, x, y, &b.machine);
}

std::shared_ptr<RpuBuild> build_rpu(const std::string& path, const std::string& text, const RpuRequest& request,
                                    const std::vector<std::string>& include_paths, const std::string& lights_path,
                                    std::vector<Message>* messages, const std::atomic<bool>* cancel) {
  auto b = std::make_shared<RpuBuild>();
  b->machine_name = request.machine;
  // The machine's and the scene's problems, in the files they are in.
  lang::Diagnostics problems;
  auto fail = [&] {
    const std::vector<Message> found = to_messages(problems.items(), problems.sources(), path);
    messages->insert(messages->end(), found.begin(), found.end());
    return b;
  };
  std::optional<rpu::Machine> machine = rpu::load_machine(request.machine.empty() ? "rpu" : request.machine, &problems);
  if (!machine) return fail();
  b->machine = *machine;
  // The scene: the one asked for, the sample scene that uses this shader, or a lit sphere.
  b->scene_path = request.scene.empty() ? rpu_scene_for(path) : request.scene;
  if (!b->scene_path.empty()) {
    std::optional<sim::Scene> s = cached_scene(b->scene_path, &problems);
    if (!s) return fail();
    b->scene = std::move(*s);
    b->scene_name = fs::path(b->scene_path).stem().string();
  } else {
    b->scene = default_scene_for(path);
    b->scene_name = "sphere";
  }
  const int side = std::clamp(request.size, 8, 4096);
  const double aspect = static_cast<double>(std::max(1, b->scene.width)) / std::max(1, b->scene.height);
  b->width = aspect >= 1 ? side : std::max(1, static_cast<int>(std::lround(side * aspect)));
  b->height = aspect >= 1 ? std::max(1, static_cast<int>(std::lround(side / aspect))) : side;
  if (cancel && cancel->load()) return b;

  rpu::CompileOptions co;
  co.include_paths = include_paths;
  co.lights_path = lights_path;
  co.machine = &b->machine;
  co.keep_decisions = true;
  co.unsaved[path] = text;
  b->program = rpu::compile_scene(b->scene, b->width, b->height, path, "", "", co);
  const rpu::CompiledProgram& cp = *b->program.compiled;
  const std::string main = paths::canonical(path);
  std::vector<Message> found = to_messages(cp.diagnostics.items(), *cp.sources, path);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const lang::Diagnostic& d = cp.diagnostics.items()[i];
    if (d.span.valid()) found[i].in_main_file = paths::canonical(cp.sources->file(d.span.file).path) == main;
  }
  messages->insert(messages->end(), found.begin(), found.end());
  if (!b->program.ok()) return b;
  b->data = std::make_unique<rpu::SceneData>(b->scene, b->program.object_shader, b->program.compiled->textures);

  // The main file's IR.
  for (std::size_t i = 0; i < cp.module_paths.size(); ++i)
    if (paths::canonical(cp.module_paths[i]) == main) {
      b->ir_text = ir::print(cp.modules[i], &b->ir_spans);
      b->ir_source_line.assign(b->ir_spans.size(), 0);
      std::map<lang::FileId, bool> in_main;
      for (std::size_t l = 0; l < b->ir_spans.size(); ++l) {
        const lang::Span& sp = b->ir_spans[l];
        if (!sp.valid()) continue;
        auto it = in_main.find(sp.file);
        if (it == in_main.end()) it = in_main.emplace(sp.file, paths::canonical(cp.sources->file(sp.file).path) == main).first;
        if (it->second) b->ir_source_line[l] = sp.line;
      }
    }
  // The assembly with addresses: each word knows its line in the text that was assembled.
  const rpu::Program& prog = *cp.program;
  std::map<std::uint32_t, std::uint32_t> word_of_line;  // 1-based line -> word
  for (std::size_t pc = 0; pc < prog.code.size(); ++pc) word_of_line[prog.code[pc].where.line] = static_cast<std::uint32_t>(pc);
  b->word_asm_line.assign(prog.code.size(), -1);
  std::size_t start = 0;
  std::uint32_t line = 1;
  while (start < cp.assembly.size()) {
    std::size_t end = cp.assembly.find('\n', start);
    if (end == std::string::npos) end = cp.assembly.size();
    const std::string text_line = cp.assembly.substr(start, end - start);
    auto it = word_of_line.find(line);
    const int word = it == word_of_line.end() ? -1 : static_cast<int>(it->second);
    if (word >= 0) b->word_asm_line[static_cast<std::size_t>(word)] = static_cast<int>(b->asm_line_word.size());
    b->asm_text += (word >= 0 ? fmt::format("{:>5}  ", word) : std::string(7, ' ')) + text_line + "\n";
    b->asm_line_word.push_back(word);
    start = end + 1;
    ++line;
  }
  b->word_source_line.assign(prog.code.size(), 0);
  std::map<lang::FileId, bool> is_main;
  for (std::size_t pc = 0; pc < prog.code.size() && pc < cp.spans.size(); ++pc) {
    const lang::Span& s = cp.spans[pc];
    if (!s.valid()) continue;
    auto it = is_main.find(s.file);
    if (it == is_main.end()) it = is_main.emplace(s.file, paths::canonical(cp.sources->file(s.file).path) == main).first;
    if (it->second) b->word_source_line[pc] = s.line;
  }
  // Functions in address order, each up to the next.
  for (const auto& [label, address] : prog.labels) {
    if (label.rfind(rpu::kEntryPrefix, 0) != 0) continue;
    RpuFunction f;
    f.label = label;
    f.name = label.substr(std::string(rpu::kEntryPrefix).size());
    f.address = address;
    for (const rpu::FunctionInfo& info : cp.functions)
      if (info.label == label) {
        f.name = info.name;
        f.main_file = info.file < cp.module_paths.size() && paths::canonical(cp.module_paths[info.file]) == main;
      }
    b->functions.push_back(std::move(f));
  }
  std::sort(b->functions.begin(), b->functions.end(), [](const RpuFunction& x, const RpuFunction& y) { return x.address < y.address; });
  for (std::size_t i = 0; i < b->functions.size(); ++i)
    b->functions[i].end = i + 1 < b->functions.size() ? b->functions[i + 1].address : static_cast<std::uint32_t>(prog.code.size());
  b->constants = rpu::scene_constants(b->scene, *b->data, prog);
  b->decisions = rpu_decision_trace(*b);
  return b;
}

partition::Trace rpu_decision_trace(const RpuBuild& build) {
  partition::Trace out;
  if (!build.program.compiled) return out;
  const rpu::CompiledProgram& cp = *build.program.compiled;
  auto event = [&](int function, int stage, std::vector<std::uint32_t> where, std::string reason) {
    partition::TraceEvent e;
    e.kind = partition::EventKind::Codegen;
    e.pass = function;
    e.stage = stage;
    out.add(e, where, reason);
  };
  for (std::size_t fi = 0; fi < build.functions.size(); ++fi) {
    const RpuFunction& f = build.functions[fi];
    const int fn = static_cast<int>(fi);
    if (auto it = cp.forwarding.find(f.label); it != cp.forwarding.end())
      for (std::size_t i = 0; i < it->second.size(); ++i) {
        const rpu::ForwardNote& n = it->second[i];
        std::string facts;
        for (const std::string& x : n.facts) facts += (facts.empty() ? "" : "; ") + x;
        event(fn, kRpuForward, {static_cast<std::uint32_t>(i)},
              fmt::format("{}: forwarding ({}) in B{}: `{}` became `{}`{}", f.name, n.what, n.block, n.before, n.after, facts.empty() ? "" : ", because " + facts));
      }
    if (auto it = cp.allocations.find(f.label); it != cp.allocations.end()) {
      const rpu::Allocation& a = it->second;
      auto name = [&](rpu::Loc v) { return v < a.names.size() ? a.names[v] : fmt::format("%{}", v); };
      for (const rpu::Allocation::Removal& r : a.order)
        event(fn, kRpuRemove, {r.vreg},
              fmt::format("{}: register allocation removes {} from the graph: {} edge{}, {} friend{} (the fewest edges, then the fewest friends)", f.name,
                          name(r.vreg), r.edges, r.edges == 1 ? "" : "s", r.friends, r.friends == 1 ? "" : "s"));
      for (const rpu::Allocation::Choice& c : a.choices)
        event(fn, kRpuColour, {c.vreg},
              fmt::format("{}: {} gets {}: {}", f.name, name(c.vreg), c.vreg < a.registers.size() ? a.registers[c.vreg] : "?", c.reason));
    }
    if (auto it = cp.schedules.find(f.label); it != cp.schedules.end())
      for (std::size_t p = 0; p < it->second.pieces.size(); ++p) {
        const rpu::BlockSchedule& s = it->second.pieces[p];
        for (std::size_t r = 0; r < s.table.size(); ++r) {
          const rpu::CycleRow& row = s.table[r];
          std::string what;
          if (!row.issued.empty()) {
            const int i = row.issued.front();
            what = fmt::format("issues {} `{}` (path {}, {} successor{}, latency {})", i + 1, s.text[static_cast<std::size_t>(i)], s.path[static_cast<std::size_t>(i)],
                               s.successors[static_cast<std::size_t>(i)], s.successors[static_cast<std::size_t>(i)] == 1 ? "" : "s",
                               s.latency[static_cast<std::size_t>(i)]);
            if (row.issued.size() > 1) what += fmt::format(" paired with {}", row.issued[1] + 1);
          } else {
            what = row.candidates.empty() && r + 1 < s.table.size() ? "stalls: nothing is ready" : r + 1 == s.table.size() ? "the last result is ready" : "stalls";
          }
          event(fn, kRpuCycle, {static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(r)},
                fmt::format("{}: scheduling B{}, cycle {}: ready {}; {}", f.name, s.block, row.cycle, join_names(row.candidates), what));
        }
      }
  }
  return out;
}

}  // namespace passlab::session
