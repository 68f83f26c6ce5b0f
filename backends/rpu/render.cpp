// SPDX-License-Identifier: GPL-3.0-or-later
// Rendering on the RPU: rows of 2x2-pixel chunks shared among host threads.
#include "backends/rpu/render.h"

#include <algorithm>
#include <chrono>

#include "core/sim/parallel.h"

namespace passlab::rpu {

std::array<Vec4, 32> scene_constants(const sim::Scene& scene, const SceneData& data, const Program& program) {
  std::array<Vec4, 32> c{};
  c[0] = {scene.light.from.x, scene.light.from.y, scene.light.from.z, 1};
  c[1] = {scene.light.color.x, scene.light.color.y, scene.light.color.z, 1};
  c[30] = {scene.background[0], scene.background[1], scene.background[2], scene.background[3]};
  // Secondary rays start on a surface: ignore hits closer than a ten-thousandth of the scene.
  c[31] = {1e-4f * data.extent(), 1e30f, 0, static_cast<float>(scene.ray_depth)};
  for (const auto& [index, v] : program.constants) c[index] = v;
  return c;
}

RenderResult render(const Program& program, std::uint32_t main_entry, const SceneData& data, const sim::Scene& scene,
                    const RenderOptions& options) {
  const int w = options.width > 0 ? options.width : scene.width;
  const int h = options.height > 0 ? options.height : scene.height;
  RenderResult out;
  out.image = sim::Image(w, h, {0, 0, 0, 1});
  const std::size_t pixels = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  out.pixel_instructions.assign(pixels, 0);
  out.pixel_cycles.assign(pixels, 0);
  out.pixel_stalls.assign(pixels, 0);
  out.pixel_splits.assign(pixels, 0);
  out.pixel_occupancy.assign(pixels, 1.0f);
  const std::array<Vec4, 32> constants = scene_constants(scene, data, program);
  const int rows = (h + 1) / 2;
  struct RowResult {
    VmStats stats;
    std::vector<std::string> faults;
    std::uint64_t fault_count = 0;
  };
  std::vector<RowResult> per_row(static_cast<std::size_t>(rows));
  VmOptions vo;
  vo.machine = options.machine;
  vo.ieee = options.ieee;
  const int threads = options.threads > 0 ? options.threads : sim::hardware_threads();
  // The caller's cancel and the time limit, either of which stops the rows not yet started.
  std::atomic<bool> stop{false};
  std::atomic<bool> timed_out{false};
  std::atomic<int> rows_done{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(options.time_limit_s > 0 ? options.time_limit_s : 0));
  auto should_stop = [&] {
    if (options.cancel && options.cancel->load()) stop = true;
    if (options.time_limit_s > 0 && std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
      stop = true;
    }
    return stop.load();
  };
  // With the model: each chunk's issue trace, per row of the batch being rendered.
  const int cols = (w + 1) / 2;
  std::vector<std::vector<IssueTrace>> row_traces;
  auto render_row = [&](int row) {
    if (should_stop()) return;
    Vm vm(program, vo);  // decoding is cheap next to a row of pixels; each host thread owns its VM
    vm.constants() = constants;
    vm.set_memory(&data.memory());
    vm.set_trace_unit(options.trace_unit ? options.trace_unit : &data);
    std::vector<IssueTrace>* traces = options.model ? &row_traces[static_cast<std::size_t>(row) % row_traces.size()] : nullptr;
    if (traces) traces->assign(static_cast<std::size_t>(cols), IssueTrace{});
    RowResult& rr = per_row[static_cast<std::size_t>(row)];
    std::array<Vec4, 4> r0{};
    std::array<std::pair<int, int>, 4> pixel{};
    Vm::FreshResult result;
    for (int x0 = 0; x0 < w; x0 += 2) {
      if (options.time_limit_s > 0 && should_stop()) return;
      int n = 0;
      std::array<std::uint8_t, 4> positions{};
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
          const int x = x0 + dx, y = 2 * row + dy;
          if (x >= w || y >= h) continue;
          r0[static_cast<std::size_t>(n)] = {(static_cast<float>(x) + 0.5f) / static_cast<float>(w), (static_cast<float>(y) + 0.5f) / static_cast<float>(h), 0, 0};
          pixel[static_cast<std::size_t>(n)] = {x, y};
          positions[static_cast<std::size_t>(n)] = static_cast<std::uint8_t>(2 * dy + dx);
          ++n;
        }
      vm.set_quad_positions(positions);
      VmStats chunk;
      if (traces) vm.set_issue_trace(&(*traces)[static_cast<std::size_t>(x0 / 2)]);
      if (options.lanes == 1) {
        // Each pixel alone: the same results, gathered as if the chunk had run them.
        Vm::FreshResult one;
        for (int k = 0; k < n; ++k) {
          const auto ki = static_cast<std::size_t>(k);
          vm.run_fresh_chunk(main_entry, std::span<const Vec4>(&r0[ki], 1), chunk, one);
          result.r0[ki] = one.r0[0];
          result.status[ki] = one.status[0];
          result.steps[ki] = one.steps[0];
          result.fault[ki] = one.fault[0];
        }
      } else {
        vm.run_fresh_chunk(main_entry, std::span<const Vec4>(r0.data(), static_cast<std::size_t>(n)), chunk, result);
      }
      rr.stats += chunk;
      auto clip = [](std::uint64_t v) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, UINT32_MAX)); };
      for (int k = 0; k < n; ++k) {
        const auto ki = static_cast<std::size_t>(k);
        const auto [x, y] = pixel[ki];
        float* px = out.image.at(x, y);
        const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
        out.pixel_instructions[at] = clip(result.steps[ki]);
        out.pixel_cycles[at] = clip(chunk.cycles);
        out.pixel_stalls[at] = clip(chunk.stalls);
        out.pixel_splits[at] = clip(chunk.splits);
        out.pixel_occupancy[at] = static_cast<float>(chunk.occupancy());
        if (result.status[ki] == ThreadStatus::Faulted) {
          px[0] = 1;
          px[1] = 0;
          px[2] = 1;
          ++rr.fault_count;
          if (rr.faults.size() < 8) rr.faults.push_back("pixel (" + std::to_string(x) + ", " + std::to_string(y) + "): " + result.fault[ki]);
          continue;
        }
        px[0] = result.r0[ki][0];
        px[1] = result.r0[ki][1];
        px[2] = result.r0[ki][2];
        px[3] = 1;
      }
    }
    ++rows_done;
  };
  if (!options.model) {
    sim::parallel_for(rows, threads, &stop, render_row);
  } else {
    // Rows in batches, each batch's chunks then pushed to the model in order and let go.
    // One model per distinct number of chunks in flight, the machine's own first; the sweep's
    // share them. Each batch of chunks goes to every model, the models side by side.
    const Machine& machine = options.machine ? *options.machine : default_machine();
    std::vector<Machine> machines{machine};
    std::vector<std::size_t> sweep_model;
    for (int n : options.sweep_in_flight) {
      const int in_flight = std::max(1, n);
      auto it = std::find_if(machines.begin(), machines.end(), [&](const Machine& m) { return m.chunks_in_flight == in_flight; });
      if (it == machines.end()) {
        machines.push_back(machine);
        machines.back().chunks_in_flight = in_flight;
        it = machines.end() - 1;
      }
      sweep_model.push_back(static_cast<std::size_t>(it - machines.begin()));
    }
    std::vector<MachineModel> models;
    models.reserve(machines.size());
    for (const Machine& m : machines) models.emplace_back(m);
    const int batch = std::max(2, 2 * threads);
    row_traces.resize(static_cast<std::size_t>(batch));
    for (int first = 0; first < rows && !stop; first += batch) {
      const int count = std::min(batch, rows - first);
      sim::parallel_for(count, threads, &stop, [&](int k) { render_row(first + k); });
      if (stop) break;
      sim::parallel_for(static_cast<int>(models.size()), threads, &stop, [&](int mi) {
        for (int k = 0; k < count; ++k)
          for (const IssueTrace& t : row_traces[static_cast<std::size_t>(first + k) % row_traces.size()]) models[static_cast<std::size_t>(mi)].push(t);
      });
    }
    sim::parallel_for(static_cast<int>(models.size()), threads, nullptr, [&](int mi) { models[static_cast<std::size_t>(mi)].finish(); });
    const MachineModel& model = models.front();
    out.model = model.stats();
    for (std::size_t mi : sweep_model) out.sweep.push_back(models[mi].stats());
    out.pixel_model_cycles.assign(pixels, 0);
    out.pixel_trace_share.assign(pixels, 0.0f);
    const std::vector<ChunkTiming>& timing = model.chunks();
    for (std::size_t k = 0; k < timing.size(); ++k) {
      const int row = static_cast<int>(k / static_cast<std::size_t>(cols)), x0 = 2 * static_cast<int>(k % static_cast<std::size_t>(cols));
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
          const int x = x0 + dx, y = 2 * row + dy;
          if (x >= w || y >= h) continue;
          const std::size_t p = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
          out.pixel_model_cycles[p] = static_cast<std::uint32_t>(std::min<std::uint64_t>(timing[k].resident(), UINT32_MAX));
          out.pixel_trace_share[p] = static_cast<float>(timing[k].trace_share());
        }
    }
  }
  out.cancelled = options.cancel && options.cancel->load();
  out.timed_out = timed_out.load();
  out.rows_done = rows_done.load();
  out.rows = rows;
  for (const RowResult& rr : per_row) {
    out.stats += rr.stats;
    out.fault_count += rr.fault_count;
    for (const std::string& f : rr.faults)
      if (out.faults.size() < 8) out.faults.push_back(f);
  }
  return out;
}

}  // namespace passlab::rpu
