// SPDX-License-Identifier: GPL-3.0-or-later
// passlab-cli conform: shaders (given, or generated at random) through every backend, each
// compared with the reference interpreter (session/conform/oracle.h). Each program runs in a child
// process (conform_child.h), so that a crash or a hang is a finding with its seed, not the end of
// the run; --jobs runs several at once.
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/conform_child.h"
#include "core/paths/atomic_file.h"
#include "session/conform/generator.h"
#include "session/conform/oracle.h"
#include "session/conform/reducer.h"
#include "session/conform/transform.h"
#include "core/lang/json_dump.h"

namespace passlab::cli {

namespace {

using conform::Check;
using conform::Outcome;
using conform::Report;
using Clock = std::chrono::steady_clock;

// The backend group a check counts toward in the acceptance shares: "fp PC3", "combiners
// geforce1", "rpu", "dag", ...
std::string group_of(const std::string& backend) {
  std::istringstream in(backend);
  std::string a, b;
  in >> a >> b;
  return (a == "fp" || a == "combiners") && !b.empty() ? a + " " + b : a;
}

struct Tally {
  long programs = 0, front_end = 0, failures = 0;
  std::map<std::string, std::pair<long, long>> groups;  // group -> (programs that reached it, accepted)
  void add(const Report& r) {
    ++programs;
    front_end += r.front_end_ok;
    failures += r.failed();
    std::map<std::string, bool> accepted;
    for (const Check& c : r.checks) {
      const std::string g = group_of(c.backend);
      auto it = accepted.find(g);
      const bool ok = c.outcome != Outcome::Refused;
      if (it == accepted.end()) accepted[g] = ok;
      else it->second = it->second && ok;
    }
    for (const auto& [g, ok] : accepted) {
      ++groups[g].first;
      groups[g].second += ok;
    }
  }
};

void print_report(const Report& r, bool verbose) {
  if (!r.front_end_ok && r.checks.empty()) {
    std::cout << fmt::format("{}: the front end rejects it\n{}", r.program, r.front_end);
    return;
  }
  int agree = 0, refused = 0, failed = 0;
  for (const Check& c : r.checks) {
    agree += c.outcome == Outcome::Agrees;
    refused += c.outcome == Outcome::Refused;
    failed += c.outcome == Outcome::Failed;
  }
  std::cout << fmt::format("{}: {} checks: {} agree, {} refused, {} failed\n", r.program, r.checks.size(), agree, refused, failed);
  std::set<std::string> said;
  for (const Check& c : r.checks) {
    if (c.outcome == Outcome::Failed) std::cout << fmt::format("  FAILED {} ({}): {}\n", c.backend, c.kind, c.detail);
    else if (verbose) std::cout << fmt::format("  {} {}: {} compared, {} undefined{}\n", conform::to_string(c.outcome), c.backend, c.compared, c.undefined,
                                               c.outcome == Outcome::Refused ? " - " + c.detail.substr(0, c.detail.find('\n')) : "");
    else if (c.outcome == Outcome::Refused && said.insert(group_of(c.backend)).second)
      std::cout << fmt::format("  refused by {}: {}\n", group_of(c.backend), c.detail.substr(0, c.detail.find('\n')));
  }
}

// The oracle family that runs a check ("" for all: a crash or a hang could be anywhere).
std::string family_of_check(const std::string& backend) {
  const std::string g = group_of(backend);
  if (g == "ir" || g == "transform") return "ir";
  if (g == "dag" || g.rfind("fp", 0) == 0) return "fragment";
  if (g.rfind("combiners", 0) == 0) return "combiners";
  if (g == "rpu") return "rpu";
  if (g == "decoupled") return "decoupled";
  return "";
}

bool read_file(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// Writes a reduced failure as a regression test: the program, with the seed and the failure in
// its first comment.
std::string save_reduced(const std::string& folder, const std::string& stem, const std::string& text, const std::string& header) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  const std::filesystem::path path = std::filesystem::path(folder) / (stem + ".sl");
  return paths::write_atomically(path, header + text) ? path.string() : "";
}

// One run of `conform` over its jobs: it makes them as they are asked for, tallies the reports,
// and reduces and saves the failures after the run.
class ConformRun {
 public:
  ConformRun(const ConformCliOptions& o, const conform::OracleOptions& oo, const conform::Oracle& oracle, std::vector<conform::Family> families,
             std::vector<std::pair<std::string, std::string>> files)
      : o(o), oo(oo), oracle(oracle), families(std::move(families)), files(std::move(files)), generating(o.generate > 0 || o.minutes > 0) {}

  int run() {
    check_in_children(oracle, o.jobs, o.timeout, [this] { return next(); }, [this](const ConformJob& job, Report& r) { done(job, r); });
    // The run's figures first, then the reductions (minutes each: a long run's summary must not
    // wait behind them, nor be lost when they are stopped).
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (generating || files.size() > 1 || o.transforms > 0) {
      std::cout << fmt::format("\n{} programs in {:.1f} s ({:.2f} per second, {} at once); the front end accepted {}; {} failed\n", tally.programs, s,
                               s > 0 ? tally.programs / s : 0.0, o.jobs, tally.front_end, tally.failures);
      std::cout << "accepted by (programs that reached the backend and were not refused):\n";
      for (const auto& [g, n] : tally.groups)
        std::cout << fmt::format("  {:<20} {:>7} / {:<7} {:5.1f}%\n", g, n.second, n.first, n.first ? 100.0 * n.second / n.first : 0.0);
      std::cout.flush();
    }
    if (!failed.empty() && (o.reduce || !o.save.empty())) std::cout << fmt::format("\n{} {} failing program{}:\n", o.reduce ? "reducing" : "saving", failed.size(), failed.size() == 1 ? "" : "s");
    for (const auto& [job, r] : failed) {
      if (o.reduce || !o.save.empty()) std::cout << fmt::format("{} ({})\n", job.name, r.signature());
      reduce_and_save(job, r);
      std::cout.flush();
    }
    if (!saved.empty()) std::cout << fmt::format("failing programs saved in {}\n", o.save);
    return any_failure ? kDiagnostics : kOk;
  }

 private:
  // The jobs, made as they are asked for: the files, each file's transformations, then
  // generated programs (--generate N per family, or until --minutes have passed).
  std::optional<ConformJob> next() {
    while (file_at < files.size()) {
      const auto& [file, text] = files[file_at];
      const std::string stem = std::filesystem::path(file).stem().string();
      if (transform_at == 0) {
        ++transform_at;
        ConformJob j;
        j.path = file;
        j.text = text;
        j.name = stem;
        j.origin = "from " + file;
        return j;
      }
      if (transform_at <= o.transforms) {
        conform::TransformOptions to;
        to.seed = o.seed + static_cast<std::uint64_t>(transform_at - 1);
        ++transform_at;
        const conform::Transformed t = conform::transform(file, text, to, o.include_paths);
        if (!t.ok) {
          std::cerr << fmt::format("{}: cannot transform: {}\n", file, t.error);
          transform_at = o.transforms + 1;
          continue;
        }
        ConformJob j;
        j.path = file;
        j.text = t.text;
        j.original = text;
        j.name = fmt::format("{}_t{}", stem, to.seed);
        j.origin = fmt::format("from {}, transform seed {} ({})", file, to.seed, t.summary);
        j.transform_seed = to.seed;
        j.transform_steps = to.steps;
        return j;
      }
      ++file_at;
      transform_at = 0;
    }
    if (!generating) return std::nullopt;
    if (o.generate > 0 && gen_at >= static_cast<std::uint64_t>(o.generate)) return std::nullopt;
    if (o.minutes > 0 && std::chrono::duration<double>(Clock::now() - start).count() > o.minutes * 60) return std::nullopt;
    conform::GeneratorOptions g;
    g.seed = o.seed + gen_at;
    g.family = families[family_at];
    g.statements = o.statements;
    if (++family_at == families.size()) {
      family_at = 0;
      ++gen_at;
    }
    const conform::GeneratedProgram p = conform::generate(g);
    ConformJob j;
    j.path = p.name + ".sl";
    j.text = p.source;
    j.name = p.name;
    j.origin = fmt::format("generated: --family {} --seed {}", conform::to_string(g.family), g.seed);
    j.family = g.family;
    return j;
  }

  // Failures are reduced after the run: reducing takes minutes, and while the parent reduces,
  // the checks in flight would wait unanswered and count as hangs.
  void done(const ConformJob& job, Report& r) {
    if (job.family) conform::expect_acceptance(r, *job.family);
    if (job.original) r.program = job.path + " (" + job.origin.substr(job.origin.find("transform")) + ")";
    tally.add(r);
    ++seen;
    const bool rejected = !r.front_end_ok && !r.recursion && r.checks.empty();
    if (job.family && rejected) {
      // The generator promises programs that check: a rejection is a finding too.
      any_failure = true;
      ++tally.failures;
      std::cout << fmt::format("FAILED {} ({}): the front end rejects a generated program\n{}", job.name, job.origin, r.front_end);
      failed.push_back({job, r});
    } else if (r.failed()) {
      any_failure = true;
      if (!job.family && !job.original && o.format == "json") std::cout << lang::dump_json(to_json(r), 1) << '\n';
      else if (!job.family && !job.original) print_report(r, o.verbose);
      else {
        const Check& c = *r.first_failure();
        std::cout << fmt::format("FAILED {} ({}): {} ({}): {}\n", job.name, job.origin, c.backend, c.kind, c.detail);
      }
      failed.push_back({job, r});
    } else if (!job.family && !job.original) {
      if (o.format == "json") std::cout << lang::dump_json(to_json(r), 1) << '\n';
      else print_report(r, o.verbose);
    } else if (o.verbose) {
      print_report(r, true);
    }
    if (o.progress > 0 && seen % o.progress == 0) {
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      std::cout << fmt::format("... {} programs in {:.0f} s ({:.1f} per second), {} failed\n", tally.programs, s, tally.programs / s, tally.failures);
    }
    std::cout.flush();
  }

  // A failing program, shrunk while it fails the same way (checked by an oracle that runs only
  // the failing backend's family, and target), saved with where it came from.
  void reduce_and_save(const ConformJob& job, const Report& r) {
    std::string reduced = job.text;
    std::string origin = job.origin;
    const conform::Check* failing_check = r.first_failure();
    if (o.reduce && failing_check && failing_check->backend == "transform" && job.original) {
      // The transformation changed what the program computes: the fewest of its edits (the
      // same seed's first k) that still do, saved beside the file they apply to.
      for (int k = 1; k <= job.transform_steps; ++k) {
        conform::TransformOptions to;
        to.seed = job.transform_seed;
        to.steps = k;
        const conform::Transformed t = conform::transform(job.path, *job.original, to, o.include_paths);
        if (!t.ok) break;
        ConformJob c = job;
        c.text = t.text;
        if (conform::same_failure(check_in_child(oracle, c, o.timeout), r)) {
          reduced = t.text;
          origin = fmt::format("from {}, transform seed {}, its first {} edit{} ({})", job.path, job.transform_seed, k, k == 1 ? "" : "s", t.summary);
          std::cout << fmt::format("  reduced to the first {} of {} edits\n", k, job.transform_steps);
          break;
        }
      }
    } else if (o.reduce) {
      conform::OracleOptions ro = oo;
      const std::string failing = failing_check ? failing_check->backend : "";
      const std::string only = family_of_check(failing);
      if (!only.empty()) ro.only = {only};
      if (only == "fragment" || only == "combiners") {
        const std::string g = group_of(failing);  // "fp PC3": the target alone
        if (g.find(' ') != std::string::npos) ro.targets = {g.substr(g.find(' ') + 1)};
      }
      const conform::Oracle narrow(ro);
      conform::ReduceOptions rd;
      // A candidate that hangs where the original did not is not interesting: it need not be
      // waited for as long (unless the failure is the hang).
      const bool hang = failing_check && failing_check->kind == "hang";
      rd.timeout = hang ? o.timeout : std::min(o.timeout, 20.0);
      rd.include_paths = o.include_paths;
      rd.path = job.path;
      conform::ReduceStats stats;
      // A backend's failure on a transformed program is the transformed program's own: reduced
      // against its own reference, without the original.
      ConformJob base = job;
      base.original.reset();
      reduced = conform::reduce(job.text, [&](const std::string& candidate) {
        ConformJob c = base;
        c.text = candidate;
        Report cr = check_in_child(narrow, c, rd.timeout);
        if (job.family) conform::expect_acceptance(cr, *job.family);
        return conform::same_failure(cr, r);
      }, rd, &stats);
      std::cout << fmt::format("  reduced {} bytes to {} in {} tests\n", stats.original_bytes, stats.reduced_bytes, stats.tests);
    }
    if (o.save.empty()) return;
    const std::string header = fmt::format("// {}\n// fails: {}\n", origin, r.signature());
    const std::string where = save_reduced(o.save, job.name, reduced, header);
    if (!where.empty()) saved.push_back(where);
    std::cout << fmt::format("  {} saved as {}\n", o.reduce ? "reduced" : "program", where.empty() ? "(could not write)" : where);
  }

  const ConformCliOptions& o;
  const conform::OracleOptions& oo;
  const conform::Oracle& oracle;
  const std::vector<conform::Family> families;
  const std::vector<std::pair<std::string, std::string>> files;  // path, text
  const bool generating;
  const Clock::time_point start = Clock::now();
  Tally tally;
  std::vector<std::string> saved;
  std::size_t file_at = 0;
  int transform_at = 0;
  std::uint64_t gen_at = 0;
  std::size_t family_at = 0;
  bool any_failure = false;
  long seen = 0;
  std::vector<std::pair<ConformJob, Report>> failed;
};

}  // namespace

int run_conform(const ConformCliOptions& o) {
  conform::OracleOptions oo;
  oo.fragments = o.fragments;
  oo.only = o.only;
  oo.include_paths = o.include_paths;
  const conform::Oracle oracle(oo);
  if (!oracle.ok()) {
    std::cerr << "passlab-cli: " << oracle.error() << '\n';
    return kDiagnostics;
  }
  std::vector<conform::Family> families;
  for (const std::string& f : o.families) {
    if (f == "all") families = {conform::Family::Fragment, conform::Family::Combiners, conform::Family::Rpu};
    else if (auto fam = conform::family_from_string(f)) families.push_back(*fam);
    else {
      std::cerr << "passlab-cli: --family: unknown family '" << f << "' (fragment, combiners, rpu or all)\n";
      return kUsage;
    }
  }
  if (families.empty()) families = {conform::Family::Fragment, conform::Family::Combiners, conform::Family::Rpu};

  if (o.print && !o.files.empty()) {
    // The transformations --transforms N would check, one after another.
    for (const std::string& file : o.files) {
      std::string text;
      if (!read_file(file, &text)) {
        std::cerr << "passlab-cli: cannot read " << file << '\n';
        return kDiagnostics;
      }
      for (int k = 0; k < std::max(1, o.transforms); ++k) {
        conform::TransformOptions to;
        to.seed = o.seed + static_cast<std::uint64_t>(k);
        const conform::Transformed t = conform::transform(file, text, to, o.include_paths);
        if (!t.ok) {
          std::cerr << fmt::format("{}: cannot transform: {}\n", file, t.error);
          return kDiagnostics;
        }
        std::cout << fmt::format("// {}, transform seed {}: {}\n{}", file, to.seed, t.summary, t.text);
      }
    }
    return kOk;
  }
  if (o.print) {
    for (conform::Family f : families) {
      conform::GeneratorOptions g;
      g.seed = o.seed;
      g.family = f;
      g.statements = o.statements;
      std::cout << conform::generate(g).source;
    }
    return kOk;
  }

  // The texts of the given files, read before anything runs.
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& file : o.files) {
    std::string text;
    if (!read_file(file, &text)) {
      std::cerr << "passlab-cli: cannot read " << file << '\n';
      return kDiagnostics;
    }
    files.push_back({file, std::move(text)});
  }

  return ConformRun(o, oo, oracle, std::move(families), std::move(files)).run();
}

}  // namespace passlab::cli
