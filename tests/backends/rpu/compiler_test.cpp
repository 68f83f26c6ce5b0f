// SPDX-License-Identifier: GPL-3.0-or-later
// The RSL-to-RPU compiler: the thesis's worked examples stage by stage (Figure 5.2, the
// forwarding chain, source modifiers, folding, Figure 9.1's schedule, the allocator's coalescing),
// the ABI, calls and recursion against the interpreter, call expansion, pairing, and every
// unsupported feature as a diagnostic at its line.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "backends/rpu/codegen.h"
#include "backends/rpu/passes.h"
#include "backends/rpu/schedule.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using ir::Value;
using test::compile_error;
using test::compile_rsl;

// The listing without blank lines.
std::string code(const CompiledProgram& p) {
  std::string out;
  std::size_t pos = 0;
  while (pos < p.assembly.size()) {
    std::size_t end = p.assembly.find('\n', pos);
    std::string line = p.assembly.substr(pos, end - pos);
    if (!line.empty()) out += line + "\n";
    pos = end + 1;
  }
  return out;
}

Value f(float x) { return Value::scalar(x); }
Value vec(float x, float y, float z) { return Value::triple(lang::BaseType::Vector, x, y, z); }

TEST(RpuCompiler, Figure52CompilesToTheThesisListing) {
  auto p = compile_rsl("float add(float a, b) { return a+b; }\nfloat f() { return add(5,2) * 3; }\n");
  EXPECT_EQ(code(*p),
            "SUBROUTINE_ENTRY_add:\n"
            "    add R0.w, R0.w, R1.w\n"
            "    return\n"
            "SUBROUTINE_ENTRY_f:\n"
            "    mov R0.w, 5.0\n"
            "    mov R1.w, 2.0\n"
            "    call SUBROUTINE_ENTRY_add push 0\n"
            "    mul R0.w, R0.w, 3.0\n"
            "    return\n");
  EXPECT_EQ(epts_text(*p->program), "add 0\nf 2\n");
  EXPECT_EQ(test::run_function(*p, "f", {}, test::ieee_machine()).at(0).f[0], 21.0f);
}

TEST(RpuCompiler, ForwardingShortensTheThesisChainFromSixToThree) {
  // Section 7.6 exactly: B times the length of A, as code generation might leave it.
  AsmFunction fn;
  fn.name = "chain";
  fn.label = "SUBROUTINE_ENTRY_chain";
  const Loc A = fn.new_vreg(RegClass::Vector, "A"), B = fn.new_vreg(RegClass::Vector, "B"), C = fn.new_vreg(RegClass::Scalar, "C"),
            D = fn.new_vreg(RegClass::Scalar, "D"), E = fn.new_vreg(RegClass::Scalar, "E"), F = fn.new_vreg(RegClass::Vector, "F");
  fn.entry_defs = {phys_unit(kUnitXYZ + 0), phys_unit(kUnitXYZ + 1)};
  fn.blocks.emplace_back();
  auto op = [&](Opcode o, Dest d, Source a, Source b = {}, SpecialFn s = SpecialFn::None) {
    AsmInstr in;
    in.word.primary.op = o;
    in.word.primary.dst = d;
    in.word.primary.src = {a, b, Source{}};
    in.word.primary.special = s;
    fn.blocks[0].body.push_back(in);
  };
  auto S = [](int lane) { return Source::reg(Bank::Special, 0, Swizzle::splat(static_cast<std::uint8_t>(lane))); };
  auto junk = [](int lane) { return Dest{Bank::R, 15, static_cast<std::uint8_t>(1u << lane)}; };
  op(Opcode::Mov, vdst(fn, A), rsrc(0, RegClass::Vector));
  op(Opcode::Mov, vdst(fn, B), rsrc(1, RegClass::Vector));
  op(Opcode::Dp3, vdst(fn, C), vsrc(fn, A), vsrc(fn, A));   // dp3 C, A, A
  op(Opcode::Mov, junk(0), vsrc(fn, C), {}, SpecialFn::Rsq);  // mov_rsq R15.x, C
  op(Opcode::Mov, vdst(fn, D), S(0));                         // mov D, S.x
  op(Opcode::Mov, junk(1), vsrc(fn, D), {}, SpecialFn::Rcp);  // mov_rcp R15.y, D
  op(Opcode::Mov, vdst(fn, E), S(1));                         // mov E, S.y
  op(Opcode::Mul, vdst(fn, F), vsrc(fn, B), vsrc(fn, E));     // mul F, B, E
  op(Opcode::Mov, rdst(0, RegClass::Vector), vsrc(fn, F));
  fn.blocks[0].term.kind = Terminator::Kind::Return;
  fn.blocks[0].term.uses = {phys_unit(kUnitXYZ + 0)};
  AsmStats stats;
  EXPECT_TRUE(forward(fn, test::ieee_machine(), stats));
  eliminate_dead_code(fn, stats);
  std::vector<std::string> body;
  const TextOptions o = text_options(fn);
  for (std::size_t i = 2; i + 1 < fn.blocks[0].body.size(); ++i) body.push_back(to_text(fn.blocks[0].body[i].word, o));
  EXPECT_EQ(body, (std::vector<std::string>{"dp3_rsq R15.x, %v0.xyz, %v0.xyz", "mov_rcp R15.y, S.x", "mul %v5.xyz, %v1.xyz, S.y"}));
  EXPECT_EQ(stats["forward.dp3_special"], 1);

  // The same from RSL, through every stage.
  auto p = compile_rsl("vector f(vector a; vector b) { return b * length(a); }");
  EXPECT_EQ(code(*p),
            "SUBROUTINE_ENTRY_f:\n"
            "    dp3_rsq R15.x, R0.xyz, R0.xyz\n"
            "    mov_rcp R15.y, S.x\n"
            "    mul R0.xyz, R1.xyz, S.y\n"
            "    return\n");
}

TEST(RpuCompiler, MultipliesByPowersOfTwoBecomeSourceScales) {
  // Section 7.5: mul X, A, 2; mul Y, B, -4; sub Z, X, Y becomes add Z, 2*A, 4*B.
  auto p = compile_rsl("vector f(vector a; vector b) { return a * 2 - b * -4; }");
  EXPECT_EQ(code(*p), "SUBROUTINE_ENTRY_f:\n    add R0.xyz, 2*R0.xyz, 4*R1.xyz\n    return\n");
  EXPECT_EQ(test::run_function(*p, "f", {vec(1, 2, 3), vec(1, 1, 1)}, test::ieee_machine()).at(0).f[1], 8.0f);
}

TEST(RpuCompiler, DivisionByOneFoldsAway) {
  // Section 6.3: y = 1; z = x / y becomes nothing at all.
  auto p = compile_rsl("float f(float x) { float y = 1; float z = x / y; return z; }");
  EXPECT_EQ(code(*p), "SUBROUTINE_ENTRY_f:\n    return\n");
}

TEST(RpuCompiler, CrossProductIsTwoInstructions) {
  auto p = compile_rsl("vector f(vector a; vector b) { return a ^ b; }");
  const std::string c = code(*p);
  EXPECT_NE(c.find("mul R2.xyz, R0.yzx, R1.zxy\n"), std::string::npos) << c;
  EXPECT_NE(c.find("mad R0.xyz, -R0.zxy, R1.yzx, R2.xyz\n"), std::string::npos) << c;
  EXPECT_EQ(p->program->code.size(), 3u);
  const Value r = test::run_function(*p, "f", {vec(1, 2, 3), vec(4, 5, 6)}, test::ieee_machine()).at(0);
  EXPECT_EQ((std::array<float, 3>{r.f[0], r.f[1], r.f[2]}), (std::array<float, 3>{-3, 6, -3}));
}

TEST(RpuCompiler, CommonSubexpressionsAreComputedOnce) {
  // Early inlining and CSE (§5.3, §6.4): the length of one vector computed once.
  auto p = compile_rsl("float f(vector v; float x) { float a = length(v); if (x > 0) a = a + length(v); return a * length(v); }");
  const std::string c = code(*p);
  std::size_t dots = 0;
  for (std::size_t pos = c.find("dp3"); pos != std::string::npos; pos = c.find("dp3", pos + 1)) ++dots;
  EXPECT_EQ(dots, 1u) << c;
}

TEST(RpuCompiler, DeadLoopVariablesDisappear) {
  // Figure 7.2's shape: a and b change in the loop but nothing reads them.
  auto p = compile_rsl(
      "float f(float n) { float a = 0, b = 1, c = 0, d = 0; while (c < n) { a = a + b; b = b * 2; d = d + c; c = c + 1; } return d; }");
  EXPECT_EQ(code(*p).find("mul"), std::string::npos) << code(*p);
  EXPECT_EQ(test::run_function(*p, "f", {f(5)}, test::ieee_machine()).at(0).f[0], 10.0f);
}

// The thesis's block: 1 add X,A,1  2 dp3 Y,B,B  3 mul Z,X,Y  4 dp3 D,A,B  5 mul E,A,5  6 add F,D,E
std::vector<SchedNode> figure91_nodes() {
  enum : Loc { A = 1, B, X, Y, Z, D, E, F };
  auto node = [](std::vector<Loc> reads, Loc write, int latency) {
    SchedNode n;
    n.reads = std::move(reads);
    n.writes = {write};
    n.latency = latency;
    return n;
  };
  return {node({A}, X, 3), node({B}, Y, 5), node({X, Y}, Z, 5), node({A, B}, D, 5), node({A}, E, 5), node({D, E}, F, 3)};
}

TEST(RpuCompiler, SchedulingReproducesFigure91) {
  const std::vector<SchedNode> nodes = figure91_nodes();
  const BlockSchedule s = schedule_block(nodes, test::ieee_machine(), {});
  EXPECT_EQ(s.path, (std::vector<int>{8, 10, 5, 8, 8, 3}));
  EXPECT_EQ(s.successors, (std::vector<int>{1, 1, 0, 1, 1, 0}));
  EXPECT_EQ(s.order, (std::vector<int>{1, 3, 4, 0, 2, 5}));  // 2, 4, 5, 1, 3, 6
  EXPECT_EQ(s.issue, (std::vector<int>{4, 1, 7, 2, 3, 8}));
  EXPECT_EQ(s.cycles, 11);
  EXPECT_EQ(s.unscheduled_cycles, 16);
  ASSERT_EQ(s.table.size(), 12u);
  const std::vector<std::vector<int>> candidates = {{0, 1, 3, 4}, {0, 3, 4}, {0, 4}, {0}, {}, {}, {2}, {5}, {}, {}, {}, {}};
  const std::vector<std::vector<int>> available = {{}, {}, {}, {}, {}, {1}, {0, 3}, {4}, {}, {}, {5}, {2}};
  for (std::size_t c = 0; c < 12; ++c) {
    EXPECT_EQ(s.table[c].cycle, static_cast<int>(c + 1));
    EXPECT_EQ(s.table[c].candidates, candidates[c]) << "cycle " << c + 1;
    EXPECT_EQ(s.table[c].became_available, available[c]) << "cycle " << c + 1;
  }
  EXPECT_NE(schedule_table_text(s, nodes).find("scheduled: 11 cycles; in program order: 16"), std::string::npos);
}

TEST(RpuCompiler, AnOrderGivenByHandIsTimedLikeTheScheduler) {
  // Figure 9.1's block again: the scheduler's own order gives its table back; program order gives
  // the unscheduled length; an order that reads a value before it is computed is refused.
  const std::vector<SchedNode> nodes = figure91_nodes();
  const BlockSchedule s = schedule_block(nodes, test::ieee_machine(), {});
  std::string why;
  const auto same = schedule_in_order(s, s.order, &why);
  ASSERT_TRUE(same) << why;
  EXPECT_EQ(same->cycles, s.cycles);
  EXPECT_EQ(same->issue, s.issue);
  ASSERT_EQ(same->table.size(), s.table.size());
  for (std::size_t c = 0; c < s.table.size(); ++c) {
    EXPECT_EQ(same->table[c].candidates, s.table[c].candidates) << "cycle " << c + 1;
    EXPECT_EQ(same->table[c].became_available, s.table[c].became_available) << "cycle " << c + 1;
    EXPECT_EQ(same->table[c].issued, s.table[c].issued) << "cycle " << c + 1;
  }
  const auto program = schedule_in_order(s, {0, 1, 2, 3, 4, 5}, &why);
  ASSERT_TRUE(program) << why;
  EXPECT_EQ(program->cycles, s.unscheduled_cycles);  // 16
  // 2 4 5 1 6 3: F (6) waits for E until cycle 8 (stalls in 5, 6, 7), Z (3) issues in 9 and is
  // ready in 14: 13 cycles, where the scheduler, issuing Z before F, needs 11.
  const auto mine = schedule_in_order(s, {1, 3, 4, 0, 5, 2}, &why);
  ASSERT_TRUE(mine) << why;
  EXPECT_EQ(mine->cycles, 13);
  EXPECT_EQ(mine->issue, (std::vector<int>{4, 1, 9, 2, 3, 8}));
  int stalls = 0;
  for (const auto& row : mine->table) stalls += row.issued.empty() && row.cycle < mine->issue[2];
  EXPECT_EQ(stalls, 3);
  EXPECT_FALSE(schedule_in_order(s, {2, 0, 1, 3, 4, 5}, &why));  // Z before X and Y
  EXPECT_NE(why.find("instruction 3 comes before 1"), std::string::npos) << why;
  EXPECT_FALSE(schedule_in_order(s, {0, 1, 2, 3, 4}, &why));
  EXPECT_NE(why.find("6 is never issued"), std::string::npos) << why;
  EXPECT_FALSE(schedule_in_order(s, {0, 1, 2, 3, 4, 4}, &why));
}

TEST(RpuCompiler, TheVmIssuesFigure91AsTheScheduleDoes) {
  // The compiled fig91 (samples/rpu/schedule_example.sl) on the thesis's machine: every word of
  // the block issues in the cycle the list scheduler gave it, and its last result is ready when
  // the schedule says the block is done.
  CompileOptions o;
  o.machine = &test::ieee_machine();
  std::unique_ptr<CompiledProgram> p = compile_files({std::string(PASSLAB_SAMPLES_DIR) + "/rpu/schedule_example.sl"}, o);
  ASSERT_TRUE(p->ok()) << lang::format_text(p->diagnostics.items(), *p->sources);
  const FunctionInfo* fn = p->function("fig91");
  ASSERT_TRUE(fn);
  const FunctionSchedule& sched = p->schedules.at(fn->label);
  ASSERT_FALSE(sched.pieces.empty());
  const BlockSchedule& block = sched.pieces.front();
  ThreadState t = thread_at(fn->address);
  VmOptions vo;
  vo.machine = &test::ieee_machine();
  Vm vm(*p->program, vo);
  VmStats stats;
  Recording rec;
  vm.run(t, stats, &rec);
  ASSERT_GE(rec.steps.size(), block.order.size());
  int done = 0;
  for (std::size_t k = 0; k < block.order.size(); ++k) {
    const int i = block.order[k];
    EXPECT_EQ(rec.steps[k].cycle + 1, static_cast<std::uint64_t>(block.issue[static_cast<std::size_t>(i)])) << block.text[static_cast<std::size_t>(i)];
    done = std::max(done, block.issue[static_cast<std::size_t>(i)] - 1 + block.latency[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(done, block.cycles);
  EXPECT_EQ(block.cycles, 11);
}

TEST(RpuCompiler, TheAllocatorCoalescesLikeTheThesisResults) {
  // Section 12.2: the normal before and after the flip share one register; section 12.1: the
  // ray direction is computed straight into R1.xyz, where the call wants it.
  auto flat = compile_rsl(R"(surface s() {
    vector norm = N;
    if (norm . I > 0)
        norm = -norm;
    vector light_source = vector(-0.2, 0.5, 0.0);
    vector hit_to_light = normalize(light_source - P);
    float uf = clamp(norm . hit_to_light, 0, 1);
    float i  = clamp(0.6 * uf + 0.4, 0, 1);
    Ci = Cs * i;
  })");
  bool flipped_in_place = false;
  for (const Instruction& in : flat->program->code) {
    const Operation& o = in.primary;
    if (o.op == Opcode::Mov && o.src[0].negate && o.src[0].bank == Bank::R && o.dst.bank == Bank::R && o.dst.index == o.src[0].index &&
        o.dst.mask == kMaskXYZ)
      flipped_in_place = true;
  }
  EXPECT_TRUE(flipped_in_place) << flat->assembly;
  auto main = compile_rsl(R"(color m(point P) {
    point orig = (0.0, 0.0, 0.0);
    vector dir0 = (0.0, 0.0, 1.0);
    vector diri = (2.0, -2.0, 0.0);
    vector s = (0.5, 0.5, 0.0);
    vector dir = normalize(dir0 + (P - s) * diri);
    return trace(orig, dir);
  })");
  const std::string c = code(*main);
  EXPECT_NE(c.find("mul R1.xyz,"), std::string::npos) << c;
  EXPECT_NE(c.find("trace 0.0, R1.xyz, C31"), std::string::npos) << c;
  EXPECT_EQ(c.find("mov R1.xyz"), std::string::npos) << c;
}

// A test of each lane of one vector joined by && is one test of those lanes (`and xyz`), not a
// branch per lane; || is one test of any lane; lanes of two vectors compare their difference.
TEST(RpuCompiler, ComponentTestsOfOneVectorAreOneLaneTest) {
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string all = code(*compile_rsl("float f(vector a) { float r = 2; if (xcomp(a) >= 0 && ycomp(a) >= 0 && zcomp(a) >= 0) r = 1; return r; }"));
  EXPECT_EQ(count(all, "jmp L"), 1u + count(all, "\n    jmp L")) << all;  // one conditional jump
  EXPECT_NE(all.find("mov R15.xyz, R0.xyz + jmp"), std::string::npos) << all;
  EXPECT_NE(all.find("and xyz (>=0)"), std::string::npos) << all;
  const std::string any = code(*compile_rsl("float f(vector a) { float r = 2; if (xcomp(a) < 0.5 || zcomp(a) < 0.5) r = 1; return r; }"));
  EXPECT_EQ(count(any, "jmp L"), 1u + count(any, "\n    jmp L")) << any;
  EXPECT_NE(any.find("and xz (>=0)"), std::string::npos) << any;  // a < 0.5 in both lanes: not (a - 0.5 >= 0) in either
  const std::string two = code(*compile_rsl("float f(vector a; vector b) { float r = 2; if (comp(a, 0) <= comp(b, 0) && comp(a, 1) <= comp(b, 1)) r = 1; return r; }"));
  EXPECT_NE(two.find("add R15.xy, R1.xyz, -R0.xyz + jmp"), std::string::npos) << two;
  // Tests of different vectors, or of one lane twice, stay separate branches.
  const std::string apart = code(*compile_rsl("float f(vector a; vector b) { float r = 2; if (xcomp(a) >= 0 && ycomp(b) >= 0) r = 1; return r; }"));
  EXPECT_EQ(count(apart, "jmp L") - count(apart, "\n    jmp L"), 2u) << apart;
}

TEST(RpuCompiler, ClampToZeroOneIsTheSatModifierOnTheOperationThatComputedIt) {
  // The thesis's flat shader's clamps: dp3_sat and mad_sat, no branch.
  auto p = compile_rsl("float f(vector a; vector b) { float u = clamp(a . b, 0, 1); return clamp(0.6 * u + 0.4, 0, 1); }");
  EXPECT_EQ(code(*p), "SUBROUTINE_ENTRY_f:\n    dp3_sat R1.w, R0.xyz, R1.xyz\n    mad_sat R0.w, 0.6, R1.w, 0.4\n    return\n");
  // A value read elsewhere too keeps its own register: the clamp is a mov_sat beside it.
  auto q = compile_rsl("color f(vector a; vector b) { float d = a . b; return color(clamp(d, 0, 1), d, 0); }");
  const std::string c = code(*q);
  EXPECT_NE(c.find("mov_sat"), std::string::npos) << c;
  EXPECT_EQ(c.find("jmp"), std::string::npos) << c;
  // Other bounds still branch.
  EXPECT_NE(code(*compile_rsl("float f(float x) { return clamp(x, 0, 2); }")).find("jmp"), std::string::npos);
  // On the VM: NaN saturates to 0, and values outside [0, 1] to the bounds, as the reference says.
  auto r = compile_rsl("float f(float x) { return clamp(x * 3 - 1, 0, 1); }");
  for (float x : {-1.0f, 0.5f, 2.0f}) {
    ThreadState t = thread_at(*r->program->entry("f"));
    t.r(0)[3] = x;
    VmStats stats;
    Vm vm(*r->program);
    vm.run(t, stats);
    EXPECT_FLOAT_EQ(t.r(0)[3], std::clamp(x * 3 - 1, 0.0f, 1.0f)) << x;
  }
}

TEST(RpuCompiler, NumbersBeyondTheTwentyFourBitFloatsAreWarnedAboutAndBecomeWhatTheMachineMakesOfThem) {
  auto p = compile_rsl("float f(float x) { return x * 1e30 + 1e-30; }");
  std::vector<std::string> warnings;
  for (const lang::Diagnostic& d : p->diagnostics.items())
    if (d.code == "rpu-literal") warnings.push_back(std::to_string(d.span.col) + ": " + d.message);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "27: 1e+30 is beyond the RPU's 24-bit floats (the largest is about 1.8e19): it is infinity on this machine");
  EXPECT_EQ(warnings[1], "27: 1e-30 is below the RPU's smallest 24-bit float (about 2.2e-19): it is 0 on this machine");
  EXPECT_NE(code(*p).find("inf"), std::string::npos) << code(*p);
  // The runtime library's deliberate infinities (1e30 * 1e30) say nothing; IEEE machines neither.
  CompileOptions ieee;
  ieee.machine = &test::ieee_machine();
  auto q = compile_rsl("float f(float x) { return x * 1e30 + exp(x); }", ieee);
  for (const lang::Diagnostic& d : q->diagnostics.items()) EXPECT_NE(d.code, "rpu-literal") << d.message;
}

TEST(RpuCompiler, ArgumentsFollowFigure71) {
  // a -> R0.xyz, b -> R1.xyz, c -> R0.w; the result in R0.xyz.
  auto p = compile_rsl("color f(vector a; color b; float c) { return b * c + color(a); }");
  EXPECT_EQ(code(*p), "SUBROUTINE_ENTRY_f:\n    mad R0.xyz, R1.xyz, R0.w, R0.xyz\n    return\n");
}

TEST(RpuCompiler, CallsRecursionAndOutputParametersMatchTheReference) {
  auto p = compile_rsl(R"(
    float fib(float n) { if (n < 2) return n; return fib(n - 1) + fib(n - 2); }
    void split(float x; output float whole; output color parts) { whole = floor(x); parts = color(x, x - whole, whole); }
    float keep(vector a; vector b; vector c; float k; float m) {
      float w; color pc;
      split(k * 3.7, w, pc);               /* a, b, c, m live across the call */
      return (a . b) + (c . vector(pc)) * w + m + fib(w);
    }
    float swap_loop(float n) {
      float a = 1, b = 2, i;
      for (i = 0; i < n; i += 1) { float t = a; a = b; b = t; }
      return a * 10 + b;
    }
    float nested(float x) {
      float s = 0, i, j;
      for (i = 0; i < 4; i += 1) {
        if (i == x) continue;
        for (j = 0; j < 3; j += 1) { if (j > i) break; s += i * j + 1; }
      }
      return s;
    })");
  for (float n : {0.f, 1.f, 2.f, 7.f, 10.f})
    EXPECT_EQ(test::run_function(*p, "fib", {f(n)}, test::ieee_machine()).at(0).f[0], test::run_reference(*p, "fib", {f(n)}).at(0).f[0]);
  test::Rng rng{7};
  for (int i = 0; i < 40; ++i) {
    const std::vector<Value> args = {vec(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)),
                                     vec(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)),
                                     vec(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)), f(rng.uniform(0, 2)), f(rng.uniform(-1, 1))};
    EXPECT_NEAR(test::run_function(*p, "keep", args, test::ieee_machine()).at(0).f[0], test::run_reference(*p, "keep", args).at(0).f[0], 1e-5);
  }
  for (float n : {0.f, 1.f, 2.f, 3.f, 6.f})
    EXPECT_EQ(test::run_function(*p, "swap_loop", {f(n)}, test::ieee_machine()).at(0).f[0], test::run_reference(*p, "swap_loop", {f(n)}).at(0).f[0]);
  for (float x : {-1.f, 0.f, 1.f, 2.f, 3.f})
    EXPECT_EQ(test::run_function(*p, "nested", {f(x)}, test::ieee_machine()).at(0).f[0], test::run_reference(*p, "nested", {f(x)}).at(0).f[0]);
  // The values live across the call to split are saved in the stack window and restored.
  EXPECT_NE(p->assembly.find("call SUBROUTINE_ENTRY_split push 3"), std::string::npos) << p->assembly;
  EXPECT_NE(p->assembly.find("mov S0"), std::string::npos);
}

TEST(RpuCompiler, RunawayRecursionIsAFaultNotACrash) {
  auto p = compile_rsl("float r(float x) { return r(x + 1) + 1; }");
  std::string fault;
  Machine m = test::ieee_machine();
  m.max_call_depth = 200;
  ThreadState t = thread_at(p->function("r")->address);
  VmOptions vo;
  vo.machine = &m;
  Vm vm(*p->program, vo);
  VmStats stats;
  vm.run(t, stats);
  EXPECT_EQ(t.status, ThreadStatus::Faulted);
  EXPECT_NE(t.fault.find("calls nested 200 deep (runaway recursion?)"), std::string::npos);
}

TEST(RpuCompiler, InliningIsAnOptionWithTheSameResults) {
  const char* src = "float sq(float x) { return x * x; }\nfloat f(float a) { return sq(a) + sq(a + 1); }\n";
  CompileOptions inline_small;
  inline_small.inline_limit = 10;
  auto called = compile_rsl(src);
  auto inlined = compile_rsl(src, inline_small);
  EXPECT_NE(called->assembly.find("call SUBROUTINE_ENTRY_sq"), std::string::npos);
  EXPECT_EQ(inlined->assembly.find("call"), std::string::npos);
  EXPECT_EQ(test::run_function(*called, "f", {f(3)}, test::ieee_machine()).at(0).f[0], 25.0f);
  EXPECT_EQ(test::run_function(*inlined, "f", {f(3)}, test::ieee_machine()).at(0).f[0], 25.0f);
}

TEST(RpuCompiler, PairingIssuesVectorAndScalarWorkTogether) {
  const char* src = "color f(color a; color b; float x; float y) { color c = a * b + a; float z = x * y + x; return c * z; }";
  CompileOptions pair;
  pair.pair = true;
  auto single = compile_rsl(src);
  auto paired = compile_rsl(src, pair);
  EXPECT_NE(paired->assembly.find("\n    || "), std::string::npos) << paired->assembly;
  const std::vector<Value> args = {Value::triple(lang::BaseType::Color, 1, 2, 3), Value::triple(lang::BaseType::Color, 0.5f, 0.25f, 2), f(3), f(-2)};
  VmStats s1, s2;
  const Value a = test::run_function(*single, "f", args, default_machine(), &s1).at(0);
  const Value b = test::run_function(*paired, "f", args, default_machine(), &s2).at(0);
  EXPECT_EQ(a.f, b.f);
  EXPECT_LT(s2.issues, s1.issues);
  EXPECT_GT(s2.paired_issues, 0u);
}

TEST(RpuCompiler, TheSameSourceGivesTheSameListing) {
  const char* src = "surface s(float k = 2) { normal n = normalize(N); Ci = Cs * clamp(n . normalize(-I), 0, 1) * k + trace(P, reflect(I, n)); }";
  EXPECT_EQ(compile_rsl(src)->assembly, compile_rsl(src)->assembly);
}

TEST(RpuCompiler, StringsAreHashesAndCollisionsAreWarned) {
  EXPECT_EQ(md5("")[0], 0xd4);  // d41d8cd98f00b204e9800998ecf8427e
  EXPECT_EQ(md5("")[15], 0x7e);
  EXPECT_EQ(md5("The quick brown fox jumps over the lazy dog")[0], 0x9e);  // 9e107d9d372bb6826bd81d3542a419d6
  EXPECT_EQ(string_hash("", 24), static_cast<float>(0xd41d8c));
  EXPECT_EQ(string_hash("", 17), static_cast<float>(0xd41d8c >> 7));
  // Two names whose 17-bit hashes collide: the compiler says so.
  std::map<float, std::string> seen;
  std::string a, b;
  for (int i = 0; a.empty(); ++i) {
    const std::string s = "name" + std::to_string(i);
    auto [it, fresh] = seen.insert({string_hash(s, 17), s});
    if (!fresh) {
      a = it->second;
      b = s;
    }
  }
  auto p = compile_rsl("float f(string s) { return s == \"" + a + "\" ? 1 : (s == \"" + b + "\" ? 2 : 0); }");
  bool warned = false;
  for (const lang::Diagnostic& d : p->diagnostics.items()) warned = warned || d.code == "rpu-string-collision";
  EXPECT_TRUE(warned);
}

TEST(RpuCompiler, UnsupportedFeaturesAreDiagnosticsAtTheirLine) {
  EXPECT_EQ(compile_error("float f(matrix m) {\n  return comp(m, 0, 0); }"), "1:16: matrices are not supported on the RPU (the thesis's compiler rejects them too)");
  // Derivatives are differences across a hit's pixel quad, which only a surface shader has.
  EXPECT_EQ(compile_error("float f(float x) {\n  return Du(x); }"),
            "2:10: 'Du' takes differences across the pixel quad, which on the RPU only a surface shader has (main and functions kept as "
            "calls shade no pixel quad); take it in the shader and pass the result");
  EXPECT_EQ(compile_error("surface s() {\n  point q = transform(\"nowhere\", P); Ci = xcomp(q); }"),
            "2:13: the light setup defines no coordinate system \"nowhere\"; add it under \"spaces\"");
  EXPECT_NE(compile_error("float f(matrix m; point p) {\n  return xcomp(transform(m, p)); }").find("matrices are not supported"), std::string::npos);
  EXPECT_NE(compile_error("light l() {\n  Cl = 1; }").find("a light shader cannot run on the RPU"), std::string::npos);
}

TEST(RpuCompiler, TooManyLiveValuesIsADiagnostic) {
  // Sixteen vectors live at once: the RPU has fifteen .xyz registers and cannot spill.
  std::string src = "vector f(vector a) {\n";
  for (int i = 1; i <= 16; ++i) src += "  vector v" + std::to_string(i) + " = a * " + std::to_string(1 + i * 0.125) + ";\n";
  src += "  return v1";
  for (int i = 2; i <= 16; ++i) src += " + v" + std::to_string(i) + " * v" + std::to_string(17 - i);
  src += ";\n}\n";
  EXPECT_NE(compile_error(src).find("register allocation failed in 'f'"), std::string::npos) << compile_error(src);
}

}  // namespace
}  // namespace passlab::rpu

namespace passlab::rpu {
namespace {

TEST(RpuCompiler, KeepsItsDecisionsForTheStudio) {
  CompileOptions o;
  o.keep_decisions = true;
  auto p = test::compile_rsl("float f(float a; float b; float c) { float t = a * b; return t + c; }\n", o);
  ASSERT_TRUE(p->ok());
  const std::string label = p->function("f")->label;
  // Forwarding made the product and the sum one mad, naming the fact it used.
  ASSERT_TRUE(p->forwarding.count(label));
  bool mad = false;
  for (const ForwardNote& n : p->forwarding.at(label))
    if (n.what == "mad") {
      mad = true;
      EXPECT_NE(n.after.find("mad"), std::string::npos) << n.after;
      ASSERT_EQ(n.facts.size(), 1u);
      EXPECT_NE(n.facts[0].find(" * "), std::string::npos) << n.facts[0];
    }
  EXPECT_TRUE(mad);
  ASSERT_TRUE(p->facts.count(label));
  EXPECT_FALSE(p->facts.at(label).empty());
  // The allocator names every value and the register it got.
  const Allocation& a = p->allocations.at(label);
  ASSERT_EQ(a.names.size(), a.reg.size());
  for (std::size_t v = 0; v < a.reg.size(); ++v)
    if (a.reg[v] >= 0) {
      EXPECT_EQ(a.registers[v].rfind("R", 0), 0u);
    }
  // Without the option, none of it is kept.
  auto q = test::compile_rsl("float f(float a; float b; float c) { float t = a * b; return t + c; }\n");
  EXPECT_TRUE(q->forwarding.empty());
  EXPECT_TRUE(q->facts.empty());
}

// Named coordinate systems (beyond the thesis): the light setup's matrices, in the program's
// constants, one dot product per component; the VM agrees with the interpreter.
TEST(RpuCompiler, NamedSpacesTransformByTheLightSetupsMatrices) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "passlab_rpu_spaces";
  std::filesystem::create_directories(dir);
  const std::string lights = (dir / "spaces.lights.json").string();
  // "shader": a rotation, a scale and a translation; "NDC": a perspective projection.
  std::ofstream(lights) << R"({"spaces": {
    "shader": [0.8, 0.6, 0, 0,  -0.6, 0.8, 0, 0,  0, 0, 2, 0,  1.5, -2, 0.25, 1],
    "NDC": [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 1,  0, 0, -0.5, 0]}})";
  CompileOptions o;
  o.lights_path = lights;
  auto p = test::compile_rsl(R"(
point pt(point p) { return transform("shader", p); }
vector vec(vector v) { return vtransform("shader", v); }
normal nrm(normal n) { return ntransform("shader", n); }
point back(point p) { return transform("shader", "current", p); }
point ndc(point p) { return transform("NDC", p); }
point world(point p) { return transform("world", p); }
surface s() { Ci = 0; }
)",
                             o);
  ASSERT_TRUE(p->ok());
  EXPECT_NE(p->assembly.find(".const C2, "), std::string::npos) << p->assembly;
  EXPECT_NE(p->assembly.find("dp3h"), std::string::npos) << p->assembly;
  EXPECT_EQ(p->program->constants.count(2), 1u);
  test::Rng rng{5};
  for (const char* f : {"pt", "vec", "nrm", "back", "ndc", "world"})
    for (int i = 0; i < 20; ++i) {
      const auto t = std::string(f) == "vec" ? lang::BaseType::Vector : std::string(f) == "nrm" ? lang::BaseType::Normal : lang::BaseType::Point;
      const ir::Value x = ir::Value::triple(t, rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(1, 4));
      const ir::Value got = test::run_function(*p, f, {x}, test::ieee_machine()).at(0), want = test::run_reference(*p, f, {x}).at(0);
      for (std::size_t c = 0; c < 3; ++c) EXPECT_NEAR(got.f[c], want.f[c], 1e-5f * (1 + std::fabs(want.f[c]))) << f << " lane " << c;
    }
  // A standard space the setup leaves out is the camera's own: no instruction at all.
  const FunctionInfo* w = p->function("world");
  ASSERT_TRUE(w);
  EXPECT_EQ(to_text(p->program->code.at(w->address)), "return");
  std::filesystem::remove_all(dir);
}

// Nine vectors live across a call need nine stack slots, and the window shows eight: the call goes
// through a spill stub that saves the ninth (such calls were refused before: Wood's fbm).
TEST(RpuCompiler, ACallKeepingMoreThanEightSlotsGoesThroughASpillStub) {
  std::string src = "float g(float x) { return x * 2 + 1; }\ncolor f(color a; float k) {\n";
  for (int i = 1; i <= 9; ++i) src += "  color c" + std::to_string(i) + " = a * " + std::to_string(i) + " + " + std::to_string(i) + ";\n";
  src += "  float y = g(k);\n  return c1 + c2 * c3 + c4 * c5 + c6 * c7 + c8 * c9 + y;\n}\n";
  auto p = test::compile_rsl(src);
  ASSERT_TRUE(p->ok());
  EXPECT_NE(p->assembly.find("push 8"), std::string::npos) << p->assembly;
  EXPECT_EQ(p->stats.at("output.spill_stubs"), 1) << p->assembly;
  const std::vector<ir::Value> args{ir::Value::triple(lang::BaseType::Color, 0.5f, -1.25f, 2), ir::Value::scalar(3)};
  for (const Machine* m : {&test::ieee_machine(), &default_machine()}) {
    const ir::Value got = test::run_function(*p, "f", args, *m).at(0), want = test::run_reference(*p, "f", args).at(0);
    for (std::size_t c = 0; c < 3; ++c) EXPECT_NEAR(got.f[c], want.f[c], 1e-3f * (1 + std::fabs(want.f[c]))) << c << "\n" << p->assembly;
  }
}

TEST(RpuCompiler, CompilesTheEditorsTextInsteadOfTheFile) {
  const std::string path = (std::filesystem::temp_directory_path() / "passlab_unsaved_test.sl").string();
  std::ofstream(path) << "float f() { return 1; }\n";
  CompileOptions o;
  o.unsaved[path] = "float f() { return 2; }\n";
  auto p = compile_files({path}, o);
  ASSERT_TRUE(p->ok());
  EXPECT_EQ(test::run_function(*p, "f", {}, test::ieee_machine()).at(0).f[0], 2.0f);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace passlab::rpu
