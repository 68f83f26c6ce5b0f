// SPDX-License-Identifier: GPL-3.0-or-later
// Verifier tests: hand-built Functions, one well-formed shape each, then one invariant broken at
// a time; the verifier must name exactly what is wrong (and accept what is right).
#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/ir/interpreter.h"
#include "core/ir/ir.h"
#include "core/ir/printer.h"
#include "core/ir/verifier.h"

namespace passlab::ir {
namespace {

using ::testing::HasSubstr;
using lang::Global;

// ---- building blocks ----------------------------------------------------------------------

Instr make(Op op, BaseType type, std::vector<ValueId> args = {}, std::vector<BlockId> targets = {}) {
  Instr in;
  in.op = op;
  in.type = type;
  in.args = std::move(args);
  in.targets = std::move(targets);
  return in;
}

Instr constant(float x) {
  Instr in = make(Op::Const, BaseType::Float);
  in.data = {x};
  return in;
}

Instr global(Global g, BaseType type = BaseType::Float) {
  Instr in = make(Op::Global, type);
  in.aux = static_cast<std::uint32_t>(g);
  return in;
}

// Terminators that keep the predecessor lists in step, as lowering does.
ValueId br(Function& fn, BlockId from, BlockId to) {
  fn.blocks[to].preds.push_back(from);
  return fn.append(from, make(Op::Br, BaseType::Void, {}, {to}));
}

ValueId condbr(Function& fn, BlockId from, ValueId cond, BlockId t, BlockId f) {
  fn.blocks[t].preds.push_back(from);
  fn.blocks[f].preds.push_back(from);
  return fn.append(from, make(Op::CondBr, BaseType::Void, {cond}, {t, f}));
}

// The diamond every test below breaks in one place:
//
//              bb0   cond = s < 0.5
//     (true)  /   \  (false)
//          bb1     bb2
//        one = 1   two = 2
//             \   /
//              bb3   phi(one, two); ret phi
struct Diamond {
  Function fn;
  BlockId b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  ValueId s = 0, half = 0, cond = 0, branch = 0, one = 0, two = 0, phi = 0, ret = 0;
};

Diamond diamond() {
  Diamond d;
  Function& fn = d.fn;
  fn.name = "diamond";
  fn.result_types = {BaseType::Float};
  fn.result_names = {"return"};
  d.b0 = fn.add_block();
  d.b1 = fn.add_block();
  d.b2 = fn.add_block();
  d.b3 = fn.add_block();
  d.s = fn.append(d.b0, global(Global::s));
  d.half = fn.append(d.b0, constant(0.5f));
  d.cond = fn.append(d.b0, make(Op::Lt, BaseType::Bool, {d.s, d.half}));
  d.branch = condbr(fn, d.b0, d.cond, d.b1, d.b2);
  d.one = fn.append(d.b1, constant(1));
  br(fn, d.b1, d.b3);
  d.two = fn.append(d.b2, constant(2));
  br(fn, d.b2, d.b3);
  d.phi = fn.append(d.b3, make(Op::Phi, BaseType::Float, {d.one, d.two}));
  d.ret = fn.append(d.b3, make(Op::Ret, BaseType::Void, {d.phi}));
  return d;
}

// A counting loop: the header phi reads %next, defined later in the latch.
//
//   bb0: i0 = 0 ──► bb1: i = phi(i0, next); i < 4 ? ──► bb3: ret i
//                    ▲            │
//                    └── bb2: next = i + 1
struct Loop {
  Function fn;
  ValueId i = 0, next = 0;
};

Loop counting_loop(float trips) {
  Loop l;
  Function& fn = l.fn;
  fn.name = "loop";
  fn.result_types = {BaseType::Float};
  fn.result_names = {"return"};
  BlockId b0 = fn.add_block(), b1 = fn.add_block(), b2 = fn.add_block(), b3 = fn.add_block();
  ValueId i0 = fn.append(b0, constant(0));
  br(fn, b0, b1);
  l.i = fn.append(b1, make(Op::Phi, BaseType::Float, {i0, kNoValue}));
  ValueId n = fn.append(b1, constant(trips));
  ValueId c = fn.append(b1, make(Op::Lt, BaseType::Bool, {l.i, n}));
  condbr(fn, b1, c, b2, b3);
  ValueId one = fn.append(b2, constant(1));
  l.next = fn.append(b2, make(Op::Add, BaseType::Float, {l.i, one}));
  br(fn, b2, b1);
  fn.at(l.i).args[1] = l.next;
  fn.append(b3, make(Op::Ret, BaseType::Void, {l.i}));
  return l;
}

std::string dump(const std::vector<std::string>& errors, const Function& fn) {
  std::string s;
  for (const auto& e : errors) s += e + "\n";
  return s + print(fn);
}

// The single error a broken function must produce, or a failure showing all of them.
void expect_one_error(const Function& fn, const std::string& needle) {
  auto errors = verify(fn);
  ASSERT_EQ(errors.size(), 1u) << dump(errors, fn);
  EXPECT_THAT(errors[0], HasSubstr(needle)) << dump(errors, fn);
}

void expect_some_error(const Function& fn, const std::string& needle) {
  auto errors = verify(fn);
  EXPECT_TRUE(std::any_of(errors.begin(), errors.end(), [&](const std::string& e) { return e.find(needle) != std::string::npos; }))
      << "expected an error containing '" << needle << "'\n" << dump(errors, fn);
}

// Inserts `in` just before b's terminator (after every phi and every earlier instruction).
ValueId before_terminator(Function& fn, BlockId b, Instr in) {
  in.block = b;
  ValueId v = fn.add(std::move(in));
  auto& list = fn.blocks[b].instrs;
  list.insert(list.end() - 1, v);
  return v;
}

void erase_from_block(Function& fn, BlockId b, ValueId v) {
  std::erase(fn.blocks[b].instrs, v);
  fn.at(v).removed = true;
}

// ---- well-formed functions -------------------------------------------------------------------

TEST(Verifier, AcceptsDiamond) {
  Diamond d = diamond();
  auto errors = verify(d.fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, d.fn);
}

TEST(Verifier, AcceptsLoopWhosePhiReadsALaterDefinition) {
  Loop l = counting_loop(4);
  auto errors = verify(l.fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, l.fn);
}

TEST(Verifier, AcceptsUnreachableBlockWithDanglingUses) {
  // An unreachable block is not subject to dominance (lowering leaves these after `return`).
  Diamond d = diamond();
  BlockId dead = d.fn.add_block();
  d.fn.append(dead, make(Op::Add, BaseType::Float, {d.one, d.two}));
  d.fn.append(dead, make(Op::Ret, BaseType::Void, {d.two}));
  auto errors = verify(d.fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, d.fn);
}

TEST(Verifier, AcceptedLoopRunsInTheInterpreter) {
  // The shapes the verifier accepts are the shapes the interpreter can run: phis read per edge.
  Module m;
  m.functions.push_back(counting_loop(4).fn);
  ASSERT_TRUE(verify(m).empty());
  RunResult r = interpret(m, random_fragment(1), {}, EvalContext{});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].f[0], 4.0f);
}

// ---- block structure -------------------------------------------------------------------------

TEST(Printer, GivesEveryLineItsSourceSpan) {
  Loop l = counting_loop(3);
  for (ValueId v = 0; v < l.fn.values.size(); ++v) l.fn.at(v).span = lang::Span{1, v, v + 10, 1, 1};
  std::vector<lang::Span> spans;
  const std::string text = print(l.fn, &spans);
  EXPECT_EQ(text, print(l.fn));
  ASSERT_EQ(spans.size(), static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
  std::size_t start = 0;
  for (const lang::Span& s : spans) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    if (s.valid()) EXPECT_NE(line.find("; line " + std::to_string(s.line)), std::string::npos) << line;
    else EXPECT_EQ(line.find("; line"), std::string::npos) << line;
    start = end + 1;
  }
}

TEST(Verifier, MissingTerminator) {
  Diamond d = diamond();
  erase_from_block(d.fn, d.b3, d.ret);
  expect_one_error(d.fn, "bb3 does not end in a terminator");
}

TEST(Verifier, EmptyBlock) {
  Diamond d = diamond();
  erase_from_block(d.fn, d.b3, d.ret);
  erase_from_block(d.fn, d.b3, d.phi);
  expect_one_error(d.fn, "bb3 is empty");
}

TEST(Verifier, TerminatorInTheMiddleOfABlock) {
  Diamond d = diamond();
  // bb1: one = 1; ret one; br bb3
  ValueId early = d.fn.add(make(Op::Ret, BaseType::Void, {d.one}));
  d.fn.at(early).block = d.b1;
  auto& list = d.fn.blocks[d.b1].instrs;
  list.insert(list.end() - 1, early);
  expect_one_error(d.fn, "terminator %" + std::to_string(early) + " in the middle of bb1");
}

TEST(Verifier, InstructionRecordsAnotherBlock) {
  Diamond d = diamond();
  d.fn.at(d.one).block = d.b2;
  expect_one_error(d.fn, "listed in bb1 but records bb2");
}

TEST(Verifier, RemovedInstructionStillListed) {
  Diamond d = diamond();
  d.fn.at(d.two).removed = true;
  expect_some_error(d.fn, "bb2 lists removed %" + std::to_string(d.two));
}

// ---- phis ----------------------------------------------------------------------------------------

TEST(Verifier, PhiAfterNonPhi) {
  Diamond d = diamond();
  ValueId k = d.fn.add(constant(3));
  d.fn.at(k).block = d.b3;
  auto& list = d.fn.blocks[d.b3].instrs;
  list.insert(list.begin(), k);
  expect_one_error(d.fn, "phi %" + std::to_string(d.phi) + " after a non-phi in bb3");
}

TEST(Verifier, InsertFrontKeepsPhisFirst) {
  // The API that inserts "at the front" must go behind the phis, or every pass using it breaks.
  Diamond d = diamond();
  d.fn.insert_front(d.b3, constant(3));
  auto errors = verify(d.fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, d.fn);
}

TEST(Verifier, PhiWithTooFewOperands) {
  Diamond d = diamond();
  d.fn.at(d.phi).args.pop_back();
  expect_one_error(d.fn, "phi %" + std::to_string(d.phi) + " has 1 operands for 2 predecessors");
}

TEST(Verifier, PhiWithTooManyOperands) {
  Diamond d = diamond();
  d.fn.at(d.phi).args.push_back(d.half);
  expect_one_error(d.fn, "has 3 operands for 2 predecessors");
}

TEST(Verifier, PhiOperandMustDominateItsPredecessor) {
  // phi [bb1: two] — `two` lives in bb2, which does not dominate the end of bb1.
  Diamond d = diamond();
  d.fn.at(d.phi).args[0] = d.two;
  expect_one_error(d.fn, "phi %" + std::to_string(d.phi) + " operand %" + std::to_string(d.two) + " does not dominate bb1");
}

// ---- edges -----------------------------------------------------------------------------------------

TEST(Verifier, PredecessorListMissingABranch) {
  Diamond d = diamond();
  d.fn.blocks[d.b3].preds = {d.b1, d.b1};  // bb2 branches in but is not listed
  expect_one_error(d.fn, "bb3: predecessor list does not match the branches into it");
}

TEST(Verifier, PredecessorListedWithoutABranch) {
  Diamond d = diamond();
  d.fn.blocks[d.b3].preds.push_back(d.b0);  // bb0 never branches to bb3
  d.fn.at(d.phi).args.push_back(d.half);    // keep the phi count right: only the edge is wrong
  expect_one_error(d.fn, "bb3: predecessor list does not match");
}

TEST(Verifier, CondBrToTheSameBlockTwiceNeedsTwoPredEntries) {
  // Edges are a multiset: condbr c, bb1, bb1 is two edges into bb1.
  Function fn;
  fn.name = "twice";
  BlockId b0 = fn.add_block(), b1 = fn.add_block();
  ValueId c = fn.append(b0, make(Op::Lt, BaseType::Bool, {fn.append(b0, constant(0)), fn.append(b0, constant(1))}));
  fn.append(b0, make(Op::CondBr, BaseType::Void, {c}, {b1, b1}));
  fn.blocks[b1].preds = {b0};
  fn.append(b1, make(Op::Ret, BaseType::Void));
  expect_one_error(fn, "bb1: predecessor list does not match");
  fn.blocks[b1].preds = {b0, b0};
  auto errors = verify(fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, fn);
}

TEST(Verifier, BranchToRemovedBlock) {
  Diamond d = diamond();
  Block& b2 = d.fn.blocks[d.b2];
  b2.removed = true;
  for (ValueId v : b2.instrs) d.fn.at(v).removed = true;
  b2.instrs.clear();
  // bb3 no longer lists bb2, so the only fault left is bb0's branch into a removed block.
  d.fn.remove_edge(d.b2, d.b3);
  expect_one_error(d.fn, "bb0 branches to missing bb2");
}

TEST(Verifier, BranchToNonexistentBlock) {
  Diamond d = diamond();
  d.fn.at(d.branch).targets[1] = 99;
  expect_some_error(d.fn, "bb0 branches to missing bb99");
}

TEST(Verifier, MalformedBranches) {
  Diamond d = diamond();
  d.fn.at(d.branch).args.clear();
  expect_some_error(d.fn, "condbr in bb0 is malformed");
  Diamond e = diamond();
  ValueId jump = e.fn.blocks[e.b1].instrs.back();
  e.fn.at(jump).targets.push_back(e.b3);
  e.fn.blocks[e.b3].preds.push_back(e.b1);
  e.fn.at(e.phi).args.push_back(e.one);
  expect_one_error(e.fn, "br in bb1 needs one target");
}

TEST(Verifier, NoEntryBlock) {
  Function fn;
  fn.name = "empty";
  expect_one_error(fn, "no entry block");
}

// ---- operands and dominance ------------------------------------------------------------------

TEST(Verifier, UseNotDominatedByDefinition) {
  // bb3 reads `one` from bb1, but the path through bb2 never defines it.
  Diamond d = diamond();
  ValueId bad = before_terminator(d.fn, d.b3, make(Op::Add, BaseType::Float, {d.phi, d.one}));
  expect_one_error(d.fn, "%" + std::to_string(bad) + " in bb3 uses %" + std::to_string(d.one) + " from bb1, which does not dominate it");
}

TEST(Verifier, UseBeforeDefinitionInTheSameBlock) {
  // bb0: cond = lt s, half is moved above `half`.
  Diamond d = diamond();
  auto& list = d.fn.blocks[d.b0].instrs;
  std::swap(list[1], list[2]);
  expect_one_error(d.fn, "%" + std::to_string(d.cond) + " uses %" + std::to_string(d.half) + " before its definition");
}

TEST(Verifier, InstructionUsingItself) {
  Diamond d = diamond();
  ValueId self = before_terminator(d.fn, d.b3, make(Op::Add, BaseType::Float, {d.phi, kNoValue}));
  d.fn.at(self).args[1] = self;
  expect_one_error(d.fn, "%" + std::to_string(self) + " uses %" + std::to_string(self) + " before its definition");
}

TEST(Verifier, UseOfRemovedValue) {
  Diamond d = diamond();
  ValueId orphan = d.fn.add(constant(7));  // in no block
  d.fn.at(d.ret).args[0] = orphan;
  expect_one_error(d.fn, "uses missing or removed %" + std::to_string(orphan));
}

TEST(Verifier, TerminatorUsedAsValue) {
  Diamond d = diamond();
  d.fn.at(d.phi).args[0] = d.branch;
  expect_some_error(d.fn, "uses terminator %" + std::to_string(d.branch) + " as a value");
}

// A broken invariant is reported, never thrown: an operand index past the end of the value table
// must become a message like any other missing operand (verify() once threw std::out_of_range).
TEST(Verifier, OperandOutOfRangeIsReportedNotThrown) {
  Diamond d = diamond();
  ValueId add = before_terminator(d.fn, d.b3, make(Op::Add, BaseType::Float, {d.phi, 12345}));
  std::vector<std::string> errors;
  ASSERT_NO_THROW(errors = verify(d.fn));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("%" + std::to_string(add) + " uses missing or removed %12345"));
}

// ---- operation shapes ------------------------------------------------------------------------

TEST(Verifier, SelectConditionMustBeBool) {
  Diamond d = diamond();
  ValueId sel = before_terminator(d.fn, d.b3, make(Op::Select, BaseType::Float, {d.phi, d.phi, d.phi}));
  d.fn.at(d.ret).args[0] = sel;
  expect_one_error(d.fn, "select %" + std::to_string(sel) + " condition is not bool");
  // The same select on a bool is fine.
  d.fn.at(sel).args[0] = d.cond;
  auto errors = verify(d.fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, d.fn);
}

TEST(Verifier, CondBrConditionMustBeBool) {
  Diamond d = diamond();
  d.fn.at(d.branch).args[0] = d.s;  // a float
  expect_one_error(d.fn, "condbr %" + std::to_string(d.branch) + " condition is not bool");
}

TEST(Verifier, RetArityMustMatchTheResults) {
  Diamond d = diamond();
  d.fn.at(d.ret).args.clear();
  expect_one_error(d.fn, "ret %" + std::to_string(d.ret) + " returns 0 values, function has 1");
  Diamond e = diamond();
  e.fn.at(e.ret).args.push_back(e.phi);
  expect_one_error(e.fn, "returns 2 values, function has 1");
}

TEST(Verifier, OperandCounts) {
  Diamond d = diamond();
  ValueId neg = before_terminator(d.fn, d.b3, make(Op::Neg, BaseType::Float, {d.phi, d.phi}));
  expect_one_error(d.fn, "%" + std::to_string(neg) + " (neg) has 2 operands, expected 1");
  Diamond e = diamond();
  ValueId tri = before_terminator(e.fn, e.b3, make(Op::MakeTriple, BaseType::Color, {e.phi, e.phi}));
  expect_one_error(e.fn, "%" + std::to_string(tri) + " (triple) has 2 operands, expected 3");
  Diamond f = diamond();
  f.fn.at(f.cond).args.pop_back();
  expect_one_error(f.fn, "(lt) has 1 operands, expected 2");
}

TEST(Verifier, TextureNeedsANameOperand) {
  Diamond d = diamond();
  ValueId tex = before_terminator(d.fn, d.b3, make(Op::Texture, BaseType::Float, {d.phi}));
  expect_one_error(d.fn, "texture %" + std::to_string(tex) + " has no name operand");
}

TEST(Verifier, TupleUsedDirectly) {
  Diamond d = diamond();
  ValueId call = before_terminator(d.fn, d.b3, make(Op::Call, kTuple));
  ValueId add = before_terminator(d.fn, d.b3, make(Op::Add, BaseType::Float, {call, d.phi}));
  expect_one_error(d.fn, "%" + std::to_string(add) + " uses a tuple directly");
  // Through an extract it is fine.
  ValueId ex = before_terminator(d.fn, d.b3, make(Op::Extract, BaseType::Float, {call}));
  auto& list = d.fn.blocks[d.b3].instrs;
  std::erase(list, add);
  list.insert(list.end() - 1, add);  // phi, call, extract, add, ret
  d.fn.at(add).args[0] = ex;
  auto errors = verify(d.fn);
  EXPECT_TRUE(errors.empty()) << dump(errors, d.fn);
}

// ---- modules -----------------------------------------------------------------------------------

TEST(Verifier, ModuleChecksCallees) {
  Module m;
  Function callee;
  callee.name = "callee";
  callee.arg_types = {BaseType::Float};
  callee.arg_names = {"x"};
  callee.result_types = {BaseType::Float};
  callee.result_names = {"return"};
  BlockId cb = callee.add_block();
  ValueId x = callee.append(cb, make(Op::Arg, BaseType::Float));
  callee.append(cb, make(Op::Ret, BaseType::Void, {x}));

  Diamond d = diamond();
  Instr call = make(Op::Call, BaseType::Float, {d.phi});
  call.aux = 1;
  ValueId c = before_terminator(d.fn, d.b3, call);
  d.fn.at(d.ret).args[0] = c;
  m.functions = {d.fn, callee};
  m.entry = 0;
  auto errors = verify(m);
  EXPECT_TRUE(errors.empty()) << dump(errors, m.functions[0]);

  m.functions[0].at(c).args.push_back(d.phi);
  errors = verify(m);
  ASSERT_EQ(errors.size(), 1u) << dump(errors, m.functions[0]);
  EXPECT_THAT(errors[0], HasSubstr("passes the wrong number of arguments"));

  m.functions[0].at(c).args.pop_back();
  m.functions[0].at(c).aux = 7;
  errors = verify(m);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("to missing function @7"));
  // Errors name the function they come from.
  EXPECT_THAT(errors[0], HasSubstr("@diamond"));

  m.functions[0].at(c).aux = 1;
  m.entry = 5;
  errors = verify(m);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("module has no entry function"));
}

}  // namespace
}  // namespace passlab::ir
