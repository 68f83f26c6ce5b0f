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

#include "core/lang/sema_internal.h"

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

namespace sema_detail {

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
// 1. Checker: declarations, scopes and statements (expressions: sema_expressions.cpp)

void Checker::run() {
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

bool Checker::hides_builtin(const FunctionDecl& f) {
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

void Checker::declare(Symbol& s) {
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

Symbol* Checker::lookup(const std::string& name) const {
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

std::string Checker::suggest(const std::string& name) const {
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

std::string Checker::suggest_function(const std::string& name) const {
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

void Checker::check_params(std::vector<Param>& params, bool shader) {
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

void Checker::check_function_body(FunctionDecl& f) {
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

void Checker::check_local_function(FunctionStmt& st) {
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

void Checker::check_extern(DeclStmt& d) {
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

void Checker::check_shader(ShaderDecl& s) {
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

bool Checker::check_block(BlockStmt& b, bool new_scope) {
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

bool Checker::check_stmt(Stmt& st) {
  switch (st.kind) {
    case StmtKind::Block: return check_block(static_cast<BlockStmt&>(st));
    case StmtKind::Empty: return true;
    case StmtKind::Function: check_local_function(static_cast<FunctionStmt&>(st)); return true;
    case StmtKind::Gather: return check_gather(static_cast<GatherStmt&>(st));
    case StmtKind::Decl: return check_decl(static_cast<DeclStmt&>(st));
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
    case StmtKind::Continue: return check_jump(st);
    case StmtKind::Return: return check_return(static_cast<ReturnStmt&>(st));
    case StmtKind::Illuminance: return check_illuminance(static_cast<IlluminanceStmt&>(st));
    case StmtKind::Illuminate:
    case StmtKind::Solar: return check_light_statement(st);
  }
  return true;
}

bool Checker::check_gather(GatherStmt& g) {
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

bool Checker::check_decl(DeclStmt& d) {
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
    // `float a[];` with no values: a resizable array, empty until push or resize gives it elements.
    const bool resizable = type.array == Type::kAnyLength;
    if (resizable) type.array = Type::kResizableCapacity;
    Symbol& s = new_symbol(SymbolKind::Local, v.name, v.span);
    s.type = type;
    s.resizable = resizable;
    v.symbol = &s;
    declare(s);
  }
  return true;
}

bool Checker::check_jump(Stmt& st) {
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

bool Checker::check_return(ReturnStmt& r) {
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

bool Checker::check_illuminance(IlluminanceStmt& s) {
  if (context_ == Context::Light)
    sink_.error("illuminance-in-light", s.span, "'illuminance' is only allowed in surface shaders and functions");
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

bool Checker::check_light_statement(Stmt& st) {
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

void Checker::check_recursion() {
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

}  // namespace sema_detail

void analyze_frequency(TranslationUnit& unit, DiagnosticSink& sink);
void analyze_assignment(TranslationUnit& unit, DiagnosticSink& sink);

void analyze(TranslationUnit& unit, DiagnosticSink& sink, const SemaOptions& options) {
  sema_detail::Checker(unit, sink, options).run();
  analyze_frequency(unit, sink);
  analyze_assignment(unit, sink);
}

}  // namespace passlab::lang
