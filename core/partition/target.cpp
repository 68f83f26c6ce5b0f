// SPDX-License-Identifier: GPL-3.0-or-later
// Target presets from JSON (validated), limit checks, and parsing of linear cost models.
#include "core/partition/target.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/lang/diagnostics.h"
#include "core/lang/json_error.h"
#include "core/paths/data_dir.h"

namespace passlab::partition {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Where a target reader reports: the diagnostics given, or its own when the caller wants none.
struct Report {
  explicit Report(lang::Diagnostics* given) : d(given ? *given : own) {}
  lang::Diagnostics own;
  lang::Diagnostics& d;
  lang::FileId file = 0;  // the target file, once read
  std::size_t base = 0;   // where the object being read starts in it

  // A problem with the value of `key` (its first occurrence from `base` on); always false.
  bool fail(std::string_view key, std::string message, const char* code = "target") {
    d.error(code, file ? lang::key_span(d.sources(), file, key, base) : lang::Span{}, std::move(message));
    return false;
  }
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The limit keys in the order exceeded() reports them.
struct LimitField {
  const char* key;
  int Limits::*limit;
  int Resources::*used;
};
constexpr std::array<LimitField, 6> kLimitFields = {{
    {"operations", &Limits::operations, &Resources::operations},
    {"registers", &Limits::registers, &Resources::registers},
    {"textures", &Limits::textures, &Resources::textures},
    {"interpolants", &Limits::interpolants, &Resources::interpolants},
    {"dependent_levels", &Limits::dependent_levels, &Resources::dependent_levels},
    {"render_targets", &Limits::render_targets, &Resources::outputs},
}};

bool parse_limits(const json& j, Report& r, Limits* out) {
  if (!j.is_object()) return r.fail("limits", "\"limits\" must be an object");
  r.base = lang::key_offset(r.d.sources(), r.file, "limits");
  for (const auto& item : j.items()) {
    // Named, not a structured binding: the lambda captures `key` (clang before 16 cannot capture a binding).
    const std::string& key = item.key();
    const auto& value = item.value();
    const auto* field = std::find_if(kLimitFields.begin(), kLimitFields.end(),
                                     [&](const LimitField& f) { return key == f.key; });
    if (field == kLimitFields.end()) {
      std::string known;
      for (const auto& f : kLimitFields) known += (known.empty() ? "" : ", ") + std::string(f.key);
      return r.fail(key, fmt::format("unknown key \"limits.{}\" (known: {})", key, known));
    }
    if (value.is_null()) {
      out->*(field->limit) = kUnlimited;
      continue;
    }
    if (key == "render_targets" && value.is_number_integer() && value.get<std::int64_t>() < 1)
      return r.fail(key, fmt::format("\"limits.render_targets\" must be at least 1 (a pass writes its value), or null for unlimited, got {}",
                                     value.dump()));
    if (!value.is_number_integer())
      return r.fail(key, fmt::format("\"limits.{}\" must be a non-negative integer or null (unlimited), got {}", key, value.dump()));
    if (value.is_number_unsigned()) {
      auto v = value.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        return r.fail(key, fmt::format("\"limits.{}\" is too large: {}", key, v));
      out->*(field->limit) = static_cast<int>(v);
    } else {
      auto v = value.get<std::int64_t>();
      if (v < 0)
        return r.fail(key, fmt::format("\"limits.{}\" must not be negative (use null for unlimited), got {}", key, v));
      if (v > std::numeric_limits<int>::max())
        return r.fail(key, fmt::format("\"limits.{}\" is too large: {}", key, v));
      out->*(field->limit) = static_cast<int>(v);
    }
  }
  return true;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

// Formats a coefficient in the shortest form that reads back exactly ("15", "15.7", "1.36").
std::string coefficient(double c) { return fmt::format("{}", c); }

}  // namespace

std::string exceeded(const Resources& r, const Limits& l) {
  for (const auto& f : kLimitFields) {
    int limit = l.*(f.limit);
    int used = r.*(f.used);
    if (limit != kUnlimited && used > limit) return fmt::format("{}: {} > {}", f.key, used, limit);
  }
  return "";
}

const char* to_string(Derivatives d) {
  switch (d) {
    case Derivatives::None: return "none";
    case Derivatives::Interpolants: return "interpolants";
    case Derivatives::Quad: return "quad";
  }
  return "?";
}

namespace {

// A backend's name as a target file spells it: "fp", "combiners".
bool backend_name(const json& value) {
  if (!value.is_string() || value.get<std::string>().empty()) return false;
  for (char c : value.get<std::string>())
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::string target_to_json(const TargetDesc& t) {
  auto limit = [](int v) { return v == kUnlimited ? json(nullptr) : json(v); };
  // ordered_json keeps the keys in the order written, so a saved file reads like the presets.
  nlohmann::ordered_json limits;
  limits["operations"] = limit(t.limits.operations);
  limits["registers"] = limit(t.limits.registers);
  limits["textures"] = limit(t.limits.textures);
  limits["interpolants"] = limit(t.limits.interpolants);
  limits["dependent_levels"] = limit(t.limits.dependent_levels);
  if (t.limits.render_targets != 1) limits["render_targets"] = limit(t.limits.render_targets);
  nlohmann::ordered_json j;
  j["name"] = t.name;
  j["description"] = t.description;
  j["limits"] = limits;
  j["restore_uses_interpolant"] = t.restore_uses_interpolant;
  j["derivatives"] = to_string(t.derivatives);
  if (t.dynamic_loops > 0) j["loops"] = {{"max_iterations", t.dynamic_loops}};
  if (!t.backend.empty()) {
    j["backend"] = t.backend;
    // JSON text, or a bare name a backend keeps there (the RPU's machine preset): written as a string.
    if (!t.machine_json.empty())
      j[t.backend] = nlohmann::ordered_json::accept(t.machine_json) ? nlohmann::ordered_json::parse(t.machine_json) : nlohmann::ordered_json(t.machine_json);
  }
  return j.dump(2) + "\n";
}

std::optional<TargetDesc> parse_target(const std::string& json_text, const std::string& source, lang::Diagnostics* diagnostics) {
  Report r(diagnostics);
  r.file = r.d.sources().add(source.empty() ? "<target>" : source, json_text);
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    r.d.report(lang::json_diagnostic("target", r.d.sources(), r.file, e));
    return std::nullopt;
  }
  if (!j.is_object()) {
    r.fail("", "a target must be a JSON object");
    return std::nullopt;
  }

  TargetDesc t;
  t.source = source;
  bool has_name = false;
  const std::string named_backend = j.contains("backend") && j["backend"].is_string() ? j["backend"].get<std::string>() : "";
  for (const auto& [key, value] : j.items()) {
    if (key == "name") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        r.fail("name", fmt::format("\"name\" must be a non-empty string, got {}", value.dump()));
        return std::nullopt;
      }
      t.name = value.get<std::string>();
      has_name = true;
    } else if (key == "description") {
      if (!value.is_string()) {
        r.fail("description", fmt::format("\"description\" must be a string, got {}", value.dump()));
        return std::nullopt;
      }
      t.description = value.get<std::string>();
    } else if (key == "limits") {
      if (!parse_limits(value, r, &t.limits)) return std::nullopt;
      r.base = 0;
    } else if (key == "restore_uses_interpolant") {
      if (!value.is_boolean()) {
        r.fail("restore_uses_interpolant", fmt::format("\"restore_uses_interpolant\" must be true or false, got {}", value.dump()));
        return std::nullopt;
      }
      t.restore_uses_interpolant = value.get<bool>();
    } else if (key == "derivatives") {
      const std::string v = value.is_string() ? value.get<std::string>() : "";
      if (v == "none") {
        t.derivatives = Derivatives::None;
      } else if (v == "interpolants") {
        t.derivatives = Derivatives::Interpolants;
      } else if (v == "quad") {
        t.derivatives = Derivatives::Quad;
      } else {
        r.fail("derivatives", fmt::format("\"derivatives\" must be \"none\", \"interpolants\" or \"quad\", got {}", value.dump()));
        return std::nullopt;
      }
    } else if (key == "loops") {
      const nlohmann::json* n = value.is_object() && value.size() == 1 && value.contains("max_iterations") ? &value["max_iterations"] : nullptr;
      if (value.is_null()) {
        t.dynamic_loops = 0;
      } else if (!n || !n->is_number_integer() || n->get<long long>() < 1 || n->get<long long>() > 1000000) {
        r.fail("loops", fmt::format("\"loops\" must be null (no dynamic loops) or {{\"max_iterations\": N}} with N from 1 to "
                                    "1000000, got {}",
                                    value.dump()));
        return std::nullopt;
      } else {
        t.dynamic_loops = static_cast<int>(n->get<long long>());
      }
    } else if (key == "backend") {
      if (!backend_name(value)) {
        r.fail("backend", fmt::format("\"backend\" must be a backend's name (lower-case letters, digits and _), got {}", value.dump()));
        return std::nullopt;
      }
      t.backend = value.get<std::string>();
    } else if (key.empty() || key != named_backend) {
      r.fail(key, fmt::format("unknown key \"{}\" (known: name, description, limits, restore_uses_interpolant, derivatives, loops, backend, "
                              "and the object named after the backend that describes its machine)",
                              key));
      return std::nullopt;
    }
  }
  if (!t.backend.empty() && j.contains(t.backend)) {
    if (j[t.backend].is_string()) {  // the name of one of the backend's machine presets (the RPU's)
      t.machine_json = j[t.backend].get<std::string>();
    } else if (!j[t.backend].is_object()) {
      r.base = 0;
      r.fail(t.backend, fmt::format("\"{}\" must be an object describing the machine, or the name of one of its presets, got {}", t.backend,
                                    j[t.backend].dump()));
      return std::nullopt;
    } else {
      // ordered_json keeps the file's key order, so saving it again reads the same.
      t.machine_json = nlohmann::ordered_json::parse(json_text)[t.backend].dump();
    }
  }
  if (!has_name) {
    r.d.error("target", lang::file_span(r.file), "missing required key \"name\"");
    return std::nullopt;
  }
  if (t.dynamic_loops > 0 && !t.backend.empty() && t.backend != "fp") {
    r.base = 0;
    r.fail("loops", fmt::format("\"loops\" gives a fragment program dynamic loops; the {} backend runs no fragment DAG with them "
                                "(the register combiners have no loops, the RPU's loops are its own)",
                                t.backend));
    return std::nullopt;
  }
  return t;
}

std::string targets_dir() { return paths::data_dirs().resources + "/targets"; }

std::vector<std::string> preset_targets() {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(targets_dir(), ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".json" && it->is_regular_file(ec)) names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<TargetDesc> load_target(const std::string& name_or_path, lang::Diagnostics* diagnostics) {
  Report r(diagnostics);
  fs::path path;
  if (name_or_path.find('/') != std::string::npos || ends_with(lower(name_or_path), ".json")) {
    path = name_or_path;
  } else {
    const std::string wanted = lower(name_or_path);
    const std::vector<std::string> presets = preset_targets();
    for (const auto& name : presets)
      if (lower(name) == wanted) path = fs::path(targets_dir()) / (name + ".json");
    if (path.empty()) {
      std::string available;
      for (const auto& name : presets) available += (available.empty() ? "" : ", ") + name;
      if (available.empty())
        r.fail("", fmt::format("unknown target '{}': no presets found in {}", name_or_path, targets_dir()));
      else
        r.fail("", fmt::format("unknown target '{}' (available: {}; or give a path to a .json file)", name_or_path,
                                available));
      return std::nullopt;
    }
  }
  std::optional<std::string> text = read_file(path);
  if (!text) {
    r.d.error("file-not-found", lang::file_span(r.d.sources().add(path.string(), "")), "cannot read the target file");
    return std::nullopt;
  }
  return parse_target(*text, path.string(), &r.d);
}

double CostModel::cost(int passes, int texture_fetches, int instructions) const {
  if (metric) return passes > 0 ? pass_cost(texture_fetches, instructions, 1) + (passes - 1) * pass_cost(0, 0, 1) : 0;
  return per_pass * passes + per_texture * texture_fetches + per_instruction * instructions;
}

double CostModel::pass_cost(int texture_fetches, int arithmetic, int outputs) const {
  if (!metric) return per_pass + per_texture * texture_fetches + per_instruction * arithmetic;
  const PassMetric& m = *metric;
  const double issue = arithmetic + texture_fetches;
  const double fetch = m.texture_issue * texture_fetches;
  const double average = std::floor((std::max(issue, fetch) + issue + fetch) / 2);
  const int o = std::max(outputs, 1);
  const double write = o == 1 ? m.single_output : m.per_output_write * o;
  return std::max(average, write) + m.per_pass + m.per_output * o;
}

std::optional<CostModel> parse_cost_model(const std::string& spec, lang::Diagnostics* diagnostics) {
  Report r(diagnostics);
  auto fail = [&r](std::string message) { return r.fail("", std::move(message), "cost-model"); };
  const std::string whole = trim(spec);
  if (whole.empty()) {
    fail("empty cost model: expected e.g. 15p+5t+i, t+i or measured");
    return std::nullopt;
  }
  const std::string named = lower(whole);
  if (named == "measured" || named == "radeon8500") return parse_cost_model("15.7p+1.36t+i", &r.d);
  if (named == "mrds" || named.rfind("mrds:", 0) == 0) {
    CostModel m;
    m.name = "mrds";
    m.metric = PassMetric{};
    if (named.size() > 4) {
      std::array<double*, 5> slots = {&m.metric->texture_issue, &m.metric->single_output, &m.metric->per_output_write,
                                      &m.metric->per_pass, &m.metric->per_output};
      const std::string list = named.substr(5);
      std::size_t at = 0;
      for (std::size_t k = 0; k < slots.size(); ++k) {
        const std::size_t slash = k + 1 < slots.size() ? list.find('/', at) : list.size();
        const std::string number = trim(list.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
        double v = 0;
        auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
        if (number.empty() || ec != std::errc() || ptr != number.data() + number.size() || v < 0 || slash == std::string::npos) {
          fail(fmt::format("bad per-pass metric '{}': expected mrds:A/B/C/D/E, five non-negative numbers "
                           "(texture issue, one output's write, each output's write of several, per pass, per output)",
                           whole));
          return std::nullopt;
        }
        *slots[k] = v;
        at = slash + 1;
      }
      m.name = "mrds:" + list;
    }
    return m;
  }

  std::array<std::optional<double>, 3> coef;  // p, t, i
  std::size_t start = 0;
  while (true) {
    std::size_t plus = whole.find('+', start);
    const std::string raw = whole.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    const std::string term = trim(raw);
    auto bad = [&](const std::string& why) {
      fail(fmt::format("bad term '{}' in cost model '{}': {}", term, whole, why));
      return std::nullopt;
    };
    if (term.empty()) {
      fail(fmt::format("empty term in cost model '{}': expected terms like 15p, 5t or i joined by +", whole));
      return std::nullopt;
    }
    // number := digits [. digits] | . digits (optional: a bare letter means 1), spaces, p|t|i.
    std::size_t k = 0;
    auto digits = [&] {
      std::size_t b = k;
      while (k < term.size() && std::isdigit(static_cast<unsigned char>(term[k]))) ++k;
      return k - b;
    };
    digits();
    if (k < term.size() && term[k] == '.') {
      ++k;
      if (digits() == 0) return bad("expected digits after the decimal point");
    }
    const std::size_t number_end = k;
    while (k < term.size() && std::isspace(static_cast<unsigned char>(term[k]))) ++k;
    if (k + 1 != term.size()) return bad("expected a non-negative number followed by p, t or i");
    const char letter = static_cast<char>(std::tolower(static_cast<unsigned char>(term[k])));
    const int slot = letter == 'p' ? 0 : letter == 't' ? 1 : letter == 'i' ? 2 : -1;
    if (slot < 0) return bad("expected a non-negative number followed by p, t or i");
    if (coef[slot]) {
      fail(fmt::format("term '{}' appears twice in cost model '{}'", letter, whole));
      return std::nullopt;
    }
    double value = 1.0;
    if (number_end > 0) {
      // from_chars, not strtod: the Studio runs under the user's locale, whose decimal point may be ','.
      auto [ptr, ec] = std::from_chars(term.data(), term.data() + number_end, value);
      if (ec != std::errc() || ptr != term.data() + number_end) return bad("coefficient out of range");
    }
    coef[slot] = value;
    if (plus == std::string::npos) break;
    start = plus + 1;
  }

  CostModel m;
  m.per_pass = coef[0].value_or(0);
  m.per_texture = coef[1].value_or(0);
  m.per_instruction = coef[2].value_or(0);
  static constexpr std::array<char, 3> kLetters = {'p', 't', 'i'};
  const std::array<double, 3> values = {m.per_pass, m.per_texture, m.per_instruction};
  for (std::size_t s = 0; s < 3; ++s) {
    if (values[s] == 0) continue;
    if (!m.name.empty()) m.name += '+';
    if (values[s] != 1) m.name += coefficient(values[s]);
    m.name += kLetters[s];
  }
  if (m.name.empty()) {
    fail(fmt::format("cost model '{}' charges nothing: at least one coefficient must be positive", whole));
    return std::nullopt;
  }
  return m;
}

std::vector<CostModel> paper_cost_models() {
  std::vector<CostModel> models;
  for (const char* spec : {"15p+5t+i", "5p+3t+i", "3p+2t+i", "p+t+i", "t+i", "15.7p+1.36t+i"})
    models.push_back(*parse_cost_model(spec, nullptr));
  return models;
}

}  // namespace passlab::partition
