// Semantic analysis: names, types, overloads, uniform/varying inference and definite assignment.
//
// Three walks over each body, in this order:
//   1. Checker: scopes and names, types, overload resolution (stdlib table and user functions),
//      implicit promotions made explicit, context rules (L/Cl only inside light loops, ...).
//   2. Frequency: iterates to a fixpoint, marking a local varying when a varying value or a
//      varying condition reaches one of its assignments, then sets every expression's detail
//      and reports varying values flowing into declared-uniform variables.
//   3. Assignment: forward "definitely assigned" sets, warning on reads that may see no value.
#include "core/lang/sema.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "core/lang/stdlib.h"

namespace passlab::lang {

const char* to_string(Global g) {
  static constexpr const char* names[] = {"P", "N", "Ng", "I", "E", "s", "t", "u", "v", "du", "dv",
                                          "dPdu", "dPdv", "L", "Cl", "Ol", "Ci", "Oi", "Cs", "Os", "Ps"};
  auto i = static_cast<std::size_t>(g);
  return i < std::size(names) ? names[i] : "?";
}

const char* to_string(ShaderKind k) {
  switch (k) {
    case ShaderKind::Surface: return "surface";
    case ShaderKind::Light: return "light";
    case ShaderKind::Displacement: return "displacement";
    case ShaderKind::Volume: return "volume";
    case ShaderKind::Imager: return "imager";
  }
  return "?";
}

const char* spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Dot: return ".";
    case BinaryOp::Cross: return "^";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
  }
  return "?";
}

namespace {

BaseType global_type(Global g) {
  switch (g) {
    case Global::P: case Global::E: case Global::Ps: return BaseType::Point;
    case Global::N: case Global::Ng: return BaseType::Normal;
    case Global::I: case Global::dPdu: case Global::dPdv: case Global::L: return BaseType::Vector;
    case Global::Cl: case Global::Ol: case Global::Ci: case Global::Oi: case Global::Cs: case Global::Os:
      return BaseType::Color;
    default: return BaseType::Float;
  }
}

// Context a body is checked in: what globals exist and which may be written.
enum class Context { Surface, Light, Displacement, Function };

bool global_visible(Context c, Global g) {
  switch (c) {
    case Context::Light:
      return g == Global::Ps || g == Global::L || g == Global::Cl || g == Global::Ol || g == Global::E ||
             g == Global::s || g == Global::t || g == Global::u || g == Global::v;
    case Context::Surface:
    case Context::Displacement:
      return g != Global::Ps && g != Global::Ol;
    case Context::Function:
      return true;
  }
  return false;
}

bool global_writable(Context c, Global g) {
  switch (c) {
    case Context::Surface: return g == Global::Ci || g == Global::Oi;
    case Context::Light: return g == Global::Cl || g == Global::Ol;
    case Context::Displacement: return g == Global::P || g == Global::N;
    case Context::Function: return false;  // functions return values; only shaders write globals
  }
  return false;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

// ---------------------------------------------------------------------------------------------
// 1. Checker

class Checker {
 public:
  Checker(TranslationUnit& unit, DiagnosticSink& sink, const SemaOptions& options) : unit_(unit), sink_(sink), options_(options) {
    for (int g = 0; g < static_cast<int>(Global::Count); ++g) {
      Symbol& s = new_symbol(SymbolKind::Global, to_string(static_cast<Global>(g)), {});
      s.global = static_cast<Global>(g);
      s.type = {global_type(s.global), s.global == Global::E ? Detail::Uniform : Detail::Varying};
      globals_[s.name] = &s;
    }
    Symbol& pi = new_symbol(SymbolKind::Constant, "PI", {});
    pi.type = {BaseType::Float, Detail::Uniform};
    pi.constant = 3.14159265358979323846;
    globals_["PI"] = &pi;
  }

  void run() {
    for (auto& f : unit_.functions) {
      auto& list = functions_[f->name];
      for (const FunctionDecl* other : list)
        if (same_params(*other, *f))
          sink_.report({Severity::Error, "redefinition", "redefinition of function '" + f->name + "'", f->span,
                        {{other->span, "previous definition is here"}}});
      list.push_back(f.get());
      if (is_builtin_name(f->name))
        sink_.warning("shadows-builtin", f->span,
                      "function '" + f->name + "' hides the standard library function of the same name");
    }
    for (auto& f : unit_.functions) check_function(*f);
    if (unit_.shaders.size() > 1)
      for (std::size_t i = 0; i + 1 < unit_.shaders.size(); ++i)
        sink_.report({Severity::Warning, "multiple-shaders",
                      "file defines more than one shader; '" + unit_.shaders.back()->name + "' is used",
                      unit_.shaders[i]->span, {}});
    for (auto& s : unit_.shaders) check_shader(*s);
    if (!options_.allow_recursion) check_recursion();
  }

 private:
  Symbol& new_symbol(SymbolKind kind, std::string name, Span span) {
    Symbol& s = unit_.symbols.emplace_back();
    s.kind = kind;
    s.name = std::move(name);
    s.decl_span = span;
    s.id = static_cast<int>(unit_.symbols.size());
    return s;
  }

  static bool same_params(const FunctionDecl& a, const FunctionDecl& b) {
    if (a.params.size() != b.params.size()) return false;
    for (std::size_t i = 0; i < a.params.size(); ++i)
      if (a.params[i].type.base != b.params[i].type.base) return false;
    return true;
  }

  // ---- scopes ----
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  void declare(Symbol& s) {
    auto& scope = scopes_.back();
    auto it = scope.find(s.name);
    if (it != scope.end()) {
      sink_.report({Severity::Error, "redefinition", "redefinition of '" + s.name + "'", s.decl_span,
                    {{it->second->decl_span, "previous declaration is here"}}});
      return;
    }
    auto g = globals_.find(s.name);
    if (g != globals_.end() && g->second->kind == SymbolKind::Global && global_visible(context_, g->second->global))
      sink_.warning("shadows-global", s.decl_span, "declaration of '" + s.name + "' hides the global variable");
    scope[s.name] = &s;
  }
  const Symbol* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    auto g = globals_.find(name);
    if (g != globals_.end()) {
      if (g->second->kind == SymbolKind::Constant) return g->second;
      if (global_visible(context_, g->second->global)) return g->second;
    }
    return nullptr;
  }
  std::string suggest(const std::string& name) const {
    std::string best;
    std::size_t best_d = name.size() <= 3 ? 1 : 2;
    auto consider = [&](const std::string& cand) {
      std::size_t d = edit_distance(name, cand);
      if (d <= best_d && cand != name) {
        if (d < best_d || best.empty() || cand < best) best = cand;
        best_d = d;
      }
    };
    for (const auto& scope : scopes_)
      for (const auto& [n, _] : scope) consider(n);
    for (const auto& [n, s] : globals_)
      if (s->kind == SymbolKind::Constant || global_visible(context_, s->global)) consider(n);
    return best.empty() ? "" : "; did you mean '" + best + "'?";
  }
  std::string suggest_function(const std::string& name) const {
    std::string best;
    std::size_t best_d = 2;
    auto consider = [&](std::string_view cand) {
      std::size_t d = edit_distance(name, cand);
      if (d <= best_d && cand != name && (d < best_d || best.empty())) {
        best = std::string(cand);
        best_d = d;
      }
    };
    for (const auto& [n, _] : functions_) consider(n);
    for (const auto& s : signatures()) consider(s.name);
    return best.empty() ? "" : "; did you mean '" + best + "'?";
  }

  // ---- definitions ----
  void check_params(std::vector<Param>& params, bool shader) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      Param& p = params[i];
      Symbol& s = new_symbol(shader ? SymbolKind::ShaderParam : SymbolKind::FunctionParam, p.name, p.span);
      s.type = p.type;
      if (shader && s.type.detail == Detail::Unspecified) s.type.detail = Detail::Uniform;
      s.output = p.output;
      s.index = static_cast<int>(i);
      p.symbol = &s;
      if (p.default_value) {
        check_expr(p.default_value, p.type.base);
        coerce(p.default_value, p.type.base, "the default value of '" + p.name + "'");
      }
      declare(s);
    }
  }

  void check_function(FunctionDecl& f) {
    context_ = Context::Function;
    current_function_ = &f;
    push();
    check_params(f.params, false);
    if (f.body) {
      bool reachable = check_block(*f.body, false);
      if (reachable && f.return_type.base != BaseType::Void && f.return_type.base != BaseType::Error)
        sink_.error("missing-return", f.span, "function '" + f.name + "' does not return a value on every path");
    }
    pop();
    current_function_ = nullptr;
  }

  void check_shader(ShaderDecl& s) {
    switch (s.kind) {
      case ShaderKind::Surface: context_ = Context::Surface; break;
      case ShaderKind::Light: context_ = Context::Light; break;
      case ShaderKind::Displacement: context_ = Context::Displacement; break;
      default:
        sink_.error("unsupported-shader-kind", s.span,
                    std::string("'") + to_string(s.kind) + "' shaders are not supported; use surface, light or displacement");
        context_ = Context::Surface;
        break;
    }
    current_shader_ = &s;
    push();
    check_params(s.params, true);
    if (s.body) check_block(*s.body, false);
    pop();
    current_shader_ = nullptr;
  }

  // ---- statements; each returns whether control can reach the end ----
  bool check_block(BlockStmt& b, bool new_scope = true) {
    if (new_scope) push();
    bool reachable = true;
    bool warned = false;
    for (auto& st : b.stmts) {
      if (!reachable && !warned && st->kind != StmtKind::Empty) {
        sink_.warning("unreachable-code", st->span, "code will never be executed");
        warned = true;
      }
      reachable = check_stmt(*st) && reachable;
    }
    if (new_scope) pop();
    return reachable;
  }

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

  bool check_stmt(Stmt& st) {
    switch (st.kind) {
      case StmtKind::Block: return check_block(static_cast<BlockStmt&>(st));
      case StmtKind::Empty: return true;
      case StmtKind::Decl: {
        auto& d = static_cast<DeclStmt&>(st);
        for (auto& v : d.vars) {
          if (v.init) {
            check_expr(v.init, d.type.base);
            coerce(v.init, d.type.base, "the initializer of '" + v.name + "'");
          }
          Symbol& s = new_symbol(SymbolKind::Local, v.name, v.span);
          s.type = d.type;
          v.symbol = &s;
          declare(s);
        }
        return true;
      }
      case StmtKind::Expr: {
        auto& e = static_cast<ExprStmt&>(st);
        check_expr(e.expr, BaseType::Error);
        return true;
      }
      case StmtKind::If: {
        auto& s = static_cast<IfStmt&>(st);
        check_cond(s.cond);
        bool a = check_scoped(*s.then_stmt);
        bool b = s.else_stmt ? check_scoped(*s.else_stmt) : true;
        return a || b;
      }
      case StmtKind::While: {
        auto& s = static_cast<WhileStmt&>(st);
        check_cond(s.cond);
        ++loop_depth_;
        check_scoped(*s.body);
        --loop_depth_;
        return true;
      }
      case StmtKind::For: {
        auto& s = static_cast<ForStmt&>(st);
        if (s.init) check_expr(s.init, BaseType::Error);
        if (s.cond) check_cond(s.cond);
        if (s.step) check_expr(s.step, BaseType::Error);
        ++loop_depth_;
        check_scoped(*s.body);
        --loop_depth_;
        return true;
      }
      case StmtKind::Break:
      case StmtKind::Continue: {
        auto& j = static_cast<JumpStmt&>(st);
        const char* what = st.kind == StmtKind::Break ? "break" : "continue";
        if (loop_depth_ == 0)
          sink_.error("jump-outside-loop", st.span, std::string("'") + what + "' is not inside a loop");
        else if (j.levels > loop_depth_)
          sink_.error("jump-level", st.span,
                      std::string("'") + what + " " + std::to_string(j.levels) + "' leaves more loops than the " +
                          std::to_string(loop_depth_) + " that enclose it");
        return false;
      }
      case StmtKind::Return: {
        auto& r = static_cast<ReturnStmt&>(st);
        if (!current_function_) {
          if (r.value) sink_.error("return-value-in-shader", r.span, "a shader cannot return a value");
          else
            sink_.error("return-in-shader", r.span, "'return' is only allowed in functions");
          if (r.value) check_expr(r.value, BaseType::Error);
          return false;
        }
        BaseType want = current_function_->return_type.base;
        if (r.value) {
          check_expr(r.value, want);
          if (want == BaseType::Void) sink_.error("return-value-in-void", r.value->span, "a void function cannot return a value");
          else coerce(r.value, want, "the returned value");
        } else if (want != BaseType::Void && want != BaseType::Error) {
          sink_.error("missing-return-value", r.span, "function '" + current_function_->name + "' must return a value");
        }
        return false;
      }
      case StmtKind::Illuminance: {
        auto& s = static_cast<IlluminanceStmt&>(st);
        if (context_ == Context::Light)
          sink_.error("illuminance-in-light", st.span, "'illuminance' is only allowed in surface shaders and functions");
        if (s.category) check_expr(s.category, BaseType::String);
        check_expr(s.position, BaseType::Point);
        coerce(s.position, BaseType::Point, "the illuminance position");
        if (s.axis) {
          check_expr(s.axis, BaseType::Vector);
          coerce(s.axis, BaseType::Vector, "the illuminance axis");
          check_expr(s.angle, BaseType::Float);
          coerce(s.angle, BaseType::Float, "the illuminance angle");
        }
        ++light_loop_depth_;
        ++loop_depth_;
        check_scoped(*s.body);
        --loop_depth_;
        --light_loop_depth_;
        return true;
      }
      case StmtKind::Illuminate:
      case StmtKind::Solar: {
        if (context_ != Context::Light)
          sink_.error("light-statement-outside-light", st.span,
                      std::string("'") + (st.kind == StmtKind::Solar ? "solar" : "illuminate") + "' is only allowed in light shaders");
        if (current_shader_) current_shader_->has_light_statement = true;
        ExprPtr* axis;
        ExprPtr* angle;
        Stmt* body;
        if (st.kind == StmtKind::Illuminate) {
          auto& s = static_cast<IlluminateStmt&>(st);
          check_expr(s.position, BaseType::Point);
          coerce(s.position, BaseType::Point, "the light position");
          axis = &s.axis;
          angle = &s.angle;
          body = s.body.get();
        } else {
          auto& s = static_cast<SolarStmt&>(st);
          axis = &s.axis;
          angle = &s.angle;
          body = s.body.get();
        }
        if (*axis) {
          check_expr(*axis, BaseType::Vector);
          coerce(*axis, BaseType::Vector, "the light axis");
          check_expr(*angle, BaseType::Float);
          coerce(*angle, BaseType::Float, "the light angle");
        }
        ++light_loop_depth_;
        check_scoped(*body);
        --light_loop_depth_;
        return true;
      }
    }
    return true;
  }

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
  void coerce(ExprPtr& e, BaseType to, const std::string& what) {
    BaseType from = e->type.base;
    if (from == to || from == BaseType::Error || to == BaseType::Error) return;
    if (from == BaseType::Bool && to == BaseType::Float) {
      wrap(e, to);
      return;
    }
    if (!is_assignable(to, from)) {
      sink_.error("type-mismatch", e->span,
                  "cannot use a " + std::string(to_string(from)) + " as " + what + ", which is a " + to_string(to));
      return;
    }
    wrap(e, to);
  }

  void set(Expr& e, BaseType b) { e.type = {b, Detail::Unspecified}; }

  void check_expr(ExprPtr& e, BaseType expected) {
    switch (e->kind) {
      case ExprKind::Number: set(*e, BaseType::Float); return;
      case ExprKind::String: set(*e, BaseType::String); return;
      case ExprKind::Convert: return;
      case ExprKind::Name: return check_name(static_cast<NameExpr&>(*e));
      case ExprKind::Unary: return check_unary(static_cast<UnaryExpr&>(*e));
      case ExprKind::Binary: return check_binary(static_cast<BinaryExpr&>(*e));
      case ExprKind::Ternary: {
        auto& t = static_cast<TernaryExpr&>(*e);
        check_cond(t.cond);
        check_expr(t.then_expr, expected);
        check_expr(t.else_expr, expected);
        BaseType a = t.then_expr->type.base, b = t.else_expr->type.base;
        BaseType r = unify(a, b);
        if (r == BaseType::Error && a != BaseType::Error && b != BaseType::Error)
          sink_.error("type-mismatch", t.span,
                      std::string("the branches of '?:' have incompatible types ") + to_string(a) + " and " + to_string(b));
        if (r != BaseType::Error) {
          coerce(t.then_expr, r, "a branch of '?:'");
          coerce(t.else_expr, r, "a branch of '?:'");
        }
        set(t, r);
        return;
      }
      case ExprKind::Assign: return check_assign(static_cast<AssignExpr&>(*e));
      case ExprKind::Call: return check_call(static_cast<CallExpr&>(*e), expected);
      case ExprKind::Cast: return check_cast(static_cast<CastExpr&>(*e));
      case ExprKind::Tuple: {
        auto& t = static_cast<TupleExpr&>(*e);
        for (auto& el : t.elements) {
          check_expr(el, BaseType::Float);
          coerce(el, BaseType::Float, "a tuple element");
        }
        std::size_t n = t.elements.size();
        if (is_triple(expected) && n == 3) return set(t, expected);
        if (expected == BaseType::Matrix && n == 16) return set(t, BaseType::Matrix);
        sink_.error("bad-tuple", t.span,
                    "a list of " + std::to_string(n) + " values needs a type here; write color(...), point(...) or vector(...)");
        return set(t, BaseType::Error);
      }
    }
  }

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

  void check_name(NameExpr& n) {
    const Symbol* s = lookup(n.name);
    if (!s) {
      auto g = globals_.find(n.name);
      if (g != globals_.end() && g->second->kind == SymbolKind::Global)
        sink_.error("global-not-available", n.span,
                    "global variable '" + n.name + "' is not available in " + context_name());
      else
        sink_.error("undeclared-identifier", n.span, "use of undeclared identifier '" + n.name + "'" + suggest(n.name));
      return set(n, BaseType::Error);
    }
    // L and Cl exist per light: in surfaces only inside illuminance; in a light, Cl is its
    // output everywhere (an ambient light sets it with no illuminate) but L needs a light statement.
    bool light_global = s->kind == SymbolKind::Global &&
                        (s->global == Global::L || (s->global == Global::Cl && context_ != Context::Light));
    if (light_global && light_loop_depth_ == 0)
      sink_.error("light-global-outside-loop", n.span,
                  "'" + n.name + "' is only defined inside an illuminance, illuminate or solar block");
    n.symbol = s;
    n.type = s->type;
  }

  std::string context_name() const {
    switch (context_) {
      case Context::Surface: return "a surface shader";
      case Context::Light: return "a light shader";
      case Context::Displacement: return "a displacement shader";
      case Context::Function: return "a function";
    }
    return "this context";
  }

  void check_unary(UnaryExpr& u) {
    check_expr(u.operand, u.op == UnaryOp::Not ? BaseType::Bool : BaseType::Error);
    BaseType t = u.operand->type.base;
    if (u.op == UnaryOp::Not) {
      if (t == BaseType::Float) wrap(u.operand, BaseType::Bool);
      else if (t != BaseType::Bool && t != BaseType::Error)
        sink_.error("bad-operand", u.span, std::string("'!' needs a relation or a float, not a ") + to_string(t));
      return set(u, BaseType::Bool);
    }
    if (t != BaseType::Error && !is_numeric(t)) {
      sink_.error("bad-operand", u.span, std::string("unary '") + (u.op == UnaryOp::Neg ? "-" : "+") + "' cannot apply to a " + to_string(t));
      return set(u, BaseType::Error);
    }
    set(u, t);
  }

  // Result type of an arithmetic operator, or Error with a reason already reported.
  BaseType arithmetic(BinaryOp op, BaseType a, BaseType b, const Span& span) {
    if (a == BaseType::Error || b == BaseType::Error) return BaseType::Error;
    auto bad = [&]() {
      sink_.error("bad-operands", span,
                  std::string("invalid operands to '") + spelling(op) + "': " + to_string(a) + " and " + to_string(b));
      return BaseType::Error;
    };
    if (!is_numeric(a) || !is_numeric(b)) return bad();
    if (a == BaseType::Matrix || b == BaseType::Matrix) {
      if ((op == BinaryOp::Mul || op == BinaryOp::Div) && a == BaseType::Matrix && b == BaseType::Matrix) return a;
      if ((op == BinaryOp::Mul || op == BinaryOp::Div) && (a == BaseType::Float || b == BaseType::Float)) return BaseType::Matrix;
      return bad();
    }
    if (a == BaseType::Float) return b;
    if (b == BaseType::Float) return a;
    if (a == BaseType::Color || b == BaseType::Color) return a == b ? a : bad();
    // Two point-like triples: point - point is a vector, point +- vector stays a point.
    if (op == BinaryOp::Sub && a == BaseType::Point && b == BaseType::Point) return BaseType::Vector;
    if (a == BaseType::Point || b == BaseType::Point) return BaseType::Point;
    return a == b ? a : BaseType::Vector;
  }

  void check_binary(BinaryExpr& b) {
    bool logic = b.op == BinaryOp::And || b.op == BinaryOp::Or;
    check_expr(b.lhs, logic ? BaseType::Bool : BaseType::Error);
    check_expr(b.rhs, logic ? BaseType::Bool : BaseType::Error);
    BaseType l = b.lhs->type.base, r = b.rhs->type.base;
    bool err = l == BaseType::Error || r == BaseType::Error;
    switch (b.op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul:
      case BinaryOp::Div: {
        BaseType t = arithmetic(b.op, l, r, b.span);
        if (t != BaseType::Error && t != BaseType::Matrix) {
          coerce_operand(b.lhs, t);
          coerce_operand(b.rhs, t);
        } else if (t == BaseType::Matrix) {
          // float * matrix scales every element: promote the float to a matrix-shaped operand.
          if (l == BaseType::Float) coerce(b.lhs, BaseType::Matrix, "an operand");
          if (r == BaseType::Float) coerce(b.rhs, BaseType::Matrix, "an operand");
        }
        return set(b, t);
      }
      case BinaryOp::Dot:
      case BinaryOp::Cross: {
        if (!err && !((is_pointlike(l) && is_pointlike(r)) || (b.op == BinaryOp::Dot && l == BaseType::Color && r == BaseType::Color))) {
          sink_.error("bad-operands", b.span,
                      std::string(b.op == BinaryOp::Dot ? "the dot product '.'" : "the cross product '^'") +
                          " needs two points, vectors or normals, not " + to_string(l) + " and " + to_string(r));
          return set(b, BaseType::Error);
        }
        return set(b, err ? BaseType::Error : b.op == BinaryOp::Dot ? BaseType::Float : BaseType::Vector);
      }
      case BinaryOp::Lt:
      case BinaryOp::Gt:
      case BinaryOp::Le:
      case BinaryOp::Ge:
        if (!err && (l != BaseType::Float || r != BaseType::Float)) {
          sink_.error("bad-operands", b.span,
                      std::string("'") + spelling(b.op) + "' compares floats, not " + to_string(l) + " and " + to_string(r));
        }
        return set(b, BaseType::Bool);
      case BinaryOp::Eq:
      case BinaryOp::Ne: {
        if (err) return set(b, BaseType::Bool);
        BaseType t = (l == BaseType::String && r == BaseType::String) ? BaseType::String : unify(l, r);
        if (t == BaseType::Error || t == BaseType::Bool)
          sink_.error("bad-operands", b.span,
                      std::string("cannot compare ") + to_string(l) + " and " + to_string(r) + " with '" + spelling(b.op) + "'");
        else {
          coerce_operand(b.lhs, t);
          coerce_operand(b.rhs, t);
        }
        return set(b, BaseType::Bool);
      }
      case BinaryOp::And:
      case BinaryOp::Or:
        for (ExprPtr* side : {&b.lhs, &b.rhs}) {
          BaseType t = (*side)->type.base;
          if (t == BaseType::Float) wrap(*side, BaseType::Bool);
          else if (t != BaseType::Bool && t != BaseType::Error)
            sink_.error("bad-operands", (*side)->span,
                        std::string("'") + spelling(b.op) + "' needs relations or floats, not a " + to_string(t));
        }
        return set(b, BaseType::Bool);
    }
  }

  void coerce_operand(ExprPtr& e, BaseType t) {
    if (e->type.base != t && e->type.base != BaseType::Error) wrap(e, t);
  }

  void check_assign(AssignExpr& a) {
    auto& target = static_cast<NameExpr&>(*a.target);
    check_name(target);
    BaseType t = target.type.base;
    check_expr(a.value, t);
    if (const Symbol* s = target.symbol) check_writable(*s, target.span);
    if (a.op == AssignOp::Set) {
      coerce(a.value, t, "the value assigned to '" + target.name + "'");
    } else {
      static constexpr BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div};
      BinaryOp op = ops[static_cast<int>(a.op)];
      BaseType r = arithmetic(op, t, a.value->type.base, a.span);
      if (r != BaseType::Error && r != t && !(is_pointlike(r) && is_pointlike(t)))
        sink_.error("type-mismatch", a.span,
                    "the result of '" + std::string(spelling(op)) + "=' is a " + to_string(r) + ", which cannot be stored in the " +
                        to_string(t) + " '" + target.name + "'");
      else if (r != BaseType::Error)
        coerce(a.value, a.value->type.base == BaseType::Float ? BaseType::Float : t, "the operand");
    }
    set(a, t);
  }

  void check_writable(const Symbol& s, const Span& span) {
    switch (s.kind) {
      case SymbolKind::Constant:
        sink_.error("assign-to-constant", span, "cannot assign to the constant '" + s.name + "'");
        break;
      case SymbolKind::Global:
        if (!global_writable(context_, s.global))
          sink_.error("read-only-global", span, "cannot assign to '" + s.name + "' in " + context_name());
        break;
      case SymbolKind::ShaderParam:
      case SymbolKind::FunctionParam:
        if (!s.output)
          sink_.report({Severity::Error, "assign-to-input", "cannot assign to parameter '" + s.name + "', which is not declared 'output'",
                        span, {{s.decl_span, "parameter declared here"}}});
        break;
      case SymbolKind::Local: break;
    }
  }

  void check_call(CallExpr& c, BaseType expected) {
    std::vector<BaseType> types;
    for (auto& a : c.args) {
      check_expr(a, BaseType::Error);
      types.push_back(a->type.base);
    }
    bool any_error = std::any_of(types.begin(), types.end(), [](BaseType t) { return t == BaseType::Error; });
    auto fit = functions_.find(c.name);
    if (fit != functions_.end()) {
      const FunctionDecl* best = nullptr;
      int best_cost = 1 << 30;
      for (const FunctionDecl* f : fit->second) {
        if (f->params.size() != c.args.size()) continue;
        int cost = 0;
        for (std::size_t i = 0; i < types.size() && cost >= 0; ++i) {
          BaseType want = f->params[i].type.base;
          if (types[i] == want || types[i] == BaseType::Error) continue;
          if (is_assignable(want, types[i]) && !f->params[i].output) cost += 1;
          else cost = -1;
        }
        if (cost >= 0 && cost < best_cost) {
          best = f;
          best_cost = cost;
        }
      }
      if (!best) {
        if (!any_error)
          sink_.report({Severity::Error, "no-matching-function", "no version of '" + c.name + "' takes (" + type_list(types) + ")",
                        c.name_span, {{fit->second.front()->span, "candidate defined here"}}});
        return set(c, BaseType::Error);
      }
      c.function = best;
      for (std::size_t i = 0; i < c.args.size(); ++i) {
        const Param& p = best->params[i];
        if (p.output) check_output_arg(c.args[i], p.name);
        else coerce(c.args[i], p.type.base, "argument " + std::to_string(i + 1) + " of '" + c.name + "'");
      }
      calls_[current_function_].insert(best);
      return set(c, best->return_type.base);
    }
    if (!is_builtin_name(c.name)) {
      sink_.error("unknown-function", c.name_span, "call to unknown function '" + c.name + "'" + suggest_function(c.name));
      return set(c, BaseType::Error);
    }
    if (any_error) return set(c, BaseType::Error);
    Resolution r = resolve(c.name, types, expected);
    if (r.index < 0) {
      sink_.error("no-matching-function", c.name_span, "no version of '" + c.name + "' takes (" + type_list(types) + ")");
      return set(c, BaseType::Error);
    }
    c.builtin = r.index;
    const Signature& sig = signature(r.index);
    if (c.channel) {
      // texture("name"[k], ...): a float reads channel k, a colour channels k to k + 2.
      const bool number = c.channel->kind == ExprKind::Number;
      const double k = number ? static_cast<const NumberExpr&>(*c.channel).value : -1;
      const int last = is_triple(r.result) ? 1 : 3;
      if (!number || k != static_cast<int>(k) || k < 0 || k > last) {
        sink_.error("texture-channel", c.channel->span,
                    !number                ? "a texture channel must be a number written in the shader (0 to 3)"
                    : is_triple(r.result) ? "a colour lookup's first channel must be 0 or 1 (it reads three channels)"
                                          : "a texture channel must be 0, 1, 2 or 3");
        return set(c, BaseType::Error);
      }
      c.channel_index = static_cast<int>(k);
    }
    if (sig.needs_lights && context_ == Context::Light)
      sink_.error("light-function-in-light", c.name_span, "'" + c.name + "' is only available in surface shaders and functions");
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      if (i == 0 && sig.writes_first) check_output_arg(c.args[0], "the first argument");
      else coerce_operand(c.args[i], r.param_types[i]);
    }
    set(c, r.result);
  }

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

  void check_cast(CastExpr& c) {
    if (!c.space.empty()) {
      static const std::set<std::string> point_spaces = {"current", "camera", "world", "object", "shader", "screen", "raster", "NDC"};
      static const std::set<std::string> color_spaces = {"rgb"};
      if (is_pointlike(c.to) || c.to == BaseType::Matrix) {
        if (!point_spaces.count(c.space))
          sink_.error("unknown-space", c.space_span, "unknown coordinate system \"" + c.space + "\"");
      } else if (c.to == BaseType::Color) {
        if (!color_spaces.count(c.space))
          sink_.error("unknown-space", c.space_span, "unknown color space \"" + c.space + "\"; Passlab supports \"rgb\" only");
      } else {
        sink_.error("bad-cast", c.space_span, std::string("a ") + to_string(c.to) + " cannot have a space name");
      }
    }
    if (c.operand->kind == ExprKind::Tuple) {
      auto& t = static_cast<TupleExpr&>(*c.operand);
      std::size_t want = c.to == BaseType::Matrix ? 16 : is_triple(c.to) ? 3 : 0;
      if (t.elements.size() != want) {
        for (auto& el : t.elements) check_expr(el, BaseType::Float);
        sink_.error("bad-constructor", c.span,
                    std::string(to_string(c.to)) + (want ? " takes " + std::to_string(want) + " components, not " : " cannot be built from ") +
                        std::to_string(t.elements.size()) + (want ? "" : " values"));
        return set(c, BaseType::Error);
      }
      check_expr(c.operand, c.to);
      return set(c, c.to);
    }
    check_expr(c.operand, c.to);
    BaseType from = c.operand->type.base;
    if (from == BaseType::Error) return set(c, c.to);
    bool ok = from == c.to || (from == BaseType::Float && is_numeric(c.to)) || (is_triple(from) && is_triple(c.to)) ||
              (from == BaseType::Bool && c.to == BaseType::Float);
    if (!ok)
      sink_.error("bad-cast", c.span, std::string("cannot convert a ") + to_string(from) + " to a " + to_string(c.to));
    set(c, c.to);
  }

  void check_recursion() {
    // Depth-first search over the call graph; a back edge is recursion, which RSL forbids.
    std::map<const FunctionDecl*, int> state;
    std::vector<const FunctionDecl*> stack;
    std::function<void(const FunctionDecl*)> visit = [&](const FunctionDecl* f) {
      state[f] = 1;
      stack.push_back(f);
      for (const FunctionDecl* g : calls_[f]) {
        if (state[g] == 1) {
          sink_.error("recursion", g->span, "function '" + g->name + "' calls itself (directly or indirectly); RSL does not allow recursion");
        } else if (state[g] == 0 && stack.size() < 512) {
          visit(g);
        }
      }
      stack.pop_back();
      state[f] = 2;
    };
    for (auto& f : unit_.functions)
      if (state[f.get()] == 0) visit(f.get());
  }

  TranslationUnit& unit_;
  DiagnosticSink& sink_;
  SemaOptions options_;
  std::map<std::string, Symbol*> globals_;
  std::map<std::string, std::vector<const FunctionDecl*>> functions_;
  std::map<const FunctionDecl*, std::set<const FunctionDecl*>> calls_;
  std::vector<std::map<std::string, Symbol*>> scopes_;
  Context context_ = Context::Surface;
  const FunctionDecl* current_function_ = nullptr;
  ShaderDecl* current_shader_ = nullptr;
  int loop_depth_ = 0;
  int light_loop_depth_ = 0;
};

}  // namespace

void analyze_frequency(TranslationUnit& unit, DiagnosticSink& sink);
void analyze_assignment(TranslationUnit& unit, DiagnosticSink& sink);

void analyze(TranslationUnit& unit, DiagnosticSink& sink, const SemaOptions& options) {
  Checker(unit, sink, options).run();
  analyze_frequency(unit, sink);
  analyze_assignment(unit, sink);
}

}  // namespace passlab::lang
