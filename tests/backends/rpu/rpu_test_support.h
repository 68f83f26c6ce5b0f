// Helpers for the RPU tests: assemble text (failing the test with the diagnostics) and run it.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "backends/rpu/assembler.h"
#include "backends/rpu/vm.h"

namespace passlab::rpu::test {

inline const Machine& ieee_machine() {
  static const Machine m = [] {
    std::string error;
    std::optional<Machine> loaded = load_machine("thesis_example", &error);
    EXPECT_TRUE(loaded) << error;
    return loaded ? *loaded : default_machine();
  }();
  return m;
}

// Assembles `text`; on failure records the diagnostics as a test failure and returns an
// empty program.
inline Program assemble_text(const std::string& text, const Machine* machine = nullptr) {
  lang::SourceManager sm;
  lang::FileId f = sm.add("test.s", text);
  lang::DiagnosticList diags;
  AssembleOptions o;
  o.machine = machine;
  std::optional<Program> p = assemble(sm, f, o, diags);
  EXPECT_TRUE(p) << lang::format_text(diags.items(), sm);
  return p ? *p : Program{};
}

// The first diagnostic assembling `text` gives, as "line:col: message" ("" when none).
inline std::string assemble_error(const std::string& text, const Machine* machine = nullptr) {
  lang::SourceManager sm;
  lang::FileId f = sm.add("test.s", text);
  lang::DiagnosticList diags;
  AssembleOptions o;
  o.machine = machine;
  std::optional<Program> p = assemble(sm, f, o, diags);
  if (diags.items().empty()) return "";
  const lang::Diagnostic& d = diags.items().front();
  return std::to_string(d.span.line) + ":" + std::to_string(d.span.col) + ": " + d.message;
}

}  // namespace passlab::rpu::test
