// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/rpu/verifier.h"

#include <fmt/format.h>

namespace passlab::rpu {

namespace {

// How many registers of each bank the machine has (0: the bank has no numbered registers here).
std::uint32_t bank_size(Bank b) {
  switch (b) {
    case Bank::R: return 16;
    case Bank::C: return 32;
    case Bank::Stack: return 8;
    case Bank::I: return 4;
    case Bank::A: return 4;
    case Bank::Special:
    case Bank::Hit:
    case Bank::HitTri:
    case Bank::HitObj: return 1;
    default: return 0;
  }
}

class Checker {
 public:
  Checker(std::size_t limit, std::size_t vregs, bool allow_virtual) : limit_(limit), vregs_(vregs), allow_virtual_(allow_virtual) {}

  void fail(const std::string& where, const std::string& what) {
    if (out_.size() < limit_) out_.push_back(where + ": " + what);
  }

  void source(const std::string& where, const Source& s, const char* role) {
    if (s.bank == Bank::None || s.bank == Bank::Literal) return;
    if (s.bank == Bank::Virtual) {
      if (!allow_virtual_) fail(where, fmt::format("{} reads virtual register {} after register allocation", role, s.index));
      else if (s.index >= vregs_) fail(where, fmt::format("{} reads virtual register {}, which is not declared ({} are)", role, s.index, vregs_));
    } else if (s.index >= bank_size(s.bank)) {
      fail(where, fmt::format("{} reads {}, which does not exist", role, register_name(s.bank, s.index)));
    }
    for (std::uint8_t l : s.swizzle.lane)
      if (l >= kLanes) fail(where, fmt::format("{} swizzles lane {}", role, l));
    if (s.scale < -1 || s.scale > 2) fail(where, fmt::format("{} scales by 2^{} (the hardware has 0.5, 1, 2 and 4)", role, s.scale));
  }

  void dest(const std::string& where, const Dest& d) {
    if (d.bank == Bank::None) return;
    if (d.bank == Bank::Virtual) {
      if (!allow_virtual_) fail(where, fmt::format("writes virtual register {} after register allocation", d.index));
      else if (d.index >= vregs_) fail(where, fmt::format("writes virtual register {}, which is not declared ({} are)", d.index, vregs_));
    } else if (d.bank != Bank::R && d.bank != Bank::Stack && d.bank != Bank::A && d.bank != Bank::I) {
      fail(where, fmt::format("writes {}, which is read-only", register_name(d.bank, d.index)));
    } else if (d.index >= bank_size(d.bank)) {
      fail(where, fmt::format("writes {}, which does not exist", register_name(d.bank, d.index)));
    }
    if (d.mask == 0 || d.mask > kMaskAll) fail(where, fmt::format("writes with the mask {:#x}", d.mask));
  }

  void operation(const std::string& where, const Operation& op) {
    if (op.op == Opcode::None) return;
    const int want = source_count(op.op);
    for (int k = 0; k < 3; ++k) {
      const Source& s = op.src[static_cast<std::size_t>(k)];
      const bool used = s.bank != Bank::None;
      if (k < want && !used) fail(where, fmt::format("{} takes {} sources; source {} is missing", mnemonic(op.op), want, k + 1));
      if (k >= want && used) fail(where, fmt::format("{} takes {} sources; source {} is given", mnemonic(op.op), want, k + 1));
      source(where, s, k == 0 ? "source 1" : k == 1 ? "source 2" : "source 3");
    }
    const bool loads = op.op == Opcode::Load || op.op == Opcode::Load4 || op.op == Opcode::Store;
    if (loads) {
      if (op.address.bank != Bank::A && op.address.bank != Bank::HitTri && op.address.bank != Bank::HitObj && op.address.bank != Bank::Virtual)
        fail(where, fmt::format("{} addresses memory through {}, not an A lane, HIT.tri or HIT.obj", mnemonic(op.op), register_name(op.address.bank, op.address.index)));
      source(where, op.address, "the address");
    }
    if (op.op == Opcode::Trace || op.op == Opcode::Store || op.op == Opcode::Load4) {
      if (op.dst.bank != Bank::None) fail(where, fmt::format("{} writes no register, but names {}", mnemonic(op.op), register_name(op.dst.bank, op.dst.index)));
    } else {
      dest(where, op.dst);
    }
    if (op.special != SpecialFn::None && !is_arithmetic(op.op)) fail(where, fmt::format("_rcp/_rsq on {}, which is not arithmetic", mnemonic(op.op)));
    if (op.sat && !is_arithmetic(op.op)) fail(where, fmt::format("_sat on {}, which is not arithmetic", mnemonic(op.op)));
  }

  void instruction(const std::string& where, const Instruction& in) {
    operation(where, in.primary);
    if (in.paired()) {
      if (!is_arithmetic(in.primary.op) || !is_arithmetic(in.secondary.op))
        fail(where, fmt::format("pairs {} with {}: only arithmetic operations pair", mnemonic(in.primary.op), mnemonic(in.secondary.op)));
      operation(where + " (paired)", in.secondary);
    }
    if (in.control.kind == ControlKind::Call && in.control.target_reg.bank != Bank::None) source(where, in.control.target_reg, "the call target");
  }

  std::vector<std::string> take() { return std::move(out_); }

 private:
  std::size_t limit_, vregs_;
  bool allow_virtual_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> verify(const AsmFunction& f, bool allocated, std::size_t limit) {
  Checker c(limit, f.vregs.size(), !allocated);
  const std::size_t n = f.blocks.size();
  if (n == 0 || f.blocks[0].removed) c.fail(f.label, "the function has no entry block");
  for (std::size_t b = 0; b < n; ++b) {
    const AsmBlock& block = f.blocks[b];
    if (block.removed) continue;
    for (std::size_t i = 0; i < block.body.size(); ++i) c.instruction(fmt::format("{}, block {}, instruction {}", f.label, b, i + 1), block.body[i].word);
    const Terminator& t = block.term;
    const std::string where = fmt::format("{}, block {}, terminator", f.label, b);
    auto leads_to = [&](std::uint32_t target) {
      if (target >= n || f.blocks[target].removed) c.fail(where, fmt::format("leads to block {}, which does not exist", target));
    };
    if (t.kind == Terminator::Kind::Jump) leads_to(t.target);
    if (t.kind == Terminator::Kind::Branch) {
      leads_to(t.target);
      leads_to(t.other);
      c.operation(where, t.test);
    }
  }
  return c.take();
}

std::vector<std::string> verify(const Program& p, const Machine& m, std::size_t limit) {
  Checker c(limit, 0, false);
  const std::size_t n = p.code.size();
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instruction& in = p.code[pc];
    const std::string where = fmt::format("word {}", pc);
    c.instruction(where, in);
    const Control& k = in.control;
    if ((k.kind == ControlKind::Jmp || k.kind == ControlKind::Call) && k.target_reg.bank == Bank::None && k.target >= n)
      c.fail(where, fmt::format("{} to word {}, past the program's end ({} words)", k.kind == ControlKind::Jmp ? "jumps" : "calls", k.target, n));
    if (in.paired())
      if (const std::string why = pair_problem(in.primary, in.secondary, m); !why.empty()) c.fail(where, "a pair " + m.name + " cannot issue: " + why);
  }
  for (const auto& [label, address] : p.labels)
    if (address > n) c.fail("label " + label, fmt::format("is at word {}, past the program's end ({} words)", address, n));
  for (std::size_t i = 0; i < p.entries.size(); ++i) {
    const EntryPoint& e = p.entries[i];
    if (e.address >= n) c.fail("entry point " + e.name, fmt::format("is at word {}, past the program's end ({} words)", e.address, n));
    if (i && p.entries[i - 1].address > e.address) c.fail("entry point " + e.name, "is out of address order");
  }
  return c.take();
}

}  // namespace passlab::rpu
