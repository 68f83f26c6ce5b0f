// SPDX-License-Identifier: GPL-3.0-or-later
// Every error nlohmann's parser raises becomes a located message: a syntax error at its byte, a
// number too large for a double (an out_of_range error that carries only its token) at the token.
#include "core/lang/json_error.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace passlab::lang {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JsonError error_of(const std::string& text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    ADD_FAILURE() << "parsed: " << parsed.dump();
    return {};
  } catch (const nlohmann::json::exception& e) {
    return json_error(e, text);
  }
}

TEST(JsonError, SyntaxErrorIsAtItsLineAndColumn) {
  const JsonError e = error_of("{\n  \"a\": 1,\n  \"b\": ]\n}\n");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.column, 8);
  EXPECT_THAT(e.message, HasSubstr("syntax error"));
  EXPECT_THAT(e.message, Not(HasSubstr("json.exception")));
}

TEST(JsonError, NumberTooLargeForADoubleIsAtItsToken) {
  // "1e999" also stands inside strings before the number.
  const JsonError e = error_of("{\n  \"1e999\": \"a 1e999\",\n  \"x\": [0,\n     1e999]\n}\n");
  EXPECT_EQ(e.line, 4);
  EXPECT_EQ(e.column, 6);
  EXPECT_THAT(e.message, HasSubstr("too large for a double"));
  EXPECT_THAT(e.message, HasSubstr("1e999"));
  EXPECT_THAT(e.message, Not(HasSubstr("json.exception")));
}

TEST(JsonError, TruncatedTextIsAtItsEnd) {
  const std::string text = "{\"a\": [1, 2";
  const JsonError e = error_of(text);
  EXPECT_LE(e.offset, text.size());
  EXPECT_EQ(e.line, 1);
}

}  // namespace
}  // namespace passlab::lang
