// SPDX-License-Identifier: GPL-3.0-or-later
// Reads a combiner target's machine description; every mistake names the file and the key.
#include "backends/combiners/machine.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/lang/diagnostics.h"
#include "core/lang/json_error.h"

namespace passlab::combiners {

using json = nlohmann::json;

const char* to_string(Part p) { return p == Part::Rgb ? "rgb" : "alpha"; }

const char* to_string(InputClass c) {
  switch (c) {
    case InputClass::Interpolant: return "interpolant";
    case InputClass::Texture: return "texture";
    case InputClass::Constant: return "constant";
    case InputClass::PrimitiveGroup: return "primitive_group";
  }
  return "?";
}

int Machine::find(const std::string& n) const {
  for (std::size_t i = 0; i < registers.size(); ++i)
    if (registers[i].name == n) return static_cast<int>(i);
  return -1;
}

int Machine::find_rc(const std::string& rc) const {
  for (std::size_t i = 0; i < registers.size(); ++i)
    if (registers[i].rc == rc) return static_cast<int>(i);
  return -1;
}

int Machine::zero_register() const {
  for (std::size_t i = 0; i < registers.size(); ++i)
    if (registers[i].zero) return static_cast<int>(i);
  return -1;
}

int Machine::texture_register(int unit) const {
  for (std::size_t i = 0; i < registers.size(); ++i)
    if (registers[i].texture_unit == unit) return static_cast<int>(i);
  return -1;
}

std::vector<int> Machine::constant_registers() const {
  std::vector<int> out;
  for (std::size_t i = 0; i < registers.size(); ++i)
    if (registers[i].accepts[static_cast<std::size_t>(InputClass::Constant)]) out.push_back(static_cast<int>(i));
  return out;
}

namespace {

// The last name in a key path ("registers[2].accepts" -> "accepts", "registers[2]" -> "registers").
std::string leaf(const std::string& key) {
  std::string k = key.substr(0, key.find('[', key.rfind('.') == std::string::npos ? 0 : key.rfind('.')));
  const std::size_t dot = k.rfind('.');
  return dot == std::string::npos ? k : k.substr(dot + 1);
}

struct Reader {
  lang::Diagnostics& d;
  lang::FileId file = 0;  // the target file, when the diagnostics hold it
  std::size_t base = 0;   // where its "combiners" object starts
  bool failed = false;

  // The first problem only: later ones tend to follow from it.
  bool fail(const std::string& key, const std::string& why) {
    if (!failed) {
      const lang::Span at = file ? lang::key_span(d.sources(), file, leaf(key), base) : lang::Span{};
      d.error("target", at, key.empty() ? why : fmt::format("combiners.{}: {}", key, why));
    }
    failed = true;
    return false;
  }
  bool parts(const json& v, const std::string& key, std::uint8_t* out) {
    if (!v.is_string()) return fail(key, "must be \"rgb\", \"alpha\" or \"rgba\", got " + v.dump());
    const std::string s = v.get<std::string>();
    if (s == "rgb") *out = kRgbBit;
    else if (s == "alpha") *out = kAlphaBit;
    else if (s == "rgba") *out = kRgbBit | kAlphaBit;
    else if (s == "none") *out = 0;
    else return fail(key, "must be \"rgb\", \"alpha\", \"rgba\" or \"none\", got " + v.dump());
    return true;
  }
  bool integer(const json& v, const std::string& key, int lo, int hi, int* out) {
    if (!v.is_number_integer() || v.get<int>() < lo || v.get<int>() > hi)
      return fail(key, fmt::format("must be an integer from {} to {}, got {}", lo, hi, v.dump()));
    *out = v.get<int>();
    return true;
  }
  bool boolean(const json& v, const std::string& key, bool* out) {
    if (!v.is_boolean()) return fail(key, "must be true or false, got " + v.dump());
    *out = v.get<bool>();
    return true;
  }
};

std::optional<InputClass> class_named(const std::string& s) {
  for (int c = 0; c < kInputClasses; ++c)
    if (s == to_string(static_cast<InputClass>(c))) return static_cast<InputClass>(c);
  return std::nullopt;
}

// The nvparse name says which hardware register an entry is (NV_register_combiners Table 1), and
// the compiler, the simulator and the listing go by it: constants are loaded into const0, const1
// and fog, spare0.a holds MUX controls, unit n's result is texn. So an entry's flags must be those
// the register has (the target fuzzer found a renamed "cnnst0" that took a constant the simulator
// never loaded). "" when they are.
std::string role_problem(const RegisterDesc& d) {
  const auto accepts = [&d](InputClass c) { return d.accepts[static_cast<std::size_t>(c)] != 0; };
  const bool constant = accepts(InputClass::Constant) || accepts(InputClass::PrimitiveGroup);
  const bool colour = d.rc == "col0" || d.rc == "col1", spare = d.rc == "spare0" || d.rc == "spare1";
  const bool fixed = d.rc == "const0" || d.rc == "const1" || d.rc == "fog";
  int unit = -1;
  if (d.rc.size() > 3 && d.rc.compare(0, 3, "tex") == 0 && d.rc.find_first_not_of("0123456789", 3) == std::string::npos &&
      d.rc.size() <= 5 && (d.rc.size() == 4 || d.rc[3] != '0'))
    unit = std::stoi(d.rc.substr(3));
  if (d.rc != "zero" && !fixed && !colour && !spare && unit < 0)
    return fmt::format("\"rc\": '{}' is not an nvparse register (zero, const0, const1, fog, col0, col1, spare0, "
                       "spare1, tex0, tex1, ...)", d.rc);
  if (d.zero != (d.rc == "zero")) return "the zero register, and only it, is nvparse's 'zero' with \"zero\": true";
  if (d.writable && (d.rc == "zero" || fixed)) return fmt::format("'{}' is read-only in the hardware", d.rc);
  if (spare && !d.writable) return fmt::format("'{}' is a register the combiners write: it needs \"writable\": true", d.rc);
  if (d.texture_unit != unit)
    return unit >= 0 ? fmt::format("'{}' holds texture unit {}: it needs \"texture_unit\": {}", d.rc, unit, unit)
                     : fmt::format("a texture unit's result is in its 'tex<unit>' register, not in '{}'", d.rc);
  if (constant && !fixed) return fmt::format("constants go to const0, const1 or fog, not to '{}'", d.rc);
  if (accepts(InputClass::Texture) && unit < 0) return fmt::format("texture results go to a 'tex<unit>' register, not to '{}'", d.rc);
  if (accepts(InputClass::Interpolant) && !colour && unit < 0)
    return fmt::format("interpolants go to col0, col1 or a texture register, not to '{}'", d.rc);
  return "";
}

}  // namespace

std::optional<Machine> parse_machine(const partition::TargetDesc& target, lang::Diagnostics* diagnostics) {
  lang::Diagnostics own;
  Reader r{diagnostics ? *diagnostics : own};
  // The target file, if it was read into the diagnostics' sources (load_target does): problems
  // then point into its "combiners" object.
  if (!target.source.empty()) r.file = r.d.sources().find(target.source);
  if (r.file) r.base = lang::key_offset(r.d.sources(), r.file, "combiners");
  if (target.backend != "combiners") {
    r.fail("", "target '" + target.name + "' is not a register-combiner target");
    return std::nullopt;
  }
  json j;
  try {
    j = json::parse(target.machine_json);
  } catch (const json::exception& e) {
    r.fail("", "the \"combiners\" object is not valid JSON: " + lang::json_error(e, target.machine_json).message);
    return std::nullopt;
  }
  Machine m;
  m.name = target.name;
  bool has_registers = false;
  for (const auto& [key, v] : j.items()) {
    if (key == "general_stages") r.integer(v, key, 1, 64, &m.general_stages);
    else if (key == "texture_units") r.integer(v, key, 0, 16, &m.texture_units);
    else if (key == "precision_bits") r.integer(v, key, 0, 24, &m.precision_bits);
    else if (key == "texture_shaders") r.boolean(v, key, &m.texture_shaders);
    else if (key == "texture_3d") r.boolean(v, key, &m.texture_3d);
    else if (key == "constants") {
      if (!v.is_string() || (v != "global" && v != "per_stage")) r.fail(key, "must be \"global\" or \"per_stage\", got " + v.dump());
      else m.per_stage_constants = v == "per_stage";
    } else if (key == "registers") {
      has_registers = true;
      if (!v.is_array() || v.empty()) {
        r.fail(key, "must be a non-empty array of registers");
        break;
      }
      for (std::size_t i = 0; i < v.size() && !r.failed; ++i) {
        const json& e = v[i];
        const std::string at = fmt::format("registers[{}]", i);
        if (!e.is_object()) {
          r.fail(at, "must be an object");
          break;
        }
        RegisterDesc d;
        for (const auto& [k, x] : e.items()) {
          const std::string kk = at + "." + k;
          if (k == "name" || k == "rc") {
            if (!x.is_string() || x.get<std::string>().empty()) r.fail(kk, "must be a non-empty string");
            else (k == "name" ? d.name : d.rc) = x.get<std::string>();
          } else if (k == "parts") {
            r.parts(x, kk, &d.parts);
          } else if (k == "writable") {
            r.boolean(x, kk, &d.writable);
          } else if (k == "zero") {
            r.boolean(x, kk, &d.zero);
          } else if (k == "texture_unit") {
            r.integer(x, kk, 0, 15, &d.texture_unit);
          } else if (k == "accepts") {
            if (!x.is_object()) {
              r.fail(kk, "must map input classes to parts");
              continue;
            }
            for (const auto& [cls, p] : x.items()) {
              const auto c = class_named(cls);
              if (!c) {
                r.fail(kk + "." + cls, "unknown input class (interpolant, texture, constant, primitive_group)");
                continue;
              }
              r.parts(p, kk + "." + cls, &d.accepts[static_cast<std::size_t>(*c)]);
            }
          } else {
            r.fail(kk, "unknown key (name, rc, parts, writable, zero, texture_unit, accepts)");
          }
        }
        if (d.name.empty() || d.rc.empty()) r.fail(at, "needs a \"name\" and an \"rc\" (its nvparse name)");
        for (std::uint8_t a : d.accepts)
          if (a & ~d.parts) r.fail(at + ".accepts", "a class is given a part the register does not have");
        if (!r.failed) {
          const std::string why = role_problem(d);
          if (!why.empty()) r.fail(at, why);
        }
        if (m.find(d.name) >= 0) r.fail(at + ".name", "'" + d.name + "' is given twice");
        // Each entry is one hardware register: two sharing an nvparse name or a texture unit would
        // be one register holding two values (found by the target fuzzer: two "const1"s).
        for (const RegisterDesc& other : m.registers) {
          if (r.failed) break;
          if (other.rc == d.rc) r.fail(at + ".rc", "'" + d.rc + "' is already " + other.name + "'s nvparse name");
          else if (d.texture_unit >= 0 && other.texture_unit == d.texture_unit)
            r.fail(at + ".texture_unit", fmt::format("texture unit {} is already {}'s", d.texture_unit, other.name));
        }
        m.registers.push_back(std::move(d));
      }
    } else if (key == "classes") {
      if (!v.is_object()) {
        r.fail(key, "must map input classes to their rules");
        continue;
      }
      for (const auto& [cls, rules] : v.items()) {
        const auto c = class_named(cls);
        if (!c || !rules.is_object()) {
          r.fail(key + "." + cls, "an input class (interpolant, texture, constant, primitive_group) with an object of rules");
          continue;
        }
        ClassRules& cr = m.rules[static_cast<std::size_t>(*c)];
        for (const auto& [rk, rv] : rules.items()) {
          const std::string kk = key + "." + cls + "." + rk;
          if (rk == "split") r.boolean(rv, kk, &cr.split);
          else if (rk == "join") r.boolean(rv, kk, &cr.join);
          else if (rk == "blue") r.boolean(rv, kk, &cr.blue);
          else if (rk == "bias") r.boolean(rv, kk, &cr.bias);
          else if (rk == "reuse") r.boolean(rv, kk, &cr.reuse);
          else r.fail(kk, "unknown rule (split, join, blue, bias, reuse)");
        }
      }
    } else {
      r.fail(key, "unknown key (general_stages, texture_units, constants, texture_shaders, texture_3d, precision_bits, registers, classes)");
    }
    if (r.failed) break;
  }
  if (!r.failed && !has_registers) r.fail("registers", "missing: the register set is required");
  if (!r.failed && m.zero_register() < 0) r.fail("registers", "no register is marked \"zero\"");
  for (int u = 0; u < m.texture_units && !r.failed; ++u)
    if (m.texture_register(u) < 0) r.fail("registers", fmt::format("no register holds texture unit {}", u));
  if (r.failed) return std::nullopt;
  return m;
}

}  // namespace passlab::combiners
