// SPDX-License-Identifier: GPL-3.0-or-later
// The reference interpreter: runs a module on one fragment. The semantic oracle for later stages.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/ir/value.h"

namespace passlab::ir {

// The incoming values of the shader globals at one fragment.
struct FragmentInputs {
  std::array<Value, static_cast<std::size_t>(lang::Global::Count)> globals;
  Value& operator[](lang::Global g) { return globals[static_cast<std::size_t>(g)]; }
  const Value& operator[](lang::Global g) const { return globals[static_cast<std::size_t>(g)]; }
};

// A plausible fragment seen by a camera at the origin looking down +z, from a seeded generator:
// P in front of the camera, unit N and Ng facing it, I = P - E, s t u v and time in [0, 1), colours in [0, 1).
FragmentInputs random_fragment(std::uint64_t seed);
// Its neighbours one pixel to the right (dx = 1) or below (dy = 1): every interpolated global moved
// by a small seeded gradient, P along the plane through it with normal Ng, I with P, N kept unit,
// the surface parameters by steps of about 1/200 (du and dv are how far u and v move in a pixel,
// |du/dx| + |du/dy|, at the fragment and both neighbours).
struct Neighbours {
  FragmentInputs right, below;
};
Neighbours random_neighbours(FragmentInputs& in, std::uint64_t seed);

struct RunResult {
  bool ok = false;
  bool nonfinite = false;  // some operation yielded a NaN or an infinity (a domain error or an overflow)
  std::string error;  // when !ok: what stopped evaluation (step limit, unsupported operation)
  lang::Span where;
  std::vector<Value> results;  // the entry function's Ret operands, in result_names order
};

// Monte Carlo arithmetic (Parker 1997): every float that an operation, a global read or a constant
// yields becomes r (1 + relative u) + absolute u', with u and u' uniform in [-1, 1] drawn from
// `seed`. Runs with a few seeds show how far rounding errors of that size can move a result: the
// conformance oracle's tolerance for a backend of that precision.
struct Perturbation {
  float relative = 0;
  float absolute = 0;
  std::uint64_t seed = 1;
  // A further absolute error on the result of each built-in function (by lang::Builtin): the
  // bound of a backend's approximation of it (the fp target's acos is a polynomial within 7e-5).
  std::array<float, static_cast<std::size_t>(lang::Builtin::Count)> builtin{};
  // A narrower number format's range: a magnitude from `overflow` up, or a nonzero one below
  // `underflow`, counts as not finite (RunResult::nonfinite), as it would not be on that machine.
  float overflow = std::numeric_limits<float>::infinity();
  float underflow = 0;
  // From this magnitude on the format holds no fractions: floor, ceil, round and mod of such a
  // value say nothing there (mod(1e6, 2.13) on 16 mantissa bits), nor do sin, cos and tan (their
  // range reduction is such a mod), and they count as not finite.
  float integral = std::numeric_limits<float>::infinity();
  // == and != of floats that differ, but by no more than this (relative to the larger) say nothing
  // either: the format's rounding decides them (normalize(N) == N holds on 16 mantissa bits where
  // it does not on 24), and perturbing never makes two values equal. They count as not finite.
  float equality = 0;
  // sign(0) says nothing either: the machine's differs by design (the RPU's is 1, as the thesis
  // chose for the hardware; the interpreter's 0).
  bool sign_of_zero_undefined = false;
};

struct RunOptions {
  std::uint64_t max_steps = 50'000'000;  // instructions executed, over all calls
  int max_depth = 256;                   // nested calls (recursion, on targets that allow it)
  const Perturbation* perturb = nullptr; // null: exact IEEE single arithmetic
  // The fragments one pixel to the right and one below (null: a derivative stops the run with a
  // message). Screen-space derivatives are forward differences to them, as a rasterizer's:
  // Du, Dv, Deriv, area and calculatenormal of a value are worked out from the value there and
  // here, and from how u and v change (see derivatives.h). The value there is what the same
  // program computes on that fragment up to the same point; where it branched otherwise on the
  // way (control flow that is not uniform across the three), the derivative is undefined
  // (RunResult::nonfinite), as on hardware.
  const FragmentInputs* right = nullptr;
  const FragmentInputs* below = nullptr;
};

// Runs the entry function. Shader parameters take `params[name]` when present, else their
// default. Terminates on every input: loops that exceed the step limit return an error.
RunResult interpret(const Module& m, const FragmentInputs& in, const std::map<std::string, Value>& params,
                    const EvalContext& ctx, const RunOptions& options = {});
// Runs functions[function] on `args` (a shader takes none and reads `in`).
RunResult interpret_function(const Module& m, std::size_t function, const std::vector<Value>& args, const FragmentInputs& in,
                             const std::map<std::string, Value>& params, const EvalContext& ctx, const RunOptions& options = {});

}  // namespace passlab::ir
