// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU machine description: presets from JSON, and the rules for one instruction word.
#include "backends/rpu/machine.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/lang/diagnostics.h"
#include "core/lang/json_error.h"
#include "core/paths/data_dir.h"

namespace passlab::rpu {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The machine model's trace unit: {"pipelines", "latency", "box_cycles", "triangle_cycles", "queue"}.
template <typename Fail, typename Integer>
bool parse_trace_unit(const json& t, Machine::TraceUnit& out, Fail& fail, Integer& integer) {
  if (!t.is_object()) return fail("trace_unit", "\"trace_unit\" must be an object");
  static const std::set<std::string> known = {"pipelines", "latency", "box_cycles", "triangle_cycles", "queue"};
  for (auto it = t.begin(); it != t.end(); ++it)
    if (!known.count(it.key())) return fail(it.key(), "\"trace_unit\" has an unknown key \"" + it.key() + "\"");
  auto cost = [&](const char* key, double* v) {
    if (!t.contains(key)) return true;
    if (!t[key].is_number() || !(t[key].get<double>() >= 0) || t[key].get<double>() > 10000)
      return fail(key, std::string("\"trace_unit.") + key + "\" must be a number of cycles from 0 to 10000");
    *v = t[key].get<double>();
    return true;
  };
  // A chunk casts up to four rays at once, and the queue must be able to take them.
  return (!t.contains("pipelines") || integer(t["pipelines"], "trace_unit.pipelines", 1, 1024, &out.pipelines)) &&
         (!t.contains("latency") || integer(t["latency"], "trace_unit.latency", 0, 100000, &out.latency)) &&
         cost("box_cycles", &out.box_cycles) && cost("triangle_cycles", &out.triangle_cycles) &&
         (!t.contains("queue") || integer(t["queue"], "trace_unit.queue", 4, 1 << 20, &out.queue));
}

std::optional<Machine> parse_machine(lang::FileId file, lang::Diagnostics& d) {
  // A problem with `key` (its first occurrence in the file; the file's start for "").
  auto fail = [&](std::string_view key, std::string message) {
    d.error("machine", lang::key_span(d.sources(), file, key), std::move(message));
    return false;
  };
  json j;
  try {
    j = json::parse(d.sources().file(file).text);
  } catch (const json::exception& e) {
    d.report(lang::json_diagnostic("machine", d.sources(), file, e));
    return std::nullopt;
  }
  if (!j.is_object()) {
    fail("", "a machine description is a JSON object");
    return std::nullopt;
  }
  static const std::set<std::string> known = {"name", "description", "latency", "literals_per_instruction", "pairing",
                                              "pair_read_ports", "precision", "max_call_depth", "max_steps", "cores",
                                              "chunks_in_flight", "trace_unit"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) {
      fail(it.key(), "unknown key \"" + it.key() + "\"");
      return std::nullopt;
    }
  Machine m;
  auto integer = [&](const json& v, const std::string& key, int lo, int hi, int* out) {
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
      return fail(key.substr(key.rfind('.') + 1), "\"" + key + "\" must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    *out = v.get<int>();
    return true;
  };
  if (!j.contains("name") || !j["name"].is_string()) {
    fail("", "missing required key \"name\" (a string)");
    return std::nullopt;
  }
  m.name = j["name"].get<std::string>();
  if (j.contains("description") && j["description"].is_string()) m.description = j["description"].get<std::string>();
  if (!j.contains("latency") || !j["latency"].is_object()) {
    fail("latency", "missing required key \"latency\" (an object of cycles by opcode)");
    return std::nullopt;
  }
  const json& lat = j["latency"];
  const Opcode ops[] = {Opcode::Mov,  Opcode::Frac, Opcode::Add,   Opcode::Mul,  Opcode::Mad,  Opcode::Dp2h,  Opcode::Dp3,
                        Opcode::Dp3h, Opcode::Dp4,  Opcode::Trace, Opcode::Load, Opcode::Load4, Opcode::Store};
  for (Opcode op : ops) {
    const std::string key = mnemonic(op);
    if (!lat.contains(key)) {
      fail("latency", "\"latency\" has no entry for \"" + key + "\"");
      return std::nullopt;
    }
    if (!integer(lat[key], "latency." + key, 1, 10000, &m.latency[static_cast<std::size_t>(op)])) return std::nullopt;
  }
  // The quad differences are Passlab's extension: a description written for the thesis's set
  // may leave them out, and they then take an add's time (one subtraction across lanes).
  for (Opcode op : {Opcode::Ddx, Opcode::Ddy}) {
    int& l = m.latency[static_cast<std::size_t>(op)];
    l = m.latency_of(Opcode::Add);
    if (lat.contains(mnemonic(op)) && !integer(lat[mnemonic(op)], std::string("latency.") + mnemonic(op), 1, 10000, &l)) return std::nullopt;
  }
  for (auto it = lat.begin(); it != lat.end(); ++it) {
    const bool is_op = it.key() == "ddx" || it.key() == "ddy" ||
                       std::any_of(std::begin(ops), std::end(ops), [&](Opcode op) { return it.key() == mnemonic(op); });
    if (!is_op && it.key() != "special") {
      fail(it.key(), "\"latency\" has an unknown opcode \"" + it.key() + "\"");
      return std::nullopt;
    }
  }
  if (lat.contains("special") && !integer(lat["special"], "latency.special", 0, 10000, &m.special_latency)) return std::nullopt;
  if (j.contains("literals_per_instruction") && !j["literals_per_instruction"].is_null() &&
      !integer(j["literals_per_instruction"], "literals_per_instruction", 0, 8, &m.literals_per_instruction))
    return std::nullopt;
  if (j.contains("pairing")) {
    if (!j["pairing"].is_boolean()) {
      fail("pairing", "\"pairing\" must be true or false");
      return std::nullopt;
    }
    m.pairing = j["pairing"].get<bool>();
  }
  if (j.contains("pair_read_ports") && !integer(j["pair_read_ports"], "pair_read_ports", 1, 8, &m.pair_read_ports)) return std::nullopt;
  if (j.contains("precision")) {
    const std::string p = j["precision"].is_string() ? j["precision"].get<std::string>() : "";
    if (p != "fp24" && p != "ieee") {
      fail("precision", "\"precision\" must be \"fp24\" or \"ieee\"");
      return std::nullopt;
    }
    m.fp24 = p == "fp24";
  }
  if (j.contains("max_call_depth") && !integer(j["max_call_depth"], "max_call_depth", 1, 1 << 20, &m.max_call_depth)) return std::nullopt;
  if (j.contains("max_steps")) {
    if (!j["max_steps"].is_number_unsigned() || j["max_steps"].get<std::uint64_t>() == 0) {
      fail("max_steps", "\"max_steps\" must be a positive integer");
      return std::nullopt;
    }
    m.max_steps = j["max_steps"].get<std::uint64_t>();
  }
  if (j.contains("cores") && !integer(j["cores"], "cores", 1, 1024, &m.cores)) return std::nullopt;
  if (j.contains("chunks_in_flight") && !integer(j["chunks_in_flight"], "chunks_in_flight", 1, 1024, &m.chunks_in_flight)) return std::nullopt;
  if (j.contains("trace_unit") && !parse_trace_unit(j["trace_unit"], m.trace_unit, fail, integer)) return std::nullopt;
  return m;
}

}  // namespace

std::string machines_dir() { return paths::data_dirs().resources + "/rpu"; }

std::optional<Machine> load_machine(const std::string& name_or_path, lang::Diagnostics* diagnostics) {
  lang::Diagnostics own;
  lang::Diagnostics& d = diagnostics ? *diagnostics : own;
  fs::path path = name_or_path;
  if (name_or_path.find('/') == std::string::npos && path.extension() != ".json")
    path = fs::path(machines_dir()) / (name_or_path + ".json");
  const std::optional<lang::FileId> file = d.sources().load(path.string(), nullptr);
  if (!file) {
    d.error("file-not-found", lang::file_span(d.sources().add(path.string(), "")), "cannot read the machine description");
    return std::nullopt;
  }
  return parse_machine(*file, d);
}

const Machine& default_machine() {
  static const Machine m = [] {
    lang::Diagnostics problems;
    std::optional<Machine> loaded = load_machine("rpu", &problems);
    if (!loaded) throw std::runtime_error("the RPU machine description is missing: " + problems.summary());
    return *loaded;
  }();
  return m;
}

int literal_count(const Instruction& in) {
  int n = 0;
  for (const Operation* op : {&in.primary, &in.secondary})
    for (int k = 0; k < source_count(op->op); ++k) n += op->src[static_cast<std::size_t>(k)].is_literal();
  return n;
}

int stack_reads(const Instruction& in) {
  int n = 0;
  for (const Operation* op : {&in.primary, &in.secondary})
    for (int k = 0; k < source_count(op->op); ++k) n += op->src[static_cast<std::size_t>(k)].bank == Bank::Stack;
  return n;
}

std::string pair_problem(const Operation& a, const Operation& b, const Machine& m) {
  if (!m.pairing) return "this machine issues one operation per word";
  for (const Operation* op : {&a, &b}) {
    if (!is_arithmetic(op->op)) return std::string("'") + mnemonic(op->op) + "' cannot be paired";
    if (is_dot(op->op)) return std::string("a dot product ('") + mnemonic(op->op) + "') uses all four lanes and cannot be paired";
    if (op->dst.bank == Bank::A) return "a write to the address register cannot be paired";
  }
  const std::uint8_t ma = a.dst.mask, mb = b.dst.mask;
  auto within = [](std::uint8_t mask, std::uint8_t half) { return mask != 0 && (mask & ~half) == 0; };
  std::uint8_t half_a = 0, half_b = 0;
  for (auto [x, y] : {std::pair<std::uint8_t, std::uint8_t>{kMaskXYZ, kMaskW}, {kMaskW, kMaskXYZ}, {0x3, 0xC}, {0xC, 0x3}})
    if (within(ma, x) && within(mb, y)) {
      half_a = x;
      half_b = y;
      break;
    }
  if (!half_a) return "a pair writes xyz + w (3/1) or xy + zw (2/2): these write masks do not split that way";
  if (a.special != SpecialFn::None && !(half_a & kMaskW)) return "_rcp/_rsq reads lane w, which the other half computes";
  if (b.special != SpecialFn::None && !(half_b & kMaskW)) return "_rcp/_rsq reads lane w, which the other half computes";
  std::set<std::pair<int, std::uint32_t>> regs;
  int stack = 0, literals = 0;
  for (const Operation* op : {&a, &b})
    for (int k = 0; k < source_count(op->op); ++k) {
      const Source& s = op->src[static_cast<std::size_t>(k)];
      if (s.is_literal()) ++literals;
      else regs.insert({static_cast<int>(s.bank), s.index});
      if (s.bank == Bank::Stack) ++stack;
    }
  if (static_cast<int>(regs.size()) > m.pair_read_ports)
    return "the pair reads " + std::to_string(regs.size()) + " registers; the register file has " + std::to_string(m.pair_read_ports) +
           " read ports";
  if (stack > 1) return "the stack has one read port: a pair can read one stack slot";
  if (m.literals_per_instruction >= 0 && literals > m.literals_per_instruction)
    return "the pair has " + std::to_string(literals) + " literals; one word holds " + std::to_string(m.literals_per_instruction);
  return "";
}

}  // namespace passlab::rpu
