// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU assembler: the thesis's listings assemble and print back the same, and every mistake
// is a diagnostic at its line and column.
#include <cmath>

#include <gtest/gtest.h>

#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using test::assemble_error;
using test::assemble_text;

// Section 12.1: the depth-shaded bunny's surface shader and main shader, as printed.
const char* kThesisDepthShaded = R"(
SUBROUTINE_ENTRY_s:
    mul R3.xyz, R1.xyz, HIT.z
    add R2.xyz, R0.xyz, R3.xyz
    dp3_rsq R15.y, R2.xyz, R2.xyz
    mov_rcp R15.z, S.y
    add R1.w, 1.8, -S.z
    add R0.w, 1.0, -R1.w
    mov R0.xz, R0.w
    mov R0.y, R1.w
    mov R0, R0 + return or xyzw (>=0 or <1)
SUBROUTINE_ENTRY_m:
    mov R2.xy, 0.5
    mov R3.x, 2.0
    mov R2.z, 0.0
    mov R4.xy, 0.0
    mov R3.y, -2.0
    add R5.xyz, R0.xyz, -R2.xyz
    mov R4.z, 1.0
    mov R3.z, 0.0
    mad R6.xyz, R5.xyz, R3.xyz, R4.xyz
    dp3_rsq R15.w, R6.xyz, R6.xyz
    mul R1.xyz, R6.xyz, S.w
    trace 0.0, R1.xyz, C31
    mov R0.xyz, HIT.xyz
    mov R15.w, HIT.z + jmp L23, w (>=0)
    mov R0.xyz, 0.0
L26:
    mov R0, R0 + return or xyzw (>=0 or <1)
L23:
    mov R0.xyz, 0.0
    call HIT.w push 0
    jmp L26
)";

// Section 12.2: the flat-shaded bunny's surface shader (triangle data through HIT_TRI).
const char* kThesisFlat = R"(
SUBROUTINE_ENTRY_s:
load I0, HIT_TRI, 0
mov A, I0
load I0, A0, 0
load I1, A1, 0
load I2, A2, 0
load I3, A3, 0
add R9.xyz, I1.xyz, -I0.xyz
add R8.xyz, I2.xyz, -I0.xyz
mul R11.xyz, R1.xyz, HIT.z
mov R5.xyz, I3.xyz
mul R10.xyz, R9.zxy, R8.yzx
add R4.xyz, R0.xyz, R11.xyz
mad R12.xyz, R9.yzx, R8.zxy, -R10.xyz
dp3_rsq R15.x, R12.xyz, R12.xyz
mul R2.xyz, R12.xyz, S.x
dp3 R2.w, R2.xyz, R1.xyz
add R15.w, 0.0, -R2.w + jmp L17, w (>=0)
mov R2.xyz, -R2.xyz
L17:
mov R3.x, -0.2
mov R3.y, 0.5
mov R3.z, 0.0
add R7.xyz, R3.xyz, -R4.xyz
dp3_rsq R15.y, R7.xyz, R7.xyz
mul R6.xyz, R7.xyz, S.y
dp3 R1.w, R2.xyz, R6.xyz
add R15.w, 0.0, -R1.w + jmp L26, w (>=0)
add R15.w, 1.0, -R1.w + jmp L28, w (>=0)
mov R1.w, 1.0
L28:
mad R0.w, 0.6, R1.w, 0.4
add R15.w, 0.0, -R0.w + jmp L31, w (>=0)
add R15.w, 1.0, -R0.w + jmp L33, w (>=0)
mov R0.w, 1.0
L33:
mul R0.xyz, R5.xyz, R0.w
mov R0, R0 + return or xyzw (>=0 or <1)
L31:
    mov R0.w, 0.0
    jmp L33
L26:
    mov R1.w, 0.0
    jmp L28
)";

TEST(RpuAssembler, ThesisListingsAssemble) {
  Program depth = assemble_text(kThesisDepthShaded);
  ASSERT_EQ(depth.code.size(), 28u);
  EXPECT_EQ(*depth.entry("s"), 0u);
  EXPECT_EQ(*depth.entry("m"), 9u);
  EXPECT_EQ(depth.labels.at("L23"), 25u);
  const Instruction& call = depth.code[26];
  EXPECT_EQ(call.control.kind, ControlKind::Call);
  EXPECT_EQ(call.control.target_reg.bank, Bank::Hit);
  EXPECT_EQ(call.control.target_reg.swizzle, Swizzle::splat(3));
  const Instruction& jump = depth.code[22];
  EXPECT_EQ(jump.primary.op, Opcode::Mov);
  EXPECT_EQ(jump.control.kind, ControlKind::Jmp);
  EXPECT_EQ(jump.control.target, 25u);
  EXPECT_EQ(jump.control.cond, Condition::lane(kMaskW, Relation::Ge));

  Program flat = assemble_text(kThesisFlat);
  ASSERT_EQ(flat.code.size(), 38u);
  EXPECT_EQ(flat.code[0].primary.op, Opcode::Load);
  EXPECT_EQ(flat.code[0].primary.address.bank, Bank::HitTri);
  EXPECT_EQ(flat.code[1].primary.dst.bank, Bank::A);
  EXPECT_EQ(flat.code[28].primary.op, Opcode::Mad);
  EXPECT_EQ(flat.code[28].primary.src[0].literal, 0.6f);
}

TEST(RpuAssembler, PrintedListingsReadBackTheSameWords) {
  for (const char* text : {kThesisDepthShaded, kThesisFlat}) {
    Program p = assemble_text(text);
    std::string again = listing_text(p);
    // The listing has addresses in front; strip them to assemble it again.
    std::string stripped;
    std::size_t pos = 0;
    while (pos < again.size()) {
      std::size_t end = again.find('\n', pos);
      std::string line = again.substr(pos, end - pos);
      if (line.size() > 6 && std::isdigit(static_cast<unsigned char>(line[0]))) line = line.substr(6);
      stripped += line + "\n";
      pos = end + 1;
    }
    Program q = assemble_text(stripped);
    ASSERT_EQ(p.code.size(), q.code.size());
    for (std::size_t i = 0; i < p.code.size(); ++i) {
      Instruction a = p.code[i], b = q.code[i];
      a.where = b.where = {};
      EXPECT_EQ(a, b) << to_text(p.code[i]) << " vs " << to_text(q.code[i]);
    }
  }
}

TEST(RpuAssembler, SourcesTakeSwizzlesScalesAndSigns) {
  Program p = assemble_text("mad R0.xyz, -R1.zxy, 2*R2.yzx, -0.5*R3.w\nmul R4, 4*S.x, -C31.yw\nadd R5.w, -0.25, 1e2\n");
  const Operation& mad = p.code[0].primary;
  EXPECT_TRUE(mad.src[0].negate);
  EXPECT_EQ(mad.src[0].swizzle, (Swizzle{{2, 0, 1, 1}}));  // the last letter repeats: zxyy
  EXPECT_EQ(mad.src[1].scale, 1);
  EXPECT_EQ(mad.src[2].scale, -1);
  EXPECT_TRUE(mad.src[2].negate);
  EXPECT_EQ(mad.src[2].swizzle, Swizzle::splat(3));
  EXPECT_EQ(mad.dst.mask, kMaskXYZ);
  const Operation& mul = p.code[1].primary;
  EXPECT_EQ(mul.src[0].bank, Bank::Special);
  EXPECT_EQ(mul.src[0].scale, 2);
  EXPECT_EQ(mul.src[1].swizzle, (Swizzle{{1, 3, 3, 3}}));
  EXPECT_EQ(p.code[2].primary.src[0].literal_value(), -0.25f);
  EXPECT_EQ(p.code[2].primary.src[1].literal_value(), 100.0f);
}

TEST(RpuAssembler, ConditionsWithTwoTestsAndAndOr) {
  Program p = assemble_text(
      "L:\nadd R15, R3, R5 + jmp L and xyzw (<0)\nmov R15.xy, R1 + jmp L, or xy (>=0 and <1)\nmov R15.w, R1.w + call L push 3, w (!=0)\n");
  const Condition& c0 = p.code[0].control.cond;
  EXPECT_FALSE(c0.any);
  EXPECT_EQ(c0.mask, kMaskAll);
  EXPECT_EQ(c0.tests[0], (rpu::Test{Relation::Lt, 0}));
  const Condition& c1 = p.code[1].control.cond;
  EXPECT_TRUE(c1.any);
  EXPECT_EQ(c1.count, 2);
  EXPECT_FALSE(c1.tests_or);
  EXPECT_EQ(c1.tests[1], (rpu::Test{Relation::Lt, 1}));
  EXPECT_EQ(p.code[2].control.push, 3u);
  EXPECT_EQ(p.code[2].control.cond.tests[0].rel, Relation::Ne);
  // "x or y lies in [0,1)" on a few results, and its negation on the same ones.
  for (Vec4 v : {Vec4{-1, 0.5f, 3, 3}, Vec4{-1, 2, 3, 3}, Vec4{0, -2, 0, 0}, Vec4{1, 1, 1, 1}}) {
    bool expect = (v[0] >= 0 && v[0] < 1) || (v[1] >= 0 && v[1] < 1);
    EXPECT_EQ(c1.holds(v), expect);
    EXPECT_EQ(c1.negated().holds(v), !expect);
  }
}

TEST(RpuAssembler, PairsAreCheckedAgainstTheMachine) {
  Program p = assemble_text("mul R0.xyz, R1.yzx, R2.zxy\n|| add_rcp R3.w, R3.w, 1.0\n");
  ASSERT_EQ(p.code.size(), 1u);
  EXPECT_TRUE(p.code[0].paired());
  EXPECT_EQ(p.code[0].secondary.special, SpecialFn::Rcp);
  EXPECT_NE(assemble_error("mul R0.xyz, R1, R2\n|| add R3.z, R3, 1.0\n").find("do not split"), std::string::npos);
  EXPECT_NE(assemble_error("dp3 R0.xyz, R1, R2\n|| add R3.w, R3, 1.0\n").find("dot product"), std::string::npos);
  EXPECT_NE(assemble_error("mov_rsq R0.xy, R1\n|| add R3.zw, R3, 1.0\n").find("lane w"), std::string::npos);
  EXPECT_NE(assemble_error("mad R0.xyz, R1, R2, R3\n|| mad R4.w, R5, R6, R7\n").find("read ports"), std::string::npos);
  EXPECT_EQ(assemble_error("|| add R3.w, R3, 1.0\n"), "1:1: '||' pairs with the instruction before it, and there is none");
}

TEST(RpuAssembler, MistakesAreReportedWhereTheyAre) {
  EXPECT_EQ(assemble_error("  mov R16, R1\n"), "1:7: there is no register R16 (R0-R15)");
  EXPECT_EQ(assemble_error("mov R1.zx, R2\n"), "1:8: write-mask lanes must appear once each, in the order xyzw");
  EXPECT_EQ(assemble_error("mov R1, R2.q\n"), "1:12: 'q' is not a lane (x, y, z or w)");
  EXPECT_EQ(assemble_error("jmp nowhere\n"), "1:5: undefined label 'nowhere'");
  EXPECT_EQ(assemble_error("L:\nL:\n"), "2:1: label 'L' is defined twice");
  EXPECT_EQ(assemble_error("add R0, S0, S1\n"),
            "1:1: the stack has one read port: an instruction can read one stack slot (copy one to R first)");
  EXPECT_EQ(assemble_error("mov C3, R0\n"), "1:5: constant registers are read-only");
  EXPECT_EQ(assemble_error("mul R0, 3*R1, R2\n"), "1:9: a source scale is 0.5, 1, 2 or 4 (with a sign)");
  EXPECT_EQ(assemble_error("L: jmp L, w (>=0)\n"), "1:4: a condition tests the result of an operation: write 'op dest, ... + jmp ..., cond'");
  EXPECT_EQ(assemble_error("frob R0, R1\n"), "1:1: unknown instruction 'frob'");
  EXPECT_EQ(assemble_error("mov_sqrt R0, R1\n"), "1:1: unknown modifier '_sqrt' (use _sat, _rcp or _rsq)");
  EXPECT_EQ(assemble_error("load R0, A0, 0\n"), "1:6: load writes an I register (I0-I3)");
  EXPECT_EQ(assemble_error("load I0, R1, 0\n"), "1:10: an address is an A lane (A0-A3), HIT_TRI or HIT_OBJ");
  EXPECT_EQ(assemble_error("L: mov R0, R1 + jmp L, w (>=2)\n"), "1:29: lanes are tested against 0 or 1");
  EXPECT_EQ(assemble_error("mov R0, R1 R2\n"), "1:12: unexpected text after the instruction");
  EXPECT_EQ(assemble_error("add R0, R1\n"), "1:11: expected ','");
  EXPECT_EQ(assemble_error("call HIT.xy push 0\n"), "1:6: call through a register names one lane holding the address, e.g. call HIT.w push 0");
  // The machine's literal limit (the thesis expects real hardware to reject two literals).
  Machine strict = default_machine();
  strict.literals_per_instruction = 1;
  EXPECT_EQ(assemble_error("mad R0.w, 0.6, R1.w, 0.4\n", &strict), "1:1: this machine allows 1 literal(s) per instruction");
  EXPECT_EQ(assemble_error("mad R0.w, 0.6, R1.w, 0.4\n"), "");
  // Literals the 24-bit floats cannot hold: the machine would make them infinity or 0.
  EXPECT_EQ(assemble_error("mov R0, 1e30\n"),
            "1:1: the literal 1e+30 is beyond the RPU's 24-bit floats (the largest is about 1.8e19): write inf if infinity is meant, or "
            "assemble for an IEEE machine (--ieee)");
  EXPECT_EQ(assemble_error("mov R0, -1e-30\n"),
            "1:1: the literal -1e-30 is below the RPU's smallest 24-bit float (about 2.2e-19) and would be 0: write 0.0 if that is meant, "
            "or assemble for an IEEE machine (--ieee)");
  EXPECT_EQ(assemble_error("mov R0, 1e30\n", &test::ieee_machine()), "");
  EXPECT_EQ(assemble_error("mov R0, 1e19\nmov R1, inf\n"), "");
  EXPECT_EQ(assemble_error("mov R0, 1e40\n"), "1:9: '1e40' is outside the range of a float (write inf, or 0.0)");
}

TEST(RpuAssembler, ConstantsAreSetByTheProgramAndListedFirst) {
  Program p = assemble_text(".const C2, 0.8, -0.6, 0.0, 1.5\nf:\n  dp3h R0.w, C2, R1.xyz\n  return\n");
  ASSERT_EQ(p.constants.size(), 1u);
  EXPECT_EQ(p.constants.at(2), (Vec4{0.8f, -0.6f, 0, 1.5f}));
  EXPECT_EQ(p.code.size(), 2u);
  EXPECT_EQ(listing_text(p).rfind(".const C2, 0.8, -0.6, 0.0, 1.5\nf:\n", 0), 0u) << listing_text(p);
  // A VM starts with them.
  Vm vm(p);
  EXPECT_EQ(vm.constants()[2], (Vec4{0.8f, -0.6f, 0, 1.5f}));
  EXPECT_EQ(assemble_error(".const R2, 1, 2, 3, 4\n"), "1:8: '.const' sets a constant register, C0 to C31");
  EXPECT_EQ(assemble_error(".const C32, 1, 2, 3, 4\n"), "1:8: '.const' sets a constant register, C0 to C31");
  EXPECT_EQ(assemble_error(".const C2, 1, 2, 3\n"), "1:19: expected ','");
  EXPECT_EQ(assemble_error(".const C2, 1, x, 3, 4\n"), "1:15: expected a number");
  const Program special = assemble_text(".const C5, -inf, nan, -2.5, inf\n");
  EXPECT_TRUE(std::isinf(special.constants.at(5)[0]) && special.constants.at(5)[0] < 0);
  EXPECT_TRUE(std::isnan(special.constants.at(5)[1]));
  EXPECT_EQ(special.constants.at(5)[2], -2.5f);
  EXPECT_EQ(listing_text(special), ".const C5, -inf, nan, -2.5, inf\n");
  EXPECT_EQ(assemble_error(".const C2, 1, 2, 3, 4\n.const C2, 1, 2, 3, 4\n"), "2:8: C2 is set twice");
}

TEST(RpuAssembler, EveryErrorOfAFileIsReported) {
  lang::SourceManager sm;
  lang::FileId f = sm.add("bad.s", "mov R99, R0\nadd R0, R1, R2\nmul R0, R1\njmp missing\n");
  lang::DiagnosticList diags;
  EXPECT_FALSE(assemble(sm, f, {}, diags));
  EXPECT_EQ(diags.error_count(), 3u);
}

TEST(RpuAssembler, EntryPointsFileListsSubroutines) {
  // Figure 5.2, as the thesis's compiler printed it.
  Program p = assemble_text(R"(
SUBROUTINE_ENTRY_add:
    add R0.w, R0.w, R1.w
    return
SUBROUTINE_ENTRY_f:
    mov R0.w, 5.0
    mov R1.w, 2.0
    call SUBROUTINE_ENTRY_add push 0
    mul R0.w, R0.w, 3.0
    return
)");
  EXPECT_EQ(epts_text(p), "add 0\nf 2\n");
  EXPECT_EQ(p.code[4].control.target, 0u);
}

}  // namespace
}  // namespace passlab::rpu
