// passlab-cli conform: shaders (given, or generated at random) through every backend, each
// compared with the reference interpreter (session/conform/oracle.h). Each program runs in a child
// process, so that a crash or a hang is a finding with its seed, not the end of the run.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
#include "session/conform/generator.h"
#include "session/conform/oracle.h"
#include "session/conform/reducer.h"
#include "session/conform/transform.h"

namespace passlab::cli {

namespace {

using conform::Check;
using conform::Outcome;
using conform::Report;
using Clock = std::chrono::steady_clock;

nlohmann::json to_json(const Report& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const Check& c : r.checks)
    checks.push_back({{"backend", c.backend}, {"outcome", conform::to_string(c.outcome)}, {"kind", c.kind}, {"detail", c.detail},
                      {"compared", c.compared}, {"undefined", c.undefined},
                      {"difference", std::isfinite(c.difference) ? c.difference : -1.0f}});
  return {{"program", r.program}, {"front_end_ok", r.front_end_ok}, {"recursion", r.recursion}, {"front_end", r.front_end}, {"checks", checks}};
}

Report from_json(const nlohmann::json& j) {
  Report r;
  r.program = j.value("program", "");
  r.front_end_ok = j.value("front_end_ok", false);
  r.recursion = j.value("recursion", false);
  r.front_end = j.value("front_end", "");
  for (const auto& c : j.at("checks")) {
    Check k;
    k.backend = c.value("backend", "");
    const std::string o = c.value("outcome", "");
    k.outcome = o == "FAILED" ? Outcome::Failed : o == "refused" ? Outcome::Refused : Outcome::Agrees;
    k.kind = c.value("kind", "");
    k.detail = c.value("detail", "");
    k.compared = c.value("compared", 0);
    k.undefined = c.value("undefined", 0);
    const float d = c.value("difference", 0.0f);
    k.difference = d < 0 ? INFINITY : d;
    r.checks.push_back(std::move(k));
  }
  return r;
}

// Checks one program in a child process. A crash is a failure named after the signal, and a
// program that takes longer than `timeout` seconds a hang.
Report isolated_check(const conform::Oracle& oracle, const std::string& path, const std::string& text, double timeout,
                      const std::string* original = nullptr) {
  int fds[2];
  if (pipe(fds) != 0) return oracle.check(path, text, original);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return oracle.check(path, text, original);
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string out = to_json(oracle.check(path, text, original)).dump();
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  const auto start = Clock::now();
  bool hung = false;
  for (;;) {
    const double left = timeout - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) {
      hung = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (ready <= 0) continue;
    char buf[65536];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (hung) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  Report r;
  r.program = path;
  if (hung || WIFSIGNALED(status) || got.empty()) {
    r.front_end_ok = true;
    Check k{"process"};
    k.outcome = Outcome::Failed;
    k.kind = hung ? "hang" : "crash";
    k.detail = hung ? fmt::format("no answer within {} s", timeout)
                    : WIFSIGNALED(status) ? fmt::format("the checks died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)))
                                          : "the checks ended without an answer";
    r.checks.push_back(std::move(k));
    return r;
  }
  try {
    return from_json(nlohmann::json::parse(got));
  } catch (const std::exception& e) {
    Check k{"process"};
    k.outcome = Outcome::Failed;
    k.kind = "crash";
    k.detail = std::string("unreadable answer: ") + e.what();
    r.checks.push_back(std::move(k));
    return r;
  }
}

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
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << header << text;
    if (!out) return "";
  }
  std::filesystem::rename(tmp, path, ec);
  return ec ? "" : path.string();
}

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

  if (o.print) {
    for (conform::Family f : families) {
      conform::GeneratorOptions g;
      g.seed = o.seed;
      g.family = f;
      std::cout << conform::generate(g).source;
    }
    return kOk;
  }

  Tally tally;
  bool any_failure = false;
  const auto start = Clock::now();
  // A failing program, shrunk while it fails the same way (checked by an oracle that runs only
  // the failing backend's family), saved with where it came from.
  auto reduce_and_save = [&](const std::string& name, const std::string& text, const Report& r, const std::string& origin,
                             std::optional<conform::Family> family, const std::string* original) {
    std::string reduced = text;
    if (o.reduce) {
      conform::OracleOptions ro = oo;
      const std::string failing = r.first_failure() ? r.first_failure()->backend : "";
      const std::string only = family_of_check(failing);
      if (!only.empty()) ro.only = {only};
      if (only == "fragment" || only == "combiners") {
        const std::string g = group_of(failing);  // "fp PC3": the target alone
        if (g.find(' ') != std::string::npos) ro.targets = {g.substr(g.find(' ') + 1)};
      }
      const conform::Oracle narrow(ro);
      conform::ReduceOptions rd;
      rd.timeout = o.timeout;
      rd.include_paths = o.include_paths;
      rd.path = name + ".sl";
      conform::ReduceStats stats;
      reduced = conform::reduce(text, [&](const std::string& candidate) {
        Report c = isolated_check(narrow, name + ".sl", candidate, o.timeout, original);
        if (family) conform::expect_acceptance(c, *family);
        return conform::same_failure(c, r);
      }, rd, &stats);
      std::cout << fmt::format("  reduced {} bytes to {} in {} tests\n", stats.original_bytes, stats.reduced_bytes, stats.tests);
    }
    if (o.save.empty()) return;
    const std::string header = fmt::format("// {}\n// fails: {}\n", origin, r.signature());
    const std::string where = save_reduced(o.save, name, reduced, header);
    std::cout << fmt::format("  {} saved as {}\n", o.reduce ? "reduced" : "program", where.empty() ? "(could not write)" : where);
  };

  // Given files, and with --transform their semantics-preserving variants.
  for (const std::string& file : o.files) {
    std::string text;
    if (!read_file(file, &text)) {
      std::cerr << "passlab-cli: cannot read " << file << '\n';
      return kDiagnostics;
    }
    Report r = isolated_check(oracle, file, text, o.timeout);
    tally.add(r);
    if (o.format == "json") std::cout << to_json(r).dump(1) << '\n';
    else print_report(r, o.verbose);
    if (r.failed()) {
      any_failure = true;
      reduce_and_save(std::filesystem::path(file).stem().string(), text, r, "from " + file, std::nullopt, nullptr);
    }
    for (int k = 0; k < o.transforms; ++k) {
      conform::TransformOptions to;
      to.seed = o.seed + static_cast<std::uint64_t>(k);
      const conform::Transformed t = conform::transform(file, text, to, o.include_paths);
      if (!t.ok) {
        std::cerr << fmt::format("{}: cannot transform: {}\n", file, t.error);
        break;
      }
      Report tr = isolated_check(oracle, file, t.text, o.timeout, &text);
      tr.program = fmt::format("{} (transform seed {}: {})", file, to.seed, t.summary);
      tally.add(tr);
      if (tr.failed() || o.verbose) print_report(tr, o.verbose);
      if (tr.failed()) {
        any_failure = true;
        reduce_and_save(fmt::format("{}_t{}", std::filesystem::path(file).stem().string(), to.seed), t.text, tr,
                        fmt::format("from {}, transform seed {}", file, to.seed), std::nullopt, &text);
      }
    }
  }

  // Generated programs: --generate N per family, or until --minutes have passed.
  const bool generating = o.generate > 0 || o.minutes > 0;
  for (std::uint64_t i = 0; generating; ++i) {
    if (o.generate > 0 && i >= static_cast<std::uint64_t>(o.generate)) break;
    if (o.minutes > 0 && std::chrono::duration<double>(Clock::now() - start).count() > o.minutes * 60) break;
    for (conform::Family f : families) {
      conform::GeneratorOptions g;
      g.seed = o.seed + i;
      g.family = f;
      g.statements = o.statements;
      const conform::GeneratedProgram p = conform::generate(g);
      Report r = isolated_check(oracle, p.name + ".sl", p.source, o.timeout);
      conform::expect_acceptance(r, f);
      tally.add(r);
      if (!r.front_end_ok && !r.recursion && r.checks.empty()) {
        // The generator promises programs that check: a rejection is a finding too.
        any_failure = true;
        ++tally.failures;
        std::cout << fmt::format("FAILED {} (seed {}): the front end rejects a generated program\n{}", p.name, g.seed, r.front_end);
        reduce_and_save(p.name, p.source, r, fmt::format("generated: --family {} --seed {}", conform::to_string(f), g.seed), f, nullptr);
        continue;
      }
      if (r.failed()) {
        any_failure = true;
        const Check& c = *r.first_failure();
        std::cout << fmt::format("FAILED {} (seed {}): {} ({}): {}\n", p.name, g.seed, c.backend, c.kind, c.detail);
        reduce_and_save(p.name, p.source, r, fmt::format("generated: --family {} --seed {}", conform::to_string(f), g.seed), f, nullptr);
      } else if (o.verbose) {
        print_report(r, true);
      }
    }
    if (o.progress > 0 && (i + 1) % static_cast<std::uint64_t>(o.progress) == 0) {
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      std::cout << fmt::format("... {} programs in {:.0f} s ({:.1f} per second), {} failures\n", tally.programs, s, tally.programs / s, tally.failures);
      std::cout.flush();
    }
  }

  if (generating || o.files.size() > 1 || o.transforms > 0) {
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    std::cout << fmt::format("\n{} programs in {:.1f} s ({:.2f} per second); the front end accepted {}; {} failed\n", tally.programs, s,
                             s > 0 ? tally.programs / s : 0.0, tally.front_end, tally.failures);
    std::cout << "accepted by (programs that reached the backend and were not refused):\n";
    for (const auto& [g, n] : tally.groups)
      std::cout << fmt::format("  {:<20} {:>7} / {:<7} {:5.1f}%\n", g, n.second, n.first, n.first ? 100.0 * n.second / n.first : 0.0);
  }
  return any_failure ? kDiagnostics : kOk;
}

}  // namespace passlab::cli
