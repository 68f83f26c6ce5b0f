// SPDX-License-Identifier: GPL-3.0-or-later
// What the table-writing benchmarks (partition_bench, mrt_bench) share: the median of a run's
// times and the machine they ran on, as their tables quote it.
#pragma once

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace passlab::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// "AMD EPYC ... (2 cores)", from /proc/cpuinfo.
inline std::string machine() {
  std::ifstream cpu("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  int cores = 0;
  while (std::getline(cpu, line)) {
    if (line.rfind("model name", 0) == 0 && model == "unknown CPU") model = line.substr(line.find(':') + 2);
    if (line.rfind("processor", 0) == 0) ++cores;
  }
  return fmt::format("{} ({} cores)", model, cores);
}

}  // namespace passlab::bench
