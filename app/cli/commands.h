// SPDX-License-Identifier: GPL-3.0-or-later
// The passlab-cli subcommands: each takes parsed options and returns the process exit code.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/lang/diagnostics.h"
#include "session/pipeline.h"

namespace passlab::cli {

// Exit codes shared by every command.
constexpr int kOk = 0;
constexpr int kDiagnostics = 1;  // the input has errors (or a stage rejected it)
constexpr int kUsage = 2;        // the command line was wrong

struct CommonOptions {
  std::string file;
  std::string lights;  // --lights
  std::vector<std::string> include_paths;
  std::vector<std::string> defines;  // NAME or NAME=VALUE
  std::string format = "text";
  std::string aov;  // --aov: an output parameter as the fragment's colour
  bool all_outputs = false;  // --all-outputs: the colour and every output parameter, each its own render target
};

// What the compiler is asked for: `o`'s include paths, defines (-D NAME=VALUE), light setup, AOV.
driver::ProgramOptions program_options(const CommonOptions& o);

// The shader of `o` through the one pipeline (session/pipeline.h), with its include paths, defines
// and light setup: to the fragment DAG, or onto `target` when one is given.
session::Compiled compile_shader(const CommonOptions& o, const partition::TargetDesc* target = nullptr);

// Problems with the user's inputs other than the shader (a target, a machine, a cost model, a
// scene), printed as the compiler prints its diagnostics on standard error; with --format json
// also a {"diagnostics": [...]} document on standard output. Returns `exit_code`.
int report_problems(const CommonOptions& o, const lang::Diagnostics& problems, int exit_code);

int run_check(const CommonOptions& o);
int run_ir(const CommonOptions& o, bool optimize);
// The fragment DAG; for a target (`target_name`, "": none), as that target's pipeline builds it
// (a target with dynamic loops keeps loops the others unroll).
int run_dag(const CommonOptions& o, const std::string& target_name);
int run_report(const CommonOptions& o);

struct PartitionOptions {
  std::string target = "PC8";
  std::string cost = "15p+5t+i";
  std::string algo = "all";  // a partition::algorithms() name, or all
  double budget = 60;        // seconds for the optimal search
  int table_mb = 1024;       // MiB for the optimal search's table of states
  bool trace = false;
  bool timing = false;       // run times and search statistics (not deterministic)
  std::string emit;          // folder for the per-pass listings
  std::string marks;         // a hand-made partition to evaluate ("yours"; core/partition/marks.h)
  bool algo_given = false;   // --algo was given: with --marks, the algorithms run beside it
  std::string save_marks;    // write the marks of the (one) partition shown here
};
int run_partition(const CommonOptions& o, const PartitionOptions& p);

struct RenderCliOptions {
  std::string scene;
  std::string target = "PC5";
  std::string cost = "15p+5t+i";
  std::string algo = "rds";        // a partition::algorithms() name
  std::string store = "fbuffer";   // single, rtt or fbuffer
  std::string fbuffer_size;        // N fragments or WxH; "" : as many as needed
  std::string overflow = "window"; // restart (9800) or window (X800)
  std::string size;                // WxH; "" : the scene's
  int supersample = 1;
  int multisample = 1;
  std::string precision = "float";  // register combiners: float or hardware (9-bit registers, 8-bit intermediates)
  int threads = 0;
  std::string output;              // PNG
  std::string stats;               // "", text or json (on standard output)
  // Decoupled sampling (motion and defocus blur): on when spp or shading is given.
  int spp = 0;
  std::string shading;             // decoupled, supersample, msaa, opportunistic or exact
  long cache = 4096;               // shading samples; 0: unlimited
  std::string cache_scope = "global";
  std::string reconstruct = "nearest";
  float rate = 1;
  bool adaptive = false;
  bool no_quads = false;
  float blur = 1;
  unsigned seed = 0;
  bool accumulate = false;         // every pixel's sample k at the same lens point and time (an accumulation buffer)
  std::string reference;           // "", supersample, msaa, exact or accumulation: also render it and report the error
  int reference_spp = 0;           // the reference's samples per pixel (0: the render's)
  std::string reference_output;    // PNG of the reference
  std::string error_map;           // PNG: where the render departs from the reference (a heat map)
  std::string heat;                // PNG: where the shading happened (runs per pixel)
  std::string sweep;               // CSV: sweep the parameters instead of one render
  std::vector<std::string> sweep_axes;  // spp, cache, scope, blur (default: all)
  bool timing = false;             // times in the JSON and CSV (they vary from run to run)
};
int run_render(const CommonOptions& o, const RenderCliOptions& r);
// The decoupled-sampling half of `render` (render_command.cpp hands over to it).
int run_decoupled_render(const CommonOptions& o, const RenderCliOptions& r);

// passlab-cli combiners: one pass for NVIDIA register combiners (Mark & Proudfoot 2001).
struct CombinersCliOptions {
  std::string target = "geforce3";
  bool trace = false;   // print every decision of the five stages
  std::string emit;     // folder for the hardware DAG, the trace, the programs (pass.ts, pass.rc) and JSON
  std::string output;   // the !!RC1.0 program (its !!TS1.0 program beside it as .ts)
  bool exact = false;   // schedule the stages by exhaustive search (the fewest stages)
  bool paper = false;   // as Mark & Proudfoot's compiler: out.rgb = D, products in the source's order
};
int run_combiners(const CommonOptions& o, const CombinersCliOptions& c);

// passlab-cli nvparse: checks !!RC1.0 and !!TS1.0 files as nvparse() would load them on a target.
struct NvparseCliOptions {
  std::vector<std::string> files;
  std::string target = "geforce3";
};
int run_nvparse_check(const NvparseCliOptions& c);

// passlab-cli rpu compile|asm|run|render
struct RpuCliOptions {
  std::vector<std::string> files;  // RSL files (compile, run, render) or one assembly file (asm, run)
  std::string machine;             // "" : the rpu preset
  bool ieee = false;               // IEEE single arithmetic instead of 24-bit
  bool no_opt = false, no_schedule = false, pair = false;
  int inline_limit = 0;
  std::string emit;                // compile: folder for every intermediate form
  bool schedule_table = false;     // compile: print Figure 9.1's table for every scheduled block
  std::string output;              // compile: .s; asm: listing; render: PNG
  std::string stats;               // "", text or json
  std::string format = "text";     // run: text or json
  std::string entry;               // run: the function or entry label
  std::vector<std::string> args;   // run: arguments in order, "x,y,z" or "x"
  std::vector<std::string> regs;   // run: R<n>=x,y,z,w or C<n>=x,y,z,w
  long memory_words = 4096;        // run: data memory
  int lanes = 1;                   // run: threads of the chunk (1-4); --arg and --reg values per lane split by ';'
  std::string memory_image;        // run: JSON words to load into data memory first
  std::string scene, size, main, main_function;  // render (scene: run too)
  int threads = 0;
  double time_limit = 600;         // render: seconds the VM may take
  bool timing = false;
  bool reference = false;  // render: with the IR interpreter instead of the VM (the oracle)
  bool model = false;      // render: also time the chunks on the machine model
  int cores = 0, chunks_in_flight = 0;  // render: the model's knobs (0: the machine's)
  std::string sweep;       // render: "1,2,4,...": the model with each number of chunks in flight
  std::string pixel;             // debug: X,Y
  bool all_threads = false;      // debug: every thread of the chunk, not only the pixel's
  std::string run_to;            // debug: "", nan or fault: print only up to there
  std::vector<std::string> breaks;  // debug: FILE:LINE or LINE (the main file): stop at the first hit
};
int run_rpu_compile(const CommonOptions& o, const RpuCliOptions& r);
int run_rpu_asm(const RpuCliOptions& r);
int run_rpu_run(const CommonOptions& o, const RpuCliOptions& r);
int run_rpu_render(const CommonOptions& o, const RpuCliOptions& r);
int run_rpu_debug(const CommonOptions& o, const RpuCliOptions& r);

// passlab-cli conform: shaders through every backend against the reference interpreter.
struct ConformCliOptions {
  std::vector<std::string> files;         // shaders to check (with their light setups)
  std::vector<std::string> include_paths;
  long generate = 0;                      // generated programs per family
  double minutes = 0;                     // or generate until this much time has passed
  std::uint64_t seed = 1;                 // the first generated program's seed
  std::vector<std::string> families;      // fragment, combiners, rpu or all (default all)
  std::vector<std::string> only;          // backend families to run: ir, fragment, combiners, rpu, decoupled
  int statements = 10;                    // generated programs' size
  int fragments = 16;                     // random fragments per comparison
  int transforms = 0;                     // semantics-preserving variants of each file
  bool reduce = false;                    // shrink each failure while it fails the same way
  std::string save;                       // folder for failing (reduced) programs
  double timeout = 120;                   // seconds one program may take before it is a hang
  long progress = 0;                      // print a progress line every N programs
  int jobs = 1;                           // programs checked at once (child processes)
  std::string format = "text";
  bool verbose = false;
  bool print = false;                     // print the generated program(s) of --seed and stop
};
int run_conform(const ConformCliOptions& o);

}  // namespace passlab::cli
