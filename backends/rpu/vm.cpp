// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU virtual machine: pre-decoded words executed for all of a chunk's threads at once, in
// a chunk register file that holds each register component for the four threads side by side
// (so one SIMD operation does one component for the chunk); chunks split and merge; a shared
// scoreboard for timing; every change recorded when asked. Here: decoding and loading chunks;
// vm_run.cpp runs them.
//
// A group's threads entered the same calls, so they share one stack base: a stack slot is read
// at the same absolute index for every thread of the group, in each thread's own column.
#include "backends/rpu/vm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "backends/rpu/arith.h"
#include "backends/rpu/quad.h"
#include "backends/rpu/vm_internal.h"

namespace passlab::rpu {

VmStats& VmStats::operator+=(const VmStats& o) {
  instructions += o.instructions;
  issues += o.issues;
  paired_issues += o.paired_issues;
  cycles += o.cycles;
  stalls += o.stalls;
  partial_issues += o.partial_issues;
  lane_slots += o.lane_slots;
  lane_issues += o.lane_issues;
  splits += o.splits;
  merges += o.merges;
  traces += o.traces;
  calls += o.calls;
  loads += o.loads;
  stores += o.stores;
  threads += o.threads;
  faults += o.faults;
  quads += o.quads;
  return *this;
}

ThreadState thread_at(std::uint32_t entry) {
  ThreadState t;
  t.pc = entry;
  t.stack.assign(8, Vec4{});
  return t;
}

namespace {

using namespace vm_detail;

DSrc decode_source(const Source& s, bool fp24) {
  DSrc d;
  d.swz = s.swizzle.lane;
  d.factor = s.factor();
  d.unit = d.factor == 1.0f;
  switch (s.bank) {
    case Bank::R: d.kind = kSrcReg; d.index = static_cast<std::uint8_t>(kRegR0 + s.index); break;
    case Bank::Special: d.kind = kSrcReg; d.index = kRegS; break;
    case Bank::I: d.kind = kSrcReg; d.index = static_cast<std::uint8_t>(kRegI0 + s.index); break;
    case Bank::Hit: d.kind = kSrcReg; d.index = kRegHit; break;
    case Bank::C: d.kind = kSrcConst; d.index = static_cast<std::uint8_t>(s.index); break;
    case Bank::Stack: d.kind = kSrcStack; d.index = static_cast<std::uint8_t>(s.index); break;
    case Bank::Literal:
      // A literal is encoded in the instruction word in the machine's own format.
      d.kind = kSrcLiteral;
      d.literal = fp24 ? round_fp24(s.literal_value()) : s.literal_value();
      break;
    default: throw std::logic_error("rpu vm: a source in bank " + register_name(s.bank, s.index) + " cannot be executed");
  }
  return d;
}

DOp decode_operation(const Operation& o, const Condition* cond, const Machine& m, bool fp24) {
  DOp d;
  d.op = o.op;
  d.mask = o.dst.mask;
  d.needed = result_lanes(o, cond);
  d.sat = o.sat;
  d.special = o.special;
  d.nsrc = static_cast<std::uint8_t>(source_count(o.op));
  d.latency = o.op == Opcode::None ? 1 : m.latency_of(o.op);
  for (int k = 0; k < d.nsrc; ++k) d.src[static_cast<std::size_t>(k)] = decode_source(o.src[static_cast<std::size_t>(k)], fp24);
  switch (o.dst.bank) {
    case Bank::R: d.dst_kind = kDstReg; d.dst_index = static_cast<std::uint8_t>(kRegR0 + o.dst.index); break;
    case Bank::Stack: d.dst_kind = kDstStack; d.dst_index = static_cast<std::uint8_t>(o.dst.index); break;
    case Bank::A: d.dst_kind = kDstA; break;
    case Bank::I: d.dst_kind = kDstReg; d.dst_index = static_cast<std::uint8_t>(kRegI0 + o.dst.index); break;
    case Bank::None: break;
    default: throw std::logic_error("rpu vm: cannot write " + register_name(o.dst.bank, o.dst.index));
  }
  if (o.op == Opcode::Load || o.op == Opcode::Load4 || o.op == Opcode::Store) {
    d.addr_kind = o.address.bank == Bank::HitTri ? kAddrHitTri : o.address.bank == Bank::HitObj ? kAddrHitObj : kAddrA;
    d.addr_lane = static_cast<std::uint8_t>(o.address.index & 3);
    d.offset = o.offset;
  }
  return d;
}


}  // namespace

namespace vm_detail {

void load_chunk(ChunkRegs& ch, std::span<ThreadState> threads) {
  for (auto& r : ch.reg)
    for (auto& c : r) c = splat(0);
  for (auto& c : ch.a) c = v4i{};
  std::size_t slots = 8;
  for (const ThreadState& t : threads) slots = std::max({slots, t.stack.size(), static_cast<std::size_t>(t.base) + 8});
  ch.stack.assign(slots, std::array<v4f, 4>{splat(0), splat(0), splat(0), splat(0)});
  for (std::size_t l = 0; l < threads.size(); ++l) {
    const ThreadState& t = threads[l];
    for (int r = 0; r < kRegCount; ++r)
      for (int c = 0; c < 4; ++c) ch.reg[r][c][l] = t.reg[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    for (int c = 0; c < 4; ++c) ch.a[c][l] = t.a[static_cast<std::size_t>(c)];
    ch.hit_tri[l] = t.hit_tri;
    ch.hit_obj[l] = t.hit_obj;
    for (std::size_t s = 0; s < t.stack.size(); ++s)
      for (int c = 0; c < 4; ++c) ch.stack[s][static_cast<std::size_t>(c)][l] = t.stack[s][static_cast<std::size_t>(c)];
    ch.frames[l] = t.frames;
    ch.base[l] = t.base;
    ch.pc[l] = t.pc;
    ch.status[l] = t.status;
    ch.steps[l] = static_cast<std::uint32_t>(std::min<std::uint64_t>(t.steps, 0xFFFFFFFFu));
    ch.fault[l] = t.fault;
  }
  for (std::size_t l = threads.size(); l < 4; ++l) ch.status[l] = ThreadStatus::Done;
}

void store_chunk(const ChunkRegs& ch, std::span<ThreadState> threads) {
  for (std::size_t l = 0; l < threads.size(); ++l) {
    ThreadState& t = threads[l];
    for (int r = 0; r < kRegCount; ++r)
      for (int c = 0; c < 4; ++c) t.reg[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = ch.reg[r][c][l];
    for (int c = 0; c < 4; ++c) t.a[static_cast<std::size_t>(c)] = ch.a[c][l];
    t.hit_tri = ch.hit_tri[l];
    t.hit_obj = ch.hit_obj[l];
    t.stack.resize(ch.stack.size());
    for (std::size_t s = 0; s < ch.stack.size(); ++s)
      for (int c = 0; c < 4; ++c) t.stack[s][static_cast<std::size_t>(c)] = ch.stack[s][static_cast<std::size_t>(c)][l];
    t.frames = ch.frames[l];
    t.base = ch.base[l];
    t.pc = ch.pc[l];
    t.status = ch.status[l];
    t.steps = ch.steps[l];
    t.fault = ch.fault[l];
  }
}

}  // namespace vm_detail

Vm::Vm(const Program& program, const VmOptions& options)
    : program_(program), machine_(options.machine ? options.machine : &default_machine()) {
  fp24_ = machine_->fp24 && !options.ieee;
  for (const auto& [index, v] : program.constants) constants_[index] = v;
  code_.reserve(program.code.size());
  for (const Instruction& in : program.code) {
    Decoded d;
    d.primary = decode_operation(in.primary, in.control.kind != ControlKind::None ? &in.control.cond : nullptr, *machine_, fp24_);
    d.paired = in.paired();
    if (d.paired) d.secondary = decode_operation(in.secondary, nullptr, *machine_, fp24_);
    d.control = in.control.kind;
    d.target = in.control.target;
    d.push = in.control.push;
    d.cond = in.control.cond;
    if (in.control.target_reg.bank != Bank::None) {
      d.call_through_register = true;
      d.target_reg = decode_source(in.control.target_reg, fp24_);
    }
    d.stack_slots = {kNoResource, kNoResource};
    std::uint8_t ns = 0;
    auto note_source = [&](const DSrc& s, std::uint8_t lanes) {
      if (s.kind == kSrcReg && lanes && d.read_count < d.reads.size()) d.reads[d.read_count++] = {s.index, lanes};
      if (s.kind == kSrcStack && ns < 2) {
        d.reads_stack = true;
        d.stack_slots[ns++] = s.index;
      }
    };
    const Operation* ops[2] = {&in.primary, &in.secondary};
    const Condition* conds[2] = {in.control.kind != ControlKind::None ? &in.control.cond : nullptr, nullptr};
    for (int h = 0; h < 2; ++h) {
      const DOp* op = h == 0 ? &d.primary : &d.secondary;
      if (h == 1 && !d.paired) break;
      const std::uint8_t result = result_lanes(*ops[h], conds[h]);
      for (int k = 0; k < op->nsrc; ++k) {
        // The components this source gives the operation (a load or store reads all it names).
        std::uint8_t lanes = source_lanes(*ops[h], k, result);
        if (!lanes && !is_arithmetic(op->op)) lanes = kAllLanes;
        note_source(op->src[static_cast<std::size_t>(k)], lanes);
      }
      if (op->op == Opcode::Load || op->op == Opcode::Load4 || op->op == Opcode::Store) {
        if (op->addr_kind == kAddrA && d.read_count < d.reads.size()) d.reads[d.read_count++] = {static_cast<std::uint8_t>(kResA), kAllLanes};
        if (op->addr_kind != kAddrA && d.read_count < d.reads.size()) d.reads[d.read_count++] = {kRegHit, kAllLanes};
      }
    }
    if (d.call_through_register) note_source(d.target_reg, static_cast<std::uint8_t>(1u << d.target_reg.swz[0]));
    WaitCause cause = WaitCause::Arithmetic;
    auto add_write = [&](std::uint8_t resource, std::uint8_t slot, int latency, std::uint8_t lanes) {
      if (d.write_count < d.writes.size()) d.writes[d.write_count++] = {resource, slot, static_cast<std::uint16_t>(latency), lanes, cause};
    };
    for (const DOp* o : {&d.primary, &d.secondary}) {
      if (o->op == Opcode::None) continue;
      cause = o->op == Opcode::Trace                                 ? WaitCause::Trace
              : o->op == Opcode::Load || o->op == Opcode::Load4 ? WaitCause::Memory
                                                                : WaitCause::Arithmetic;
      if (o == &d.primary) d.primary_cause = cause;
      if (o->dst_kind == kDstReg) add_write(o->dst_index, 0, o->latency, o->mask);
      if (o->dst_kind == kDstA) add_write(static_cast<std::uint8_t>(kResA), 0, o->latency, kAllLanes);
      if (o->dst_kind == kDstStack) add_write(kNoResource, o->dst_index, o->latency, kAllLanes);
      if (o->special != SpecialFn::None) add_write(kRegS, 0, o->latency + machine_->special_latency, kAllLanes);
      if (o->op == Opcode::Trace) add_write(kRegHit, 0, o->latency, kAllLanes);
      if (o->op == Opcode::Load4)
        for (int k = 0; k < 4; ++k) add_write(static_cast<std::uint8_t>(kRegI0 + k), 0, o->latency, kAllLanes);
      d.memory = d.memory || o->op == Opcode::Trace || o->op == Opcode::Load || o->op == Opcode::Load4 || o->op == Opcode::Store;
    }
    d.arithmetic = is_arithmetic(d.primary.op);
    d.crosses_lanes = is_lane_crossing(d.primary.op) || (d.paired && is_lane_crossing(d.secondary.op));
    d.quad_event = d.crosses_lanes || d.primary.op == Opcode::Trace;
    code_.push_back(d);
  }
  derivatives_ = rpu::takes_derivatives(program);
}

Vm::~Vm() = default;

void Vm::set_memory(std::vector<Vec4>* memory, bool writable) {
  memory_ = writable ? memory : nullptr;
  memory_ro_ = memory;
}

void Vm::set_memory(const std::vector<Vec4>* memory) {
  memory_ = nullptr;
  memory_ro_ = memory;
}

void Vm::run(ThreadState& thread, VmStats& stats, Recording* record) { run_chunk({&thread, 1}, stats, record, 0); }

void Vm::run_chunk(std::span<ThreadState> threads, VmStats& stats, Recording* record, std::uint32_t chunk) {
  if (threads.size() > 4) throw std::logic_error("rpu vm: a chunk holds at most four threads");
  if (!chunk_) chunk_ = std::make_unique<Chunk>();
  load_chunk(*chunk_, threads);
  const int n = static_cast<int>(threads.size());
  if (record) run_loaded<true>(n, stats, record, chunk);
  else run_loaded<false>(n, stats, nullptr, chunk);
  store_chunk(*chunk_, threads);
}

void Vm::run_fresh_chunk(std::uint32_t entry, std::span<const Vec4> r0, VmStats& stats, FreshResult& out) {
  if (r0.size() > 4) throw std::logic_error("rpu vm: a chunk holds at most four threads");
  if (!chunk_) chunk_ = std::make_unique<Chunk>();
  Chunk& ch = *chunk_;
  for (auto& r : ch.reg)
    for (auto& c : r) c = splat(0);
  for (auto& c : ch.a) c = v4i{};
  const int n = static_cast<int>(r0.size());
  for (int l = 0; l < n; ++l)
    for (int c = 0; c < 4; ++c) ch.reg[kRegR0][c][l] = r0[static_cast<std::size_t>(l)][static_cast<std::size_t>(c)];
  ch.hit_tri = ch.hit_obj = {-1, -1, -1, -1};
  ch.stack.assign(8, std::array<v4f, 4>{splat(0), splat(0), splat(0), splat(0)});
  for (std::size_t l = 0; l < 4; ++l) {
    ch.frames[l].clear();
    ch.base[l] = 0;
    ch.pc[l] = entry;
    ch.status[l] = static_cast<int>(l) < n ? ThreadStatus::Running : ThreadStatus::Done;
    ch.fault[l].clear();
  }
  ch.steps = v4u{};
  run_loaded<false>(n, stats, nullptr, 0);
  for (std::size_t l = 0; l < static_cast<std::size_t>(n); ++l) {
    out.r0[l] = ch.thread(ch.reg[kRegR0], static_cast<int>(l));
    out.status[l] = ch.status[l];
    out.steps[l] = ch.steps[l];
    out.fault[l] = ch.fault[l];
  }
}

}  // namespace passlab::rpu
