// SPDX-License-Identifier: GPL-3.0-or-later
// The register-combiner machine as data (resources/targets/geforce1.json, geforce3.json): general
// stages, texture units, how constants are given, the register set with the parts each one
// accepts per pass-input class, and the allocation rules of each class.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/lang/diagnostics.h"
#include "core/partition/target.h"

namespace passlab::combiners {

// A register has an RGB part and an ALPHA part (Mark & Proudfoot §6).
enum class Part : std::uint8_t { Rgb = 0, Alpha = 1 };
constexpr std::uint8_t kRgbBit = 1, kAlphaBit = 2;
const char* to_string(Part p);

// The paper's four classes of pass inputs.
enum class InputClass : std::uint8_t { Interpolant, Texture, Constant, PrimitiveGroup };
constexpr int kInputClasses = 4;
const char* to_string(InputClass c);

// What pass-input allocation may do with a value of a class. The paper names five manipulations
// and gives two (SPLIT, JOIN); the text breaks off there. Passlab's completion, each a property
// of the hardware the extension specifications describe:
//   split  an RGBA value's RGB and ALPHA may go to different registers
//   join   an unrelated RGB value and ALPHA value may share one register
//   blue   a scalar may ride in the blue of an RGB part (ALPHA combiners read it as BLUE)
//   bias   a signed value may be stored as (x + 1) / 2 where the register only holds [0, 1]
//          (interpolated colours, constant colours) and read back with expand()
//   reuse  once the value is dead, its register may hold temporaries
struct ClassRules {
  bool split = false, join = false, blue = false, bias = false, reuse = false;
};

struct RegisterDesc {
  std::string name;     // Passlab's and the paper's name: "V0", "T1", "S0", "C0"
  std::string rc;       // nvparse's: "col0", "tex1", "spare0", "const0"
  std::uint8_t parts = kRgbBit | kAlphaBit;  // the parts the register has
  bool writable = false;                     // combiners may write it (NV_register_combiners Table 1)
  std::array<std::uint8_t, kInputClasses> accepts{};  // per class: the parts a pass input of it may take
  int texture_unit = -1;                              // Tn holds unit n's result
  bool zero = false;                                  // the read-only zero register
};

struct Machine {
  std::string name;
  int general_stages = 2;
  int texture_units = 2;
  bool per_stage_constants = false;  // NV_register_combiners2: C0/C1 differ per stage (the paper's L0/L1)
  bool texture_shaders = false;      // NV_texture_shader
  bool texture_3d = false;           // 3D textures (the noise lattice) can be looked up
  int precision_bits = 9;            // the registers' signed fixed point (NV10/NV20: 9 bits with sign)
  std::vector<RegisterDesc> registers;
  std::array<ClassRules, kInputClasses> rules{};

  int find(const std::string& name) const;  // index into registers, -1 if none
  int find_rc(const std::string& rc) const;  // by nvparse name ("spare0"): the hardware register
  int zero_register() const;
  int texture_register(int unit) const;
  std::vector<int> constant_registers() const;  // those accepting the constant class, in table order
};

// The machine of a combiner target (its "combiners" object); nullopt when it is malformed, with a
// diagnostic naming the key (at its place in the target file when *diagnostics holds the file, as
// after load_target).
std::optional<Machine> parse_machine(const partition::TargetDesc& target, lang::Diagnostics* diagnostics);

}  // namespace passlab::combiners
