// SPDX-License-Identifier: GPL-3.0-or-later
// Derivatives on the RPU (backends/rpu/quad.h): a hit's shader runs in a quad of the pixel's
// thread and helpers on its triangle, which meet at every ddx, ddy and trace; the compiler's
// derivatives and the reference interpreter's agree on a scene of reflections.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "backends/rpu/quad.h"
#include "backends/rpu/reference.h"
#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using test::assemble_text;
using test::ieee_machine;
namespace fs = std::filesystem;

// One triangle in the plane z = 5: corners (0, 0), (1, 0) and (0, 1), record at address 0.
std::vector<Vec4> triangle_memory() {
  return {{1, 2, 3, 4}, {0, 0, 5, 0}, {1, 0, 5, 0}, {0, 1, 5, 0}, {0.5f, 0.5f, 0.5f, 0}};
}

// Answers as the trace unit would for that one triangle: a hit inside it calls `shader`.
class OneTriangle : public TraceUnit {
 public:
  OneTriangle(const std::vector<Vec4>& memory, std::uint32_t shader) : memory_(memory), shader_(shader) {}
  Hit trace(const Vec4& origin, const Vec4& direction, const Vec4&) const override {
    Hit h;
    const std::optional<PlanePoint> p = plane_point(memory_, 0, origin, direction);
    if (!p || p->u < 0 || p->v < 0 || p->u + p->v > 1 || p->t <= 0) return h;
    h.u = p->u;
    h.v = p->v;
    h.t = p->t;
    h.shader = static_cast<float>(shader_);
    h.triangle = 0;
    h.object = 4;
    return h;
  }

 private:
  const std::vector<Vec4>& memory_;
  std::uint32_t shader_;
};

// Main casts (0, 0, 0) -> (x, y, 1) from R0 = (x, y, 1) and calls the hit's shader. The shader
// branches on u (so that a quad's threads part), then differences the barycentrics: R0 =
// (ddx u, ddy v, the branch taken).
const char* kQuadProgram = R"(
    mov R1.xyz, R0.xyz
    mov R0.xyz, 0.0
    trace R0.xyz, R1.xyz, C31
    mov R15.w, HIT.z + jmp HIT_, w (>=0)
    mov R0.xyz, -1.0
    return
HIT_:
    call HIT.w push 0
    return
SHADE:
    add R15.w, HIT.x, -0.55 + jmp BIG, w (>=0)
    mov R5.w, 1.0
    jmp JOIN
BIG:
    mov R5.w, 2.0
JOIN:
    ddx R3.xy, HIT.xy
    ddy R4.xy, HIT.xy
    mov R0.x, R3.x
    mov R0.y, R4.y
    mov R0.z, R5.w
    return
)";

struct QuadRun {
  std::array<ThreadState, 4> t;
  VmStats stats;
};

QuadRun run_quad(const std::array<std::array<float, 2>, 4>& pixels) {
  static const std::vector<Vec4> memory = triangle_memory();
  const Program p = assemble_text(kQuadProgram);
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  vm.set_memory(&memory);
  OneTriangle unit(memory, *p.entry("SHADE"));
  vm.set_trace_unit(&unit);
  vm.constants()[31] = {0, 1e30f, 0, 4};
  QuadRun r;
  for (std::size_t l = 0; l < 4; ++l) {
    r.t[l] = thread_at(0);
    r.t[l].r(0) = {pixels[l][0], pixels[l][1], 1, 0};
  }
  vm.run_chunk(r.t, r.stats);
  return r;
}

TEST(RpuQuad, EveryThreadGetsItsOwnDifferencesAcrossThePixelQuad) {
  // Pixels 0.02 apart: u = 5 x and v = 5 y on the plane, so each difference is +-0.1. The right
  // column's partner lies to its left, so its differences are negative; the bottom row's likewise.
  const QuadRun r = run_quad({{{0.04f, 0.04f}, {0.06f, 0.04f}, {0.04f, 0.06f}, {0.06f, 0.06f}}});
  const float d = 5 * 0.02f;
  for (std::size_t l = 0; l < 4; ++l) {
    ASSERT_EQ(r.t[l].status, ThreadStatus::Done) << r.t[l].fault;
    EXPECT_NEAR(r.t[l].r(0)[0], (l & 1) ? -d : d, 1e-5f) << l;
    EXPECT_NEAR(r.t[l].r(0)[1], (l & 2) ? -d : d, 1e-5f) << l;
  }
  EXPECT_EQ(r.stats.quads, 4u);
}

TEST(RpuQuad, AHelperStandsInForAPartnerThatMissedAndPartsAtBranchesWithoutLosingItsPlace) {
  // Pixel 1's ray misses the triangle (u + v = 1.15): its helper casts the same ray into the
  // triangle's plane, so pixel 0 still has its difference. Pixel 0 (u = 0.5) and its helper for
  // pixel 1 (u = 0.95) take opposite sides of the shader's branch and meet again at the ddx.
  const QuadRun r = run_quad({{{0.1f, 0.04f}, {0.19f, 0.04f}, {0.1f, 0.06f}, {0.19f, 0.06f}}});
  EXPECT_EQ(r.t[1].r(0), (Vec4{-1, -1, -1, 0}));  // missed: its own main sees nothing
  EXPECT_NEAR(r.t[0].r(0)[0], 5 * 0.09f, 1e-5f);
  EXPECT_NEAR(r.t[0].r(0)[1], 5 * 0.02f, 1e-5f);
  EXPECT_EQ(r.t[0].r(0)[2], 1.0f);  // the anchor's own side of the branch
}

TEST(RpuQuad, OutsideAQuadADifferenceIsNaN) {
  // A thread run alone (rpu run) shades no pixel quad.
  const Program p = assemble_text("mov R1.xyz, 2.0\nddx R0.xyz, R1.xyz\nreturn\n");
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  ThreadState t = thread_at(0);
  VmStats stats;
  vm.run(t, stats);
  EXPECT_TRUE(std::isnan(t.r(0)[0]));
  EXPECT_TRUE(takes_derivatives(p));
  EXPECT_FALSE(takes_derivatives(assemble_text("mov R0, R1\nreturn\n")));
}

TEST(RpuQuad, DifferencesTakeAnAddsTimeUnlessTheMachineSaysOtherwise) {
  const Machine& m = default_machine();
  EXPECT_EQ(m.latency_of(Opcode::Ddx), m.latency_of(Opcode::Add));
  EXPECT_EQ(m.latency_of(Opcode::Ddy), m.latency_of(Opcode::Add));
  EXPECT_EQ(listing_text(assemble_text("ddx R0.xyz, -R1.yzx\nddy R2.w, R3.x\nreturn\n")).find("ddx R0.xyz, -R1.yzx") != std::string::npos, true);
}

// ---- the compiler and the reference --------------------------------------------------------

struct Scene {
  sim::Scene scene;
  SceneProgram program;
};

Scene load(const std::string& name, int w, int h, const Machine* machine) {
  Scene s;
  lang::Diagnostics problems;
  std::optional<sim::Scene> loaded = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + name, &problems);
  EXPECT_TRUE(loaded) << problems.text();
  if (!loaded) return s;
  s.scene = *loaded;
  CompileOptions co;
  co.machine = machine;
  s.program = compile_scene(s.scene, w, h, "", "", "", co);
  EXPECT_TRUE(s.program.ok()) << lang::format_text(s.program.compiled->diagnostics.items(), *s.program.compiled->sources);
  return s;
}

RenderResult render_vm(const Scene& s, int w, int h, bool ieee) {
  SceneData data(s.scene, s.program.object_shader, s.program.compiled->textures);
  RenderOptions ro;
  ro.width = w;
  ro.height = h;
  ro.ieee = ieee;
  return render(*s.program.compiled->program, s.program.main_entry, data, s.scene, ro);
}

TEST(RpuQuad, AntialiasedTilesABumpedBallAndTheirReflectionsMatchTheReference) {
  // samples/scenes/rpu_smooth.json: filterwidth's footprint on the floor, calculatenormal on the
  // ball, and both again in the mirror ball, whose rays' quads come from its own helpers' rays.
  Machine ieee = default_machine();
  ieee.fp24 = false;
  const int w = 64, h = 48;
  const Scene s = load("rpu_smooth.json", w, h, &ieee);
  if (!s.program.ok()) return;
  EXPECT_TRUE(takes_derivatives(*s.program.compiled->program));
  const RenderResult vm = render_vm(s, w, h, true);
  EXPECT_EQ(vm.fault_count, 0u);
  EXPECT_GT(vm.stats.quads, static_cast<std::uint64_t>(w * h / 2));
  SceneData data(s.scene, s.program.object_shader, s.program.compiled->textures);
  ReferenceOptions ro;
  ro.width = w;
  ro.height = h;
  const ReferenceResult ref = reference_render(s.program, data, s.scene, ro);
  EXPECT_EQ(ref.errors, 0u) << ref.first_error;
  int undefined = 0;
  for (std::uint8_t u : ref.undefined) undefined += u;
  EXPECT_LT(undefined, w * h / 100);
  float worst = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        if (!ref.undefined[static_cast<std::size_t>(y * w + x)]) worst = std::max(worst, std::fabs(vm.image.at(x, y)[c] - ref.image.at(x, y)[c]));
  EXPECT_LT(worst, 1e-4f);
}

TEST(RpuQuad, TheFilteredFloorBlendsToGreyWhereThePointSampledOneAliases) {
  // The far floor of rpu_smooth.json with tiles_aa against the same squares point sampled: just
  // below the horizon, where a pixel spans several squares, the filtered floor is nearly even and
  // the point-sampled one flickers between light and dark.
  const int w = 128, h = 96;
  Scene aa = load("rpu_smooth.json", w, h, nullptr);
  const fs::path point_shader = fs::temp_directory_path() / "passlab_point_tiles.sl";
  {
    std::ofstream out(point_shader);
    out << "surface point_tiles(float Ka = 0.15; float Kd = 0.85; float tiles = 40; color dark = color(0.3, 0.3, 0.34)) {\n"
           "  normal Nf = faceforward(normalize(N), I);\n"
           "  color base = mix(Cs, dark, mod(floor(s * tiles) + floor(t * tiles), 2));\n"
           "  color direct = 0;\n"
           "  illuminance (P, Nf, PI / 2) direct += Cl * (normalize(L) . Nf) * visibility(P, P + L);\n"
           "  Ci = base * (Ka + Kd * direct); Oi = 1; }\n";
  }
  Scene point;
  point.scene = aa.scene;
  point.scene.objects[0].shader = point_shader.string();
  point.program = compile_scene(point.scene, w, h, "", "", "", CompileOptions{});
  if (!aa.program.ok() || !point.program.ok()) return;
  // How much neighbouring pixels of a row differ (a smooth fall of light towards the horizon
  // does not count; squares that flicker from pixel to pixel do).
  auto spread = [&](const sim::Image& img) {
    double sum = 0;
    int n = 0;
    for (int y = h * 37 / 100; y < h * 42 / 100; ++y)
      for (int x = 1; x < w; ++x) {
        if (x > w / 5 && x < w * 4 / 5) continue;  // the balls
        sum += std::fabs(img.at(x, y)[1] - img.at(x - 1, y)[1]);
        ++n;
      }
    return sum / n;
  };
  const double filtered = spread(render_vm(aa, w, h, false).image), sampled = spread(render_vm(point, w, h, false).image);
  EXPECT_LT(filtered, 0.5 * sampled) << filtered << " vs " << sampled;
  fs::remove(point_shader);
}

}  // namespace
}  // namespace passlab::rpu
