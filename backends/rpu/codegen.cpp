// SPDX-License-Identifier: GPL-3.0-or-later
// Code generation: values to virtual registers, control flow to blocks, phis to parallel
// copies, calls and returns by the ABI, and the surface shader's entry convention.
#include "backends/rpu/codegen.h"

#include <algorithm>
#include <bit>

#include "backends/rpu/codegen_internal.h"

namespace passlab::rpu {

std::optional<RegClass> class_of(lang::BaseType t) {
  switch (t) {
    case lang::BaseType::Float:
    case lang::BaseType::String:
    case lang::BaseType::Bool: return RegClass::Scalar;
    case lang::BaseType::Color:
    case lang::BaseType::Point:
    case lang::BaseType::Vector:
    case lang::BaseType::Normal: return RegClass::Vector;
    default: return std::nullopt;
  }
}

namespace detail {

using ir::Op;
using ir::ValueId;

FunctionCodegen::FunctionCodegen(const ir::Module& m, std::size_t module_index, std::size_t index, const Linkage& links,
                                 StringTable& strings, ConstantPool& constants, std::set<std::string>& runtime_used, lang::DiagnosticSink& sink)
    : m_(m), module_index_(module_index), fn_(m.functions.at(index)), links_(links), strings_(strings), constants_(constants), runtime_used_(runtime_used),
      sink_(sink) {
  f_.name = fn_.name;
  f_.label = links.labels.at(module_index).at(index);
  f_.shader = fn_.is_shader;
}

void FunctionCodegen::fail(const lang::Span& at, const std::string& message, const char* code) {
  sink_.error(code, at.valid() ? at : span_, message);
  throw CodegenError{};
}

Loc FunctionCodegen::temp(RegClass cls, const char* name) { return f_.new_vreg(cls, name ? name : "t", span_); }

void FunctionCodegen::emit(Opcode op, const Dest& d, const Source& a, const Source& b, const Source& c, SpecialFn special) {
  AsmInstr in;
  in.word.primary.op = op;
  in.word.primary.dst = d;
  in.word.primary.src = {a, b, c};
  in.word.primary.special = special;
  in.span = span_;
  f_.blocks[cur_].body.push_back(std::move(in));
}

Source FunctionCodegen::special(SpecialFn fn, const Source& x) {
  // The ordinary result goes to the junk register; the useful one to the next S lane, which is
  // copied at once (forwarding removes the copy where the lane survives until its use).
  const std::uint8_t lane = next_s_;
  next_s_ = static_cast<std::uint8_t>((next_s_ + 1) & 3);
  emit(Opcode::Mov, {Bank::R, static_cast<std::uint32_t>(kJunk), static_cast<std::uint8_t>(1u << lane)}, lane_of(x, 3), {}, {}, fn);
  const Loc r = temp(RegClass::Scalar, fn == SpecialFn::Rcp ? "rcp" : "rsq");
  Source s = Source::reg(Bank::Special, 0, Swizzle::splat(lane));
  mov(vdst(f_, r), s);
  return vsrc(f_, r);
}

std::uint32_t FunctionCodegen::new_block() {
  f_.blocks.emplace_back();
  terminated_.push_back(false);
  return static_cast<std::uint32_t>(f_.blocks.size() - 1);
}

void FunctionCodegen::jump(std::uint32_t target) {
  if (terminated_[cur_]) return;
  Terminator& t = f_.blocks[cur_].term;
  t = {};
  t.kind = Terminator::Kind::Jump;
  t.target = target;
  t.span = span_;
  terminated_[cur_] = true;
}

void FunctionCodegen::branch(Operation test, const Condition& cond, std::uint32_t taken, std::uint32_t other) {
  Terminator& t = f_.blocks[cur_].term;
  t = {};
  t.kind = Terminator::Kind::Branch;
  t.test = test;
  t.cond = cond;
  t.target = taken;
  t.other = other;
  t.span = span_;
  terminated_[cur_] = true;
}

void FunctionCodegen::compare_branch(const Source& x, const Source& y, std::uint8_t mask, Relation rel, std::uint32_t taken,
                                     std::uint32_t other, bool any) {
  Operation test;
  test.dst = {Bank::R, static_cast<std::uint32_t>(kJunk), mask};
  if (y.is_literal() && y.literal_value() == 0.0f) {
    test.op = Opcode::Mov;
    test.src[0] = x;
  } else {
    test.op = Opcode::Add;
    test.src[0] = x;
    test.src[1] = negated(y);
  }
  branch(test, Condition::lane(mask, rel, 0, any), taken, other);
}

bool FunctionCodegen::lane_test(ValueId c, std::uint32_t taken, std::uint32_t other) {
  const Op join = fn_.at(c).op;
  // The comparisons joined, left to right.
  std::vector<ValueId> leaves;
  std::vector<ValueId> stack{c};
  while (!stack.empty()) {
    const ValueId v = stack.back();
    stack.pop_back();
    const ir::Instr& in = fn_.at(v);
    if (in.op == join && !value_[v]) {
      stack.push_back(in.args[1]);
      stack.push_back(in.args[0]);
    } else {
      leaves.push_back(v);
    }
  }
  if (leaves.size() < 2) return false;
  // One side of a comparison: lane k of a triple, or a number.
  struct Side {
    ValueId triple = ir::kNoValue;
    int lane = -1;
    std::optional<float> number;
  };
  auto side = [&](ValueId v) {
    Side out;
    const ir::Instr& in = fn_.at(v);
    if (in.op == Op::Const && in.type == lang::BaseType::Float && !in.data.empty()) {
      out.number = in.data[0];
    } else if (in.op == Op::Builtin) {
      const auto id = static_cast<lang::Builtin>(in.aux);
      int lane = id == lang::Builtin::Xcomp ? 0 : id == lang::Builtin::Ycomp ? 1 : id == lang::Builtin::Zcomp ? 2 : -1;
      if (id == lang::Builtin::Comp && in.args.size() == 2) {
        const ir::Instr& k = fn_.at(in.args[1]);
        if (k.op == Op::Const && !k.data.empty() && (k.data[0] == 0 || k.data[0] == 1 || k.data[0] == 2)) lane = static_cast<int>(k.data[0]);
      }
      if (lane >= 0 && class_of(fn_.at(in.args[0]).type) == RegClass::Vector) {
        out.triple = in.args[0];
        out.lane = lane;
      }
    }
    return out;
  };
  // Each leaf as "lane k of (x - y) passes rel", negated or not, the way branch_on tests one:
  // x >= y, x <= y (as y - x >= 0), x == y are tests; x < y, x > y, x != y are their negations.
  std::optional<Side> x0, y0;
  std::optional<Relation> rel0;
  std::optional<bool> negated0;
  std::uint8_t mask = 0;
  for (ValueId leaf : leaves) {
    const ir::Instr& in = fn_.at(leaf);
    if (value_[leaf] || in.args.size() != 2 || fn_.at(in.args[0]).type != lang::BaseType::Float) return false;
    Side a = side(in.args[0]), b = side(in.args[1]);
    Relation rel;
    bool negated = false, swap = false;
    switch (in.op) {
      case Op::Ge: rel = Relation::Ge; break;
      case Op::Le: rel = Relation::Ge, swap = true; break;
      case Op::Lt: rel = Relation::Ge, negated = true; break;
      case Op::Gt: rel = Relation::Ge, negated = true, swap = true; break;
      case Op::Eq: rel = Relation::Eq; break;
      case Op::Ne: rel = Relation::Eq, negated = true; break;
      default: return false;
    }
    if (swap) std::swap(a, b);
    const int lane = a.lane >= 0 ? a.lane : b.lane;
    if (lane < 0 || (a.lane >= 0 && b.lane >= 0 && a.lane != b.lane)) return false;
    const auto bit = static_cast<std::uint8_t>(1u << lane);
    if (mask & bit) return false;
    mask |= bit;
    auto same = [](const Side& p, const Side& q) { return p.triple == q.triple && p.number == q.number; };
    if (!x0) x0 = a, y0 = b, rel0 = rel, negated0 = negated;
    else if (!same(*x0, a) || !same(*y0, b) || rel != *rel0 || negated != *negated0) return false;
    if ((a.triple == ir::kNoValue && !a.number) || (b.triple == ir::kNoValue && !b.number)) return false;
  }
  auto source = [&](const Side& s) { return s.number ? Source::lit(*s.number) : use(s.triple); };
  // All leaves hold: every lane passes, or (negated) no lane does; some leaf holds: some lane
  // passes, or (negated) not every lane does.
  const bool conj = join == Op::And;
  if (*negated0) compare_branch(source(*x0), source(*y0), mask, *rel0, other, taken, conj);
  else compare_branch(source(*x0), source(*y0), mask, *rel0, taken, other, !conj);
  return true;
}

RegClass FunctionCodegen::cls_of(ValueId v) {
  const ir::Instr& in = fn_.at(v);
  std::optional<RegClass> c = class_of(in.type);
  if (!c) {
    if (in.type == lang::BaseType::Matrix) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
    fail(in.span, std::string("a value of type ") + lang::to_string(in.type) + " cannot live in an RPU register", "internal-error");
  }
  return *c;
}

Loc FunctionCodegen::def(ValueId v, const char* name) {
  const Loc r = f_.new_vreg(cls_of(v), name ? name : "", fn_.at(v).span);
  value_[v] = vsrc(f_, r);
  return r;
}

Source FunctionCodegen::use(ValueId v) {
  if (value_[v]) return *value_[v];
  const ir::Instr& in = fn_.at(v);
  if (in.op == Op::Phi) {
    def(v, "phi");
    return *value_[v];
  }
  if (in.type == lang::BaseType::Matrix) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
  fail(in.span, "value %" + std::to_string(v) + " (" + ir::to_string(in.op) + ") is used before it is generated", "internal-error");
}

Source FunctionCodegen::constant(const ir::Instr& in) {
  if (in.type == lang::BaseType::String) return Source::lit(strings_.intern(in.text, in.span, sink_));
  if (in.type == lang::BaseType::Matrix) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
  // Numbers compare as encodings, so that a NaN (a folded sqrt(-3)) is the same number as itself.
  const auto same = [](float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); };
  if (in.data.size() <= 1 || std::all_of(in.data.begin(), in.data.end(), [&](float x) { return same(x, in.data[0]); }))
    return Source::lit(in.data.empty() ? 0.0f : in.data[0]);
  // A triple of different numbers: written lane by lane, the most common number first.
  const Loc r = temp(RegClass::Vector, "const");
  float first = in.data[0];
  int best = 0;
  for (float x : in.data) {
    const int n = static_cast<int>(std::count_if(in.data.begin(), in.data.end(), [&](float y) { return same(x, y); }));
    if (n > best) {
      best = n;
      first = x;
    }
  }
  mov(vdst(f_, r), Source::lit(first));
  for (std::size_t i = 0; i < 3; ++i) {
    if (same(in.data[i], first)) continue;
    std::uint8_t mask = 0;
    for (std::size_t j = i; j < 3; ++j)
      if (same(in.data[j], in.data[i])) mask |= static_cast<std::uint8_t>(1u << j);
    bool done = false;
    for (std::size_t j = 0; j < i; ++j) done = done || same(in.data[j], in.data[i]);
    if (!done) mov({Bank::Virtual, r, mask}, Source::lit(in.data[i]));
  }
  return vsrc(f_, r);
}

Source FunctionCodegen::materialize(ValueId v) {
  const Loc r = temp(RegClass::Scalar, "bool");
  const std::uint32_t yes = new_block(), no = new_block(), join = new_block();
  branch_on(v, yes, no);
  cur_ = yes;
  mov(vdst(f_, r), Source::lit(1));
  jump(join);
  cur_ = no;
  mov(vdst(f_, r), Source::lit(0));
  jump(join);
  cur_ = join;
  return vsrc(f_, r);
}

void FunctionCodegen::branch_on(ValueId c, std::uint32_t taken, std::uint32_t other) {
  const ir::Instr& in = fn_.at(c);
  const std::uint8_t scalar = kMaskW;
  auto operands_mask = [&]() { return class_of(fn_.at(in.args[0]).type) == RegClass::Vector ? kMaskXYZ : scalar; };
  switch (in.op) {
    case Op::Const:
      jump(!in.data.empty() && in.data[0] != 0 ? taken : other);
      return;
    case Op::Lt: compare_branch(use(in.args[0]), use(in.args[1]), operands_mask(), Relation::Ge, other, taken); return;
    case Op::Ge: compare_branch(use(in.args[0]), use(in.args[1]), operands_mask(), Relation::Ge, taken, other); return;
    case Op::Gt: compare_branch(use(in.args[1]), use(in.args[0]), operands_mask(), Relation::Ge, other, taken); return;
    case Op::Le: compare_branch(use(in.args[1]), use(in.args[0]), operands_mask(), Relation::Ge, taken, other); return;
    case Op::Eq: compare_branch(use(in.args[0]), use(in.args[1]), operands_mask(), Relation::Eq, taken, other); return;
    case Op::Ne: compare_branch(use(in.args[0]), use(in.args[1]), operands_mask(), Relation::Eq, other, taken); return;
    case Op::Not: branch_on(in.args[0], other, taken); return;
    case Op::And: {
      if (lane_test(c, taken, other)) return;
      const std::uint32_t mid = new_block();
      branch_on(in.args[0], mid, other);
      cur_ = mid;
      branch_on(in.args[1], taken, other);
      return;
    }
    case Op::Or: {
      if (lane_test(c, taken, other)) return;
      const std::uint32_t mid = new_block();
      branch_on(in.args[0], taken, mid);
      cur_ = mid;
      branch_on(in.args[1], taken, other);
      return;
    }
    case Op::Select: {
      if (value_[c]) break;
      const std::uint32_t a = new_block(), b = new_block();
      branch_on(in.args[0], a, b);
      cur_ = a;
      branch_on(in.args[1], taken, other);
      cur_ = b;
      branch_on(in.args[2], taken, other);
      return;
    }
    case Op::Convert:
      if (in.type == lang::BaseType::Bool && fn_.at(in.args[0]).type != lang::BaseType::Bool) {
        compare_branch(use(in.args[0]), Source::lit(0), operands_mask(), Relation::Eq, other, taken);
        return;
      }
      break;
    default: break;
  }
  // A bool held as 0 or 1.
  compare_branch(use(c), Source::lit(0), scalar, Relation::Eq, other, taken);
}

// ---- calls ---------------------------------------------------------------------------------

std::vector<Source> FunctionCodegen::call(const std::string& label, const std::string& callee,
                                          const std::vector<std::pair<Source, RegClass>>& args, const std::vector<RegClass>& results,
                                          const lang::Span& at) {
  AsmInstr c;
  int nv = 0, ns = 0;
  for (const auto& [src, cls] : args) {
    const int k = cls == RegClass::Vector ? nv++ : ns++;
    if (k >= kAllocatable) fail(at, "'" + callee + "' takes more than 15 " + (cls == RegClass::Vector ? "vector" : "float") + " arguments");
    mov(rdst(k, cls), src);
    c.call_uses.push_back(phys_unit(cls == RegClass::Vector ? kUnitXYZ + static_cast<Loc>(k) : kUnitW + static_cast<Loc>(k)));
  }
  nv = ns = 0;
  std::vector<std::pair<int, RegClass>> regs;
  for (RegClass cls : results) {
    const int k = cls == RegClass::Vector ? nv++ : ns++;
    if (k >= kAllocatable) fail(at, "'" + callee + "' returns more than 15 values of one class");
    regs.push_back({k, cls});
    c.call_defs.push_back(phys_unit(cls == RegClass::Vector ? kUnitXYZ + static_cast<Loc>(k) : kUnitW + static_cast<Loc>(k)));
  }
  c.word.control.kind = ControlKind::Call;
  c.word.control.label = label;
  c.callee = callee;
  c.span = at;
  f_.blocks[cur_].body.push_back(std::move(c));
  std::vector<Source> out;
  for (auto [k, cls] : regs) {
    const Loc r = temp(cls, "result");
    mov(vdst(f_, r), rsrc(k, cls));
    out.push_back(vsrc(f_, r));
  }
  return out;
}

Source FunctionCodegen::call_runtime(const std::string& name, const std::vector<Source>& float_args, const lang::Span& at) {
  auto it = links_.runtime.find(name);
  if (it == links_.runtime.end()) fail(at, "the RPU runtime library has no '" + name + "'", "internal-error");
  runtime_used_.insert(name);
  std::vector<std::pair<Source, RegClass>> args;
  for (const Source& s : float_args) args.push_back({s, RegClass::Scalar});
  return call(it->second, name, args, {RegClass::Scalar}, at).at(0);
}

Source FunctionCodegen::trace(const Source& origin, const Source& dir, const lang::Span& at) {
  const Loc result = temp(RegClass::Vector, "traced");
  const std::uint32_t miss = new_block(), hit = new_block(), join = new_block();
  const Source c31 = Source::reg(Bank::C, 31);
  Source level = Source::lit(0);  // rays cast outside a shader start at the camera's level
  if (f_.shader) {
    // The new ray is one level deeper; past the scene's depth (C31.w) it sees the background.
    const Loc next = temp(RegClass::Scalar, "level");
    emit(Opcode::Add, vdst(f_, next), vsrc(f_, level_), Source::lit(1));
    level = vsrc(f_, next);
    const std::uint32_t cast = new_block();
    compare_branch(level, lane_of(c31, 3), kMaskW, Relation::Ge, miss, cast);
    cur_ = cast;
  }
  AsmInstr t;
  t.word.primary.op = Opcode::Trace;
  t.word.primary.src = {origin, dir, c31};
  t.span = at;
  f_.blocks[cur_].body.push_back(std::move(t));
  compare_branch(Source::reg(Bank::Hit, 0, Swizzle::splat(2)), Source::lit(0), kMaskW, Relation::Ge, hit, miss);
  cur_ = miss;
  mov(vdst(f_, result), swizzled(Source::reg(Bank::C, 30), Swizzle{{0, 1, 2, 2}}));
  jump(join);
  cur_ = hit;
  // Call the hit object's shader with the ray (R0.xyz origin, R1.xyz direction, R0.w level).
  mov(rdst(0, RegClass::Vector), origin);
  mov(rdst(1, RegClass::Vector), dir);
  mov(rdst(0, RegClass::Scalar), level);
  AsmInstr c;
  c.word.control.kind = ControlKind::Call;
  c.word.control.target_reg = Source::reg(Bank::Hit, 0, Swizzle::splat(3));
  c.call_uses = {phys_unit(kUnitXYZ + 0), phys_unit(kUnitXYZ + 1), phys_unit(kUnitW + 0)};
  c.call_defs = {phys_unit(kUnitXYZ + 0), phys_unit(kUnitXYZ + 1)};
  c.span = at;
  f_.blocks[cur_].body.push_back(std::move(c));
  mov(vdst(f_, result), rsrc(0, RegClass::Vector));
  jump(join);
  cur_ = join;
  return vsrc(f_, result);
}

Source FunctionCodegen::visibility(const Source& p1, const Source& p2) {
  // Cast p1 -> p2 with an unnormalised direction: something lies between them when the hit's
  // distance is in [0, 1).
  const Loc d = temp(RegClass::Vector, "span");
  emit(Opcode::Add, vdst(f_, d), p2, negated(p1));
  AsmInstr t;
  t.word.primary.op = Opcode::Trace;
  t.word.primary.src = {p1, vsrc(f_, d), Source::reg(Bank::C, 31)};
  t.span = span_;
  f_.blocks[cur_].body.push_back(std::move(t));
  const Loc r = temp(RegClass::Scalar, "visible");
  mov(vdst(f_, r), Source::lit(1));
  const std::uint32_t blocked = new_block(), join = new_block();
  Operation test;
  test.op = Opcode::Mov;
  test.dst = {Bank::R, static_cast<std::uint32_t>(kJunk), kMaskW};
  test.src[0] = Source::reg(Bank::Hit, 0, Swizzle::splat(2));
  Condition between = Condition::lane(kMaskW, Relation::Ge);
  between.count = 2;
  between.tests[1] = {Relation::Lt, 1};
  branch(test, between, blocked, join);
  cur_ = blocked;
  mov(vdst(f_, r), Source::lit(0));
  jump(join);
  cur_ = join;
  return vsrc(f_, r);
}

// ---- the surface shader's inputs -------------------------------------------------------------

void FunctionCodegen::load(std::uint32_t into, const Source& address, std::int32_t offset) {
  AsmInstr l;
  l.word.primary.op = Opcode::Load;
  l.word.primary.dst = {Bank::I, into, kMaskAll};
  l.word.primary.address = address;
  l.word.primary.offset = offset;
  l.span = span_;
  f_.blocks[cur_].body.push_back(l);
}

void FunctionCodegen::load_triangle() {
  if (loaded_triangle_) return;
  loaded_triangle_ = true;
  load(0, Source::reg(Bank::HitTri, 0), 0);
  mov({Bank::A, 0, kMaskAll}, Source::reg(Bank::I, 0));
}

std::array<Loc, 3> FunctionCodegen::vertex_word(int word) {
  auto it = vertex_words_.find(word);
  if (it != vertex_words_.end()) return it->second;
  load_triangle();
  std::array<Loc, 3> out{};
  const char* names[] = {"vertex.P", "vertex.N", "vertex.st", "vertex.dPdu", "vertex.dPdv"};
  for (std::uint32_t k = 0; k < 3; ++k) load(k, Source::reg(Bank::A, k), word);
  for (int k = 0; k < 3; ++k) {
    out[static_cast<std::size_t>(k)] = temp(RegClass::Vector, names[word]);
    mov(vdst(f_, out[static_cast<std::size_t>(k)]), Source::reg(Bank::I, static_cast<std::uint32_t>(k), Swizzle{{0, 1, 2, 2}}));
  }
  // A vector temporary holds .xyz only: the word's .w (v of [s, t, u, v]) needs scalars of its
  // own, taken before the I registers are loaded again (unused ones are dead code).
  if (word == 2) {
    std::array<Loc, 3> w{};
    for (int k = 0; k < 3; ++k) {
      w[static_cast<std::size_t>(k)] = temp(RegClass::Scalar, "vertex.v");
      mov(vdst(f_, w[static_cast<std::size_t>(k)]), Source::reg(Bank::I, static_cast<std::uint32_t>(k), Swizzle::splat(3)));
    }
    vertex_ws_[word] = w;
  }
  vertex_words_[word] = out;
  return out;
}

std::array<Loc, 3> FunctionCodegen::vertex_w(int word) {
  vertex_word(word);
  return vertex_ws_.at(word);
}

Loc FunctionCodegen::object_word(int word) {
  auto it = object_words_.find(word);
  if (it != object_words_.end()) return it->second;
  load_triangle();
  load(3, Source::reg(Bank::A, 3), word);
  const Loc r = temp(RegClass::Vector, word == 0 ? "Cs" : "Os");
  mov(vdst(f_, r), Source::reg(Bank::I, 3, Swizzle{{0, 1, 2, 2}}));
  object_words_[word] = r;
  return r;
}

Loc FunctionCodegen::interpolate(const std::array<Loc, 3>& v, RegClass cls, int lane, const char* name) {
  // a + u (b - a) + v (c - a), with (u, v) the hit's barycentrics in HIT.x and HIT.y.
  auto read = [&](Loc x) { return cls == RegClass::Vector ? vsrc(f_, x) : lane_of(vsrc(f_, x), lane); };
  const Loc e1 = temp(cls, "edge"), e2 = temp(cls, "edge"), t = temp(cls, "t"), r = temp(cls, name);
  emit(Opcode::Add, vdst(f_, e1), read(v[1]), negated(read(v[0])));
  emit(Opcode::Add, vdst(f_, e2), read(v[2]), negated(read(v[0])));
  emit(Opcode::Mad, vdst(f_, t), vsrc(f_, e1), lane_of(vsrc(f_, hit_), 0), read(v[0]));
  emit(Opcode::Mad, vdst(f_, r), vsrc(f_, e2), lane_of(vsrc(f_, hit_), 1), vsrc(f_, t));
  return r;
}

Source FunctionCodegen::global(lang::Global g, const lang::Span& at) {
  auto it = globals_.find(g);
  if (it != globals_.end()) return it->second;
  Source out;
  using G = lang::Global;
  switch (g) {
    case G::P: {  // origin + direction * distance
      const Loc p = temp(RegClass::Vector, "P");
      emit(Opcode::Mad, vdst(f_, p), vsrc(f_, dir_), lane_of(vsrc(f_, hit_), 2), vsrc(f_, origin_));
      out = vsrc(f_, p);
      break;
    }
    case G::I: {  // from the ray's origin to P
      const Loc i = temp(RegClass::Vector, "I");
      emit(Opcode::Mul, vdst(f_, i), vsrc(f_, dir_), lane_of(vsrc(f_, hit_), 2));
      out = vsrc(f_, i);
      break;
    }
    case G::E: out = Source::lit(0); break;  // the eye is the camera's origin
    case G::time: out = Source::lit(0); break;  // the RPU's scenes stand still: it shades at time 0
    case G::Ng: {  // normalize((B - A) x (C - A))
      const std::array<Loc, 3> p = vertex_word(0);
      const Loc e1 = temp(RegClass::Vector, "edge"), e2 = temp(RegClass::Vector, "edge"), t = temp(RegClass::Vector, "t"),
                n = temp(RegClass::Vector, "Ng_raw");
      emit(Opcode::Add, vdst(f_, e1), vsrc(f_, p[1]), negated(vsrc(f_, p[0])));
      emit(Opcode::Add, vdst(f_, e2), vsrc(f_, p[2]), negated(vsrc(f_, p[0])));
      emit(Opcode::Mul, vdst(f_, t), swizzled(vsrc(f_, e1), {{1, 2, 0, 0}}), swizzled(vsrc(f_, e2), {{2, 0, 1, 1}}));
      emit(Opcode::Mad, vdst(f_, n), negated(swizzled(vsrc(f_, e1), {{2, 0, 1, 1}})), swizzled(vsrc(f_, e2), {{1, 2, 0, 0}}), vsrc(f_, t));
      const Loc d = temp(RegClass::Scalar, "t");
      emit(Opcode::Dp3, vdst(f_, d), vsrc(f_, n), vsrc(f_, n));
      const Source k = special(SpecialFn::Rsq, vsrc(f_, d));
      const Loc r = temp(RegClass::Vector, "Ng");
      emit(Opcode::Mul, vdst(f_, r), vsrc(f_, n), k);
      out = vsrc(f_, r);
      break;
    }
    case G::N: {  // the vertex normals interpolated, normalised
      const Loc n = interpolate(vertex_word(1), RegClass::Vector, 0, "N_raw");
      const Loc d = temp(RegClass::Scalar, "t");
      emit(Opcode::Dp3, vdst(f_, d), vsrc(f_, n), vsrc(f_, n));
      const Source k = special(SpecialFn::Rsq, vsrc(f_, d));
      const Loc r = temp(RegClass::Vector, "N");
      emit(Opcode::Mul, vdst(f_, r), vsrc(f_, n), k);
      out = vsrc(f_, r);
      break;
    }
    case G::s:
    case G::t:
    case G::u: {
      const Loc st = interpolate(vertex_word(2), RegClass::Vector, 0, "stu");
      out = lane_of(vsrc(f_, st), g == G::s ? 0 : g == G::t ? 1 : 2);
      break;
    }
    case G::v: out = vsrc(f_, interpolate(vertex_w(2), RegClass::Scalar, 3, "v")); break;
    case G::dPdu: out = vsrc(f_, interpolate(vertex_word(3), RegClass::Vector, 0, "dPdu")); break;
    case G::dPdv: out = vsrc(f_, interpolate(vertex_word(4), RegClass::Vector, 0, "dPdv")); break;
    case G::Cs: out = vsrc(f_, object_word(0)); break;
    case G::Os: out = vsrc(f_, object_word(1)); break;
    case G::du:
    case G::dv: out = pixel_step(g == G::du); break;  // across the pixel quad (derivatives.cpp)
    default: out = Source::lit(0); break;     // L, Cl, Ol, Ps outside a light loop
  }
  (void)at;
  globals_[g] = out;
  return out;
}

// ---- instructions --------------------------------------------------------------------------

void FunctionCodegen::instruction(ValueId v) {
  const ir::Instr& in = fn_.at(v);
  span_ = in.span;
  auto arg = [&](std::size_t i) { return use(in.args.at(i)); };
  switch (in.op) {
    case Op::Const:
      if (in.type == lang::BaseType::Bool) return;  // branches read it directly
      if (in.type == lang::BaseType::Matrix) return;  // transform() reads a constant matrix itself
      value_[v] = constant(in);
      return;
    case Op::Undef: value_[v] = Source::lit(0); return;
    case Op::ShaderParam: {
      if (in.aux == ir::kRuntimeParam) {
        auto it = links_.runtime_params.find(in.text);
        if (it != links_.runtime_params.end()) {
          value_[v] = it->second;
          return;
        }
      }
      value_[v] = arg(0);  // a surface's parameters are compiled in
      return;
    }
    case Op::Arg: {
      int k = 0;
      const RegClass cls = cls_of(v);
      for (std::uint32_t i = 0; i < in.aux; ++i) k += class_of(fn_.arg_types[i]) == cls;
      if (k >= kAllocatable) fail(in.span, "more than 15 " + std::string(cls == RegClass::Vector ? "vector" : "float") + " arguments");
      mov(vdst(f_, def(v, fn_.arg_names.at(in.aux).c_str())), rsrc(k, cls));
      return;
    }
    case Op::Global: {
      if (!fn_.is_shader) fail(in.span, "a function that is not a shader has no globals on the RPU");
      value_[v] = global(static_cast<lang::Global>(in.aux), in.span);
      return;
    }
    case Op::Neg: mov(vdst(f_, def(v)), negated(arg(0))); return;
    case Op::Add: emit(Opcode::Add, vdst(f_, def(v)), arg(0), arg(1)); return;
    case Op::Sub: emit(Opcode::Add, vdst(f_, def(v)), arg(0), negated(arg(1))); return;
    case Op::Mul: emit(Opcode::Mul, vdst(f_, def(v)), arg(0), arg(1)); return;
    case Op::Div: {
      const Source a = arg(0);
      if (cls_of(v) == RegClass::Scalar) {
        const Source r = special(SpecialFn::Rcp, arg(1));
        emit(Opcode::Mul, vdst(f_, def(v)), a, r);
        return;
      }
      const ir::Instr& b = fn_.at(in.args[1]);
      if (b.op == Op::Convert && class_of(fn_.at(b.args[0]).type) == RegClass::Scalar) {  // by a float: one reciprocal
        const Source r = special(SpecialFn::Rcp, use(b.args[0]));
        emit(Opcode::Mul, vdst(f_, def(v)), a, r);
        return;
      }
      const Source d = arg(1);
      const Loc inv = temp(RegClass::Vector, "rcp");
      for (int c = 0; c < 3; ++c) mov({Bank::Virtual, inv, static_cast<std::uint8_t>(c == 0 ? kMaskXYZ : 1u << c)}, special(SpecialFn::Rcp, lane_of(d, c)));
      emit(Opcode::Mul, vdst(f_, def(v)), a, vsrc(f_, inv));
      return;
    }
    case Op::Dot: emit(Opcode::Dp3, vdst(f_, def(v)), arg(0), arg(1)); return;
    case Op::Cross: {
      // The thesis's two instructions: a.yzx * b.zxy - a.zxy * b.yzx.
      const Source a = arg(0), b = arg(1);
      const Loc t = temp(RegClass::Vector, "t");
      emit(Opcode::Mul, vdst(f_, t), swizzled(a, {{1, 2, 0, 0}}), swizzled(b, {{2, 0, 1, 1}}));
      emit(Opcode::Mad, vdst(f_, def(v)), negated(swizzled(a, {{2, 0, 1, 1}})), swizzled(b, {{1, 2, 0, 0}}), vsrc(f_, t));
      return;
    }
    case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge: case Op::Eq: case Op::Ne:
    case Op::And: case Op::Or: case Op::Not:
      return;  // generated where a branch reads them (or materialised by their data uses)
    case Op::Select: {
      if (in.type == lang::BaseType::Bool) return;
      const Loc r = def(v, "select");
      const std::uint32_t yes = new_block(), no = new_block(), join = new_block();
      branch_on(in.args[0], yes, no);
      cur_ = yes;
      mov(vdst(f_, r), arg(1));
      jump(join);
      cur_ = no;
      mov(vdst(f_, r), arg(2));
      jump(join);
      cur_ = join;
      return;
    }
    case Op::Convert: {
      const lang::BaseType from = fn_.at(in.args[0]).type;
      if (in.type == lang::BaseType::Bool) return;
      if (from == lang::BaseType::Bool) {
        value_[v] = materialize(in.args[0]);
        return;
      }
      if (in.type == lang::BaseType::Matrix || from == lang::BaseType::Matrix)
        fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
      // float -> triple reads the float in every lane; triple -> triple is the same value.
      value_[v] = arg(0);
      return;
    }
    case Op::MakeTriple: make_triple(v, in); return;
    case Op::Builtin: value_[v] = builtin(in); return;
    case Op::Texture: value_[v] = texture(v); return;
    case Op::Call: call_function(v, in); return;
    case Op::Extract: value_[v] = results_.at(in.args[0]).at(in.aux); return;
    case Op::Phi: {
      if (!value_[v]) def(v, "phi");
      return;
    }
    case Op::MatMul:
    case Op::MatDiv:
    case Op::MakeMatrix: fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
    default: fail(in.span, std::string("'") + ir::to_string(in.op) + "' cannot be compiled for the RPU", "internal-error");
  }
}

// A triple from three scalars: the most repeated part moved once to every lane, the others by mask.
void FunctionCodegen::make_triple(ValueId v, const ir::Instr& in) {
  auto arg = [&](std::size_t i) { return use(in.args.at(i)); };
  const Source parts[3] = {arg(0), arg(1), arg(2)};
  if (parts[0].is_literal() && parts[0] == parts[1] && parts[1] == parts[2]) {
    value_[v] = parts[0];
    return;
  }
  const Loc r = def(v, "tuple");
  int best = 0;
  for (int i = 0; i < 3; ++i)
    if (std::count(std::begin(parts), std::end(parts), parts[i]) > std::count(std::begin(parts), std::end(parts), parts[best])) best = i;
  mov(vdst(f_, r), lane_of(parts[best], 3));
  for (int i = 0; i < 3; ++i) {
    if (parts[i] == parts[best]) continue;
    bool seen = false;
    for (int j = 0; j < i; ++j) seen = seen || parts[j] == parts[i];
    if (seen) continue;
    std::uint8_t mask = 0;
    for (int j = i; j < 3; ++j)
      if (parts[j] == parts[i]) mask |= static_cast<std::uint8_t>(1u << j);
    mov({Bank::Virtual, r, mask}, lane_of(parts[i], 3));
  }
  return;
}

// A call of a user function: arguments and results by class, through the ABI (call()).
void FunctionCodegen::call_function(ValueId v, const ir::Instr& in) {
  auto arg = [&](std::size_t i) { return use(in.args.at(i)); };
  const ir::Function& callee = m_.functions.at(in.aux);
  std::vector<std::pair<Source, RegClass>> args;
  for (std::size_t i = 0; i < in.args.size(); ++i) {
    std::optional<RegClass> c = class_of(callee.arg_types[i]);
    if (!c) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
    args.push_back({arg(i), *c});
  }
  std::vector<RegClass> results;
  for (lang::BaseType t : callee.result_types) {
    std::optional<RegClass> c = class_of(t);
    if (!c) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
    results.push_back(*c);
  }
  std::vector<Source> r = call(links_.labels.at(module_index_).at(in.aux), callee.name, args, results, in.span);
  if (in.type == ir::kTuple) results_[v] = r;
  else if (!r.empty()) value_[v] = r[0];
  return;
}

void FunctionCodegen::parallel_copy(std::vector<std::pair<Loc, Source>> copies) {
  auto reads = [](const Source& s, Loc d) { return s.bank == Bank::Virtual && s.index == d; };
  copies.erase(std::remove_if(copies.begin(), copies.end(),
                              [&](const auto& c) { return reads(c.second, c.first) && c.second.swizzle == vsrc(f_, c.first).swizzle && !c.second.negate && c.second.scale == 0; }),
               copies.end());
  while (!copies.empty()) {
    bool progressed = false;
    for (std::size_t i = 0; i < copies.size(); ++i) {
      const Loc d = copies[i].first;
      bool blocked = false;
      for (std::size_t j = 0; j < copies.size() && !blocked; ++j) blocked = j != i && reads(copies[j].second, d);
      if (blocked) continue;
      mov(vdst(f_, d), copies[i].second);
      copies.erase(copies.begin() + static_cast<std::ptrdiff_t>(i));
      progressed = true;
      break;
    }
    if (progressed) continue;
    // Only cycles remain (a swap): park one destination's old value in a temporary.
    const Loc d = copies.front().first;
    const Loc t = temp(f_.cls(d), "swap");
    mov(vdst(f_, t), vsrc(f_, d));
    for (auto& c : copies)
      if (reads(c.second, d)) c.second.index = t;
  }
}

std::uint32_t FunctionCodegen::edge(ir::BlockId from, ir::BlockId to, bool own_block) {
  const ir::Block& target = fn_.blocks.at(to);
  std::vector<std::pair<Loc, Source>> copies;
  std::size_t k = 0;
  while (k < target.preds.size() && target.preds[k] != from) ++k;
  const std::uint32_t saved = cur_;
  std::uint32_t entry = ir_block_.at(to);
  bool any = false;
  for (ValueId p : target.instrs) {
    const ir::Instr& phi = fn_.at(p);
    if (phi.op != Op::Phi) break;
    if (phi.type == lang::BaseType::Bool && !value_[p]) def(p, "phi");
    any = true;
  }
  if (!any) return entry;
  if (own_block) {
    entry = new_block();
    cur_ = entry;
  }
  for (ValueId p : target.instrs) {
    const ir::Instr& phi = fn_.at(p);
    if (phi.op != Op::Phi) break;
    span_ = phi.span;
    const Source dst = use(p);
    const ValueId a = phi.args.at(k);
    Source src;
    if (fn_.at(a).type == lang::BaseType::Bool && !value_[a]) src = materialize(a);
    else src = use(a);
    copies.push_back({dst.index, src});
  }
  parallel_copy(std::move(copies));
  if (own_block) {
    jump(ir_block_.at(to));
    cur_ = saved;
  }
  return entry;
}

void FunctionCodegen::terminator(ir::BlockId b, ValueId v) {
  const ir::Instr& in = fn_.at(v);
  span_ = in.span;
  switch (in.op) {
    case Op::Br: jump(edge(b, in.targets[0], false)); return;
    case Op::CondBr: {
      if (in.targets[0] == in.targets[1]) {
        jump(edge(b, in.targets[0], false));
        return;
      }
      const std::uint32_t t = edge(b, in.targets[0], true), e = edge(b, in.targets[1], true);
      branch_on(in.args[0], t, e);
      return;
    }
    case Op::Ret: {
      int nv = 0, ns = 0;
      std::vector<Loc> uses;
      for (std::size_t i = 0; i < in.args.size(); ++i) {
        std::optional<RegClass> cls = class_of(fn_.result_types.at(i));
        if (!cls) fail(in.span, "matrices are not supported on the RPU (the thesis's compiler rejects them too)");
        const int k = *cls == RegClass::Vector ? nv++ : ns++;
        if (k >= kAllocatable) fail(in.span, "more than 15 results of one class");
        Source s = fn_.at(in.args[i]).type == lang::BaseType::Bool && !value_[in.args[i]] ? materialize(in.args[i]) : use(in.args[i]);
        mov(rdst(k, *cls), s);
        uses.push_back(phys_unit(*cls == RegClass::Vector ? kUnitXYZ + static_cast<Loc>(k) : kUnitW + static_cast<Loc>(k)));
      }
      Terminator& t = f_.blocks[cur_].term;
      t = {};
      t.kind = Terminator::Kind::Return;
      t.uses = uses;
      t.span = in.span;
      terminated_[cur_] = true;
      return;
    }
    default: fail(in.span, "unexpected terminator", "internal-error");
  }
}

std::optional<AsmFunction> FunctionCodegen::run() {
  try {
    if (fn_.is_shader && fn_.shader_kind != lang::ShaderKind::Surface)
      fail(fn_.blocks.empty() || fn_.blocks[0].instrs.empty() ? lang::Span{} : fn_.at(fn_.blocks[0].instrs.back()).span,
           std::string("a ") + lang::to_string(fn_.shader_kind) +
               " shader cannot run on the RPU: it runs surface shaders and functions (the thesis maps lights to functions and leaves volume, imager and displacement shaders out)");
    // Blocks in reverse postorder, so every value is generated before the blocks that use it.
    std::vector<ir::BlockId> order;
    {
      std::vector<std::uint8_t> seen(fn_.blocks.size(), 0);
      std::vector<std::pair<ir::BlockId, std::size_t>> stack{{0, 0}};
      seen[0] = 1;
      std::vector<ir::BlockId> post;
      while (!stack.empty()) {
        auto& [b, next] = stack.back();
        std::vector<ir::BlockId> succ = fn_.successors(b);
        if (next < succ.size()) {
          ir::BlockId s = succ[next++];
          if (!seen[s]) {
            seen[s] = 1;
            stack.push_back({s, 0});
          }
          continue;
        }
        post.push_back(b);
        stack.pop_back();
      }
      order.assign(post.rbegin(), post.rend());
    }
    ir_block_.assign(fn_.blocks.size(), 0);
    for (ir::BlockId b : order) ir_block_[b] = new_block();
    value_.assign(fn_.values.size(), std::nullopt);
    cur_ = ir_block_[0];
    if (fn_.is_shader) {
      span_ = fn_.values.empty() ? lang::Span{} : fn_.values.back().span;
      origin_ = temp(RegClass::Vector, "origin");
      dir_ = temp(RegClass::Vector, "direction");
      level_ = temp(RegClass::Scalar, "level");
      hit_ = temp(RegClass::Vector, "hit");
      mov(vdst(f_, origin_), rsrc(0, RegClass::Vector));
      mov(vdst(f_, dir_), rsrc(1, RegClass::Vector));
      mov(vdst(f_, level_), rsrc(0, RegClass::Scalar));
      mov(vdst(f_, hit_), Source::reg(Bank::Hit, 0, Swizzle{{0, 1, 2, 2}}));
      f_.entry_defs = {phys_unit(kUnitXYZ + 0), phys_unit(kUnitXYZ + 1), phys_unit(kUnitW + 0), phys_unit(kUnitHit),
                       phys_unit(kUnitHitTri), phys_unit(kUnitHitObj)};
      if (takes_derivatives()) {
        derivative_prologue();
        ir_block_[0] = cur_;  // the entry's code goes on where the prologue's branches join
      }
    } else {
      int nv = 0, ns = 0;
      for (lang::BaseType t : fn_.arg_types) {
        std::optional<RegClass> c = class_of(t);
        if (!c) continue;
        const int k = *c == RegClass::Vector ? nv++ : ns++;
        if (k < kAllocatable) f_.entry_defs.push_back(phys_unit(*c == RegClass::Vector ? kUnitXYZ + static_cast<Loc>(k) : kUnitW + static_cast<Loc>(k)));
      }
    }
    // Bools that feed data (phis, conversions, results) are computed as 0/1 where they are made.
    std::vector<bool> data_use(fn_.values.size(), false);
    for (const ir::Instr& in : fn_.values) {
      if (in.removed) continue;
      for (std::size_t i = 0; i < in.args.size(); ++i) {
        const bool as_condition = (in.op == Op::CondBr) || (in.op == Op::Select && i == 0) || in.op == Op::And || in.op == Op::Or ||
                                  in.op == Op::Not || (in.op == Op::Convert && in.type == lang::BaseType::Bool);
        if (!as_condition) data_use[in.args[i]] = true;
      }
    }
    for (ir::BlockId b : order) {
      cur_ = ir_block_[b];
      ir_cur_ = b;
      for (ValueId v : fn_.blocks[b].instrs) {
        const ir::Instr& in = fn_.at(v);
        if (in.removed) continue;
        if (ir::is_terminator(in.op)) {
          terminator(b, v);
          continue;
        }
        instruction(v);
        if (in.type == lang::BaseType::Bool && data_use[v] && !value_[v] && in.op != Op::Phi) {
          span_ = in.span;
          value_[v] = materialize(v);
        }
      }
    }
    for (std::uint32_t b = 0; b < f_.blocks.size(); ++b)
      if (!terminated_[b]) {
        cur_ = b;
        jump(b);  // unreachable leftovers; removed below
      }
    f_.compute_preds();
    f_.remove_unreachable();
  } catch (const CodegenError&) {
    return std::nullopt;
  }
  return std::move(f_);
}

}  // namespace detail

std::optional<AsmFunction> generate_function(const ir::Module& module, std::size_t module_index, std::size_t function,
                                             const Linkage& links, StringTable& strings, ConstantPool& constants,
                                             std::set<std::string>& runtime_used, lang::DiagnosticSink& sink) {
  return detail::FunctionCodegen(module, module_index, function, links, strings, constants, runtime_used, sink).run();
}

std::optional<std::uint32_t> ConstantPool::index(const Vec4& v) {
  const std::array<std::uint32_t, 4> bits{std::bit_cast<std::uint32_t>(v[0]), std::bit_cast<std::uint32_t>(v[1]), std::bit_cast<std::uint32_t>(v[2]),
                                          std::bit_cast<std::uint32_t>(v[3])};
  if (auto it = by_bits_.find(bits); it != by_bits_.end()) return it->second;
  const auto next = static_cast<std::uint32_t>(kFirst + values_.size());
  if (next > kLast) return std::nullopt;
  by_bits_[bits] = next;
  values_[next] = v;
  return next;
}

}  // namespace passlab::rpu
