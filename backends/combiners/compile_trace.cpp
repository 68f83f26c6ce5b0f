// SPDX-License-Identifier: GPL-3.0-or-later
// Words for the combiner compiler's events, built only when someone reads them.
#include "backends/combiners/compile_trace.h"

#include <fmt/format.h>

namespace passlab::combiners {

const char* to_string(CEvent k) {
  switch (k) {
    case CEvent::Unit: return "unit";
    case CEvent::Rewrite: return "rewrite";
    case CEvent::Mapping: return "mapping";
    case CEvent::Factor: return "factor";
    case CEvent::Combiner: return "combiner";
    case CEvent::Fill: return "fill";
    case CEvent::Transform: return "transform";
    case CEvent::Input: return "input";
    case CEvent::Place: return "place";
    case CEvent::Register: return "register";
    case CEvent::Constant: return "constant";
    case CEvent::Fail: return "fail";
  }
  return "?";
}

std::string reason(const CompileEvent& e, const Machine& m) {
  auto nodes = [&] {
    std::string s;
    for (std::size_t i = 0; i < e.nodes.size(); ++i) s += fmt::format("{}n{}", i ? ", " : "", e.nodes[i]);
    return s.empty() ? std::string("-") : s;
  };
  auto reg = [&] { return e.reg >= 0 && static_cast<std::size_t>(e.reg) < m.registers.size() ? m.registers[static_cast<std::size_t>(e.reg)].name : std::string("?"); };
  auto why = [&] { return e.why.empty() ? std::string() : " (" + e.why + ")"; };
  switch (e.kind) {
    case CEvent::Unit: return fmt::format("stage 1: texture unit {} does {} for {}{}", e.unit, e.what, nodes(), why());
    case CEvent::Rewrite: return fmt::format("stage 2: {} {} becomes {}", e.what, nodes(), e.why);
    case CEvent::Mapping: return fmt::format("stage 2: {} at {} is one {}{}", e.why.substr(0, e.why.find(':')), nodes(), e.what,
                                             e.why.find(':') == std::string::npos ? "" : " (" + e.why.substr(e.why.find(':') + 2) + ")");
    case CEvent::Factor: return fmt::format("stage 2: {} at {} factored: {}", e.what, nodes(), e.why);
    case CEvent::Combiner: return fmt::format("stage 3: combiner {} is {} {}: {}", e.combiner, e.what == "FINAL RGB" || e.what == "FINAL ALPHA" ? "the" : "a", e.what, e.why);
    case CEvent::Fill: return fmt::format("stage 3: combiner {} fills {} with {}{}", e.combiner, e.what, nodes(), why());
    case CEvent::Transform: return fmt::format("stage 3: combiner {}: {} at {}{}", e.combiner, e.what, nodes(), why());
    case CEvent::Input: return fmt::format("stage 4: the {} {} goes to {}.{}{}", e.what, nodes(), reg(), to_string(e.part), why());
    case CEvent::Place: return fmt::format("stage 5: combiner {} ({}) goes to stage {}{}", e.combiner, e.what, e.hw_stage, why());
    case CEvent::Register: return fmt::format("stage 5: combiner {} writes {} into {}.{}{}", e.combiner, nodes(), reg(), to_string(e.part), why());
    case CEvent::Constant: return fmt::format("stage 5: stage {} holds the constant {} in {}.{}{}", e.hw_stage, nodes(), reg(), to_string(e.part), why());
    case CEvent::Fail: return fmt::format("stage {}: the pass does not fit: {}", e.step, e.why);
  }
  return "";
}

}  // namespace passlab::combiners
