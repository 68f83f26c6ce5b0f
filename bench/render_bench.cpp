// SPDX-License-Identifier: GPL-3.0-or-later
// The renderer's speed: each sample scene rendered single-pass and pass by pass (F-buffer) at
// 512x512, repeated; reports the median render time (compilation and PNG writing excluded) and
// the evaluator's throughput in shaded fragments per second. Writes a Markdown table. Usage:
//   render_bench [--repeat N] [--size N] [--threads N] [--target T] [--out FILE.md] [SCENE...]
#include <algorithm>
#include <malloc.h>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "session/render_job.h"

using namespace passlab;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Measure {
  double ms = 0;
  long shaded = 0;
  int passes = 0;
  std::string error;
};

Measure measure(const sim::Scene& scene, session::RenderRequest req, int repeat) {
  std::vector<double> times;
  Measure m;
  for (int i = 0; i < repeat; ++i) {
    const auto out = session::render_scene(scene, req);
    if (!out.image) {
      m.error = out.diagnostics;
      return m;
    }
    times.push_back(out.stats.milliseconds);
    m.shaded = out.stats.fragments_shaded;
    m.passes = out.stats.passes;
  }
  m.ms = median(times);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  // Renders one after another, as in an interactive preview: freed frame buffers stay with the
  // process, so the next render does not fault in fresh pages (tens of ms per render on a VM).
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  int repeat = 5, size = 512, threads = 0;
  std::string target = "PC5", out_path;
  std::vector<std::string> only;  // scene names to run (all when empty)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--repeat") repeat = std::max(1, std::stoi(next()));
    else if (a == "--size") size = std::max(16, std::stoi(next()));
    else if (a == "--threads") threads = std::max(0, std::stoi(next()));
    else if (a == "--target") target = next();
    else if (a == "--out") out_path = next();
    else if (!a.empty() && a[0] != '-') only.push_back(a);
    else {
      std::fprintf(stderr, "usage: render_bench [--repeat N] [--size N] [--threads N] [--target T] [--out FILE.md] [SCENE...]\n");
      return 2;
    }
  }
  const std::string dir = PASSLAB_SAMPLES_DIR;
  std::vector<std::string> scenes = {"bowling_pin", "brick",   "bump_pin", "marble",      "matte",
                                           "plastic",     "toon",    "wood",     "wood_panel", "transparent"};
  if (!only.empty()) scenes = only;
  std::string table = fmt::format(
      "| Scene | Fragments | Single pass (ms) | Fragments/s | {} passes, F-buffer (ms) | Passes | Fragment-passes/s |\n"
      "|---|---:|---:|---:|---:|---:|---:|\n",
      target);
  for (const auto& name : scenes) {
    lang::Diagnostics problems;
    auto scene = sim::load_scene(dir + "/scenes/" + name + ".json", &problems);
    if (!scene) {
      std::fputs(problems.text().c_str(), stderr);
      return 1;
    }
    scene->width = scene->height = size;
    session::RenderRequest req;
    req.target = target;
    req.options.threads = threads;
    req.options.storage = sim::Storage::SinglePass;
    const Measure single = measure(*scene, req, repeat);
    req.options.storage = sim::Storage::FBuffer;
    const Measure multi = measure(*scene, req, repeat);
    if (!single.error.empty() || !multi.error.empty()) {
      std::fprintf(stderr, "%s: %s%s", name.c_str(), single.error.c_str(), multi.error.c_str());
      return 1;
    }
    table += fmt::format("| {} | {} | {:.1f} | {:.2f} M | {:.1f} | {} | {:.2f} M |\n", name, single.shaded, single.ms,
                         single.shaded / single.ms / 1e3, multi.ms, multi.passes, multi.shaded / multi.ms / 1e3);
    std::fprintf(stderr, "%s done\n", name.c_str());
  }
  std::fputs(table.c_str(), stdout);
  if (!out_path.empty()) std::ofstream(out_path) << table;
  return 0;
}
