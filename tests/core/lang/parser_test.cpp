// SPDX-License-Identifier: GPL-3.0-or-later
// Unit tests of the RSL parser: precedence, parameter lists, casts, tuples, light statements,
// jump levels, node spans, error recovery, and robustness on truncated and garbage input.
#include "core/lang/parser.h"

#include <algorithm>
#include <filesystem>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/lang/frontend.h"
#include "core/lang/preprocessor.h"

namespace passlab::lang {
namespace {

// An expression as an s-expression, so a tree's shape can be compared as one string:
// `a * b ^ c` is "(* a (^ b c))", `color(1,0,0)` is "(cast color (tuple 1 0 0))".
std::string show(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Number: {
      std::ostringstream o;
      o << static_cast<const NumberExpr&>(e).value;
      return o.str();
    }
    case ExprKind::String: return "\"" + static_cast<const StringExpr&>(e).value + "\"";
    case ExprKind::Name: return static_cast<const NameExpr&>(e).name;
    case ExprKind::Unary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      const char* op = u.op == UnaryOp::Neg ? "neg" : u.op == UnaryOp::Plus ? "pos" : "!";
      return std::string("(") + op + " " + show(*u.operand) + ")";
    }
    case ExprKind::Binary: {
      const auto& b = static_cast<const BinaryExpr&>(e);
      return std::string("(") + spelling(b.op) + " " + show(*b.lhs) + " " + show(*b.rhs) + ")";
    }
    case ExprKind::Ternary: {
      const auto& t = static_cast<const TernaryExpr&>(e);
      return "(? " + show(*t.cond) + " " + show(*t.then_expr) + " " + show(*t.else_expr) + ")";
    }
    case ExprKind::Assign: {
      const auto& a = static_cast<const AssignExpr&>(e);
      static constexpr const char* ops[] = {"=", "+=", "-=", "*=", "/="};
      return std::string("(") + ops[static_cast<int>(a.op)] + " " + show(*a.target) + " " + show(*a.value) + ")";
    }
    case ExprKind::Call: {
      const auto& c = static_cast<const CallExpr&>(e);
      std::string s = "(call " + c.name;
      for (const auto& a : c.args) s += " " + show(*a);
      return s + ")";
    }
    case ExprKind::Cast: {
      const auto& c = static_cast<const CastExpr&>(e);
      std::string s = std::string("(cast ") + to_string(c.to);
      if (!c.space.empty()) s += " \"" + c.space + "\"";
      return s + " " + show(*c.operand) + ")";
    }
    case ExprKind::Tuple: {
      std::string s = "(tuple";
      for (const auto& el : static_cast<const TupleExpr&>(e).elements) s += " " + show(*el);
      return s + ")";
    }
    case ExprKind::Convert:
      return std::string("(convert ") + to_string(e.type.base) + " " + show(*static_cast<const ConvertExpr&>(e).operand) + ")";
    case ExprKind::Index: {
      const auto& x = static_cast<const IndexExpr&>(e);
      return "(index " + show(*x.base) + " " + show(*x.index) + ")";
    }
    case ExprKind::ArrayLit: {
      std::string s = "(array";
      for (const auto& el : static_cast<const ArrayLitExpr&>(e).elements) s += " " + show(*el);
      return s + ")";
    }
  }
  return "?";
}

class ParserTest : public ::testing::Test {
 protected:
  // Preprocesses and parses `text` (no semantic analysis, so names need not be declared).
  TranslationUnit& parse_text(std::string text) {
    file_ = sm_.add("test.sl", std::move(text));
    std::vector<Token> toks = preprocess(sm_, file_, {}, diags_);
    unit_ = parse(toks, diags_);
    return *unit_;
  }
  // The statements of the (only) shader's body.
  const std::vector<StmtPtr>& body() const {
    EXPECT_EQ(unit_->shaders.size(), 1u);
    return unit_->shaders.at(0)->body->stmts;
  }
  // Parses `surface s() { <e>; }` and shows the expression statement's tree.
  std::string expr(const std::string& e) {
    parse_text("surface s() { " + e + "; }");
    EXPECT_FALSE(diags_.has_errors()) << e << "\n" << format_text(diags_.items(), sm_);
    if (body().size() != 1 || body()[0]->kind != StmtKind::Expr) return "<not one expression statement>";
    return show(*static_cast<const ExprStmt&>(*body()[0]).expr);
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const auto& d : diags_.items()) out.push_back(d.code);
    return out;
  }
  static std::string where(const Span& s) { return std::to_string(s.line) + ":" + std::to_string(s.col); }

  SourceManager sm_;
  DiagnosticList diags_;
  FileId file_ = 0;
  std::unique_ptr<TranslationUnit> unit_;
};

// ---- precedence and associativity -----------------------------------------------------------

TEST_F(ParserTest, DotBindsTighterThanCrossWhichBindsTighterThanMultiply) {
  EXPECT_EQ(expr("a * b ^ c . d"), "(* a (^ b (. c d)))");
  EXPECT_EQ(expr("a . b ^ c * d"), "(* (^ (. a b) c) d)");
  EXPECT_EQ(expr("a / b ^ c"), "(/ a (^ b c))");
  // The reason for the rule: the classic diffuse loop body.
  EXPECT_EQ(expr("Cl * normalize(L) . Nf"), "(* Cl (. (call normalize L) Nf))");
}

TEST_F(ParserTest, ArithmeticIsLeftAssociativeWithMultiplyOverAdd) {
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a / b / c"), "(/ (/ a b) c)");
  EXPECT_EQ(expr("a ^ b ^ c"), "(^ (^ a b) c)");
  EXPECT_EQ(expr("a + b * c - d / e"), "(- (+ a (* b c)) (/ d e))");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
}

TEST_F(ParserTest, RelationsAndLogicSitBelowArithmetic) {
  EXPECT_EQ(expr("a < b && c == d || !e"), "(|| (&& (< a b) (== c d)) (! e))");
  EXPECT_EQ(expr("a + 1 >= b * 2"), "(>= (+ a 1) (* b 2))");
  EXPECT_EQ(expr("a != b == c"), "(== (!= a b) c)");
}

TEST_F(ParserTest, UnaryBindsTighterThanEveryBinaryOperator) {
  EXPECT_EQ(expr("-a . b"), "(. (neg a) b)");
  EXPECT_EQ(expr("-a * +b"), "(* (neg a) (pos b))");
  EXPECT_EQ(expr("- -a"), "(neg (neg a))");
}

TEST_F(ParserTest, AssignmentIsRightAssociative) {
  EXPECT_EQ(expr("a = b = c"), "(= a (= b c))");
  EXPECT_EQ(expr("a += b *= 2"), "(+= a (*= b 2))");
  EXPECT_EQ(expr("a -= b /= c + 1"), "(-= a (/= b (+ c 1)))");
}

TEST_F(ParserTest, TernaryNestsToTheRightAndSitsBelowLogic) {
  EXPECT_EQ(expr("a ? b : c ? d : e"), "(? a b (? c d e))");
  EXPECT_EQ(expr("a || b ? c : d"), "(? (|| a b) c d)");
  EXPECT_EQ(expr("x = a < b ? c + 1 : d"), "(= x (? (< a b) (+ c 1) d))");
  EXPECT_EQ(expr("a ? b = 1 : c"), "(? a (= b 1) c)");
}

// ---- casts, constructors, tuples --------------------------------------------------------------

TEST_F(ParserTest, CastsAndConstructors) {
  EXPECT_EQ(expr("color(1, 0, 0)"), "(cast color (tuple 1 0 0))");
  EXPECT_EQ(expr("point \"world\" (0, 0, 1)"), "(cast point \"world\" (tuple 0 0 1))");
  EXPECT_EQ(expr("x = float texture(\"x\")"), "(= x (cast float (call texture \"x\")))");
  EXPECT_EQ(expr("vector \"object\" N"), "(cast vector \"object\" N)");
  // A cast applies to one unary expression, so it binds tighter than any binary operator.
  EXPECT_EQ(expr("x = color noise(P) * 2"), "(= x (* (cast color (call noise P)) 2))");
  EXPECT_EQ(expr("float 1 + 2"), "(+ (cast float 1) 2)");
}

// `type name (` at the start of a statement reads as a local function definition, not as a cast
// of a call (which would have no effect anyway): its parameter list wants types.
TEST_F(ParserTest, TypeNameParenAtStatementStartIsALocalFunction) {
  parse_text("surface s() {\n  float noise(P);\n}");
  EXPECT_EQ(codes(), (std::vector<std::string>{"expected-type"}));
  EXPECT_EQ(where(diags_.items().at(0).span), "2:15");
}

TEST_F(ParserTest, LocalFunctionsAndExternDeclarations) {
  parse_text("surface s() {\n  uniform float half(float x) { extern float y; return x / 2; }\n  void f() {}\n}");
  EXPECT_TRUE(codes().empty());
  const auto& body = unit_->shader()->body->stmts;
  ASSERT_EQ(body.size(), 2u);
  ASSERT_EQ(body[0]->kind, StmtKind::Function);
  const FunctionDecl& half = *static_cast<const FunctionStmt&>(*body[0]).function;
  EXPECT_EQ(half.name, "half");
  EXPECT_TRUE(half.local);
  EXPECT_EQ(half.return_type.detail, Detail::Uniform);
  ASSERT_EQ(half.body->stmts[0]->kind, StmtKind::Decl);
  EXPECT_TRUE(static_cast<const DeclStmt&>(*half.body->stmts[0]).is_extern);
  EXPECT_EQ(where(body[1]->span), "3:3");
}

TEST_F(ParserTest, ArraysDeclaredIndexedAndAssigned) {
  EXPECT_EQ(expr("a[i + 1] += b[2] * 3"), "(+= (index a (+ i 1)) (* (index b 2) 3))");
  parse_text("surface s(float k[3] = {1, 2, 3}) {\n  color c[2] = {Cs, 1}, d;\n  float e[] = {1};\n}");
  EXPECT_TRUE(codes().empty());
  EXPECT_EQ(unit_->shader()->params[0].type.array, 3);
  EXPECT_EQ(show(*unit_->shader()->params[0].default_value), "(array 1 2 3)");
  const auto& decl = static_cast<const DeclStmt&>(*unit_->shader()->body->stmts[0]);
  EXPECT_EQ(decl.vars[0].array, 2);
  EXPECT_EQ(decl.vars[1].array, 0);
  EXPECT_EQ(static_cast<const DeclStmt&>(*unit_->shader()->body->stmts[1]).vars[0].array, Type::kAnyLength);
}

TEST_F(ParserTest, AnArrayLengthIsAWholeNumberWrittenInTheShader) {
  parse_text("surface s() {\n  float a[0];\n  float b[n];\n}");
  EXPECT_EQ(codes(), (std::vector<std::string>{"array-size", "array-size"}));
  EXPECT_EQ(where(diags_.items().at(0).span), "2:11");
}

TEST_F(ParserTest, CastRecordsTheSpaceNameAndWhereItIs) {
  parse_text("surface s() {\n  Ci = point \"world\" (0, 0, 1);\n}");
  ASSERT_FALSE(diags_.has_errors());
  const auto& a = static_cast<const AssignExpr&>(*static_cast<const ExprStmt&>(*body()[0]).expr);
  ASSERT_EQ(a.value->kind, ExprKind::Cast);
  const auto& c = static_cast<const CastExpr&>(*a.value);
  EXPECT_EQ(c.to, BaseType::Point);
  EXPECT_EQ(c.space, "world");
  EXPECT_EQ(where(c.space_span), "2:14");
  EXPECT_EQ(c.space_span.length, 7u);  // the quotes included
  EXPECT_EQ(where(c.span), "2:8");
}

TEST_F(ParserTest, ParenthesesGroupOneValueAndBuildTuplesFromSeveral) {
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("((a + b))"), "(+ a b)");
  EXPECT_EQ(expr("(1, 2, 3)"), "(tuple 1 2 3)");
  EXPECT_EQ(expr("(a, b + 1)"), "(tuple a (+ b 1))");
  EXPECT_EQ(expr("(1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1)"), "(tuple 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1)");
}

TEST_F(ParserTest, TupleSpanCoversBothParentheses) {
  parse_text("surface s() {\n  Ci = (1, 2, 3);\n}");
  ASSERT_FALSE(diags_.has_errors());
  const auto& a = static_cast<const AssignExpr&>(*static_cast<const ExprStmt&>(*body()[0]).expr);
  ASSERT_EQ(a.value->kind, ExprKind::Tuple);
  EXPECT_EQ(where(a.value->span), "2:8");
  EXPECT_EQ(a.value->span.length, 9u);  // "(1, 2, 3)"
}

// ---- declarations and parameter lists --------------------------------------------------------

TEST_F(ParserTest, ShaderParametersWithDefaultsOutputAndDetail) {
  parse_text("surface s(float Ka = 1; float Kd = .5; color c = 1; output varying float o = 0; uniform string map = \"\";) {}");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  ASSERT_EQ(unit_->shaders.size(), 1u);
  const ShaderDecl& sh = *unit_->shaders[0];
  EXPECT_EQ(sh.kind, ShaderKind::Surface);
  EXPECT_EQ(sh.name, "s");
  ASSERT_EQ(sh.params.size(), 5u);
  struct Want { const char* name; BaseType base; Detail detail; bool output; const char* def; };
  const Want want[] = {{"Ka", BaseType::Float, Detail::Unspecified, false, "1"},
                       {"Kd", BaseType::Float, Detail::Unspecified, false, "0.5"},
                       {"c", BaseType::Color, Detail::Unspecified, false, "1"},
                       {"o", BaseType::Float, Detail::Varying, true, "0"},
                       {"map", BaseType::String, Detail::Uniform, false, "\"\""}};
  for (std::size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(want[i].name);
    const Param& p = sh.params[i];
    EXPECT_EQ(p.name, want[i].name);
    EXPECT_EQ(p.type.base, want[i].base);
    EXPECT_EQ(p.type.detail, want[i].detail);
    EXPECT_EQ(p.output, want[i].output);
    ASSERT_TRUE(p.default_value);
    EXPECT_EQ(show(*p.default_value), want[i].def);
  }
}

// CORE BUG (parser.cpp, Parser::params): a shader parameter's default is parsed with expr(), which
// rejects the comma that separates names of one group, so `float Ka = 1, Kd = .5` reports
// "comma-operator" at the ','. The default should be parsed with assignment(), as declarations
// are. Enable this test when it is fixed.
TEST_F(ParserTest, ShaderParameterGroupSharesItsTypeAcrossCommas) {
  parse_text("surface s(float Ka = 1, Kd = .5; color c = 1;) { Ci = c * Ka * Kd; }");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  const ShaderDecl& sh = *unit_->shaders.at(0);
  ASSERT_EQ(sh.params.size(), 3u);
  EXPECT_EQ(sh.params[1].name, "Kd");
  EXPECT_EQ(sh.params[1].type.base, BaseType::Float);
  EXPECT_EQ(show(*sh.params[1].default_value), "0.5");
  EXPECT_EQ(sh.params[2].type.base, BaseType::Color);
}

TEST_F(ParserTest, FunctionParameterGroupsWithOutput) {
  parse_text("void f(float a, b; output color c; output varying point p; normal n) {}\n"
             "uniform float g() { return 1; }");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  ASSERT_EQ(unit_->functions.size(), 2u);
  const FunctionDecl& f = *unit_->functions[0];
  EXPECT_EQ(f.return_type.base, BaseType::Void);
  ASSERT_EQ(f.params.size(), 5u);
  EXPECT_EQ(f.params[0].name, "a");
  EXPECT_EQ(f.params[1].name, "b");
  EXPECT_EQ(f.params[1].type.base, BaseType::Float);
  EXPECT_FALSE(f.params[1].output);
  EXPECT_EQ(f.params[2].type.base, BaseType::Color);
  EXPECT_TRUE(f.params[2].output);
  EXPECT_TRUE(f.params[3].output);
  EXPECT_EQ(f.params[3].type, (Type{BaseType::Point, Detail::Varying}));
  EXPECT_FALSE(f.params[4].output);  // `output` belongs to its group only
  EXPECT_EQ(f.params[4].type.base, BaseType::Normal);
  for (const Param& p : f.params) EXPECT_FALSE(p.default_value);
  const FunctionDecl& g = *unit_->functions[1];
  EXPECT_EQ(g.return_type, (Type{BaseType::Float, Detail::Uniform}));
  EXPECT_TRUE(g.params.empty());
}

TEST_F(ParserTest, DeclarationsVersusExpressionStatements) {
  parse_text("surface s() { float x = 1, y; uniform color c; color(1, 0, 0); x = 2; }");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  ASSERT_EQ(body().size(), 4u);
  ASSERT_EQ(body()[0]->kind, StmtKind::Decl);
  const auto& d = static_cast<const DeclStmt&>(*body()[0]);
  EXPECT_EQ(d.type.base, BaseType::Float);
  ASSERT_EQ(d.vars.size(), 2u);
  EXPECT_EQ(d.vars[0].name, "x");
  EXPECT_TRUE(d.vars[0].init);
  EXPECT_FALSE(d.vars[1].init);
  ASSERT_EQ(body()[1]->kind, StmtKind::Decl);
  EXPECT_EQ(static_cast<const DeclStmt&>(*body()[1]).type, (Type{BaseType::Color, Detail::Uniform}));
  EXPECT_EQ(body()[2]->kind, StmtKind::Expr);  // a constructor, not a declaration
  EXPECT_EQ(body()[3]->kind, StmtKind::Expr);
}

// ---- statements -------------------------------------------------------------------------------

TEST_F(ParserTest, IlluminanceForms) {
  parse_text("surface s() {\n"
             "  illuminance(P) { }\n"
             "  illuminance(P, N, PI / 2) { }\n"
             "  illuminance(\"specular\", P) ;\n"
             "  illuminance(\"specular\", P, N, 1) Ci += Cl;\n"
             "}");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  ASSERT_EQ(body().size(), 4u);
  for (const auto& st : body()) ASSERT_EQ(st->kind, StmtKind::Illuminance);
  auto il = [&](int i) -> const IlluminanceStmt& { return static_cast<const IlluminanceStmt&>(*body()[i]); };
  EXPECT_FALSE(il(0).category);
  EXPECT_EQ(show(*il(0).position), "P");
  EXPECT_FALSE(il(0).axis);
  EXPECT_FALSE(il(0).angle);
  EXPECT_EQ(il(0).body->kind, StmtKind::Block);
  EXPECT_FALSE(il(1).category);
  EXPECT_EQ(show(*il(1).axis), "N");
  EXPECT_EQ(show(*il(1).angle), "(/ PI 2)");
  ASSERT_TRUE(il(2).category);
  EXPECT_EQ(show(*il(2).category), "\"specular\"");
  EXPECT_EQ(show(*il(2).position), "P");
  EXPECT_FALSE(il(2).axis);
  EXPECT_EQ(il(2).body->kind, StmtKind::Empty);
  EXPECT_EQ(show(*il(3).category), "\"specular\"");
  EXPECT_EQ(show(*il(3).angle), "1");
  EXPECT_EQ(il(3).body->kind, StmtKind::Expr);
}

TEST_F(ParserTest, IlluminateAndSolarForms) {
  parse_text("light l() {\n"
             "  illuminate(point \"shader\" (0, 0, 0)) { Cl = 1; }\n"
             "  illuminate(Ps, vector(0, 0, 1), 0.5) Cl = 1;\n"
             "  solar() { }\n"
             "  solar(vector(0, 0, -1), 0) { }\n"
             "}");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  EXPECT_EQ(unit_->shaders.at(0)->kind, ShaderKind::Light);
  ASSERT_EQ(body().size(), 4u);
  const auto& a = static_cast<const IlluminateStmt&>(*body()[0]);
  ASSERT_EQ(a.kind, StmtKind::Illuminate);
  EXPECT_EQ(show(*a.position), "(cast point \"shader\" (tuple 0 0 0))");
  EXPECT_FALSE(a.axis);
  const auto& b = static_cast<const IlluminateStmt&>(*body()[1]);
  EXPECT_EQ(show(*b.axis), "(cast vector (tuple 0 0 1))");
  EXPECT_EQ(show(*b.angle), "0.5");
  const auto& c = static_cast<const SolarStmt&>(*body()[2]);
  ASSERT_EQ(c.kind, StmtKind::Solar);
  EXPECT_FALSE(c.axis);
  EXPECT_FALSE(c.angle);
  const auto& d = static_cast<const SolarStmt&>(*body()[3]);
  EXPECT_EQ(show(*d.axis), "(cast vector (tuple 0 0 (neg 1)))");
  EXPECT_EQ(show(*d.angle), "0");
}

TEST_F(ParserTest, LightStatementsWithTheWrongArgumentCountAreErrors) {
  parse_text("surface s() {\n  illuminance(P, N) { }\n  illuminance(\"cat\") { }\n}\n"
             "light l() {\n  illuminate() { }\n  solar(I) { }\n}");
  EXPECT_EQ(codes(), (std::vector<std::string>{"illuminance-args", "illuminance-args", "illuminate-args", "solar-args"}));
  ASSERT_EQ(diags_.items().size(), 4u);
  EXPECT_EQ(where(diags_.items()[0].span), "2:3");
  EXPECT_EQ(where(diags_.items()[3].span), "7:3");
}

TEST_F(ParserTest, BreakAndContinueLevels) {
  parse_text("surface s() { while (1) { for (;;) { break 2; continue; continue 1; break; } } }");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  const auto& w = static_cast<const WhileStmt&>(*body()[0]);
  const auto& f = static_cast<const ForStmt&>(*static_cast<const BlockStmt&>(*w.body).stmts[0]);
  EXPECT_FALSE(f.init);
  EXPECT_FALSE(f.cond);
  EXPECT_FALSE(f.step);
  const auto& jumps = static_cast<const BlockStmt&>(*f.body).stmts;
  ASSERT_EQ(jumps.size(), 4u);
  EXPECT_EQ(jumps[0]->kind, StmtKind::Break);
  EXPECT_EQ(static_cast<const JumpStmt&>(*jumps[0]).levels, 2);
  EXPECT_EQ(jumps[1]->kind, StmtKind::Continue);
  EXPECT_EQ(static_cast<const JumpStmt&>(*jumps[1]).levels, 1);
  EXPECT_EQ(static_cast<const JumpStmt&>(*jumps[2]).levels, 1);
  EXPECT_EQ(static_cast<const JumpStmt&>(*jumps[3]).levels, 1);
}

TEST_F(ParserTest, BadJumpLevelsAreReportedAtTheNumber) {
  parse_text("surface s() {\n  while (1) { break 0; continue 1.5; break 65; break 64; }\n}");
  EXPECT_EQ(codes(), (std::vector<std::string>{"bad-jump-level", "bad-jump-level", "bad-jump-level"}));
  ASSERT_EQ(diags_.items().size(), 3u);
  EXPECT_EQ(where(diags_.items()[0].span), "2:21");
  EXPECT_EQ(where(diags_.items()[1].span), "2:33");
  EXPECT_EQ(where(diags_.items()[2].span), "2:44");
}

TEST_F(ParserTest, IfElseAttachesToTheNearestIf) {
  parse_text("surface s() { if (a) if (b) x = 1; else x = 2; }");
  ASSERT_FALSE(diags_.has_errors());
  const auto& outer = static_cast<const IfStmt&>(*body()[0]);
  EXPECT_FALSE(outer.else_stmt);
  ASSERT_EQ(outer.then_stmt->kind, StmtKind::If);
  EXPECT_TRUE(static_cast<const IfStmt&>(*outer.then_stmt).else_stmt);
}

// ---- spans -------------------------------------------------------------------------------------

TEST_F(ParserTest, EveryNodeKnowsItsLineAndColumn) {
  parse_text("surface plain(float Kd = 1)\n"
             "{\n"
             "  float x = 1;\n"
             "  Ci = Cs * x + noise(P);\n"
             "  if (x > 0) { x = 2; }\n"
             "}\n");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  const ShaderDecl& sh = *unit_->shaders.at(0);
  EXPECT_EQ(where(sh.span), "1:9");
  EXPECT_EQ(sh.span.length, 5u);
  EXPECT_EQ(where(sh.params[0].span), "1:21");
  EXPECT_EQ(where(sh.params[0].default_value->span), "1:26");
  EXPECT_EQ(where(sh.body->span), "2:1");
  EXPECT_EQ(sh.body->span.length, sm_.file(file_).text.size() - sm_.file(file_).line_starts[1] - 1);  // "{" .. "}"

  const auto& decl = static_cast<const DeclStmt&>(*body()[0]);
  EXPECT_EQ(where(decl.span), "3:3");
  EXPECT_EQ(decl.span.length, 12u);  // "float x = 1;"
  EXPECT_EQ(where(decl.vars[0].span), "3:9");
  EXPECT_EQ(where(decl.vars[0].init->span), "3:13");

  const auto& st = static_cast<const ExprStmt&>(*body()[1]);
  EXPECT_EQ(where(st.span), "4:3");
  EXPECT_EQ(st.span.length, 23u);  // with the ';'
  const auto& a = static_cast<const AssignExpr&>(*st.expr);
  EXPECT_EQ(a.span.length, 22u);
  const auto& sum = static_cast<const BinaryExpr&>(*a.value);
  EXPECT_EQ(where(sum.span), "4:8");
  EXPECT_EQ(sum.span.length, 17u);  // "Cs * x + noise(P)"
  const auto& call = static_cast<const CallExpr&>(*sum.rhs);
  EXPECT_EQ(where(call.span), "4:17");
  EXPECT_EQ(call.span.length, 8u);  // "noise(P)"
  EXPECT_EQ(call.name_span.length, 5u);
  EXPECT_EQ(where(static_cast<const CallExpr&>(call).args[0]->span), "4:23");

  const auto& i = static_cast<const IfStmt&>(*body()[2]);
  EXPECT_EQ(where(i.span), "5:3");
  EXPECT_EQ(where(i.cond->span), "5:7");
  EXPECT_EQ(where(i.then_stmt->span), "5:14");
}

TEST_F(ParserTest, MacroExpandedNodesPointAtTheUse) {
  parse_text("#define TWICE(x) (2 * (x))\nsurface s() {\n  Ci = TWICE(Cs);\n}");
  ASSERT_FALSE(diags_.has_errors()) << format_text(diags_.items(), sm_);
  const auto& a = static_cast<const AssignExpr&>(*static_cast<const ExprStmt&>(*body()[0]).expr);
  EXPECT_EQ(show(*a.value), "(* 2 Cs)");
  EXPECT_EQ(a.value->span.line, 3u);
  EXPECT_EQ(a.value->span.file, file_);
}

// ---- error recovery ----------------------------------------------------------------------------

class RecoveryTest : public ParserTest {
 protected:
  // The full front end, so recovery is seen with the diagnostics the user would get.
  void compile_text(std::string text) {
    file_ = sm_.add("test.sl", std::move(text));
    unit_ = compile(sm_, file_, {}, diags_);
  }
  std::vector<std::string> errors() const {
    std::vector<std::string> out;
    for (const auto& d : diags_.items())
      if (d.severity == Severity::Error) out.push_back(where(d.span) + " " + d.code);
    return out;
  }
};

TEST_F(RecoveryTest, ThreeErrorsInThreeDefinitionsAreAllReported) {
  compile_text("void f(float a) {\n"             // 1
               "  float x = a +;\n"              // 2  expression missing after '+'
               "}\n"                             // 3
               "float g(float b) {\n"            // 4
               "  float c = b\n"                 // 5  missing ';' (reported just after 'b')
               "  c = 2;\n"                      // 6
               "  return b;\n"                   // 7
               "}\n"                             // 8
               "surface s() {\n"                 // 9
               "  Ci = color(1, 0, 0));\n"       // 10 stray ')'
               "  Oi = 1;\n"                     // 11
               "}\n");
  EXPECT_EQ(errors(), (std::vector<std::string>{"2:16 expected-expression", "5:14 expected-token", "10:22 expected-token"}))
      << format_text(diags_.items(), sm_);
  EXPECT_EQ(diags_.items()[1].message, "expected ';' after the declaration, found 'c'");
  // Everything after each error was still parsed.
  EXPECT_EQ(unit_->functions.size(), 2u);
  ASSERT_EQ(unit_->shaders.size(), 1u);
  EXPECT_EQ(unit_->shaders[0]->body->stmts.size(), 1u);  // `Oi = 1;`
}

TEST_F(RecoveryTest, ThreeBadStatementsInOneBlock) {
  compile_text("surface s() {\n"
               "  float x = 1;\n"
               "  x = 1 +* 2;\n"
               "  x = (1, 2;\n"
               "  x = ];\n"
               "  Ci = x;\n"
               "}\n");
  EXPECT_EQ(errors(), (std::vector<std::string>{"3:10 expected-expression", "4:12 expected-token", "5:7 expected-expression"}))
      << format_text(diags_.items(), sm_);
  EXPECT_EQ(diags_.items()[1].message, "expected ')' to close the parenthesis, found ';'");
  EXPECT_EQ(unit_->shaders.at(0)->body->stmts.size(), 2u);  // the declaration and `Ci = x;`
}

TEST_F(RecoveryTest, GarbageAtTopLevelSkipsToTheNextDefinition) {
  compile_text("42 + ;\nthis is not RSL\nsurface s() { Ci = 1; }\n");
  ASSERT_EQ(diags_.error_count(), 1u) << format_text(diags_.items(), sm_);
  EXPECT_EQ(errors()[0], "1:1 expected-definition");
  ASSERT_EQ(unit_->shaders.size(), 1u);
  EXPECT_EQ(unit_->shaders[0]->name, "s");
}

TEST_F(RecoveryTest, UnterminatedBlockPointsBackToItsBrace) {
  compile_text("surface s() {\n  if (1) {\n    Ci = 1;\n");
  ASSERT_GE(diags_.items().size(), 1u);
  const Diagnostic& d = diags_.items()[0];
  EXPECT_EQ(d.code, "unterminated-block");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(where(d.notes[0].span), "2:10");  // the innermost open brace
}

TEST_F(RecoveryTest, DeepNestingIsAnErrorNotACrash) {
  compile_text("surface s() { Ci = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "; }");
  std::vector<std::string> c = codes();
  EXPECT_NE(std::find(c.begin(), c.end(), "nesting-too-deep"), c.end());
  diags_.clear();
  std::string blocks;
  for (int i = 0; i < 5000; ++i) blocks += "if (1) {";
  compile_text("surface s() { " + blocks);
  c = codes();
  EXPECT_NE(std::find(c.begin(), c.end(), "nesting-too-deep"), c.end());
}

// Every prefix of every sample: the compiler must survive, keep diagnostics inside the text, and
// report an error whenever the shader has started but its closing brace is missing.
TEST(ParserRobustness, EveryPrefixOfEverySampleCompilesWithoutCrashing) {
  const std::string dir = std::string(PASSLAB_SAMPLES_DIR) + "/shaders";
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".sl") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_GE(paths.size(), 5u);
  const std::regex shader_start(R"((^|\n)(surface|light|displacement)\s)");
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    SourceManager whole_sm;
    std::string error;
    auto whole_id = whole_sm.load(path, &error);
    ASSERT_TRUE(whole_id) << error;
    const std::string text = whole_sm.file(*whole_id).text;
    DiagnosticList whole;
    compile(whole_sm, *whole_id, {}, whole);
    ASSERT_FALSE(whole.has_errors()) << format_text(whole.items(), whole_sm);

    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, shader_start));
    const std::size_t start = static_cast<std::size_t>(m.position(0)) + m[1].length();
    const std::size_t last_brace = text.rfind('}');
    std::size_t failures = 0;
    for (std::size_t n = 0; n < text.size(); ++n) {
      SourceManager sm;
      DiagnosticList diags;
      FileId id = sm.add(path, text.substr(0, n));  // the real path, so its #include resolves
      ASSERT_NO_THROW(compile(sm, id, {}, diags)) << "prefix of " << n << " characters";
      for (const Diagnostic& d : diags.items()) {
        if (!d.span.valid()) continue;
        ASSERT_LE(d.span.file, sm.size());
        ASSERT_LE(d.span.line, sm.file(d.span.file).line_count() + 1) << d.code;
      }
      if (n > start && n <= last_brace && !diags.has_errors() && ++failures < 5)
        ADD_FAILURE() << "no error for a prefix of " << n << " characters ending in: " << text.substr(n > 40 ? n - 40 : 0, 40);
    }
  }
}

TEST(ParserRobustness, RandomTokenSoupNeverCrashes) {
  const std::vector<std::string> pieces = {
      "surface", "light", "float", "color", "point", "void", "output", "uniform", "if", "else", "while", "for",
      "break", "continue", "return", "illuminance", "illuminate", "solar", "x", "P", "Ci", "noise", "1", ".5",
      "\"s\"", "(", ")", "{", "}", "[", "]", ",", ";", "?", ":", ".", "^", "+", "-", "*", "/", "=", "+=", "==",
      "<", "&&", "||", "!", "++", "@", "\n", "#define M(a) a\n", "M(", "\"open"};
  std::mt19937 rng(12345);
  for (int round = 0; round < 400; ++round) {
    std::string text;
    int n = static_cast<int>(rng() % 120);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()] + " ";
    SourceManager sm;
    DiagnosticList diags;
    FileId id = sm.add("soup.sl", text);
    ASSERT_NO_THROW(compile(sm, id, {}, diags)) << text;
    EXPECT_NO_THROW(format_text(diags.items(), sm)) << text;
  }
}

}  // namespace
}  // namespace passlab::lang
