// SPDX-License-Identifier: GPL-3.0-or-later
// The RSL syntax tree: expressions, statements, functions and shaders, with a span on every node.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/lang/source.h"
#include "core/lang/types.h"

namespace passlab::lang {

// Globals visible to shaders (RI 3.2 §15.2, Tables 15.1-15.5). Ps is the point a light shader
// illuminates and Ns its normal (PRMan's name); time, dtime, dPdtime and ncomps exist in every
// kind; alpha is the imager's coverage. Which kind sees which is sema's table.
enum class Global : std::uint8_t {
  P, N, Ng, I, E, s, t, u, v, du, dv, dPdu, dPdv, L, Cl, Ol, Ci, Oi, Cs, Os, Ps,
  time, dtime, dPdtime, ncomps, alpha, Ns,
  Count
};
const char* to_string(Global g);

enum class SymbolKind : std::uint8_t { Global, ShaderParam, FunctionParam, Local, Constant };

// What a name refers to; owned by the TranslationUnit, referenced from NameExpr and VarDecl.
struct Symbol {
  SymbolKind kind = SymbolKind::Local;
  std::string name;
  Type type;
  bool output = false;
  Span decl_span;
  Global global = Global::Count;  // for SymbolKind::Global
  double constant = 0;            // for SymbolKind::Constant (PI)
  int index = 0;                  // parameter position
  int id = 0;                     // unique in the translation unit: the IR's variable identity
  bool resizable = false;         // a local array declared with [] and no values: push, pop and
                                  // resize change its length (type.array is its capacity)
};

// ---- expressions ----------------------------------------------------------------------------

enum class ExprKind : std::uint8_t { Number, String, Name, Unary, Binary, Ternary, Assign, Call, Cast, Tuple, Convert, Index, ArrayLit };

struct Expr {
  Expr(ExprKind k, Span s) : kind(k), span(s) {}
  virtual ~Expr() = default;
  ExprKind kind;
  Span span;
  Type type;  // set by sema
};
using ExprPtr = std::unique_ptr<Expr>;

struct NumberExpr : Expr {
  NumberExpr(Span s, double v) : Expr(ExprKind::Number, s), value(v) {}
  double value;
};

struct StringExpr : Expr {
  StringExpr(Span s, std::string v) : Expr(ExprKind::String, s), value(std::move(v)) {}
  std::string value;
};

struct NameExpr : Expr {
  NameExpr(Span s, std::string n) : Expr(ExprKind::Name, s), name(std::move(n)) {}
  std::string name;
  const Symbol* symbol = nullptr;  // sema
};

enum class UnaryOp : std::uint8_t { Neg, Plus, Not };
struct UnaryExpr : Expr {
  UnaryExpr(Span s, UnaryOp o, ExprPtr e) : Expr(ExprKind::Unary, s), op(o), operand(std::move(e)) {}
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Dot, Cross, Lt, Gt, Le, Ge, Eq, Ne, And, Or };
const char* spelling(BinaryOp op);
struct BinaryExpr : Expr {
  BinaryExpr(Span s, BinaryOp o, ExprPtr l, ExprPtr r)
      : Expr(ExprKind::Binary, s), op(o), lhs(std::move(l)), rhs(std::move(r)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
};

struct TernaryExpr : Expr {
  TernaryExpr(Span s, ExprPtr c, ExprPtr a, ExprPtr b)
      : Expr(ExprKind::Ternary, s), cond(std::move(c)), then_expr(std::move(a)), else_expr(std::move(b)) {}
  ExprPtr cond, then_expr, else_expr;
};

enum class AssignOp : std::uint8_t { Set, Add, Sub, Mul, Div };
struct AssignExpr : Expr {
  AssignExpr(Span s, AssignOp o, ExprPtr t, ExprPtr v)
      : Expr(ExprKind::Assign, s), op(o), target(std::move(t)), value(std::move(v)) {}
  AssignOp op;
  ExprPtr target;  // a NameExpr or an IndexExpr of one (the parser reports anything else)
  ExprPtr value;
};

// `a[i]`: an element of an array variable.
struct IndexExpr : Expr {
  IndexExpr(Span s, ExprPtr b, ExprPtr i) : Expr(ExprKind::Index, s), base(std::move(b)), index(std::move(i)) {}
  ExprPtr base;  // a NameExpr
  ExprPtr index;
};

// `{a, b, c}`: the values of an array, in an initializer or a parameter's default.
struct ArrayLitExpr : Expr {
  explicit ArrayLitExpr(Span s) : Expr(ExprKind::ArrayLit, s) {}
  std::vector<ExprPtr> elements;
};

// The variable an assignment target names: `x` or `x[i]`.
inline const NameExpr& target_name(const Expr& target) {
  const Expr& e = target.kind == ExprKind::Index ? *static_cast<const IndexExpr&>(target).base : target;
  return static_cast<const NameExpr&>(e);
}

struct FunctionDecl;
struct CallExpr : Expr {
  CallExpr(Span s, std::string n, Span ns) : Expr(ExprKind::Call, s), name(std::move(n)), name_span(ns) {}
  std::string name;
  Span name_span;
  std::vector<ExprPtr> args;
  ExprPtr channel;                         // texture("name"[channel], ...): the first channel read
  int channel_index = 0;                   // sema: its value, or kChannelChosenAtRun
  static constexpr int kChannelChosenAtRun = -1;  // an expression: lowering selects among the channels
  int builtin = -1;                        // sema: index into the standard library table
  const FunctionDecl* function = nullptr;  // sema: a user function
  // sema: random() whose value a uniform variable receives, or BMRT's urand(): one value for
  // every point shaded (a renderer's uniform random), not one per point.
  bool uniform_random = false;
};

// `color (r,g,b)`, `point "world" (x,y,z)`, `float texture(...)`: a type name before an expression.
struct CastExpr : Expr {
  CastExpr(Span s, BaseType t) : Expr(ExprKind::Cast, s), to(t) {}
  BaseType to;
  std::string space;  // "" when no space/colour-space string was written
  Span space_span;
  ExprPtr operand;
};

// `(a, b, c)` or the 16 numbers of a matrix.
struct TupleExpr : Expr {
  explicit TupleExpr(Span s) : Expr(ExprKind::Tuple, s) {}
  std::vector<ExprPtr> elements;
};

// An implicit promotion inserted by sema (float to triple or matrix, triple to triple, to bool).
struct ConvertExpr : Expr {
  ConvertExpr(Span s, ExprPtr e) : Expr(ExprKind::Convert, s), operand(std::move(e)) {}
  ExprPtr operand;
};

// ---- statements -----------------------------------------------------------------------------

enum class StmtKind : std::uint8_t {
  Block, Decl, Expr, If, While, For, Break, Continue, Return, Illuminance, Illuminate, Solar, Empty, Function, Gather
};

struct Stmt {
  Stmt(StmtKind k, Span s) : kind(k), span(s) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  Span span;
};
using StmtPtr = std::unique_ptr<Stmt>;

struct BlockStmt : Stmt {
  explicit BlockStmt(Span s) : Stmt(StmtKind::Block, s) {}
  std::vector<StmtPtr> stmts;
};

struct VarDecl {
  std::string name;
  Span span;
  ExprPtr init;
  int array = 0;             // `float a[3]`: 3; `float a[] = {...}`: Type::kAnyLength until sema counts
  Symbol* symbol = nullptr;  // sema
};

struct DeclStmt : Stmt {
  DeclStmt(Span s, Type t) : Stmt(StmtKind::Decl, s), type(t) {}
  Type type;
  std::vector<VarDecl> vars;
  // `extern float x;`: no new variable; each name refers to the enclosing function's or
  // shader's variable, or the global, of that name (sema binds VarDecl::symbol to it).
  bool is_extern = false;
};

struct ExprStmt : Stmt {
  ExprStmt(Span s, ExprPtr e) : Stmt(StmtKind::Expr, s), expr(std::move(e)) {}
  ExprPtr expr;
};

struct IfStmt : Stmt {
  explicit IfStmt(Span s) : Stmt(StmtKind::If, s) {}
  ExprPtr cond;
  StmtPtr then_stmt, else_stmt;  // else may be null
};

struct WhileStmt : Stmt {
  explicit WhileStmt(Span s) : Stmt(StmtKind::While, s) {}
  ExprPtr cond;
  StmtPtr body;
};

struct ForStmt : Stmt {
  explicit ForStmt(Span s) : Stmt(StmtKind::For, s) {}
  ExprPtr init, cond, step;  // each may be null
  StmtPtr body;
};

// `break [n]` / `continue [n]`: leave or continue the n-th enclosing loop.
struct JumpStmt : Stmt {
  JumpStmt(StmtKind k, Span s, int n) : Stmt(k, s), levels(n) {}
  int levels;
};

struct ReturnStmt : Stmt {
  ReturnStmt(Span s, ExprPtr e) : Stmt(StmtKind::Return, s), value(std::move(e)) {}
  ExprPtr value;  // may be null
};

// illuminance([category,] position [, axis, angle]) body
struct IlluminanceStmt : Stmt {
  explicit IlluminanceStmt(Span s) : Stmt(StmtKind::Illuminance, s) {}
  ExprPtr category, position, axis, angle;
  StmtPtr body;
};

// illuminate(position [, axis, angle]) body
struct IlluminateStmt : Stmt {
  explicit IlluminateStmt(Span s) : Stmt(StmtKind::Illuminate, s) {}
  ExprPtr position, axis, angle;
  StmtPtr body;
};

// solar([axis, angle]) body
struct SolarStmt : Stmt {
  explicit SolarStmt(Span s) : Stmt(StmtKind::Solar, s) {}
  ExprPtr axis, angle;
  StmtPtr body;
};

struct EmptyStmt : Stmt {
  explicit EmptyStmt(Span s) : Stmt(StmtKind::Empty, s) {}
};

// gather(category, P, dir, angle, samples [, "name", output variable ...]) body [else miss]:
// PRMan's ray-traced loop over the rays a cone casts; it checks, and no fragment target runs it.
struct GatherStmt : Stmt {
  explicit GatherStmt(Span s) : Stmt(StmtKind::Gather, s) {}
  std::vector<ExprPtr> args;
  StmtPtr body, else_body;  // else_body may be null
};

struct FunctionDecl;
// A function defined inside a shader or another function (an RSL local function): visible from
// its definition to the end of the enclosing block, it reads and writes the enclosing variables
// by name, and every call is inlined where it is made.
struct FunctionStmt : Stmt {
  FunctionStmt(Span s, std::unique_ptr<FunctionDecl> f);
  ~FunctionStmt() override;
  std::unique_ptr<FunctionDecl> function;
};

// ---- definitions ----------------------------------------------------------------------------

struct Param {
  Type type;
  bool output = false;
  std::string name;
  Span span;
  ExprPtr default_value;  // shader parameters only
  Symbol* symbol = nullptr;
};

struct FunctionDecl {
  Type return_type;
  std::string name;
  Span span;  // the name
  std::vector<Param> params;
  std::unique_ptr<BlockStmt> body;
  bool prelude = false;  // part of the built-in RSL prelude (diffuse, specular, ...)
  bool local = false;    // defined inside a shader or function (a FunctionStmt)
  // sema: the shader globals it (or a function it calls) assigns, as RI 3.2-era compilers allowed
  // (`Oi = Os; Ci = ...` in a helper); such a function runs inlined where it is called.
  std::vector<Global> writes_globals;
};

inline FunctionStmt::FunctionStmt(Span s, std::unique_ptr<FunctionDecl> f) : Stmt(StmtKind::Function, s), function(std::move(f)) {}
inline FunctionStmt::~FunctionStmt() = default;

enum class ShaderKind : std::uint8_t { Surface, Light, Displacement, Volume, Imager };
const char* to_string(ShaderKind k);

struct ShaderDecl {
  ShaderKind kind = ShaderKind::Surface;
  std::string name;
  Span span;  // the name
  std::vector<Param> params;
  std::unique_ptr<BlockStmt> body;
  bool has_light_statement = false;  // sema: illuminate/solar present (else an ambient light)
};

struct TranslationUnit {
  std::vector<std::unique_ptr<FunctionDecl>> functions;
  std::vector<std::unique_ptr<ShaderDecl>> shaders;
  std::deque<Symbol> symbols;  // stable addresses

  const ShaderDecl* shader() const { return shaders.empty() ? nullptr : shaders.back().get(); }
};

}  // namespace passlab::lang
