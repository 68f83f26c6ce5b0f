// passlab-cli: the headless front door to everything the Studio shows.
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/commands.h"

int main(int argc, char** argv) {
  using namespace passlab::cli;
  CLI::App app{"Passlab: shader compilation under hardware limits"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "passlab-cli 0.1.0");

  CommonOptions o;
  bool optimize = false;
  auto add_common = [&](CLI::App* sub, bool with_lights) {
    sub->add_option("file", o.file, "RSL shader (.sl)")->required();
    sub->add_option("-I,--include", o.include_paths, "add an include directory");
    sub->add_option("-D,--define", o.defines, "define a macro (NAME or NAME=VALUE)");
    if (with_lights) sub->add_option("--lights", o.lights, "light setup JSON (default: <shader>.lights.json next to it)");
  };

  auto* check = app.add_subcommand("check", "check a shader and print its diagnostics");
  add_common(check, false);
  check->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  auto* ir = app.add_subcommand("ir", "print the SSA IR (bound to the light setup)");
  add_common(ir, true);
  ir->add_flag("--opt", optimize, "run the optimization pipeline first");

  auto* dag = app.add_subcommand("dag", "print the fragment DAG");
  add_common(dag, true);
  dag->add_option("--format", o.format, "json, dot or text")->check(CLI::IsMember({"json", "dot", "text"}));

  auto* report = app.add_subcommand("report", "summarize a shader: parameters, lights, DAG size and resources");
  add_common(report, true);
  report->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  PartitionOptions po;
  auto* part = app.add_subcommand("partition", "split a shader into passes for a target with RDSh, RDS and the optimal search");
  add_common(part, true);
  part->add_option("--target", po.target, "target preset (PC1..PC8, radeon8500, webgl1, ps_2_0) or JSON file");
  part->add_option("--cost", po.cost, "cost model, e.g. 15p+5t+i, t+i, measured");
  part->add_option("--algo", po.algo, "rdsh, rds, optimal or all")->check(CLI::IsMember({"rdsh", "rds", "optimal", "all"}));
  part->add_option("--budget", po.budget, "seconds the optimal search may take")->check(CLI::PositiveNumber);
  part->add_option("--format", o.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  part->add_flag("--trace", po.trace, "print every decision");
  part->add_flag("--timing", po.timing, "add run times and search statistics (these vary from run to run)");
  part->add_option("--emit", po.emit, "write each pass's !!ARBfp1.0 listing into this folder");

  RenderCliOptions ro;
  auto* render = app.add_subcommand("render", "render a scene with the shader partitioned into passes (render-to-texture or F-buffer)");
  add_common(render, true);
  render->add_option("--scene", ro.scene, "scene JSON file")->required();
  render->add_option("--target", ro.target, "target preset or JSON file");
  render->add_option("--cost", ro.cost, "cost model, e.g. 15p+5t+i");
  render->add_option("--algo", ro.algo, "rdsh, rds or optimal")->check(CLI::IsMember({"rdsh", "rds", "optimal"}));
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
    if (dag->parsed()) return run_dag(o);
    if (report->parsed()) return run_report(o);
    if (part->parsed()) return run_partition(o, po);
    if (render->parsed()) return run_render(o, ro);
  } catch (const std::exception& e) {
    std::cerr << "passlab-cli: internal error: " << e.what() << '\n';
    return kDiagnostics;
  }
  return kUsage;
}
