// SPDX-License-Identifier: GPL-3.0-or-later
// The partitioning algorithms by name: the CLI's --algo, the Studio's algorithm boxes and Compare
// columns, the render jobs and the benchmarks enumerate this list, so that a new algorithm is its
// own file, its declaration in algorithms.h and one entry in registry.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/partition/algorithms.h"

namespace passlab::partition {

// What a caller hands an algorithm besides the problem and the backend.
struct RunRequest {
  AlgorithmOptions options;          // cost model and trace
  OptimalOptions search;             // budget, progress, cancel, memory: for algorithms that search
  std::span<const Partition> known;  // partitions others found for this problem (a search starts from the best)
};

struct Algorithm {
  std::string_view name;     // what --algo, projects and JSON say: "rdsh"
  std::string_view label;    // what columns and menus show: "RDSh"
  std::string_view summary;  // one line for help texts and tooltips
  // Cheap enough to run with every compile (the Studio runs it on each edit); otherwise it runs on
  // demand, within RunRequest::search's budget, and reports progress.
  bool every_edit = true;
  // Records each decision to AlgorithmOptions::trace, a trace worth stepping (the Studio's trace
  // player offers it); the others record at most their milestones.
  bool traces = true;
  bool exact = false;  // proves optimality when it finishes: the others are measured against it
  Partition (*run)(const Problem&, Backend&, const RunRequest&) = nullptr;
  // Writes several render targets per pass: listed (in Compare, the algorithm boxes, `--algo
  // all`) only for targets whose passes may (Limits::render_targets other than 1).
  bool multiple_outputs = false;
};

// In the order columns and `--algo all` list them: the heuristics first, then the searches.
std::span<const Algorithm> algorithms();
// Those a target with `limits` lists: all but the multiple-output ones where a pass writes one.
std::vector<const Algorithm*> algorithms_for(const Limits& limits);
const Algorithm* find_algorithm(std::string_view name);  // null for an unknown name
// The names joined by `separator`, for help texts ("rdsh, rds, optimal").
std::string algorithm_names(std::string_view separator = ", ");

// The algorithm the Studio's panels and the CLI's partition and render commands show by default.
inline constexpr std::string_view kDefaultAlgorithm = "rds";

}  // namespace passlab::partition
