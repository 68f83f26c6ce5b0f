// SPDX-License-Identifier: GPL-3.0-or-later
// Code output: call expansion with stack-window saves, then depth-first linearisation.
#include "backends/rpu/output.h"

#include <algorithm>
#include <map>

namespace passlab::rpu {

namespace {

// One register half (or whole register) kept in lanes of a stack slot across a call.
struct Part {
  int reg;
  std::uint8_t reg_lanes;   // xyz, w or all four
  std::uint8_t slot_lane;   // where a lone .w goes in the slot (0-3); unused for xyz and whole registers
};
struct Save {
  std::vector<Part> parts;
};

// The register halves live across instruction i of block b, packed into stack slots: a whole
// register takes a slot, a vector's .xyz shares its slot with a scalar in .w, and the other
// scalars go four to a slot (beyond the thesis, which gives each saved value its own slot).
std::vector<Save> saves_for(const AsmInstr& call, const std::vector<LocSet>& after, const LocSet& live_in, std::size_t i) {
  const LocSet& before = i == 0 ? live_in : after[i - 1];
  const LocSet& past = after[i];
  std::map<int, std::uint8_t> across;  // register -> halves (xyz and/or w)
  for (Loc l : past.members()) {
    // Live before and after, and not a result the call itself delivers.
    if (!is_phys(l) || !before.has(l) || std::find(call.call_defs.begin(), call.call_defs.end(), l) != call.call_defs.end()) continue;
    const Loc u = l - kPhys;
    if (u < kUnitW) across[static_cast<int>(u)] |= kMaskXYZ;
    else if (u < kUnitS) across[static_cast<int>(u - kUnitW)] |= kMaskW;
  }
  std::vector<Save> slots;
  std::vector<int> xyz_only, w_only;
  for (auto [r, lanes] : across) {
    if (lanes == (kMaskXYZ | kMaskW)) slots.push_back({{{r, kMaskAll, 0}}});
    else if (lanes == kMaskXYZ) xyz_only.push_back(r);
    else w_only.push_back(r);
  }
  std::size_t w = 0;
  for (int r : xyz_only) {
    Save s{{{r, kMaskXYZ, 0}}};
    if (w < w_only.size()) s.parts.push_back({w_only[w++], kMaskW, 3});
    slots.push_back(s);
  }
  for (; w < w_only.size(); w += 4) {
    Save s;
    for (std::size_t k = 0; k < 4 && w + k < w_only.size(); ++k) s.parts.push_back({w_only[w + k], kMaskW, static_cast<std::uint8_t>(k)});
    slots.push_back(s);
  }
  return slots;
}

}  // namespace

void output_blocks(const AsmFunction& f, int& next_label, Listing& out, AsmStats& stats);

void output_function(const AsmFunction& f, int& next_label, Listing& out, AsmStats& stats) {
  // A jump to an empty block that only jumps on goes straight to where that one goes.
  auto resolve = [&](std::uint32_t b) {
    for (std::size_t guard = 0; guard < f.blocks.size(); ++guard) {
      const AsmBlock& blk = f.blocks[b];
      if (!blk.body.empty() || blk.term.kind != Terminator::Kind::Jump || blk.term.target == b || b == 0) break;
      b = blk.term.target;
    }
    return b;
  };
  AsmFunction threaded_storage;
  const AsmFunction* src = &f;
  {
    bool any = false;
    for (const AsmBlock& blk : f.blocks) {
      const Terminator& t = blk.term;
      if (blk.removed) continue;
      if (t.kind == Terminator::Kind::Jump && resolve(t.target) != t.target) any = true;
      if (t.kind == Terminator::Kind::Branch && (resolve(t.target) != t.target || resolve(t.other) != t.other)) any = true;
    }
    if (any) {
      threaded_storage = f;
      for (AsmBlock& blk : threaded_storage.blocks) {
        Terminator& t = blk.term;
        if (blk.removed) continue;
        if (t.kind == Terminator::Kind::Jump || t.kind == Terminator::Kind::Branch) t.target = resolve(t.target);
        if (t.kind == Terminator::Kind::Branch) t.other = resolve(t.other);
        if (t.kind == Terminator::Kind::Branch && t.target == t.other) {
          const std::uint32_t to = t.target;
          t = {};
          t.kind = Terminator::Kind::Jump;
          t.target = to;
        }
        ++stats["output.threaded"];
      }
      threaded_storage.compute_preds();
      src = &threaded_storage;
    }
  }
  output_blocks(*src, next_label, out, stats);
}

void output_blocks(const AsmFunction& f, int& next_label, Listing& out, AsmStats& stats) {
  // Depth first from the entry, the fall-through successor next.
  std::vector<std::uint32_t> order;
  {
    std::vector<bool> placed(f.blocks.size(), false);
    std::vector<std::uint32_t> work{0};
    while (!work.empty()) {
      const std::uint32_t b = work.back();
      work.pop_back();
      if (placed[b] || f.blocks[b].removed) continue;
      placed[b] = true;
      order.push_back(b);
      const Terminator& t = f.blocks[b].term;
      if (t.kind == Terminator::Kind::Jump) work.push_back(t.target);
      if (t.kind == Terminator::Kind::Branch) {
        work.push_back(t.target);
        work.push_back(t.other);
      }
    }
  }
  std::vector<int> position(f.blocks.size(), -1);
  for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = static_cast<int>(k);
  auto next_of = [&](std::uint32_t b) -> std::int64_t {
    const int p = position[b];
    return p + 1 < static_cast<int>(order.size()) ? order[static_cast<std::size_t>(p + 1)] : -1;
  };
  // Labels only where something jumps.
  std::map<std::uint32_t, std::string> labels;
  auto label = [&](std::uint32_t b) -> const std::string& {
    auto it = labels.find(b);
    if (it == labels.end()) it = labels.insert({b, "L" + std::to_string(next_label++)}).first;
    return it->second;
  };
  struct Line {
    std::string text;
    lang::Span span;
    bool is_label = false;
    std::uint32_t block = 0;
    bool is_stub_label = false;  // a spill stub's own label line
  };
  std::vector<Line> lines, stubs;  // stubs: the spill stubs, after the function's blocks
  const Liveness lv = compute_liveness(f);
  const TextOptions o;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::uint32_t b = order[k];
    const AsmBlock& blk = f.blocks[b];
    lines.push_back({"", {}, true, b});
    std::vector<LocSet> after;
    bool has_call = std::any_of(blk.body.begin(), blk.body.end(), [](const AsmInstr& in) { return in.is_call(); });
    if (has_call) after = lv.after(f, b);
    for (std::size_t i = 0; i < blk.body.size(); ++i) {
      const AsmInstr& in = blk.body[i];
      if (!in.is_call()) {
        lines.push_back({to_text(in.word, o), in.span});
        continue;
      }
      const std::vector<Save> slots = saves_for(in, after, lv.live_in[b], i);
      const std::string target = in.word.control.target_reg.bank != Bank::None ? to_text(in.word.control.target_reg, o) : in.word.control.label;
      // The window shows 8 slots. Beyond 8 saves (beyond the thesis, which stops there) the call
      // goes through a spill stub per 8 more: the caller saves its first 8 and calls the stub with
      // push 8; the stub, whose window starts past them, saves the next ones, calls on, restores
      // them and returns. Registers pass through untouched, arguments included.
      std::vector<Line>* into = &lines;
      for (std::size_t first = 0;; first += 8) {
        const std::size_t count = std::min<std::size_t>(8, slots.size() - first);
        const bool last = first + 8 >= slots.size();
        for (std::size_t s = 0; s < count; ++s)
          for (const Part& p : slots[first + s].parts) {
            Operation save;
            save.op = Opcode::Mov;
            const bool lone = p.reg_lanes == kMaskW;
            save.dst = {Bank::Stack, static_cast<std::uint32_t>(s), lone ? static_cast<std::uint8_t>(1u << p.slot_lane) : p.reg_lanes};
            save.src[0] = Source::reg(Bank::R, static_cast<std::uint32_t>(p.reg), lone ? Swizzle::splat(3) : Swizzle{});
            into->push_back({to_text(save, o), in.span});
            ++stats["output.saves"];
          }
        std::string stub;
        if (last) {
          into->push_back({"call " + target + " push " + std::to_string(count), in.span});
        } else {
          stub = "L" + std::to_string(next_label++);
          into->push_back({"call " + stub + " push 8", in.span});
          ++stats["output.spill_stubs"];
        }
        for (std::size_t s = 0; s < count; ++s)
          for (const Part& p : slots[first + s].parts) {
            Operation restore;
            restore.op = Opcode::Mov;
            const bool lone = p.reg_lanes == kMaskW;
            restore.dst = {Bank::R, static_cast<std::uint32_t>(p.reg), p.reg_lanes};
            restore.src[0] = Source::reg(Bank::Stack, static_cast<std::uint32_t>(s), lone ? Swizzle::splat(p.slot_lane) : Swizzle{});
            into->push_back({to_text(restore, o), in.span});
          }
        if (first > 0) into->push_back({"return", in.span});
        if (last) break;
        stubs.push_back({stub + ":", in.span, false, 0, true});
        into = &stubs;
      }
    }
    const Terminator& t = blk.term;
    const std::int64_t next = next_of(b);
    switch (t.kind) {
      case Terminator::Kind::Jump:
        if (static_cast<std::int64_t>(t.target) != next) lines.push_back({"jmp " + label(t.target), t.span});
        break;
      case Terminator::Kind::Branch: {
        const std::string test = to_text(t.test, o);
        if (static_cast<std::int64_t>(t.other) == next) {
          lines.push_back({test + " + jmp " + label(t.target) + ", " + condition_text(t.cond), t.span});
        } else if (static_cast<std::int64_t>(t.target) == next) {
          lines.push_back({test + " + jmp " + label(t.other) + ", " + condition_text(t.cond.negated()), t.span});
        } else {
          lines.push_back({test + " + jmp " + label(t.target) + ", " + condition_text(t.cond), t.span});
          lines.push_back({"jmp " + label(t.other), t.span});
        }
        break;
      }
      case Terminator::Kind::Return: lines.push_back({"return", t.span}); break;
    }
  }
  out.text += f.label + ":\n";
  lines.insert(lines.end(), stubs.begin(), stubs.end());
  for (const Line& l : lines) {
    if (l.is_stub_label) {
      out.text += l.text + "\n";
      continue;
    }
    if (l.is_label) {
      auto it = labels.find(l.block);
      if (it != labels.end()) out.text += it->second + ":\n";
      continue;
    }
    std::string text = l.text;
    for (std::size_t pos = text.find('\n'); pos != std::string::npos; pos = text.find('\n', pos + 1)) text.insert(pos + 1, "    ");
    out.text += "    " + text + "\n";
    out.spans.push_back(l.span);
  }
}

}  // namespace passlab::rpu
