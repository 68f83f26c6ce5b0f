// SPDX-License-Identifier: GPL-3.0-or-later
// The RSL-to-RPU compiler (thesis ch. 5): the pipeline from source files to an assembled RPU
// program, keeping every intermediate form the thesis keeps.
//
//   front end (recursion allowed) -> SSA IR, every function and shader kept (lower_program)
//   -> IR optimisation (calls stay calls; --inline N inlines small non-recursive callees)
//   -> code generation with virtual registers (codegen.h: the ABI, late-inlined library)
//   -> { opcode simplification -> forwarding -> dead-code elimination }*  (passes.h)
//   -> register allocation (regalloc.h) -> list scheduling (schedule.h)
//   -> code output: call expansion, linearisation (output.h) -> the assembler -> Program
//
// Several files compile into one program (each its own translation unit): a scene's shaders and
// its main shader. Transcendental functions come from the runtime library
// (resources/rpu/runtime.sl), compiled in when a shader uses them.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/rpu/machine.h"
#include "backends/rpu/passes.h"
#include "backends/rpu/program.h"
#include "backends/rpu/regalloc.h"
#include "backends/rpu/schedule.h"
#include "backends/rpu/texture_memory.h"
#include "core/ir/ir.h"
#include "core/ir/value.h"
#include "core/lang/diagnostic.h"
#include "core/lang/source.h"
#include "core/lang/types.h"

namespace passlab::rpu {

struct CompileOptions {
  std::vector<std::string> include_paths;
  std::vector<std::pair<std::string, std::string>> defines;
  const Machine* machine = nullptr;  // null: the default machine
  bool optimize = true;     // IR optimisation and the assembly passes
  bool schedule = true;     // list scheduling
  bool pair = false;        // pair 3/1 and 2/2 words (beyond the thesis; needs a pairing machine)
  int inline_limit = 0;     // inline user functions of at most this many IR instructions (0: never)
  bool keep_stages = false; // keep every intermediate form (passlab-cli rpu compile --emit)
  bool keep_decisions = false;  // keep what forwarding did and the facts at each instruction (the Studio)
  bool verify = true;       // check the assembly after every stage (backends/rpu/verifier.h; linear in the code)
  // Texts to compile instead of reading these files (the Studio's unsaved editor), by path.
  std::map<std::string, std::string> unsaved;
  // Lights: a surface is compiled against its light setup (lights_path for the first file, else
  // <stem>.lights.json beside each file), as on fragment targets; without one, against the
  // RPU's point light (C0, C1).
  std::string lights_path;
  // A scene (rpu render, the Studio): its "lights" light every surface instead, each light
  // compiled once to a function the surfaces call, and world_to_camera (which places them) is
  // the named space "world". A scene without "lights" leaves the surfaces' lights as above.
  std::string scene_path;
  ir::Matrix world_to_camera = ir::identity_matrix();
  // The scene's texture images (name -> PNG path), laid out in data memory (texture_memory.h);
  // a texture name without one reads the procedural stand-in.
  std::map<std::string, std::string> textures;
};

struct Stage {
  std::string name;  // ir, codegen, simplify, forward, dce, regalloc, schedule, final
  std::string text;
};

struct FunctionInfo {
  std::string name, label;
  bool shader = false;
  std::vector<lang::BaseType> args, results;
  std::vector<std::string> arg_names, result_names;
  std::uint32_t address = 0;
  std::size_t file = 0;      // which input file (and IR module)
  std::size_t function = 0;  // its index in that module
};

struct CompiledProgram {
  std::shared_ptr<lang::SourceManager> sources = std::make_shared<lang::SourceManager>();
  lang::DiagnosticList diagnostics;
  std::vector<Stage> stages;
  std::string assembly;                 // the final listing
  std::optional<Program> program;       // assembled from it
  std::vector<lang::Span> spans;        // per word of the program: the RSL it came from
  std::vector<FunctionInfo> functions;  // every user function and shader, in file order
  std::vector<ir::Module> modules;      // the optimised IR of each input file (the oracle's input)
  std::vector<std::string> module_paths;  // ...and the file each came from
  std::vector<std::map<std::string, ir::Matrix>> module_spaces;  // ...and its named coordinate systems
  TextureMemory textures;               // the texture images the program reads, where they lie in memory
  std::map<std::string, long> stats;    // pass counters
  int scheduled_cycles = 0, unscheduled_cycles = 0;  // summed over every scheduled block
  std::map<std::string, Allocation> allocations;     // by label
  std::map<std::string, FunctionSchedule> schedules; // by label
  // With keep_decisions, by label: forwarding's rewrites, and the facts reaching each instruction.
  std::map<std::string, std::vector<ForwardNote>> forwarding;
  std::map<std::string, std::vector<FactLine>> facts;

  bool ok() const { return program.has_value() && !diagnostics.has_errors(); }
  const FunctionInfo* function(const std::string& name) const;
};

// The text options.unsaved holds for `path` (compared as canonical paths), or null.
const std::string* unsaved_text(const CompileOptions& options, const std::string& path);

// Compiles RSL files into one program. Never throws for bad input: problems are diagnostics.
std::unique_ptr<CompiledProgram> compile_files(const std::vector<std::string>& paths, const CompileOptions& options);
// The same for texts held in memory: (name, text) pairs.
std::unique_ptr<CompiledProgram> compile_sources(const std::vector<std::pair<std::string, std::string>>& sources,
                                                 const CompileOptions& options);

// The RPU's point light: resources/rpu/light.sl with its position and colour read from C0 and
// C1 when the shader runs. The runtime library: resources/rpu/runtime.sl.
std::string light_shader_path();
std::string runtime_library_path();

}  // namespace passlab::rpu
