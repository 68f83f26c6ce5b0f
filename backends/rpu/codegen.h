// SPDX-License-Identifier: GPL-3.0-or-later
// Code generation (thesis ch. 7): each SSA IR function becomes a function of the compiler's
// assembly, with virtual registers, the thesis's ABI and late inlining of the standard library.
//
// ABI (thesis §7.1-7.2, Figure 7.1), and where Passlab extends it:
// - R0-R14 are two unrelated register sets, .xyz (vectors, colours, points) and .w (floats,
//   strings); R15 receives results nobody reads (comparisons, the ordinary half of _rcp/_rsq).
// - Arguments: vectors in R0.xyz, R1.xyz, ...; floats and strings in R0.w, R1.w, ..., numbered
//   separately. Results the same way, from R0: the return value first, then output parameters
//   (an extension: the thesis returns at most one value). Every register is caller-saved.
// - A surface shader is entered with the ray's origin in R0.xyz, its direction in R1.xyz and (an
//   extension, for `raylevel` and the depth limit) the ray's level in R0.w (0 for camera rays),
//   HIT/HIT_TRI/HIT_OBJ describing the hit; it returns Ci in R0.xyz and Oi in R1.xyz.
// - S.x-S.w hold _rcp/_rsq results, assigned round-robin. Comparisons are a subtraction into
//   R15 and a (>=0) or (=0) test. Strings are 24-bit MD5 hashes.
// - RSL `trace(P, R)` becomes a level check, an RPU `trace` and, on a hit, `call HIT.w` with the
//   ray in R0/R1; a miss sees the background colour C30.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/rpu/asm_ir.h"
#include "backends/rpu/string_hash.h"
#include "backends/rpu/texture_memory.h"
#include "core/ir/ir.h"
#include "core/ir/value.h"
#include "core/lang/diagnostic.h"

namespace passlab::rpu {

// The constants a program sets when it is loaded (`.const`), shared by all its functions: C2 to
// C29 (the scene's are C0, C1, C30 and C31, render.h).
class ConstantPool {
 public:
  static constexpr std::uint32_t kFirst = 2, kLast = 29;
  // The register that holds v, allocated on first use; nullopt when all are taken.
  std::optional<std::uint32_t> index(const Vec4& v);
  const std::map<std::uint32_t, Vec4>& values() const { return values_; }

 private:
  std::map<std::array<std::uint32_t, 4>, std::uint32_t> by_bits_;
  std::map<std::uint32_t, Vec4> values_;
};

struct Linkage {
  // The label of every function of every module: labels[module][function].
  std::vector<std::vector<std::string>> labels;
  // Standard-library functions that run as calls into the runtime library
  // (resources/rpu/runtime.sl): RSL name ("__rpu_pow") -> label.
  std::map<std::string, std::string> runtime;
  std::size_t runtime_module = static_cast<std::size_t>(-1);  // the runtime library's module, once compiled
  // Runtime parameters (ShaderParam "$<light>.<name>") -> the constant register holding them.
  std::map<std::string, Source> runtime_params;
  // Each module's named coordinate systems (its light setup's "spaces"): space -> current.
  std::vector<std::map<std::string, ir::Matrix>> spaces;
  // Light functions (ir::Function::light) that are a copy of one in an earlier module, as every
  // surface lit by a scene's lights has: (module, function). They share its label and are not
  // compiled again.
  std::set<std::pair<std::size_t, std::size_t>> copies;
  // The scene's texture images in data memory (null or absent names: the procedural stand-ins).
  const TextureMemory* textures = nullptr;
};

// Generates function `function` of `module` (module number `module_index` in `links`).
// Unsupported features (matrices computed at run time, derivatives, volume shaders) are
// diagnostics at their RSL line; then nullopt. Runtime functions it calls are added to
// `runtime_used`.
std::optional<AsmFunction> generate_function(const ir::Module& module, std::size_t module_index, std::size_t function,
                                             const Linkage& links, StringTable& strings, ConstantPool& constants,
                                             std::set<std::string>& runtime_used, lang::DiagnosticSink& sink);

// The register class of an IR type (nullopt: none, e.g. a matrix).
std::optional<RegClass> class_of(lang::BaseType t);

}  // namespace passlab::rpu
