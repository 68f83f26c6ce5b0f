// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU virtual machine: pre-decoded words executed for all of a chunk's threads at once, in
// a chunk register file that holds each register component for the four threads side by side
// (so one SIMD operation does one component for the chunk); chunks split and merge; a shared
// scoreboard for timing; every change recorded when asked.
//
// A group's threads entered the same calls, so they share one stack base: a stack slot is read
// at the same absolute index for every thread of the group, in each thread's own column.
#include "backends/rpu/vm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "backends/rpu/arith.h"

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
  return *this;
}

ThreadState thread_at(std::uint32_t entry) {
  ThreadState t;
  t.pc = entry;
  t.stack.assign(8, Vec4{});
  return t;
}

namespace {

// One component of a register for the chunk's four threads.
using v4f = float __attribute__((vector_size(16)));
using v4i = std::int32_t __attribute__((vector_size(16)));
using v4u = std::uint32_t __attribute__((vector_size(16)));

inline v4f splat(float x) { return v4f{x, x, x, x}; }

// Scoreboard resources: the 22 thread registers, A, then stack slots folded onto 64 entries.
// Readiness is kept per component (a register's .w may be pending while its .xyz is ready: the
// compiler packs a scalar beside a vector, and the scheduler counts them apart).
constexpr int kResA = kRegCount;
constexpr int kResStack = kRegCount + 1;
constexpr int kStackResources = 64;
constexpr int kResources = kResStack + kStackResources;
constexpr std::uint8_t kNoResource = 0xFF;
constexpr std::uint8_t kAllLanes = 0xF;

// Lanes in a 4-bit mask (a table: no popcount instruction is assumed).
inline int lane_count(std::uint8_t mask) {
  static constexpr std::uint8_t kCount[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return kCount[mask & 15];
}

// The threads of a 4-bit mask as a vector condition (-1 where set).
inline v4i thread_mask(std::uint8_t m) {
  static constexpr std::int32_t kBits[16][4] = {{0, 0, 0, 0},   {-1, 0, 0, 0},   {0, -1, 0, 0},   {-1, -1, 0, 0},
                                                {0, 0, -1, 0},  {-1, 0, -1, 0},  {0, -1, -1, 0},  {-1, -1, -1, 0},
                                                {0, 0, 0, -1},  {-1, 0, 0, -1},  {0, -1, 0, -1},  {-1, -1, 0, -1},
                                                {0, 0, -1, -1}, {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};
  const std::int32_t* b = kBits[m & 15];
  return v4i{b[0], b[1], b[2], b[3]};
}
inline std::uint8_t mask_bits(v4i v) {
#if defined(__SSE__)
  return static_cast<std::uint8_t>(__builtin_ia32_movmskps(std::bit_cast<v4f>(v)));  // the sign bits, one instruction
#else
  return static_cast<std::uint8_t>((v[0] != 0) | ((v[1] != 0) << 1) | ((v[2] != 0) << 2) | ((v[3] != 0) << 3));
#endif
}

// fp24 rounding of four values at once: round_fp24, branch-free, lane for lane.
inline v4f round4(v4f x) {
  const v4u u = std::bit_cast<v4u>(x);
  const v4u sign = u & 0x80000000u;
  v4u r = (u + 0x3Fu + ((u >> 7) & 1u)) & ~0x7Fu;
  const v4u e = (r >> 23) & 0xFFu;
  r = (e >= 127u + 64u) ? (sign | 0x7F800000u) : r;
  r = (e < 127u - 62u) ? sign : r;
  r = ((u & 0x7F800000u) == 0x7F800000u) ? u : r;
  return std::bit_cast<v4f>(r);
}

inline v4f saturate4(v4f x) {
  x = (x > 0.0f) ? x : splat(0);  // NaN saturates to 0
  return (x < 1.0f) ? x : splat(1);
}

inline v4i passes4(Test t, v4f x) {
  const float k = static_cast<float>(t.against);
  switch (t.rel) {
    case Relation::Lt: return x < k;
    case Relation::Ge: return ~(x < k);
    case Relation::Gt: return x > k;
    case Relation::Le: return ~(x > k);
    case Relation::Eq: return x == k;
    case Relation::Ne: return ~(x == k);
  }
  return v4i{};
}

enum SrcKind : std::uint8_t { kSrcReg, kSrcConst, kSrcStack, kSrcLiteral };
enum DstKind : std::uint8_t { kDstNone, kDstReg, kDstStack, kDstA };
enum AddrKind : std::uint8_t { kAddrA, kAddrHitTri, kAddrHitObj };

struct DSrc {
  std::uint8_t kind = kSrcLiteral;
  std::uint8_t index = 0;
  bool unit = true;  // factor is exactly 1
  std::array<std::uint8_t, 4> swz{0, 1, 2, 3};
  float factor = 1;
  float literal = 0;  // already scaled, in the machine's format
};

struct DOp {
  Opcode op = Opcode::None;
  std::uint8_t dst_kind = kDstNone;
  std::uint8_t dst_index = 0;
  std::uint8_t mask = 0;
  std::uint8_t needed = 0;  // the result components anyone reads: mask, w for _rcp/_rsq, tested lanes
  bool sat = false;
  SpecialFn special = SpecialFn::None;
  std::uint8_t nsrc = 0;
  std::array<DSrc, 3> src{};
  std::uint8_t addr_kind = kAddrA;
  std::uint8_t addr_lane = 0;
  std::int32_t offset = 0;
  int latency = 1;
};

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

// The chunk's registers and stacks, laid out for SIMD: reg[r][c] is component c of register r
// for threads 0-3.
struct ChunkRegs {
  v4f reg[kRegCount][4];
  v4i a[4];
  std::array<std::int32_t, 4> hit_tri{-1, -1, -1, -1}, hit_obj{-1, -1, -1, -1};
  std::vector<std::array<v4f, 4>> stack;  // [absolute slot][component]
  std::array<std::vector<Frame>, 4> frames;
  std::array<std::uint32_t, 4> base{}, pc{};
  std::array<ThreadStatus, 4> status{ThreadStatus::Done, ThreadStatus::Done, ThreadStatus::Done, ThreadStatus::Done};
  v4u steps{};  // instructions run, per thread
  std::array<std::string, 4> fault;

  Vec4 thread(const v4f (&comps)[4], int t) const { return {comps[0][t], comps[1][t], comps[2][t], comps[3][t]}; }
  Vec4 thread(const std::array<v4f, 4>& comps, int t) const { return {comps[0][t], comps[1][t], comps[2][t], comps[3][t]}; }
  void grow_stack(std::size_t slots) {
    if (stack.size() < slots) stack.resize(slots, std::array<v4f, 4>{splat(0), splat(0), splat(0), splat(0)});
  }
};

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

}  // namespace

struct Vm::Decoded {
  DOp primary, secondary;
  bool paired = false;
  ControlKind control = ControlKind::None;
  std::uint32_t target = 0;
  bool call_through_register = false;
  DSrc target_reg;
  std::uint32_t push = 0;
  Condition cond;
  // Scoreboard: what the word reads and writes (registers with the components concerned).
  struct Read {
    std::uint8_t resource;
    std::uint8_t lanes;
  };
  std::array<Read, 8> reads{};
  std::uint8_t read_count = 0;
  bool reads_stack = false;
  std::array<std::uint8_t, 2> stack_slots{};  // window slots read (kNoResource when none)
  struct Write {
    std::uint8_t resource;  // a register or A; kNoResource: the stack slot below
    std::uint8_t slot;      // window slot written (resource kNoResource)
    std::uint16_t latency;
    std::uint8_t lanes;     // the components written
  };
  std::array<Write, 6> writes{};
  std::uint8_t write_count = 0;
  bool arithmetic = false;  // the primary is arithmetic
  bool memory = false;      // a half is trace, load, load4 or store
};

struct Vm::Group {
  std::uint8_t mask = 0;
  std::uint32_t pc = 0;
  struct Token {
    std::uint32_t id, depth;
  };
  std::vector<Token> tokens;
  enum class State : std::uint8_t { Run, Return, Parked } state = State::Run;
};

struct Vm::Chunk : ChunkRegs {
  std::vector<Group> groups;
};

Vm::Vm(const Program& program, const VmOptions& options)
    : program_(program), machine_(options.machine ? options.machine : &default_machine()) {
  fp24_ = machine_->fp24 && !options.ieee;
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
    auto add_write = [&](std::uint8_t resource, std::uint8_t slot, int latency, std::uint8_t lanes) {
      if (d.write_count < d.writes.size()) d.writes[d.write_count++] = {resource, slot, static_cast<std::uint16_t>(latency), lanes};
    };
    for (const DOp* o : {&d.primary, &d.secondary}) {
      if (o->op == Opcode::None) continue;
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
    code_.push_back(d);
  }
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

namespace {

// Component c of a source for every thread of the chunk (a group shares its stack base).
inline v4f read_component(const DSrc& s, int c, const ChunkRegs& ch, const std::array<Vec4, 32>& consts, std::uint32_t base) {
  v4f v;
  const std::uint8_t k = s.swz[static_cast<std::size_t>(c)];
  switch (s.kind) {
    case kSrcReg: v = ch.reg[s.index][k]; break;
    case kSrcConst: v = splat(consts[s.index][k]); break;
    case kSrcStack: {
      const std::size_t slot = base + s.index;
      v = slot < ch.stack.size() ? ch.stack[slot][k] : splat(0);
      break;
    }
    default: return splat(s.literal);
  }
  if (!s.unit) v *= s.factor;
  return v;
}

// A source resolved for one operation: its four components for the chunk's threads (a constant
// or literal splatted), read through the swizzle and scaled.
struct SourceView {
  const v4f* comps;
  v4f own[4];
  const DSrc* src;
  bool scaled;
  [[gnu::always_inline]] SourceView(const DSrc& s, const ChunkRegs& ch, const std::array<Vec4, 32>& consts, std::uint32_t base)
      : src(&s), scaled(!s.unit && s.kind != kSrcLiteral) {
    switch (s.kind) {
      case kSrcReg: comps = ch.reg[s.index]; return;
      case kSrcStack: {
        const std::size_t slot = base + s.index;
        if (slot < ch.stack.size()) {
          comps = ch.stack[slot].data();
          return;
        }
        for (v4f& c : own) c = splat(0);
        break;
      }
      case kSrcConst:
        for (int c = 0; c < 4; ++c) own[c] = splat(consts[s.index][static_cast<std::size_t>(c)]);
        break;
      default:
        for (v4f& c : own) c = splat(s.literal);
        comps = own;
        return;  // literals are already scaled
    }
    comps = own;
  }
  v4f operator[](int c) const {
    const v4f v = comps[src->swz[static_cast<std::size_t>(c)]];
    return scaled ? v * src->factor : v;
  }
};

// The operation's result components (those in o.needed) for every thread.
template <bool kFp24>
inline void execute(const DOp& o, const ChunkRegs& ch, const std::array<Vec4, 32>& consts, std::uint32_t base, v4f (&r)[4]) {
  const SourceView a(o.src[0], ch, consts, base);
  if (is_dot(o.op)) {
    const SourceView b(o.src[1], ch, consts, base);
    v4f v;
    if (o.op == Opcode::Dp2h) {
      v = a[0] * b[0] + a[1] * b[1] + a[2];
    } else {
      v = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      if (o.op == Opcode::Dp4) v += a[3] * b[3];
      if (o.op == Opcode::Dp3h) v += a[3];
    }
    if constexpr (kFp24) v = round4(v);
    if (o.sat) v = saturate4(v);
    for (int c = 0; c < 4; ++c) r[c] = v;
    return;
  }
  const unsigned needed = o.needed;
  switch (o.op) {
    case Opcode::Mov:
      for (unsigned m = needed; m; m &= m - 1) r[std::countr_zero(m)] = a[std::countr_zero(m)];
      break;
    case Opcode::Frac:
      for (unsigned m = needed; m; m &= m - 1) {
        const int c = std::countr_zero(m);
        const v4f x = a[c];
        v4f v = x;
        for (int t = 0; t < 4; ++t) v[t] = x[t] - std::floor(x[t]);
        r[c] = v;
      }
      break;
    case Opcode::Add: {
      const SourceView b(o.src[1], ch, consts, base);
      for (unsigned m = needed; m; m &= m - 1) r[std::countr_zero(m)] = a[std::countr_zero(m)] + b[std::countr_zero(m)];
      break;
    }
    case Opcode::Mul: {
      const SourceView b(o.src[1], ch, consts, base);
      for (unsigned m = needed; m; m &= m - 1) r[std::countr_zero(m)] = a[std::countr_zero(m)] * b[std::countr_zero(m)];
      break;
    }
    case Opcode::Mad: {
      const SourceView b(o.src[1], ch, consts, base), cc(o.src[2], ch, consts, base);
      for (unsigned m = needed; m; m &= m - 1) {
        const int c = std::countr_zero(m);
        r[c] = a[c] * b[c] + cc[c];
      }
      break;
    }
    default: break;
  }
  for (unsigned m = needed; m; m &= m - 1) {
    const int c = std::countr_zero(m);
    if constexpr (kFp24) r[c] = round4(r[c]);
    if (o.sat) r[c] = saturate4(r[c]);
  }
}

}  // namespace

template <bool kRecord>
void Vm::run_loaded(int n, VmStats& st, Recording* rec, std::uint32_t chunk) {
  auto bit = [](int l) { return static_cast<std::uint8_t>(1u << l); };
  auto first_lane = [](std::uint8_t mask) { return std::countr_zero(static_cast<unsigned>(mask)); };
  st.threads += static_cast<std::uint64_t>(n);
  Chunk& ch = *chunk_;
  std::uint8_t running = 0;
  for (int l = 0; l < n; ++l)
    if (ch.status[static_cast<std::size_t>(l)] == ThreadStatus::Running) running |= bit(l);
  const int width = lane_count(running);
  const std::uint8_t all_threads = static_cast<std::uint8_t>((1u << n) - 1);
  std::uint64_t cycle = 0;
  std::array<std::uint64_t, kResources * 4> ready{};  // per resource and component
  std::vector<Group>& groups = ch.groups;
  groups.clear();
  for (int l = 0; l < n; ++l) {
    if (!(running & bit(l))) continue;
    const std::uint32_t pc = ch.pc[static_cast<std::size_t>(l)];
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.pc == pc && ch.base[static_cast<std::size_t>(first_lane(g.mask))] == ch.base[static_cast<std::size_t>(l)];
    });
    if (it == groups.end()) groups.push_back(Group{bit(l), pc, {}, Group::State::Run});
    else it->mask |= bit(l);
  }
  std::uint32_t next_token = 0;
  const std::uint32_t code_size = static_cast<std::uint32_t>(code_.size());
  const std::uint32_t max_steps = static_cast<std::uint32_t>(std::min<std::uint64_t>(machine_->max_steps, 0xFFFFFFFEu));
    const bool fp24 = fp24_;
  const std::array<Vec4, 32>& consts = constants_;
  std::size_t step_index = 0;

  auto begin_step = [&](std::uint32_t pc, std::uint8_t lanes, std::uint64_t at, std::uint32_t stall, bool merged) {
    if constexpr (kRecord) {
      rec->steps.push_back(Step{chunk, pc, lanes, at, stall, static_cast<std::uint32_t>(rec->changes.size()), 0, {}, merged});
      step_index = rec->steps.size() - 1;
    }
  };
  auto record = [&](Change c) {
    if constexpr (kRecord) {
      rec->changes.push_back(c);
      ++rec->steps[step_index].change_count;
    }
  };
  auto end_step = [&]() {
    if constexpr (kRecord) {
      Step& s = rec->steps[step_index];
      for (int l = 0; l < n; ++l)
        if (s.lanes & bit(l)) s.next_pc[static_cast<std::size_t>(l)] = ch.pc[static_cast<std::size_t>(l)];
    }
  };
  auto status_change = [&](int l, ThreadStatus to, std::uint32_t pc) {
    const auto li = static_cast<std::size_t>(l);
    if constexpr (kRecord)
      record({ChangeKind::Status, static_cast<std::uint8_t>(l), 0, {static_cast<float>(ch.status[li]), static_cast<float>(ch.pc[li]), 0, 0},
              {static_cast<float>(to), static_cast<float>(pc), 0, 0}});
    ch.status[li] = to;
    ch.pc[li] = pc;
    running &= static_cast<std::uint8_t>(~bit(l));
  };
  auto fault = [&](int l, std::uint32_t pc, const std::string& message) {
    status_change(l, ThreadStatus::Faulted, pc);
    std::string& f = ch.fault[static_cast<std::size_t>(l)];
    f = "pc " + std::to_string(pc) + ": " + message;
    ++st.faults;
    if constexpr (kRecord) rec->faults.push_back("chunk " + std::to_string(chunk) + " lane " + std::to_string(l) + ": " + f);
  };
  auto depth_of = [&](std::uint8_t mask) { return static_cast<std::uint32_t>(ch.frames[static_cast<std::size_t>(first_lane(mask))].size()); };
  auto has_token = [](const Group& g, std::uint32_t id) {
    return std::any_of(g.tokens.begin(), g.tokens.end(), [&](const Group::Token& k) { return k.id == id; });
  };
  // Once no group still owes token `id` an arrival, its parked groups become one group that
  // returns together.
  auto try_merge = [&](std::uint32_t id) {
    for (const Group& g : groups)
      if (g.mask && has_token(g, id) && !(g.state == Group::State::Parked && g.tokens.back().id == id)) return;
    Group* into = nullptr;
    for (Group& g : groups) {
      if (!g.mask || g.state != Group::State::Parked || g.tokens.back().id != id) continue;
      if (!into) {
        into = &g;
        continue;
      }
      into->mask |= g.mask;
      g.mask = 0;
      ++st.merges;
    }
    if (into) {
      into->tokens.pop_back();
      into->state = Group::State::Return;
    }
  };
  // Drops finished and faulted lanes; a split whose groups all ended elsewhere may now merge.
  auto prune = [&]() {
    std::vector<std::uint32_t> orphaned;
    for (Group& g : groups) {
      g.mask &= running;
      if (!g.mask)
        for (const Group::Token& k : g.tokens) orphaned.push_back(k.id);
    }
    auto empty = [](const Group& g) { return g.mask == 0; };
    groups.erase(std::remove_if(groups.begin(), groups.end(), empty), groups.end());
    for (std::uint32_t id : orphaned) try_merge(id);
    groups.erase(std::remove_if(groups.begin(), groups.end(), empty), groups.end());
  };
  // Every lane of `g` returns, unless the group must first wait for the rest of its split
  // (then it parks and this returns false).
  auto do_return = [&](Group& g) {
    if (!g.tokens.empty() && g.tokens.back().depth == depth_of(g.mask)) {
      g.state = Group::State::Parked;
      return false;
    }
    for (int l = 0; l < n; ++l) {
      if (!(g.mask & bit(l))) continue;
      const auto li = static_cast<std::size_t>(l);
      std::vector<Frame>& frames = ch.frames[li];
      if (frames.empty()) {
        status_change(l, ThreadStatus::Done, ch.pc[li]);
        continue;
      }
      const Frame f = frames.back();
      if constexpr (kRecord)
        record({ChangeKind::Pop, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(frames.size() - 1),
                {static_cast<float>(f.return_address), static_cast<float>(f.push), static_cast<float>(ch.pc[li]), 0}, {}});
      frames.pop_back();
      ch.base[li] -= f.push;
      ch.pc[li] = f.return_address;
    }
    g.mask &= running;
    g.state = Group::State::Run;
    // Lanes of one group entered this function through one call, so they return to one address.
    if (g.mask) g.pc = ch.pc[static_cast<std::size_t>(first_lane(g.mask))];
    return true;
  };
  auto set_pcs = [&](const Group& x) {
    for (int l = 0; l < n; ++l)
      if (x.mask & bit(l)) ch.pc[static_cast<std::size_t>(l)] = x.pc;
  };
  auto split_group = [&](Group& g, Group taken_group, std::uint8_t rest, std::uint32_t pc, std::size_t at, int gi, bool& written) {
    const Group::Token token{next_token++, depth_of(g.mask)};
    g.tokens.push_back(token);
    taken_group.tokens = g.tokens;
    g.mask = rest;
    g.pc = pc + 1;
    groups[at] = g;
    groups.insert(groups.begin() + gi, taken_group);
    written = true;
    ++st.splits;
    set_pcs(taken_group);
    set_pcs(g);
  };
  // Records every active thread's value of a chunk register before and after a write.
  auto record_write = [&](std::uint8_t reg_index, std::uint8_t lanes, const v4f (&before)[4]) {
    if constexpr (kRecord) {
      for (int l = 0; l < n; ++l)
        if (lanes & bit(l)) record({ChangeKind::Register, static_cast<std::uint8_t>(l), reg_index, ch.thread(before, l), ch.thread(ch.reg[reg_index], l)});
    } else {
      (void)reg_index, (void)lanes, (void)before;
    }
  };

  for (;;) {
    // Run the last group that can run: a split puts the taken lanes below the lanes that fall
    // through, so those run first and every split is finished depth first.
    int gi = static_cast<int>(groups.size()) - 1;
    while (gi >= 0 && groups[static_cast<std::size_t>(gi)].state == Group::State::Parked) --gi;
    if (gi < 0) break;
    const std::size_t at = static_cast<std::size_t>(gi);
    Group g = groups[at];

    if (g.state == Group::State::Return) {  // released by a merge, or split off at a return
      begin_step(g.pc, g.mask, cycle, 0, true);
      const bool returned = do_return(g);
      groups[at] = g;
      if (!returned) try_merge(g.tokens.back().id);
      end_step();
      prune();
      continue;
    }

    bool written = false;
    while (g.mask) {
      const std::uint32_t pc = g.pc;
      if (pc >= code_size) {
        for (int l = 0; l < n; ++l)
          if (g.mask & bit(l)) fault(l, pc, "the program counter left the program (a function without a return?)");
        g.mask = 0;
        break;
      }
      const Decoded& d = code_[pc];
      const std::uint32_t base = ch.base[static_cast<std::size_t>(first_lane(g.mask))];
      // Timing: wait until every source is ready.
      std::uint64_t need = cycle;
      for (std::uint8_t k = 0; k < d.read_count; ++k)
        for (int c = 0; c < 4; ++c)
          if (d.reads[k].lanes & (1u << c)) need = std::max(need, ready[static_cast<std::size_t>(d.reads[k].resource) * 4 + static_cast<std::size_t>(c)]);
      if (d.reads_stack)
        for (std::uint8_t s : d.stack_slots)
          if (s != kNoResource)
            for (int c = 0; c < 4; ++c)
              need = std::max(need, ready[static_cast<std::size_t>(kResStack + ((base + s) & (kStackResources - 1))) * 4 + static_cast<std::size_t>(c)]);
      const std::uint32_t stall = static_cast<std::uint32_t>(need - cycle);
      const std::uint64_t issue = need;
      cycle = need + 1;
      st.stalls += stall;
      ++st.issues;
      st.paired_issues += d.paired;
      st.lane_slots += static_cast<std::uint64_t>(width);
      if (g.mask != running) ++st.partial_issues;
      begin_step(pc, g.mask, issue, stall, false);

      // Every thread steps; one that has run too long faults.
      std::uint8_t active = g.mask;
      ch.steps -= std::bit_cast<v4u>(thread_mask(active));  // one more for each active thread
      if (mask_bits(ch.steps > max_steps) & active) [[unlikely]] {
        for (int l = 0; l < n; ++l)
          if ((active & bit(l)) && ch.steps[l] > max_steps) {
            fault(l, pc, "ran " + std::to_string(max_steps) + " instructions without finishing (an endless loop?)");
            active &= static_cast<std::uint8_t>(~bit(l));
          }
      }
      st.instructions += static_cast<std::uint64_t>(lane_count(active)) * (d.paired ? 2u : 1u);
      st.lane_issues += static_cast<std::uint64_t>(lane_count(active));
      // Both halves of a pair read before either writes. (Only the components an operation
      // delivers are computed; nothing reads the others.)
      v4f primary[4], second[4];
      const bool arith = d.arithmetic;
      if (active && arith) {
        if (fp24) execute<true>(d.primary, ch, consts, base, primary);
        else execute<false>(d.primary, ch, consts, base, primary);
      }
      if (active && d.paired) {
        if (fp24) execute<true>(d.secondary, ch, consts, base, second);
        else execute<false>(d.secondary, ch, consts, base, second);
      }
      const v4i on = thread_mask(active);
      for (int half = 0; half < (d.paired ? 2 : 1) && active && (arith || d.memory); ++half) {
        const DOp& o = half ? d.secondary : d.primary;
        const v4f(&r)[4] = half ? second : primary;
        if (o.op == Opcode::None) continue;
        if (is_arithmetic(o.op)) {
          if (o.dst_kind == kDstReg) {
            v4f before[4];
            if constexpr (kRecord)
              for (int c = 0; c < 4; ++c) before[c] = ch.reg[o.dst_index][c];
            v4f* dst = ch.reg[o.dst_index];
            if (active == all_threads) {
              for (unsigned m = o.mask; m; m &= m - 1) dst[std::countr_zero(m)] = r[std::countr_zero(m)];
            } else {
              for (unsigned m = o.mask; m; m &= m - 1) {
                const int c = std::countr_zero(m);
                dst[c] = on ? r[c] : dst[c];
              }
            }
            record_write(o.dst_index, active, before);
          } else if (o.dst_kind == kDstStack) {
            const std::size_t slot = base + o.dst_index;
            ch.grow_stack(slot + 1);
            v4f before[4];
            for (int c = 0; c < 4; ++c) before[c] = ch.stack[slot][static_cast<std::size_t>(c)];
            for (int c = 0; c < 4; ++c)
              if (o.mask & (1u << c)) ch.stack[slot][static_cast<std::size_t>(c)] = on ? r[c] : ch.stack[slot][static_cast<std::size_t>(c)];
            if constexpr (kRecord)
              for (int l = 0; l < n; ++l)
                if (active & bit(l))
                  record({ChangeKind::Stack, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(slot), ch.thread(before, l),
                          ch.thread(ch.stack[slot], l)});
          } else if (o.dst_kind == kDstA) {
            for (int l = 0; l < n; ++l) {
              if (!(active & bit(l))) continue;
              const Vec4 old{static_cast<float>(ch.a[0][l]), static_cast<float>(ch.a[1][l]), static_cast<float>(ch.a[2][l]), static_cast<float>(ch.a[3][l])};
              for (int c = 0; c < 4; ++c)
                if (o.mask & (1u << c)) {
                  const float x = r[c][l];
                  ch.a[c][l] = std::isfinite(x) && std::fabs(x) < 2e9f ? static_cast<std::int32_t>(std::lround(x)) : -1;
                }
              if constexpr (kRecord)
                record({ChangeKind::Address, static_cast<std::uint8_t>(l), 0, old,
                        {static_cast<float>(ch.a[0][l]), static_cast<float>(ch.a[1][l]), static_cast<float>(ch.a[2][l]), static_cast<float>(ch.a[3][l])}});
            }
          }
          if (o.special != SpecialFn::None) {
            v4f s = r[3];
            if (o.special == SpecialFn::Rcp) {
              s = 1.0f / s;
            } else {
              for (int t = 0; t < 4; ++t) s[t] = 1.0f / std::sqrt(r[3][t]);
            }
            if (fp24) s = round4(s);
            v4f before[4];
            if constexpr (kRecord)
              for (int c = 0; c < 4; ++c) before[c] = ch.reg[kRegS][c];
            for (int c = 0; c < 4; ++c)
              if (o.mask & (1u << c)) ch.reg[kRegS][c] = on ? s : ch.reg[kRegS][c];
            record_write(kRegS, active, before);
          }
          continue;
        }
        // Trace, load, load4, store: thread by thread (addresses and rays differ).
        for (int l = 0; l < n; ++l) {
          if (!(active & bit(l))) continue;
          const auto li = static_cast<std::size_t>(l);
          if (o.op == Opcode::Trace) {
            if (!trace_) {
              fault(l, pc, "trace needs a scene, and none is loaded");
              continue;
            }
            Vec4 src[3];
            for (int k = 0; k < 3; ++k)
              for (int c = 0; c < 4; ++c) src[k][static_cast<std::size_t>(c)] = read_component(o.src[static_cast<std::size_t>(k)], c, ch, constants_, base)[l];
            const Hit h = trace_->trace(src[0], src[1], src[2]);
            const Vec4 before = ch.thread(ch.reg[kRegHit], l);
            const Vec4 before_addr{0, 0, static_cast<float>(ch.hit_tri[li]), static_cast<float>(ch.hit_obj[li])};
            ch.reg[kRegHit][0][l] = h.u;
            ch.reg[kRegHit][1][l] = h.v;
            ch.reg[kRegHit][2][l] = h.t;
            ch.reg[kRegHit][3][l] = h.shader;
            ch.hit_tri[li] = h.triangle;
            ch.hit_obj[li] = h.object;
            ++st.traces;
            if constexpr (kRecord) {
              record({ChangeKind::Register, static_cast<std::uint8_t>(l), kRegHit, before, ch.thread(ch.reg[kRegHit], l)});
              record({ChangeKind::Address, static_cast<std::uint8_t>(l), 1, before_addr,
                      {0, 0, static_cast<float>(ch.hit_tri[li]), static_cast<float>(ch.hit_obj[li])}});
            }
            continue;
          }
          const std::int64_t base_addr = o.addr_kind == kAddrHitTri ? ch.hit_tri[li] : o.addr_kind == kAddrHitObj ? ch.hit_obj[li] : ch.a[o.addr_lane][l];
          const std::int64_t addr = base_addr + o.offset;
          const std::int64_t words = o.op == Opcode::Load4 ? 4 : 1;
          const std::size_t size = memory_ro_ ? memory_ro_->size() : 0;
          if (addr < 0 || addr + words > static_cast<std::int64_t>(size)) {
            fault(l, pc, std::string(mnemonic(o.op)) + " at address " + std::to_string(addr) + ", outside data memory (" + std::to_string(size) + " words)");
            continue;
          }
          if (o.op == Opcode::Store) {
            if (!memory_) {
              fault(l, pc, "store into read-only data memory (the renderer shares one scene among its threads)");
              continue;
            }
            Vec4& dst = (*memory_)[static_cast<std::size_t>(addr)];
            for (int c = 0; c < 4; ++c) dst[static_cast<std::size_t>(c)] = read_component(o.src[0], c, ch, constants_, base)[l];
            ++st.stores;
            continue;
          }
          for (std::int64_t k = 0; k < words; ++k) {
            const int reg = o.op == Opcode::Load4 ? kRegI0 + static_cast<int>(k) : o.dst_index;
            const Vec4 before = ch.thread(ch.reg[reg], l);
            const Vec4& word = (*memory_ro_)[static_cast<std::size_t>(addr + k)];
            for (int c = 0; c < 4; ++c) ch.reg[reg][c][l] = word[static_cast<std::size_t>(c)];
            if constexpr (kRecord) record({ChangeKind::Register, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(reg), before, word});
          }
          ++st.loads;
        }
        active &= running;
      }
      // The control part: which threads take it, and where calls go.
      std::uint8_t taken = 0;
      std::array<std::uint32_t, 4> targets{};
      active &= running;
      if (d.control != ControlKind::None && active) {
        if (d.cond.always) {
          taken = active;
        } else {
          v4i all = v4i{-1, -1, -1, -1}, any = v4i{};
          for (int c = 0; c < 4; ++c) {
            if (!(d.cond.mask & (1u << c))) continue;
            v4i p = passes4(d.cond.tests[0], primary[c]);
            if (d.cond.count > 1) p = d.cond.tests_or ? (p | passes4(d.cond.tests[1], primary[c])) : (p & passes4(d.cond.tests[1], primary[c]));
            all &= p;
            any |= p;
          }
          taken = mask_bits(d.cond.any ? any : all) & active;
        }
        for (int l = 0; l < n; ++l) {
          if (!(taken & bit(l))) continue;
          targets[static_cast<std::size_t>(l)] = d.target;
          if (d.control == ControlKind::Call && d.call_through_register) {
            const float v = read_component(d.target_reg, 0, ch, constants_, base)[l];
            if (!(v >= 0) || v >= static_cast<float>(code_size) || v != std::floor(v)) {
              fault(l, pc, "call to address " + format_float(v) + ", which is not code");
              taken &= static_cast<std::uint8_t>(~bit(l));
              continue;
            }
            targets[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(v);
          }
        }
      }
      // When this word's results can be read.
      for (std::uint8_t k = 0; k < d.write_count; ++k) {
        const Decoded::Write& w = d.writes[k];
        const std::size_t res = w.resource != kNoResource ? w.resource : static_cast<std::size_t>(kResStack + ((base + w.slot) & (kStackResources - 1)));
        for (int c = 0; c < 4; ++c)
          if (w.lanes & (1u << c)) ready[res * 4 + static_cast<std::size_t>(c)] = issue + w.latency;
      }
      // A conditional control part waits for the result it tests.
      if (d.control != ControlKind::None && !d.cond.always) cycle = std::max(cycle, issue + static_cast<std::uint64_t>(d.primary.latency));
      g.mask &= running;
      taken &= g.mask;
      const std::uint8_t rest = g.mask & static_cast<std::uint8_t>(~taken);
      if (!g.mask) break;
      if (d.control == ControlKind::None || !taken) {
        g.pc = pc + 1;
      } else if (d.control == ControlKind::Jmp) {
        if (rest) split_group(g, Group{taken, d.target, {}, Group::State::Run}, rest, pc, at, gi, written);
        else g.pc = d.target;
      } else if (d.control == ControlKind::Return) {
        if (rest) {
          split_group(g, Group{taken, pc, {}, Group::State::Return}, rest, pc, at, gi, written);
        } else {
          set_pcs(g);
          if (!do_return(g)) {
            groups[at] = g;
            written = true;
            try_merge(g.tokens.back().id);
          }
        }
      } else {  // Call
        const std::uint32_t depth = depth_of(g.mask);
        for (int l = 0; l < n; ++l) {
          if (!(taken & bit(l))) continue;
          const auto li = static_cast<std::size_t>(l);
          if (ch.frames[li].size() >= static_cast<std::size_t>(machine_->max_call_depth)) {
            fault(l, pc, "calls nested " + std::to_string(machine_->max_call_depth) + " deep (runaway recursion?)");
            continue;
          }
          if constexpr (kRecord)
            record({ChangeKind::Push, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(ch.frames[li].size()),
                    {static_cast<float>(pc + 1), static_cast<float>(d.push), 0, 0}, {}});
          ch.frames[li].push_back({pc + 1, d.push});
          ch.base[li] += d.push;
          ch.grow_stack(ch.base[li] + 8);
          ch.pc[li] = targets[li];
          ++st.calls;
        }
        taken &= running;
        std::vector<Group> callees;  // one group per target, in lane order
        for (int l = 0; l < n; ++l) {
          if (!(taken & bit(l))) continue;
          auto it = std::find_if(callees.begin(), callees.end(), [&](const Group& x) { return x.pc == targets[static_cast<std::size_t>(l)]; });
          if (it == callees.end()) callees.push_back(Group{bit(l), targets[static_cast<std::size_t>(l)], {}, Group::State::Run});
          else it->mask |= bit(l);
        }
        if (!rest && callees.size() == 1) {
          g.mask = callees[0].mask;
          g.pc = callees[0].pc;
        } else if (!rest && callees.empty()) {
          g.mask = 0;
        } else {
          // Lanes that did not call merge with the callers at this function's return; callees
          // of different targets merge when they return (one level deeper).
          auto outer = g.tokens;
          if (rest) outer.push_back({next_token++, depth});
          auto inner = outer;
          if (callees.size() > 1) inner.push_back({next_token++, depth + 1});
          std::vector<Group> made;
          for (auto it = callees.rbegin(); it != callees.rend(); ++it) {
            it->tokens = inner;
            made.push_back(*it);
          }
          if (rest) {
            Group r{rest, pc + 1, outer, Group::State::Run};
            set_pcs(r);
            made.push_back(r);
          }
          groups.erase(groups.begin() + gi);
          groups.insert(groups.begin() + gi, made.begin(), made.end());
          st.splits += made.size() - 1;
          written = true;
        }
      }
      if constexpr (kRecord) {
        if (!written) set_pcs(g);
        end_step();
      }
      if (written) break;
    }
    if (!written) {
      set_pcs(g);
      groups[at] = g;
    }
    prune();
  }
  st.cycles += cycle;
}

template void Vm::run_loaded<true>(int, VmStats&, Recording*, std::uint32_t);
template void Vm::run_loaded<false>(int, VmStats&, Recording*, std::uint32_t);

}  // namespace passlab::rpu
