// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU VM: the thesis's worked examples (the cross product, Figure 2.1's stack), every part
// of an instruction's execution, chunks that split and merge, faults, timing and recording.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "backends/rpu/fp24.h"
#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using test::assemble_text;
using test::ieee_machine;

ThreadState run_one(const Program& p, ThreadState t, VmStats* stats = nullptr, const Machine* m = nullptr) {
  VmOptions o;
  o.machine = m ? m : &ieee_machine();
  Vm vm(p, o);
  VmStats local;
  vm.run(t, stats ? *stats : local);
  return t;
}

TEST(RpuVm, CrossProductInTwoInstructions) {
  // Section 2.4: R1 = (1,2,3,0), R2 = (4,5,6,0); R0.w is 0.
  Program p = assemble_text("mul R0.xyz, R1.yzx, R2.zxy\nmad R0.xyz, -R1.zxy, R2.yzx, R0\nreturn\n");
  ThreadState t = thread_at(0);
  t.r(1) = {1, 2, 3, 0};
  t.r(2) = {4, 5, 6, 0};
  t = run_one(p, t);
  EXPECT_EQ(t.status, ThreadStatus::Done);
  EXPECT_EQ(t.r(0), (Vec4{-3, 6, -3, 0}));
}

TEST(RpuVm, SwizzleRepeatsItsLastLetter) {
  // The thesis's text says yzxx sends z to w; its own rule (and ours) sends x.
  Program p = assemble_text("mov R0, R1.yzxx\nmov R2, R1.xy\nreturn\n");
  ThreadState t = thread_at(0);
  t.r(1) = {1, 2, 3, 4};
  t = run_one(p, t);
  EXPECT_EQ(t.r(0), (Vec4{2, 3, 1, 1}));
  EXPECT_EQ(t.r(2), (Vec4{1, 2, 2, 2}));
}

TEST(RpuVm, ScalesSaturationMasksAndSpecialFunctions) {
  Program p = assemble_text(R"(
    mov R0, -0.5*R1
    mul_sat R2, 4*R1, R1
    mov R3.yw, 2*R1
    dp3_rsq R15.y, R4, R4
    mov_rcp R15.xz, R4.z
    dp4 R5, R1, R1
    dp3h R6, R1, R1
    dp2h R7, R1, R1
    frac R8, -R9
    return
  )");
  ThreadState t = thread_at(0);
  t.r(1) = {0.25f, -1, 0.5f, 2};
  t.r(3) = {7, 7, 7, 7};
  t.r(4) = {0, 3, 4, 8};
  t.r(9) = {1.25f, -2.5f, 0, 3};
  t = run_one(p, t);
  EXPECT_EQ(t.r(0), (Vec4{-0.125f, 0.5f, -0.25f, -1}));
  EXPECT_EQ(t.r(2), (Vec4{0.25f, 1, 1, 1}));
  EXPECT_EQ(t.r(3), (Vec4{7, -2, 7, 4}));
  // dp3 = 25, so S.y = 1/5; mov_rcp takes 1/x of its result's w (R4.z splatted = 4) into S.x, S.z.
  EXPECT_FLOAT_EQ(t.r(kRegS)[1], 0.2f);
  EXPECT_EQ(t.r(kRegS)[0], 0.25f);
  EXPECT_EQ(t.r(kRegS)[2], 0.25f);
  EXPECT_EQ(t.r(kRegS)[3], 0.0f);
  EXPECT_EQ(t.r(15)[1], 25.0f);  // the ordinary result still goes to the junk register
  EXPECT_EQ(t.r(5)[0], 0.0625f + 1 + 0.25f + 4);
  EXPECT_EQ(t.r(6)[2], 0.0625f + 1 + 0.25f + 2);  // dp3 + a.w
  EXPECT_EQ(t.r(7)[3], 0.0625f + 1 + 0.5f);
  EXPECT_EQ(t.r(8), (Vec4{0.75f, 0.5f, 0, 0}));
}

TEST(RpuVm, TwentyFourBitArithmeticRoundsEveryResult) {
  Program p = assemble_text("add R0, R1, R2\nmov R3, R1\nreturn\n");
  ThreadState t = thread_at(0);
  t.r(1) = {1, 1, 1, 1};
  t.r(2) = {0x1p-20f, 0x1p-16f, 0x1p-17f + 0x1p-20f, 0};
  ThreadState ieee = run_one(p, t);
  ThreadState fp24 = run_one(p, t, nullptr, &default_machine());
  EXPECT_EQ(ieee.r(0)[0], 1 + 0x1p-20f);
  EXPECT_EQ(fp24.r(0)[0], 1.0f);              // below half an ulp of a 16-bit mantissa
  EXPECT_EQ(fp24.r(0)[1], 1 + 0x1p-16f);      // exactly one ulp
  EXPECT_EQ(fp24.r(0)[2], 1 + 0x1p-16f);      // above half an ulp rounds up
  EXPECT_EQ(round_fp24(1e-19f), 0.0f);         // below 2^-62: flushed
  EXPECT_TRUE(std::isinf(round_fp24(0x1p65f)));
  EXPECT_EQ(round_fp24(1 + 0x1p-17f), 1.0f);   // a tie goes to even
  EXPECT_EQ(round_fp24(1 + 3 * 0x1p-17f), 1 + 0x1p-15f);
}

TEST(RpuVm, ConditionalJumpsTestTheResultLanes) {
  Program p = assemble_text(R"(
    add R15.w, R1.w, -R2.w + jmp GE, w (>=0)
    mov R0.x, -1.0
    jmp NEXT
GE: mov R0.x, 1.0
NEXT:
    add R15.xyz, R1.xyz, 0.0 + jmp ALLNEG, and xyz (<0)
    mov R0.y, 0.0
    jmp N2
ALLNEG: mov R0.y, 1.0
N2: mov R15.xy, R3 + jmp IN, or xy (>=0 and <1)
    mov R0.z, 0.0
    return
IN: mov R0.z, 1.0
    return
  )");
  auto run = [&](Vec4 r1, Vec4 r2, Vec4 r3) {
    ThreadState t = thread_at(0);
    t.r(1) = r1;
    t.r(2) = r2;
    t.r(3) = r3;
    return run_one(p, t).r(0);
  };
  EXPECT_EQ(run({-1, -2, -3, 5}, {0, 0, 0, 5}, {3, 0.5f, 0, 0}), (Vec4{1, 1, 1, 0}));
  EXPECT_EQ(run({-1, 2, -3, 4}, {0, 0, 0, 5}, {3, 1, 0, 0}), (Vec4{-1, 0, 0, 0}));
}

TEST(RpuVm, StackWindowMovesAsInFigure21) {
  // Two calls with shifts 3 and 2: the caller's A, B, C, then the callee's X, Y below the window.
  Program p = assemble_text(R"(
main:
    mov S0, 1.0       ; A
    mov S1, 2.0       ; B
    mov S2, 3.0       ; C
    call f push 3
    mov R0, S2        ; C again after both returns
    return
f:
    mov S0, 10.0      ; X
    mov S1, 11.0      ; Y
    call g push 2
    return
g:
    mov S0, 99.0      ; absolute slot 5
    mov S7, 42.0      ; absolute slot 12, the top of the visible window
    return
  )");
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  VmStats stats;
  Recording rec;
  ThreadState t = thread_at(0);
  vm.run(t, stats, &rec);
  ASSERT_EQ(t.status, ThreadStatus::Done) << t.fault;
  EXPECT_EQ(t.r(0)[0], 3.0f);
  EXPECT_EQ(t.base, 0u);
  ASSERT_GE(t.stack.size(), 13u);
  const float expect[] = {1, 2, 3, 10, 11, 99};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.stack[static_cast<std::size_t>(i)][0], expect[i]) << "slot " << i;
  EXPECT_EQ(t.stack[12][0], 42.0f);
  // The recorded pushes: shift 3 at depth 0, shift 2 at depth 1.
  std::vector<float> pushes;
  for (const Change& c : rec.changes)
    if (c.kind == ChangeKind::Push) pushes.push_back(c.before[1]);
  EXPECT_EQ(pushes, (std::vector<float>{3, 2}));
}

TEST(RpuVm, RecursionRunsOnTheStack) {
  // fact(n) in R0.w, saving n in the stack window across the recursive call.
  Program p = assemble_text(R"(
SUBROUTINE_ENTRY_fact:
    add R15.w, R0.w, -1.0 + jmp REC, w (>0)
    mov R0.w, 1.0
    return
REC:
    mov S0.w, R0.w
    add R0.w, R0.w, -1.0
    call SUBROUTINE_ENTRY_fact push 1
    mul R0.w, R0.w, S0.w
    return
  )");
  ThreadState t = thread_at(0);
  t.r(0)[3] = 6;
  VmStats stats;
  t = run_one(p, t, &stats);
  EXPECT_EQ(t.r(0)[3], 720.0f);
  EXPECT_EQ(stats.calls, 5u);
}

TEST(RpuVm, ChunkSplitsOnDivergenceAndMergesAtReturn) {
  // Lanes with R1.w >= 0 take the jump; the function's return brings them together again, so
  // the caller's following instructions issue once for all four lanes.
  Program p = assemble_text(R"(
main:
    call f push 0
    add R0.x, R0.w, 100.0
    add R0.y, R0.x, 1.0
    return
f:
    add R15.w, R1.w, 0.0 + jmp POS, w (>=0)
    mov R0.w, -1.0
    mov R0.w, R0.w
    return
POS:
    mov R0.w, 1.0
    return
  )");
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  std::array<ThreadState, 4> t;
  const float signs[] = {1, -1, -1, 1};
  for (int l = 0; l < 4; ++l) {
    t[static_cast<std::size_t>(l)] = thread_at(0);
    t[static_cast<std::size_t>(l)].r(1)[3] = signs[l];
  }
  VmStats stats;
  Recording rec;
  vm.run_chunk(t, stats, &rec);
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ(t[static_cast<std::size_t>(l)].status, ThreadStatus::Done);
    EXPECT_EQ(t[static_cast<std::size_t>(l)].r(0)[0], 100 + signs[l]);
    EXPECT_EQ(t[static_cast<std::size_t>(l)].r(0)[1], 101 + signs[l]);
  }
  EXPECT_EQ(stats.splits, 1u);
  EXPECT_EQ(stats.merges, 1u);
  // call, the jump, 3 words on the fall-through side, 2 on the other, then 3 in main together.
  EXPECT_EQ(stats.issues, 1u + 1 + 3 + 2 + 3);
  EXPECT_EQ(stats.partial_issues, 5u);
  EXPECT_EQ(stats.instructions, 4u * 2 + 2 * 3 + 2 * 2 + 4 * 3);
  // The words after the merge issue with every lane.
  std::size_t full_after = 0;
  for (const Step& s : rec.steps)
    if (!s.merged && s.pc >= 1 && s.pc <= 3 && s.lanes == 0xF) ++full_after;
  EXPECT_EQ(full_after, 3u);
}

TEST(RpuVm, DivergentCallsThroughARegisterMergeWhenTheCalleesReturn) {
  Program p = assemble_text(R"(
main:
    call R1.w push 0
    mul R0.x, R0.x, 2.0
    return
a:  mov R0.x, 1.0
    return
b:  mov R0.x, 2.0
    mov R0.x, R0.x
    return
  )");
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  std::array<ThreadState, 4> t;
  const float target[] = {3, 5, 3, 5};
  for (int l = 0; l < 4; ++l) {
    t[static_cast<std::size_t>(l)] = thread_at(0);
    t[static_cast<std::size_t>(l)].r(1)[3] = target[l];
  }
  VmStats stats;
  vm.run_chunk(t, stats);
  EXPECT_EQ(t[0].r(0)[0], 2.0f);
  EXPECT_EQ(t[1].r(0)[0], 4.0f);
  EXPECT_EQ(stats.merges, 1u);
  EXPECT_EQ(stats.issues, 1u + 2 + 3 + 2);  // the call, each callee, then main's tail once
}

TEST(RpuVm, FaultsStopOneThreadAndNameThePc) {
  Program p = assemble_text(R"(
    mov R15.w, R1.w + jmp BAD, w (>=0)
    mov R0.x, 7.0
    return
BAD:
    mov A.x, R2.x
    load I0, A0, 0
    return
  )");
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  std::vector<Vec4> memory(4, Vec4{5, 5, 5, 5});
  vm.set_memory(&memory);
  std::array<ThreadState, 2> t{thread_at(0), thread_at(0)};
  t[0].r(1)[3] = 1;
  t[0].r(2)[0] = 9;  // address 9 of 4 words
  t[1].r(1)[3] = -1;
  VmStats stats;
  vm.run_chunk(t, stats);
  EXPECT_EQ(t[0].status, ThreadStatus::Faulted);
  EXPECT_EQ(t[0].fault, "pc 4: load at address 9, outside data memory (4 words)");
  EXPECT_EQ(t[1].status, ThreadStatus::Done);
  EXPECT_EQ(t[1].r(0)[0], 7.0f);
  EXPECT_EQ(stats.faults, 1u);

  Machine m = ieee_machine();
  m.max_steps = 1000;
  m.max_call_depth = 64;
  Program loop = assemble_text("L: jmp L\n");
  EXPECT_NE(run_one(loop, thread_at(0), nullptr, &m).fault.find("ran 1000 instructions without finishing"), std::string::npos);
  Program recurse = assemble_text("f: call f push 1\n");
  EXPECT_EQ(run_one(recurse, thread_at(0), nullptr, &m).fault, "pc 0: calls nested 64 deep (runaway recursion?)");
  Program jump_away = assemble_text("call R0.x push 0\n");
  ThreadState bad = thread_at(0);
  bad.r(0)[0] = 77;
  EXPECT_EQ(run_one(jump_away, bad, nullptr, &m).fault, "pc 0: call to address 77.0, which is not code");
  Program off_end = assemble_text("mov R0, R1\n");
  EXPECT_EQ(run_one(off_end, thread_at(0), nullptr, &m).fault, "pc 1: the program counter left the program (a function without a return?)");
  Program store = assemble_text("store A0, 0, R1\nreturn\n");
  VmOptions so;
  so.machine = &m;
  Vm svm(store, so);
  svm.set_memory(&memory);
  ThreadState st = thread_at(0);
  svm.run(st, stats);
  EXPECT_NE(st.fault.find("read-only"), std::string::npos);
  std::vector<Vec4> writable(2);
  svm.set_memory(&writable, true);
  st = thread_at(0);
  st.r(1) = {1, 2, 3, 4};
  svm.run(st, stats);
  EXPECT_EQ(writable[0], (Vec4{1, 2, 3, 4}));
}

TEST(RpuVm, TimingFollowsTheSchedulersModel) {
  // Figure 9.1's block in program order: 16 cycles (1@1 2@2 3@7 4@8 5@9 6@14, done after 16).
  Program p = assemble_text(R"(
    add R1, R0, 1.0     ; X = A + 1
    dp3 R2, R3, R3      ; Y = B.B
    mul R4, R1, R2      ; Z = X*Y
    dp3 R5, R0, R3      ; D = A.B
    mul R6, R0, 5.0     ; E = A*5
    add R7, R5, R6      ; F = D+E
    mov R8, R4          ; Z is ready
    mov R9, R7          ; waits for F
  )");
  p.code.push_back(assemble_text("return\n").code[0]);
  VmStats stats;
  run_one(p, thread_at(0), &stats);
  // Issue cycles from 0: 0, 1, 6, 7, 8, 13 (the thesis's 1, 2, 7, 8, 9, 14); then mov R8 at 14,
  // mov R9 waits for F (ready at 16), the return at 17.
  EXPECT_EQ(stats.cycles, 18u);
  EXPECT_EQ(stats.issues, 9u);
  EXPECT_EQ(stats.stalls, 4u + 4 + 1);
}

TEST(RpuVm, ReadinessIsKeptPerComponent) {
  // A scalar beside a vector in one register: R1.w written by a 5-cycle dp3 after R1.xyz by a
  // 3-cycle add. A read of R1.xyz waits for the add only (the VM once tracked whole registers,
  // and the later short write of .w delayed the .xyz: Figure 9.1's compiled block took 13
  // cycles where the schedule gives 11).
  Program p = assemble_text(R"(
    add R1.xyz, R0.xyz, 1.0
    dp3 R1.w, R0.xyz, R0.xyz
    mov R2.xyz, R1.xyz
    mov R3.w, R1.w
  )");
  p.code.push_back(assemble_text("return\n").code[0]);
  Recording rec;
  VmStats stats;
  ThreadState t = thread_at(0);
  Vm vm(p, VmOptions{&ieee_machine(), false});
  vm.run(t, stats, &rec);
  ASSERT_GE(rec.steps.size(), 4u);
  EXPECT_EQ(rec.steps[2].cycle, 3u);  // R1.xyz ready at 0 + 3
  EXPECT_EQ(rec.steps[3].cycle, 6u);  // R1.w ready at 1 + 5
}

TEST(RpuVm, AnAddressIsConvertedExactlyNotThroughA24BitFloat) {
  // An address past 2^17 has no 24-bit float: 131077 would round to 131076 (a large mesh's vertex
  // record read one word off). A write to A converts the exact value.
  Program p = assemble_text("load I0, A0, 0\nmov A.x, I0.x\nload I1, A0, 0\nmov R0, I1\nreturn\n");
  std::vector<Vec4> memory(131078, Vec4{});
  memory[0] = {131077, 0, 0, 0};
  memory[131076] = {1, 1, 1, 1};
  memory[131077] = {2, 2, 2, 2};
  Vm vm(p);  // the default machine: 24-bit arithmetic
  vm.set_memory(&memory);
  ThreadState t = thread_at(0);
  VmStats stats;
  vm.run(t, stats);
  ASSERT_EQ(t.status, ThreadStatus::Done) << t.fault;
  EXPECT_EQ(t.r(0)[0], 2.0f);
}

TEST(RpuVm, RecordedChangesUndoEveryStep) {
  Program p = assemble_text(R"(
main:
    mov S0, R1
    add R2, R1, 1.0
    call f push 1
    add R0, R0, S0
    return
f:  mul R0, R2, R2
    dp3_rsq R15.x, R0, R0
    add R15.w, R0.w, -10.0 + jmp BIG, w (>=0)
    mov R3, S.x
    return
BIG:
    mov R3, -1.0
    return
  )");
  VmOptions o;
  o.machine = &ieee_machine();
  Vm vm(p, o);
  std::array<ThreadState, 3> start;
  for (int l = 0; l < 3; ++l) {
    start[static_cast<std::size_t>(l)] = thread_at(0);
    start[static_cast<std::size_t>(l)].r(1) = {static_cast<float>(l), 1, 2, static_cast<float>(3 * l)};
  }
  auto t = start;
  VmStats stats;
  Recording rec;
  vm.run_chunk(t, stats, &rec);
  // Undo the changes from the last to the first: every thread is back where it started.
  for (auto it = rec.changes.rbegin(); it != rec.changes.rend(); ++it) {
    ThreadState& th = t[it->lane];
    switch (it->kind) {
      case ChangeKind::Register: th.r(static_cast<int>(it->index)) = it->before; break;
      case ChangeKind::Stack: th.stack[it->index] = it->before; break;
      case ChangeKind::Address:
        if (it->index == 0)
          for (int i = 0; i < 4; ++i) th.a[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(it->before[static_cast<std::size_t>(i)]);
        break;
      case ChangeKind::Push:
        th.frames.pop_back();
        th.base -= static_cast<std::uint32_t>(it->before[1]);
        break;
      case ChangeKind::Pop:
        th.frames.push_back({static_cast<std::uint32_t>(it->before[0]), static_cast<std::uint32_t>(it->before[1])});
        th.base += static_cast<std::uint32_t>(it->before[1]);
        break;
      case ChangeKind::Status: th.status = static_cast<ThreadStatus>(static_cast<int>(it->before[0])); break;
    }
  }
  for (int l = 0; l < 3; ++l) {
    ThreadState& th = t[static_cast<std::size_t>(l)];
    th.pc = 0;
    th.steps = 0;
    EXPECT_EQ(th.reg, start[static_cast<std::size_t>(l)].reg) << "lane " << l;
    EXPECT_EQ(th.frames, start[static_cast<std::size_t>(l)].frames);
    EXPECT_EQ(th.base, 0u);
    EXPECT_EQ(th.status, ThreadStatus::Running);
    for (const Vec4& v : th.stack) EXPECT_EQ(v, Vec4{});
  }
  EXPECT_GT(rec.steps.size(), 10u);
}

TEST(RpuMachine, ANumberTooLargeForADoubleIsAnErrorAtItsLine) {
  // Found by the machine fuzzer's sibling on targets: nlohmann raises out_of_range, not parse_error.
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "passlab_rpu_huge_machine.json";
  std::ofstream(path) << "{\"name\": \"huge\",\n \"max_steps\": 1e999}\n";
  lang::Diagnostics problems;
  EXPECT_FALSE(load_machine(path.string(), &problems));
  const std::string error = problems.text();
  EXPECT_NE(error.find(path.string() + ":2:"), std::string::npos) << error;
  EXPECT_NE(error.find("too large for a double"), std::string::npos) << error;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace passlab::rpu
