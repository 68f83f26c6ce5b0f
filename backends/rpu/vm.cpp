// The RPU virtual machine: pre-decoded words, chunks of four lanes with split and merge, a
// shared scoreboard for timing, and optional recording of every change.
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

// Scoreboard resources: the 22 thread registers, A, then stack slots folded onto 64 entries.
constexpr int kResA = kRegCount;
constexpr int kResStack = kRegCount + 1;
constexpr int kStackResources = 64;
constexpr int kResources = kResStack + kStackResources;
constexpr std::uint8_t kNoResource = 0xFF;

enum SrcKind : std::uint8_t { kSrcReg, kSrcConst, kSrcStack, kSrcLiteral };
enum DstKind : std::uint8_t { kDstNone, kDstReg, kDstStack, kDstA };
enum AddrKind : std::uint8_t { kAddrA, kAddrHitTri, kAddrHitObj };

struct DSrc {
  std::uint8_t kind = kSrcLiteral;
  std::uint8_t index = 0;
  bool identity = true;
  bool unit = true;  // factor is exactly 1
  std::array<std::uint8_t, 4> swz{0, 1, 2, 3};
  float factor = 1;
  Vec4 literal{};
};

struct DOp {
  Opcode op = Opcode::None;
  std::uint8_t dst_kind = kDstNone;
  std::uint8_t dst_index = 0;
  std::uint8_t mask = 0;
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
  d.identity = s.swizzle.is_identity();
  d.factor = s.factor();
  d.unit = d.factor == 1.0f;
  switch (s.bank) {
    case Bank::R: d.kind = kSrcReg; d.index = static_cast<std::uint8_t>(kRegR0 + s.index); break;
    case Bank::Special: d.kind = kSrcReg; d.index = kRegS; break;
    case Bank::I: d.kind = kSrcReg; d.index = static_cast<std::uint8_t>(kRegI0 + s.index); break;
    case Bank::Hit: d.kind = kSrcReg; d.index = kRegHit; break;
    case Bank::C: d.kind = kSrcConst; d.index = static_cast<std::uint8_t>(s.index); break;
    case Bank::Stack: d.kind = kSrcStack; d.index = static_cast<std::uint8_t>(s.index); break;
    case Bank::Literal: {
      // A literal is encoded in the instruction word in the machine's own format.
      d.kind = kSrcLiteral;
      const float v = fp24 ? round_fp24(s.literal_value()) : s.literal_value();
      d.literal = {v, v, v, v};
      break;
    }
    default: throw std::logic_error("rpu vm: a source in bank " + register_name(s.bank, s.index) + " cannot be executed");
  }
  return d;
}

DOp decode_operation(const Operation& o, const Machine& m, bool fp24) {
  DOp d;
  d.op = o.op;
  d.mask = o.dst.mask;
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

inline float lane_of(const Vec4& v, int i) { return v[static_cast<std::size_t>(i)]; }

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
  // Scoreboard: what the word reads and writes.
  std::array<std::uint8_t, 8> reads{};
  std::uint8_t read_count = 0;
  bool reads_stack = false;
  std::array<std::uint8_t, 2> stack_slots{};  // window slots read (kNoResource when none)
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

Vm::Vm(const Program& program, const VmOptions& options)
    : program_(program), machine_(options.machine ? options.machine : &default_machine()) {
  fp24_ = machine_->fp24 && !options.ieee;
  code_.reserve(program.code.size());
  for (const Instruction& in : program.code) {
    Decoded d;
    d.primary = decode_operation(in.primary, *machine_, fp24_);
    d.paired = in.paired();
    if (d.paired) d.secondary = decode_operation(in.secondary, *machine_, fp24_);
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
    auto note_source = [&](const DSrc& s) {
      if (s.kind == kSrcReg && d.read_count < d.reads.size()) d.reads[d.read_count++] = s.index;
      if (s.kind == kSrcStack && ns < 2) {
        d.reads_stack = true;
        d.stack_slots[ns++] = s.index;
      }
    };
    for (const DOp* op : {&d.primary, &d.secondary}) {
      for (int k = 0; k < op->nsrc; ++k) note_source(op->src[static_cast<std::size_t>(k)]);
      if (op->op == Opcode::Load || op->op == Opcode::Load4 || op->op == Opcode::Store) {
        if (op->addr_kind == kAddrA && d.read_count < d.reads.size()) d.reads[d.read_count++] = kResA;
        if (op->addr_kind != kAddrA && d.read_count < d.reads.size()) d.reads[d.read_count++] = kRegHit;
      }
    }
    if (d.call_through_register) note_source(d.target_reg);
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
  if (record) run_chunk_impl<true>(threads, stats, record, chunk);
  else run_chunk_impl<false>(threads, stats, nullptr, chunk);
}

namespace {

template <bool kFp24>
inline float rounded(float x) {
  if constexpr (kFp24) return round_fp24(x);
  else return x;
}

inline Vec4 read_source(const DSrc& s, const ThreadState& t, const std::array<Vec4, 32>& consts) {
  Vec4 v;
  switch (s.kind) {
    case kSrcReg: v = t.reg[s.index]; break;
    case kSrcConst: v = consts[s.index]; break;
    case kSrcStack: {
      const std::size_t slot = t.base + s.index;
      v = slot < t.stack.size() ? t.stack[slot] : Vec4{};
      break;
    }
    default: return s.literal;
  }
  if (!s.identity) v = {v[s.swz[0]], v[s.swz[1]], v[s.swz[2]], v[s.swz[3]]};
  if (!s.unit)
    for (float& x : v) x *= s.factor;
  return v;
}

}  // namespace

template <bool kRecord>
void Vm::run_chunk_impl(std::span<ThreadState> threads, VmStats& st, Recording* rec, std::uint32_t chunk) {
  const int n = static_cast<int>(threads.size());
  auto lane_state = [&](int l) -> ThreadState& { return threads[static_cast<std::size_t>(l)]; };
  auto bit = [](int l) { return static_cast<std::uint8_t>(1u << l); };
  auto first_lane = [](std::uint8_t mask) { return std::countr_zero(static_cast<unsigned>(mask)); };
  st.threads += static_cast<std::uint64_t>(n);
  std::uint8_t running = 0;
  for (int l = 0; l < n; ++l) {
    ThreadState& t = lane_state(l);
    if (t.status == ThreadStatus::Running) running |= bit(l);
    if (t.stack.size() < t.base + 8) t.stack.resize(t.base + 8);
  }
  const int width = std::popcount(static_cast<unsigned>(running));
  std::uint64_t cycle = 0;
  std::array<std::uint64_t, kResources> ready{};
  std::vector<Group> groups;
  for (int l = 0; l < n; ++l) {
    if (!(running & bit(l))) continue;
    const std::uint32_t pc = lane_state(l).pc;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.pc == pc; });
    if (it == groups.end()) groups.push_back(Group{bit(l), pc, {}, Group::State::Run});
    else it->mask |= bit(l);
  }
  std::uint32_t next_token = 0;
  const std::uint32_t code_size = static_cast<std::uint32_t>(code_.size());
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
        if (s.lanes & bit(l)) s.next_pc[static_cast<std::size_t>(l)] = lane_state(l).pc;
    }
  };
  auto status_change = [&](int l, ThreadStatus to, std::uint32_t pc) {
    ThreadState& t = lane_state(l);
    if constexpr (kRecord)
      record({ChangeKind::Status, static_cast<std::uint8_t>(l), 0, {static_cast<float>(t.status), static_cast<float>(t.pc), 0, 0},
              {static_cast<float>(to), static_cast<float>(pc), 0, 0}});
    t.status = to;
    t.pc = pc;
    running &= static_cast<std::uint8_t>(~bit(l));
  };
  auto fault = [&](int l, std::uint32_t pc, const std::string& message) {
    status_change(l, ThreadStatus::Faulted, pc);
    ThreadState& t = lane_state(l);
    t.fault = "pc " + std::to_string(pc) + ": " + message;
    ++st.faults;
    if constexpr (kRecord) rec->faults.push_back("chunk " + std::to_string(chunk) + " lane " + std::to_string(l) + ": " + t.fault);
  };
  auto depth_of = [&](std::uint8_t mask) { return static_cast<std::uint32_t>(lane_state(first_lane(mask)).frames.size()); };
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
      ThreadState& t = lane_state(l);
      if (t.frames.empty()) {
        status_change(l, ThreadStatus::Done, t.pc);
        continue;
      }
      const Frame f = t.frames.back();
      if constexpr (kRecord)
        record({ChangeKind::Pop, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(t.frames.size() - 1),
                {static_cast<float>(f.return_address), static_cast<float>(f.push), static_cast<float>(t.pc), 0}, {}});
      t.frames.pop_back();
      t.base -= f.push;
      t.pc = f.return_address;
    }
    g.mask &= running;
    g.state = Group::State::Run;
    // Lanes of one group entered this function through one call, so they return to one address.
    if (g.mask) g.pc = lane_state(first_lane(g.mask)).pc;
    return true;
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
      // Timing: wait until every source is ready.
      std::uint64_t need = cycle;
      for (std::uint8_t k = 0; k < d.read_count; ++k) need = std::max(need, ready[d.reads[k]]);
      const std::uint32_t base = lane_state(first_lane(g.mask)).base;
      if (d.reads_stack)
        for (std::uint8_t s : d.stack_slots)
          if (s != kNoResource) need = std::max(need, ready[static_cast<std::size_t>(kResStack + ((base + s) & (kStackResources - 1)))]);
      const std::uint32_t stall = static_cast<std::uint32_t>(need - cycle);
      const std::uint64_t issue = need;
      cycle = need + 1;
      st.stalls += stall;
      ++st.issues;
      st.paired_issues += d.paired;
      st.lane_slots += static_cast<std::uint64_t>(width);
      st.instructions += static_cast<std::uint64_t>(std::popcount(static_cast<unsigned>(g.mask))) * (d.paired ? 2u : 1u);
      if (g.mask != running) ++st.partial_issues;
      begin_step(pc, g.mask, issue, stall, false);

      std::uint8_t taken = 0;
      std::array<std::uint32_t, 4> targets{};
      for (int l = 0; l < n; ++l) {
        if (!(g.mask & bit(l))) continue;
        ThreadState& t = lane_state(l);
        if (++t.steps > machine_->max_steps) {
          fault(l, pc, "ran " + std::to_string(machine_->max_steps) + " instructions without finishing (an endless loop?)");
          continue;
        }
        Vec4 primary_result{};
        bool ok = true;
        for (int half = 0; half < (d.paired ? 2 : 1) && ok; ++half) {
          const DOp& o = half ? d.secondary : d.primary;
          if (o.op == Opcode::None) continue;
          if (is_arithmetic(o.op)) {
            const Vec4 a = read_source(o.src[0], t, constants_);
            const Vec4 b = o.nsrc > 1 ? read_source(o.src[1], t, constants_) : Vec4{};
            const Vec4 c = o.nsrc > 2 ? read_source(o.src[2], t, constants_) : Vec4{};
            const Vec4 r = fp24_ ? compute<true>(o.op, o.sat, a, b, c) : compute<false>(o.op, o.sat, a, b, c);
            if (!half) primary_result = r;
            if (o.dst_kind == kDstReg) {
              Vec4& dst = t.reg[o.dst_index];
              const Vec4 before = dst;
              for (int i = 0; i < 4; ++i)
                if (o.mask & (1u << i)) dst[static_cast<std::size_t>(i)] = r[static_cast<std::size_t>(i)];
              if constexpr (kRecord) record({ChangeKind::Register, static_cast<std::uint8_t>(l), o.dst_index, before, dst});
            } else if (o.dst_kind == kDstStack) {
              const std::size_t slot = t.base + o.dst_index;
              if (slot >= t.stack.size()) t.stack.resize(slot + 1);
              Vec4& dst = t.stack[slot];
              const Vec4 before = dst;
              for (int i = 0; i < 4; ++i)
                if (o.mask & (1u << i)) dst[static_cast<std::size_t>(i)] = r[static_cast<std::size_t>(i)];
              if constexpr (kRecord) record({ChangeKind::Stack, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(slot), before, dst});
            } else if (o.dst_kind == kDstA) {
              const Vec4 before{static_cast<float>(t.a[0]), static_cast<float>(t.a[1]), static_cast<float>(t.a[2]), static_cast<float>(t.a[3])};
              for (int i = 0; i < 4; ++i)
                if (o.mask & (1u << i)) {
                  const float x = r[static_cast<std::size_t>(i)];
                  t.a[static_cast<std::size_t>(i)] = std::isfinite(x) && std::fabs(x) < 2e9f ? static_cast<std::int32_t>(std::lround(x)) : -1;
                }
              if constexpr (kRecord)
                record({ChangeKind::Address, static_cast<std::uint8_t>(l), 0, before,
                        {static_cast<float>(t.a[0]), static_cast<float>(t.a[1]), static_cast<float>(t.a[2]), static_cast<float>(t.a[3])}});
            }
            if (o.special != SpecialFn::None) {
              const float s = special_result(fp24_, o.special, r[3]);
              Vec4& sreg = t.reg[kRegS];
              const Vec4 before = sreg;
              for (int i = 0; i < 4; ++i)
                if (o.mask & (1u << i)) sreg[static_cast<std::size_t>(i)] = s;
              if constexpr (kRecord) record({ChangeKind::Register, static_cast<std::uint8_t>(l), kRegS, before, sreg});
            }
            continue;
          }
          if (o.op == Opcode::Trace) {
            if (!trace_) {
              fault(l, pc, "trace needs a scene, and none is loaded");
              ok = false;
              break;
            }
            const Hit h = trace_->trace(read_source(o.src[0], t, constants_), read_source(o.src[1], t, constants_),
                                        read_source(o.src[2], t, constants_));
            Vec4& hit = t.reg[kRegHit];
            const Vec4 before = hit;
            const Vec4 before_addr{0, 0, static_cast<float>(t.hit_tri), static_cast<float>(t.hit_obj)};
            hit = {h.u, h.v, h.t, h.shader};
            t.hit_tri = h.triangle;
            t.hit_obj = h.object;
            ++st.traces;
            if constexpr (kRecord) {
              record({ChangeKind::Register, static_cast<std::uint8_t>(l), kRegHit, before, hit});
              record({ChangeKind::Address, static_cast<std::uint8_t>(l), 1, before_addr,
                      {0, 0, static_cast<float>(t.hit_tri), static_cast<float>(t.hit_obj)}});
            }
            continue;
          }
          // Load, load4, store.
          const std::int64_t base_addr = o.addr_kind == kAddrHitTri ? t.hit_tri : o.addr_kind == kAddrHitObj ? t.hit_obj : t.a[o.addr_lane];
          const std::int64_t addr = base_addr + o.offset;
          const std::int64_t words = o.op == Opcode::Load4 ? 4 : 1;
          const std::size_t size = memory_ro_ ? memory_ro_->size() : 0;
          if (addr < 0 || addr + words > static_cast<std::int64_t>(size)) {
            fault(l, pc, std::string(mnemonic(o.op)) + " at address " + std::to_string(addr) + ", outside data memory (" + std::to_string(size) +
                             " words)");
            ok = false;
            break;
          }
          if (o.op == Opcode::Store) {
            if (!memory_) {
              fault(l, pc, "store into read-only data memory (the renderer shares one scene among its threads)");
              ok = false;
              break;
            }
            (*memory_)[static_cast<std::size_t>(addr)] = read_source(o.src[0], t, constants_);
            ++st.stores;
            continue;
          }
          for (std::int64_t k = 0; k < words; ++k) {
            const int reg = o.op == Opcode::Load4 ? kRegI0 + static_cast<int>(k) : o.dst_index;
            Vec4& dst = t.reg[static_cast<std::size_t>(reg)];
            const Vec4 before = dst;
            dst = (*memory_ro_)[static_cast<std::size_t>(addr + k)];
            if constexpr (kRecord) record({ChangeKind::Register, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(reg), before, dst});
          }
          ++st.loads;
        }
        if (!ok || t.status != ThreadStatus::Running) continue;
        if (d.control == ControlKind::None || !d.cond.holds(primary_result)) continue;
        if (d.control == ControlKind::Call && d.call_through_register) {
          const float v = read_source(d.target_reg, t, constants_)[0];
          if (!(v >= 0) || v >= static_cast<float>(code_size) || v != std::floor(v)) {
            fault(l, pc, "call to address " + format_float(v) + ", which is not code");
            continue;
          }
          targets[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(v);
        } else {
          targets[static_cast<std::size_t>(l)] = d.target;
        }
        taken |= bit(l);
      }
      // When this word's results can be read.
      for (const DOp* o : {&d.primary, &d.secondary}) {
        if (o->op == Opcode::None) continue;
        const std::uint64_t done = issue + static_cast<std::uint64_t>(o->latency);
        if (o->dst_kind == kDstReg) ready[o->dst_index] = done;
        if (o->dst_kind == kDstA) ready[kResA] = done;
        if (o->dst_kind == kDstStack) ready[static_cast<std::size_t>(kResStack + ((base + o->dst_index) & (kStackResources - 1)))] = done;
        if (o->special != SpecialFn::None) ready[kRegS] = done + static_cast<std::uint64_t>(machine_->special_latency);
        if (o->op == Opcode::Trace) ready[kRegHit] = done;
        if (o->op == Opcode::Load4)
          for (int k = 0; k < 4; ++k) ready[static_cast<std::size_t>(kRegI0 + k)] = done;
      }
      // A conditional control part waits for the result it tests.
      if (d.control != ControlKind::None && !d.cond.always) cycle = std::max(cycle, issue + static_cast<std::uint64_t>(d.primary.latency));
      g.mask &= running;
      taken &= g.mask;
      const std::uint8_t rest = g.mask & static_cast<std::uint8_t>(~taken);
      auto set_pcs = [&](const Group& x) {
        for (int l = 0; l < n; ++l)
          if (x.mask & bit(l)) lane_state(l).pc = x.pc;
      };
      auto split = [&](Group taken_group) {
        // The lanes that fall through stay in g (run first); the others go just below it.
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
      if (!g.mask) break;
      if (d.control == ControlKind::None || !taken) {
        g.pc = pc + 1;
        set_pcs(g);
      } else if (d.control == ControlKind::Jmp) {
        if (rest) {
          split(Group{taken, d.target, {}, Group::State::Run});
        } else {
          g.pc = d.target;
          set_pcs(g);
        }
      } else if (d.control == ControlKind::Return) {
        if (rest) {
          Group r{taken, pc, {}, Group::State::Return};
          split(r);
        } else if (!do_return(g)) {
          groups[at] = g;
          written = true;
          try_merge(g.tokens.back().id);
        }
      } else {  // Call
        const std::uint32_t depth = depth_of(g.mask);
        for (int l = 0; l < n; ++l) {
          if (!(taken & bit(l))) continue;
          ThreadState& t = lane_state(l);
          if (t.frames.size() >= static_cast<std::size_t>(machine_->max_call_depth)) {
            fault(l, pc, "calls nested " + std::to_string(machine_->max_call_depth) + " deep (runaway recursion?)");
            continue;
          }
          if constexpr (kRecord)
            record({ChangeKind::Push, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(t.frames.size()),
                    {static_cast<float>(pc + 1), static_cast<float>(d.push), 0, 0}, {}});
          t.frames.push_back({pc + 1, d.push});
          t.base += d.push;
          if (t.stack.size() < t.base + 8) t.stack.resize(t.base + 8);
          t.pc = targets[static_cast<std::size_t>(l)];
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
      end_step();
      if (written) break;
    }
    if (!written) groups[at] = g;
    prune();
  }
  st.cycles += cycle;
}

template void Vm::run_chunk_impl<true>(std::span<ThreadState>, VmStats&, Recording*, std::uint32_t);
template void Vm::run_chunk_impl<false>(std::span<ThreadState>, VmStats&, Recording*, std::uint32_t);

}  // namespace passlab::rpu
