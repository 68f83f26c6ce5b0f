// SPDX-License-Identifier: GPL-3.0-or-later
// The shader on the RPU, as the Studio shows it: its scene (the sample scene that uses the shader,
// or one chosen), compiled with the editor's text at the size the Studio renders, with what the
// code panels, the debugger and the compiler-decision views read (IR and assembly with their
// lines mapped to words and source, per-function decisions as trace events). Built off the UI
// thread, immutable afterwards.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/rpu/debugger.h"
#include "backends/rpu/machine.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_data.h"
#include "backends/rpu/scene_program.h"
#include "core/partition/trace.h"
#include "core/sim/scene.h"
#include "session/messages.h"

namespace passlab::session {

// One function of the program, in address order.
struct RpuFunction {
  std::string name, label;
  std::uint32_t address = 0, end = 0;  // its words: [address, end)
  bool main_file = false;              // defined in the file being edited
};

struct RpuBuild {
  std::string machine_name;
  rpu::Machine machine;
  std::string scene_path;  // "" : the built-in sphere
  std::string scene_name;  // what the scene chooser shows
  sim::Scene scene;
  int width = 0, height = 0;
  rpu::SceneProgram program;  // compiled with its decisions kept
  std::unique_ptr<rpu::SceneData> data;

  // The main file's IR, one span per line.
  std::string ir_text;
  std::vector<lang::Span> ir_spans;
  std::vector<std::uint32_t> ir_source_line;  // per IR line: its line in the main file (0: none)
  // The assembly with word addresses; per line its word (-1: a label or blank), per word its line.
  std::string asm_text;
  std::vector<int> asm_line_word;
  std::vector<int> word_asm_line;
  // Per word: its line in the main file (0: it comes from elsewhere or nowhere).
  std::vector<std::uint32_t> word_source_line;
  std::vector<RpuFunction> functions;
  // The constant registers a render of the scene loads (C0..C31).
  std::array<rpu::Vec4, 32> constants{};
  // The compiler's decisions as trace events (EventKind::Codegen; see rpu_decision_trace).
  partition::Trace decisions;

  bool ok() const { return program.ok() && data != nullptr; }
  const rpu::CompiledProgram& compiled() const { return *program.compiled; }
  // The words from line `line` of the main file; the function holding word `pc` (or null).
  std::vector<std::uint32_t> words_on_line(std::uint32_t line) const;
  const RpuFunction* function_at(std::uint32_t pc) const;
  int function_index(const std::string& label) const;
  // The IR lines from line `line` of the main file.
  std::vector<int> ir_lines_of(std::uint32_t line) const;
};

struct RpuRequest {
  std::string machine = "rpu";  // a preset of resources/rpu or a file
  std::string scene;            // "" : the sample scene that uses the shader, else a lit sphere
  int size = 256;               // the longer side of the image
};

// Compiles `text` (the file `path`) for the RPU in its scene; diagnostics of the main file and
// the scene go to `messages`. Never throws for bad input.
std::shared_ptr<RpuBuild> build_rpu(const std::string& path, const std::string& text, const RpuRequest& request,
                                    const std::vector<std::string>& include_paths, const std::string& lights_path,
                                    std::vector<Message>* messages, const std::atomic<bool>* cancel = nullptr);

// The frame on the RPU at the build's size, with its per-pixel statistics (`threads` host
// threads, 0: all); with `model`, also timed on the machine model with the build's machine and
// with each number of chunks in flight of rpu::kInFlightSweep (several times slower).
// Deterministic; an empty result when the build failed.
rpu::RenderResult render_rpu(const RpuBuild& build, const std::atomic<bool>* cancel = nullptr, int threads = 0, bool model = false);

// The chunk that shades pixel (x, y) of that frame, recorded for the debugger (the pixel is
// clamped into the image).
rpu::ChunkRun record_rpu_pixel(const RpuBuild& build, int x, int y);

// The compiler's decisions, in the order it made them, function by function: each event has
// kind Codegen, `pass` = the function's index in build.functions, `stage` = what it is
// (kRpuForward, kRpuRemove, kRpuColour, kRpuCycle) and `nodes` = its place: the rewrite's index;
// the virtual register; the scheduled piece and the cycle row.
enum : int { kRpuForward = 0, kRpuRemove = 1, kRpuColour = 2, kRpuCycle = 3 };
partition::Trace rpu_decision_trace(const RpuBuild& build);

}  // namespace passlab::session
