// SPDX-License-Identifier: GPL-3.0-or-later
// A compiled register-combiner pass: texture units, where each pass input enters, the constant
// colours, the general combiner stages (each an RGB and an ALPHA portion) and the final combiner,
// exactly the state NV_register_combiners(2) and NV_texture_shader configure; plus what the
// compiler decided on the way (partial combiners, register lifetimes) for the timeline view.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "backends/combiners/hw_dag.h"

namespace passlab::combiners {

// What a combiner variable (A-D, or the final combiner's A-G) reads.
enum class Usage : std::uint8_t { Rgb, Alpha, Blue };  // RGB portion: Rgb, or Alpha (TRIPLE); ALPHA portion: Alpha or Blue

// The final combiner's E x F product (nvparse's final_product), which its A-D may read.
constexpr int kFinalProduct = -2;

struct Variable {
  int reg = -1;  // machine register index; -1: zero; kFinalProduct: E x F (final combiner only)
  Usage usage = Usage::Rgb;
  InMap map = InMap::SignedIdentity;
  friend bool operator==(const Variable&, const Variable&) = default;
};

// One portion (RGB or ALPHA) of a general combiner stage (NV_register_combiners §3.8.12.2).
struct Portion {
  Variable a, b, c, d;
  bool ab_dot = false, cd_dot = false;  // RGB only
  bool mux = false;                     // the third output selects by spare0.a instead of adding
  int ab_out = -1, cd_out = -1, sum_out = -1;  // registers written (-1: discarded)
  OutMap out = OutMap::None;
  bool used() const { return ab_out >= 0 || cd_out >= 0 || sum_out >= 0; }
};

struct Stage {
  Portion rgb, alpha;
  // Per-stage constants (GeForce3); unused ones stay empty.
  std::optional<std::array<float, 4>> c0, c1;
};

// out.rgb = min(A B + (1 - A) C + D, 1), out.a = G; E x F is the product A-D may read.
struct FinalCombiner {
  Variable a, b, c, d, e, f, g;
  bool e_times_f_used = false;
  bool arithmetic = false;  // A, B and C compute something (else out.rgb = D, as in the paper)
};

// The kinds of partial combiner (§5): what stage 3 forms and stage 5 places.
// FinalProduct is the final combiner's E x F (its a and b), which FinalRgb's variables read.
enum class PcKind : std::uint8_t { FullRgb, HalfRgb, FullAlpha, HalfAlpha, FinalRgb, FinalAlpha, FinalProduct };
const char* to_string(PcKind k);
inline bool is_full(PcKind k) { return k == PcKind::FullRgb || k == PcKind::FullAlpha; }
inline bool is_final(PcKind k) { return k == PcKind::FinalRgb || k == PcKind::FinalAlpha || k == PcKind::FinalProduct; }
inline Part part_of(PcKind k) {
  return k == PcKind::FullRgb || k == PcKind::HalfRgb || k == PcKind::FinalRgb || k == PcKind::FinalProduct ? Part::Rgb : Part::Alpha;
}

// A variable of a partial combiner before registers exist: the value it reads and how.
struct Operand {
  HId value = kNoH;  // kNoH: zero (a pass-through slot)
  Usage usage = Usage::Rgb;
  InMap map = InMap::SignedIdentity;
};

// A partial combiner (stage 3): one FULL or HALF portion, or a final combiner part.
struct PartialCombiner {
  PcKind kind = PcKind::HalfRgb;
  OutMap out = OutMap::None;
  Operand a, b, c, d;            // HALF and FINAL PRODUCT use a and b; FINAL RGB reads d (and a, b, c
                                 // when combine_node is set: its arithmetic, A B + (1 - A) C + D)
  bool ab_dot = false, cd_dot = false, mux = false;
  HId ab_value = kNoH, cd_value = kNoH, sum_value = kNoH;  // values written (HALF: ab_value)
  HId control = kNoH;            // MUX: the value that must be in spare0.a
  HId ab_node = kNoH, cd_node = kNoH, combine_node = kNoH;  // the DOT/MUL and ADD/MUX nodes it absorbed (views)
  std::vector<HId> covered;      // hardware nodes computed inside it
  std::vector<dag::NodeId> origin;  // FragmentDag nodes those came from (sorted, distinct)
  int priority = 0;
  // Stage 5.
  int stage = -1;                // general combiner stage (-1: final)
  int half = 0;                  // HALF: which half of the portion (0: AB, 1: CD)
};

// Where a value lives from the stage after it is written to its last read.
struct Lifetime {
  HId value = kNoH;
  int reg = -1;
  Part part = Part::Rgb;
  int first = 0, last = 0;  // stages: written at the end of `first - 1` (inputs: -1), last read in `last`
  bool input = false;
};

struct Program {
  std::string machine;
  std::vector<TextureUnit> units;
  std::vector<PassInput> inputs;
  std::array<float, 4> c0{}, c1{}, fog{};  // global constant colours (GeForce1's C0/C1; the final combiner's)
  std::vector<Stage> stages;
  FinalCombiner final;
  bool writes_intermediate = false;  // a non-final pass: the framebuffer receives the saved value
  Encoding encoding = Encoding::Unsigned;  // how that value is stored
  bool saved_scalar = false;               // it is a scalar (in all four channels)
  // For views and tests.
  std::vector<PartialCombiner> combiners;
  std::vector<Lifetime> lifetimes;
  HDag hdag;
};

}  // namespace passlab::combiners
