// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU debugger's engine: a chunk recorded as the renderer runs it, replayed both ways
// exactly; stepping into, over and out of calls and back; breakpoints, NaNs and faults.
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "backends/rpu/debugger.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

namespace fs = std::filesystem;

// A scene of one plane facing the camera with `shader`, compiled and rendered at w x h.
struct Fixture {
  fs::path dir;
  sim::Scene scene;
  SceneProgram program;
  std::unique_ptr<SceneData> data;
  RenderResult image;
  int w = 0, h = 0;
  Machine machine = test::ieee_machine();

  Fixture(const std::string& name, const std::string& shader, int width, int height, std::uint64_t max_steps = 0) : w(width), h(height) {
    dir = fs::temp_directory_path() / ("passlab_rpu_debugger_" + name);
    fs::create_directories(dir);
    std::ofstream(dir / "shader.sl") << shader;
    std::ofstream(dir / "scene.json") << R"({"size": [16, 16], "objects": [
        {"mesh": {"plane": {"width": 2, "height": 2}}, "translate": [0, 0, 2], "shader": "shader.sl"}]})";
    lang::Diagnostics problems;
    std::optional<sim::Scene> s = sim::load_scene((dir / "scene.json").string(), &problems);
    EXPECT_TRUE(s);
    scene = *s;
    if (max_steps) machine.max_steps = max_steps;
    CompileOptions co;
    co.machine = &machine;
    program = compile_scene(scene, w, h, "", "", "", co);
    EXPECT_TRUE(program.ok()) << lang::format_text(program.compiled->diagnostics.items(), *program.compiled->sources);
    if (!program.ok()) return;
    data = std::make_unique<SceneData>(scene, program.object_shader, program.compiled->textures);
    RenderOptions ro;
    ro.width = w;
    ro.height = h;
    ro.machine = &machine;
    image = render(*program.compiled->program, program.main_entry, *data, scene, ro);
  }
  ~Fixture() { fs::remove_all(dir); }
  Debugger debug(int x, int y) const {
    return Debugger(record_pixel_chunk(*program.compiled->program, program.main_entry, *data, scene, w, h, x, y, &machine));
  }
  std::uint32_t address(const std::string& function) const { return program.compiled->function(function)->address; }
  // A pixel whose thread runs `function`.
  std::array<int, 2> pixel_running(const std::string& function) const {
    const std::uint32_t a = address(function);
    for (int y = 0; y < h; ++y) {
      Debugger d = debug(0, y);
      if (d.run_to([&](std::uint32_t pc) { return pc == a; }) && d.stop_reason() == StopReason::Breakpoint) return {0, y};
    }
    ADD_FAILURE() << "no pixel runs " << function;
    return {0, 0};
  }
};

const char* kCalls =
    "float twice(float x) { return x * 2; }\n"
    "float quad(float x) { return twice(twice(x)); }\n"
    "surface calls() {\n"
    "  float a = s;\n"
    "  if (t > 0.5) a = quad(s);\n"
    "  Ci = color(a, twice(t), 0.25);\n"
    "}\n";

TEST(RpuDebugger, PixelsMapToTheRenderersChunks) {
  PixelChunk c = pixel_chunk(5, 3, 8, 8);
  EXPECT_EQ(c.lanes, 4);
  EXPECT_EQ(c.lane, 3);
  EXPECT_EQ((c.pixel[0]), (std::array<int, 2>{4, 2}));
  EXPECT_EQ(c.index, 1u * 4 + 2);
  c = pixel_chunk(4, 4, 5, 5);  // the corner of an odd image: a chunk of one
  EXPECT_EQ(c.lanes, 1);
  EXPECT_EQ(c.lane, 0);
  c = pixel_chunk(4, 1, 5, 4);
  EXPECT_EQ(c.lanes, 2);
  EXPECT_EQ(c.lane, 1);
}

TEST(RpuDebugger, ARecordedChunkEndsWithTheRenderedPixels) {
  Fixture f("pixels", kCalls, 10, 10);
  ASSERT_TRUE(f.program.ok());
  for (auto [x, y] : {std::pair{0, 0}, {3, 4}, {7, 8}, {9, 9}, {5, 1}}) {
    Debugger d = f.debug(x, y);
    d.seek(d.step_count());
    for (int l = 0; l < d.lanes(); ++l) {
      const auto [px, py] = d.run().chunk.pixel[static_cast<std::size_t>(l)];
      const float* p = f.image.image.at(px, py);
      EXPECT_EQ(d.thread(l).status, ThreadStatus::Done);
      for (int c = 0; c < 3; ++c) EXPECT_EQ(d.thread(l).r(0)[static_cast<std::size_t>(c)], p[c]) << px << "," << py;
      // The render's per-pixel statistics are the recorded chunk's.
      const std::size_t at = static_cast<std::size_t>(py * f.w + px);
      EXPECT_EQ(f.image.pixel_instructions[at], d.thread(l).steps);
      EXPECT_EQ(f.image.pixel_cycles[at], d.run().stats.cycles);
      EXPECT_EQ(f.image.pixel_stalls[at], d.run().stats.stalls);
      EXPECT_EQ(f.image.pixel_splits[at], d.run().stats.splits);
      EXPECT_FLOAT_EQ(f.image.pixel_occupancy[at], static_cast<float>(d.run().stats.occupancy()));
    }
  }
}

TEST(RpuDebugger, ForwardsThenBackGivesTheStartingStateExactly) {
  Fixture f("walk", kCalls, 8, 8);
  ASSERT_TRUE(f.program.ok());
  const auto [x, y] = f.pixel_running("quad");
  Debugger d = f.debug(x, y);
  const Debugger fresh = f.debug(x, y);
  ASSERT_GT(d.step_count(), 20u);
  std::mt19937 rng(7);
  std::vector<std::size_t> positions{0};
  std::vector<std::array<ThreadState, 4>> states{{d.thread(0), d.thread(1), d.thread(2), d.thread(3)}};
  for (int i = 0; i < 60; ++i) {
    d.select_lane(static_cast<int>(rng() % 4));
    switch (rng() % 3) {
      case 0: d.step_into(); break;
      case 1: d.step_over(); break;
      default: d.step_out(); break;
    }
    positions.push_back(d.position());
    states.push_back({d.thread(0), d.thread(1), d.thread(2), d.thread(3)});
  }
  // Back through every position visited, by seeking, then all the way.
  for (std::size_t i = positions.size(); i-- > 0;) {
    d.seek(positions[i]);
    for (int l = 0; l < 4; ++l) EXPECT_EQ(d.thread(l), states[i][static_cast<std::size_t>(l)]) << "position " << positions[i] << " lane " << l;
  }
  d.seek(d.step_count());
  while (d.back_into()) {
  }
  for (int l = 0; l < 4; ++l) {
    d.select_lane(l);
    while (d.back_into()) {
    }
  }
  EXPECT_EQ(d.position(), 0u);
  for (int l = 0; l < 4; ++l) EXPECT_EQ(d.thread(l), fresh.thread(l));
}

TEST(RpuDebugger, StepsIntoOverAndOutOfCallsAndBack) {
  Fixture f("calls", kCalls, 8, 8);
  ASSERT_TRUE(f.program.ok());
  const auto [x, y] = f.pixel_running("quad");
  Debugger d = f.debug(x, y);
  const std::uint32_t quad = f.address("quad"), twice = f.address("twice");
  // Into the surface's call of quad: a breakpoint at quad's first word.
  ASSERT_TRUE(d.run_to([&](std::uint32_t pc) { return pc == quad; }));
  EXPECT_EQ(d.stop_reason(), StopReason::Breakpoint);
  const int lane = d.lane();
  EXPECT_EQ(d.thread(lane).pc, quad);
  EXPECT_EQ(d.next_step(lane), d.position());
  const std::size_t in_quad = d.depth();
  // Step into until the call of twice, then over it: same depth, the next word.
  std::uint32_t call_pc = 0;
  while (d.depth() == in_quad) {
    call_pc = d.thread(lane).pc;
    const std::size_t before = d.position();
    ASSERT_TRUE(d.step_into());
    if (d.depth() > in_quad) {
      EXPECT_EQ(d.thread(lane).pc, twice);  // stepped into twice
      d.seek(before);
      break;
    }
  }
  ASSERT_EQ(d.depth(), in_quad);
  ASSERT_TRUE(d.step_over());
  EXPECT_EQ(d.depth(), in_quad);
  EXPECT_EQ(d.thread(lane).pc, call_pc + 1);
  // ...and back over it: at the call again.
  ASSERT_TRUE(d.back_over());
  EXPECT_EQ(d.depth(), in_quad);
  EXPECT_EQ(d.thread(lane).pc, call_pc);
  // Into twice, then out: back in quad after the call.
  ASSERT_TRUE(d.step_into());
  EXPECT_EQ(d.depth(), in_quad + 1);
  ASSERT_TRUE(d.step_out());
  EXPECT_EQ(d.depth(), in_quad);
  EXPECT_EQ(d.thread(lane).pc, call_pc + 1);
  // Back out of quad: at the surface's call of quad, one level up.
  ASSERT_TRUE(d.back_out());
  EXPECT_EQ(d.depth(), in_quad - 1);
  const Step& next = d.step(*d.next_step(lane));
  EXPECT_EQ(next.next_pc[static_cast<std::size_t>(lane)], quad);  // the word about to run is the call
}

TEST(RpuDebugger, BreakpointsStopEveryThreadThatReachesThemForwardsAndBack) {
  Fixture f("breakpoints", kCalls, 8, 8);
  ASSERT_TRUE(f.program.ok());
  const auto [x, y] = f.pixel_running("quad");
  Debugger d = f.debug(x, y);
  const std::uint32_t twice = f.address("twice");
  auto at_twice = [&](std::uint32_t pc) { return pc == twice; };
  int hits = 0;
  std::vector<std::size_t> where;
  while (d.run_to(at_twice) && d.stop_reason() == StopReason::Breakpoint) {
    ++hits;
    where.push_back(d.position());
    EXPECT_EQ(d.thread(d.lane()).pc, twice);
  }
  // Every pixel calls twice for the green channel; quad calls it twice more.
  EXPECT_GE(hits, 3);
  EXPECT_EQ(d.stop_reason(), StopReason::End);
  for (std::size_t i = where.size(); i-- > 0;) {
    ASSERT_TRUE(d.run_back_to(at_twice));
    EXPECT_EQ(d.position(), where[i]);
  }
}

TEST(RpuDebugger, RunsToTheWordThatMakesANaN) {
  Fixture f("nan", "surface nan() {\n  float x = s - 2;\n  Ci = color(sqrt(x), 0, 0);\n}\n", 4, 4);
  ASSERT_TRUE(f.program.ok());
  Debugger d = f.debug(0, 0);
  ASSERT_TRUE(d.run_to_nan());
  EXPECT_EQ(d.stop_reason(), StopReason::NaN);
  EXPECT_NE(d.stop_message().find("made a NaN"), std::string::npos) << d.stop_message();
  bool nan = false;
  for (int r = 0; r < kRegCount; ++r)
    if (d.changed().reg[static_cast<std::size_t>(r)]) nan = nan || has_nan(d.thread(d.lane()).r(r), d.changed().reg[static_cast<std::size_t>(r)]);
  EXPECT_TRUE(nan);
}

TEST(RpuDebugger, RunsToAFaultAndShowsIt) {
  Fixture f("fault", "surface spin() {\n  float x = 0;\n  while (x >= 0) x += 1;\n  Ci = x;\n}\n", 4, 4, 3000);
  ASSERT_TRUE(f.program.ok());
  Debugger d = f.debug(1, 1);
  ASSERT_TRUE(d.run_to_fault());
  EXPECT_EQ(d.stop_reason(), StopReason::Fault);
  EXPECT_EQ(d.thread(d.lane()).status, ThreadStatus::Faulted);
  EXPECT_NE(d.stop_message().find("ran 3000 instructions"), std::string::npos) << d.stop_message();
  ASSERT_TRUE(d.back_into());
  EXPECT_EQ(d.thread(d.lane()).status, ThreadStatus::Running);
}

}  // namespace
}  // namespace passlab::rpu
