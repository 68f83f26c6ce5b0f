// SPDX-License-Identifier: GPL-3.0-or-later
// RSL types: the base type and the uniform/varying detail.
#include "core/lang/types.h"

namespace passlab::lang {

const char* to_string(BaseType b) {
  switch (b) {
    case BaseType::Error: return "<error>";
    case BaseType::Void: return "void";
    case BaseType::Bool: return "bool";
    case BaseType::Float: return "float";
    case BaseType::Color: return "color";
    case BaseType::Point: return "point";
    case BaseType::Vector: return "vector";
    case BaseType::Normal: return "normal";
    case BaseType::Matrix: return "matrix";
    case BaseType::String: return "string";
  }
  return "?";
}

const char* to_string(Detail d) {
  switch (d) {
    case Detail::Unspecified: return "";
    case Detail::Uniform: return "uniform";
    case Detail::Varying: return "varying";
  }
  return "";
}

std::string to_string(const Type& t) {
  std::string s = to_string(t.detail);
  if (!s.empty()) s += ' ';
  s += to_string(t.base);
  if (t.array > 0) s += "[" + std::to_string(t.array) + "]";
  else if (t.array == Type::kAnyLength) s += "[]";
  return s;
}

int component_count(BaseType b) {
  switch (b) {
    case BaseType::Bool:
    case BaseType::Float: return 1;
    case BaseType::Color:
    case BaseType::Point:
    case BaseType::Vector:
    case BaseType::Normal: return 3;
    case BaseType::Matrix: return 16;
    default: return 0;
  }
}

BaseType base_type_from_name(std::string_view n) {
  if (n == "float") return BaseType::Float;
  if (n == "color") return BaseType::Color;
  if (n == "point") return BaseType::Point;
  if (n == "vector") return BaseType::Vector;
  if (n == "normal") return BaseType::Normal;
  if (n == "matrix") return BaseType::Matrix;
  if (n == "string") return BaseType::String;
  if (n == "void") return BaseType::Void;
  return BaseType::Error;
}

bool is_assignable(BaseType to, BaseType from) {
  if (to == BaseType::Error || from == BaseType::Error) return true;
  if (to == from) return true;
  if (from == BaseType::Float && is_numeric(to)) return true;
  if (is_pointlike(to) && is_pointlike(from)) return true;
  return false;
}

}  // namespace passlab::lang
