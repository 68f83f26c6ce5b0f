// SPDX-License-Identifier: GPL-3.0-or-later
// The conformance oracle: one RSL program through every backend that accepts it, each result
// compared with the reference interpreter, fragment by fragment and pixel by pixel.
//
// What is compared (docs/conformance.md has the whole story):
//   ir        the optimised IR against the unoptimised IR (the reference)
//   dag       the flattened fragment DAG (uniform work folded on the host, loops unrolled,
//             branches if-converted, affine work moved to the vertex program)
//   fp        every PC target and the Radeon 8500, with RDSh, RDS and the optimal search: the
//             independent validator and the execution check on each partition, the passes run
//             per fragment, and renders with render-to-texture and the F-buffer, which must equal
//             the single pass bit for bit (and the single pass the reference's render)
//   combiners GeForce1 and GeForce3, the same algorithms, in float and in hardware precision
//   rpu       the VM in IEEE and 24-bit arithmetic, in chunks of four threads and one thread at a
//             time, against the reference renderer (the interpreter with C++ rays)
//   decoupled decoupled sampling with no blur against its multisampling mode (identical)
// A backend that refuses the program with a diagnostic is counted, not failed. A failure is an
// unexplained difference, a refusal without a diagnostic, an internal compiler error, or a
// validator finding; crashes and hangs are caught by the caller (passlab-cli conform runs each
// program in a child process).
//
// Tolerances come from Monte Carlo arithmetic (ir::Perturbation): the reference runs again with
// every operation's result perturbed by the backend's unit roundoff (or, in the combiners'
// hardware precision, by an 8-bit step), and a backend agrees with it on a fragment when its
// value lies within the spread those runs show (times a safety factor) plus a floor. Fragments
// whose reference meets a NaN or an infinity are not compared: RSL leaves domain errors undefined.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "session/conform/profile.h"

namespace passlab::conform {

enum class Outcome : std::uint8_t { Agrees, Refused, Failed };
const char* to_string(Outcome o);

// One backend configuration's verdict on one program.
struct Check {
  Check() = default;
  explicit Check(std::string b) : backend(std::move(b)) {}
  std::string backend;  // "ir", "dag", "fp PC3 rds", "fp PC3 rds fbuffer", "combiners geforce3 rdsh hardware", "rpu fp24 chunks", ...
  Outcome outcome = Outcome::Agrees;
  std::string kind;     // for a failure: "mismatch", "validator", "refusal without a diagnostic", "internal error", "reference", "nvparse" (a listing nvparse would not load)
  std::string detail;   // the refusal's diagnostic, or what failed and where
  int compared = 0;     // fragments or pixels compared
  int undefined = 0;    // not compared: the reference met a NaN or an infinity, or (combiners) a register clamped
  float difference = 0; // a mismatch: how far the value was from the reference (infinity for a NaN)
};

struct Report {
  std::string program;        // the file name
  bool front_end_ok = false;  // the front end accepted it (else only the RPU, which has its own, is tried)
  bool recursion = false;     // it rejected only recursion, which the RPU's dialect allows
  std::string front_end;      // its diagnostics when it did not
  std::vector<Check> checks;

  bool failed() const;
  const Check* first_failure() const;
  // "backend: kind" of the first failure ("" when none).
  std::string signature() const;
};

// Whether `candidate` fails as `original` does: the same first failing check, the same kind of
// failure and, for a mismatch, a difference at least a tenth as large (so that a reduction does
// not slip from a wrong result to a rounding difference on the way).
bool same_failure(const Report& candidate, const Report& original);

struct OracleOptions {
  int fragments = 16;           // random fragments per per-fragment comparison
  int image = 12;               // render size in pixels (square)
  double optimal_budget = 0.05; // seconds for the optimal search
  // Which families to run: any of "ir", "fragment", "combiners", "rpu", "decoupled"; empty: all.
  std::vector<std::string> only;
  std::vector<std::string> targets;  // fp and combiner targets to run (names); empty: all
  std::vector<std::string> include_paths;
};

// A generated program stays within its family's profile, so the family's own backends must take
// it: the fragment DAG and every fp target for the fragment family, the DAG for the combiners
// (whose stages and units a program may still outgrow), the RPU for the RPU family (whose
// registers and stack window it may outgrow: the RPU cannot spill). Their other refusals become
// failures of kind "refused within its profile".
void expect_acceptance(Report& r, Family family);

class Oracle {
 public:
  // Loads the scenes (resources/conform/) and targets once. On a problem, ok() is false and
  // error() says what.
  explicit Oracle(OracleOptions options);
  ~Oracle();
  bool ok() const;
  const std::string& error() const;

  // Checks one program. `path` names it in diagnostics and finds its includes and its light
  // setup (<stem>.lights.json beside it); the text is `text`. With `original`, `text` is a
  // transformation of it and must also compute what the original computes (check "transform").
  // Never throws for a bad program.
  Report check(const std::string& path, const std::string& text, const std::string* original = nullptr) const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace passlab::conform
