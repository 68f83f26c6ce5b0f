// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of the preprocessor: macros, conditionals, includes, #line, diagnostics, hostile inputs.
#include "core/lang/preprocessor.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/lang/lexer.h"

namespace passlab::lang {
namespace {

namespace fs = std::filesystem;

class PreprocessorTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }

  const std::vector<Token>& run(std::string text, const PreprocessOptions& options = {}) {
    return run_file(sm_.add(path_, std::move(text)), options);
  }
  const std::vector<Token>& run_file(FileId file, const PreprocessOptions& options = {}) {
    main_ = file;
    toks_ = preprocess(sm_, main_, options, diags_);
    return toks_;
  }

  // The output as text, one space between tokens; strings are shown quoted.
  std::string out() const {
    std::string s;
    for (const Token& t : toks_) {
      if (t.is(Tok::Eof)) break;
      if (!s.empty()) s += ' ';
      s += t.is(Tok::String) ? "\"" + t.text + "\"" : t.text;
    }
    return s;
  }
  // `text` lexed and joined the same way, so expectations can be written with any spacing.
  std::string norm(const std::string& text) {
    SourceManager sm;
    DiagnosticList ignored;
    std::string s;
    for (const Token& t : lex(sm, sm.add("expected", text), ignored)) {
      if (t.is(Tok::Eof)) break;
      if (!s.empty()) s += ' ';
      s += t.is(Tok::String) ? "\"" + t.text + "\"" : t.text;
    }
    return s;
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> c;
    for (const Diagnostic& d : diags_.items()) c.push_back(d.code);
    return c;
  }
  const Diagnostic* find(const std::string& code) const {
    for (const Diagnostic& d : diags_.items())
      if (d.code == code) return &d;
    return nullptr;
  }
  const Token& tok(const std::string& text, int nth = 0) const {
    for (const Token& t : toks_)
      if (t.text == text && nth-- == 0) return t;
    static const Token none;
    ADD_FAILURE() << "no token '" << text << "'";
    return none;
  }

  // A fresh folder for include tests, removed afterwards.
  fs::path dir() {
    if (dir_.empty()) {
      static std::atomic<int> counter{0};
      const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
      dir_ = fs::temp_directory_path() /
             ("passlab_pp_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + info->name());
      fs::create_directories(dir_);
    }
    return dir_;
  }
  fs::path write(const std::string& rel, const std::string& text) {
    fs::path p = dir() / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  const std::vector<Token>& run_disk(const std::string& text, const PreprocessOptions& options = {}) {
    fs::path p = write("main.sl", text);
    std::string error;
    auto id = sm_.load(p.string(), &error);
    EXPECT_TRUE(id) << error;
    return run_file(*id, options);
  }
  std::string file_of(const Span& s) const { return fs::path(sm_.file(s.file).path).filename().string(); }
  std::string file_of(const Token& t) const { return file_of(t.span); }

  std::string path_ = "main.sl";
  SourceManager sm_;
  DiagnosticList diags_;
  FileId main_ = 0;
  std::vector<Token> toks_;
  fs::path dir_;
};

#define EXPECT_AT(diag, l, c)          \
  do {                                 \
    ASSERT_NE((diag), nullptr);        \
    EXPECT_EQ((diag)->span.line, (l)); \
    EXPECT_EQ((diag)->span.col, (c));  \
  } while (0)

// ---- plain text ---------------------------------------------------------------------------------

TEST_F(PreprocessorTest, PlainTokensPassThroughWithTheirSpans) {
  run("surface s()\n{\n  Ci = Cs;\n}\n");
  EXPECT_EQ(out(), "surface s ( ) { Ci = Cs ; }");
  EXPECT_TRUE(diags_.items().empty());
  const Token& cs = tok("Cs");
  EXPECT_EQ(cs.span.file, main_);
  EXPECT_EQ(cs.span.line, 3u);
  EXPECT_EQ(cs.span.col, 8u);
  EXPECT_FALSE(cs.macro_definition.valid());
  EXPECT_TRUE(toks_.back().is(Tok::Eof));
  EXPECT_EQ(toks_.back().span.file, main_);
}

TEST_F(PreprocessorTest, EmptyInput) {
  run("");
  ASSERT_EQ(toks_.size(), 1u);
  EXPECT_TRUE(toks_[0].is(Tok::Eof));
}

TEST_F(PreprocessorTest, NullDirectiveAndPragmaAreIgnored) {
  run("#\n# \n#pragma whatever you like\na\n");
  EXPECT_EQ(out(), "a");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, DirectivesAreRecognizedOnlyAtLineStart) {
  run("a # define X 1\nX\n");
  EXPECT_EQ(out(), "a # define X 1 X");
}

TEST_F(PreprocessorTest, MacroOutputIsNeverADirective) {
  run("#define EMPTY\n#define HASH #\nEMPTY # define X 1\nHASH define Y 2\nX Y\n");
  EXPECT_EQ(out(), "# define X 1 # define Y 2 X Y");
  EXPECT_TRUE(diags_.items().empty());
}

// ---- object-like macros -------------------------------------------------------------------------

TEST_F(PreprocessorTest, ObjectMacroSpansPointAtUseAndDefinition) {
  run("#define GAIN  (2 * Kd)\n\nfloat g = GAIN;\n");
  EXPECT_EQ(out(), "float g = ( 2 * Kd ) ;");
  const Token& two = tok("2");
  EXPECT_EQ(two.span.line, 3u);  // where GAIN is used
  EXPECT_EQ(two.span.col, 11u);
  EXPECT_EQ(two.span.length, 4u);
  EXPECT_EQ(two.macro_definition.line, 1u);  // where 2 is written in the #define
  EXPECT_EQ(two.macro_definition.col, 16u);
  EXPECT_EQ(tok("Kd").macro_definition.col, 20u);
  EXPECT_TRUE(tok("(").leading_space);  // takes the use site's spacing
  EXPECT_FALSE(tok(";").macro_definition.valid());
}

TEST_F(PreprocessorTest, NestedMacrosKeepTheOutermostUseSite) {
  run("#define INNER 7\n#define OUTER INNER + 1\nx = OUTER;\n");
  EXPECT_EQ(out(), "x = 7 + 1 ;");
  const Token& seven = tok("7");
  EXPECT_EQ(seven.span.line, 3u);
  EXPECT_EQ(seven.span.col, 5u);
  EXPECT_EQ(seven.macro_definition.line, 1u);  // the innermost definition
  EXPECT_EQ(seven.macro_definition.col, 15u);
  EXPECT_EQ(tok("+").macro_definition.line, 2u);
}

TEST_F(PreprocessorTest, EmptyMacroVanishes) {
  run("#define NOTHING\na NOTHING b\n");
  EXPECT_EQ(out(), "a b");
}

TEST_F(PreprocessorTest, FirstExpandedTokenKeepsAtLineStart) {
  run("#define AB a b\nAB\n");
  EXPECT_TRUE(tok("a").at_line_start);
  EXPECT_FALSE(tok("b").at_line_start);
}

TEST_F(PreprocessorTest, PredefinedPasslabButNotPi) {
  run("__PASSLAB__ PI\n#ifdef PI\nbad\n#endif\n#if __PASSLAB__ == 1\ngood\n#endif\n");
  EXPECT_EQ(out(), "1 PI good");
  EXPECT_DOUBLE_EQ(toks_[0].number, 1.0);
}

TEST_F(PreprocessorTest, CommandLineDefines) {
  PreprocessOptions o;
  o.defines = {{"FLAG", ""}, {"N", "2 + 3"}, {"TWICE(x)", "((x) * 2)"}};
  run("FLAG N TWICE(k)\n#if N == 5 && FLAG\nyes\n#endif\n", o);
  EXPECT_EQ(out(), norm("1 2 + 3 ((k) * 2) yes"));
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, SelfReferenceDoesNotExpandAgain) {
  run("#define a a b a\n#define foo foo\n#define x y\n#define y x\na foo x y\n");
  EXPECT_EQ(out(), "a b a foo x y");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, IndirectSelfReference) {
  run("#define f(x) x + g(x)\n#define g(x) f(x)\nf(1)\n");
  EXPECT_EQ(out(), norm("1 + f(1)"));
}

TEST_F(PreprocessorTest, RedefinitionWithDifferentBodyWarns) {
  run("#define A 1\n#define A 1\n#define A  1\n#define A 2\n#define F(x) x\n#define F(y) y\nA\n");
  EXPECT_EQ(out(), "2");
  ASSERT_EQ(codes(), (std::vector<std::string>{"macro-redefined", "macro-redefined"}));
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.severity, Severity::Warning);
  EXPECT_EQ(d.span.line, 4u);
  EXPECT_EQ(d.span.col, 9u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].span.line, 3u);  // the most recent definition
  EXPECT_EQ(diags_.items()[1].span.line, 6u);
}

TEST_F(PreprocessorTest, Undef) {
  run("#define A 1\nA\n#undef A\nA\n#undef NEVER_DEFINED\n");
  EXPECT_EQ(out(), "1 A");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, MalformedDefines) {
  run("#define\n#define 3 x\n#define defined 1\n#define F(a,) a\n#define G(a a) a\n#define H(a,a) a\n"
      "#define S(a) #b\n#define P ## x\n#define Q x ##\nok\n");
  EXPECT_EQ(out(), "ok");
  EXPECT_EQ(codes(), std::vector<std::string>(9, "bad-directive"));
  EXPECT_AT(&diags_.items()[0], 1u, 1u);
  EXPECT_AT(&diags_.items()[1], 2u, 9u);
}

// ---- function-like macros -----------------------------------------------------------------------

TEST_F(PreprocessorTest, FunctionMacro) {
  run("#define MIX(a, b, t) ((a) * (1 - (t)) + (b) * (t))\nc = MIX(Cs, Os, 0.5);\n");
  EXPECT_EQ(out(), norm("c = ((Cs) * (1 - (0.5)) + (Os) * (0.5));"));
}

TEST_F(PreprocessorTest, ArgumentTokensKeepTheirOwnSpans) {
  run("#define SQ(x) ((x) * (x))\ny = SQ(Kd);\n");
  const Token& kd = tok("Kd");
  EXPECT_EQ(kd.span.line, 2u);
  EXPECT_EQ(kd.span.col, 8u);
  EXPECT_FALSE(kd.macro_definition.valid());
  const Token& star = tok("*");
  EXPECT_EQ(star.span.col, 5u);  // the macro name
  EXPECT_EQ(star.macro_definition.col, 20u);
}

TEST_F(PreprocessorTest, ArgumentsWithParenthesesAndCommas) {
  run("#define FIRST(a, b) a\n#define SECOND(a, b) b\nFIRST((1, 2), 3) SECOND(f(x, y), g(z))\n");
  EXPECT_EQ(out(), norm("(1, 2) g(z)"));
}

TEST_F(PreprocessorTest, EmptyArgumentsAndZeroParameters) {
  run("#define Z() zero\n#define ONE(x) [x]\n#define TWO(a, b) a|b\nZ() ONE() TWO(,) TWO( , 1)\n");
  EXPECT_EQ(out(), norm("zero [] | | 1"));
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, ArgumentsMaySpanLines) {
  run("#define ADD(a, b) a + b\nADD(1,\n    2\n)\n");
  EXPECT_EQ(out(), "1 + 2");
}

TEST_F(PreprocessorTest, NameWithoutParenthesesIsNotAnInvocation) {
  run("#define F(x) [x]\nF; F (1); F\n(2) F\n");
  EXPECT_EQ(out(), norm("F; [1]; [2] F"));
}

TEST_F(PreprocessorTest, SpaceBeforeParenthesisMakesAnObjectMacro) {
  run("#define F (x) x\nF(1)\n");
  EXPECT_EQ(out(), norm("(x) x(1)"));
}

TEST_F(PreprocessorTest, ArgumentsAreExpandedBeforeSubstitution) {
  run("#define ONE 1\n#define ID(x) x\n#define CALL(f, x) f(x)\nID(ONE) CALL(ID, ONE) ID(ID)(2)\n");
  EXPECT_EQ(out(), "1 1 ID ( 2 )");
}

TEST_F(PreprocessorTest, WrongArgumentCount) {
  run("#define F(a, b) a b\nx F(1) y\n  F(1, 2, 3)\n#define G() g\nG(1)\n");
  EXPECT_EQ(out(), "x y");
  ASSERT_EQ(codes(), (std::vector<std::string>{"macro-args", "macro-args", "macro-args"}));
  EXPECT_AT(&diags_.items()[0], 2u, 3u);
  EXPECT_NE(diags_.items()[0].message.find("takes 2 arguments, but 1 was given"), std::string::npos);
  EXPECT_AT(&diags_.items()[1], 3u, 3u);
  EXPECT_AT(&diags_.items()[2], 5u, 1u);
}

TEST_F(PreprocessorTest, UnterminatedArgumentList) {
  run("#define F(a) a\nok F(1, (2)\nmore\n");
  EXPECT_EQ(out(), "ok");
  ASSERT_EQ(codes(), std::vector<std::string>{"macro-args"});
  EXPECT_AT(&diags_.items()[0], 2u, 4u);
  EXPECT_TRUE(toks_.back().is(Tok::Eof));
}

TEST_F(PreprocessorTest, UnterminatedArgumentListInsideAnArgument) {
  run("#define F(a) a\n#define G(a) a\nG(F(1)\n");
  EXPECT_EQ(codes(), std::vector<std::string>{"macro-args"});
}

TEST_F(PreprocessorTest, DirectiveInsideArguments) {
  run("#define F(a) [a]\nF(1\n#define X 2\nX)\n");
  EXPECT_EQ(out(), norm("[1 2]"));
}

TEST_F(PreprocessorTest, RedefiningAMacroInsideItsOwnArguments) {
  run("#define F(a) <a>\nF(1\n#undef F\n#define F(a) a a\n)\nF(2)\n");
  EXPECT_EQ(out(), norm("<1> 2 2"));
}

TEST_F(PreprocessorTest, StandardExampleOfRescanning) {
  // C11 6.10.3.5 example 3, with `^` instead of C's `^` (the same token in RSL).
  run("#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n"
      "#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n#define q(x) x\n"
      "#define r(x,y) x ## y\n"
      "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n"
      "g(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n"
      "p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n");
  EXPECT_EQ(out(), norm("f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);"
                        "f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);"
                        "int i[] = { 1, 23, 4, 5, };"));
  EXPECT_TRUE(diags_.items().empty()) << format_text(diags_.items(), sm_);
}

TEST_F(PreprocessorTest, Stringize) {
  run("#define S(x) #x\nS(a + b) S(  spaced   out  ) S(\"q\\n\") S() S(f(1,2))\n");
  ASSERT_EQ(toks_.size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(toks_[i].is(Tok::String));
  EXPECT_EQ(toks_[0].text, "a + b");
  EXPECT_EQ(toks_[1].text, "spaced out");
  EXPECT_EQ(toks_[2].text, "\"q\\n\"");  // the literal as written, quotes and backslash included
  EXPECT_EQ(toks_[3].text, "");
  EXPECT_EQ(toks_[4].text, "f(1,2)");
  EXPECT_EQ(toks_[0].span.line, 2u);
  EXPECT_EQ(toks_[0].span.col, 1u);
  EXPECT_EQ(toks_[0].macro_definition.col, 14u);  // the '#'
}

TEST_F(PreprocessorTest, StringizeDoesNotExpandItsArgument) {
  run("#define ONE 1\n#define S(x) #x\n#define XS(x) S(x)\nS(ONE) XS(ONE)\n");
  EXPECT_EQ(out(), "\"ONE\" \"1\"");
}

TEST_F(PreprocessorTest, HashInObjectMacroIsAToken) {
  run("#define H # x\nH\n");
  EXPECT_EQ(out(), "# x");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, Paste) {
  run("#define CAT(a, b) a ## b\nCAT(x, 1) CAT(+, =) CAT(-, -) CAT(1, e5) CAT(, y) CAT(z, ) CAT(,) CAT(\"s\", )\n");
  EXPECT_EQ(out(), "x1 += -- 1e5 y z \"s\"");
  EXPECT_TRUE(toks_[0].is(Tok::Identifier));
  EXPECT_TRUE(toks_[1].is(Tok::PlusAssign));
  EXPECT_TRUE(toks_[2].is(Tok::MinusMinus));
  EXPECT_TRUE(toks_[3].is(Tok::Number));
  EXPECT_DOUBLE_EQ(toks_[3].number, 1e5);
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, PasteResultIsRescanned) {
  run("#define CAT(a, b) a##b\n#define XY 42\n#define ONE 1\nCAT(X, Y) CAT(ONE, ONE)\n");
  EXPECT_EQ(out(), "42 ONEONE");  // operands of ## are not expanded first
  EXPECT_EQ(tok("42").span.line, 4u);
  EXPECT_EQ(tok("42").span.col, 1u);
}

TEST_F(PreprocessorTest, PasteWithBodyTokensAndChains) {
  run("#define PRE(n) tex_ ## n ## _map\n#define GLUE3(a, b, c) a ## b ## c\nPRE(diffuse) GLUE3(1, 2, 3)\n");
  EXPECT_EQ(out(), "tex_diffuse_map 123");
}

TEST_F(PreprocessorTest, BadPasteIsReportedAndKeepsBothTokens) {
  run("#define CAT(a, b) a ## b\n  CAT(+, -) CAT(x, \"s\")\n");
  EXPECT_EQ(out(), "+ - x \"s\"");
  ASSERT_EQ(codes(), (std::vector<std::string>{"bad-paste", "bad-paste"}));
  EXPECT_AT(&diags_.items()[0], 2u, 3u);
}

// ---- conditionals -------------------------------------------------------------------------------

TEST_F(PreprocessorTest, IfdefIfndefElseNesting) {
  run("#define A\n"
      "#ifdef A\n a1\n #ifndef B\n  b1\n #else\n  b2\n #endif\n#else\n a2\n #ifdef A\n  no\n #endif\n#endif\n"
      "#ifndef A\n no\n#elif 1\n c\n#endif\n");
  EXPECT_EQ(out(), "a1 b1 c");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, ElifChainTakesTheFirstTrueBranch) {
  run("#define V 3\n#if V == 1\none\n#elif V == 2\ntwo\n#elif V == 3\nthree\n#elif V == 3\nagain\n"
      "#else\nelse\n#endif\n");
  EXPECT_EQ(out(), "three");
}

TEST_F(PreprocessorTest, ExpressionValues) {
  struct Case {
    const char* expr;
    bool value;
  };
  const Case cases[] = {
      {"1", true}, {"0", false}, {"1 + 2 * 3 == 7", true}, {"(1 + 2) * 3 == 9", true}, {"10 / 3 == 3", true},
      {"10 % 3 == 1", true}, {"-1 < 0", true}, {"~0 == -1", true}, {"!0", true}, {"!5", false},
      {"1 << 4 == 16", true}, {"256 >> 4 == 16", true}, {"3 & 5", true}, {"(3 & 4) == 0", true},
      {"(3 | 4) == 7", true}, {"(3 ^ 1) == 2", true}, {"2 > 1 && 1 >= 1 && 1 <= 1 && 0 < 1", true},
      {"1 != 1", false}, {"0 || 0", false}, {"0 || 2", true}, {"1 ? 2 : 0", true}, {"0 ? 2 : 0", false},
      {"1 ? 0 ? 5 : 6 : 7", true}, {"UNKNOWN", false}, {"UNKNOWN == 0", true}, {"defined(D1)", true},
      {"defined D1", true}, {"defined(NOPE)", false}, {"!defined NOPE", true}, {"D1 + 1 == 2", true},
      {"FN(3) == 9", true}, {"DEF_D1", true}, {"- - 1 == 1", true}, {"+3 == 3", true},
      {"9223372036854775807 + 1 < 0", true}, {"(0 - 9223372036854775807 - 1) / -1 != 0", true},
      {"1 << 70 == 0", true}, {"0 && 1 / 0", false}, {"1 || 1 % 0", true}, {"0 ? 1 / 0 : 3", true},
  };
  for (const Case& c : cases) {
    SourceManager sm;
    DiagnosticList diags;
    std::string text = "#define D1 1\n#define FN(x) ((x) * (x))\n#define DEF_D1 defined(D1)\n#if ";
    text += c.expr;
    text += "\nyes\n#else\nno\n#endif\n";
    auto toks = preprocess(sm, sm.add("e.sl", text), {}, diags);
    ASSERT_EQ(toks.size(), 2u) << c.expr;
    EXPECT_EQ(toks[0].text, c.value ? "yes" : "no") << c.expr;
    EXPECT_TRUE(diags.items().empty()) << c.expr << "\n" << format_text(diags.items(), sm);
  }
}

TEST_F(PreprocessorTest, BadExpressionsAreErrorsAndCountAsFalse) {
  const char* bad[] = {"",      "1 +",   "(1",       "1 2",     "1 / 0",           "5 % (2 - 2)", "1.5",
                       "\"s\"", "defined", "defined(", "defined(X", "1 ? 2",     "99999999999999999999", ")",
                       "x = 1", "1 <<< 2"};
  for (const char* expr : bad) {
    SourceManager sm;
    DiagnosticList diags;
    std::string text = std::string("#if ") + expr + "\nyes\n#else\nno\n#endif\n";
    auto toks = preprocess(sm, sm.add("e.sl", text), {}, diags);
    ASSERT_EQ(toks.size(), 2u) << expr;
    EXPECT_EQ(toks[0].text, "no") << expr;
    ASSERT_EQ(diags.items().size(), 1u) << expr << "\n" << format_text(diags.items(), sm);
    EXPECT_EQ(diags.items()[0].code, "bad-if-expression") << expr;
    EXPECT_EQ(diags.items()[0].span.line, 1u) << expr;
  }
}

TEST_F(PreprocessorTest, DivisionByZeroPointsAtTheOperator) {
  run("#if 4 + 1 / 0\n#endif\n");
  const Diagnostic* d = find("bad-if-expression");
  EXPECT_AT(d, 1u, 11u);
  EXPECT_NE(d->message.find("division by zero"), std::string::npos);
}

TEST_F(PreprocessorTest, SkippedTextIsNotChecked) {
  run("#if 0\nit's \"unterminated @ $ 12abc\n#bogus directive\n#error not me\n#include \"missing.h\"\n"
      "#if 1 / 0\n#elif garbage(\n#endif\n#endif\n#ifdef\n#endif\nok\n");
  EXPECT_EQ(out(), "ok");
  EXPECT_EQ(codes(), std::vector<std::string>{"bad-directive"}) << format_text(diags_.items(), sm_);  // the #ifdef
  EXPECT_AT(&diags_.items()[0], 10u, 1u);
}

TEST_F(PreprocessorTest, ElifIsNotEvaluatedAfterATakenBranch) {
  run("#if 1\na\n#elif 1 / 0\nb\n#endif\n");
  EXPECT_EQ(out(), "a");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, UnterminatedConditionalPointsAtTheOpeningDirective) {
  run("a\n#if 1\nb\n  #ifdef X\nc\n");
  EXPECT_EQ(out(), "a b");
  ASSERT_EQ(codes(), (std::vector<std::string>{"unterminated-conditional", "unterminated-conditional"}));
  EXPECT_AT(&diags_.items()[0], 2u, 1u);
  EXPECT_AT(&diags_.items()[1], 4u, 3u);
  EXPECT_EQ(diags_.items()[1].span.length, 6u);  // "#ifdef"
}

TEST_F(PreprocessorTest, UnmatchedEndifAndElse) {
  run("a\n#endif\n#else\n#elif 1\nb\n");
  EXPECT_EQ(out(), "a b");
  EXPECT_EQ(codes(), (std::vector<std::string>{"unmatched-endif", "unmatched-else", "unmatched-else"}));
  EXPECT_AT(&diags_.items()[0], 2u, 1u);
}

TEST_F(PreprocessorTest, ElseAfterElse) {
  run("#if 0\na\n#else\nb\n#else\nc\n#elif 1\nd\n#endif\ne\n");
  EXPECT_EQ(out(), "b e");
  ASSERT_EQ(codes(), (std::vector<std::string>{"else-after-else", "else-after-else"}));
  const Diagnostic& d = diags_.items()[0];
  EXPECT_AT(&d, 5u, 1u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].span.line, 3u);
}

TEST_F(PreprocessorTest, ExtraTokensWarn) {
  run("#ifdef A junk\n#else junk\n#endif junk\n#undef A junk\n");
  EXPECT_EQ(codes(), std::vector<std::string>(4, "extra-tokens"));
  EXPECT_EQ(diags_.items()[0].severity, Severity::Warning);
}

// ---- other directives ---------------------------------------------------------------------------

TEST_F(PreprocessorTest, ErrorAndWarningDirectives) {
  run("#warning check this\n  #error  missing \"thing\" here\nx\n");
  EXPECT_EQ(out(), "x");
  ASSERT_EQ(codes(), (std::vector<std::string>{"warning-directive", "error-directive"}));
  EXPECT_EQ(diags_.items()[0].severity, Severity::Warning);
  EXPECT_EQ(diags_.items()[0].message, "check this");
  const Diagnostic& e = diags_.items()[1];
  EXPECT_EQ(e.severity, Severity::Error);
  EXPECT_EQ(e.message, "missing \"thing\" here");
  EXPECT_AT(&e, 2u, 3u);
}

TEST_F(PreprocessorTest, UnknownDirective) {
  run("#foo bar\n# 12\nx\n");
  EXPECT_EQ(out(), "x");
  EXPECT_EQ(codes(), (std::vector<std::string>{"bad-directive", "bad-directive"}));
  EXPECT_AT(&diags_.items()[0], 1u, 1u);
  EXPECT_NE(diags_.items()[0].message.find("#foo"), std::string::npos);
}

TEST_F(PreprocessorTest, LineDirectiveChangesPresumedLocations) {
  run("a\n#line 100\nb\nc\n#line 7 \"shader.sl\"\nd\n#error here\n");
  EXPECT_EQ(out(), "a b c d");
  PresumedLoc a = sm_.presumed(tok("a").span);
  EXPECT_EQ(a.file, "main.sl");
  EXPECT_EQ(a.line, 1u);
  PresumedLoc b = sm_.presumed(tok("b").span);
  EXPECT_EQ(b.file, "main.sl");
  EXPECT_EQ(b.line, 100u);
  EXPECT_EQ(sm_.presumed(tok("c").span).line, 101u);
  PresumedLoc d = sm_.presumed(tok("d").span);
  EXPECT_EQ(d.file, "shader.sl");
  EXPECT_EQ(d.line, 7u);
  EXPECT_EQ(d.col, 1u);
  EXPECT_EQ(tok("d").span.line, 6u);  // the physical location is unchanged
  ASSERT_EQ(codes(), std::vector<std::string>{"error-directive"});
  EXPECT_EQ(format_text(diags_.items()[0], sm_).rfind("shader.sl:8:1: error: here", 0), 0u);
}

TEST_F(PreprocessorTest, LineDirectiveWithMacroAndErrors) {
  run("#define L 50\n#line L\nx\n#line\n#line abc\n#line 0\n#line 5 file\n#line 3000000000\n#line 5 \"f\" extra\n");
  EXPECT_EQ(sm_.presumed(tok("x").span).line, 50u);
  EXPECT_EQ(codes(), std::vector<std::string>(6, "bad-directive"));
}

// ---- includes -----------------------------------------------------------------------------------

TEST_F(PreprocessorTest, IncludeFromTheIncludingFilesFolder) {
  write("lib/util.h", "#define HALF 0.5\nfloat util;\n");
  write("lib/inner.h", "#include \"util.h\"\ninner\n");  // relative to lib/, not to main
  run_disk("#include \"lib/inner.h\"\nx = HALF;\n");
  EXPECT_EQ(out(), "float util ; inner x = 0.5 ;");
  EXPECT_TRUE(diags_.items().empty()) << format_text(diags_.items(), sm_);
  EXPECT_EQ(file_of(tok("util")), "util.h");
  EXPECT_EQ(tok("util").span.line, 2u);
  EXPECT_EQ(tok("util").span.col, 7u);
  EXPECT_EQ(file_of(tok("inner")), "inner.h");
  EXPECT_EQ(file_of(tok("x")), "main.sl");
  EXPECT_EQ(file_of(tok("0.5")), "main.sl");                                      // used here
  EXPECT_EQ(file_of(tok("0.5").macro_definition), "util.h");  // defined there
}

TEST_F(PreprocessorTest, IncludeSearchesIncludePathsAndAngleBrackets) {
  write("sys/a b/std.h", "std\n");
  write("sys/local.h", "from_sys\n");
  write("local.h", "from_local\n");
  PreprocessOptions o;
  o.include_paths = {(dir() / "none").string(), (dir() / "sys").string()};
  run_disk("#include <a b/std.h>\n#include \"local.h\"\n#define NAME \"local.h\"\n#include NAME\n", o);
  EXPECT_EQ(out(), "std from_local from_local");
  EXPECT_TRUE(diags_.items().empty()) << format_text(diags_.items(), sm_);
}

TEST_F(PreprocessorTest, MissingIncludeIsReportedAtTheDirective) {
  run_disk("a\n  #include \"nowhere.h\"\n#include <nowhere_either.h>\n#include\n#include nothing\nb\n");
  EXPECT_EQ(out(), "a b");
  ASSERT_EQ(codes(), (std::vector<std::string>{"include-not-found", "include-not-found", "bad-directive",
                                               "bad-directive"}));
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.message, "cannot find include file 'nowhere.h'");
  EXPECT_AT(&d, 2u, 3u);
  EXPECT_EQ(d.span.length, 20u);
}

TEST_F(PreprocessorTest, IncludeOfAFolderIsNotFound) {
  fs::create_directories(dir() / "folder.h");
  run_disk("#include \"folder.h\"\n");
  EXPECT_EQ(codes(), std::vector<std::string>{"include-not-found"});
}

TEST_F(PreprocessorTest, IncludeCycleIsReportedNotFollowed) {
  write("a.h", "in_a\n#include \"b.h\"\n");
  write("b.h", "in_b\n#include \"a.h\"\n");
  run_disk("#include \"a.h\"\nend\n");
  EXPECT_EQ(out(), "in_a in_b end");
  ASSERT_EQ(codes(), std::vector<std::string>{"include-cycle"});
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(file_of(d.span), "b.h");
  EXPECT_AT(&d, 2u, 1u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].span.file, main_);
}

TEST_F(PreprocessorTest, SelfInclude) {
  run_disk("x\n#include \"main.sl\"\n");
  EXPECT_EQ(out(), "x");
  EXPECT_EQ(codes(), std::vector<std::string>{"include-cycle"});
}

TEST_F(PreprocessorTest, GuardedHeadersMayIncludeEachOther) {
  write("a.h", "#ifndef A_H\n#define A_H\n#include \"b.h\"\nin_a\n#endif\n");
  write("b.h", "#ifndef B_H\n#define B_H\n#include \"a.h\"\nin_b\n#endif\n");
  run_disk("#include \"a.h\"\n#include \"b.h\"\n#include \"a.h\"\nend\n");
  EXPECT_EQ(out(), "in_b in_a end");
  EXPECT_TRUE(diags_.items().empty()) << format_text(diags_.items(), sm_);
}

TEST_F(PreprocessorTest, PragmaOnce) {
  write("once.h", "#pragma once\nonce\n");
  run_disk("#include \"once.h\"\n#include \"once.h\"\n#include \"./once.h\"\n");
  EXPECT_EQ(out(), "once");
}

TEST_F(PreprocessorTest, UnguardedHeaderMayBeIncludedTwice) {
  write("twice.h", "t\n");
  run_disk("#include \"twice.h\"\n#include \"twice.h\"\n");
  EXPECT_EQ(out(), "t t");
  EXPECT_EQ(tok("t", 0).span.file, tok("t", 1).span.file);  // loaded once into the SourceManager
}

TEST_F(PreprocessorTest, IncludeDepthLimit) {
  for (int i = 0; i < 10; ++i) write("d" + std::to_string(i) + ".h", "#include \"d" + std::to_string(i + 1) + ".h\"\n");
  write("d10.h", "bottom\n");
  PreprocessOptions o;
  o.max_include_depth = 5;
  run_disk("#include \"d0.h\"\nend\n", o);
  EXPECT_EQ(out(), "end");
  ASSERT_EQ(codes(), std::vector<std::string>{"include-depth"});
  EXPECT_EQ(file_of(diags_.items()[0].span), "d4.h");
  diags_.clear();
  o.max_include_depth = 11;
  run_disk("#include \"d0.h\"\nend\n", o);
  EXPECT_EQ(out(), "bottom end");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, ConditionalsDoNotCrossFiles) {
  write("open.h", "#if 1\nopened\n");
  write("close.h", "#endif\n");
  run_disk("#include \"open.h\"\n#if 1\n#include \"close.h\"\n#endif\nend\n");
  EXPECT_EQ(out(), "opened end");
  ASSERT_EQ(codes(), (std::vector<std::string>{"unterminated-conditional", "unmatched-endif"}));
  EXPECT_EQ(file_of(diags_.items()[0].span), "open.h");
  EXPECT_AT(&diags_.items()[0], 1u, 1u);
}

TEST_F(PreprocessorTest, LexerErrorsInIncludedFilesPointThere) {
  write("bad.h", "ok\n  @\n");
  run_disk("#include \"bad.h\"\n");
  ASSERT_EQ(codes(), std::vector<std::string>{"unknown-character"});
  EXPECT_EQ(file_of(diags_.items()[0].span), "bad.h");
  EXPECT_AT(&diags_.items()[0], 2u, 3u);
}

TEST_F(PreprocessorTest, LineDirectiveInIncludedFile) {
  write("gen.h", "#line 10 \"original.rsl\"\ng\n");
  run_disk("#include \"gen.h\"\n#include \"gen.h\"\nm\n");
  EXPECT_EQ(out(), "g g m");
  PresumedLoc g = sm_.presumed(tok("g", 1).span);
  EXPECT_EQ(g.file, "original.rsl");
  EXPECT_EQ(g.line, 10u);
  EXPECT_EQ(sm_.presumed(tok("m").span).line, 3u);  // main is not affected
}

// ---- hostile inputs -----------------------------------------------------------------------------

TEST_F(PreprocessorTest, ExponentialExpansionStopsOnce) {
  std::string text = "#define a0 x x\n";
  for (int i = 1; i <= 40; ++i)
    text += "#define a" + std::to_string(i) + " a" + std::to_string(i - 1) + " a" + std::to_string(i - 1) + "\n";
  text += "a40 a40\n";
  PreprocessOptions o;
  o.max_output_tokens = 10'000;
  run(text, o);
  EXPECT_EQ(codes(), std::vector<std::string>{"macro-expansion-too-large"});
  EXPECT_LE(toks_.size(), o.max_output_tokens + 1);
  EXPECT_TRUE(toks_.back().is(Tok::Eof));
}

TEST_F(PreprocessorTest, ExponentialExpansionWithDefaultLimit) {
  std::string text = "#define a0 x x\n";
  for (int i = 1; i <= 60; ++i)
    text += "#define a" + std::to_string(i) + " a" + std::to_string(i - 1) + " a" + std::to_string(i - 1) + "\n";
  text += "a60\n";
  run(text);
  EXPECT_EQ(codes(), std::vector<std::string>{"macro-expansion-too-large"});
  EXPECT_LE(toks_.size(), PreprocessOptions{}.max_output_tokens + 1);
}

TEST_F(PreprocessorTest, ExponentialArgumentDuplication) {
  std::string text = "#define D(x) x x x x\n";
  std::string call = "1";
  for (int i = 0; i < 30; ++i) call = "D(" + call + ")";
  PreprocessOptions o;
  o.max_output_tokens = 50'000;
  run(text + call + "\n", o);
  EXPECT_EQ(codes(), std::vector<std::string>{"macro-expansion-too-large"});
}

TEST_F(PreprocessorTest, OutputLimitCountsPlainTokensToo) {
  PreprocessOptions o;
  o.max_output_tokens = 3;
  run("a b c d e\n", o);
  EXPECT_EQ(out(), "a b c");
  EXPECT_EQ(codes(), std::vector<std::string>{"macro-expansion-too-large"});
}

TEST_F(PreprocessorTest, DeeplyNestedInvocationsTerminate) {
  std::string call = "x";
  for (int i = 0; i < 400; ++i) call = "F(" + call + ")";
  run("#define F(a) a\n" + call + "\n");
  EXPECT_EQ(codes(), std::vector<std::string>{"macro-nesting"});
  EXPECT_TRUE(toks_.back().is(Tok::Eof));
}

TEST_F(PreprocessorTest, DeeplyNestedExpressionsTerminate) {
  run("#if " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\nyes\n#endif\n#if " +
      std::string(5000, '-') + "1\n#endif\n#if " + std::string(5000, '!') + "\n#endif\n");
  EXPECT_EQ(codes(), std::vector<std::string>(3, "bad-if-expression"));
}

TEST_F(PreprocessorTest, ManyNestedConditionals) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "#if 1\n";
  text += "deep\n";
  for (int i = 0; i < 20000; ++i) text += "#endif\n";
  run(text);
  EXPECT_EQ(out(), "deep");
  EXPECT_TRUE(diags_.items().empty());
}

TEST_F(PreprocessorTest, MutuallyRecursiveFunctionMacros) {
  run("#define f(x) g(x) f\n#define g(x) f(x)(x)\nf(1)(2)(3)\n");
  EXPECT_TRUE(toks_.back().is(Tok::Eof));
  EXPECT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
}

TEST_F(PreprocessorTest, RandomBytesAndTokenSoupTerminate) {
  const std::string pieces[] = {"#define ", "#if ", "#elif ", "#else\n", "#endif\n", "#include \"x\"\n", "#undef ",
                                "a", "b", "f", "(", ")", ",", "#", "##", "\n", " ", "defined", "1", "0", "/",
                                "\"", "/*", "*/", "\\\n", "#line ", "@", "\xff", "+", "?", ":", "a ## b"};
  unsigned state = 2024;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 8; };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    if (round % 3 == 0) {
      for (int i = 0; i < 400; ++i) text += static_cast<char>(next() & 0xff);
    } else {
      text = "#define f(x) f(x x) a\n#define a f(a)\n";
      for (int i = 0; i < 300; ++i) text += pieces[next() % std::size(pieces)];
    }
    SourceManager sm;
    DiagnosticList diags;
    PreprocessOptions o;
    o.max_output_tokens = 20'000;
    auto toks = preprocess(sm, sm.add("soup.sl", text), o, diags);
    ASSERT_FALSE(toks.empty());
    EXPECT_TRUE(toks.back().is(Tok::Eof));
    EXPECT_LE(toks.size(), o.max_output_tokens + 1);
  }
}

}  // namespace
}  // namespace passlab::lang
