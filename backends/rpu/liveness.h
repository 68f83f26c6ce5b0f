// SPDX-License-Identifier: GPL-3.0-or-later
// Liveness over the compiler's assembly (thesis §7.7): which locations (virtual registers and
// physical units) hold a value someone will still read, per block and per instruction; and
// dead-code elimination as the thesis's fixed point from "everything dead".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"

namespace passlab::rpu {

// Counters the assembly passes record ("dce.removed" -> 12), like the IR passes.
using AsmStats = std::map<std::string, long>;

// A set of locations, dense: virtual registers first, then the physical units.
class LocSet {
 public:
  LocSet() = default;
  explicit LocSet(std::size_t vregs) : vregs_(vregs), bits_((vregs + kUnitCount + 63) / 64, 0) {}
  std::size_t index(Loc l) const { return is_phys(l) ? vregs_ + (l - kPhys) : l; }
  Loc loc(std::size_t i) const { return i < vregs_ ? static_cast<Loc>(i) : kPhys + static_cast<Loc>(i - vregs_); }
  bool has(Loc l) const {
    const std::size_t i = index(l);
    return (bits_[i / 64] >> (i % 64)) & 1;
  }
  void add(Loc l) {
    const std::size_t i = index(l);
    bits_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  void remove(Loc l) {
    const std::size_t i = index(l);
    bits_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  }
  // Adds every member of o; returns whether anything was new.
  bool merge(const LocSet& o);
  std::size_t size() const { return vregs_ + kUnitCount; }
  std::vector<Loc> members() const;
  friend bool operator==(const LocSet&, const LocSet&) = default;

 private:
  std::size_t vregs_ = 0;
  std::vector<std::uint64_t> bits_;
};

struct Liveness {
  std::vector<LocSet> live_in, live_out;  // per block
  // The locations live just after instruction i of block b (i = body size: before the
  // terminator, which is what the terminator itself reads plus what leaves the block).
  std::vector<LocSet> after(const AsmFunction& f, std::uint32_t b) const;
};

// Liveness of `f`. With `live_code`, instructions marked false are treated as nops.
Liveness compute_liveness(const AsmFunction& f, const std::vector<std::vector<bool>>* live_code = nullptr);

// Removes instructions whose results nobody reads: starting from only calls, traces, stores
// and terminators live, an instruction becomes live when it writes a location that is live
// after it, until nothing changes (so dead loops of dead variables go too). Returns whether
// anything was removed.
bool eliminate_dead_code(AsmFunction& f, AsmStats& stats);

}  // namespace passlab::rpu
