// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli render --spp N ...: a scene with its lens and motion rendered by decoupled sampling
// (or its supersampled and multisampled references), its measures, its error against a
// reference, a heat map of where shading happened, and sweeps of its parameters as CSV.
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/render_request.h"
#include "session/render_job.h"
#include "core/paths/atomic_file.h"
#include "core/sim/hardware_study.h"
#include "core/sim/heat.h"
#include "core/sim/sampling_sweep.h"
#include "core/lang/json_dump.h"

namespace passlab::cli {

namespace {

sim::Shading shading_of(const std::string& s) {
  if (s == "supersample") return sim::Shading::Supersample;
  if (s == "msaa") return sim::Shading::Msaa;
  if (s == "opportunistic") return sim::Shading::Opportunistic;
  if (s == "exact" || s == "accumulation") return sim::Shading::Exact;
  return sim::Shading::Decoupled;
}

nlohmann::ordered_json stats_json(const sim::DecoupledOptions& o, const sim::DecoupledStats& s, bool timing) {
  nlohmann::ordered_json j;
  j["shading"] = to_string(o.shading);
  j["width"] = s.width;
  j["height"] = s.height;
  j["spp"] = s.spp;
  j["accumulate"] = o.accumulate;
  // The cache the mode really uses (none for supersampling and MSAA; whole quads with quads).
  const long cache = sim::cache_samples(o);
  j["cache"] = cache == sim::kNoCache ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cache);
  j["cache_scope"] = cache == sim::kNoCache ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(to_string(o.scope));
  j["block"] = sim::shading_block(o) == 4 ? "quad" : "sample";
  j["reconstruct"] = to_string(o.reconstruct);
  j["rate"] = o.rate;
  j["adaptive"] = o.adaptive;
  j["blur"] = o.blur;
  j["visibility_samples"] = s.visibility_samples;
  j["covered_pixels"] = s.covered_pixels;
  j["covered_samples"] = s.covered_samples;
  j["samples_tested"] = s.samples_tested;
  j["shader_runs"] = s.shader_runs;
  j["shading_rate"] = std::round(s.shading_rate() * 1e4) / 1e4;
  j["savings"] = std::round(s.savings() * 1e3) / 1e3;
  j["blur_area"] = std::round(s.blur_area * 1e3) / 1e3;
  j["seen_pixels"] = std::round(s.seen_pixels * 1e3) / 1e3;
  j["cache_lookups"] = s.cache.lookups;
  j["cache_hits"] = s.cache.hits;
  j["cache_misses"] = s.cache.misses;
  j["cache_evictions"] = s.cache.evictions;
  j["hit_rate"] = std::round(s.cache.hit_rate() * 1e4) / 1e4;
  j["triangles"] = {{"static", s.triangles[0]}, {"moving", s.triangles[1]}, {"defocused", s.triangles[2]}, {"both", s.triangles[3]}};
  j["reference_fallbacks"] = s.reference_fallbacks;
  j["barycentric_grids"] = s.barycentric_grids;
  j["partial_views"] = s.partial_views;
  j["passes"] = s.passes;
  j["slot_passes"] = s.slot_passes;
  // The paper's hardware studies (sim/hardware_study.h), under its default model.
  const sim::HardwareStudy h = sim::hardware_study(o, s);
  auto round3 = [](double x) { return std::round(x * 1e3) / 1e3; };
  j["hardware"] = {{"tile_side", h.tile_side},
                   {"bin_spread", round3(h.bin_spread)},
                   {"bin_bytes", h.bin_bytes},
                   {"cache_write_bytes", h.cache_write_bytes},
                   {"cache_read_bytes", h.cache_read_bytes},
                   {"framebuffer_bytes", h.framebuffer_bytes},
                   {"cost", {{"vertex", h.vertex}, {"raster", h.raster}, {"decouple", h.decouple}, {"shade", h.shade}, {"total", h.total()}}}};
  if (timing) {
    j["milliseconds"] = std::round(s.milliseconds * 10) / 10;
    j["raster_ms"] = std::round(s.raster_ms * 10) / 10;
    j["shade_ms"] = std::round(s.shade_ms * 10) / 10;
    j["resolve_ms"] = std::round(s.resolve_ms * 10) / 10;
  }
  return j;
}

}  // namespace

int run_decoupled_render(const CommonOptions& o, const RenderCliOptions& r) {
  session::RenderRequest req;
  if (!render_request(o, r, &req)) return kUsage;
  if (req.options.storage == sim::Storage::RenderToTexture) {
    std::cerr << "passlab-cli: decoupled sampling keeps a partitioned shader's values per shading sample (an F-buffer): use --store fbuffer or single\n";
    return kUsage;
  }
  if ((!r.error_map.empty() || r.reference_spp > 0) && r.reference.empty()) {
    std::cerr << "passlab-cli: --error-map and --reference-spp describe a reference: add --reference exact, accumulation, supersample or msaa\n";
    return kUsage;
  }
  if (r.supersample != 1 || r.multisample != 1) {
    std::cerr << "passlab-cli: --supersample and --msaa are the pinhole renderer's; with --spp use --shading supersample or msaa\n";
    return kUsage;
  }
  sim::DecoupledOptions opt;
  opt.spp = r.spp > 0 ? r.spp : 27;
  opt.shading = shading_of(r.shading);
  opt.cache = r.cache;
  opt.scope = r.cache_scope == "tile" ? sim::CacheScope::Tile : sim::CacheScope::Global;
  opt.reconstruct = r.reconstruct == "bilinear" ? sim::Reconstruct::Bilinear : sim::Reconstruct::Nearest;
  opt.rate = r.rate;
  opt.adaptive = r.adaptive;
  opt.quads = !r.no_quads;
  opt.blur = r.blur;
  opt.seed = r.seed;
  opt.accumulate = r.accumulate;
  opt.threads = req.options.threads;
  if (sim::shading_block(opt) > 1 && opt.cache > 0 && opt.cache < sim::shading_block(opt) && sim::cache_samples(opt) != sim::kNoCache) {
    std::cerr << fmt::format("passlab-cli: with 2x2 quads the cache holds whole quads: --cache must be 0 or at least 4 (it was {}), "
                             "or add --no-quads\n", opt.cache);
    return kUsage;
  }
  opt.width = req.options.width;
  opt.height = req.options.height;
  std::vector<sim::SweepAxis> axes;
  for (const std::string& a : r.sweep_axes) {
    sim::SweepAxis axis;
    if (sim::parse_sweep_axis(a, &axis)) axes.push_back(axis);
  }
  if (axes.empty()) axes = {sim::SweepAxis::Spp, sim::SweepAxis::Cache, sim::SweepAxis::Scope, sim::SweepAxis::Blur};

  lang::Diagnostics problems;
  auto scene = sim::load_scene(r.scene, &problems);
  if (!scene) return report_problems(o, problems, kDiagnostics);
  std::string diagnostics;
  auto shaders = session::SceneShaders::build(*scene, req, &diagnostics);
  if (!diagnostics.empty()) std::cerr << diagnostics;
  if (!shaders) return kDiagnostics;
  const std::vector<const sim::FragmentShader*> per_object(shaders->per_object().begin(), shaders->per_object().end());

  sim::DecoupledCapture capture;
  capture.heat = !r.heat.empty();
  if (capture.heat) opt.capture = &capture;
  sim::DecoupledStats stats;
  std::string error;
  auto image = sim::render_decoupled(*scene, per_object, opt, &stats, &error);
  if (!image) {
    std::cerr << r.scene << ": error: " << error << '\n';
    return kDiagnostics;
  }
  if (!sim::write_png(r.output, *image, &error)) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kDiagnostics;
  }
  if (capture.heat) {
    // Runs per pixel on a scale up to 4 (the paper's heat maps saturate there too).
    if (!sim::write_png(r.heat, sim::heat_image(capture.shading_heat, capture.width, capture.height, 4.0f), &error)) {
      std::cerr << "passlab-cli: " << error << '\n';
      return kDiagnostics;
    }
  }
  nlohmann::ordered_json j = stats_json(opt, stats, r.timing);
  if (!r.reference.empty()) {
    sim::DecoupledOptions ref = opt;
    ref.capture = nullptr;
    ref.shading = shading_of(r.reference);
    ref.accumulate = r.reference == "accumulation";
    if (r.reference_spp > 0) ref.spp = r.reference_spp;
    sim::DecoupledStats ref_stats;
    auto reference = sim::render_decoupled(*scene, per_object, ref, &ref_stats, &error);
    if (!reference) {
      std::cerr << r.scene << ": error: " << error << '\n';
      return kDiagnostics;
    }
    if (!r.reference_output.empty() && !sim::write_png(r.reference_output, *reference, &error)) {
      std::cerr << "passlab-cli: " << error << '\n';
      return kDiagnostics;
    }
    if (!r.error_map.empty() &&
        !sim::write_png(r.error_map, sim::heat_image(sim::error_map(*image, *reference), image->width, image->height, 0.1f), &error)) {
      std::cerr << "passlab-cli: " << error << '\n';
      return kDiagnostics;
    }
    const sim::ImageError e = sim::image_error(*image, *reference);
    j["reference"] = {{"shading", r.reference},
                      {"spp", ref.spp},
                      {"shader_runs", ref_stats.shader_runs},
                      {"rmse", std::round(e.rmse * 1e6) / 1e6},
                      {"psnr_db", std::isfinite(e.psnr) ? std::round(e.psnr * 100) / 100 : 999.0},
                      {"max_abs", std::round(e.max_abs * 1e6) / 1e6}};
  }
  if (!r.sweep.empty()) {
    auto rows = sim::sweep(*scene, per_object, opt, axes, [](int i, int n) {
      std::cerr << fmt::format("\rsweep: render {} of {}", i + 1, n) << std::flush;
      return true;
    }, &error);
    std::cerr << '\n';
    if (rows.empty()) {
      std::cerr << r.scene << ": error: " << error << '\n';
      return kDiagnostics;
    }
    if (std::string why; !paths::write_atomically(r.sweep, sim::sweep_csv(rows, r.timing), &why)) {
      std::cerr << "passlab-cli: " << why << '\n';
      return kDiagnostics;
    }
  }
  if (r.stats == "json") {
    std::cout << lang::dump_json(j, 2) << '\n';
  } else if (r.stats == "text") {
    std::cout << fmt::format("{}x{} {} at {} spp: {} shader runs for {} covered pixels (shading rate {:.3f}), {} samples tested "
                             "(savings {:.2f}x), blur area {:.2f} px (a run seen in {:.2f} px), {}, {} passes, {:.1f} ms\n",
                             stats.width, stats.height, to_string(opt.shading), stats.spp, stats.shader_runs, stats.covered_pixels,
                             stats.shading_rate(), stats.samples_tested, stats.savings(), stats.blur_area, stats.seen_pixels,
                             sim::cache_summary(opt, stats), stats.passes, stats.milliseconds);
    const sim::HardwareStudy h = sim::hardware_study(opt, stats);
    const double total = std::max(1.0, h.total());
    std::cout << fmt::format("hardware model: bin spread {:.2f} tiles of {}x{} px (sort-middle, 128 kB tiles); shading cache {:.1f} MB "
                             "written, {:.1f} MB read; framebuffer {:.1f} MB; cost {:.1f} M instruction-equivalents (raster {:.0f}%, "
                             "decoupling {:.0f}%, shading {:.0f}%, vertices {:.0f}%)\n",
                             h.bin_spread, h.tile_side, h.tile_side, h.cache_write_bytes / 1e6, h.cache_read_bytes / 1e6,
                             h.framebuffer_bytes / 1e6, h.total() / 1e6, 100 * h.raster / total, 100 * h.decouple / total,
                             100 * h.shade / total, 100 * h.vertex / total);
    if (j.contains("reference"))
      std::cout << fmt::format("error against {}: RMSE {:.5f}, PSNR {:.2f} dB\n", r.reference, j["reference"]["rmse"].get<double>(),
                               j["reference"]["psnr_db"].get<double>());
  }
  return kOk;
}

}  // namespace passlab::cli
