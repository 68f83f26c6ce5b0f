// SPDX-License-Identifier: GPL-3.0-or-later
// The checker's expressions: coercions, names, operators, assignment, and calls (overload
// resolution against the standard library and user functions, and the library's special forms:
// texture channels, arraylength, spline, queries, casts).
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "core/lang/sema_internal.h"

namespace passlab::lang::sema_detail {

void Checker::coerce(ExprPtr& e, BaseType to, const std::string& what) {
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

int Checker::check_array_value(ExprPtr& e, const Type& want, const std::string& what) {
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

void Checker::check_index(IndexExpr& x) {
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

void Checker::check_expr(ExprPtr& e, BaseType expected) {
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

void Checker::check_name(NameExpr& n, bool array_ok) {
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

std::string Checker::context_name() const {
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

void Checker::check_unary(UnaryExpr& u) {
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

BaseType Checker::arithmetic(BinaryOp op, BaseType a, BaseType b, const Span& span) {
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

BaseType Checker::builtin_triple_hint(const CallExpr& c, std::size_t i, const std::vector<BaseType>& types, BaseType expected) const {
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

void Checker::check_binary(BinaryExpr& b, BaseType expected) {
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

void Checker::check_assign(AssignExpr& a) {
  const bool element = a.target->kind == ExprKind::Index;
  if (element) check_index(static_cast<IndexExpr&>(*a.target));
  auto& target = const_cast<NameExpr&>(target_name(*a.target));
  if (!element) check_name(target, true);
  if (const Symbol* s = target.symbol) check_writable(*s, target.span);
  if (!element && target.type.is_array()) {  // a whole array: `a = b`
    if (a.op != AssignOp::Set) {
      sink_.error("array-as-value", a.span, "'" + target.name + "' is an array; assign its elements one by one");
    } else if (target.symbol && target.symbol->resizable) {  // takes the value's length
      Type any = target.type;
      any.array = Type::kAnyLength;
      const int n = check_array_value(a.value, any, "the value assigned to '" + target.name + "'");
      if (n > target.type.array)
        sink_.error("array-size", a.value->span,
                    "a resizable array holds at most " + std::to_string(target.type.array) + " elements; this value has " + std::to_string(n));
    } else {
      check_array_value(a.value, target.type, "the value assigned to '" + target.name + "'");
    }
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

void Checker::check_writable(const Symbol& s, const Span& span) {
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

void Checker::check_call(CallExpr& c, BaseType expected) {
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
    if (c.name == "push" || c.name == "pop" || c.name == "resize") return i == 0;
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
  if (c.name == "push" || c.name == "pop" || c.name == "resize") return check_resize(c, full);
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

bool Checker::check_channel(CallExpr& c, BaseType result) {
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

void Checker::check_resize(CallExpr& c, const std::vector<Type>& full) {
  const Builtin id = c.name == "push" ? Builtin::Push : c.name == "pop" ? Builtin::Pop : Builtin::Resize;
  const std::size_t arity = id == Builtin::Pop ? 1 : 2;
  if (std::any_of(full.begin(), full.end(), [](const Type& t) { return t.base == BaseType::Error; })) return set(c, BaseType::Error);
  if (full.size() != arity) {
    sink_.error("no-matching-function", c.name_span,
                "'" + c.name + "' takes " + (id == Builtin::Push ? "an array and a value" : id == Builtin::Pop ? "one array" : "an array and a length"));
    return set(c, BaseType::Error);
  }
  const Symbol* a = c.args[0]->kind == ExprKind::Name ? static_cast<const NameExpr&>(*c.args[0]).symbol : nullptr;
  if (!a || !a->resizable) {
    const std::string what = a && a->type.is_array() ? "'" + a->name + "' has a fixed length of " + std::to_string(a->type.array)
                                                     : "its first argument is not an array";
    sink_.error("resizable-array", c.args[0]->span,
                "'" + c.name + "' changes the length of an array declared with empty brackets and no values (color a[];); " + what);
    return set(c, BaseType::Error);
  }
  check_writable(*a, c.args[0]->span);
  const BaseType element = a->type.base;
  if (id == Builtin::Push) coerce(c.args[1], element, "the value pushed onto '" + a->name + "'");
  if (id == Builtin::Resize) coerce(c.args[1], BaseType::Float, "the length given to 'resize'");
  c.builtin = index_of(id);
  set(c, id == Builtin::Pop ? element : BaseType::Void);
}

void Checker::check_spline(CallExpr& c, const std::vector<Type>& full) {
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

void Checker::check_query(CallExpr& c, const std::vector<Type>& full) {
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

void Checker::check_cast(CastExpr& c) {
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

}  // namespace passlab::lang::sema_detail
