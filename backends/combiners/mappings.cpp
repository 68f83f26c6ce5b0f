// SPDX-License-Identifier: GPL-3.0-or-later
// Names of the mappings, for listings, JSON and the timeline.
#include "backends/combiners/mappings.h"

namespace passlab::combiners {

const char* rc_prefix(InMap m) {
  switch (m) {
    case InMap::SignedIdentity: return "";
    case InMap::SignedNegate: return "-";
    case InMap::UnsignedIdentity: return "unsigned(";
    case InMap::UnsignedInvert: return "unsigned_invert(";
    case InMap::ExpandNormal: return "expand(";
    case InMap::ExpandNegate: return "-expand(";
    case InMap::HalfBiasNormal: return "half_bias(";
    case InMap::HalfBiasNegate: return "-half_bias(";
  }
  return "";
}

const char* rc_function(OutMap m) {
  switch (m) {
    case OutMap::None: return "";
    case OutMap::BiasHalf: return "bias_by_negative_one_half();";
    case OutMap::Scale2: return "scale_by_two();";
    case OutMap::BiasScale2: return "bias_by_negative_one_half_scale_by_two();";
    case OutMap::Scale4: return "scale_by_four();";
    case OutMap::ScaleHalf: return "scale_by_one_half();";
  }
  return "";
}

const char* gl_name(InMap m) {
  switch (m) {
    case InMap::SignedIdentity: return "SIGNED_IDENTITY_NV";
    case InMap::SignedNegate: return "SIGNED_NEGATE_NV";
    case InMap::UnsignedIdentity: return "UNSIGNED_IDENTITY_NV";
    case InMap::UnsignedInvert: return "UNSIGNED_INVERT_NV";
    case InMap::ExpandNormal: return "EXPAND_NORMAL_NV";
    case InMap::ExpandNegate: return "EXPAND_NEGATE_NV";
    case InMap::HalfBiasNormal: return "HALF_BIAS_NORMAL_NV";
    case InMap::HalfBiasNegate: return "HALF_BIAS_NEGATE_NV";
  }
  return "?";
}

const char* gl_name(OutMap m) {
  switch (m) {
    case OutMap::None: return "NONE";
    case OutMap::BiasHalf: return "BIAS_BY_NEGATIVE_ONE_HALF_NV";
    case OutMap::Scale2: return "SCALE_BY_TWO_NV";
    case OutMap::BiasScale2: return "BIAS_BY_NEGATIVE_ONE_HALF_NV+SCALE_BY_TWO_NV";
    case OutMap::Scale4: return "SCALE_BY_FOUR_NV";
    case OutMap::ScaleHalf: return "SCALE_BY_ONE_HALF_NV";
  }
  return "?";
}

const char* paper_name(InMap m) {
  switch (m) {
    case InMap::SignedIdentity: return "x";
    case InMap::SignedNegate: return "-x";
    case InMap::UnsignedIdentity: return "max(0,x)";
    case InMap::UnsignedInvert: return "1-x";
    case InMap::ExpandNormal: return "2(x-1/2)";
    case InMap::ExpandNegate: return "-2(x-1/2)";
    case InMap::HalfBiasNormal: return "max(0,x)-1/2";
    case InMap::HalfBiasNegate: return "1/2-max(0,x)";
  }
  return "?";
}

const char* paper_name(OutMap m) {
  switch (m) {
    case OutMap::None: return "x";
    case OutMap::BiasHalf: return "x-1/2";
    case OutMap::Scale2: return "2x";
    case OutMap::BiasScale2: return "2(x-1/2)";
    case OutMap::Scale4: return "4x";
    case OutMap::ScaleHalf: return "x/2";
  }
  return "?";
}

}  // namespace passlab::combiners
