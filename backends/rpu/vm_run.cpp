// SPDX-License-Identifier: GPL-3.0-or-later
// Running a chunk: its threads in groups that share a program counter (a group's threads entered
// the same calls, so they share one stack base), split where a branch or a call divides them and
// merged again where they return together; each word issued for a whole group when the
// scoreboard says its sources are ready; every change recorded when asked (the debugger).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backends/rpu/quad.h"
#include "backends/rpu/vm_internal.h"

namespace passlab::rpu {

using namespace vm_detail;

template <bool kRecord>
class Vm::Runner {
 public:
  // `quad`: the threads are a quad (quad.h) nested in a chunk's run, thread 0 the anchor.
  // `depth`: the calls the quad's anchor is already inside (they count against the machine's
  // call depth).
  Runner(const Vm& vm, int n, VmStats& st, Recording* rec, std::uint32_t chunk, Chunk& ch, bool quad = false, std::uint32_t depth = 0)
      : depth_offset_(depth), vm_(vm), code_(vm.code_.data()), consts_(vm.constants_), fp24_(vm.fp24_), n_(n), st_(st), rec_(rec), chunk_(chunk), ch_(ch),
        groups_(ch_.groups), quad_(quad), positions_(vm.positions_), code_size_(static_cast<std::uint32_t>(vm.code_.size())),
        max_steps_(static_cast<std::uint32_t>(std::min<std::uint64_t>(vm.machine_->max_steps, 0xFFFFFFFEu))), it_(vm.issue_trace_) {
    if (it_) {
      writer_.assign(static_cast<std::size_t>(kResources) * 4, IssueTrace::Dep{kNoWord, 0, WaitCause::Arithmetic});
    }
  }

  void run() {
    if (!quad_) st_.threads += static_cast<std::uint64_t>(n_);
    for (int l = 0; l < n_; ++l)
      if (ch_.status[static_cast<std::size_t>(l)] == ThreadStatus::Running) running_ |= bit(l);
    width_ = lane_count(running_);
    all_threads_ = static_cast<std::uint8_t>((1u << n_) - 1);
    form_groups();
    for (;;) {
      // A quad ends with its anchor: what its helpers would go on to compute reaches no one.
      if (quad_ && !(running_ & 1u)) break;
      // Run the last group that can run: a split puts the taken lanes below the lanes that fall
      // through, so those run first and every split is finished depth first.
      int gi = static_cast<int>(groups_.size()) - 1;
      while (gi >= 0 && (groups_[static_cast<std::size_t>(gi)].state == Group::State::Parked ||
                         groups_[static_cast<std::size_t>(gi)].state == Group::State::AtQuad))
        --gi;
      if (gi < 0) {
        if (meet()) continue;
        break;
      }
      const std::size_t at = static_cast<std::size_t>(gi);
      Group g = groups_[at];
      if (g.state == Group::State::Return) {  // released by a merge, or split off at a return
        begin_step(g.pc, g.mask, cycle_, 0, true);
        const bool returned = do_return(g);
        groups_[at] = g;
        if (!returned) try_merge(g.tokens.back().id);
        end_step();
        prune();
        continue;
      }
      if (!run_group(g, at, gi)) {
        set_pcs(g);
        groups_[at] = g;
      }
      prune();
    }
    if (quad_) return;  // the chunk that runs the quad counts its cycles
    st_.cycles += cycle_;
    if (it_) it_->vm_cycles += cycle_;
  }

  std::uint64_t cycles() const { return cycle_; }

 private:
  static std::uint8_t bit(int l) { return static_cast<std::uint8_t>(1u << l); }
  static int first_lane(std::uint8_t mask) { return std::countr_zero(static_cast<unsigned>(mask)); }

  // The running threads, one group per program counter and stack base.
  void form_groups() {
    groups_.clear();
    for (int l = 0; l < n_; ++l) {
      if (!(running_ & bit(l))) continue;
      const std::uint32_t pc = ch_.pc[static_cast<std::size_t>(l)];
      auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
        return g.pc == pc && ch_.base[static_cast<std::size_t>(first_lane(g.mask))] == ch_.base[static_cast<std::size_t>(l)];
      });
      if (it == groups_.end()) groups_.push_back(Group{bit(l), pc, {}, Group::State::Run});
      else it->mask |= bit(l);
    }
  }

  // ---- the recording (the debugger's steps and changes) ----------------------------------------

  void begin_step(std::uint32_t pc, std::uint8_t lanes, std::uint64_t at, std::uint32_t stall, bool merged) {
    if constexpr (kRecord) {
      rec_->steps.push_back(Step{chunk_, pc, lanes, at, stall, static_cast<std::uint32_t>(rec_->changes.size()), 0, {}, merged});
      step_index_ = rec_->steps.size() - 1;
    } else {
      (void)pc, (void)lanes, (void)at, (void)stall, (void)merged;
    }
  }
  void record(const Change& c) {
    if constexpr (kRecord) {
      rec_->changes.push_back(c);
      ++rec_->steps[step_index_].change_count;
    } else {
      (void)c;
    }
  }
  void end_step() {
    if constexpr (kRecord) {
      Step& s = rec_->steps[step_index_];
      for (int l = 0; l < n_; ++l)
        if (s.lanes & bit(l)) s.next_pc[static_cast<std::size_t>(l)] = ch_.pc[static_cast<std::size_t>(l)];
    }
  }
  // Records every active thread's value of a chunk register before and after a write.
  void record_write(std::uint8_t reg_index, std::uint8_t lanes, const v4f (&before)[4]) {
    if constexpr (kRecord) {
      for (int l = 0; l < n_; ++l)
        if (lanes & bit(l)) record({ChangeKind::Register, static_cast<std::uint8_t>(l), reg_index, ch_.thread(before, l), ch_.thread(ch_.reg[reg_index], l)});
    } else {
      (void)reg_index, (void)lanes, (void)before;
    }
  }

  // ---- threads ending, groups splitting and merging ---------------------------------------------

  void status_change(int l, ThreadStatus to, std::uint32_t pc) {
    const auto li = static_cast<std::size_t>(l);
    if constexpr (kRecord)
      record({ChangeKind::Status, static_cast<std::uint8_t>(l), 0, {static_cast<float>(ch_.status[li]), static_cast<float>(ch_.pc[li]), 0, 0},
              {static_cast<float>(to), static_cast<float>(pc), 0, 0}});
    ch_.status[li] = to;
    ch_.pc[li] = pc;
    running_ &= static_cast<std::uint8_t>(~bit(l));
  }
  void fault(int l, std::uint32_t pc, const std::string& message) {
    status_change(l, ThreadStatus::Faulted, pc);
    std::string& f = ch_.fault[static_cast<std::size_t>(l)];
    f = "pc " + std::to_string(pc) + ": " + message;
    if (quad_ && l != 0) return;  // a helper's fault stops it and no more
    ++st_.faults;
    if constexpr (kRecord) rec_->faults.push_back("chunk " + std::to_string(chunk_) + " lane " + std::to_string(l) + ": " + f);
  }
  std::uint32_t depth_of(std::uint8_t mask) const { return static_cast<std::uint32_t>(ch_.frames[static_cast<std::size_t>(first_lane(mask))].size()); }
  static bool has_token(const Group& g, std::uint32_t id) {
    return std::any_of(g.tokens.begin(), g.tokens.end(), [&](const Group::Token& k) { return k.id == id; });
  }
  // Once no group still owes token `id` an arrival, its parked groups become one group that
  // returns together.
  void try_merge(std::uint32_t id) {
    for (const Group& g : groups_)
      if (g.mask && has_token(g, id) && !(g.state == Group::State::Parked && g.tokens.back().id == id)) return;
    Group* into = nullptr;
    for (Group& g : groups_) {
      if (!g.mask || g.state != Group::State::Parked || g.tokens.back().id != id) continue;
      if (!into) {
        into = &g;
        continue;
      }
      into->mask |= g.mask;
      g.mask = 0;
      ++st_.merges;
    }
    if (into) {
      into->tokens.pop_back();
      into->state = Group::State::Return;
    }
  }
  // Drops finished and faulted lanes; a split whose groups all ended elsewhere may now merge.
  void prune() {
    std::vector<std::uint32_t> orphaned;
    for (Group& g : groups_) {
      g.mask &= running_;
      if (!g.mask)
        for (const Group::Token& k : g.tokens) orphaned.push_back(k.id);
    }
    auto empty = [](const Group& g) { return g.mask == 0; };
    groups_.erase(std::remove_if(groups_.begin(), groups_.end(), empty), groups_.end());
    for (std::uint32_t id : orphaned) try_merge(id);
    groups_.erase(std::remove_if(groups_.begin(), groups_.end(), empty), groups_.end());
  }
  // Every lane of `g` returns, unless the group must first wait for the rest of its split
  // (then it parks and this returns false).
  bool do_return(Group& g) {
    if (!g.tokens.empty() && g.tokens.back().depth == depth_of(g.mask)) {
      g.state = Group::State::Parked;
      return false;
    }
    for (int l = 0; l < n_; ++l) {
      if (!(g.mask & bit(l))) continue;
      const auto li = static_cast<std::size_t>(l);
      std::vector<Frame>& frames = ch_.frames[li];
      if (frames.empty()) {
        status_change(l, ThreadStatus::Done, ch_.pc[li]);
        continue;
      }
      const Frame f = frames.back();
      if constexpr (kRecord)
        record({ChangeKind::Pop, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(frames.size() - 1),
                {static_cast<float>(f.return_address), static_cast<float>(f.push), static_cast<float>(ch_.pc[li]), 0}, {}});
      frames.pop_back();
      ch_.base[li] -= f.push;
      ch_.pc[li] = f.return_address;
    }
    g.mask &= running_;
    g.state = Group::State::Run;
    // Lanes of one group entered this function through one call, so they return to one address.
    if (g.mask) g.pc = ch_.pc[static_cast<std::size_t>(first_lane(g.mask))];
    return true;
  }
  void set_pcs(const Group& x) {
    for (int l = 0; l < n_; ++l)
      if (x.mask & bit(l)) ch_.pc[static_cast<std::size_t>(l)] = x.pc;
  }
  void split_group(Group& g, Group taken_group, std::uint8_t rest, std::uint32_t pc, std::size_t at, int gi) {
    const Group::Token token{next_token_++, depth_of(g.mask)};
    g.tokens.push_back(token);
    taken_group.tokens = g.tokens;
    g.mask = rest;
    g.pc = pc + 1;
    groups_[at] = g;
    groups_.insert(groups_.begin() + gi, taken_group);
    ++st_.splits;
    set_pcs(taken_group);
    set_pcs(g);
  }

  // ---- one group, word by word ------------------------------------------------------------------

  // Runs `g` (groups_[at]) until it ends, splits or parks; returns whether groups_ was rewritten
  // (a split or a park), else the caller stores `g`.
  [[gnu::flatten]] bool run_group(Group& g, std::size_t at, int gi) {
    std::uint64_t cycle = cycle_;  // a local while the group runs: no store through the chunk aliases it
    bool written = false;
    while (g.mask && !written) {
      const std::uint32_t pc = g.pc;
      if (pc >= code_size_) {
        for (int l = 0; l < n_; ++l)
          if (g.mask & bit(l)) fault(l, pc, "the program counter left the program (a function without a return?)");
        g.mask = 0;
        break;
      }
      const Decoded& d = code_[pc];
      if (quad_ && d.quad_event && (released_ & g.mask) != g.mask) {
        // A quad's threads meet here (meet()).
        g.state = Group::State::AtQuad;
        set_pcs(g);
        groups_[at] = g;
        cycle_ = cycle;
        return true;
      }
      if (quad_) released_ &= static_cast<std::uint8_t>(~g.mask);
      const std::uint32_t base = ch_.base[static_cast<std::size_t>(first_lane(g.mask))];
      const std::uint64_t issue = issue_cycle(d, base, g.mask, pc, cycle);
      std::uint8_t active = count_step(g.mask, pc);
      st_.instructions += static_cast<std::uint64_t>(lane_count(active)) * (d.paired ? 2u : 1u);
      st_.lane_issues += static_cast<std::uint64_t>(lane_count(active));
      // Both halves of a pair read before either writes. (Only the components an operation
      // delivers are computed; nothing reads the others.)
      v4f primary[4], second[4];
      if (active && d.arithmetic) compute(d.primary, base, primary, 0);
      if (active && d.paired) compute(d.secondary, base, second, 1);
      for (int half = 0; half < (d.paired ? 2 : 1) && active && (d.arithmetic || d.memory); ++half) {
        const DOp& o = half ? d.secondary : d.primary;
        if (o.op == Opcode::None) continue;
        if (is_arithmetic(o.op)) {
          write_result(o, half ? second : primary, active, base);
          continue;
        }
        memory_operation(o, active, base, pc);
        active &= running_;
      }
      active &= running_;
      std::array<std::uint32_t, 4> targets{};
      std::uint8_t taken = control_taken(d, active, primary, base, pc, targets);
      mark_ready(d, base, issue);
      // A conditional control part waits for the result it tests.
      if (d.control != ControlKind::None && !d.cond.always) {
        cycle = std::max(cycle, issue + static_cast<std::uint64_t>(d.primary.latency));
        if (it_) pending_control_ = {current_word(), static_cast<std::uint16_t>(d.primary.latency), d.primary_cause};
      }
      g.mask &= running_;
      taken &= g.mask;
      if (!g.mask) break;
      written = transfer(g, d, taken, targets, pc, at, gi);
      if (nested_cycles_) [[unlikely]]
        cycle += std::exchange(nested_cycles_, 0);  // quads run for hits (the chunk waits for them)
      if constexpr (kRecord) {
        if (!written) set_pcs(g);
        end_step();
      }
    }
    cycle_ = cycle;
    return written;
  }

  // When the word issues: once every source is ready. Counts the issue and opens its step.
  std::uint64_t issue_cycle(const Decoded& d, std::uint32_t base, std::uint8_t mask, std::uint32_t pc, std::uint64_t& cycle) {
    std::uint64_t need = cycle;
    for (std::uint8_t k = 0; k < d.read_count; ++k)
      for (int c = 0; c < 4; ++c)
        if (d.reads[k].lanes & (1u << c)) need = std::max(need, ready_[static_cast<std::size_t>(d.reads[k].resource) * 4 + static_cast<std::size_t>(c)]);
    if (d.reads_stack)
      for (std::uint8_t s : d.stack_slots)
        if (s != kNoResource)
          for (int c = 0; c < 4; ++c)
            need = std::max(need, ready_[static_cast<std::size_t>(kResStack + ((base + s) & (kStackResources - 1))) * 4 + static_cast<std::size_t>(c)]);
    if (it_) trace_word(d, base, mask);
    const std::uint32_t stall = static_cast<std::uint32_t>(need - cycle);
    cycle = need + 1;
    st_.stalls += stall;
    ++st_.issues;
    st_.paired_issues += d.paired;
    st_.lane_slots += static_cast<std::uint64_t>(width_);
    if (mask != running_) ++st_.partial_issues;
    begin_step(pc, mask, need, stall, false);
    return need;
  }

  // Every thread of `mask` steps; one that has run too long faults. The threads that go on.
  std::uint8_t count_step(std::uint8_t mask, std::uint32_t pc) {
    std::uint8_t active = mask;
    ch_.steps -= std::bit_cast<v4u>(thread_mask(active));  // one more for each active thread
    if (mask_bits(ch_.steps > max_steps_) & active) [[unlikely]] {
      for (int l = 0; l < n_; ++l)
        if ((active & bit(l)) && ch_.steps[l] > max_steps_) {
          fault(l, pc, "ran " + std::to_string(max_steps_) + " instructions without finishing (an endless loop?)");
          active &= static_cast<std::uint8_t>(~bit(l));
        }
    }
    return active;
  }

  // A write to A converts the exact result to an integer: an address past 2^17 has no 24-bit
  // float (`mov A, I0` of a vertex address in a large mesh would lose its last bit).
  void compute(const DOp& o, std::uint32_t base, v4f (&r)[4], int half) const {
    if (is_lane_crossing(o.op)) [[unlikely]] {
      for (int c = 0; c < 4; ++c) r[c] = quad_ ? stash_[half][c] : splat(std::numeric_limits<float>::quiet_NaN());
      return;
    }
    if (fp24_ && o.dst_kind != kDstA) execute<true>(o, ch_, consts_, base, r);
    else execute<false>(o, ch_, consts_, base, r);
  }

  // An arithmetic result into its register, stack slot or A, and its _rcp/_rsq into S.
  void write_result(const DOp& o, const v4f (&r)[4], std::uint8_t active, std::uint32_t base) {
    const v4i on = thread_mask(active);
    if (o.dst_kind == kDstReg) {
      v4f before[4];
      if constexpr (kRecord)
        for (int c = 0; c < 4; ++c) before[c] = ch_.reg[o.dst_index][c];
      v4f* dst = ch_.reg[o.dst_index];
      if (active == all_threads_) {
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
      ch_.grow_stack(slot + 1);
      v4f before[4];
      for (int c = 0; c < 4; ++c) before[c] = ch_.stack[slot][static_cast<std::size_t>(c)];
      for (int c = 0; c < 4; ++c)
        if (o.mask & (1u << c)) ch_.stack[slot][static_cast<std::size_t>(c)] = on ? r[c] : ch_.stack[slot][static_cast<std::size_t>(c)];
      if constexpr (kRecord)
        for (int l = 0; l < n_; ++l)
          if (active & bit(l))
            record({ChangeKind::Stack, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(slot), ch_.thread(before, l), ch_.thread(ch_.stack[slot], l)});
    } else if (o.dst_kind == kDstA) {
      for (int l = 0; l < n_; ++l) {
        if (!(active & bit(l))) continue;
        const Vec4 old{static_cast<float>(ch_.a[0][l]), static_cast<float>(ch_.a[1][l]), static_cast<float>(ch_.a[2][l]), static_cast<float>(ch_.a[3][l])};
        for (int c = 0; c < 4; ++c)
          if (o.mask & (1u << c)) {
            const float x = r[c][l];
            ch_.a[c][l] = std::isfinite(x) && std::fabs(x) < 2e9f ? static_cast<std::int32_t>(std::lround(x)) : -1;
          }
        if constexpr (kRecord)
          record({ChangeKind::Address, static_cast<std::uint8_t>(l), 0, old,
                  {static_cast<float>(ch_.a[0][l]), static_cast<float>(ch_.a[1][l]), static_cast<float>(ch_.a[2][l]), static_cast<float>(ch_.a[3][l])}});
      }
    }
    if (o.special != SpecialFn::None) {
      v4f s = r[3];
      if (o.special == SpecialFn::Rcp) {
        s = 1.0f / s;
      } else {
        for (int t = 0; t < 4; ++t) s[t] = 1.0f / std::sqrt(r[3][t]);
      }
      if (fp24_) s = round4(s);
      v4f before[4];
      if constexpr (kRecord)
        for (int c = 0; c < 4; ++c) before[c] = ch_.reg[kRegS][c];
      for (int c = 0; c < 4; ++c)
        if (o.mask & (1u << c)) ch_.reg[kRegS][c] = on ? s : ch_.reg[kRegS][c];
      record_write(kRegS, active, before);
    }
  }

  // Trace, load, load4, store: thread by thread (addresses and rays differ).
  void memory_operation(const DOp& o, std::uint8_t active, std::uint32_t base, std::uint32_t pc) {
    for (int l = 0; l < n_; ++l) {
      if (!(active & bit(l))) continue;
      if (o.op == Opcode::Trace) {
        trace(o, l, base, pc);
        continue;
      }
      const auto li = static_cast<std::size_t>(l);
      const std::int64_t base_addr = o.addr_kind == kAddrHitTri ? ch_.hit_tri[li] : o.addr_kind == kAddrHitObj ? ch_.hit_obj[li] : ch_.a[o.addr_lane][l];
      const std::int64_t addr = base_addr + o.offset;
      const std::int64_t words = o.op == Opcode::Load4 ? 4 : 1;
      const std::size_t size = vm_.memory_ro_ ? vm_.memory_ro_->size() : 0;
      if (addr < 0 || addr + words > static_cast<std::int64_t>(size)) {
        fault(l, pc, std::string(mnemonic(o.op)) + " at address " + std::to_string(addr) + ", outside data memory (" + std::to_string(size) + " words)");
        continue;
      }
      if (o.op == Opcode::Store) {
        if (quad_ && l != 0) continue;  // a helper writes nothing
        if (!vm_.memory_) {
          fault(l, pc, "store into read-only data memory (the renderer shares one scene among its threads)");
          continue;
        }
        Vec4& dst = (*vm_.memory_)[static_cast<std::size_t>(addr)];
        for (int c = 0; c < 4; ++c) dst[static_cast<std::size_t>(c)] = read_component(o.src[0], c, ch_, consts_, base)[l];
        ++st_.stores;
        continue;
      }
      for (std::int64_t k = 0; k < words; ++k) {
        const int reg = o.op == Opcode::Load4 ? kRegI0 + static_cast<int>(k) : o.dst_index;
        const Vec4 before = ch_.thread(ch_.reg[reg], l);
        const Vec4& word = (*vm_.memory_ro_)[static_cast<std::size_t>(addr + k)];
        for (int c = 0; c < 4; ++c) ch_.reg[reg][c][l] = word[static_cast<std::size_t>(c)];
        if constexpr (kRecord) record({ChangeKind::Register, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(reg), before, word});
      }
      ++st_.loads;
    }
  }

  void trace(const DOp& o, int l, std::uint32_t base, std::uint32_t pc) {
    if (!vm_.trace_) {
      fault(l, pc, "trace needs a scene, and none is loaded");
      return;
    }
    const auto li = static_cast<std::size_t>(l);
    Vec4 src[3];
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 4; ++c) src[k][static_cast<std::size_t>(c)] = read_component(o.src[static_cast<std::size_t>(k)], c, ch_, consts_, base)[l];
    const Hit h = vm_.trace_->trace(src[0], src[1], src[2]);
    if (counted_ & bit(l)) {
      counted_ &= static_cast<std::uint8_t>(~bit(l));  // meet() has counted it
    } else {
      ray_origin_[li] = src[0];
      ray_direction_[li] = src[1];
      ++ray_count_[li];
    }
    if (it_) {
      it_->rays.push_back({h.boxes, h.triangles});
      ++it_->words.back().rays;
    }
    const Vec4 before = ch_.thread(ch_.reg[kRegHit], l);
    const Vec4 before_addr{0, 0, static_cast<float>(ch_.hit_tri[li]), static_cast<float>(ch_.hit_obj[li])};
    ch_.reg[kRegHit][0][l] = h.u;
    ch_.reg[kRegHit][1][l] = h.v;
    ch_.reg[kRegHit][2][l] = h.t;
    ch_.reg[kRegHit][3][l] = h.shader;
    ch_.hit_tri[li] = h.triangle;
    ch_.hit_obj[li] = h.object;
    ++st_.traces;
    if constexpr (kRecord) {
      record({ChangeKind::Register, static_cast<std::uint8_t>(l), kRegHit, before, ch_.thread(ch_.reg[kRegHit], l)});
      record({ChangeKind::Address, static_cast<std::uint8_t>(l), 1, before_addr, {0, 0, static_cast<float>(ch_.hit_tri[li]), static_cast<float>(ch_.hit_obj[li])}});
    }
  }

  // The control part: which threads take it, and (in targets) where each goes.
  std::uint8_t control_taken(const Decoded& d, std::uint8_t active, const v4f (&primary)[4], std::uint32_t base, std::uint32_t pc,
                             std::array<std::uint32_t, 4>& targets) {
    if (d.control == ControlKind::None || !active) return 0;
    std::uint8_t taken = 0;
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
    for (int l = 0; l < n_; ++l) {
      if (!(taken & bit(l))) continue;
      targets[static_cast<std::size_t>(l)] = d.target;
      if (d.control == ControlKind::Call && d.call_through_register) {
        const float v = read_component(d.target_reg, 0, ch_, consts_, base)[l];
        if (!(v >= 0) || v >= static_cast<float>(code_size_) || v != std::floor(v)) {
          fault(l, pc, "call to address " + format_float(v) + ", which is not code");
          taken &= static_cast<std::uint8_t>(~bit(l));
          continue;
        }
        targets[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(v);
      }
    }
    return taken;
  }

  // When this word's results can be read.
  void mark_ready(const Decoded& d, std::uint32_t base, std::uint64_t issue) {
    for (std::uint8_t k = 0; k < d.write_count; ++k) {
      const Decoded::Write& w = d.writes[k];
      const std::size_t res = w.resource != kNoResource ? w.resource : static_cast<std::size_t>(kResStack + ((base + w.slot) & (kStackResources - 1)));
      for (int c = 0; c < 4; ++c)
        if (w.lanes & (1u << c)) ready_[res * 4 + static_cast<std::size_t>(c)] = issue + w.latency;
      if (it_)
        for (int c = 0; c < 4; ++c)
          if (w.lanes & (1u << c)) writer_[res * 4 + static_cast<std::size_t>(c)] = {current_word(), w.latency, w.cause};
    }
  }

  // ---- the issue trace (for the machine model) ------------------------------------------------

  static constexpr std::uint32_t kNoWord = 0xFFFFFFFFu;
  std::uint32_t current_word() const { return static_cast<std::uint32_t>(it_->words.size() - 1); }
  void add_dep(IssueTrace::Word& w, const IssueTrace::Dep& dep) {
    if (dep.word == kNoWord) return;
    for (std::size_t k = w.first_dep; k < it_->deps.size(); ++k) {
      IssueTrace::Dep& have = it_->deps[k];
      if (have.word != dep.word) continue;
      have.latency = std::max(have.latency, dep.latency);
      return;
    }
    it_->deps.push_back(dep);
    ++w.dep_count;
  }
  // The word about to issue, with the earlier words whose results it reads (one entry per word).
  void trace_word(const Decoded& d, std::uint32_t base, std::uint8_t mask) {
    IssueTrace::Word w;
    w.first_dep = static_cast<std::uint32_t>(it_->deps.size());
    w.first_ray = static_cast<std::uint32_t>(it_->rays.size());
    w.lanes = static_cast<std::uint8_t>(lane_count(mask));
    add_dep(w, pending_control_);
    pending_control_.word = kNoWord;
    for (std::uint8_t k = 0; k < d.read_count; ++k)
      for (int c = 0; c < 4; ++c)
        if (d.reads[k].lanes & (1u << c)) add_dep(w, writer_[static_cast<std::size_t>(d.reads[k].resource) * 4 + static_cast<std::size_t>(c)]);
    if (d.reads_stack)
      for (std::uint8_t s : d.stack_slots)
        if (s != kNoResource)
          for (int c = 0; c < 4; ++c)
            add_dep(w, writer_[static_cast<std::size_t>(kResStack + ((base + s) & (kStackResources - 1))) * 4 + static_cast<std::size_t>(c)]);
    it_->words.push_back(w);
  }

  // Where the group goes next: on, or the taken lanes jump, return or call (splitting the group
  // when only some take it). Returns whether groups_ was rewritten.
  bool transfer(Group& g, const Decoded& d, std::uint8_t taken, const std::array<std::uint32_t, 4>& targets, std::uint32_t pc, std::size_t at, int gi) {
    const std::uint8_t rest = g.mask & static_cast<std::uint8_t>(~taken);
    if (d.control == ControlKind::None || !taken) {
      g.pc = pc + 1;
      return false;
    }
    if (d.control == ControlKind::Jmp) {
      if (!rest) {
        g.pc = d.target;
        return false;
      }
      split_group(g, Group{taken, d.target, {}, Group::State::Run}, rest, pc, at, gi);
      return true;
    }
    if (d.control == ControlKind::Return) {
      if (rest) {
        split_group(g, Group{taken, pc, {}, Group::State::Return}, rest, pc, at, gi);
        return true;
      }
      set_pcs(g);
      if (do_return(g)) return false;
      groups_[at] = g;
      try_merge(g.tokens.back().id);
      return true;
    }
    return call(g, d, taken, rest, targets, pc, gi);
  }

  bool call(Group& g, const Decoded& d, std::uint8_t taken, std::uint8_t rest, const std::array<std::uint32_t, 4>& targets, std::uint32_t pc, int gi) {
    if ((quad_ || vm_.derivatives_) && d.call_through_register && d.target_reg.kind == kSrcReg && d.target_reg.index == kRegHit) {
      // A hit's shader, in a program that takes derivatives: each thread's runs in its quad; a
      // helper's hits shade nothing.
      for (int l = 0; l < n_; ++l) {
        if (!(taken & bit(l))) continue;
        if (quad_ && l != 0) see_background(l);
        else shade_in_quad(l, targets[static_cast<std::size_t>(l)], d.push, pc);
      }
      g.mask &= running_;
      g.pc = pc + 1;
      return false;
    }
    const std::uint32_t depth = depth_of(g.mask);
    for (int l = 0; l < n_; ++l) {
      if (!(taken & bit(l))) continue;
      const auto li = static_cast<std::size_t>(l);
      if (ch_.frames[li].size() + depth_offset_ >= static_cast<std::size_t>(vm_.machine_->max_call_depth)) {
        fault(l, pc, "calls nested " + std::to_string(vm_.machine_->max_call_depth) + " deep (runaway recursion?)");
        continue;
      }
      if constexpr (kRecord)
        record({ChangeKind::Push, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(ch_.frames[li].size()),
                {static_cast<float>(pc + 1), static_cast<float>(d.push), 0, 0}, {}});
      ch_.frames[li].push_back({pc + 1, d.push});
      ch_.base[li] += d.push;
      ch_.grow_stack(ch_.base[li] + 8);
      ch_.pc[li] = targets[li];
      ++st_.calls;
    }
    taken &= running_;
    std::vector<Group> callees;  // one group per target, in lane order
    for (int l = 0; l < n_; ++l) {
      if (!(taken & bit(l))) continue;
      auto it = std::find_if(callees.begin(), callees.end(), [&](const Group& x) { return x.pc == targets[static_cast<std::size_t>(l)]; });
      if (it == callees.end()) callees.push_back(Group{bit(l), targets[static_cast<std::size_t>(l)], {}, Group::State::Run});
      else it->mask |= bit(l);
    }
    if (!rest && callees.size() == 1) {
      g.mask = callees[0].mask;
      g.pc = callees[0].pc;
      return false;
    }
    if (!rest && callees.empty()) {
      g.mask = 0;
      return false;
    }
    // Lanes that did not call merge with the callers at this function's return; callees of
    // different targets merge when they return (one level deeper).
    auto outer = g.tokens;
    if (rest) outer.push_back({next_token_++, depth});
    auto inner = outer;
    if (callees.size() > 1) inner.push_back({next_token_++, depth + 1});
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
    groups_.erase(groups_.begin() + gi);
    groups_.insert(groups_.begin() + gi, made.begin(), made.end());
    st_.splits += made.size() - 1;
    return true;
  }

  // ---- quads (quad.h) ---------------------------------------------------------------------------

  // Every group of the quad waits at a meeting point (or has ended or parked): each ddx and ddy
  // there gets the anchor's difference, and every waiting group goes on. False when none waits.
  [[gnu::noinline]] bool meet() {
    std::uint8_t waiting = 0;
    for (const Group& g : groups_)
      if (g.mask && g.state == Group::State::AtQuad) waiting |= g.mask;
    if (!waiting) return false;
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
    for (auto& half : stash_)
      for (v4f& c : half) c = splat(kNaN);
    if (waiting & 1u) {
      const std::uint32_t pc0 = ch_.pc[0];
      const Decoded& d = code_[pc0];
      for (int half = 0; half < (d.paired ? 2 : 1); ++half) {
        const DOp& o = half ? d.secondary : d.primary;
        if (!is_lane_crossing(o.op)) continue;
        const int p = o.op == Opcode::Ddx ? 1 : 2;
        const bool there = (waiting & bit(p)) && ch_.pc[static_cast<std::size_t>(p)] == pc0;
        for (int c = 0; c < 4; ++c) {
          float diff = kNaN;
          if (there)
            diff = read_component(o.src[0], c, ch_, consts_, ch_.base[static_cast<std::size_t>(p)])[p] - read_component(o.src[0], c, ch_, consts_, ch_.base[0])[0];
          v4f v = splat(diff);
          if (fp24_) v = round4(v);
          if (o.sat) v = saturate4(v);
          for (int l = 0; l < n_; ++l)
            if ((waiting & bit(l)) && ch_.pc[static_cast<std::size_t>(l)] == pc0) stash_[half][c][l] = v[0];
        }
      }
    }
    // A ray counts as cast once its quad has met at it: the groups then go on one after another,
    // and a thread that goes first must find its partners' rays already there.
    for (int l = 0; l < n_; ++l) {
      const auto li = static_cast<std::size_t>(l);
      if (!(waiting & bit(l)) || code_[ch_.pc[li]].primary.op != Opcode::Trace) continue;
      const DOp& o = code_[ch_.pc[li]].primary;
      for (int c = 0; c < 4; ++c) {
        ray_origin_[li][static_cast<std::size_t>(c)] = read_component(o.src[0], c, ch_, consts_, ch_.base[li])[l];
        ray_direction_[li][static_cast<std::size_t>(c)] = read_component(o.src[1], c, ch_, consts_, ch_.base[li])[l];
      }
      ++ray_count_[li];
      counted_ |= bit(l);
    }
    for (Group& g : groups_)
      if (g.mask && g.state == Group::State::AtQuad) g.state = Group::State::Run;
    released_ |= waiting;
    return true;
  }

  // The thread beside thread l (axis 0) or above or below it (axis 1) in its pixel quad, or -1.
  int partner(int l, int axis) const {
    if (quad_) return l == 0 ? 1 + axis : -1;
    const auto want = static_cast<std::uint8_t>(positions_[static_cast<std::size_t>(l)] ^ (axis ? 2 : 1));
    for (int p = 0; p < n_; ++p)
      if (positions_[static_cast<std::size_t>(p)] == want) return p;
    return -1;
  }

  [[gnu::noinline]] void see_background(int l) {
    v4f before[4];
    if constexpr (kRecord)
      for (int c = 0; c < 4; ++c) before[c] = ch_.reg[kRegR0][c];
    for (int c = 0; c < 3; ++c) ch_.reg[kRegR0][c][l] = consts_[30][static_cast<std::size_t>(c)];
    record_write(kRegR0, bit(l), before);
  }

  // Equal to the bit (a NaN is the NaN it was): what the debugger records as unchanged.
  static bool same_bits(const Vec4& a, const Vec4& b) { return std::memcmp(a.data(), b.data(), sizeof(Vec4)) == 0; }

  ThreadState lane_state(int l) const {
    const auto li = static_cast<std::size_t>(l);
    ThreadState t;
    for (int r = 0; r < kRegCount; ++r) t.reg[static_cast<std::size_t>(r)] = ch_.thread(ch_.reg[r], l);
    for (int c = 0; c < 4; ++c) t.a[static_cast<std::size_t>(c)] = ch_.a[c][l];
    t.hit_tri = ch_.hit_tri[li];
    t.hit_obj = ch_.hit_obj[li];
    t.stack.resize(ch_.stack.size());
    for (std::size_t s = 0; s < ch_.stack.size(); ++s) t.stack[s] = ch_.thread(ch_.stack[s], l);
    t.frames = ch_.frames[li];
    t.base = ch_.base[li];
    t.pc = ch_.pc[li];
    t.status = ch_.status[li];
    t.steps = ch_.steps[l];
    return t;
  }

  // Runs the shader at `target` for thread l's hit in a quad of its own: l as the anchor, and a
  // helper for each partner that cast its ray with the same trace, on the anchor's triangle. l
  // then goes on after the call with the anchor's registers and stack.
  [[gnu::noinline]] void shade_in_quad(int l, std::uint32_t target, std::uint32_t push, std::uint32_t pc) {
    const auto li = static_cast<std::size_t>(l);
    const std::uint32_t depth = depth_offset_ + static_cast<std::uint32_t>(ch_.frames[li].size()) + 1;
    if (depth >= static_cast<std::uint32_t>(vm_.machine_->max_call_depth)) {
      fault(l, pc, "calls nested " + std::to_string(vm_.machine_->max_call_depth) + " deep (runaway recursion?)");
      return;
    }
    ThreadState t[3];
    t[0] = lane_state(l);
    const ThreadState before = kRecord ? t[0] : ThreadState{};
    t[0].frames.clear();
    t[0].base += push;
    t[0].pc = target;
    if (t[0].stack.size() < t[0].base + 8) t[0].stack.resize(t[0].base + 8);
    for (int axis = 0; axis < 2; ++axis) {
      ThreadState& h = t[1 + axis];
      h = t[0];
      h.status = ThreadStatus::Done;
      const int p = partner(l, axis);
      if (p < 0 || ray_count_[static_cast<std::size_t>(p)] != ray_count_[li] || !ray_count_[li] || !vm_.memory_ro_) continue;
      const auto pi = static_cast<std::size_t>(p);
      const std::optional<PlanePoint> at = plane_point(*vm_.memory_ro_, ch_.hit_tri[li], ray_origin_[pi], ray_direction_[pi]);
      if (!at) continue;
      h.status = ThreadStatus::Running;
      for (std::size_t c = 0; c < 3; ++c) {
        h.reg[kRegR0][c] = ray_origin_[pi][c];
        h.reg[kRegR0 + 1][c] = ray_direction_[pi][c];
      }
      h.reg[kRegHit] = {at->u, at->v, at->t, t[0].reg[kRegHit][3]};
    }
    Chunk quad;
    load_chunk(quad, std::span<ThreadState>(t, 3));
    Runner<false> runner(vm_, 3, st_, nullptr, chunk_, quad, true, depth);
    runner.run();
    store_chunk(quad, std::span<ThreadState>(t, 1));
    nested_cycles_ += runner.cycles();
    ++st_.quads;
    ++st_.calls;
    const ThreadState& a = t[0];
    if (a.status == ThreadStatus::Faulted) {
      status_change(l, ThreadStatus::Faulted, pc);
      ch_.fault[li] = a.fault;
      if constexpr (kRecord) rec_->faults.push_back("chunk " + std::to_string(chunk_) + " lane " + std::to_string(l) + ": " + a.fault);
      return;
    }
    // Back into the chunk: registers, addresses, the stack; the control stack is the caller's.
    for (int r = 0; r < kRegCount; ++r) {
      for (int c = 0; c < 4; ++c) ch_.reg[r][c][l] = a.reg[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      if constexpr (kRecord)
        if (!same_bits(before.reg[static_cast<std::size_t>(r)], a.reg[static_cast<std::size_t>(r)]))
          record({ChangeKind::Register, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(r), before.reg[static_cast<std::size_t>(r)], a.reg[static_cast<std::size_t>(r)]});
    }
    if constexpr (kRecord)
      if (before.a != a.a || before.hit_tri != a.hit_tri || before.hit_obj != a.hit_obj) {
        auto as_vec = [](const ThreadState& x) {
          return Vec4{static_cast<float>(x.a[0]), static_cast<float>(x.a[1]), static_cast<float>(x.a[2]), static_cast<float>(x.a[3])};
        };
        record({ChangeKind::Address, static_cast<std::uint8_t>(l), 0, as_vec(before), as_vec(a)});
        record({ChangeKind::Address, static_cast<std::uint8_t>(l), 1, {0, 0, static_cast<float>(before.hit_tri), static_cast<float>(before.hit_obj)},
                {0, 0, static_cast<float>(a.hit_tri), static_cast<float>(a.hit_obj)}});
      }
    for (int c = 0; c < 4; ++c) ch_.a[c][l] = a.a[static_cast<std::size_t>(c)];
    ch_.hit_tri[li] = a.hit_tri;
    ch_.hit_obj[li] = a.hit_obj;
    ch_.grow_stack(a.stack.size());
    for (std::size_t s = 0; s < a.stack.size(); ++s) {
      const Vec4 old = ch_.thread(ch_.stack[s], l);
      if (same_bits(old, a.stack[s])) continue;
      for (int c = 0; c < 4; ++c) ch_.stack[s][static_cast<std::size_t>(c)][l] = a.stack[s][static_cast<std::size_t>(c)];
      if constexpr (kRecord) record({ChangeKind::Stack, static_cast<std::uint8_t>(l), static_cast<std::uint32_t>(s), old, a.stack[s]});
    }
    ch_.steps[l] = static_cast<std::uint32_t>(std::min<std::uint64_t>(a.steps, 0xFFFFFFFFu));
    ch_.pc[li] = pc + 1;
  }

  const std::uint32_t depth_offset_;
  const Vm& vm_;
  const Decoded* const code_;
  const std::array<Vec4, 32>& consts_;
  const bool fp24_;
  const int n_;
  VmStats& st_;
  Recording* rec_;
  const std::uint32_t chunk_;
  Chunk& ch_;
  std::vector<Group>& groups_;
  const bool quad_;
  const std::array<std::uint8_t, 4> positions_;
  std::uint8_t released_ = 0;  // threads let past the meeting point they wait at
  v4f stash_[2][4]{};          // per half and component: the differences meet() worked out
  std::uint64_t nested_cycles_ = 0;
  std::array<Vec4, 4> ray_origin_{}, ray_direction_{};  // each thread's last ray
  std::array<std::uint32_t, 4> ray_count_{};           // and how many it has cast
  std::uint8_t counted_ = 0;                           // threads whose next ray meet() has counted
  const std::uint32_t code_size_;
  const std::uint32_t max_steps_;
  std::uint8_t running_ = 0;
  std::uint8_t all_threads_ = 0;
  int width_ = 0;
  std::uint64_t cycle_ = 0;
  std::array<std::uint64_t, kResources * 4> ready_{};  // per resource and component
  std::uint32_t next_token_ = 0;
  std::size_t step_index_ = 0;
  IssueTrace* const it_;                 // null unless the machine model records this run
  std::vector<IssueTrace::Dep> writer_;  // per resource and component: its latest writer
  IssueTrace::Dep pending_control_{kNoWord, 0, WaitCause::Arithmetic};  // a conditional control part's wait
};

template <bool kRecord>
void Vm::run_loaded(int n, VmStats& stats, Recording* record, std::uint32_t chunk) {
  Runner<kRecord>(*this, n, stats, record, chunk, *chunk_).run();
}

template void Vm::run_loaded<true>(int, VmStats&, Recording*, std::uint32_t);
template void Vm::run_loaded<false>(int, VmStats&, Recording*, std::uint32_t);

}  // namespace passlab::rpu
