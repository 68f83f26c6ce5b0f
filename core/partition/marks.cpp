// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-made partitions: reading, writing and evaluating marks.
#include "core/partition/marks.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/lang/diagnostics.h"
#include "core/lang/json_error.h"
#include "core/lang/json_dump.h"

namespace passlab::partition {

namespace {

using json = nlohmann::json;

// Where the n-th element of the "marks" array starts, for a located message (its line).
std::size_t element_offset(const std::string& text, std::size_t n) {
  std::size_t at = text.find("\"marks\"");
  if (at == std::string::npos) return 0;
  at = text.find('[', at);
  if (at == std::string::npos) return 0;
  int depth = 0;
  std::size_t index = 0;
  bool in_string = false;
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (depth == 0 && index == n && c != ' ' && c != '\n' && c != '\t' && c != '\r') return i;
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') ++depth;
    else if (c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    } else if (c == ',' && depth == 0) ++index;
  }
  return at;
}

}  // namespace

std::optional<std::vector<Mark>> parse_marks(const std::string& text, const std::string& where, const Problem& p,
                                             lang::Diagnostics* diagnostics) {
  lang::Diagnostics own;
  lang::Diagnostics& d = diagnostics ? *diagnostics : own;
  const lang::FileId file = d.sources().add(where, text);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    d.report(lang::json_diagnostic("marks", d.sources(), file, e));
    return std::nullopt;
  }
  const auto fail = [&](std::size_t offset, std::string message) {
    d.error("marks", lang::offset_span(d.sources(), file, offset == std::string::npos ? 0 : offset), std::move(message));
    return std::nullopt;
  };
  if (!j.is_object()) return fail(0, "a marks file is a JSON object with a \"marks\" array");
  for (const auto& [k, v] : j.items()) {
    if (k == "format") {
      if (v != "passlab-marks") return fail(text.find("\"format\""), "\"format\" must be \"passlab-marks\"");
    } else if (k == "version") {
      if (v != 1) return fail(text.find("\"version\""), "this Passlab reads marks files of version 1");
    } else if (k != "marks" && k != "shader" && k != "target" && k != "algorithm") {
      return fail(text.find("\"" + k + "\""), fmt::format("unknown key \"{}\" (format, version, marks, shader, target, algorithm)", k));
    }
  }
  if (!j.contains("marks") || !j["marks"].is_array()) return fail(0, "a marks file needs a \"marks\" array of node ids");
  const std::size_t n = p.graph.children.size();
  std::vector<char> seen(n, 0);
  std::vector<Mark> out;
  for (std::size_t i = 0; i < j["marks"].size(); ++i) {
    const json& e = j["marks"][i];
    const std::size_t at = element_offset(text, i);
    Mark m;
    const json* id = &e;
    if (e.is_object()) {
      for (const auto& [k, v] : e.items())
        if (k != "node" && k != "reason" && k != "label")
          return fail(at, fmt::format("marks[{}]: unknown key \"{}\" (node, reason, label)", i, k));
      if (!e.contains("node")) return fail(at, fmt::format("marks[{}] has no \"node\"", i));
      id = &e["node"];
      if (e.contains("reason")) {
        if (!e["reason"].is_string()) return fail(at, fmt::format("marks[{}]: \"reason\" must be a string", i));
        m.reason = e["reason"].get<std::string>();
      }
    }
    if (!id->is_number_integer() || id->get<long long>() < 0)
      return fail(at, fmt::format("marks[{}]: a mark is a node id (a whole number ≥ 0) or an object with \"node\"", i));
    const long long v = id->get<long long>();
    if (static_cast<unsigned long long>(v) >= n)
      return fail(at, fmt::format("marks[{}]: node {} is not in the DAG (nodes 0 to {})", i, v, n - 1));
    m.node = static_cast<NodeId>(v);
    if (!p.is_op[m.node])
      return fail(at, fmt::format("marks[{}]: node {} ({}) is an input, not an operation: only what a pass computes can be saved", i,
                                  v, p.labels[m.node]));
    if (seen[m.node]) return fail(at, fmt::format("marks[{}]: node {} is marked twice", i, v));
    seen[m.node] = 1;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Mark> marks_of(const Partition& part) {
  std::vector<Mark> out;
  for (std::size_t i = 0; i < part.marked.size(); ++i)
    if (part.marked[i]) out.push_back({static_cast<NodeId>(i), ""});
  return out;
}

std::string marks_to_json(const std::vector<Mark>& marks, const Problem& p) {
  nlohmann::ordered_json j;
  j["format"] = "passlab-marks";
  j["version"] = 1;
  j["marks"] = nlohmann::ordered_json::array();
  for (const Mark& m : marks) {
    nlohmann::ordered_json e;
    e["node"] = m.node;
    if (m.node < p.labels.size()) e["label"] = p.labels[m.node];
    if (!m.reason.empty()) e["reason"] = m.reason;
    j["marks"].push_back(std::move(e));
  }
  return lang::dump_json(j, 1) + "\n";
}

Partition evaluate_marks(const Problem& p, Backend& backend, const std::vector<Mark>& marks, const CostModel& model) {
  std::vector<char> marked(p.graph.children.size(), 0);
  for (const Mark& m : marks)
    if (m.node < marked.size()) marked[m.node] = 1;
  Partition part = make_partition(p, backend, std::move(marked), model);
  part.algorithm = "yours";
  return part;
}

}  // namespace passlab::partition
