// SPDX-License-Identifier: GPL-3.0-or-later
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
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "core/lang/stdlib.h"

namespace passlab::lang {

const char* to_string(Global g) {
  static constexpr const char* names[] = {"P",  "N",  "Ng", "I",  "E",  "s",  "t",    "u",     "v",       "du",     "dv",
                                          "dPdu", "dPdv", "L", "Cl", "Ol", "Ci", "Oi", "Cs", "Os", "Ps",
                                          "time", "dtime", "dPdtime", "ncomps", "alpha", "Ns"};
  static_assert(std::size(names) == static_cast<std::size_t>(Global::Count));
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

bool is_standard_space(std::string_view name) {
  for (std::string_view s : {"current", "camera", "world", "object", "shader", "screen", "raster", "NDC"})
    if (s == name) return true;
  return false;
}

std::string canonical_color_space(std::string_view name) {
  std::string lower(name);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "rgb" || lower == "hsv" || lower == "hsl" || lower == "xyz") return lower;
  if (lower == "xyy") return "xyY";
  if (lower == "yiq") return "YIQ";
  return "";
}

namespace {

BaseType global_type(Global g) {
  switch (g) {
    case Global::P: case Global::E: case Global::Ps: return BaseType::Point;
    case Global::N: case Global::Ng: case Global::Ns: return BaseType::Normal;
    case Global::I: case Global::dPdu: case Global::dPdv: case Global::L: case Global::dPdtime: return BaseType::Vector;
    case Global::Cl: case Global::Ol: case Global::Ci: case Global::Oi: case Global::Cs: case Global::Os:
      return BaseType::Color;
    default: return BaseType::Float;
  }
}

// Context a body is checked in: what globals exist and which may be written.
enum class Context { Surface, Light, Displacement, Volume, Imager, Function };

// The tables of RI 3.2 §15.2 (Tables 15.1-15.5), with what renderers add: every kind has time,
// dtime and ncomps; a surface also sees Ps (the point lights illuminate: P) and writes P and N as
// PRMan, BMRT and Aqsis allow; a light sees Ns, the normal at Ps (PRMan).
bool global_visible(Context c, Global g) {
  using G = Global;
  if (g == G::time || g == G::dtime || g == G::ncomps) return true;
  switch (c) {
    case Context::Light:
      return g == G::P || g == G::N || g == G::Ng || g == G::dPdu || g == G::dPdv || g == G::u || g == G::v ||
             g == G::du || g == G::dv || g == G::s || g == G::t || g == G::L || g == G::Ps || g == G::Ns ||
             g == G::E || g == G::Cl || g == G::Ol;
    case Context::Surface:
    case Context::Displacement:
      return g != G::Ol && g != G::alpha && g != G::Ns;
    case Context::Volume:
      return g == G::P || g == G::I || g == G::E || g == G::Ci || g == G::Oi || g == G::L || g == G::Cl;
    case Context::Imager:
      return g == G::P || g == G::Ci || g == G::Oi || g == G::alpha;
    case Context::Function:
      return true;
  }
  return false;
}

bool global_writable(Context c, Global g) {
  switch (c) {
    case Context::Surface: return g == Global::Ci || g == Global::Oi || g == Global::P || g == Global::N;
    // L too, inside illuminate or solar (where it is defined): a light may redirect the light it
    // sends (uberlight-style lights do; PRMan and BMRT accept it), and illuminance sees that L.
    case Context::Light: return g == Global::Cl || g == Global::Ol || g == Global::L;
    case Context::Displacement: return g == Global::P || g == Global::N;
    case Context::Volume: return g == Global::Ci || g == Global::Oi;
    case Context::Imager: return g == Global::Ci || g == Global::Oi || g == Global::alpha;
    case Context::Function: return false;  // see assigned_in_function
  }
  return false;
}

// A function may assign a global some shader may (RI 3.2-era compilers allowed it; published
// shaders' helpers set Ci and Oi): each shader that calls it is checked for that global.
bool assigned_in_function(Global g) {
  for (Context c : {Context::Surface, Context::Light, Context::Displacement, Context::Volume, Context::Imager})
    if (global_writable(c, g)) return true;
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
      const bool uniform = s.global == Global::E || s.global == Global::time || s.global == Global::dtime || s.global == Global::ncomps;
      s.type = {global_type(s.global), uniform ? Detail::Uniform : Detail::Varying};
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
      if (hides_builtin(*f))
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

  // Whether a library version takes exactly these parameter types (a different list overloads).
  static bool hides_builtin(const FunctionDecl& f) {
    for (const Signature& sig : signatures()) {
      if (sig.name != f.name || sig.args.size() != f.params.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < f.params.size() && same; ++i) {
        const BaseType t = f.params[i].type.base;
        switch (sig.args[i]) {
          case ArgKind::Gen: same = t == BaseType::Float || is_triple(t); break;
          case ArgKind::PointLike: same = is_pointlike(t); break;
          case ArgKind::Float: same = t == BaseType::Float; break;
          case ArgKind::Color: same = t == BaseType::Color; break;
          case ArgKind::Point: same = t == BaseType::Point; break;
          case ArgKind::Vector: same = t == BaseType::Vector; break;
          case ArgKind::Normal: same = t == BaseType::Normal; break;
          case ArgKind::Matrix: same = t == BaseType::Matrix; break;
          case ArgKind::String: same = t == BaseType::String; break;
          case ArgKind::Void: same = false; break;
        }
      }
      if (same) return true;
    }
    return false;
  }

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
  Symbol* lookup(const std::string& name) const {
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
    for (const auto& scope : local_functions_)
      for (const auto& [n, _] : scope) consider(n);
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
      if (p.default_value && p.type.is_array()) {
        s.type.array = check_array_value(p.default_value, s.type, "the default value of '" + p.name + "'");
        p.type.array = s.type.array;
      } else if (p.default_value) {
        check_expr(p.default_value, p.type.base);
        coerce(p.default_value, p.type.base, "the default value of '" + p.name + "'");
      }
      if (shader && s.type.array == Type::kAnyLength) {
        sink_.error("array-size", p.span, "shader parameter '" + p.name + "' needs a length or a default that gives one");
        s.type.array = 1;
      }
      declare(s);
    }
  }

  void check_function(FunctionDecl& f) {
    context_ = Context::Function;
    check_function_body(f);
  }

  // Parameters and body, in a new scope inside whatever encloses the definition.
  void check_function_body(FunctionDecl& f) {
    FunctionDecl* saved = current_function_;
    const int saved_loops = loop_depth_;
    current_function_ = &f;
    loop_depth_ = 0;
    push();
    check_params(f.params, false);
    if (f.body) {
      bool reachable = check_block(*f.body, false);
      if (reachable && f.return_type.base != BaseType::Void && f.return_type.base != BaseType::Error)
        sink_.error("missing-return", f.span, "function '" + f.name + "' does not return a value on every path");
    }
    pop();
    current_function_ = saved;
    loop_depth_ = saved_loops;
  }

  // A local function: visible from here to the end of the enclosing block; its body sees the
  // enclosing variables (lexical scope) and the enclosing shader's globals.
  void check_local_function(FunctionStmt& st) {
    FunctionDecl& f = *st.function;
    auto& list = local_functions_.back()[f.name];
    for (const FunctionDecl* other : list)
      if (same_params(*other, f))
        sink_.report({Severity::Error, "redefinition", "redefinition of function '" + f.name + "'", f.span,
                      {{other->span, "previous definition is here"}}});
    list.push_back(&f);  // before the body, so that a call to itself is found (and reported as recursion)
    local_list_.push_back(&f);
    check_function_body(f);
  }

  // `extern type name;`: binds each name to the variable it names in an enclosing scope.
  void check_extern(DeclStmt& d) {
    for (auto& v : d.vars) {
      Symbol* found = lookup(v.name);
      if (!found || found->kind == SymbolKind::Constant) {
        auto g = globals_.find(v.name);
        if (g != globals_.end() && g->second->kind == SymbolKind::Global)
          sink_.error("global-not-available", v.span, "global variable '" + v.name + "' is not available in " + context_name());
        else
          sink_.error("extern-undeclared", v.span,
                      "'extern' names no variable '" + v.name + "' of an enclosing function or shader, nor a global" + suggest(v.name));
        continue;
      }
      if (found->type.base != d.type.base && !(is_pointlike(found->type.base) && is_pointlike(d.type.base)))
        sink_.report({Severity::Error, "extern-type",
                      "'extern' declares '" + v.name + "' a " + to_string(d.type.base) + ", but it is a " + to_string(found->type.base),
                      v.span, {{found->decl_span, "'" + v.name + "' is declared here"}}});
      v.symbol = found;
      auto& scope = scopes_.back();
      auto it = scope.find(v.name);
      if (it != scope.end() && it->second != found)
        sink_.report({Severity::Error, "redefinition", "redefinition of '" + v.name + "'", v.span,
                      {{it->second->decl_span, "previous declaration is here"}}});
      else
        scope[v.name] = found;
    }
  }

  void check_shader(ShaderDecl& s) {
    switch (s.kind) {
      case ShaderKind::Surface: context_ = Context::Surface; break;
      case ShaderKind::Light: context_ = Context::Light; break;
      case ShaderKind::Displacement: context_ = Context::Displacement; break;
      case ShaderKind::Volume: context_ = Context::Volume; break;
      case ShaderKind::Imager: context_ = Context::Imager; break;
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
      case StmtKind::Function: check_local_function(static_cast<FunctionStmt&>(st)); return true;
      case StmtKind::Gather: {
        auto& g = static_cast<GatherStmt&>(st);
        static constexpr BaseType kinds[] = {BaseType::String, BaseType::Point, BaseType::Vector, BaseType::Float, BaseType::Float};
        static const char* const what[] = {"the gather category", "the gather origin", "the gather direction", "the gather angle",
                                           "the number of samples"};
        for (std::size_t i = 0; i < g.args.size(); ++i) {
          if (i < 5) {
            check_expr(g.args[i], kinds[i]);
            coerce(g.args[i], kinds[i], what[i]);
          } else if ((i - 5) % 2 == 0) {
            check_expr(g.args[i], BaseType::String);
            coerce(g.args[i], BaseType::String, "a gather output's name");
          } else {
            array_ok_ = true;
            check_expr(g.args[i], BaseType::Error);
            check_output_arg(g.args[i], "the gather output");
          }
        }
        ++loop_depth_;
        check_scoped(*g.body);
        if (g.else_body) check_scoped(*g.else_body);
        --loop_depth_;
        return true;
      }
      case StmtKind::Decl: {
        auto& d = static_cast<DeclStmt&>(st);
        if (d.is_extern) {
          check_extern(d);
          return true;
        }
        for (auto& v : d.vars) {
          Type type = d.type;
          type.array = v.array;
          if (v.init && type.is_array()) {
            type.array = check_array_value(v.init, type, "the initializer of '" + v.name + "'");
          } else if (v.init) {
            check_expr(v.init, d.type.base);
            coerce(v.init, d.type.base, "the initializer of '" + v.name + "'");
          }
          if (type.array == Type::kAnyLength) {
            sink_.error("array-size", v.span, "array '" + v.name + "' needs a length or values that give one");
            type.array = 1;
          }
          Symbol& s = new_symbol(SymbolKind::Local, v.name, v.span);
          s.type = type;
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
    if (is_triple(to) && is_triple(from) && !is_assignable(to, from)) {
      implicit_conversion(*e, from, to);
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
  int check_array_value(ExprPtr& e, const Type& want, const std::string& what) {
    if (e->kind == ExprKind::ArrayLit) {
      auto& lit = static_cast<ArrayLitExpr&>(*e);
      for (auto& el : lit.elements) {
        check_expr(el, want.base);
        coerce(el, want.base, "a value of " + what);
      }
      const int n = static_cast<int>(lit.elements.size());
      if (want.array > 0 && n != want.array)
        sink_.error("array-size", lit.span,
                    what + " has " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + " for " + std::to_string(want.array) + " elements");
      const int length = want.array > 0 ? want.array : std::max(n, 1);
      lit.type = {want.base, Detail::Unspecified, length};
      return length;
    }
    array_ok_ = true;
    check_expr(e, want.base);
    const Type got = e->type;
    if (got.base == BaseType::Error) return want.array > 0 ? want.array : 1;
    if (!got.is_array() || got.base != want.base || (want.array > 0 && got.array != want.array))
      sink_.error("type-mismatch", e->span, "cannot use " + describe(got) + " as " + what + ", which is " + describe(want));
    return want.array > 0 ? want.array : std::max(got.array, 1);
  }

  void check_index(IndexExpr& x) {
    array_ok_ = true;
    check_expr(x.base, BaseType::Error);
    const Type t = x.base->type;
    check_expr(x.index, BaseType::Float);
    coerce(x.index, BaseType::Float, "an array index");
    if (t.base == BaseType::Error) return set(x, BaseType::Error);
    if (!t.is_array()) {
      sink_.error("not-an-array", x.base->span, "'" + static_cast<NameExpr&>(*x.base).name + "' is " + describe(t) + ", not an array");
      return set(x, BaseType::Error);
    }
    const Expr* i = x.index.get();
    while (i->kind == ExprKind::Convert) i = static_cast<const ConvertExpr*>(i)->operand.get();
    if (i->kind == ExprKind::Number && t.array > 0) {
      const double k = static_cast<const NumberExpr*>(i)->value;
      if (!(k >= 0 && k < t.array))
        sink_.error("index-out-of-range", x.index->span,
                    "index " + format_number(k) + " is outside '" + static_cast<NameExpr&>(*x.base).name + "', which has " +
                        std::to_string(t.array) + " element" + (t.array == 1 ? "" : "s"));
    }
    set(x, t.base);
  }

  static std::string format_number(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  void check_expr(ExprPtr& e, BaseType expected) {
    const bool array_ok = array_ok_;  // applies to this expression only, never to its parts
    array_ok_ = false;
    switch (e->kind) {
      case ExprKind::Index: return check_index(static_cast<IndexExpr&>(*e));
      case ExprKind::ArrayLit:
        sink_.error("array-literal", e->span, "'{...}' gives an array's values only in its declaration or a parameter's default");
        for (auto& el : static_cast<ArrayLitExpr&>(*e).elements) check_expr(el, BaseType::Error);
        return set(*e, BaseType::Error);
      case ExprKind::Number: set(*e, BaseType::Float); return;
      case ExprKind::String: set(*e, BaseType::String); return;
      case ExprKind::Convert: return;
      case ExprKind::Name: return check_name(static_cast<NameExpr&>(*e), array_ok);
      case ExprKind::Unary: return check_unary(static_cast<UnaryExpr&>(*e));
      case ExprKind::Binary: return check_binary(static_cast<BinaryExpr&>(*e), expected);
      case ExprKind::Ternary: {
        auto& t = static_cast<TernaryExpr&>(*e);
        check_cond(t.cond);
        if (untyped_triple(t.then_expr) != untyped_triple(t.else_expr)) {
          // One untyped triple branch takes the other branch's type (`c > 0 ? (1, 0, 0) : Cs`).
          ExprPtr& typed = untyped_triple(t.then_expr) ? t.else_expr : t.then_expr;
          ExprPtr& tuple = untyped_triple(t.then_expr) ? t.then_expr : t.else_expr;
          check_expr(typed, expected);
          check_expr(tuple, is_triple(typed->type.base) ? typed->type.base : expected);
        } else {
          check_expr(t.then_expr, expected);
          check_expr(t.else_expr, expected);
        }
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

  void check_name(NameExpr& n, bool array_ok = false) {
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
    if (s->type.is_array() && !array_ok) {
      sink_.error("array-as-value", n.span,
                  "'" + n.name + "' is " + describe(s->type) + "; use an element (" + n.name + "[i]) or pass it whole to a function");
      n.type = {BaseType::Error, Detail::Unspecified};
    }
  }

  std::string context_name() const {
    switch (context_) {
      case Context::Surface: return "a surface shader";
      case Context::Light: return "a light shader";
      case Context::Displacement: return "a displacement shader";
      case Context::Volume: return "a volume shader";
      case Context::Imager: return "an imager shader";
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
  BaseType builtin_triple_hint(const CallExpr& c, std::size_t i, const std::vector<BaseType>& types, BaseType expected) const {
    for (const Signature& sig : signatures()) {
      if (sig.name != c.name || i >= sig.args.size() || (sig.args.size() != c.args.size() && !sig.options && !sig.variadic)) continue;
      switch (sig.args[i]) {
        case ArgKind::Color: return BaseType::Color;
        case ArgKind::Point: case ArgKind::PointLike: return BaseType::Point;
        case ArgKind::Vector: return BaseType::Vector;
        case ArgKind::Normal: return BaseType::Normal;
        default: break;
      }
    }
    for (std::size_t k = 0; k < types.size(); ++k)
      if (k != i && !untyped_triple(c.args[k]) && is_triple(types[k])) return types[k];
    return is_triple(expected) ? expected : BaseType::Point;
  }

  void check_binary(BinaryExpr& b, BaseType expected) {
    bool logic = b.op == BinaryOp::And || b.op == BinaryOp::Or;
    if (!logic && untyped_triple(b.lhs) != untyped_triple(b.rhs)) {
      // An untyped triple takes its type from the other operand (`c * (1, 0.5, 0)`), else from
      // what the context expects (`Ci = (1, 0, 0) * Kd`), as PRMan and Aqsis type it.
      ExprPtr& typed = untyped_triple(b.lhs) ? b.rhs : b.lhs;
      ExprPtr& tuple = untyped_triple(b.lhs) ? b.lhs : b.rhs;
      check_expr(typed, BaseType::Error);
      BaseType hint = is_triple(typed->type.base) ? typed->type.base : is_triple(expected) ? expected : BaseType::Error;
      check_expr(tuple, hint);
    } else {
      check_expr(b.lhs, logic ? BaseType::Bool : untyped_triple(b.lhs) && is_triple(expected) ? expected : BaseType::Error);
      check_expr(b.rhs, logic ? BaseType::Bool : untyped_triple(b.rhs) && is_triple(expected) ? expected : BaseType::Error);
    }
    BaseType l = b.lhs->type.base, r = b.rhs->type.base;
    bool err = l == BaseType::Error || r == BaseType::Error;
    switch (b.op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
      case BinaryOp::Mul:
      case BinaryOp::Div: {
        // A comparison used as a number, `(s > 0.5) * 2`: 1 when true, 0 when false, as C and
        // the renderers' compilers take it; warned, since RSL's booleans are not numbers.
        for (ExprPtr* side : {&b.lhs, &b.rhs})
          if ((*side)->type.base == BaseType::Bool) {
            sink_.warning("bool-as-number", (*side)->span, "a comparison used as a number is 1 when true and 0 when false");
            wrap(*side, BaseType::Float);
          }
        l = b.lhs->type.base;
        r = b.rhs->type.base;
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
    const bool element = a.target->kind == ExprKind::Index;
    if (element) check_index(static_cast<IndexExpr&>(*a.target));
    auto& target = const_cast<NameExpr&>(target_name(*a.target));
    if (!element) check_name(target, true);
    if (const Symbol* s = target.symbol) check_writable(*s, target.span);
    if (!element && target.type.is_array()) {  // a whole array: `a = b`
      if (a.op != AssignOp::Set)
        sink_.error("array-as-value", a.span, "'" + target.name + "' is an array; assign its elements one by one");
      else
        check_array_value(a.value, target.type, "the value assigned to '" + target.name + "'");
      a.type = target.type;
      return;
    }
    BaseType t = element ? a.target->type.base : target.type.base;
    check_expr(a.value, t);
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

  void writes_global(Global g) {
    auto& w = current_function_->writes_globals;
    if (std::find(w.begin(), w.end(), g) == w.end()) w.push_back(g);
  }

  void check_writable(const Symbol& s, const Span& span) {
    switch (s.kind) {
      case SymbolKind::Constant:
        sink_.error("assign-to-constant", span, "cannot assign to the constant '" + s.name + "'");
        break;
      case SymbolKind::Global:
        if (context_ == Context::Function && current_function_ && assigned_in_function(s.global)) writes_global(s.global);
        else if (!global_writable(context_, s.global))
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
    // The innermost local functions of that name hide outer ones and the file's functions.
    const std::vector<const FunctionDecl*>* candidates = nullptr;
    for (auto scope = local_functions_.rbegin(); scope != local_functions_.rend() && !candidates; ++scope) {
      auto it = scope->find(c.name);
      if (it != scope->end()) candidates = &it->second;
    }
    if (!candidates) {
      auto fit = functions_.find(c.name);
      if (fit != functions_.end()) candidates = &fit->second;
    }
    // Whole arrays may be passed to array parameters and to the library's array functions.
    auto array_param = [&](std::size_t i) {
      if (c.name == "arraylength") return true;
      if (is_query(c.name)) return i + 1 == c.args.size();
      if (c.name == "spline") return i + 1 == c.args.size();
      if (!candidates) return false;
      for (const FunctionDecl* f : *candidates)
        if (f->params.size() == c.args.size() && f->params[i].type.is_array()) return true;
      return false;
    };
    // texture(maps[i], ...) with `maps` an array of names: an element, not a channel (the parser
    // cannot tell them apart).
    if (c.channel && !c.args.empty() && c.args[0]->kind == ExprKind::Name) {
      const Symbol* s = lookup(static_cast<const NameExpr&>(*c.args[0]).name);
      if (s && s->type.is_array()) {
        const Span span = join(c.args[0]->span, c.channel->span);
        c.args[0] = std::make_unique<IndexExpr>(span, std::move(c.args[0]), std::move(c.channel));
      }
    }
    std::vector<BaseType> types(c.args.size());
    std::vector<Type> full(c.args.size());
    auto check_arg = [&](std::size_t i, BaseType hint) {
      array_ok_ = array_param(i);
      check_expr(c.args[i], hint);
      types[i] = c.args[i]->type.base;
      full[i] = c.args[i]->type;
    };
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      // An untyped triple argument takes the parameter's type (the first definition that fits);
      // a library function's, once the others are known (builtin_triple_hint).
      BaseType hint = BaseType::Error;
      if (untyped_triple(c.args[i]) && !candidates && is_builtin_name(c.name)) continue;
      if (candidates && untyped_triple(c.args[i]))
        for (const FunctionDecl* f : *candidates)
          if (f->params.size() == c.args.size() && is_triple(f->params[i].type.base)) {
            hint = f->params[i].type.base;
            break;
          }
      check_arg(i, hint);
    }
    if (!candidates && is_builtin_name(c.name))
      for (std::size_t i = 0; i < c.args.size(); ++i)
        if (untyped_triple(c.args[i])) check_arg(i, builtin_triple_hint(c, i, types, expected));
    bool any_error = std::any_of(types.begin(), types.end(), [](BaseType t) { return t == BaseType::Error; });
    if (candidates) {
      const FunctionDecl* best = nullptr;
      int best_cost = 1 << 30;
      for (const FunctionDecl* f : *candidates) {
        if (f->params.size() != c.args.size()) continue;
        int cost = 0;
        for (std::size_t i = 0; i < types.size() && cost >= 0; ++i) {
          const Type& want = f->params[i].type;
          if (types[i] == BaseType::Error) continue;
          if (want.is_array() || full[i].is_array()) {  // arrays pass whole, of one element type and length
            bool fits = want.is_array() && full[i].is_array() && want.base == types[i] &&
                        (want.array == Type::kAnyLength || want.array == full[i].array);
            if (!fits) cost = -1;
            continue;
          }
          if (types[i] == want.base) continue;
          if (is_assignable(want.base, types[i]) && !f->params[i].output) cost += 1;
          else cost = -1;
        }
        if (cost >= 0 && cost < best_cost) {
          best = f;
          best_cost = cost;
        }
      }
      if (!best) {
        if (!any_error) {
          std::string list;
          for (std::size_t i = 0; i < full.size(); ++i) list += (i ? ", " : "") + to_string(Type{full[i].base, Detail::Unspecified, full[i].array});
          sink_.report({Severity::Error, "no-matching-function", "no version of '" + c.name + "' takes (" + list + ")",
                        c.name_span, {{candidates->front()->span, "candidate defined here"}}});
        }
        return set(c, BaseType::Error);
      }
      c.function = best;
      for (std::size_t i = 0; i < c.args.size(); ++i) {
        const Param& p = best->params[i];
        if (p.output) check_output_arg(c.args[i], p.name);
        else if (!p.type.is_array()) coerce(c.args[i], p.type.base, "argument " + std::to_string(i + 1) + " of '" + c.name + "'");
      }
      calls_[current_function_].insert(best);
      for (Global g : best->writes_globals) {
        if (context_ == Context::Function && current_function_) writes_global(g);
        else if (!global_writable(context_, g))
          sink_.report({Severity::Error, "read-only-global",
                        "'" + c.name + "' assigns '" + to_string(g) + "', which " + context_name() + " cannot",
                        c.name_span, {{best->span, "function defined here"}}});
      }
      return set(c, best->return_type.base);
    }
    if (c.name == "arraylength") return check_arraylength(c, full);
    if (is_query(c.name)) return check_query(c, full);
    if (c.name == "spline" && !full.empty() && (full[0].base == BaseType::String || full.back().is_array())) return check_spline(c, full);
    if (!is_builtin_name(c.name)) {
      const std::string hint = suggest_function(c.name);
      sink_.error("unknown-function", c.name_span,
                  "call to unknown function '" + c.name + "'" +
                      (hint.empty() ? " (neither RenderMan's library nor this file defines it; a renderer's plugin (DSO) "
                                      "function cannot be called from Passlab)"
                                    : hint));
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
    if (c.name == "urand") c.uniform_random = true;
    if (c.channel && !check_channel(c, r.result)) return set(c, BaseType::Error);
    if (sig.id == Builtin::Ctransform)
      for (std::size_t i = 0; i + 1 < c.args.size(); ++i)
        if (c.args[i]->kind == ExprKind::String && !is_color_space(static_cast<const StringExpr&>(*c.args[i]).value))
          sink_.error("unknown-space", c.args[i]->span,
                      "unknown color space \"" + static_cast<const StringExpr&>(*c.args[i]).value +
                          "\"; the color spaces are rgb, hsv, hsl, xyz, xyY and YIQ");
    if (sig.needs_lights && context_ == Context::Light)
      sink_.error("light-function-in-light", c.name_span, "'" + c.name + "' is only available in surface shaders and functions");
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      if (i == 0 && sig.writes_first) {
        check_output_arg(c.args[0], "the first argument");
      } else if (sig.outputs_from >= 0 && i >= static_cast<std::size_t>(sig.outputs_from) && i < sig.args.size()) {
        check_output_arg(c.args[i], "argument " + std::to_string(i + 1) + " of '" + c.name + "'");
        if (types[i] != r.param_types[i] && !(is_pointlike(types[i]) && is_pointlike(r.param_types[i])))
          sink_.error("type-mismatch", c.args[i]->span,
                      "argument " + std::to_string(i + 1) + " of '" + c.name + "' receives a " + to_string(r.param_types[i]) +
                          ", which cannot be stored in a " + to_string(types[i]));
      } else {
        coerce_operand(c.args[i], r.param_types[i]);
      }
    }
    set(c, r.result);
  }

  // texture(name[k], ...), environment(name[k], ...), shadow(name[k], ...): a float lookup reads
  // channel k, a colour one channels k to k + 2. A number written in the shader is checked here;
  // any other float expression (a parameter, as published shaders write it) is chosen when the
  // shader runs, and a channel the map does not have reads 0, as renderers fill it (RI 3.2 §15.7).
  // A shadow map has one channel, its depth.
  bool check_channel(CallExpr& c, BaseType result) {
    const bool shadow = signature(c.builtin).id == Builtin::Shadow;
    const int last = shadow ? 0 : is_triple(result) ? 1 : 3;
    if (c.channel->kind != ExprKind::Number) {
      check_expr(c.channel, BaseType::Float);
      if (c.channel->type.base == BaseType::Error) return false;
      if (c.channel->type.base != BaseType::Float || c.channel->type.is_array()) {
        sink_.error("texture-channel", c.channel->span, "a texture channel is a float, not " + describe(c.channel->type));
        return false;
      }
      if (shadow)
        sink_.warning("texture-channel", c.channel->span, "a shadow map has one channel, its depth: this channel is not used");
      c.channel_index = shadow ? 0 : CallExpr::kChannelChosenAtRun;
      return true;
    }
    const double k = static_cast<const NumberExpr&>(*c.channel).value;
    if (k != static_cast<int>(k) || k < 0 || k > last) {
      sink_.error("texture-channel", c.channel->span,
                  shadow                 ? "a shadow map has one channel, its depth: its channel is 0"
                  : is_triple(result)    ? "a colour lookup's first channel must be 0 or 1 (it reads three channels)"
                                         : "a texture channel must be 0, 1, 2 or 3");
      return false;
    }
    c.channel_index = static_cast<int>(k);
    return true;
  }

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

  // spline with a basis name first, or its knots in an array: spline([basis,] x, k0, k1, ...) and
  // spline([basis,] x, knots[]). The knots are floats or one triple type; at least four.
  void check_spline(CallExpr& c, const std::vector<Type>& full) {
    if (std::any_of(full.begin(), full.end(), [](const Type& t) { return t.base == BaseType::Error; })) return set(c, BaseType::Error);
    const std::size_t first = full[0].base == BaseType::String ? 1 : 0;
    auto bad = [&](const std::string& why) {
      sink_.error("no-matching-function", c.name_span, "no version of 'spline' takes these arguments: " + why);
      set(c, BaseType::Error);
    };
    if (first == 1 && c.args[0]->kind == ExprKind::String && !is_spline_basis(static_cast<const StringExpr&>(*c.args[0]).value))
      return bad("unknown basis \"" + static_cast<const StringExpr&>(*c.args[0]).value +
                 "\" (catmull-rom, b-spline, bezier, hermite, linear)");
    if (full.size() < first + 2 || full[first].is_array() || full[first].base != BaseType::Float) return bad("the position is a float");
    BaseType knot = full[first + 1].base;
    std::size_t count = 0;
    if (full.back().is_array()) {
      if (full.size() != first + 2) return bad("an array of knots comes alone");
      count = static_cast<std::size_t>(full.back().array);
    } else {
      for (std::size_t i = first + 1; i < full.size(); ++i) {
        if (full[i].is_array()) return bad("knots are values or one array");
        if (full[i].base != knot && !(knot == BaseType::Float && is_triple(full[i].base))) {
          if (is_triple(knot) && full[i].base == BaseType::Float) continue;
          return bad("the knots have one type");
        }
        if (is_triple(full[i].base)) knot = full[i].base;
      }
      count = full.size() - first - 1;
      for (std::size_t i = first + 1; i < full.size(); ++i) coerce(c.args[i], knot, "a knot");
    }
    if (knot != BaseType::Float && !is_triple(knot)) return bad("the knots are floats, colours, points or vectors");
    if (count < 4) return bad("at least four knots");
    c.builtin = index_of(Builtin::Spline);
    set(c, knot);
  }

  static bool is_query(const std::string& name) {
    for (const Signature& s : signatures())
      if (s.query && s.name == name) return true;
    return false;
  }

  // lightsource("name", v), surface("Kd", v), attribute("a:b", v), textureinfo("map", "resolution",
  // r)...: names, then the variable that receives the value (any type, arrays too).
  void check_query(CallExpr& c, const std::vector<Type>& full) {
    const Signature* sig = nullptr;
    for (const Signature& s : signatures())
      if (s.query && s.name == c.name && s.args.size() == full.size()) sig = &s;
    if (!sig) {
      sink_.error("no-matching-function", c.name_span, "'" + c.name + "' takes its names and then the variable that receives the value");
      return set(c, BaseType::Error);
    }
    for (std::size_t i = 0; i + 1 < full.size(); ++i)
      if (full[i].base != BaseType::String && full[i].base != BaseType::Error)
        sink_.error("type-mismatch", c.args[i]->span, "argument " + std::to_string(i + 1) + " of '" + c.name + "' is a name (a string)");
    check_output_arg(c.args.back(), "the value of '" + c.name + "'");
    c.builtin = static_cast<int>(sig - signatures().data());
    set(c, BaseType::Float);
  }

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

  void check_cast(CastExpr& c) {
    if (!c.space.empty()) {
      if (is_pointlike(c.to) || c.to == BaseType::Matrix) {
        // Any other name is a space the scene defines (RiCoordinateSystem); the light setup's
        // "spaces" bind it, and binding reports a name it does not know.
        // A name a letter or two from a standard one is most likely a typo of it.
        if (!is_standard_space(c.space))
          for (std::string_view standard : {"current", "camera", "world", "object", "shader", "screen", "raster", "NDC"})
            if (edit_distance(c.space, standard) <= (standard.size() <= 3 ? 1u : 2u)) {
              sink_.warning("named-space", c.space_span,
                            "\"" + c.space + "\" is not a standard coordinate system; did you mean \"" + std::string(standard) +
                                "\"? (a scene's own must be defined under the light setup's \"spaces\")");
              break;
            }
      } else if (c.to == BaseType::Color) {
        if (!is_color_space(c.space))
          sink_.error("unknown-space", c.space_span, "unknown color space \"" + c.space + "\"; the color spaces are rgb, hsv, hsl, xyz, xyY and YIQ");
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
    for (const FunctionDecl* f : local_list_)
      if (state[f] == 0) visit(f);
  }

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

}  // namespace

void analyze_frequency(TranslationUnit& unit, DiagnosticSink& sink);
void analyze_assignment(TranslationUnit& unit, DiagnosticSink& sink);

void analyze(TranslationUnit& unit, DiagnosticSink& sink, const SemaOptions& options) {
  Checker(unit, sink, options).run();
  analyze_frequency(unit, sink);
  analyze_assignment(unit, sink);
}

}  // namespace passlab::lang
