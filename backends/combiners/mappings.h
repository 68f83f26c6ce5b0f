// SPDX-License-Identifier: GPL-3.0-or-later
// The register combiners' input mappings (NV_register_combiners Table 4) and output scale/bias
// settings, their arithmetic, and their names in nvparse's !!RC1.0 and in the paper's Table 1.
#pragma once

#include <algorithm>
#include <cstdint>

namespace passlab::combiners {

enum class InMap : std::uint8_t {
  SignedIdentity,    // x
  SignedNegate,      // -x
  UnsignedIdentity,  // max(0, x)
  UnsignedInvert,    // 1 - clamp(x, 0, 1)
  ExpandNormal,      // 2 max(0, x) - 1
  ExpandNegate,      // -2 max(0, x) + 1
  HalfBiasNormal,    // max(0, x) - 1/2
  HalfBiasNegate,    // -max(0, x) + 1/2
};
constexpr int kInMaps = 8;

// Output scale and bias, shared by the three outputs of a portion (the paper's OUTMAP).
enum class OutMap : std::uint8_t {
  None,            // x
  BiasHalf,        // x - 1/2
  Scale2,          // 2x
  BiasScale2,      // 2 (x - 1/2)
  Scale4,          // 4x
  ScaleHalf,       // x / 2
};
constexpr int kOutMaps = 6;

inline float apply(InMap m, float x) {
  switch (m) {
    case InMap::SignedIdentity: return x;
    case InMap::SignedNegate: return -x;
    case InMap::UnsignedIdentity: return std::max(0.0f, x);
    case InMap::UnsignedInvert: return 1.0f - std::clamp(x, 0.0f, 1.0f);
    case InMap::ExpandNormal: return 2.0f * std::max(0.0f, x) - 1.0f;
    case InMap::ExpandNegate: return -2.0f * std::max(0.0f, x) + 1.0f;
    case InMap::HalfBiasNormal: return std::max(0.0f, x) - 0.5f;
    case InMap::HalfBiasNegate: return -std::max(0.0f, x) + 0.5f;
  }
  return x;
}

// The portion's output: (x + bias) * scale, clamped to [-1, 1].
inline float apply(OutMap m, float x) {
  float y = x;
  switch (m) {
    case OutMap::None: break;
    case OutMap::BiasHalf: y = x - 0.5f; break;
    case OutMap::Scale2: y = 2.0f * x; break;
    case OutMap::BiasScale2: y = 2.0f * (x - 0.5f); break;
    case OutMap::Scale4: y = 4.0f * x; break;
    case OutMap::ScaleHalf: y = 0.5f * x; break;
  }
  return std::clamp(y, -1.0f, 1.0f);
}

// Whether the input mapping computes its formula exactly for x in [lo, hi] (the clamps inside
// it change nothing there).
inline bool exact_on(InMap m, float lo, float hi) {
  switch (m) {
    case InMap::SignedIdentity:
    case InMap::SignedNegate: return true;
    case InMap::UnsignedInvert: return lo >= 0.0f && hi <= 1.0f;
    default: return lo >= 0.0f;
  }
}

// The mapping that reads what `inner` delivers through `outer` too, if one exists (e.g. -x of
// expand(x) is expand_negate(x)).
inline bool compose(InMap outer, InMap inner, InMap* out) {
  if (outer == InMap::SignedIdentity) return *out = inner, true;
  if (inner == InMap::SignedIdentity) return *out = outer, true;
  if (outer != InMap::SignedNegate) return false;
  switch (inner) {
    case InMap::SignedNegate: *out = InMap::SignedIdentity; return true;
    case InMap::ExpandNormal: *out = InMap::ExpandNegate; return true;
    case InMap::ExpandNegate: *out = InMap::ExpandNormal; return true;
    case InMap::HalfBiasNormal: *out = InMap::HalfBiasNegate; return true;
    case InMap::HalfBiasNegate: *out = InMap::HalfBiasNormal; return true;
    default: return false;
  }
}

// nvparse's spelling of a mapped register: "expand(tex0.rgb)", "-col0.a", ...
const char* rc_prefix(InMap m);   // "", "-", "unsigned(", "unsigned_invert(", "expand(", "-expand(", "half_bias(", "-half_bias("
const char* rc_function(OutMap m);  // "", "bias_by_negative_one_half();", "scale_by_two();", ...
const char* gl_name(InMap m);       // "SIGNED_IDENTITY_NV", ...
const char* gl_name(OutMap m);      // "NONE", "BIAS_BY_NEGATIVE_ONE_HALF_NV", ...
const char* paper_name(InMap m);    // "x", "-x", "max(0,x)", "1-x", "2(x-1/2)", ...
const char* paper_name(OutMap m);   // "x", "x-1/2", "2x", "2(x-1/2)", "4x", "x/2"

}  // namespace passlab::combiners
