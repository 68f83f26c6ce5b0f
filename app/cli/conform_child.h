// Conformance checks in child processes: a crash or a hang of a backend is a finding with its
// program, not the end of the run; and several children at once use every core.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "session/conform/oracle.h"

namespace passlab::cli {

struct ConformJob {
  std::string path, text;
  std::optional<std::string> original;  // a transformation's source: it must compute the same
  std::string name;                     // for saving a failure (a file stem)
  std::string origin;                   // where it came from ("generated: --family rpu --seed 7")
  std::optional<conform::Family> family;  // generated for this family (its backends must take it)
};

// Checks one program in a child process and waits for it. A child that dies is a failure of
// kind "crash" (named after the signal), one that takes longer than `timeout` seconds a "hang".
conform::Report check_in_child(const conform::Oracle& oracle, const ConformJob& job, double timeout);

// Runs jobs from `next` (until it returns nothing) in up to `jobs` children at once, handing
// each report to `done` as it arrives (not necessarily in the jobs' order).
void check_in_children(const conform::Oracle& oracle, int jobs, double timeout, const std::function<std::optional<ConformJob>()>& next,
                       const std::function<void(const ConformJob&, conform::Report&)>& done);

}  // namespace passlab::cli
