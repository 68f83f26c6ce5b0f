// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli: the headless front door to everything the Studio shows.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "core/partition/registry.h"

namespace {

// The partitioning algorithms' names for --algo, then `extra` ("all") if given.
std::vector<std::string> algorithm_choices(const char* extra = nullptr) {
  std::vector<std::string> names;
  for (const auto& a : passlab::partition::algorithms()) names.emplace_back(a.name);
  if (extra) names.emplace_back(extra);
  return names;
}

// "a, b or c".
std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// `render`'s options beyond the common ones: the scene, the target, storage and the renderer's, and
// decoupled sampling's.
void add_render_options(CLI::App* render, passlab::cli::RenderCliOptions& ro) {
  render->add_option("--scene", ro.scene, "scene JSON file")->required();
  render->add_option("--target", ro.target, "target preset or JSON file");
  render->add_option("--cost", ro.cost, "cost model, e.g. 15p+5t+i");
  render->add_option("--algo", ro.algo, or_list(algorithm_choices()))->check(CLI::IsMember(algorithm_choices()));
  render->add_option("--store", ro.store, "single (one pass), rtt (render to texture) or fbuffer")
      ->check(CLI::IsMember({"single", "rtt", "fbuffer"}));
  render->add_option("--fbuffer-size", ro.fbuffer_size, "F-buffer size: N fragments or WxH (default: never overflows)");
  render->add_option("--overflow", ro.overflow, "F-buffer overflow: restart (ATI 9800) or window (ATI X800)")
      ->check(CLI::IsMember({"restart", "window"}));
  render->add_option("--size", ro.size, "image size WxH (default: the scene's)");
  render->add_option("--supersample", ro.supersample, "shaded samples per pixel along each axis (averaged)")->check(CLI::Range(1, 8));
  render->add_option("--msaa", ro.multisample, "multisampling: coverage and depth samples per pixel, shaded once per pixel")
      ->check(CLI::IsMember({1, 2, 4, 8}));
  render->add_option("--threads", ro.threads, "worker threads (default: all)")->check(CLI::Range(0, 256));
  render->add_option("-o,--output", ro.output, "PNG file to write")->required();
  render->add_option("--stats", ro.stats, "print render statistics: text or json")->check(CLI::IsMember({"text", "json"}));
  render->add_option("--precision", ro.precision, "register combiners: float, or hardware (9-bit registers, 8-bit inputs and intermediates)")
      ->check(CLI::IsMember({"float", "hardware"}));
  auto* ds = "Decoupled sampling (motion and defocus blur)";
  render->add_option("--spp", ro.spp, "visibility samples per pixel over (x, y, lens, time): renders with the scene's lens and motion")
      ->check(CLI::Range(1, 256))->group(ds);
  render->add_option("--shading", ro.shading, "decoupled (the default with --spp), supersample (every sample shaded, at the lens centre and the shutter's opening), msaa (once per pixel), opportunistic (a cache shading where it missed) or exact (every sample shaded at its own lens point and time: the ground truth)")
      ->check(CLI::IsMember({"decoupled", "supersample", "msaa", "opportunistic", "exact"}))->group(ds);
  render->add_option("--cache", ro.cache, "shading cache size in shading samples (0: unlimited; default 4096)")->check(CLI::Range(0L, 1L << 30))->group(ds);
  render->add_option("--cache-scope", ro.cache_scope, "global (one cache, sort-last) or tile (one per 32x32 tile, sort-middle)")
      ->check(CLI::IsMember({"global", "tile"}))->group(ds);
  render->add_option("--reconstruct", ro.reconstruct, "nearest shading point, or bilinear between the four nearest")
      ->check(CLI::IsMember({"nearest", "bilinear"}))->group(ds);
  render->add_option("--rate", ro.rate, "shading rate: pixels of area per shading sample (RenderMan's ShadingRate; default 1)")
      ->check(CLI::Range(1.0f / 64, 256.0f))->group(ds);
  render->add_flag("--adaptive", ro.adaptive, "defocus: shade each triangle more coarsely as its circle of confusion grows")->group(ds);
  render->add_flag("--no-quads", ro.no_quads, "shade single shading samples rather than 2x2 quads")->group(ds);
  render->add_option("--blur", ro.blur, "scale the scene's aperture and shutter (default 1)")->check(CLI::Range(0.0f, 64.0f))->group(ds);
  render->add_option("--seed", ro.seed, "seed of the sample pattern")->group(ds);
  render->add_flag("--accumulate", ro.accumulate, "every pixel's sample k sees the same lens point and time: --spp pinhole frames averaged (an accumulation buffer)")->group(ds);
  render->add_option("--reference", ro.reference, "also render supersample, msaa, exact (the ground truth) or accumulation (exact shading over pinhole frames) and report the error against it")
      ->check(CLI::IsMember({"supersample", "msaa", "exact", "accumulation"}))->group(ds);
  render->add_option("--reference-spp", ro.reference_spp, "the reference's samples per pixel (default: the render's)")->check(CLI::Range(1, 256))->group(ds);
  render->add_option("--reference-output", ro.reference_output, "write the reference image here")->group(ds);
  render->add_option("--error-map", ro.error_map, "write a heat map of the error against the reference (largest RGB difference per pixel, full scale at 0.1)")->group(ds);
  render->add_option("--heat", ro.heat, "write a heat map of where shading happened (shading runs per pixel)")->group(ds);
  render->add_option("--sweep", ro.sweep, "write a CSV sweeping spp, cache size, cache scope and blur (the paper's Figure 10)")->group(ds);
  render->add_option("--sweep-axes", ro.sweep_axes, "the sweeps to run: spp, cache, scope, blur, direction (the motion turned on screen; default: spp, cache, scope, blur)")
      ->check(CLI::IsMember({"spp", "cache", "scope", "blur", "direction"}))->delimiter(',')->group(ds);
  render->add_flag("--timing", ro.timing, "add times to --stats json and the sweep's CSV (they vary from run to run)")->group(ds);
}

// The `rpu` command's subcommands.
struct RpuCommands {
  CLI::App *compile, *assemble, *run, *render, *debug;
};

RpuCommands add_rpu_commands(CLI::App& app, passlab::cli::CommonOptions& o, passlab::cli::RpuCliOptions& rp) {
  auto* rpu = app.add_subcommand("rpu", "the RPU ray-tracing processor: compile RSL, assemble, run functions, render scenes");
  rpu->require_subcommand(1);
  auto add_rpu_machine = [&](CLI::App* sub) {
    sub->add_option("--machine", rp.machine, "machine description: a preset (rpu, thesis_example) or a JSON file");
    sub->add_flag("--ieee", rp.ieee, "IEEE single-precision arithmetic instead of the RPU's 24-bit floats");
  };
  auto add_rpu_compile = [&](CLI::App* sub) {
    sub->add_option("--lights", o.lights, "light setup JSON (default: <shader>.lights.json beside it; else the RPU's point light in C0/C1)");
    sub->add_option("-I,--include", o.include_paths, "add an include directory");
    sub->add_option("-D,--define", o.defines, "define a macro (NAME or NAME=VALUE)");
    sub->add_flag("--no-opt", rp.no_opt, "skip the IR and assembly optimisations");
    sub->add_flag("--no-schedule", rp.no_schedule, "keep instructions in the order code generation made them");
    sub->add_flag("--pair", rp.pair, "issue 3/1 and 2/2 pairs as one word (beyond the thesis)");
    sub->add_option("--inline", rp.inline_limit, "inline user functions of at most N IR instructions (default 0: never, as the thesis)")
        ->check(CLI::Range(0, 100000));
    add_rpu_machine(sub);
  };
  auto* rpu_compile = rpu->add_subcommand("compile", "compile RSL files to RPU assembly (with the .epts entry points)");
  rpu_compile->add_option("files", rp.files, "RSL files, compiled into one program")->required();
  add_rpu_compile(rpu_compile);
  rpu_compile->add_option("--emit", rp.emit, "write every intermediate form (IR, codegen, simplify, forward, dce, regalloc, schedule, final) here");
  rpu_compile->add_option("-o,--output", rp.output, "write the assembly here (and the .epts file beside it)");
  rpu_compile->add_flag("--schedule-table", rp.schedule_table, "print the list scheduler's cycle table (the thesis's Figure 9.1) for every scheduled block");
  rpu_compile->add_option("--stats", rp.stats, "print the passes' counters and cycle estimates: text or json")->check(CLI::IsMember({"text", "json"}));
  rpu_compile->add_option("--scene", rp.scene, "compile as rpu render does for this scene: lit by its \"lights\", reading its texture images");
  auto* rpu_asm = rpu->add_subcommand("asm", "assemble an RPU assembly file: print it with addresses, write its .epts");
  rpu_asm->add_option("file", rp.files, "assembly file")->required()->expected(1);
  rpu_asm->add_option("-o,--output", rp.output, "write the listing here");
  add_rpu_machine(rpu_asm);
  auto* rpu_run = rpu->add_subcommand("run", "run one function on the VM and print its results and registers");
  rpu_run->add_option("files", rp.files, "RSL files (the function is in the first) or one assembly file")->required();
  add_rpu_compile(rpu_run);
  rpu_run->add_option("--entry", rp.entry, "the function (RSL) or entry label (assembly); default: the first");
  rpu_run->add_option("--arg", rp.args, "an argument, in order: x,y,z for a vector or colour, x for a float");
  rpu_run->add_option("--reg", rp.regs, "set a register first: R<n>=x,y,z,w or C<n>=x,y,z,w");
  rpu_run->add_option("--memory", rp.memory_words, "words of free data memory, after the noise lattice (addresses 0-32767) and the program's texture images, or after the --scene's records")->check(CLI::Range(0L, 1L << 24));
  rpu_run->add_option("--lanes", rp.lanes, "run a chunk of N threads (1-4); each --arg and --reg gives every lane's value, or one per lane split by ';'")
      ->check(CLI::Range(1, 4));
  rpu_run->add_option("--memory-image", rp.memory_image,
                     "a JSON file of words to load into data memory: [{\"at\": 32768, \"words\": [[x,y,z,w], ...]}, ...]");
  rpu_run->add_option("--scene", rp.scene, "a scene: its shaders compiled in, its records and BVH in memory and its constants set, so trace() works");
  rpu_run->add_option("--format", rp.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  rpu_run->add_option("--stats", rp.stats, "also print instructions, cycles and stalls: text or json")->check(CLI::IsMember({"text", "json"}));
  auto* rpu_render = rpu->add_subcommand("render", "render a scene with RSL shaders on the RPU: main shader, trace, surface shaders");
  rpu_render->add_option("files", rp.files, "the surface shader for objects that name none (optional), or an assembly program (.s) holding every shader");
  rpu_render->add_option("--entry", rp.entry, "with an assembly program: the entry for objects whose shader file names no entry of it");
  add_rpu_compile(rpu_render);
  rpu_render->add_option("--scene", rp.scene, "scene JSON file")->required();
  rpu_render->add_option("-o,--output", rp.output, "PNG file to write")->required();
  rpu_render->add_option("--main", rp.main, "an RSL file defining the main shader `color main(point P)` (default: the scene's camera)");
  rpu_render->add_option("--main-function", rp.main_function, "the main shader's name in --main (default main)");
  rpu_render->add_option("--size", rp.size, "image size WxH (default: the scene's)");
  rpu_render->add_option("--threads", rp.threads, "host threads (default: all)")->check(CLI::Range(0, 256));
  rpu_render->add_option("--stats", rp.stats, "print instructions, cycles, stalls, divergence and chunk occupancy: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  rpu_render->add_option("--time-limit", rp.time_limit, "seconds the render may take before it stops with a message (default 600; 0: none)")
      ->check(CLI::Range(0.0, 1e6));
  rpu_render->add_flag("--timing", rp.timing, "add compile and render times to --stats (these vary from run to run)");
  rpu_render->add_flag("--model", rp.model, "also time the render on the machine model (cores, chunks in flight, trace unit) and print its figures");
  rpu_render->add_option("--cores", rp.cores, "the model's cores (default: the machine's; implies --model)")->check(CLI::Range(1, 1024));
  rpu_render->add_option("--chunks-in-flight", rp.chunks_in_flight, "chunks each core holds (default: the machine's; implies --model)")
      ->check(CLI::Range(1, 1024));
  rpu_render->add_option("--sweep", rp.sweep, "time the model with each of these numbers of chunks in flight, e.g. 1,2,4,8,16,32 (implies --model)");
  rpu_render->add_flag("--reference", rp.reference, "render with the reference interpreter instead of the VM (slow; the oracle the VM is checked against)");

  auto* rpu_debug = rpu->add_subcommand("debug", "run the chunk of one pixel of a scene and print its thread's every step (the Studio's debugger, headless)");
  rpu_debug->add_option("files", rp.files, "the surface shader for objects that name none (optional), or an assembly program (.s) holding every shader");
  rpu_debug->add_option("--entry", rp.entry, "with an assembly program: the entry for objects whose shader file names no entry of it");
  add_rpu_compile(rpu_debug);
  rpu_debug->add_option("--scene", rp.scene, "scene JSON file")->required();
  rpu_debug->add_option("--pixel", rp.pixel, "the pixel X,Y (from the top left) whose thread to follow")->required();
  rpu_debug->add_option("--main", rp.main, "an RSL file defining the main shader `color main(point P)` (default: the scene's camera)");
  rpu_debug->add_option("--main-function", rp.main_function, "the main shader's name in --main (default main)");
  rpu_debug->add_option("--size", rp.size, "image size WxH (default: the scene's)");
  rpu_debug->add_flag("--all-threads", rp.all_threads, "print every thread of the chunk, not only the pixel's");
  rpu_debug->add_option("--break", rp.breaks, "stop where a thread is about to run this line: LINE (the first file) or FILE:LINE");
  rpu_debug->add_option("--run-to", rp.run_to, "stop after the first word that makes a NaN, or that faults")->check(CLI::IsMember({"nan", "fault"}));
  rpu_debug->add_option("--format", rp.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {rpu_compile, rpu_asm, rpu_run, rpu_render, rpu_debug};
}

CLI::App* add_conform_command(CLI::App& app, passlab::cli::ConformCliOptions& cf) {
  CLI::App* conf = app.add_subcommand("conform", "check shaders (given, or generated at random) on every backend against the reference interpreter");
  conf->add_option("files", cf.files, "RSL shaders to check (each with its light setup)");
  conf->add_option("-I,--include", cf.include_paths, "add an include directory");
  conf->add_option("--generate", cf.generate, "generate and check N random programs per family")->check(CLI::Range(0L, 1L << 40));
  conf->add_option("--minutes", cf.minutes, "generate and check programs until this many minutes have passed")->check(CLI::NonNegativeNumber);
  conf->add_option("--seed", cf.seed, "the first generated program's seed (then seed+1, ...)");
  conf->add_option("--family", cf.families, "generate for: fragment, combiners, rpu or all (default all)")->delimiter(',');
  conf->add_option("--only", cf.only, "run only these backends: ir, fragment, combiners, rpu, decoupled")
      ->check(CLI::IsMember({"ir", "fragment", "combiners", "rpu", "decoupled"}))->delimiter(',');
  conf->add_option("--statements", cf.statements, "statements in a generated shader's body (about)")->check(CLI::Range(1, 200));
  conf->add_option("--fragments", cf.fragments, "random fragments each backend is compared on")->check(CLI::Range(1, 4096));
  conf->add_option("--transforms", cf.transforms, "also check N semantics-preserving variants of each file")->check(CLI::Range(0, 10000));
  conf->add_flag("--reduce", cf.reduce, "shrink each failing program while it fails the same way");
  conf->add_option("--save", cf.save, "write failing (reduced) programs into this folder, with their seed and failure");
  conf->add_option("--timeout", cf.timeout, "seconds one program may take before it counts as a hang")->check(CLI::PositiveNumber);
  conf->add_option("--progress", cf.progress, "print a progress line every N programs")->check(CLI::NonNegativeNumber);
  conf->add_option("--jobs", cf.jobs, "check this many programs at once (each in its own process)")->check(CLI::Range(1, 256));
  conf->add_option("--format", cf.format, "text or json (files)")->check(CLI::IsMember({"text", "json"}));
  conf->add_flag("-v,--verbose", cf.verbose, "print every check");
  conf->add_flag("--print", cf.print, "print the program --seed generates (for each --family), or the files' --transforms, and stop");
  return conf;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace passlab::cli;
  CLI::App app{"Passlab: shader compilation under hardware limits"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "passlab-cli " PASSLAB_VERSION);

  CommonOptions o;
  bool optimize = false;
  auto add_common = [&](CLI::App* sub, bool with_lights) {
    sub->add_option("file", o.file, "RSL shader (.sl)")->required();
    sub->add_option("-I,--include", o.include_paths, "add an include directory");
    sub->add_option("-D,--define", o.defines, "define a macro (NAME or NAME=VALUE)");
    if (with_lights) sub->add_option("--lights", o.lights, "light setup JSON (default: <shader>.lights.json next to it)");
  };
  auto add_aov = [&](CLI::App* sub) {
    sub->add_option("--aov", o.aov, "compile the output parameter NAME (an AOV) as the fragment's colour, instead of Ci and Oi");
    sub->add_flag("--all-outputs", o.all_outputs,
                  "compile the colour and every output parameter, each to its own render target (a shader with several outputs)")
        ->excludes("--aov");
  };

  auto* check = app.add_subcommand("check", "check a shader and print its diagnostics");
  add_common(check, false);
  check->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  auto* ir = app.add_subcommand("ir", "print the SSA IR (bound to the light setup)");
  add_common(ir, true);
  ir->add_flag("--opt", optimize, "run the optimization pipeline first");

  auto* dag = app.add_subcommand("dag", "print the fragment DAG");
  add_common(dag, true);
  add_aov(dag);
  dag->add_option("--format", o.format, "json, dot or text")->check(CLI::IsMember({"json", "dot", "text"}));
  std::string dag_target;
  dag->add_option("--target", dag_target, "the DAG as this target's pipeline builds it (a target with dynamic loops, nv40, keeps loops)");

  auto* report = app.add_subcommand("report", "summarize a shader: parameters, lights, DAG size and resources");
  add_common(report, true);
  add_aov(report);
  report->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  PartitionOptions po;
  auto* part = app.add_subcommand("partition", "split a shader into passes for a target with RDSh, RDS and the optimal search");
  add_common(part, true);
  add_aov(part);
  part->add_option("--target", po.target, "target preset (PC1..PC8, radeon8500, webgl1, ps_2_0, nv30, nv40, geforce1, geforce3) or JSON file");
  part->add_option("--cost", po.cost, "cost model, e.g. 15p+5t+i, t+i, measured");
  auto* algo = part->add_option("--algo", po.algo, or_list(algorithm_choices("all")) + " (default all; with --marks, none unless given)")
                   ->check(CLI::IsMember(algorithm_choices("all")));
  part->add_option("--budget", po.budget, "seconds the optimal search may take")->check(CLI::PositiveNumber);
  part->add_option("--table-mb", po.table_mb,
                   "MiB for the optimal search's table of states (default 1024; a long search proves more with more)")
      ->check(CLI::Range(16, 1 << 20));
  part->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  part->add_flag("--trace", po.trace, "print every decision");
  part->add_flag("--timing", po.timing, "add run times and search statistics (these vary from run to run)");
  part->add_option("--emit", po.emit, "write each pass's listing into this folder (!!ARBfp1.0 .fp; register combiners: !!TS1.0 .ts and !!RC1.0 .rc)");
  part->add_option("--marks", po.marks,
                   "evaluate a partition given by hand: a JSON file of the node ids saved between passes (exit 1 if a pass does not fit)");
  part->add_option("--save-marks", po.save_marks, "write the marks of the one partition shown (--marks, or one --algo) as such a file");

  CombinersCliOptions co;
  auto* comb = app.add_subcommand("combiners", "compile a shader for NVIDIA register combiners in one pass (!!TS1.0 and !!RC1.0)");
  add_common(comb, true);
  add_aov(comb);
  comb->add_option("--target", co.target, "geforce1 or geforce3 (or a combiner target JSON file)");
  comb->add_option("--format", o.format, "text (the listing) or json")->check(CLI::IsMember({"text", "json"}));
  comb->add_flag("--trace", co.trace, "print every decision of the five stages");
  comb->add_option("--emit", co.emit, "write the hardware DAG, the trace, the programs (pass.ts, pass.rc), their JSON and each function table (tableN.png) into this folder");
  comb->add_option("-o,--output", co.output, "write the !!RC1.0 program here (and its !!TS1.0 program, if any, beside it as .ts)");
  comb->add_flag("--exact", co.exact, "schedule the stages by exhaustive search (the fewest stages) instead of greedily");
  comb->add_flag("--paper", co.paper,
                 "compile as Mark & Proudfoot's compiler: the final combiner only chooses registers (out.rgb = D), products in the source's order");

  NvparseCliOptions nv;
  auto* nvparse = app.add_subcommand("nvparse", "check !!RC1.0 and !!TS1.0 programs as nvparse() would load them (one program per file)");
  nvparse->add_option("files", nv.files, "program files")->required();
  nvparse->add_option("--target", nv.target, "the card: geforce1 or geforce3 (stages, per-stage constants, texture units)");

  RenderCliOptions ro;
  auto* render = app.add_subcommand("render", "render a scene with the shader partitioned into passes (render-to-texture or F-buffer)");
  add_common(render, true);
  add_aov(render);
  add_render_options(render, ro);

  RpuCliOptions rp;
  const RpuCommands rpu = add_rpu_commands(app, o, rp);

  ConformCliOptions cf;
  auto* conf = add_conform_command(app, cf);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }
  try {
    if (check->parsed()) return run_check(o);
    if (ir->parsed()) return run_ir(o, optimize);
    if (dag->parsed()) return run_dag(o, dag_target);
    if (report->parsed()) return run_report(o);
    if (part->parsed()) {
      po.algo_given = algo->count() > 0;
      return run_partition(o, po);
    }
    if (comb->parsed()) return run_combiners(o, co);
    if (nvparse->parsed()) return run_nvparse_check(nv);
    if (render->parsed()) return run_render(o, ro);
    if (rpu.compile->parsed()) return run_rpu_compile(o, rp);
    if (rpu.assemble->parsed()) return run_rpu_asm(rp);
    if (rpu.run->parsed()) return run_rpu_run(o, rp);
    if (rpu.render->parsed()) return run_rpu_render(o, rp);
    if (rpu.debug->parsed()) return run_rpu_debug(o, rp);
    if (conf->parsed()) return run_conform(cf);
  } catch (const std::exception& e) {
    std::cerr << "passlab-cli: internal error: " << e.what() << '\n';
    return kDiagnostics;
  }
  return kUsage;
}
