// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers for the RPU tests: assemble text (failing the test with the diagnostics) and run it.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "backends/rpu/assembler.h"
#include "backends/rpu/vm.h"
#include "core/ir/splitmix.h"

namespace passlab::rpu::test {

inline const Machine& ieee_machine() {
  static const Machine m = [] {
    lang::Diagnostics problems;
    std::optional<Machine> loaded = load_machine("thesis_example", &problems);
    EXPECT_TRUE(loaded) << problems.text();
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

#include <cmath>
#include <memory>

#include "backends/rpu/compiler.h"
#include "backends/rpu/memory_map.h"
#include "core/ir/interpreter.h"

namespace passlab::rpu::test {

// Compiles RSL text (failing the test with the diagnostics when it does not compile).
inline std::unique_ptr<CompiledProgram> compile_rsl(const std::string& text, CompileOptions options = {}) {
  std::unique_ptr<CompiledProgram> p = compile_sources({{"test.sl", text}}, options);
  EXPECT_TRUE(p->ok()) << lang::format_text(p->diagnostics.items(), *p->sources) << "\n" << text;
  return p;
}

// The first error compiling `text` as "line:col: message" ("" when it compiles).
inline std::string compile_error(const std::string& text, CompileOptions options = {}) {
  std::unique_ptr<CompiledProgram> p = compile_sources({{"test.sl", text}}, options);
  for (const lang::Diagnostic& d : p->diagnostics.items())
    if (d.severity == lang::Severity::Error) return std::to_string(d.span.line) + ":" + std::to_string(d.span.col) + ": " + d.message;
  return "";
}

// Runs function `name` on the VM with arguments placed by the ABI; returns its results (as IR
// values) and whether the thread finished.
inline std::vector<ir::Value> run_function(const CompiledProgram& p, const std::string& name, const std::vector<ir::Value>& args,
                                           const Machine& machine, VmStats* stats = nullptr, std::string* fault = nullptr) {
  const FunctionInfo* fn = p.function(name);
  EXPECT_TRUE(fn) << "no function " << name;
  if (!fn || !p.program) return {};
  ThreadState t = thread_at(fn->address);
  int nv = 0, ns = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (lang::is_triple(fn->args[i])) {
      Vec4& r = t.r(nv++);
      r[0] = args[i].f[0];
      r[1] = args[i].f[1];
      r[2] = args[i].f[2];
    } else {
      t.r(ns++)[3] = args[i].f[0];
    }
  }
  VmOptions vo;
  vo.machine = &machine;
  Vm vm(*p.program, vo);
  std::vector<Vec4> memory;
  write_noise_lattice(memory);
  p.textures.write(memory);
  vm.set_memory(&memory);
  VmStats local;
  vm.run(t, stats ? *stats : local);
  if (fault) *fault = t.fault;
  EXPECT_EQ(t.status, ThreadStatus::Done) << name << ": " << t.fault;
  std::vector<ir::Value> out;
  nv = ns = 0;
  for (lang::BaseType type : fn->results) {
    if (lang::is_triple(type)) {
      const Vec4& r = t.r(nv++);
      out.push_back(ir::Value::triple(type, r[0], r[1], r[2]));
    } else {
      out.push_back(ir::Value::scalar(t.r(ns++)[3]));
    }
  }
  return out;
}

// The same function run by the reference interpreter on its IR.
inline std::vector<ir::Value> run_reference(const CompiledProgram& p, const std::string& name, const std::vector<ir::Value>& args) {
  const FunctionInfo* fn = p.function(name);
  if (!fn) return {};
  ir::RunOptions ro;
  ro.max_depth = 4096;
  ir::EvalContext ctx;
  ctx.spaces = p.module_spaces.at(fn->file);
  ctx.textures = &p.textures.sampler();
  ir::RunResult r = ir::interpret_function(p.modules.at(fn->file), fn->function, args, {}, {}, ctx, ro);
  EXPECT_TRUE(r.ok) << r.error;
  return r.results;
}

// |a - b| within abs + rel * |b|; NaN only equals NaN; infinities must agree.
inline bool close(float a, float b, float rel, float abs) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b || (std::isinf(b) && std::fabs(a) > 1e18f);
  return std::fabs(a - b) <= abs + rel * std::fabs(b);
}

// The tests' random inputs, the same on every machine (SplitMix64).
struct Rng {
  ir::SplitMix64 g;
  std::uint64_t next() { return g.next(); }
  float uniform(float lo, float hi) { return g.range(lo, hi); }
};

}  // namespace passlab::rpu::test
