// SPDX-License-Identifier: GPL-3.0-or-later
// RSL types: the base type and the uniform/varying detail.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace passlab::lang {

enum class BaseType : std::uint8_t {
  Error,  // a type that failed to check; suppresses follow-on diagnostics
  Void,
  Bool,   // result of relations and logic; not nameable in RSL source
  Float,
  Color,
  Point,
  Vector,
  Normal,
  Matrix,
  String,
};

enum class Detail : std::uint8_t { Unspecified, Uniform, Varying };

struct Type {
  BaseType base = BaseType::Error;
  Detail detail = Detail::Unspecified;
  int array = 0;  // 0: a single value; n > 0: an array of n; kAnyLength: a parameter `float a[]`

  static constexpr int kAnyLength = -1;
  // The elements a resizable array (a local `float a[];`) can hold: its storage, of which
  // arraylength() says how many are in use.
  static constexpr int kResizableCapacity = 64;
  bool is_array() const { return array != 0; }
  friend bool operator==(const Type&, const Type&) = default;
};

const char* to_string(BaseType b);
const char* to_string(Detail d);
std::string to_string(const Type& t);  // "varying color"

// point, vector and normal: interchangeable triples that obey space transforms.
inline bool is_pointlike(BaseType b) {
  return b == BaseType::Point || b == BaseType::Vector || b == BaseType::Normal;
}
inline bool is_triple(BaseType b) { return b == BaseType::Color || is_pointlike(b); }
inline bool is_numeric(BaseType b) { return b == BaseType::Float || is_triple(b) || b == BaseType::Matrix; }
// Number of floats a value of this type holds.
int component_count(BaseType b);

// Type names of RSL source ("float", ...) to BaseType; returns Error if not a type name.
BaseType base_type_from_name(std::string_view name);

// Whether a value of type `from` may be used where `to` is expected without a cast
// (float promotes to any numeric type; point-like types convert among themselves).
bool is_assignable(BaseType to, BaseType from);

inline Detail join(Detail a, Detail b) {
  return (a == Detail::Varying || b == Detail::Varying) ? Detail::Varying : Detail::Uniform;
}

}  // namespace passlab::lang
