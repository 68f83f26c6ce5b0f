// SPDX-License-Identifier: GPL-3.0-or-later
// Liveness by backward data flow over blocks, and dead-code elimination as a fixed point.
#include "backends/rpu/liveness.h"

#include <bit>

namespace passlab::rpu {

bool LocSet::merge(const LocSet& o) {
  bool changed = false;
  for (std::size_t i = 0; i < bits_.size(); ++i) {
    const std::uint64_t next = bits_[i] | o.bits_[i];
    changed = changed || next != bits_[i];
    bits_[i] = next;
  }
  return changed;
}

std::vector<Loc> LocSet::members() const {
  std::vector<Loc> out;
  for (std::size_t w = 0; w < bits_.size(); ++w)
    for (std::uint64_t x = bits_[w]; x; x &= x - 1) out.push_back(loc(w * 64 + static_cast<std::size_t>(std::countr_zero(x))));
  return out;
}

namespace {

// Live before an instruction = (live after - what it writes) + what it reads.
void step_back(const AsmFunction& f, const AsmInstr& in, LocSet& live, std::vector<Loc>& scratch) {
  scratch.clear();
  instr_defs(f, in, scratch);
  for (Loc l : scratch) live.remove(l);
  scratch.clear();
  instr_uses(f, in, scratch);
  for (Loc l : scratch) live.add(l);
}

LocSet block_exit(const AsmFunction& f, const Liveness& lv, std::uint32_t b) {
  LocSet live = lv.live_out[b];
  std::vector<Loc> uses;
  terminator_uses(f, f.blocks[b].term, uses);
  for (Loc l : uses) live.add(l);
  return live;
}

}  // namespace

std::vector<LocSet> Liveness::after(const AsmFunction& f, std::uint32_t b) const {
  const AsmBlock& blk = f.blocks[b];
  std::vector<LocSet> out(blk.body.size() + 1);
  LocSet live = block_exit(f, *this, b);
  out[blk.body.size()] = live;
  std::vector<Loc> scratch;
  for (std::size_t i = blk.body.size(); i-- > 0;) {
    out[i] = live;
    step_back(f, blk.body[i], live, scratch);
  }
  return out;
}

Liveness compute_liveness(const AsmFunction& f, const std::vector<std::vector<bool>>* live_code) {
  const std::size_t n = f.blocks.size();
  Liveness lv;
  lv.live_in.assign(n, LocSet(f.vregs.size()));
  lv.live_out.assign(n, LocSet(f.vregs.size()));
  std::vector<std::uint32_t> order = f.reverse_postorder();
  std::vector<Loc> scratch;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const std::uint32_t b = *it;
      LocSet out(f.vregs.size());
      for (std::uint32_t s : f.successors(b)) out.merge(lv.live_in[s]);
      lv.live_out[b] = out;
      LocSet live = out;
      scratch.clear();
      terminator_uses(f, f.blocks[b].term, scratch);
      for (Loc l : scratch) live.add(l);
      const auto& body = f.blocks[b].body;
      for (std::size_t i = body.size(); i-- > 0;) {
        if (live_code && !(*live_code)[b][i]) continue;
        step_back(f, body[i], live, scratch);
      }
      if (!(live == lv.live_in[b])) {
        lv.live_in[b] = live;
        changed = true;
      }
    }
  }
  return lv;
}

bool eliminate_dead_code(AsmFunction& f, AsmStats& stats) {
  std::vector<std::vector<bool>> live(f.blocks.size());
  for (std::uint32_t b = 0; b < f.blocks.size(); ++b) {
    live[b].assign(f.blocks[b].body.size(), false);
    for (std::size_t i = 0; i < f.blocks[b].body.size(); ++i) live[b][i] = has_side_effects(f.blocks[b].body[i]);
  }
  std::vector<Loc> defs;
  for (bool changed = true; changed;) {
    changed = false;
    const Liveness lv = compute_liveness(f, &live);
    for (std::uint32_t b = 0; b < f.blocks.size(); ++b) {
      if (f.blocks[b].removed) continue;
      // Walk backwards with only live instructions contributing, as the fixed point defines.
      LocSet after = block_exit(f, lv, b);
      std::vector<Loc> scratch;
      const auto& body = f.blocks[b].body;
      for (std::size_t i = body.size(); i-- > 0;) {
        if (!live[b][i]) {
          defs.clear();
          instr_defs(f, body[i], defs);
          for (Loc l : defs)
            if (after.has(l)) {
              live[b][i] = true;
              changed = true;
              break;
            }
        }
        if (live[b][i]) step_back(f, body[i], after, scratch);
      }
    }
  }
  bool removed = false;
  for (std::uint32_t b = 0; b < f.blocks.size(); ++b) {
    auto& body = f.blocks[b].body;
    std::vector<AsmInstr> kept;
    kept.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (live[b][i]) kept.push_back(std::move(body[i]));
      else {
        ++stats["dce.removed"];
        removed = true;
      }
    }
    body = std::move(kept);
  }
  return removed;
}

}  // namespace passlab::rpu
