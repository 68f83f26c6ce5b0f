// SPDX-License-Identifier: GPL-3.0-or-later
// The SSA IR: typed values in basic blocks with phi nodes, one Function per shader or function.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/lang/ast.h"
#include "core/lang/source.h"
#include "core/lang/stdlib.h"
#include "core/lang/types.h"

namespace passlab::ir {

using lang::BaseType;
using ValueId = std::uint32_t;
using BlockId = std::uint32_t;
constexpr ValueId kNoValue = std::numeric_limits<ValueId>::max();
constexpr std::uint32_t kRuntimeParam = std::numeric_limits<std::uint32_t>::max();

// How often a value changes: once at compile time, once per draw, or per fragment.
enum class Freq : std::uint8_t { Constant, Uniform, Varying };
const char* to_string(Freq f);
inline Freq join(Freq a, Freq b) { return a > b ? a : b; }

enum class Op : std::uint8_t {
  // Leaves.
  Const,        // data (numbers) or text (a string)
  ShaderParam,  // aux = parameter index (kRuntimeParam: a light's runtime parameter), text = name;
                // args[0] = the default value, used unless bound
  Arg,          // aux = argument index of a (non-shader) function
  Global,       // aux = lang::Global: the incoming value of a shader global
  Undef,        // a variable read before any assignment: zero
  // Componentwise arithmetic and logic (operands have the instruction's type unless noted).
  Neg, Add, Sub, Mul, Div,
  Dot,          // two triples -> float
  Cross,        // two triples -> vector
  MatMul,       // matrix * matrix
  MatDiv,       // matrix * inverse(matrix)
  Lt, Gt, Le, Ge, Eq, Ne,  // -> bool
  And, Or, Not,
  Select,       // args: bool cond, a, b
  Convert,      // float -> triple (splat) / matrix (diagonal); bool <-> float; triple -> triple
  MakeTriple,   // three floats
  MakeMatrix,   // sixteen floats
  Builtin,      // aux = lang::Builtin; args as resolved; result type tells overloads apart
  Texture,      // args[0] = the texture name (a string; "$noise" for noise), then 1-3 float
                // coordinates or one triple; a float result reads channel 0, a triple channels 0-2
  Call,         // aux = function index; returns a Tuple when the callee has output parameters
  Extract,      // aux = element of a Call's tuple
  Phi,          // args[i] flows in from the block's preds[i]
  Output,       // FragmentDag root only: (Ci, Oi) -> the RGBA a fragment writes (Ci, Oi's first channel)
  Outputs,      // FragmentDag root only, of a shader with several outputs (its colour and output
                // parameters, each to its own render target): args are the RGBA values written, the
                // colour first; its value is the colour's
  ScreenDiff,   // FragmentDag only: args[0] one pixel to the right (aux 0) or below (aux 1) minus
                // here, what derivatives are made of (dag/flatten.cpp, the formulas of
                // ir/derivatives.h); a constant's is 0. With a second operand, args[0]'s value
                // there computed anew (dag/neighbour_values.cpp), the difference is args[1] - args[0]
  Neighbour,    // FragmentDag only: args[0] (an interpolant) one pixel to the right (aux 0) or below
                // (aux 1), what a difference of a per-fragment value is recomputed from
                // (dag/neighbour_values.cpp); a constant's is the constant
  Loop,         // FragmentDag only, on a target with dynamic loops: a loop run as the hardware's
                // REP/BRK loop (dag::LoopBody, dag/flatten.cpp); args are the loop-carried values'
                // initial values, then the loop-invariant values its body reads; aux = which of
                // the body's results it is
  LoopValue,    // FragmentDag only, in a loop's body: aux = which input (a carried value, then
                // an invariant one)
  // Terminators.
  Br,           // targets[0]
  CondBr,       // args[0]; targets[0] if true, targets[1] if false
  Ret,          // args: the function's results (return value, then output parameters / globals)
};
const char* to_string(Op op);
bool is_terminator(Op op);
// Whether removing an unused instance changes nothing (everything except terminators).
inline bool is_pure(Op op) { return !is_terminator(op); }

// Tuple is the type of a Call with several results; it never reaches the user.
constexpr BaseType kTuple = BaseType::Void;

struct Instr {
  Op op = Op::Undef;
  BaseType type = BaseType::Float;
  Freq freq = Freq::Varying;
  std::uint32_t aux = 0;
  std::vector<ValueId> args;
  std::vector<BlockId> targets;
  std::vector<float> data;  // Const: the components
  std::string text;         // Const string value; ShaderParam name
  BlockId block = 0;
  lang::Span span;
  bool removed = false;
};

struct Block {
  std::vector<ValueId> instrs;  // phis first, one terminator last
  std::vector<BlockId> preds;
  bool removed = false;
};

struct Function {
  std::string name;
  bool is_shader = false;  // a shader (its kind below) rather than a user function
  lang::ShaderKind shader_kind = lang::ShaderKind::Surface;
  // A light shader compiled to the function `illuminance` and the light functions call (the RPU,
  // thesis §3.3): the light instance's label. Its arguments are Ps, then the globals its body
  // reads (as the surface received them); its results Cl, L and whether it lit Ps.
  std::string light;
  std::vector<lang::Global> light_globals;
  std::vector<BaseType> arg_types;
  std::vector<std::string> arg_names;
  std::vector<BaseType> result_types;    // what Ret carries
  std::vector<std::string> result_names; // "return", output parameter or global names
  std::vector<Instr> values;
  std::vector<Block> blocks;  // blocks[0] is the entry

  const Instr& at(ValueId v) const { return values.at(v); }
  Instr& at(ValueId v) { return values.at(v); }
  ValueId add(Instr instr);                           // appends to no block
  ValueId append(BlockId b, Instr instr);             // before nothing: at the end of b
  ValueId insert_front(BlockId b, Instr instr);       // after b's phis
  BlockId add_block();
  const Instr* terminator(BlockId b) const;
  std::vector<BlockId> successors(BlockId b) const;
  // Replaces every use of `from` by `to` (not constant time: scans the function).
  void replace_all_uses(ValueId from, ValueId to);
  // Removes one edge from -> to: the predecessor entry and the matching phi operands of `to`.
  // The terminator of `from` is left to the caller.
  void remove_edge(BlockId from, BlockId to);
  // Drops removed instructions from block lists and removed blocks' contents.
  void compact();
};

struct ShaderParamInfo {
  std::string name;
  lang::Type type;
  bool output = false;
  lang::Span span;
};

struct Module {
  lang::ShaderKind kind = lang::ShaderKind::Surface;
  std::string shader_name;
  std::vector<ShaderParamInfo> params;
  std::vector<Function> functions;  // functions[entry] is the shader
  std::size_t entry = 0;

  const Function& shader() const { return functions.at(entry); }
  Function& shader() { return functions.at(entry); }
};

}  // namespace passlab::ir
