// SPDX-License-Identifier: GPL-3.0-or-later
// Unit tests of the RSL lexer: numbers, strings, operators, comments, flags, spans, diagnostics.
#include "core/lang/lexer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace passlab::lang {
namespace {

class LexerTest : public ::testing::Test {
 protected:
  const std::vector<Token>& run(std::string text) {
    file_ = sm_.add("test.sl", std::move(text));
    toks_ = lex(sm_, file_, diags_);
    return toks_;
  }
  std::vector<Tok> kinds() const {
    std::vector<Tok> out;
    for (const Token& t : toks_) out.push_back(t.kind);
    return out;
  }
  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (const Token& t : toks_)
      if (!t.is(Tok::Eof)) out.push_back(t.text);
    return out;
  }

  SourceManager sm_;
  DiagnosticList diags_;
  FileId file_ = 0;
  std::vector<Token> toks_;
};

TEST_F(LexerTest, EmptyInputIsJustEof) {
  run("");
  ASSERT_EQ(toks_.size(), 1u);
  EXPECT_TRUE(toks_[0].is(Tok::Eof));
  EXPECT_EQ(toks_[0].span.file, file_);
  EXPECT_FALSE(diags_.has_errors());
}

TEST_F(LexerTest, NumbersInEveryForm) {
  run("1 42 3.25 .5 2. 2.f 1e-3 1E+4 6e2 0.5f 7F");
  EXPECT_FALSE(diags_.has_errors());
  std::vector<double> want = {1, 42, 3.25, 0.5, 2, 2, 1e-3, 1e4, 600, 0.5, 7};
  ASSERT_EQ(toks_.size(), want.size() + 1);
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(toks_[i].is(Tok::Number)) << i;
    EXPECT_DOUBLE_EQ(toks_[i].number, want[i]) << toks_[i].text;
  }
  EXPECT_EQ(texts(),
            (std::vector<std::string>{"1", "42", "3.25", ".5", "2.", "2.f", "1e-3", "1E+4", "6e2", "0.5f", "7F"}));
}

TEST_F(LexerTest, ExponentWithoutDigitsIsNotPartOfTheNumber) {
  run("1e+x");  // `1`, then `e`... would be a suffix: reported, not silently eaten
  EXPECT_TRUE(toks_[0].is(Tok::Number));
  EXPECT_TRUE(diags_.has_errors());
  EXPECT_EQ(diags_.items()[0].code, "bad-number");
}

TEST_F(LexerTest, DotNotFollowedByDigitIsAnOperator) {
  run("P.x .5");
  EXPECT_EQ(kinds(), (std::vector<Tok>{Tok::Identifier, Tok::Dot, Tok::Identifier, Tok::Number, Tok::Eof}));
}

TEST_F(LexerTest, NumberWithLetterSuffixIsReported) {
  run("\n  12abc");
  ASSERT_EQ(diags_.items().size(), 1u);
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.code, "bad-number");
  EXPECT_EQ(d.span.line, 2u);
  EXPECT_EQ(d.span.col, 3u);
  EXPECT_EQ(d.span.length, 5u);
}

TEST_F(LexerTest, StringsDecodeEscapes) {
  run(R"("plain" "a\"b" "tab\there" "nl\n" "back\\slash" "other\q" "")");
  EXPECT_FALSE(diags_.has_errors());
  EXPECT_EQ(texts(), (std::vector<std::string>{"plain", "a\"b", "tab\there", "nl\n", "back\\slash", "otherq", ""}));
  for (std::size_t i = 0; i + 1 < toks_.size(); ++i) EXPECT_TRUE(toks_[i].is(Tok::String));
  EXPECT_EQ(toks_[1].span.length, 6u);  // the span covers the quotes and the escape as written
}

TEST_F(LexerTest, StringContinuedOverBackslashNewline) {
  run("\"ab\\\ncd\" x");
  EXPECT_FALSE(diags_.has_errors());
  EXPECT_EQ(toks_[0].text, "abcd");
  EXPECT_EQ(toks_[1].span.line, 2u);
}

TEST_F(LexerTest, EveryOperator) {
  run("( ) { } [ ] , ; : ? . ^ + - * / % ! ~ & | < > <= >= == != && || = += -= *= /= ++ -- # ##");
  EXPECT_FALSE(diags_.has_errors());
  EXPECT_EQ(kinds(), (std::vector<Tok>{
                         Tok::LParen, Tok::RParen, Tok::LBrace, Tok::RBrace, Tok::LBracket, Tok::RBracket,
                         Tok::Comma, Tok::Semicolon, Tok::Colon, Tok::Question, Tok::Dot, Tok::Caret,
                         Tok::Plus, Tok::Minus, Tok::Star, Tok::Slash, Tok::Percent, Tok::Bang, Tok::Tilde,
                         Tok::Amp, Tok::Pipe, Tok::Less, Tok::Greater, Tok::LessEq, Tok::GreaterEq, Tok::EqEq,
                         Tok::NotEq, Tok::AndAnd, Tok::OrOr, Tok::Assign, Tok::PlusAssign, Tok::MinusAssign,
                         Tok::StarAssign, Tok::SlashAssign, Tok::PlusPlus, Tok::MinusMinus, Tok::Hash,
                         Tok::HashHash, Tok::Eof}));
  for (const Token& t : toks_) {
    if (!t.is(Tok::Eof)) {
      EXPECT_EQ(t.text, spelling(t.kind));
    }
  }
}

TEST_F(LexerTest, OperatorsWithoutSpacesTakeTheLongestMatch) {
  run("a+++b--c+=-1<=>=!==");
  EXPECT_EQ(texts(), (std::vector<std::string>{"a", "++", "+", "b", "--", "c", "+=", "-", "1", "<=", ">=", "!=", "="}));
}

TEST_F(LexerTest, KeywordsAreIdentifiers) {
  run("surface float uniform _x1 x_2");
  for (std::size_t i = 0; i + 1 < toks_.size(); ++i) EXPECT_TRUE(toks_[i].is(Tok::Identifier));
  EXPECT_TRUE(is_keyword("float"));
  EXPECT_TRUE(is_keyword("illuminance"));
  EXPECT_FALSE(is_keyword("surface")) << "shader kinds are keywords only where a definition starts";
  EXPECT_FALSE(is_keyword("light"));
  EXPECT_FALSE(is_keyword("texture"));
  EXPECT_FALSE(is_keyword("_x1"));
}

TEST_F(LexerTest, CommentsAreSkippedAndCountAsSpace) {
  run("a// line comment\nb/* block\n comment */c/**/d");
  EXPECT_FALSE(diags_.has_errors());
  EXPECT_EQ(texts(), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(toks_[2].leading_space);
  EXPECT_EQ(toks_[2].span.line, 3u);
  EXPECT_EQ(toks_[2].span.col, 12u);
  EXPECT_FALSE(toks_[2].at_line_start);  // the newline was inside the comment, but c follows code on line 3
}

TEST_F(LexerTest, LineContinuationJoinsLines) {
  run("#define X \\\n  1\nY");
  EXPECT_EQ(texts(), (std::vector<std::string>{"#", "define", "X", "1", "Y"}));
  EXPECT_TRUE(toks_[0].at_line_start);
  EXPECT_FALSE(toks_[3].at_line_start);  // still the #define's logical line
  EXPECT_EQ(toks_[3].span.line, 2u);
  EXPECT_TRUE(toks_[4].at_line_start);
}

TEST_F(LexerTest, ContinuationWithCrLf) {
  run("a \\\r\n b\r\nc");
  EXPECT_EQ(texts(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(toks_[1].at_line_start);
  EXPECT_TRUE(toks_[2].at_line_start);
  EXPECT_EQ(toks_[2].span.line, 3u);
  EXPECT_EQ(toks_[2].span.col, 1u);
}

TEST_F(LexerTest, AtLineStartAndLeadingSpace) {
  run("a b\n  c(d)\n\n#e");
  ASSERT_EQ(toks_.size(), 9u);
  EXPECT_TRUE(toks_[0].at_line_start);
  EXPECT_FALSE(toks_[0].leading_space);
  EXPECT_FALSE(toks_[1].at_line_start);
  EXPECT_TRUE(toks_[1].leading_space);
  EXPECT_TRUE(toks_[2].at_line_start);   // c
  EXPECT_FALSE(toks_[3].leading_space);  // ( touches c: function-like macro definitions need that
  EXPECT_FALSE(toks_[3].at_line_start);
  EXPECT_TRUE(toks_[6].at_line_start);   // #
  EXPECT_FALSE(toks_[7].at_line_start);  // e
}

TEST_F(LexerTest, SpansHaveLineColumnOffsetAndLength) {
  run("float x;\n  color Cs = 1.5;");
  const Token& cs = toks_[4];
  EXPECT_EQ(cs.text, "Cs");
  EXPECT_EQ(cs.span.file, file_);
  EXPECT_EQ(cs.span.line, 2u);
  EXPECT_EQ(cs.span.col, 9u);
  EXPECT_EQ(cs.span.offset, 17u);
  EXPECT_EQ(cs.span.length, 2u);
  const Token& num = toks_[6];
  EXPECT_EQ(num.span.col, 14u);
  EXPECT_EQ(num.span.length, 3u);
  const Token& eof = toks_.back();
  EXPECT_TRUE(eof.is(Tok::Eof));
  EXPECT_EQ(eof.span.line, 2u);
  EXPECT_EQ(eof.span.col, 18u);
}

TEST_F(LexerTest, TabsCountAsOneColumn) {
  run("\tx");
  EXPECT_EQ(toks_[0].span.col, 2u);
}

TEST_F(LexerTest, UnknownCharacterIsReportedWithItsPosition) {
  run("a\n  b @ c");
  ASSERT_EQ(diags_.items().size(), 1u);
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.code, "unknown-character");
  EXPECT_EQ(d.span.line, 2u);
  EXPECT_EQ(d.span.col, 5u);
  EXPECT_NE(d.message.find("'@'"), std::string::npos);
  EXPECT_EQ(kinds(), (std::vector<Tok>{Tok::Identifier, Tok::Identifier, Tok::Unknown, Tok::Identifier, Tok::Eof}));
}

TEST_F(LexerTest, MultiByteCharacterGivesOneDiagnostic) {
  run("x \xc3\xa9 y");  // é in UTF-8
  ASSERT_EQ(diags_.items().size(), 1u);
  EXPECT_EQ(diags_.items()[0].code, "unknown-character");
  EXPECT_NE(diags_.items()[0].message.find("0xc3"), std::string::npos);
  EXPECT_EQ(texts().size(), 3u);
}

TEST_F(LexerTest, UnterminatedStringStopsAtEndOfLine) {
  run("x = \"abc\ny");
  ASSERT_EQ(diags_.items().size(), 1u);
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.code, "unterminated-string");
  EXPECT_EQ(d.span.line, 1u);
  EXPECT_EQ(d.span.col, 5u);
  EXPECT_EQ(texts(), (std::vector<std::string>{"x", "=", "abc", "y"}));
  EXPECT_TRUE(toks_[3].at_line_start);
}

TEST_F(LexerTest, UnterminatedStringAtEndOfFile) {
  run("\"abc\\");
  ASSERT_EQ(diags_.items().size(), 1u);
  EXPECT_EQ(diags_.items()[0].code, "unterminated-string");
}

TEST_F(LexerTest, UnterminatedCommentPointsAtItsStart) {
  run("a\n b /* never\nclosed");
  ASSERT_EQ(diags_.items().size(), 1u);
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.code, "unterminated-comment");
  EXPECT_EQ(d.span.line, 2u);
  EXPECT_EQ(d.span.col, 4u);
  EXPECT_EQ(texts(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(LexerTest, ArbitraryBytesNeverCrash) {
  std::string text;
  unsigned state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1103515245u + 12345u;
    text += static_cast<char>((state >> 16) & 0xff);
  }
  run(text);
  ASSERT_FALSE(toks_.empty());
  EXPECT_TRUE(toks_.back().is(Tok::Eof));
  for (const Token& t : toks_) EXPECT_LE(t.span.offset + t.span.length, text.size());
}

}  // namespace
}  // namespace passlab::lang
