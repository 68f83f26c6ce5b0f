// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-glcompare: each scene rendered by the simulator and by OpenGL (llvmpipe) from the GLSL
// of its passes, single pass and pass by pass (render-to-texture), with the differences and the
// throughput of both. Usage:
//   passlab-glcompare [--size N] [--target T] [--algo A] [--repeat N] [--tolerance X] [--out FILE.md] SCENE...
// SCENE: a scene file, or the name of one in samples/scenes. Exit 1 if an image is out of tolerance.
#include <algorithm>
#include <malloc.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "session/render_job.h"
#include "tools/glcompare/compare.h"
#include "tools/glcompare/gl_render.h"

using namespace passlab;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // Renders one after another, as in an interactive preview: freed frame buffers stay with the
  // process, so the next render does not fault in fresh pages (tens of ms per render on a VM).
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  int size = 256, repeat = 3;
  double tolerance = 2.0 / 255;
  std::string target = "PC4", algo = "rds", out_path;
  std::vector<std::string> scenes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--size") size = std::max(8, std::stoi(next()));
    else if (a == "--target") target = next();
    else if (a == "--algo") algo = next();
    else if (a == "--repeat") repeat = std::max(1, std::stoi(next()));
    else if (a == "--tolerance") tolerance = std::stod(next());
    else if (a == "--out") out_path = next();
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "usage: passlab-glcompare [--size N] [--target T] [--algo A] [--repeat N] [--tolerance X] [--out FILE.md] SCENE...\n");
      return 2;
    } else scenes.push_back(a);
  }
  if (scenes.empty())
    scenes = {"bowling_pin", "brick", "bump_pin", "marble", "matte", "plastic", "toon", "wood", "wood_panel", "transparent"};
  std::string error;
  auto gl = gl::GlRenderer::create(&error);
  if (!gl) {
    std::fprintf(stderr, "passlab-glcompare: %s\n", error.c_str());
    return 1;
  }
  std::string table = fmt::format(
      "OpenGL: {}. Images {}x{}; a pixel is off when a channel differs by more than {:.4f}.\n\n"
      "| Scene | Fragments | Single pass: max / mean diff, pixels off | {} passes ({}): max / mean diff, pixels off | "
      "Simulator (Mfrag/s) | llvmpipe (Mfrag/s) | Ratio |\n|---|---:|---|---|---:|---:|---:|\n",
      gl->renderer(), size, size, tolerance, target, algo);
  bool all_ok = true;
  for (const std::string& name : scenes) {
    const std::string path = std::filesystem::exists(name) ? name : std::string(PASSLAB_SAMPLES_DIR) + "/scenes/" + name + ".json";
    lang::Diagnostics problems;
    auto scene = sim::load_scene(path, &problems);
    if (!scene) {
      std::fputs(problems.text().c_str(), stderr);
      return 1;
    }
    scene->width = scene->height = size;
    session::RenderRequest req;
    req.target = target;
    req.algorithm = algo;
    std::string diagnostics;
    req.options.storage = sim::Storage::SinglePass;
    auto single = session::SceneShaders::build(*scene, req, &diagnostics);
    req.options.storage = sim::Storage::RenderToTexture;
    auto multi = single ? session::SceneShaders::build(*scene, req, &diagnostics) : nullptr;
    if (!single || !multi) {
      std::fprintf(stderr, "%s", diagnostics.c_str());
      return 1;
    }
    auto sim_render = [&](const session::SceneShaders& s, sim::Storage store, sim::RenderStats* stats) {
      sim::RenderOptions o;
      o.storage = store;
      const std::vector<const sim::FragmentShader*> per(s.per_object().begin(), s.per_object().end());
      return sim::render(*scene, per, o, stats, &error);
    };
    std::vector<double> sim_ms, gl_ms;
    sim::RenderStats stats;
    std::optional<sim::Image> a, b;
    // A render each first, untimed: llvmpipe compiles the programs (the simulator's were compiled
    // when the shaders were built), and both touch their memory.
    sim_render(*single, sim::Storage::SinglePass, &stats);
    gl->render(*scene, single->per_object(), single->textures(), size, size, &error);
    for (int r = 0; r < repeat; ++r) {
      a = sim_render(*single, sim::Storage::SinglePass, &stats);
      sim_ms.push_back(stats.milliseconds);
      double ms = 0;
      b = gl->render(*scene, single->per_object(), single->textures(), size, size, &error, &ms);
      if (!b) break;
      gl_ms.push_back(ms);
    }
    sim::RenderStats multi_stats;
    auto c = sim_render(*multi, sim::Storage::RenderToTexture, &multi_stats);
    auto d = b ? gl->render(*scene, multi->per_object(), multi->textures(), size, size, &error) : std::nullopt;
    if (!a || !b || !c || !d) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), error.c_str());
      return 1;
    }
    const gl::Difference one = gl::compare(*a, *b, tolerance), many = gl::compare(*c, *d, tolerance);
    const double fragments = static_cast<double>(stats.fragments_shaded);
    const double ours = fragments / median(sim_ms) / 1e3, theirs = fragments / median(gl_ms) / 1e3;
    table += fmt::format("| {} | {:.0f} | {:.4f} / {:.5f}, {:.2f}% | {:.4f} / {:.5f}, {:.2f}% ({} passes) | {:.2f} | {:.2f} | {:.2f} |\n", name,
                         fragments, one.max, one.mean, one.over_fraction * 100, many.max, many.mean, many.over_fraction * 100,
                         multi_stats.passes, ours, theirs, ours / theirs);
    all_ok = all_ok && one.over_fraction < 0.01 && many.over_fraction < 0.01;
    std::fprintf(stderr, "%s done\n", name.c_str());
  }
  std::fputs(table.c_str(), stdout);
  if (!out_path.empty()) std::ofstream(out_path) << table;
  return all_ok ? 0 : 1;
}
