// The reference interpreter: runs a module on one fragment. The semantic oracle for later stages.
#pragma once

#include <array>
#include <cstdint>
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
// P in front of the camera, unit N and Ng facing it, I = P - E, s t u v in [0, 1), colours in [0, 1).
FragmentInputs random_fragment(std::uint64_t seed);

struct RunResult {
  bool ok = false;
  std::string error;  // when !ok: what stopped evaluation (step limit, unsupported operation)
  lang::Span where;
  std::vector<Value> results;  // the entry function's Ret operands, in result_names order
};

struct RunOptions {
  std::uint64_t max_steps = 50'000'000;  // instructions executed, over all calls
  int max_depth = 256;                   // nested calls (recursion, on targets that allow it)
};

// Runs the entry function. Shader parameters take `params[name]` when present, else their
// default. Terminates on every input: loops that exceed the step limit return an error.
RunResult interpret(const Module& m, const FragmentInputs& in, const std::map<std::string, Value>& params,
                    const EvalContext& ctx, const RunOptions& options = {});
// Runs functions[function] on `args` (a shader takes none and reads `in`).
RunResult interpret_function(const Module& m, std::size_t function, const std::vector<Value>& args, const FragmentInputs& in,
                             const std::map<std::string, Value>& params, const EvalContext& ctx, const RunOptions& options = {});

}  // namespace passlab::ir
