// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU's numbers: the VM's speed on one core (RPU instructions per second, whole renders and a
// ray-free arithmetic kernel), the compile time of a 200-line shader, and what scheduling and
// pairing save in the VM's cycle and issue counts. Writes a Markdown report. Usage:
//   rpu_bench [--repeat N] [--size WxH] [--out FILE.md]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/rpu/render.h"
#include "backends/rpu/scene_program.h"

using namespace passlab;

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The scene's trace unit, timed: what a render spends casting rays (on the RPU, a unit of its
// own beside the shader processor). One host thread only.
class TimedTraceUnit : public rpu::TraceUnit {
 public:
  explicit TimedTraceUnit(const rpu::TraceUnit& inner) : inner_(inner) {}
  rpu::Hit trace(const rpu::Vec4& o, const rpu::Vec4& d, const rpu::Vec4& args) const override {
    const auto t0 = Clock::now();
    const rpu::Hit h = inner_.trace(o, d, args);
    ns_ += std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    return h;
  }
  double take_ms() const {
    const double ms = ns_ / 1e6;
    ns_ = 0;
    return ms;
  }

 private:
  const rpu::TraceUnit& inner_;
  mutable double ns_ = 0;
};

struct SceneRun {
  std::string name;
  double ms = 0;
  double trace_ms = 0;  // of ms, in the trace unit
  rpu::VmStats stats;
  std::string error;
};

SceneRun render_scene(const std::string& name, int w, int h, int repeat, const rpu::CompileOptions& co) {
  SceneRun out;
  out.name = name;
  lang::Diagnostics problems;
  std::optional<sim::Scene> scene = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + name + ".json", &problems);
  if (!scene) {
    out.error = problems.summary();
    return out;
  }
  rpu::SceneProgram sp = rpu::compile_scene(*scene, w, h, "", "", "", co);
  if (!sp.ok()) {
    out.error = lang::format_text(sp.compiled->diagnostics.items(), *sp.compiled->sources);
    return out;
  }
  rpu::SceneData data(*scene, sp.object_shader, sp.compiled->textures);
  rpu::RenderOptions ro;
  ro.width = w;
  ro.height = h;
  ro.threads = 1;
  const TimedTraceUnit timed(data);
  ro.trace_unit = &timed;
  std::vector<double> times, trace_times;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = Clock::now();
    rpu::RenderResult r = rpu::render(*sp.compiled->program, sp.main_entry, data, *scene, ro);
    times.push_back(ms_since(t0));
    trace_times.push_back(timed.take_ms());
    out.stats = r.stats;
  }
  out.ms = median(times);
  out.trace_ms = median(trace_times);
  return out;
}

// The Mandelbrot set's escape count on a 256 x 256 grid: loops, branches that diverge inside
// chunks, no rays and no memory; what the VM's decode-and-execute loop alone can do.
SceneRun mandelbrot(int repeat) {
  SceneRun out;
  out.name = "mandelbrot (no rays)";
  const char* src = R"(float mandel(point c) {
      float cx = xcomp(c), cy = ycomp(c);
      float x = 0, y = 0, i;
      for (i = 0; i < 64; i += 1) {
        float xx = x * x - y * y + cx;
        y = 2 * x * y + cy;
        x = xx;
        if (x * x + y * y > 4) break;
      }
      return i;
    })";
  std::unique_ptr<rpu::CompiledProgram> p = rpu::compile_sources({{"mandel.sl", src}}, {});
  if (!p->ok()) {
    out.error = lang::format_text(p->diagnostics.items(), *p->sources);
    return out;
  }
  const std::uint32_t entry = p->function("mandel")->address;
  rpu::Vm vm(*p->program);
  std::vector<double> times;
  rpu::Vm::FreshResult result;
  for (int i = 0; i < repeat; ++i) {
    rpu::VmStats stats;
    const auto t0 = Clock::now();
    std::array<rpu::Vec4, 4> c{};
    for (int y = 0; y < 256; y += 2)
      for (int x = 0; x < 256; x += 2) {
        for (int k = 0; k < 4; ++k)
          c[static_cast<std::size_t>(k)] = {-2.0f + 2.5f * static_cast<float>(x + (k & 1)) / 256, -1.25f + 2.5f * static_cast<float>(y + (k >> 1)) / 256, 0, 0};
        vm.run_fresh_chunk(entry, c, stats, result);
      }
    times.push_back(ms_since(t0));
    out.stats = stats;
  }
  out.ms = median(times);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5, w = 256, h = 256;
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--size" && i + 1 < argc) std::sscanf(argv[++i], "%dx%d", &w, &h);
    else if (a == "--out" && i + 1 < argc) out_path = argv[++i];
    else {
      std::fprintf(stderr, "usage: rpu_bench [--repeat N] [--size WxH] [--out FILE.md]\n");
      return 2;
    }
  }
  const std::vector<std::string> scenes = {"rpu_depth", "rpu_flat", "rpu_reflections", "rpu_ceramic", "plastic", "rpu_smooth"};
  std::string md = "## The VM on one core\n\n";
  md += fmt::format("{}x{} pixels, one host thread, the median of {} runs. Instructions count one per active lane (thread).\n\n", w, h, repeat);
  md += "The trace unit's time is what the renders spend in ray casting (the BVH), which is a unit of its own on the RPU; the last "
        "rate leaves it out.\n\n";
  md += "| program | ms | of which tracing | instructions | M instructions/s | without tracing | issues | M issues/s | cycles | stalls | chunk occupancy |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  auto row = [&](const SceneRun& r) {
    if (!r.error.empty()) {
      md += "| " + r.name + " | failed: " + r.error + " |\n";
      return;
    }
    const double rate = static_cast<double>(r.stats.instructions) / r.ms / 1e3;
    const double shading_rate = static_cast<double>(r.stats.instructions) / (r.ms - r.trace_ms) / 1e3;
    // Issues: words issued, each for a whole chunk (what the RPU's one issue slot per cycle counts).
    const double issue_rate = static_cast<double>(r.stats.issues) / r.ms / 1e3;
    md += fmt::format("| {} | {:.1f} | {:.1f} | {} | {:.1f} | {:.1f} | {} | {:.1f} | {} | {} | {:.3f} |\n", r.name, r.ms, r.trace_ms, r.stats.instructions, rate,
                      shading_rate, r.stats.issues, issue_rate, r.stats.cycles, r.stats.stalls, r.stats.occupancy());
    std::fprintf(stderr, "%s: %.1f ms (%.1f tracing), %.1f M instructions/s, %.1f without tracing, %.1f M issues/s\n", r.name.c_str(), r.ms, r.trace_ms, rate,
                 shading_rate, issue_rate);
  };
  row(mandelbrot(repeat));
  for (const std::string& s : scenes) row(render_scene(s, w, h, repeat, {}));

  // Compile time: the 200-line ceramic shader, source to assembled program.
  {
    const std::string path = std::string(PASSLAB_SAMPLES_DIR) + "/rpu/ceramic.sl";
    std::vector<double> times;
    std::size_t words = 0;
    for (int i = 0; i < std::max(repeat, 9); ++i) {
      const auto t0 = Clock::now();
      std::unique_ptr<rpu::CompiledProgram> p = rpu::compile_files({path}, {});
      times.push_back(ms_since(t0));
      if (!p->ok()) {
        std::fprintf(stderr, "ceramic.sl does not compile\n");
        return 1;
      }
      words = p->program->code.size();
    }
    md += fmt::format("\n## Compile time\n\n`samples/rpu/ceramic.sl` (200 lines, 9 functions and a shader, the runtime library's functions it calls), "
                      "front end to assembled program: median {:.1f} ms over {} runs, {} words.\n",
                      median(times), times.size(), words);
    std::fprintf(stderr, "compile ceramic.sl: %.1f ms\n", median(times));
  }

  // What scheduling and pairing save, as the VM counts it.
  md += "\n## Scheduling and pairing\n\nThe VM's counts for the same renders compiled three ways: in code-generation order, "
        "list-scheduled (the thesis), and list-scheduled with 3/1 and 2/2 pairs (beyond the thesis).\n\n"
        "| scene | cycles, unscheduled | cycles, scheduled | saved | cycles, paired | saved | issues, scheduled | issues, paired | saved |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& s : scenes) {
    rpu::CompileOptions plain, paired;
    plain.schedule = false;
    paired.pair = true;
    const SceneRun a = render_scene(s, w / 2, h / 2, 1, plain), b = render_scene(s, w / 2, h / 2, 1, {}), c = render_scene(s, w / 2, h / 2, 1, paired);
    if (!a.error.empty() || !b.error.empty() || !c.error.empty()) continue;
    auto pct = [](double from, double to) { return 100.0 * (from - to) / from; };
    md += fmt::format("| {} | {} | {} | {:.1f}% | {} | {:.1f}% | {} | {} | {:.1f}% |\n", s, a.stats.cycles, b.stats.cycles,
                      pct(static_cast<double>(a.stats.cycles), static_cast<double>(b.stats.cycles)), c.stats.cycles,
                      pct(static_cast<double>(b.stats.cycles), static_cast<double>(c.stats.cycles)), b.stats.issues, c.stats.issues,
                      pct(static_cast<double>(b.stats.issues), static_cast<double>(c.stats.issues)));
  }
  // Inlining (thesis §5.3): the first threshold, where a call site's code (saves, argument
  // moves, the call, the result, restores) costs as many words as a copy of the body. A function
  // of k operations with 2 arguments and 1 result, called from a function that keeps 2 values
  // across the call; the caller's words are compared, since the callee's body is shared by
  // every call site.
  md += "\n## Calling or inlining\n\nThe thesis's first threshold (§5.3): a function g of k arithmetic operations with 2 arguments and 1 result, "
        "called from f, which keeps 2 values across the call (the case it estimates at 9 operations). Words of f: the call site "
        "against a copy of g's body (g's own words are shared by every call site, so they are not counted); instructions run: "
        "one call of f, g included.\n\n"
        "| k | words of g | words of f, calling | words of f, inlined | instructions run, calling | inlined |\n|---:|---:|---:|---:|---:|---:|\n";
  int break_even = -1;
  for (int k = 1; k <= 16; ++k) {
    std::string body;
    for (int i = 0; i < k; ++i) body += i % 2 ? "    r = r * b + " + std::to_string(i) + ";\n" : "    r = r * a + b;\n";
    const std::string src = "float g(float a; float b)\n{\n    float r = a;\n" + body + "    return r;\n}\n"
                            "float f(float x; float y; float z; float w)\n{\n    float p = z * w, q = z + w;\n    return g(x, y) * p + q;\n}\n";
    rpu::CompileOptions inlined;
    inlined.inline_limit = 1000;
    std::unique_ptr<rpu::CompiledProgram> a = rpu::compile_sources({{"g.sl", src}}, {});
    std::unique_ptr<rpu::CompiledProgram> b = rpu::compile_sources({{"g.sl", src}}, inlined);
    if (!a->ok() || !b->ok()) continue;
    auto run = [](const rpu::CompiledProgram& p) {
      rpu::Vm vm(*p.program);
      rpu::ThreadState t = rpu::thread_at(p.function("f")->address);
      for (int r = 0; r < 4; ++r) t.r(r)[3] = 0.5f + static_cast<float>(r);
      rpu::VmStats st;
      vm.run(t, st);
      return st.instructions;
    };
    // g comes first, so f runs from its address to the end of the program.
    const std::uint32_t g_words = a->function("f")->address;
    const std::size_t f_calling = a->program->code.size() - a->function("f")->address;
    const std::size_t f_inlined = b->program->code.size() - b->function("f")->address;
    if (break_even < 0 && f_inlined > f_calling) break_even = k;
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", k, g_words, f_calling, f_inlined, run(*a), run(*b));
  }
  md += break_even > 0 ? fmt::format("\nInlining makes the call site bigger from k = {} operations on (the thesis estimated 9).\n", break_even)
                       : std::string("\nInlining never made the call site bigger up to k = 16.\n");
  if (out_path.empty()) {
    std::fputs(md.c_str(), stdout);
  } else {
    std::ofstream(out_path) << md;
  }
  return 0;
}
