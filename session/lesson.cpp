// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons: reading them, and checking their questions.
#include "session/lesson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace passlab::session {

namespace {

namespace fs = std::filesystem;

// Each verb with its least and most arguments (-1: any number).
const std::map<std::string, std::pair<int, int>>& verbs() {
  static const std::map<std::string, std::pair<int, int>> v = {
      {"open", {1, 1}},       {"target", {1, -1}},       {"cost", {1, 1}},      {"algorithm", {1, 1}}, {"panel", {1, 1}},
      {"tab", {1, 1}},        {"trace", {1, 1}},        {"select", {1, -1}},   {"marking", {1, 1}},   {"marks", {1, 1}},
      {"rpu-function", {1, 1}}, {"rpu-tab", {1, 1}}, {"scene", {1, 1}},    {"rpu-pixel", {2, 2}}, {"rpu-step", {1, 1}},  {"optimal", {1, 1}},
  };
  return v;
}

const std::map<std::string, std::set<std::string>>& question_keys() {
  static const std::map<std::string, std::set<std::string>> q = {
      {"fit", {"max-passes", "max-cost"}},
      {"schedule", {"max-cycles"}},
      {"answer", {"expect", "tolerance"}},
  };
  return q;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// An option's number (validated when the lesson was read: whole where it must be, in range).
double option(const LessonQuestion& q, const std::string& key) { return std::strtod(q.options.at(key).c_str(), nullptr); }

bool is_number(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && std::isfinite(*v);
}

std::string normal(std::string s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<Lesson> parse_lesson(const std::string& text, const std::string& path, lang::Diagnostics* diagnostics) {
  lang::Diagnostics own;
  lang::Diagnostics& d = diagnostics ? *diagnostics : own;
  const lang::FileId file = d.sources().add(path, text);
  const std::size_t errors_before = std::count_if(d.items().begin(), d.items().end(), [](const lang::Diagnostic& x) {
    return x.severity == lang::Severity::Error;
  });
  const auto fail = [&](std::uint32_t line, std::string message) { d.error("lesson", lang::line_span(file, line, 1), std::move(message)); };
  Lesson lesson;
  lesson.path = path;
  std::istringstream in(text);
  std::string raw;
  std::uint32_t line = 0;
  LessonStep* step = nullptr;
  std::string* prose = &lesson.introduction;
  while (std::getline(in, raw)) {
    ++line;
    const std::string t = trim(raw);
    if (raw.rfind("# ", 0) == 0 && lesson.title.empty() && !step) {
      lesson.title = trim(raw.substr(2));
      continue;
    }
    if (raw.rfind("## ", 0) == 0) {
      if (lesson.title.empty()) fail(line, "a lesson begins with its title: a line \"# Title\"");
      lesson.steps.push_back({});
      step = &lesson.steps.back();
      step->title = trim(raw.substr(3));
      step->line = line;
      prose = &step->text;
      continue;
    }
    if (t.rfind("@ ", 0) == 0 || t == "@") {
      const auto w = words(t.substr(1));
      if (!step) {
        fail(line, "an action belongs to a step: put it after a \"## Step\" line");
        continue;
      }
      if (w.empty()) {
        fail(line, "an action needs a verb (open, target, cost, algorithm, panel, tab, trace, select, marking, marks, rpu-function, "
                   "rpu-tab, rpu-pixel, rpu-step, optimal, scene)");
        continue;
      }
      const auto v = verbs().find(w[0]);
      if (v == verbs().end()) {
        fail(line, fmt::format("unknown action \"{}\" (open, target, cost, algorithm, panel, tab, trace, select, marking, marks, "
                               "rpu-function, rpu-tab, rpu-pixel, rpu-step, optimal, scene)",
                               w[0]));
        continue;
      }
      const int n = static_cast<int>(w.size()) - 1;
      if (n < v->second.first || (v->second.second >= 0 && n > v->second.second)) {
        fail(line, v->second.first == v->second.second
                       ? fmt::format("\"{}\" takes {} argument{}", w[0], v->second.first, v->second.first == 1 ? "" : "s")
                       : fmt::format("\"{}\" takes at least {} argument{}", w[0], v->second.first, v->second.first == 1 ? "" : "s"));
        continue;
      }
      step->actions.push_back({w[0], std::vector<std::string>(w.begin() + 1, w.end()), line});
      continue;
    }
    if (t.rfind("? ", 0) == 0) {
      const auto w = words(t.substr(1));
      if (!step) {
        fail(line, "a question belongs to a step: put it after a \"## Step\" line");
        continue;
      }
      if (step->question) {
        fail(line, "a step asks one question at most");
        continue;
      }
      const auto q = w.empty() ? question_keys().end() : question_keys().find(w[0]);
      if (q == question_keys().end()) {
        fail(line, fmt::format("unknown question \"{}\" (fit, schedule, answer)", w.empty() ? "" : w[0]));
        continue;
      }
      LessonQuestion question{w[0], {}, line};
      bool ok = true;
      for (std::size_t k = 1; k < w.size() && ok; ++k) {
        const auto eq = w[k].find('=');
        const std::string key = w[k].substr(0, eq);
        if (eq == std::string::npos || !q->second.count(key)) {
          std::string keys;
          for (const auto& x : q->second) keys += (keys.empty() ? "" : ", ") + x;
          fail(line, fmt::format("\"{}\": {} {} question takes key=value options ({})", w[k], w[0] == "answer" ? "an" : "a", w[0], keys));
          ok = false;
          break;
        }
        const std::string value = w[k].substr(eq + 1);
        double number = 0;
        const bool whole = key == "max-passes" || key == "max-cycles";
        if (key != "expect" && (!is_number(value, &number) || number < 0 || number > 1e9 ||
                                (whole && number != std::floor(number)))) {
          fail(line, fmt::format("\"{}\" must be {} from 0 to 10^9", key, whole ? "a whole number" : "a number"));
          ok = false;
        }
        question.options[key] = value;
      }
      if (ok && question.kind == "answer" && !question.options.count("expect")) {
        fail(line, "an answer question needs expect=… (the answer it accepts)");
        ok = false;
      }
      if (ok) step->question = std::move(question);
      continue;
    }
    *prose += raw + "\n";
  }
  if (lesson.title.empty()) fail(1, "a lesson begins with its title: a line \"# Title\"");
  else if (lesson.steps.empty()) fail(line, "a lesson has at least one step (a line \"## Step title\")");
  const std::size_t errors_after = std::count_if(d.items().begin(), d.items().end(), [](const lang::Diagnostic& x) {
    return x.severity == lang::Severity::Error;
  });
  if (errors_after > errors_before) return std::nullopt;
  return lesson;
}

std::optional<Lesson> load_lesson(const std::string& path, lang::Diagnostics* diagnostics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (diagnostics) diagnostics->error("file-not-found", lang::file_span(diagnostics->sources().add(path, "")), "cannot read the lesson");
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_lesson(text.str(), path, diagnostics);
}

std::vector<Lesson> load_lessons(const std::string& folder, lang::Diagnostics* diagnostics) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".md") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<Lesson> out;
  for (const auto& p : paths)
    if (auto l = load_lesson(p, diagnostics)) out.push_back(std::move(*l));
  return out;
}

Verdict check_fit(const LessonQuestion& q, const partition::Partition* yours, const partition::TargetDesc& target) {
  if (!yours) return {false, "Partition the shader yourself first (Partition ▸ Partition It Yourself, Ctrl+M)."};
  for (std::size_t i = 0; i < yours->passes.size(); ++i)
    if (!yours->passes[i].failure.empty())
      return {false, fmt::format("Not yet: pass {} does not fit {} ({}).", i + 1, target.name, yours->passes[i].failure)};
  const int passes = static_cast<int>(yours->passes.size());
  if (q.options.count("max-passes") && passes > option(q, "max-passes"))
    return {false, fmt::format("Every pass fits, but in {} passes: at most {} are asked for.", passes, q.options.at("max-passes"))};
  if (q.options.count("max-cost") && yours->cost > option(q, "max-cost") + 1e-9)
    return {false, fmt::format("Every pass fits, at cost {:.2f}: at most {} is asked for.", yours->cost, q.options.at("max-cost"))};
  return {true, fmt::format("Right: {} passes that all fit {}, at cost {:.2f}.", passes, target.name, yours->cost)};
}

Verdict check_schedule(const LessonQuestion& q, std::optional<int> cycles, const std::string& problem) {
  if (!cycles) return {false, fmt::format("That order cannot run: {}.", problem)};
  if (q.options.count("max-cycles") && *cycles > option(q, "max-cycles"))
    return {false, fmt::format("{} cycles: at most {} are asked for. Which instruction waits that need not?", *cycles, q.options.at("max-cycles"))};
  return {true, fmt::format("Right: {} cycles.", *cycles)};
}

Verdict check_answer(const LessonQuestion& q, const std::string& answer) {
  const std::string expect = q.options.at("expect");
  double want = 0, got = 0;
  if (is_number(expect, &want)) {
    const double tolerance = q.options.count("tolerance") ? option(q, "tolerance") : 0;
    if (!is_number(trim(answer), &got)) return {false, "A number is asked for."};
    if (std::fabs(got - want) <= tolerance + 1e-9) return {true, "Right."};
    return {false, "Not quite: look again."};
  }
  // Words: any of the answers it lists (expect=F-buffer|fbuffer).
  std::istringstream alternatives(expect);
  for (std::string a; std::getline(alternatives, a, '|');)
    if (normal(answer) == normal(a)) return {true, "Right."};
  return {false, "Not quite: look again."};
}

}  // namespace passlab::session
