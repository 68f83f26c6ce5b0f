// SPDX-License-Identifier: GPL-3.0-or-later
// Conformance checks in child processes (see conform_child.h). The child writes its report as
// JSON into a pipe; the parent reads it, or kills a child past its time.
#include "app/cli/conform_child.h"
#include "core/lang/json_dump.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <list>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace passlab::cli {

namespace {

using conform::Check;
using conform::Outcome;
using conform::Report;
using Clock = std::chrono::steady_clock;

}  // namespace

nlohmann::json to_json(const Report& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const Check& c : r.checks)
    checks.push_back({{"backend", c.backend}, {"outcome", conform::to_string(c.outcome)}, {"kind", c.kind}, {"detail", c.detail},
                      {"compared", c.compared}, {"undefined", c.undefined},
                      {"difference", std::isfinite(c.difference) ? c.difference : -1.0f}});
  return {{"program", r.program}, {"front_end_ok", r.front_end_ok}, {"recursion", r.recursion}, {"front_end", r.front_end}, {"checks", checks}};
}

Report report_from_json(const nlohmann::json& j) {
  Report r;
  r.program = j.value("program", "");
  r.front_end_ok = j.value("front_end_ok", false);
  r.recursion = j.value("recursion", false);
  r.front_end = j.value("front_end", "");
  for (const auto& c : j.at("checks")) {
    Check k(c.value("backend", ""));
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

namespace {

Report process_failure(const std::string& path, const std::string& kind, const std::string& detail) {
  Report r;
  r.program = path;
  r.front_end_ok = true;
  Check k("process");
  k.outcome = Outcome::Failed;
  k.kind = kind;
  k.detail = detail;
  k.difference = INFINITY;
  r.checks.push_back(std::move(k));
  return r;
}

// One check in flight.
struct Child {
  ConformJob job;
  pid_t pid = -1;
  int fd = -1;
  std::string got;
  Clock::time_point start;

  // Forks; false when the system would not (the caller then checks in-process).
  bool start_on(const conform::Oracle& oracle) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    std::cout.flush();
    std::cerr.flush();
    pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    if (pid == 0) {
      close(fds[0]);
      const std::string out = lang::dump_json(to_json(oracle.check(job.path, job.text, job.original ? &*job.original : nullptr)));
      std::size_t written = 0;
      while (written < out.size()) {
        const ssize_t n = write(fds[1], out.data() + written, out.size() - written);
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
      }
      close(fds[1]);
      _exit(0);
    }
    close(fds[1]);
    fd = fds[0];
    start = Clock::now();
    return true;
  }
  double age() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
  // Reads what is there; false at the end of the answer.
  bool read_some() {
    char buf[65536];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    got.append(buf, static_cast<std::size_t>(n));
    return true;
  }
  Report finish(bool hung, double timeout) {
    close(fd);
    if (hung) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (hung) return process_failure(job.path, "hang", fmt::format("no answer within {} s", timeout));
    if (WIFSIGNALED(status))
      return process_failure(job.path, "crash", fmt::format("the checks died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
    if (got.empty()) return process_failure(job.path, "crash", "the checks ended without an answer");
    try {
      return report_from_json(nlohmann::json::parse(got));
    } catch (const std::exception& e) {
      return process_failure(job.path, "crash", std::string("unreadable answer: ") + e.what());
    }
  }
};

}  // namespace

Report check_in_child(const conform::Oracle& oracle, const ConformJob& job, double timeout) {
  std::optional<Report> out;
  bool handed = false;
  check_in_children(oracle, 1, timeout, [&]() -> std::optional<ConformJob> {
    if (handed) return std::nullopt;
    handed = true;
    return job;
  }, [&](const ConformJob&, Report& r) { out = std::move(r); });
  return out ? *out : process_failure(job.path, "crash", "no answer");
}

void check_in_children(const conform::Oracle& oracle, int jobs, double timeout, const std::function<std::optional<ConformJob>()>& next,
                       const std::function<void(const ConformJob&, Report&)>& done) {
  std::list<Child> running;
  bool more = true;
  while (more || !running.empty()) {
    while (more && static_cast<int>(running.size()) < std::max(1, jobs)) {
      std::optional<ConformJob> job = next();
      if (!job) {
        more = false;
        break;
      }
      Child c;
      c.job = std::move(*job);
      if (!c.start_on(oracle)) {
        // No child process: checked here (a crash then ends the run).
        Report r = oracle.check(c.job.path, c.job.text, c.job.original ? &*c.job.original : nullptr);
        done(c.job, r);
        continue;
      }
      running.push_back(std::move(c));
    }
    if (running.empty()) continue;
    std::vector<pollfd> fds;
    for (const Child& c : running) fds.push_back({c.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), 200);
    std::size_t i = 0;
    for (auto it = running.begin(); it != running.end(); ++i) {
      bool ended = false, hung = false;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) ended = !it->read_some();
      if (!ended && it->age() > timeout) ended = hung = true;
      if (!ended) {
        ++it;
        continue;
      }
      Report r = it->finish(hung, timeout);
      const ConformJob job = std::move(it->job);
      it = running.erase(it);
      done(job, r);
    }
  }
}

}  // namespace passlab::cli
