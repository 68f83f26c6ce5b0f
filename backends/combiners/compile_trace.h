// SPDX-License-Identifier: GPL-3.0-or-later
// The combiner compiler's decisions as structured events (every texture unit configured, rewrite,
// mapping, partial combiner and unit filled, input placed, stage assigned, register given), with
// the words of each reason built only when someone reads them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/combiners/machine.h"
#include "core/dag/fragment_dag.h"

namespace passlab::combiners {

enum class CEvent : std::uint8_t {
  Unit,       // stage 1: a texture unit configured
  Rewrite,    // stage 2: a FragmentDag operation turned into hardware operations
  Mapping,    // stage 2: a group of operations recognised as an INMAP, OUTMAP or BOTHMAP
  Factor,     // stage 2: a constant outside [-1, 1] factored into an output scale (beyond the paper)
  Combiner,   // stage 3: a partial combiner begun: its kind and why
  Fill,       // stage 3: one of its units filled, or set to pass-through
  Transform,  // stage 3: TRIPLE/BLUE moved toward the leaves, or a node duplicated (forward substitution)
  Input,      // stage 4: a pass input placed in a register part
  Place,      // stage 5: a partial combiner placed in a general combiner stage
  Register,   // stage 5: a value given a register part for its lifetime
  Constant,   // stage 5: a constant placed in a stage's constant register
  Fail,       // the pass does not fit: which constraint
};
const char* to_string(CEvent k);

struct CompileEvent {
  CEvent kind = CEvent::Rewrite;
  int step = 0;                       // the compiler stage, 1 to 5
  std::vector<dag::NodeId> nodes;     // FragmentDag nodes concerned
  int combiner = -1;                  // partial combiner
  int hw_stage = -1;                  // general combiner stage
  int unit = -1;                      // texture unit
  int reg = -1;                       // machine register
  Part part = Part::Rgb;
  std::string what;                   // the operation, mapping, kind or unit in a word or two
  std::string why;                    // the short cause ("x >= 0 proved", "shared by 2", "ADD excludes DOT")
};

// The event in words (what the trace player and `--trace` show).
std::string reason(const CompileEvent& e, const Machine& m);

class CompileTrace {
 public:
  explicit CompileTrace(bool on) : on_(on) {}
  bool on() const { return on_; }
  void add(CompileEvent e) {
    if (on_) events.push_back(std::move(e));
  }
  std::vector<CompileEvent> events;

 private:
  bool on_;
};

}  // namespace passlab::combiners
