// SPDX-License-Identifier: GPL-3.0-or-later
// The VM's private part, shared by vm.cpp (decoding, loading chunks) and vm_run.cpp (running
// them): the chunk register file laid out for SIMD, decoded words, the SIMD helpers and the
// arithmetic of one operation for a chunk's four threads.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/rpu/issue_trace.h"
#include "backends/rpu/vm.h"

namespace passlab::rpu {

namespace vm_detail {

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

}  // namespace vm_detail

struct Vm::Decoded {
  vm_detail::DOp primary, secondary;
  bool paired = false;
  ControlKind control = ControlKind::None;
  std::uint32_t target = 0;
  bool call_through_register = false;
  vm_detail::DSrc target_reg;
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
    WaitCause cause;        // what a reader waits for (the machine model's trace unit and memory)
  };
  std::array<Write, 6> writes{};
  std::uint8_t write_count = 0;
  bool arithmetic = false;  // the primary is arithmetic
  bool crosses_lanes = false;  // a half is ddx or ddy
  bool quad_event = false;     // where a quad's threads meet: ddx, ddy or trace
  bool memory = false;      // a half is trace, load, load4 or store
  WaitCause primary_cause = WaitCause::Arithmetic;  // what a conditional control part waits for
};

struct Vm::Group {
  std::uint8_t mask = 0;
  std::uint32_t pc = 0;
  struct Token {
    std::uint32_t id, depth;
  };
  std::vector<Token> tokens;
  // AtQuad: waiting at a quad's meeting point (vm.h, derivatives).
  enum class State : std::uint8_t { Run, Return, Parked, AtQuad } state = State::Run;
};

namespace vm_detail {
// Threads into a chunk's registers (the chunk's other lanes done) and back.
void load_chunk(ChunkRegs& ch, std::span<ThreadState> threads);
void store_chunk(const ChunkRegs& ch, std::span<ThreadState> threads);
}  // namespace vm_detail

struct Vm::Chunk : vm_detail::ChunkRegs {
  std::vector<Group> groups;
};

}  // namespace passlab::rpu
