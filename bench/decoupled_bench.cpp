// SPDX-License-Identifier: GPL-3.0-or-later
// Decoupled sampling against the paper (Ragan-Kelley et al. 2011): shading rate and savings at
// 27 samples per pixel with a 4k-sample global cache on the defocus, motion and bats scenes
// (Figures 1, 9 and 10), the cache size from which quad shading beats an ideal supersampler
// (Figure 10, row 3), bin spread and the cost model's breakdown (Figures 11 and 13, under
// sim/hardware_study.h's model), and what a 512x512 frame costs at 27 samples against 1 (and
// supersampled).
// A program, not a micro-benchmark:
//   decoupled_bench [--runs N] [--scenes a,b] [--csv DIR] [--size N] [--threads N] [--frames | --hardware | --sweeps-only]
// prints Markdown tables (--frames: only the frame times; --hardware: only the hardware studies); with --csv, writes DIR/<scene>_sweep.csv (samples per pixel, cache size,
// cache scope and blur sweeps) for the charts in docs/.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "session/render_job.h"
#include "core/sim/render.h"
#include "core/sim/hardware_study.h"
#include "core/sim/sampling_sweep.h"

using namespace passlab;

namespace {

int frame_threads = 0;  // --threads: the frame times' worker threads (0: every hardware thread)

struct Loaded {
  sim::Scene scene;
  std::unique_ptr<session::SceneShaders> shaders;
  std::vector<const sim::FragmentShader*> per_object;
};

Loaded load(const std::string& name, int size) {
  Loaded l;
  lang::Diagnostics problems;
  auto s = sim::load_scene(std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + name + ".json", &problems);
  if (!s) {
    std::cerr << problems.text();
    std::exit(1);
  }
  l.scene = *s;
  if (size > 0) l.scene.width = l.scene.height = size;
  session::RenderRequest req;
  req.shader = std::string(PASSLAB_SAMPLES_DIR) + "/shaders/plastic.sl";
  req.options.storage = sim::Storage::SinglePass;
  std::string diagnostics;
  l.shaders = session::SceneShaders::build(l.scene, req, &diagnostics);
  if (!l.shaders) {
    std::cerr << diagnostics;
    std::exit(1);
  }
  l.per_object.assign(l.shaders->per_object().begin(), l.shaders->per_object().end());
  return l;
}

sim::DecoupledStats run(const Loaded& l, const sim::DecoupledOptions& o, double* ms) {
  sim::DecoupledStats stats;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  if (!sim::render_decoupled(l.scene, l.per_object, o, &stats, &error)) {
    std::cerr << error << '\n';
    std::exit(1);
  }
  if (ms) *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The paper's measures at 27 spp, and savings by cache size.
void measures(const std::vector<std::string>& scenes, int size) {
  std::cout << "## The paper's measures at 27 spp, 4096-sample global cache, 2x2 quads\n\n"
               "| scene | covered px | shader runs | shading rate | savings vs supersampling | blur area (px) | cache hit rate | tiled cache rate | paper |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const std::string& name : scenes) {
    const Loaded l = load(name, size);
    sim::DecoupledOptions o;
    o.spp = 27;
    const auto s = run(l, o, nullptr);
    o.scope = sim::CacheScope::Tile;
    const auto t = run(l, o, nullptr);
    const char* paper = name == "ds_defocus" ? "HL2 defocus: 1.67 (Fig. 1), 1.3-2.05 (§3.3)"
                        : name == "ds_motion" ? "TF2 motion: rate within 3x over blur and spp (Fig. 10)"
                                              : "bats: ideal rate > 3 from edge overshading (§5.3.1)";
    std::cout << fmt::format("| {} | {} | {} | {:.2f} | {:.1f}x | {:.1f} | {:.1f}% | {:.2f} | {} |\n", name, s.covered_pixels, s.shader_runs,
                             s.shading_rate(), s.savings(), s.blur_area, 100 * s.cache.hit_rate(), t.shading_rate(), paper);
  }

  std::cout << "\n## Savings against an ideal supersampler by cache size (27 spp, global cache)\n\n"
               "| scene | block | 32 | 64 | 128 | 256 | 512 | 1k | 4k | 16k | unlimited |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& name : scenes) {
    const Loaded l = load(name, size);
    for (bool quads : {true, false}) {
      std::string row = fmt::format("| {} | {} |", name, quads ? "quad" : "sample");
      for (long cache : {32L, 64L, 128L, 256L, 512L, 1024L, 4096L, 16384L, 0L}) {
        sim::DecoupledOptions o;
        o.spp = 27;
        o.quads = quads;
        o.cache = cache;
        row += fmt::format(" {:.2f}x |", run(l, o, nullptr).savings());
      }
      std::cout << row << '\n';
    }
  }
}

// The paper's hardware studies (sim/hardware_study.h): bin spread by blur and samples per pixel
// (its Figure 11) and the cost model's breakdown by configuration (its Figure 13).
void hardware(const std::vector<std::string>& scenes, int size) {
  std::cout << "\n## Bin spread: tiles a triangle's blurred bounds touch, 128 kB tiles (the paper's Figure 11)\n\n"
               "| scene | spp (tile) | blur 0 | 0.5 | 1 | 2 | 4 |\n|---|---|---:|---:|---:|---:|---:|\n";
  for (const std::string& name : scenes) {
    const Loaded l = load(name, size);
    for (int spp : {8, 27, 64}) {
      std::string row = fmt::format("| {} | {} ({}x{} px) |", name, spp, sim::tile_side(spp), sim::tile_side(spp));
      for (float blur : {0.0f, 0.5f, 1.0f, 2.0f, 4.0f}) {
        sim::DecoupledOptions o;
        o.spp = spp;
        o.blur = blur;
        const sim::DecoupledStats s = run(l, o, nullptr);
        row += fmt::format(" {:.2f} |", sim::hardware_study(o, s).bin_spread);
      }
      std::cout << row << '\n';
    }
  }
  std::cout << "\n## The cost model (the paper's Figure 13), millions of instruction-equivalents, and traffic in MB\n\n"
               "| scene | configuration | vertices | raster | decoupling | shading | total | vs supersampling | shading cache MB | framebuffer MB | bins MB |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& name : scenes) {
    const Loaded l = load(name, size);
    struct Config {
      const char* label;
      int spp;
      sim::Shading shading;
      sim::CacheScope scope;
    };
    for (int spp : {8, 27, 64}) {
      sim::DecoupledOptions ss_opt;
      ss_opt.spp = spp;
      ss_opt.shading = sim::Shading::Supersample;
      const sim::HardwareStudy ss = sim::hardware_study(ss_opt, run(l, ss_opt, nullptr));
      for (const Config& c : {Config{"1 spp", 1, sim::Shading::Decoupled, sim::CacheScope::Global},
                              Config{"sort-last (SL)", spp, sim::Shading::Decoupled, sim::CacheScope::Global},
                              Config{"tiled (T)", spp, sim::Shading::Decoupled, sim::CacheScope::Tile},
                              Config{"supersampling (SS)", spp, sim::Shading::Supersample, sim::CacheScope::Global}}) {
        if (c.spp == 1 && spp != 8) continue;
        sim::DecoupledOptions o;
        o.spp = c.spp;
        o.shading = c.shading;
        o.scope = c.scope;
        const sim::HardwareStudy h = sim::hardware_study(o, run(l, o, nullptr));
        std::cout << fmt::format("| {} | {}{} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f}x | {:.1f} | {:.1f} | {:.1f} |\n", name, c.label,
                                 c.spp == 1 ? "" : fmt::format(", {} spp", spp), h.vertex / 1e6, h.raster / 1e6, h.decouple / 1e6,
                                 h.shade / 1e6, h.total() / 1e6, h.total() / ss.total(), (h.cache_write_bytes + h.cache_read_bytes) / 1e6,
                                 h.framebuffer_bytes / 1e6, c.scope == sim::CacheScope::Tile ? h.bin_bytes / 1e6 : 0.0);
      }
    }
  }
}

// A frame's cost at 27 spp against 1 spp (and supersampled), medians of `runs`.
void frame_times(const std::vector<std::string>& scenes, int size, int runs) {
  const unsigned threads = frame_threads > 0 ? static_cast<unsigned>(frame_threads) : std::thread::hardware_concurrency();
  std::cout << fmt::format("\n## Frame time, {}x{}, {} threads, median of {} runs (ms)\n\n", size, size, threads, runs)
            << "| scene | pinhole renderer, 1 spp | 1 spp | 27 spp decoupled | ratio to 1 spp | ratio to pinhole | 27 spp supersampled | ratio to 1 spp | 27 spp: rasterize / shade / resolve |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const std::string& name : scenes) {
    const Loaded l = load(name, size);
    // The median frame time; `parts` gets the medians of its rasterize, shade and resolve times
    // (each over the same runs, not the last run's).
    auto timed = [&](int spp, sim::Shading shading, std::array<double, 3>* parts) {
      std::vector<double> t, raster, shade, resolve;
      for (int i = 0; i < runs; ++i) {
        double ms = 0;
        sim::DecoupledOptions o;
        o.spp = spp;
        o.shading = shading;
        o.threads = frame_threads;
        const sim::DecoupledStats s = run(l, o, &ms);
        t.push_back(ms);
        raster.push_back(s.raster_ms);
        shade.push_back(s.shade_ms);
        resolve.push_back(s.resolve_ms);
      }
      *parts = {median(raster), median(shade), median(resolve)};
      return median(t);
    };
    // The same frame through the pinhole renderer (sim/render.h): no lens, no motion, one sample.
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
      sim::RenderOptions o;
      o.storage = sim::Storage::SinglePass;
      o.threads = frame_threads;
      sim::RenderStats stats;
      std::string error;
      const auto start = std::chrono::steady_clock::now();
      if (!sim::render(l.scene, l.per_object, o, &stats, &error)) {
        std::cerr << error << '\n';
        std::exit(1);
      }
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    const double pinhole = median(t);
    std::array<double, 3> p1{}, p27{}, pss{};
    const double one = timed(1, sim::Shading::Decoupled, &p1), ds = timed(27, sim::Shading::Decoupled, &p27),
                 super = timed(27, sim::Shading::Supersample, &pss);
    std::cout << fmt::format("| {} | {:.0f} | {:.0f} | {:.0f} | {:.2f}x | {:.2f}x | {:.0f} | {:.2f}x | {:.0f} / {:.0f} / {:.0f} |\n", name, pinhole,
                             one, ds, ds / one, ds / pinhole, super, super / one, p27[0], p27[1], p27[2]);
  }
}

// The sweeps' CSV files for the charts.
int write_sweeps(const std::vector<std::string>& scenes, int size, const std::string& csv_dir) {
  std::filesystem::create_directories(csv_dir);
  for (const std::string& name : scenes) {
    const Loaded l = load(name, size);
    sim::DecoupledOptions o;
    o.spp = 27;
    std::string error;
    std::vector<sim::SweepAxis> axes = {sim::SweepAxis::Spp, sim::SweepAxis::Cache, sim::SweepAxis::Scope, sim::SweepAxis::Blur};
    if (std::any_of(l.scene.objects.begin(), l.scene.objects.end(), [](const sim::SceneObject& obj) { return obj.moving; }))
      axes.push_back(sim::SweepAxis::Direction);  // (turning no motion changes nothing)
    const auto rows = sim::sweep(l.scene, l.per_object, o, axes, nullptr, &error);
    if (rows.empty()) {
      std::cerr << error << '\n';
      return 1;
    }
    const std::string path = csv_dir + "/" + name + "_sweep.csv";
    std::ofstream(path) << sim::sweep_csv(rows, false);
    std::cerr << "wrote " << path << '\n';
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, size = 512;
  std::vector<std::string> scenes = {"ds_defocus", "ds_motion", "ds_bats"};
  std::string csv_dir;
  bool frames_only = false, hardware_only = false, sweeps_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--size" && i + 1 < argc) size = std::max(16, std::atoi(argv[++i]));
    else if (a == "--threads" && i + 1 < argc) frame_threads = std::max(0, std::atoi(argv[++i]));
    else if (a == "--csv" && i + 1 < argc) csv_dir = argv[++i];
    else if (a == "--frames") frames_only = true;
    else if (a == "--hardware") hardware_only = true;
    else if (a == "--sweeps-only") sweeps_only = true;
    else if (a == "--scenes" && i + 1 < argc) {
      scenes.clear();
      std::stringstream ss(argv[++i]);
      for (std::string s; std::getline(ss, s, ',');) scenes.push_back(s);
    } else {
      std::cerr << "usage: decoupled_bench [--runs N] [--size N] [--threads N] [--scenes a,b] [--csv DIR] [--frames | --hardware | --sweeps-only]\n";
      return 2;
    }
  }
  if (sweeps_only) return csv_dir.empty() ? 2 : write_sweeps(scenes, size, csv_dir);
  if (hardware_only) {
    hardware(scenes, size);
    return 0;
  }
  if (!frames_only) {
    measures(scenes, size);
    hardware(scenes, size);
  }
  frame_times(scenes, size, runs);
  if (!csv_dir.empty()) return write_sweeps(scenes, size, csv_dir);
  return 0;
}

