// SPDX-License-Identifier: GPL-3.0-or-later
// Strings on the RPU (thesis §11.4): a string is the first 24 bits of its MD5 digest as a float,
// so equality is a subtraction and a (=0) test. Collisions in one program are warned about.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/lang/diagnostic.h"

namespace passlab::rpu {

// MD5 (RFC 1321) of `text`.
std::array<std::uint8_t, 16> md5(std::string_view text);
// The digest's first `bits` bits as an integer (big-endian), exact as a float of the machine:
// 24 bits (the thesis) in IEEE single precision, 17 on the RPU's 24-bit floats (16-bit
// mantissa), as the thesis says the width must follow the hardware's precision.
float string_hash(std::string_view text, int bits = 24);

// The strings of one program: each one's hash, with a warning when two different strings hash
// to the same value (the thesis: about 1% at 600 strings, 50% at 4,800).
class StringTable {
 public:
  explicit StringTable(int bits = 24) : bits_(bits) {}
  float intern(const std::string& text, const lang::Span& where, lang::DiagnosticSink& sink);
  const std::map<std::string, float>& strings() const { return strings_; }

 private:
  std::map<std::string, float> strings_;
  std::map<float, std::pair<std::string, lang::Span>> by_hash_;
  int bits_;
};

}  // namespace passlab::rpu
