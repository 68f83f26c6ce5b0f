// SPDX-License-Identifier: GPL-3.0-or-later
// Negative tests of the whole front end: one row per kind of error, each with the code, message and
// line:col the user must see; then the text and JSON forms of a diagnostic.
//
// Every row's line and column were counted by hand from its source; most sources put the faulty
// statement on line 2 of `surface s() {` ... `}`, indented by two spaces, so a column is 2 plus
// the position within the statement.
#include <algorithm>
#include <ostream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/lang/frontend.h"

namespace passlab::lang {
namespace {

struct Case {
  const char* name;     // the test's name
  const char* source;
  const char* code;     // of the first error
  const char* message;  // a substring of its message
  unsigned line, col;
  unsigned note_line = 0, note_col = 0;  // the first note, when the row checks one
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const Case kCases[] = {
    // ---- names and calls ----
    {"UndeclaredWithSuggestion", "surface s(float roughness = .1) {\n  float x = rougness;\n}\n", "undeclared-identifier",
     "use of undeclared identifier 'rougness'; did you mean 'roughness'?", 2, 13},
    {"UnknownFunction", "surface s() {\n  float x = nois(P);\n}\n", "unknown-function",
     "call to unknown function 'nois'; did you mean 'noise'?", 2, 13},
    {"NoMatchingOverload", "surface s() {\n  float x = sqrt(Cs);\n}\n", "no-matching-function",
     "no version of 'sqrt' takes (color)", 2, 13},
    {"GlobalNotAvailableInLight", "light l() {\n  color c = Cs;\n}\n", "global-not-available",
     "global variable 'Cs' is not available in a light shader", 2, 13},
    {"LightGlobalOutsideLoop", "surface s() {\n  Ci = Cl;\n}\n", "light-global-outside-loop",
     "'Cl' is only defined inside an illuminance, illuminate or solar block", 2, 8},
    {"OutputArgNotVariable", "void f(output float y) {\n  y = 1;\n}\nsurface s() {\n  f(2);\n}\n", "output-arg-not-variable",
     "the argument for output parameter 'y' must be a variable", 5, 5},
    {"RedefinedVariable", "surface s() {\n  float x = 1;\n  float x = 2;\n}\n", "redefinition", "redefinition of 'x'", 3, 9, 2, 9},
    {"Recursion", "float f(float x) {\n  return f(x - 1);\n}\nsurface s() {\n  Ci = f(1);\n}\n", "recursion",
     "function 'f' calls itself", 1, 7},
    // ---- types and operators ----
    {"TypeMismatchOnAssignment", "surface s() {\n  float x = 0;\n  x = Cs;\n}\n", "type-mismatch",
     "cannot use a color as the value assigned to 'x', which is a float", 3, 7},
    {"TernaryBranchesMismatch", "surface s() {\n  Ci = s > 0.5 ? Cs : P;\n}\n", "type-mismatch",
     "the branches of '?:' have incompatible types color and point", 2, 8},
    {"BadOperandsToCross", "surface s() {\n  vector v2 = Cs ^ I;\n}\n", "bad-operands",
     "the cross product '^' needs two points, vectors or normals, not color and vector", 2, 15},
    {"ComparingColorsWithLess", "surface s() {\n  if (Cs < Os) Ci = 0;\n}\n", "bad-operands",
     "'<' compares floats, not color and color", 2, 7},
    {"BadUnaryOperand", "surface s() {\n  float x = -\"a\";\n}\n", "bad-operand", "unary '-' cannot apply to a string", 2, 13},
    {"BadCondition", "surface s() {\n  if (Cs) Ci = 0;\n}\n", "bad-condition",
     "a condition must be a relation or a float, not color", 2, 7},
    {"BadCast", "surface s() {\n  string t2 = string 1;\n}\n", "bad-cast", "cannot convert a float to a string", 2, 15},
    {"UnknownColorSpace", "surface s() {\n  color c = color \"hsx\" (1, 0, 0);\n}\n", "unknown-space",
     "unknown color space \"hsx\"; the color spaces are rgb, hsv, hsl, xyz, xyY and YIQ", 2, 19},
    {"UnknownColorSpaceInCtransform", "surface s() {\n  Ci = ctransform(\"cmyk\", Cs);\n}\n", "unknown-space",
     "unknown color space \"cmyk\"", 2, 19},
    {"ExternNamesNothing", "float f() {\n  extern float Kd;\n  return Kd;\n}\nsurface s() {\n  Ci = f();\n}\n", "extern-undeclared",
     "'extern' names no variable 'Kd' of an enclosing function or shader, nor a global", 2, 16},
    {"ExternOfAnotherType", "surface s() {\n  float x = 1;\n  float g() {\n    extern color x;\n    return 1;\n  }\n}\n",
     "extern-type", "'extern' declares 'x' a color, but it is a float", 4, 18, 2, 9},
    {"FresnelOutputOfAnotherType", "surface s() {\n  float kr, kt, r; vector t;\n  fresnel(I, N, 1.5, kr, kt, r, t);\n}\n", "type-mismatch",
     "argument 6 of 'fresnel' receives a vector, which cannot be stored in a float", 3, 30},
    {"ConstructorArity", "surface s() {\n  color c = color(1, 2);\n}\n", "bad-constructor", "color takes 3 components, not 2", 2, 13},
    {"TupleWithoutType", "surface s() {\n  float x = (1, 2, 3);\n}\n", "bad-tuple", "a list of 3 values needs a type here", 2, 13},
    {"VaryingToUniform", "surface s() {\n  uniform float k = s;\n}\n", "varying-to-uniform",
     "cannot assign a varying value to uniform variable 'k'", 2, 17, 2, 17},
    // ---- assignment targets ----
    {"AssignToInputParameter", "surface s(float Kd = 1) {\n  Kd = 2;\n}\n", "assign-to-input",
     "cannot assign to parameter 'Kd', which is not declared 'output'", 2, 3, 1, 17},
    {"AssignToReadOnlyGlobal", "surface s() {\n  s = 0;\n}\n", "read-only-global", "cannot assign to 's' in a surface shader", 2, 3},
    {"AssignToConstant", "surface s() {\n  PI = 3;\n}\n", "assign-to-constant", "cannot assign to the constant 'PI'", 2, 3},
    {"NotAssignable", "surface s() {\n  Ci + 1 = 2;\n}\n", "not-assignable",
     "the left side of an assignment must be a variable", 2, 10},
    // ---- control flow ----
    {"BreakOutsideLoop", "surface s() {\n  break;\n}\n", "jump-outside-loop", "'break' is not inside a loop", 2, 3},
    {"BreakThreeWithOneLoop", "surface s() {\n  while (1) { break 3; }\n}\n", "jump-level",
     "'break 3' leaves more loops than the 1 that enclose it", 2, 15},
    {"BadJumpLevel", "surface s() {\n  while (1) { break 0; }\n}\n", "bad-jump-level",
     "the loop level of 'break' must be a whole number from 1 to 64", 2, 21},
    {"MissingReturn", "float f(float x) {\n  if (x > 0) return 1;\n}\n", "missing-return",
     "function 'f' does not return a value on every path", 1, 7},
    {"MissingReturnValue", "float f() {\n  return;\n}\n", "missing-return-value", "function 'f' must return a value", 2, 3},
    {"ReturnValueInVoid", "void f() {\n  return 1;\n}\n", "return-value-in-void", "a void function cannot return a value", 2, 10},
    {"ReturnInShader", "surface s() {\n  return;\n}\n", "return-in-shader", "'return' is only allowed in functions", 2, 3},
    {"ReturnValueInShader", "surface s() {\n  return 1;\n}\n", "return-value-in-shader", "a shader cannot return a value", 2, 3},
    // ---- shaders and light statements ----
    {"MissingDefaultOnShaderParameter", "surface s(float Kd) {\n}\n", "missing-default",
     "shader parameter 'Kd' needs a default value", 1, 17},
    {"FunctionParameterDefault", "float f(float x = 1) {\n  return x;\n}\n", "function-param-default",
     "function parameters cannot have default values", 1, 19},
    {"GlobalNotAvailableInImager", "imager i() {\n  Ci = Cs;\n}\n", "global-not-available",
     "global variable 'Cs' is not available in an imager shader", 2, 8},
    {"IlluminanceInLight", "light l() {\n  illuminance(Ps) { Cl = 1; }\n}\n", "illuminance-in-light",
     "'illuminance' is only allowed in surface shaders and functions", 2, 3},
    {"IlluminateInSurface", "surface s() {\n  illuminate(P) { Ci = 1; }\n}\n", "light-statement-outside-light",
     "'illuminate' is only allowed in light shaders", 2, 3},
    {"LightFunctionInLight", "light l() {\n  Cl = ambient();\n}\n", "light-function-in-light",
     "'ambient' is only available in surface shaders and functions", 2, 8},
    // ---- syntax ----
    {"UnterminatedBlock", "surface s() {\n  Ci = 1;\n", "unterminated-block", "expected '}' at end of file", 3, 1, 1, 13},
    {"MissingSemicolon", "surface s() {\n  float x = 1\n  Ci = x;\n}\n", "expected-token",
     "expected ';' after the declaration, found 'Ci'", 2, 14},
    {"ExpectedExpression", "surface s() {\n  Ci = ;\n}\n", "expected-expression", "expected an expression, found ';'", 2, 8},
    {"ExpectedDefinition", "42\n", "expected-definition", "expected a shader ('surface', 'light', 'displacement')", 1, 1},
    {"ExpectedParameterType", "surface s(Kd = 1) {\n}\n", "expected-type", "expected a parameter type, found 'Kd'", 1, 11},
    {"Increment", "surface s() {\n  float x = 0;\n  x++;\n}\n", "no-increment", "'++' is not part of RSL", 3, 4},
    {"ArrayUsedAsAValue", "surface s() {\n  float a[3] = {1, 2, 3};\n  Ci = a;\n}\n", "array-as-value",
     "'a' is an array of 3 floats; use an element (a[i]) or pass it whole to a function", 3, 8},
    {"ArrayIndexOutOfRange", "surface s() {\n  float a[3] = {1, 2, 3};\n  Ci = a[3];\n}\n", "index-out-of-range",
     "index 3 is outside 'a', which has 3 elements", 3, 10},
    {"ArrayValuesCount", "surface s() {\n  float a[3] = {1, 2};\n}\n", "array-size",
     "the initializer of 'a' has 2 values for 3 elements", 2, 16},
    {"IndexingANonArray", "surface s() {\n  float x = 1;\n  Ci = x[0];\n}\n", "not-an-array", "'x' is a float, not an array", 3, 8},
    {"ArrayOfAnotherLength", "float f(float a[2]) {\n  return a[0];\n}\nsurface s() {\n  float b[3];\n  Ci = f(b);\n}\n",
     "no-matching-function", "no version of 'f' takes (float[3])", 6, 8},
    {"SplineBasisUnknown", "surface s() {\n  Ci = spline(\"cubic\", s, 0, 1, 2, 3);\n}\n", "no-matching-function",
     "unknown basis \"cubic\"", 2, 8},
    {"CommaOperator", "surface s() {\n  Ci = 1, 2;\n}\n", "comma-operator", "the comma operator is not part of RSL", 2, 9},
    {"ElseWithoutIf", "surface s() {\n  else Ci = 1;\n}\n", "else-without-if", "'else' without a matching 'if'", 2, 3},
    {"ForHeaderDeclaration", "surface s() {\n  for (float i = 0; i < 3; i += 1) {}\n}\n", "for-declaration",
     "declarations are not allowed in a 'for' header", 2, 8},
    {"MisplacedOutput", "surface s() {\n  output float x;\n}\n", "misplaced-output", "'output' is only allowed on parameters", 2, 3},
    {"GatherArguments", "surface s() {\n  gather(\"x\", P) {}\n}\n", "gather-args",
     "'gather' takes (category, P, direction, angle, samples)", 2, 3},
    {"LocalFunctionRecursion", "surface s() {\n  float g(float x) { return g(x - 1); }\n  Ci = g(1);\n}\n", "recursion",
     "function 'g' calls itself", 2, 9},
    {"LocalFunctionOutOfScope", "surface s() {\n  if (u > 0) {\n    float g() { return 1; }\n  }\n  Ci = g();\n}\n",
     "unknown-function", "call to unknown function 'g'", 5, 8},
    {"ReservedWordAsName", "surface s() {\n  float while = 1;\n}\n", "reserved-word",
     "'while' is a reserved word and cannot be used as a variable name", 2, 9},
    // ---- lexer ----
    {"UnterminatedString", "surface s() {\n  string x = \"abc;\n}\n", "unterminated-string", "missing terminating '\"' character", 2, 14},
    {"UnknownCharacter", "surface s() {\n  float x = 1 @ 2;\n}\n", "unknown-character", "unexpected character '@'", 2, 15},
    {"UnterminatedComment", "surface s() {\n  /* open\n}\n", "unterminated-comment", "unterminated /* comment", 2, 3},
    {"BadNumberSuffix", "surface s() {\n  float x = 1abc;\n}\n", "bad-number", "invalid suffix 'abc' on number", 2, 13},
    // ---- preprocessor ----
    {"MissingInclude", "#include \"missing.h\"\nsurface s() {\n}\n", "include-not-found", "cannot find include file 'missing.h'", 1, 1},
    {"IfWithoutEndif", "#if 1\nsurface s() {\n}\n", "unterminated-conditional", "missing '#endif'", 1, 1},
    {"MacroArgumentCount", "#define F(x) (x)\nsurface s() {\n  Ci = F(1, 2);\n}\n", "macro-args",
     "macro 'F' takes 1 argument, but 2 were given", 3, 8},
    {"ErrorDirective", "#error stop here\nsurface s() {\n}\n", "error-directive", "stop here", 1, 1},
};

class NegativeTest : public ::testing::TestWithParam<Case> {};

TEST_P(NegativeTest, FirstErrorHasTheExpectedCodeMessageAndLocation) {
  const Case& c = GetParam();
  SourceManager sm;
  DiagnosticList diags;
  FileId file = sm.add("test.sl", c.source);
  compile(sm, file, {}, diags);
  auto first = std::find_if(diags.items().begin(), diags.items().end(),
                            [](const Diagnostic& d) { return d.severity == Severity::Error; });
  ASSERT_NE(first, diags.items().end()) << "no error for:\n" << c.source;
  const Diagnostic& d = *first;
  SCOPED_TRACE(format_text(diags.items(), sm));
  EXPECT_EQ(d.code, c.code);
  EXPECT_NE(d.message.find(c.message), std::string::npos) << "message: " << d.message;
  EXPECT_EQ(d.span.file, file);
  EXPECT_EQ(d.span.line, c.line);
  EXPECT_EQ(d.span.col, c.col);
  if (c.note_line) {
    ASSERT_FALSE(d.notes.empty());
    EXPECT_EQ(d.notes[0].span.line, c.note_line);
    EXPECT_EQ(d.notes[0].span.col, c.note_col);
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, NegativeTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(NegativeTable, CoversAtLeastTwentyFiveDistinctErrorKinds) {
  std::set<std::string> codes, names;
  for (const Case& c : kCases) {
    codes.insert(c.code);
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate row name " << c.name;
  }
  EXPECT_GE(codes.size(), 25u);
}

// ---- text and JSON forms ---------------------------------------------------------------------------

class DiagnosticFormatTest : public ::testing::Test {
 protected:
  const std::vector<Diagnostic>& run(const std::string& text) {
    file_ = sm_.add("shaders/test.sl", text);
    compile(sm_, file_, {}, diags_);
    return diags_.items();
  }
  SourceManager sm_;
  DiagnosticList diags_;
  FileId file_ = 0;
};

TEST_F(DiagnosticFormatTest, TextIsLocationMessageCodeThenSourceLineAndCaret) {
  const auto& ds = run("surface s(float roughness = .1) {\n  float x = rougness;\n}\n");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(format_text(ds[0], sm_),
            "shaders/test.sl:2:13: error: use of undeclared identifier 'rougness'; did you mean 'roughness'? "
            "[undeclared-identifier]\n"
            "    float x = rougness;\n"
            "              ^~~~~~~~\n");
}

TEST_F(DiagnosticFormatTest, NotesFollowWithTheirOwnLocationAndSnippet) {
  const auto& ds = run("surface s() {\n  float x = 1;\n  float x = 2;\n}\n");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(format_text(ds, sm_),
            "shaders/test.sl:3:9: error: redefinition of 'x' [redefinition]\n"
            "    float x = 2;\n"
            "          ^\n"
            "shaders/test.sl:2:9: note: previous declaration is here\n"
            "    float x = 1;\n"
            "          ^\n");
}

TEST_F(DiagnosticFormatTest, WarningsSayWarning) {
  const auto& ds = run("surface s() {\n  float x;\n  Ci = x;\n}\n");
  ASSERT_EQ(ds.size(), 1u);
  std::string text = format_text(ds[0], sm_);
  EXPECT_EQ(text.rfind("shaders/test.sl:3:8: warning: variable 'x' may be used before it is assigned [maybe-uninitialized]\n", 0), 0u)
      << text;
}

TEST_F(DiagnosticFormatTest, LineDirectivesChangeThePresumedLocation) {
  const auto& ds = run("#line 100 \"orig.sl\"\nsurface s() {\n  Ci = undefined_name;\n}\n");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].span.line, 3u);  // the physical span is unchanged
  std::string text = format_text(ds[0], sm_);
  EXPECT_EQ(text.rfind("orig.sl:101:8: error: use of undeclared identifier 'undefined_name'", 0), 0u) << text;
  EXPECT_EQ(to_json(ds[0], sm_)["location"]["line"], 101);
}

TEST_F(DiagnosticFormatTest, JsonHasEveryField) {
  const auto& ds = run("surface s(float Kd = 1) {\n  Kd = 2;\n}\n");
  ASSERT_EQ(ds.size(), 1u);
  nlohmann::json j = to_json(ds[0], sm_);
  EXPECT_EQ(j["severity"], "error");
  EXPECT_EQ(j["code"], "assign-to-input");
  EXPECT_EQ(j["message"], "cannot assign to parameter 'Kd', which is not declared 'output'");
  EXPECT_EQ(j["location"], (nlohmann::json{{"file", "shaders/test.sl"}, {"line", 2}, {"column", 3}, {"length", 2}}));
  ASSERT_TRUE(j["notes"].is_array());
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0]["message"], "parameter declared here");
  EXPECT_EQ(j["notes"][0]["location"]["line"], 1);
  EXPECT_EQ(j["notes"][0]["location"]["column"], 17);

  nlohmann::json all = to_json(ds, sm_);
  ASSERT_TRUE(all.is_array());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], j);
}

TEST_F(DiagnosticFormatTest, AFloodOfErrorsIsCutOffWithOneFinalDiagnostic) {
  std::string body;
  for (int i = 0; i < 300; ++i) body += "  Ci = nothing" + std::to_string(i) + ";\n";
  const auto& ds = run("surface s() {\n" + body + "}\n");
  EXPECT_EQ(diags_.error_count(), 300u);
  ASSERT_EQ(ds.size(), 201u);
  EXPECT_EQ(ds.back().code, "too-many-errors");
  EXPECT_EQ(ds[199].code, "undeclared-identifier");
}

}  // namespace
}  // namespace passlab::lang
