// SPDX-License-Identifier: GPL-3.0-or-later
// The machine model's figures as `rpu render --model` prints them.
#include "app/cli/rpu_model_report.h"

#include <cmath>

#include <fmt/format.h>

namespace passlab::cli {

namespace {

double rounded(double x) { return std::round(x * 1e6) / 1e6; }

double share(std::uint64_t part, std::uint64_t whole) { return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

constexpr rpu::Idle kCauses[] = {rpu::Idle::NoChunk, rpu::Idle::Arithmetic, rpu::Idle::Memory, rpu::Idle::Trace, rpu::Idle::TraceQueue};

}  // namespace

nlohmann::ordered_json model_json(const rpu::ModelStats& s) {
  nlohmann::ordered_json j;
  j["cores"] = s.cores;
  j["chunks_in_flight"] = s.chunks_in_flight;
  j["cycles"] = s.cycles;
  j["vm_cycles"] = s.vm_cycles;
  j["chunks"] = s.chunks;
  j["issues"] = s.issues;
  j["utilisation"] = rounded(s.utilisation());
  j["lane_utilisation"] = rounded(s.lane_utilisation());
  j["mean_chunks_in_flight"] = rounded(s.mean_in_flight());
  nlohmann::ordered_json idle;
  for (rpu::Idle c : kCauses) idle[rpu::idle_name(c)] = s.idle[static_cast<int>(c)];
  j["idle_cycles"] = idle;
  nlohmann::ordered_json t;
  t["pipelines"] = s.pipelines;
  t["rays"] = s.rays;
  t["occupancy"] = rounded(s.trace_occupancy());
  t["mean_queue_wait"] = rounded(s.mean_queue_wait());
  t["mean_ray_latency"] = rounded(s.mean_ray_latency());
  t["max_queue"] = s.max_queue;
  j["trace_unit"] = t;
  return j;
}

std::string model_text(const rpu::ModelStats& s) {
  std::string out = fmt::format("machine model    {} core(s), {} chunks in flight each\n", s.cores, s.chunks_in_flight);
  out += fmt::format("  cycles         {} ({:.2f}x fewer than the VM's {}, one chunk at a time)\n", s.cycles,
                     s.cycles ? static_cast<double>(s.vm_cycles) / static_cast<double>(s.cycles) : 0.0, s.vm_cycles);
  out += fmt::format("  utilisation    {:.4f} of issue cycles, {:.4f} of lanes; {:.2f} chunks in flight on average\n", s.utilisation(),
                     s.lane_utilisation(), s.mean_in_flight());
  out += "  idle cycles   ";
  const std::uint64_t slots = s.core_cycles();
  for (rpu::Idle c : kCauses)
    out += fmt::format(" {} {:.1f}%{}", rpu::idle_name(c), 100.0 * share(s.idle[static_cast<int>(c)], slots), c == rpu::Idle::TraceQueue ? "" : ",");
  out += "\n";
  out += fmt::format("  trace unit     {} rays, occupancy {:.4f} of {} pipeline(s), queue wait {:.1f} cycles a ray (longest queue {}), {:.1f} cycles from cast to HIT\n",
                     s.rays, s.trace_occupancy(), s.pipelines, s.mean_queue_wait(), s.max_queue, s.mean_ray_latency());
  return out;
}

std::string sweep_text(const std::vector<rpu::ModelStats>& sweep) {
  std::string out = "in flight      cycles  utilisation  trace unit  idle: arithmetic  memory  trace  queue full  no chunk\n";
  for (const rpu::ModelStats& s : sweep) {
    const std::uint64_t slots = s.core_cycles();
    auto pct = [&](rpu::Idle c) { return 100.0 * share(s.idle[static_cast<int>(c)], slots); };
    out += fmt::format("{:>9}  {:>10}  {:>11.4f}  {:>10.4f}  {:>15.1f}%  {:>5.1f}%  {:>4.1f}%  {:>9.1f}%  {:>7.1f}%\n", s.chunks_in_flight, s.cycles,
                       s.utilisation(), s.trace_occupancy(), pct(rpu::Idle::Arithmetic), pct(rpu::Idle::Memory), pct(rpu::Idle::Trace),
                       pct(rpu::Idle::TraceQueue), pct(rpu::Idle::NoChunk));
  }
  return out;
}

}  // namespace passlab::cli
