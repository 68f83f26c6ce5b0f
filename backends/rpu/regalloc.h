// SPDX-License-Identifier: GPL-3.0-or-later
// Register allocation (thesis ch. 8): graph colouring with enemies and friends, before
// scheduling, with no spilling.
//
// Enemies are values of one class (vector or scalar) live at the same time; friends are values
// of one class, not enemies, joined by a plain `mov`. The graph has a node per virtual register
// (pre-allocated registers, such as arguments, are not nodes; they forbid their register to the
// values they conflict with and attract the values they are copied to or from). The order:
// repeatedly remove the node with the fewest edges, among those the one with the fewest friends
// (then the lowest number). Colours go in reverse order, each to a register none of its enemies
// holds, preferring (a) the register most of its friends hold, (b) the register holding the
// fewest values so far, (c) the lowest register number. With 15 registers a class, failure is a
// compile error: the RPU cannot spill.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"
#include "backends/rpu/liveness.h"
#include "core/lang/diagnostic.h"

namespace passlab::rpu {

struct Allocation {
  std::vector<int> reg;                     // per virtual register: R0-R14, or -1 (never used)
  std::vector<std::vector<Loc>> enemies;    // per virtual register, in increasing order
  std::vector<std::vector<Loc>> friends;
  std::vector<std::vector<int>> pinned_enemies;  // registers of pre-allocated values it conflicts with
  std::vector<std::vector<int>> pinned_friends;  // registers of pre-allocated values it is copied to or from
  struct Removal {
    Loc vreg;
    int edges;    // its edges when removed
    int friends;
  };
  std::vector<Removal> order;  // the removal order (colouring goes backwards)
  struct Choice {
    Loc vreg;
    int reg;
    std::string reason;  // "2 friends in R1", "fewest values (R4 holds 1)", "lowest free"
  };
  std::vector<Choice> choices;  // in colouring order
  bool guaranteed = true;      // every node had fewer than 15 edges when removed
  std::vector<std::string> names;      // per virtual register: "%v3 N" (its name and what it holds)
  std::vector<std::string> registers;  // per virtual register: "R3.xyz", "R7.w" ("" never used)
};

// Allocates `f` in place: virtual operands become R0-R14, and moves from a register to itself
// disappear. On failure reports a diagnostic at the value that found no register.
std::optional<Allocation> allocate_registers(AsmFunction& f, lang::DiagnosticSink& sink, AsmStats& stats);

// The interference graph with friends as Graphviz DOT (for --emit and the Studio).
std::string allocation_dot(const AsmFunction& f, const Allocation& a);
// The removal order and each colour with its reason, as text.
std::string allocation_text(const AsmFunction& f, const Allocation& a);

}  // namespace passlab::rpu
