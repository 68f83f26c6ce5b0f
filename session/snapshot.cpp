// SPDX-License-Identifier: GPL-3.0-or-later
// Builds compile snapshots for the Studio: the same stages, in the same order, as passlab-cli.
#include "session/snapshot.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>

#include <fmt/format.h>

#include "session/background.h"
#include "session/pipeline.h"
#include "backends/registry/registry.h"

namespace passlab::session {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

}  // namespace

namespace {

std::vector<Message> flatten_messages(const driver::Program& prog, const std::string& main_path) {
  return to_messages(prog.diagnostics.items(), *prog.sources, main_path);
}

}  // namespace

bool Snapshot::is_rpu() const { return backends::runs_whole_programs(request.target); }

const backends::TargetGraph& Snapshot::graph() const {
  static const backends::TargetGraph none;
  return target ? target->graph() : none;
}

const AlgorithmRun* Snapshot::run(const std::string& algorithm) const {
  for (const auto& r : runs)
    if (r.algorithm == algorithm) return &r;
  return nullptr;
}

std::shared_ptr<Snapshot> build_snapshot(const Request& request, const std::atomic<bool>* cancel) {
  auto s = std::make_shared<Snapshot>();
  s->request = request;
  auto t0 = std::chrono::steady_clock::now();
  if (s->is_rpu()) {
    // The RPU runs the shader as compiled code (loops, calls, recursion, rays): no fragment DAG.
    s->rpu = build_rpu(request.path, request.text, request.rpu, request.include_paths, request.lights_path, &s->messages, cancel);
    for (const Message& m : s->messages) {
      s->errors += m.severity == lang::Severity::Error;
      s->warnings += m.severity == lang::Severity::Warning;
    }
    AlgorithmRun run;
    run.algorithm = "rpu";
    run.trace = s->rpu->decisions;
    s->runs.push_back(std::move(run));
    s->compile_ms = ms_since(t0);
    s->cancelled = cancelled(cancel);
    return s;
  }
  driver::ProgramOptions popt;
  popt.include_paths = request.include_paths;
  popt.lights_path = request.lights_path;
  popt.aov = request.aov;
  popt.all_outputs = request.all_outputs;
  Compiled c = compile({request.path, request.text}, popt, &request.target, cancel);
  s->program = c.program;
  s->fragment_dag = c.dag;
  s->target = c.target;
  s->messages = flatten_messages(*c.program, request.path);
  s->errors = c.program->diagnostics.error_count();
  s->warnings = c.program->diagnostics.warning_count();
  if (c.cancelled || cancelled(cancel)) {
    s->cancelled = true;
    return s;
  }
  s->compile_ms = ms_since(t0);
  if (!s->target || cancelled(cancel)) {
    s->cancelled = cancelled(cancel);
    return s;
  }

  t0 = std::chrono::steady_clock::now();
  s->problem = s->target->problem();
  s->dominators = dag::dominators(s->problem.graph);
  s->multiply_referenced = dag::multiply_referenced(s->problem.graph, s->problem.is_op);
  s->pdt = dag::partial_dominator_tree(s->problem.graph, s->dominators, s->multiply_referenced);
  if (cancelled(cancel)) {
    s->cancelled = true;
    return s;
  }
  // The every-edit algorithms side by side: they share only the read-only snapshot (each has its
  // own backend), so on two cores RDSh beside RDS costs about what RDS alone does. The last one
  // runs on this thread.
  std::vector<const partition::Algorithm*> live;
  for (const partition::Algorithm* a : partition::algorithms_for(s->target->target().limits))
    if (a->every_edit) live.push_back(a);
  std::vector<std::future<AlgorithmRun>> others;
  for (std::size_t i = 0; i + 1 < live.size(); ++i)
    others.push_back(std::async(std::launch::async, [&s, a = live[i]] {
      run_in_background();
      return run_algorithm(*s, std::string(a->name));
    }));
  AlgorithmRun last = live.empty() ? AlgorithmRun{} : run_algorithm(*s, std::string(live.back()->name));
  for (auto& f : others) s->runs.push_back(f.get());
  if (!live.empty()) s->runs.push_back(std::move(last));
  s->partition_ms = ms_since(t0);
  return s;
}

AlgorithmRun run_algorithm(const Snapshot& s, const std::string& algorithm, const partition::OptimalOptions& search) {
  AlgorithmRun run;
  run.algorithm = algorithm;
  if (!s.target) return run;
  std::unique_ptr<partition::Backend> owned = s.target->backend();
  partition::Backend& backend = *owned;
  const partition::Algorithm* a = partition::find_algorithm(algorithm);
  if (!a) {
    run.problems.push_back(fmt::format("no partitioning algorithm is called \"{}\"", algorithm));
    return run;
  }
  partition::TraceLog trace;
  partition::RunRequest request;
  request.options.model = s.request.model;
  request.options.trace = s.request.trace && a->traces ? &trace : nullptr;
  request.search = search;
  // A search starts from the best of what the every-edit algorithms found.
  std::vector<partition::Partition> known;
  for (const auto& r : s.runs) known.push_back(r.partition);
  request.known = known;
  run.partition = a->run(s.problem, backend, request);
  const partition::AlgorithmOptions& ao = request.options;
  run.trace = std::move(trace.trace);
  // The backend's decisions for each pass follow the partitioner's (the register combiners' five
  // stages; nothing for the fp target), so the trace player steps the scheduling too.
  run.timeline = s.target->timeline(run.partition, s.request.model, ao.trace ? &run.trace : nullptr);
  run.problems = s.target->check(run.partition, s.request.model, s.program->binding);
  run.listings = s.target->listings(run.partition, &run.listing_nodes);
  return run;
}

std::vector<std::uint32_t> nodes_on_line(const Snapshot& s, std::uint32_t line) {
  if (!s.target || !s.program) return {};
  return nodes_on_line(s.target->graph(), *s.program->sources, s.request.path, line);
}

}  // namespace passlab::session
