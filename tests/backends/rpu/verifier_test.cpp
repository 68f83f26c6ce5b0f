// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU assembly verifier: the thesis's listings and every compiled sample are sound, and each
// invariant, broken on purpose in an assembled program or in the compiler's assembly IR, is
// reported with its place.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/rpu/verifier.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using ::testing::HasSubstr;

const char* kListing = R"(
SUBROUTINE_ENTRY_s:
    mul R3.xyz, R1.xyz, HIT.z
    add R2.xyz, R0.xyz, R3.xyz
    dp3_rsq R15.y, R2.xyz, R2.xyz
    mov R0.w, S.y + jmp L1, w (>=0)
    store A0, 0, R2
L1:
    mov R0, R0 + return or xyzw (>=0 or <1)
)";

std::string first(const Program& p) {
  const std::vector<std::string> problems = verify(p, default_machine());
  return problems.empty() ? "" : problems.front();
}

TEST(RpuVerifier, CompiledSamplesAreSound) {
  // The compiler verifies after every stage; here the assembled programs too, explicitly.
  int compiled = 0;
  for (const char* folder : {"rpu", "shaders"})
    for (const auto& e : std::filesystem::directory_iterator(std::string(PASSLAB_SAMPLES_DIR) + "/" + folder)) {
      if (e.path().extension() != ".sl") continue;
      CompileOptions o;
      auto p = compile_files({e.path().string()}, o);
      if (!p->program) continue;  // a shader the RPU refuses (its own tests say why)
      EXPECT_EQ(verify(*p->program, default_machine()), std::vector<std::string>{}) << e.path();
      ++compiled;
    }
  EXPECT_GE(compiled, 10);
}

TEST(RpuVerifier, EachBrokenInvariantOfAProgramIsReportedWithItsWord) {
  const Program good = test::assemble_text(kListing);
  ASSERT_EQ(first(good), "");

  Program p = good;
  p.code[3].control.target = 99;
  EXPECT_THAT(first(p), ::testing::AllOf(HasSubstr("word 3"), HasSubstr("past the program's end")));

  p = good;
  p.code[0].primary.src[0].index = 16;  // R16
  EXPECT_THAT(first(p), ::testing::AllOf(HasSubstr("word 0"), HasSubstr("R16"), HasSubstr("does not exist")));

  p = good;
  p.code[1].primary.dst = {Bank::Virtual, 3, kMaskAll};
  EXPECT_THAT(first(p), HasSubstr("virtual register 3 after register allocation"));

  p = good;
  p.code[1].primary.src[1] = {};
  EXPECT_THAT(first(p), HasSubstr("source 2 is missing"));

  p = good;
  p.code[0].primary.dst.mask = 0;
  EXPECT_THAT(first(p), HasSubstr("mask"));

  p = good;
  p.code[4].primary.dst = {Bank::R, 2, kMaskAll};  // the store
  EXPECT_THAT(first(p), HasSubstr("writes no register"));

  p = good;
  p.code[0].primary.src[1].scale = 3;
  EXPECT_THAT(first(p), HasSubstr("scales"));

  p = good;
  p.code[0].primary.dst.bank = Bank::C;
  EXPECT_THAT(first(p), HasSubstr("read-only"));

  p = good;
  p.entries.push_back({"late", 40});
  EXPECT_THAT(first(p), HasSubstr("entry point late"));

  p = good;
  p.code[0].secondary = p.code[4].primary;  // a store cannot pair
  EXPECT_THAT(first(p), HasSubstr("only arithmetic operations pair"));
}

TEST(RpuVerifier, TheAssemblyIrKeepsItsBlocksAndRegistersUntilAllocationRemovesTheVirtualOnes) {
  AsmFunction fn;
  fn.name = "f";
  fn.label = "SUBROUTINE_ENTRY_f";
  const Loc a = fn.new_vreg(RegClass::Vector, "a");
  fn.blocks.emplace_back();
  AsmInstr in;
  in.word.primary.op = Opcode::Mov;
  in.word.primary.dst = vdst(fn, a);
  in.word.primary.src[0] = rsrc(0, RegClass::Vector);
  fn.blocks[0].body.push_back(in);
  fn.blocks[0].term.kind = Terminator::Kind::Return;
  EXPECT_EQ(verify(fn, false), std::vector<std::string>{});
  const std::vector<std::string> allocated = verify(fn, true);
  ASSERT_FALSE(allocated.empty());
  EXPECT_THAT(allocated.front(), ::testing::AllOf(HasSubstr("SUBROUTINE_ENTRY_f, block 0, instruction 1"), HasSubstr("after register allocation")));

  AsmFunction bad = fn;
  bad.blocks[0].body[0].word.primary.dst.index = 7;  // never declared
  EXPECT_THAT(verify(bad, false).at(0), HasSubstr("not declared"));

  bad = fn;
  bad.blocks[0].term.kind = Terminator::Kind::Jump;
  bad.blocks[0].term.target = 5;
  EXPECT_THAT(verify(bad, false).at(0), HasSubstr("leads to block 5, which does not exist"));
}

}  // namespace
}  // namespace passlab::rpu
