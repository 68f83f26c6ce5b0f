// SPDX-License-Identifier: GPL-3.0-or-later
// Conformance checks in child processes: a crash or a hang of a backend is a finding with its
// program, not the end of the run; and several children at once use every core.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "session/conform/oracle.h"

namespace passlab::cli {

struct ConformJob {
  std::string path, text;
  std::optional<std::string> original;  // a transformation's source: it must compute the same
  std::string name;                     // for saving a failure (a file stem)
  std::string origin;                   // where it came from ("generated: --family rpu --seed 7")
  std::optional<conform::Family> family;  // generated for this family (its backends must take it)
  std::uint64_t transform_seed = 0;       // a transformation: its seed and its number of edits
  int transform_steps = 0;
};

// A report as JSON (what a child sends its parent, and `conform --format json`), and back.
nlohmann::json to_json(const conform::Report& r);
conform::Report report_from_json(const nlohmann::json& j);

// Checks one program in a child process and waits for it. A child that dies is a failure of
// kind "crash" (named after the signal), one that takes longer than `timeout` seconds a "hang".
conform::Report check_in_child(const conform::Oracle& oracle, const ConformJob& job, double timeout);

// Runs jobs from `next` (until it returns nothing) in up to `jobs` children at once, handing
// each report to `done` as it arrives (not necessarily in the jobs' order).
void check_in_children(const conform::Oracle& oracle, int jobs, double timeout, const std::function<std::optional<ConformJob>()>& next,
                       const std::function<void(const ConformJob&, conform::Report&)>& done);

}  // namespace passlab::cli
