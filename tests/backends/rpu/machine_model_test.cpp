// SPDX-License-Identifier: GPL-3.0-or-later
// The machine model: chunks in flight hide latency by switching, the trace unit queues and its
// time follows the BVH work, the figures add up (every core-cycle is an issue or an idle cycle
// with a cause; utilisation and occupancy never above 1), a single chunk in flight with a
// constant-time trace unit gives exactly the VM's own cycles, and the figures do not depend on
// host threads or on how the chunks were handed over.
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "backends/rpu/machine_model.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "core/lang/diagnostics.h"
#include "core/sim/scene.h"

namespace passlab::rpu {
namespace {

// A chunk of `words` words in a chain: each reads the one before it, `latency` cycles later.
IssueTrace chain(int words, std::uint16_t latency) {
  IssueTrace t;
  for (int i = 0; i < words; ++i) {
    IssueTrace::Word w;
    w.lanes = 4;
    w.first_dep = static_cast<std::uint32_t>(t.deps.size());
    if (i > 0) {
      t.deps.push_back({static_cast<std::uint32_t>(i - 1), latency, WaitCause::Arithmetic});
      w.dep_count = 1;
    }
    t.words.push_back(w);
  }
  return t;
}

// A chunk that casts four rays of `boxes` boxes each, then reads HIT.
IssueTrace trace_then_read(std::uint32_t boxes) {
  IssueTrace t;
  IssueTrace::Word cast;
  cast.lanes = 4;
  cast.rays = 4;
  t.words.push_back(cast);
  for (int k = 0; k < 4; ++k) t.rays.push_back({boxes, 0});
  IssueTrace::Word read;
  read.lanes = 4;
  read.dep_count = 1;
  t.deps.push_back({0, 40, WaitCause::Trace});
  t.words.push_back(read);
  return t;
}

Machine machine_with(int in_flight, int cores = 1) {
  Machine m = default_machine();
  m.chunks_in_flight = in_flight;
  m.cores = cores;
  return m;
}

void expect_adds_up(const ModelStats& s) {
  std::uint64_t idle = 0;
  for (std::uint64_t v : s.idle) idle += v;
  EXPECT_EQ(s.issues + idle, s.core_cycles()) << "every core-cycle issues a word or is idle for a reason";
  EXPECT_LE(s.utilisation(), 1.0);
  EXPECT_LE(s.trace_occupancy(), 1.0);
  EXPECT_LE(s.mean_in_flight(), static_cast<double>(s.chunks_in_flight));
}

TEST(RpuMachineModel, AChunkWaitingForAResultLetsAnotherIssue) {
  // Two chunks of two words, the second reading the first 5 cycles later.
  const Machine one = machine_with(1), two = machine_with(2);
  MachineModel alone(one), together(two);
  for (MachineModel* m : {&alone, &together}) {
    m->push(chain(2, 5));
    m->push(chain(2, 5));
    m->finish();
  }
  // Alone: 0, 5 | 6, 11: twelve cycles, the VM's count (6 + 6).
  EXPECT_EQ(alone.stats().cycles, 12u);
  EXPECT_EQ(alone.stats().vm_cycles, 0u);  // hand-made traces carry no VM count
  // Together: A@0, B@1, A@5, B@6: seven cycles, three idle waiting for arithmetic.
  EXPECT_EQ(together.stats().cycles, 7u);
  EXPECT_EQ(together.stats().idle[static_cast<int>(Idle::Arithmetic)], 3u);
  EXPECT_EQ(together.chunks()[1].admitted, 0u);
  EXPECT_EQ(together.chunks()[1].retired, 6u);
  EXPECT_EQ(together.chunks()[1].switched, 1u) << "B's first word was ready at 0 and issued at 1";
  for (const MachineModel* m : {&alone, &together}) expect_adds_up(m->stats());
}

TEST(RpuMachineModel, TheTraceUnitsTimeFollowsTheBvhWorkAndItsQueueFills) {
  Machine m = machine_with(2);
  m.trace_unit.pipelines = 1;
  m.trace_unit.box_cycles = 1;
  m.trace_unit.latency = 0;
  m.trace_unit.queue = 4;
  MachineModel model(m);
  model.push(trace_then_read(10));
  model.push(trace_then_read(10));
  model.finish();
  const ModelStats& s = model.stats();
  // A's rays start at 0, 10, 20, 30 on the one pipeline; three wait, so the queue holds 3 and
  // B's four do not fit until the third has started (cycle 20 leaves 1 queued).
  EXPECT_EQ(model.chunks()[0].retired, 40u);
  EXPECT_EQ(s.max_queue, 4u);
  EXPECT_GE(model.chunks()[1].wait[static_cast<int>(Idle::TraceQueue)], 1u);
  EXPECT_EQ(s.rays, 8u);
  EXPECT_EQ(s.trace_busy, 80u);
  // B's rays follow A's: the last ends at 80, and B reads its HIT then.
  EXPECT_EQ(model.chunks()[1].retired, 80u);
  EXPECT_EQ(s.cycles, 81u);
  EXPECT_NEAR(s.trace_occupancy(), 80.0 / 81.0, 1e-9);
  expect_adds_up(s);
}

TEST(RpuMachineModel, RaysStillTraversingAfterTheLastWordKeepTheMachineBusy) {
  // A trace whose HIT nobody reads, last: the run ends when the trace unit is done.
  IssueTrace t;
  IssueTrace::Word cast;
  cast.lanes = 1;
  cast.rays = 1;
  t.words.push_back(cast);
  t.rays.push_back({100, 0});
  Machine m = machine_with(1);
  m.trace_unit.box_cycles = 1;
  MachineModel model(m);
  model.push(t);
  model.finish();
  EXPECT_EQ(model.stats().cycles, 100u);
  EXPECT_DOUBLE_EQ(model.stats().trace_occupancy(), 1.0 / m.trace_unit.pipelines);
  expect_adds_up(model.stats());
}

TEST(RpuMachineModel, TheFiguresDoNotDependOnHowTheChunksWereHandedOver) {
  const Machine m = machine_with(3, 2);
  MachineModel one_by_one(m), all_at_once(m);
  std::vector<IssueTrace> chunks;
  for (int i = 0; i < 9; ++i) chunks.push_back(i % 3 ? chain(3 + i, static_cast<std::uint16_t>(2 + i)) : trace_then_read(5 + static_cast<std::uint32_t>(i)));
  for (const IssueTrace& c : chunks) one_by_one.push(c);
  one_by_one.finish();
  // Pushing after finish() is not allowed; pushing all first is the other extreme.
  for (const IssueTrace& c : chunks) all_at_once.push(c);
  all_at_once.finish();
  EXPECT_EQ(one_by_one.stats().cycles, all_at_once.stats().cycles);
  EXPECT_EQ(one_by_one.stats().issues, all_at_once.stats().issues);
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    EXPECT_EQ(one_by_one.chunks()[k].core, all_at_once.chunks()[k].core);
    EXPECT_EQ(one_by_one.chunks()[k].retired, all_at_once.chunks()[k].retired);
  }
  expect_adds_up(one_by_one.stats());
}

struct SceneRender {
  RenderResult result;
  bool ok = false;
};

SceneRender render_modelled(const std::string& scene_name, int size, const Machine& m, int threads, std::vector<int> sweep = {}) {
  SceneRender out;
  lang::Diagnostics problems;
  std::optional<sim::Scene> scene = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + scene_name, &problems);
  EXPECT_TRUE(scene) << problems.text() << "(the bunny comes from scripts/setup.sh)";
  if (!scene) return out;
  CompileOptions co;
  co.machine = &m;
  SceneProgram sp = compile_scene(*scene, size, size, "", "", "", co);
  EXPECT_TRUE(sp.ok());
  if (!sp.ok()) return out;
  SceneData data(*scene, sp.object_shader, sp.compiled->textures);
  RenderOptions ro;
  ro.width = ro.height = size;
  ro.threads = threads;
  ro.machine = &m;
  ro.model = true;
  ro.sweep_in_flight = std::move(sweep);
  out.result = render(*sp.compiled->program, sp.main_entry, data, *scene, ro);
  out.ok = out.result.model.has_value();
  return out;
}

TEST(RpuMachineModel, OneChunkInFlightWithAConstantTraceUnitIsTheVmsOwnCount) {
  // The VM counts every chunk alone with trace taking its latency; so does the model with one
  // chunk in flight and a trace unit that answers in that time whatever the work.
  Machine m = machine_with(1);
  m.trace_unit.pipelines = 4;
  m.trace_unit.box_cycles = m.trace_unit.triangle_cycles = 0;
  m.trace_unit.latency = m.latency_of(Opcode::Trace) - 1;
  const SceneRender r = render_modelled("rpu_reflections.json", 24, m, 2);
  ASSERT_TRUE(r.ok);
  EXPECT_GT(r.result.stats.traces, 0u);
  EXPECT_EQ(r.result.model->vm_cycles, r.result.stats.cycles);
  EXPECT_EQ(r.result.model->cycles, r.result.stats.cycles);
  EXPECT_EQ(r.result.model->issues, r.result.stats.issues);
  expect_adds_up(*r.result.model);
}

TEST(RpuMachineModel, ChunksInFlightHideTheLatencyOfARealRender) {
  const Machine m = default_machine();
  const SceneRender r = render_modelled("rpu_reflections.json", 32, m, 2, {1, 4, 16});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.result.sweep.size(), 3u);
  const ModelStats &one = r.result.sweep[0], &four = r.result.sweep[1], &sixteen = r.result.sweep[2];
  for (const ModelStats* s : {&one, &four, &sixteen}) {
    expect_adds_up(*s);
    EXPECT_EQ(s->issues, r.result.stats.issues);
  }
  EXPECT_LT(four.cycles, one.cycles * 6 / 10);
  EXPECT_LE(sixteen.cycles, four.cycles);
  EXPECT_GT(sixteen.utilisation(), 2 * one.utilisation());
  // The default machine holds 16: the main figures are the sweep's last.
  EXPECT_EQ(r.result.model->cycles, sixteen.cycles);
  // Every pixel has its chunk's time and a share of it spent on the trace unit.
  ASSERT_EQ(r.result.pixel_trace_share.size(), 32u * 32u);
  for (float share : r.result.pixel_trace_share) {
    EXPECT_GE(share, 0.0f);
    EXPECT_LE(share, 1.0f);
  }
}

TEST(RpuMachineModel, HostThreadsDoNotChangeTheFigures) {
  Machine m = machine_with(8, 2);
  const SceneRender a = render_modelled("rpu_reflections.json", 20, m, 1), b = render_modelled("rpu_reflections.json", 20, m, 2);
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_EQ(a.result.model->cycles, b.result.model->cycles);
  EXPECT_EQ(a.result.model->trace_busy, b.result.model->trace_busy);
  EXPECT_EQ(a.result.pixel_model_cycles, b.result.pixel_model_cycles);
}

TEST(RpuMachineModel, TheMachineFileSetsTheKnobsAndRefusesBadOnes) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "passlab_machine_model_test";
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& extra) {
    const fs::path p = dir / name;
    std::FILE* f = std::fopen(p.c_str(), "w");
    std::fprintf(f,
                 R"({"name": "t", "latency": {"mov": 3, "frac": 3, "add": 3, "mul": 5, "mad": 5, "dp2h": 5, "dp3": 5, "dp3h": 5, "dp4": 5,
                 "load": 8, "load4": 8, "store": 1, "trace": 40}%s})",
                 extra.c_str());
    std::fclose(f);
    return p.string();
  };
  lang::Diagnostics d;
  std::optional<Machine> m = load_machine(write("good.json", R"(, "cores": 4, "chunks_in_flight": 32,
      "trace_unit": {"pipelines": 2, "latency": 12, "box_cycles": 0.5, "triangle_cycles": 3, "queue": 64})"),
                                          &d);
  ASSERT_TRUE(m) << d.text();
  EXPECT_EQ(m->cores, 4);
  EXPECT_EQ(m->chunks_in_flight, 32);
  EXPECT_EQ(m->trace_unit.pipelines, 2);
  EXPECT_EQ(m->trace_unit.latency, 12);
  EXPECT_DOUBLE_EQ(m->trace_unit.box_cycles, 0.5);
  EXPECT_DOUBLE_EQ(m->trace_unit.triangle_cycles, 3);
  EXPECT_EQ(m->trace_unit.queue, 64);
  lang::Diagnostics bad;
  EXPECT_FALSE(load_machine(write("queue.json", R"(, "trace_unit": {"queue": 2})"), &bad));
  EXPECT_NE(bad.text().find("trace_unit.queue"), std::string::npos) << bad.text();
  lang::Diagnostics unknown;
  EXPECT_FALSE(load_machine(write("unknown.json", R"(, "trace_unit": {"speed": 2})"), &unknown));
  EXPECT_NE(unknown.text().find("speed"), std::string::npos) << unknown.text();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace passlab::rpu
