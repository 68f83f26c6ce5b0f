// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli render: a scene rendered with its shaders partitioned into passes, the passes'
// intermediate values kept per pixel (render-to-texture) or per fragment (F-buffer).
#include <iostream>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/render_request.h"
#include "session/render_job.h"
#include "core/lang/json_dump.h"

namespace passlab::cli {

namespace {

// "N" or "WxH"; false when neither.
bool parse_count(const std::string& text, long* n, long* w = nullptr, long* h = nullptr) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex(R"((\d{1,6})x(\d{1,6}))"))) {
    if (w) *w = std::stol(m[1]);
    if (h) *h = std::stol(m[2]);
    *n = std::stol(m[1]) * std::stol(m[2]);
    return *n > 0;
  }
  if (std::regex_match(text, std::regex(R"(\d{1,11})"))) {
    *n = std::stol(text);
    return *n > 0;
  }
  return false;
}

}  // namespace

bool render_request(const CommonOptions& o, const RenderCliOptions& r, session::RenderRequest* request) {
  session::RenderRequest& req = *request;
  req.shader = o.file;
  req.lights = o.lights;
  req.include_paths = o.include_paths;
  req.defines = program_options(o).defines;
  req.aov = o.aov;
  req.all_outputs = o.all_outputs;
  req.target = r.target;
  req.cost = r.cost;
  req.algorithm = r.algo;
  req.shading.hardware_precision = r.precision == "hardware";
  auto& opt = req.options;
  opt.storage = r.store == "single" ? sim::Storage::SinglePass : r.store == "rtt" ? sim::Storage::RenderToTexture : sim::Storage::FBuffer;
  opt.overflow = r.overflow == "restart" ? sim::Overflow::Restart : sim::Overflow::Window;
  opt.supersample = r.supersample;
  opt.multisample = r.multisample;
  opt.threads = r.threads;
  if (!r.fbuffer_size.empty() && !parse_count(r.fbuffer_size, &opt.fbuffer_slots)) {
    std::cerr << "passlab-cli: --fbuffer-size must be a number of fragments or WxH, not \"" << r.fbuffer_size << "\"\n";
    return false;
  }
  if (!r.size.empty()) {
    long n = 0, w = 0, h = 0;
    if (!parse_count(r.size, &n, &w, &h) || w < 1 || h < 1 || w > 16384 || h > 16384) {
      std::cerr << "passlab-cli: --size must be WxH with sides from 1 to 16384, not \"" << r.size << "\"\n";
      return false;
    }
    opt.width = static_cast<int>(w);
    opt.height = static_cast<int>(h);
  }
  return true;
}

int run_render(const CommonOptions& o, const RenderCliOptions& r) {
  if (r.spp > 0 || !r.shading.empty() || !r.sweep.empty() || r.accumulate) return run_decoupled_render(o, r);
  session::RenderRequest req;
  if (!render_request(o, r, &req)) return kUsage;
  const auto& opt = req.options;
  session::RenderOutcome out = session::render_scene(r.scene, req);
  if (!out.diagnostics.empty()) std::cerr << out.diagnostics;
  if (!out.image) return kDiagnostics;
  std::string error;
  if (!sim::write_png(r.output, *out.image, &error)) {
    std::cerr << "passlab-cli: " << error << '\n';
    return kDiagnostics;
  }
  const sim::RenderStats& s = out.stats;
  if (r.stats == "json") {
    nlohmann::ordered_json j;
    j["store"] = r.store;
    if (opt.storage == sim::Storage::FBuffer) {
      j["fbuffer_slots"] = opt.fbuffer_slots;
      j["overflow_policy"] = r.overflow;
    }
    j["width"] = out.image->width;
    j["height"] = out.image->height;
    if (opt.multisample > 1) j["multisample"] = opt.multisample;
    if (opt.supersample > 1) j["supersample"] = opt.supersample;
    nlohmann::ordered_json shaders = nlohmann::ordered_json::array();
    for (const auto& sh : out.shaders)
      shaders.push_back({{"shader", sh.path}, {"passes", sh.passes}, {"cost", sh.cost}, {"checked", sh.partition_checked}});
    j["shaders"] = shaders;
    j["passes"] = s.passes;
    j["geometry_submissions"] = s.geometry_submissions;
    j["fragments_rasterized"] = s.fragments_rasterized;
    j["fragments_shaded"] = s.fragments_shaded;
    j["bytes_written"] = s.bytes_written;
    j["bytes_read"] = s.bytes_read;
    j["overflows"] = s.overflows;
    j["windows"] = s.windows;
    std::cout << lang::dump_json(j, 2) << '\n';
  } else if (r.stats == "text") {
    std::cout << fmt::format("{}x{} {}: {} passes, {} geometry submissions, {} fragments rasterized, {} shaded, "
                             "{} bytes of intermediates written, {} read, {} overflows, {} windows, {:.1f} ms\n",
                             out.image->width, out.image->height, r.store, s.passes, s.geometry_submissions,
                             s.fragments_rasterized, s.fragments_shaded, s.bytes_written, s.bytes_read, s.overflows,
                             s.windows, s.milliseconds);
  }
  return kOk;
}

}  // namespace passlab::cli
