// SPDX-License-Identifier: GPL-3.0-or-later
// The semantic checker's private part, shared by sema.cpp (declarations, scopes, statements) and
// sema_expressions.cpp (expressions, calls and the library's special forms): the globals' tables
// and the Checker class.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/lang/sema.h"
#include "core/lang/stdlib.h"

namespace passlab::lang::sema_detail {

BaseType global_type(Global g);

// Context a body is checked in: what globals exist and which may be written.
enum class Context { Surface, Light, Displacement, Volume, Imager, Function };

// The tables of RI 3.2 §15.2 (Tables 15.1-15.5), with what renderers add: every kind has time,
// dtime and ncomps; a surface also sees Ps (the point lights illuminate: P) and writes P and N as
// PRMan, BMRT and Aqsis allow; a light sees Ns, the normal at Ps (PRMan).
bool global_visible(Context c, Global g);
bool global_writable(Context c, Global g);
// A function may assign a global some shader may (RI 3.2-era compilers allowed it; published
// shaders' helpers set Ci and Oi): each shader that calls it is checked for that global.
bool assigned_in_function(Global g);
std::size_t edit_distance(std::string_view a, std::string_view b);

// 1. Checker: scopes and names, types, overload resolution, implicit promotions made explicit,
// context rules.
class Checker {
 public:
  Checker(TranslationUnit& unit, DiagnosticSink& sink, const SemaOptions& options) : unit_(unit), sink_(sink), options_(options) {
    for (int g = 0; g < static_cast<int>(Global::Count); ++g) {
      Symbol& s = new_symbol(SymbolKind::Global, to_string(static_cast<Global>(g)), {});
      s.global = static_cast<Global>(g);
      const bool uniform = s.global == Global::E || s.global == Global::time || s.global == Global::dtime || s.global == Global::ncomps;
      s.type = {global_type(s.global), uniform ? Detail::Uniform : Detail::Varying};
      globals_[s.name] = &s;
    }
    Symbol& pi = new_symbol(SymbolKind::Constant, "PI", {});
    pi.type = {BaseType::Float, Detail::Uniform};
    pi.constant = 3.14159265358979323846;
    globals_["PI"] = &pi;
  }

  void run();

 private:
  Symbol& new_symbol(SymbolKind kind, std::string name, Span span) {
    Symbol& s = unit_.symbols.emplace_back();
    s.kind = kind;
    s.name = std::move(name);
    s.decl_span = span;
    s.id = static_cast<int>(unit_.symbols.size());
    return s;
  }

  // Whether a library version takes exactly these parameter types (a different list overloads).
  static bool hides_builtin(const FunctionDecl& f);

  static bool same_params(const FunctionDecl& a, const FunctionDecl& b) {
    if (a.params.size() != b.params.size()) return false;
    for (std::size_t i = 0; i < a.params.size(); ++i)
      if (a.params[i].type.base != b.params[i].type.base) return false;
    return true;
  }

  // ---- scopes ----
  void push() {
    scopes_.emplace_back();
    local_functions_.emplace_back();
  }
  void pop() {
    scopes_.pop_back();
    local_functions_.pop_back();
  }
  void declare(Symbol& s);
  Symbol* lookup(const std::string& name) const;
  std::string suggest(const std::string& name) const;
  std::string suggest_function(const std::string& name) const;

  // ---- definitions ----
  void check_params(std::vector<Param>& params, bool shader);

  void check_function(FunctionDecl& f) {
    context_ = Context::Function;
    check_function_body(f);
  }

  // Parameters and body, in a new scope inside whatever encloses the definition.
  void check_function_body(FunctionDecl& f);

  // A local function: visible from here to the end of the enclosing block; its body sees the
  // enclosing variables (lexical scope) and the enclosing shader's globals.
  void check_local_function(FunctionStmt& st);

  // `extern type name;`: binds each name to the variable it names in an enclosing scope.
  void check_extern(DeclStmt& d);

  void check_shader(ShaderDecl& s);

  // ---- statements; each returns whether control can reach the end ----
  bool check_block(BlockStmt& b, bool new_scope = true);

  void check_cond(ExprPtr& e) {
    check_expr(e, BaseType::Bool);
    BaseType t = e->type.base;
    if (t == BaseType::Bool || t == BaseType::Error) return;
    if (t == BaseType::Float) {
      wrap(e, BaseType::Bool);
      return;
    }
    sink_.error("bad-condition", e->span, std::string("a condition must be a relation or a float, not ") + to_string(t));
  }

  // Each returns whether control can fall through to the next statement.
  bool check_stmt(Stmt& st);
  bool check_gather(GatherStmt& g);
  bool check_decl(DeclStmt& d);
  bool check_jump(Stmt& st);
  bool check_return(ReturnStmt& r);
  bool check_illuminance(IlluminanceStmt& s);
  bool check_light_statement(Stmt& st);

  bool check_scoped(Stmt& st) {
    push();
    bool r = check_stmt(st);
    pop();
    return r;
  }

  // ---- expressions ----
  void wrap(ExprPtr& e, BaseType to) {
    Span s = e->span;
    Detail d = e->type.detail;
    auto c = std::make_unique<ConvertExpr>(s, std::move(e));
    c->type = {to, d};
    e = std::move(c);
  }

  // Converts e to `to` if RSL allows it implicitly; reports otherwise.
  void coerce(ExprPtr& e, BaseType to, const std::string& what);

  // A colour stored where a point-like triple is declared, or the reverse: real compilers convert
  // component by component and warn; so does Passlab. (Overloads are still chosen without it.)
  void implicit_conversion(const Expr& e, BaseType from, BaseType to) {
    sink_.warning("implicit-conversion", e.span,
                  std::string("a ") + to_string(from) + " used as a " + to_string(to) + " is converted component by component; write " +
                      to_string(to) + "(...) to say so");
  }

  void set(Expr& e, BaseType b) { e.type = {b, Detail::Unspecified}; }

  static std::string describe(const Type& t) {
    if (!t.is_array()) return std::string("a ") + to_string(t.base);
    if (t.array == Type::kAnyLength) return std::string("an array of ") + to_string(t.base);
    return "an array of " + std::to_string(t.array) + " " + to_string(t.base) + (t.array == 1 ? "" : "s");
  }

  // A whole array where `want` (an array type) is expected: `{...}` values or an array variable.
  // Returns the length it has (want's, or the values' count when want leaves it open).
  int check_array_value(ExprPtr& e, const Type& want, const std::string& what);

  void check_index(IndexExpr& x);

  static std::string format_number(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  void check_expr(ExprPtr& e, BaseType expected);

  static BaseType unify(BaseType a, BaseType b) {
    if (a == BaseType::Error || b == BaseType::Error) return BaseType::Error;
    if (a == b) return a;
    if (a == BaseType::Bool && b == BaseType::Float) return BaseType::Float;
    if (b == BaseType::Bool && a == BaseType::Float) return BaseType::Float;
    if (a == BaseType::Float && is_numeric(b)) return b;
    if (b == BaseType::Float && is_numeric(a)) return a;
    if (is_pointlike(a) && is_pointlike(b)) return BaseType::Vector;
    return BaseType::Error;
  }

  void check_name(NameExpr& n, bool array_ok = false);

  std::string context_name() const;

  void check_unary(UnaryExpr& u);

  // Result type of an arithmetic operator, or Error with a reason already reported.
  BaseType arithmetic(BinaryOp op, BaseType a, BaseType b, const Span& span);

  // `(1, 0.5, 0)`, or a `?:` choosing between two of them: a triple whose type the context gives.
  static bool untyped_triple(const ExprPtr& e) {
    if (e->kind == ExprKind::Ternary) {
      const auto& t = static_cast<const TernaryExpr&>(*e);
      return untyped_triple(t.then_expr) && untyped_triple(t.else_expr);
    }
    return e->kind == ExprKind::Tuple && static_cast<const TupleExpr&>(*e).elements.size() == 3;
  }

  // The type of an untyped triple passed to a library function, as PRMan types it: the
  // parameter's, where a version of the function with this many arguments names one (ctransform's
  // colour, transform's point); else the other triples' (`mix(c, (1, 1, 1), t)`); else what the
  // context expects; else a point, for functions whose value does not depend on it
  // (`comp((1, 2, 3), 1)`, `max((0, 0, 0), (1, 1, 1))`).
  BaseType builtin_triple_hint(const CallExpr& c, std::size_t i, const std::vector<BaseType>& types, BaseType expected) const;

  void check_binary(BinaryExpr& b, BaseType expected);

  void coerce_operand(ExprPtr& e, BaseType t) {
    if (e->type.base != t && e->type.base != BaseType::Error) wrap(e, t);
  }

  void check_assign(AssignExpr& a);

  void writes_global(Global g) {
    auto& w = current_function_->writes_globals;
    if (std::find(w.begin(), w.end(), g) == w.end()) w.push_back(g);
  }

  void check_writable(const Symbol& s, const Span& span);

  void check_call(CallExpr& c, BaseType expected);

  // texture(name[k], ...), environment(name[k], ...), shadow(name[k], ...): a float lookup reads
  // channel k, a colour one channels k to k + 2. A number written in the shader is checked here;
  // any other float expression (a parameter, as published shaders write it) is chosen when the
  // shader runs, and a channel the map does not have reads 0, as renderers fill it (RI 3.2 §15.7).
  // A shadow map has one channel, its depth.
  bool check_channel(CallExpr& c, BaseType result);

  // arraylength(a): the length of an array (RI 3.2 §15.4).
  void check_arraylength(CallExpr& c, const std::vector<Type>& full) {
    if (full.size() != 1 || !full[0].is_array()) {
      if (!(full.size() == 1 && full[0].base == BaseType::Error))
        sink_.error("no-matching-function", c.name_span, "'arraylength' takes one array");
      return set(c, BaseType::Error);
    }
    c.builtin = index_of(Builtin::Arraylength);
    set(c, BaseType::Float);
  }

  // push(a, v), pop(a), resize(a, n) on a resizable array (a local `float a[];`).
  void check_resize(CallExpr& c, const std::vector<Type>& full);

  // spline with a basis name first, or its knots in an array: spline([basis,] x, k0, k1, ...) and
  // spline([basis,] x, knots[]). The knots are floats or one triple type; at least four.
  void check_spline(CallExpr& c, const std::vector<Type>& full);

  static bool is_query(const std::string& name) {
    for (const Signature& s : signatures())
      if (s.query && s.name == name) return true;
    return false;
  }

  // lightsource("name", v), surface("Kd", v), attribute("a:b", v), textureinfo("map", "resolution",
  // r)...: names, then the variable that receives the value (any type, arrays too).
  void check_query(CallExpr& c, const std::vector<Type>& full);

  static int index_of(Builtin id) { return static_cast<int>(&signature_of(id) - signatures().data()); }

  void check_output_arg(ExprPtr& arg, const std::string& what) {
    if (arg->kind != ExprKind::Name) {
      sink_.error("output-arg-not-variable", arg->span, "the argument for output parameter '" + what + "' must be a variable");
      return;
    }
    auto& n = static_cast<NameExpr&>(*arg);
    if (n.symbol) check_writable(*n.symbol, n.span);
  }

  static std::string type_list(const std::vector<BaseType>& types) {
    std::string s;
    for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(to_string(types[i]));
    return s;
  }

  void check_cast(CastExpr& c);

  void check_recursion();

  TranslationUnit& unit_;
  DiagnosticSink& sink_;
  SemaOptions options_;
  std::map<std::string, Symbol*> globals_;
  std::map<std::string, std::vector<const FunctionDecl*>> functions_;
  std::map<const FunctionDecl*, std::set<const FunctionDecl*>> calls_;
  std::vector<std::map<std::string, Symbol*>> scopes_;
  std::vector<std::map<std::string, std::vector<const FunctionDecl*>>> local_functions_;  // beside scopes_
  std::vector<const FunctionDecl*> local_list_;  // every local function, in order
  bool array_ok_ = false;  // the next expression checked may be a whole array (check_expr clears it)
  Context context_ = Context::Surface;
  FunctionDecl* current_function_ = nullptr;
  ShaderDecl* current_shader_ = nullptr;
  int loop_depth_ = 0;
  int light_loop_depth_ = 0;
};

}  // namespace passlab::lang::sema_detail
