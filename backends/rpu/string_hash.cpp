// SPDX-License-Identifier: GPL-3.0-or-later
// MD5 as RFC 1321 specifies it, and the program's string table.
#include "backends/rpu/string_hash.h"

#include <cmath>
#include <vector>

namespace passlab::rpu {

namespace {

inline std::uint32_t rotl(std::uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }

}  // namespace

std::array<std::uint8_t, 16> md5(std::string_view text) {
  // Per-round shift amounts and the sine-derived constants K[i] = floor(2^32 |sin(i + 1)|).
  static const int shift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9,  14, 20, 5, 9,
                                14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  static const std::array<std::uint32_t, 64> k = [] {
    std::array<std::uint32_t, 64> t{};
    for (int i = 0; i < 64; ++i) t[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
    return t;
  }();
  std::vector<std::uint8_t> msg(text.begin(), text.end());
  const std::uint64_t bits = static_cast<std::uint64_t>(text.size()) * 8;
  msg.push_back(0x80);
  while (msg.size() % 64 != 56) msg.push_back(0);
  for (int i = 0; i < 8; ++i) msg.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  std::uint32_t a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
  for (std::size_t chunk = 0; chunk < msg.size(); chunk += 64) {
    std::uint32_t m[16];
    for (int i = 0; i < 16; ++i) {
      const std::uint8_t* p = &msg[chunk + static_cast<std::size_t>(i) * 4];
      m[i] = static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) | (static_cast<std::uint32_t>(p[2]) << 16) |
             (static_cast<std::uint32_t>(p[3]) << 24);
    }
    std::uint32_t a = a0, b = b0, c = c0, d = d0;
    for (int i = 0; i < 64; ++i) {
      std::uint32_t f;
      int g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      f = f + a + k[static_cast<std::size_t>(i)] + m[g];
      a = d;
      d = c;
      c = b;
      b = b + rotl(f, shift[i]);
    }
    a0 += a;
    b0 += b;
    c0 += c;
    d0 += d;
  }
  std::array<std::uint8_t, 16> out{};
  const std::uint32_t words[4] = {a0, b0, c0, d0};
  for (int w = 0; w < 4; ++w)
    for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(w * 4 + i)] = static_cast<std::uint8_t>(words[w] >> (8 * i));
  return out;
}

float string_hash(std::string_view text, int bits) {
  const auto d = md5(text);
  const std::uint32_t first = (static_cast<std::uint32_t>(d[0]) << 24) | (static_cast<std::uint32_t>(d[1]) << 16) |
                              (static_cast<std::uint32_t>(d[2]) << 8) | d[3];
  return static_cast<float>(first >> (32 - bits));
}

float StringTable::intern(const std::string& text, const lang::Span& where, lang::DiagnosticSink& sink) {
  auto it = strings_.find(text);
  if (it != strings_.end()) return it->second;
  const float h = string_hash(text, bits_);
  strings_[text] = h;
  auto [other, fresh] = by_hash_.insert({h, {text, where}});
  if (!fresh)
    sink.report({lang::Severity::Warning, "rpu-string-collision",
                 "\"" + text + "\" and \"" + other->second.first + "\" have the same " + std::to_string(bits_) + "-bit hash, so they compare equal on the RPU",
                 where, {{other->second.second, "the other string"}}});
  return h;
}

}  // namespace passlab::rpu
