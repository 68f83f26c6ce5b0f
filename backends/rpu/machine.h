// SPDX-License-Identifier: GPL-3.0-or-later
// The RPU machine description: latencies, precision and the limits of one instruction word,
// read from resources/rpu/<name>.json (the scheduler, the assembler and the VM share it).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/rpu/isa.h"
#include "core/lang/diagnostics.h"

namespace passlab::rpu {

struct Machine {
  std::string name;
  std::string description;
  // Cycles from issue until the result can be read, by opcode: an instruction issued in cycle
  // c with latency L makes its result available in cycle c + L (the thesis's timing model).
  std::array<int, 16> latency{};  // ddx and ddy: add's unless the description gives them
  int special_latency = 4;         // extra cycles before an _rcp/_rsq result in S can be read
  int literals_per_instruction = -1;  // literal operands one word may carry; -1: any (the VM)
  bool pairing = true;             // 3/1 and 2/2 pairs may be issued as one word
  int pair_read_ports = 3;         // distinct registers a pair may read (the file has 3 ports)
  bool fp24 = true;                // arithmetic rounds to the RPU's 24-bit float, else IEEE single
  int max_call_depth = 4096;       // deeper calls are runaway recursion: a fault
  std::uint64_t max_steps = 10'000'000;  // instructions one thread may run before it faults

  // The machine model (machine_model.h): a multithreaded core as the RPU's designers describe
  // it, which switches at no cost to another chunk when one waits. The VM alone runs one chunk at
  // a time and counts the cycles above; these knobs only matter to the model.
  int cores = 1;              // cores, each with its own issue slot and trace unit
  int chunks_in_flight = 16;  // chunks resident on one core, among which it switches
  struct TraceUnit {
    int pipelines = 4;           // rays traversed side by side (one per lane of a chunk)
    int latency = 8;             // cycles from the end of a ray's traversal until HIT can be read
    double box_cycles = 1;       // a pipeline's cycles per bounding box tested
    double triangle_cycles = 2;  // ... per triangle tested
    int queue = 32;              // rays waiting for a pipeline; a trace waits to issue while full
  } trace_unit;

  int latency_of(Opcode op) const { return latency[static_cast<std::size_t>(op)]; }
};

// The folder holding the presets: rpu/ of the data folder (core/paths/data_dir.h).
std::string machines_dir();
// A preset name ("rpu", "thesis_example") or a path to a .json file. On failure: nullopt, with
// diagnostics (code "machine", at the key in the file) added to *diagnostics when given.
std::optional<Machine> load_machine(const std::string& name_or_path, lang::Diagnostics* diagnostics);
// The "rpu" preset. Throws std::runtime_error if the resources are missing (an install fault).
const Machine& default_machine();

// Why two operations cannot share one word as a 3/1 (xyz + w) or 2/2 (xy + zw) pair, or "".
// Both must be arithmetic, not dot products (their adder spans all four lanes), write disjoint
// halves, put _rcp/_rsq only on the half holding w, read at most one stack slot and at most
// `pair_read_ports` distinct registers together, and respect the literal limit.
std::string pair_problem(const Operation& a, const Operation& b, const Machine& m);

// Literal operands and stack-slot reads in a whole word (both halves).
int literal_count(const Instruction& in);
int stack_reads(const Instruction& in);

}  // namespace passlab::rpu
