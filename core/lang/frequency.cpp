// SPDX-License-Identifier: GPL-3.0-or-later
// Uniform/varying inference: a fixpoint over each body, then every expression gets its detail.
//
// A local declared without `uniform`/`varying` becomes varying when a varying value, or a
// varying condition, reaches any of its assignments. Function parameters without a detail are
// polymorphic: the body is analysed as if they were uniform and each call joins its arguments.
// A local function is analysed at each call, as it is inlined there: its parameters take the
// join of their arguments, and what it assigns to enclosing variables happens under the call's
// control. A variable declared uniform that is assigned under a varying condition (a loop with a
// varying `break`) becomes varying with a warning, as PRMan does.
#include <map>
#include <set>

#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"
#include "core/lang/stdlib.h"

namespace passlab::lang {

namespace {

class Frequency {
 public:
  Frequency(TranslationUnit& unit, DiagnosticSink& sink) : unit_(unit), sink_(sink) {}

  void run() {
    for (int round = 0; round < 64; ++round) {
      changed_ = false;
      walk_all();
      if (!changed_) break;
    }
    final_ = true;
    walk_all();
    for (Symbol& s : unit_.symbols) {
      if (s.kind == SymbolKind::Local && s.type.detail == Detail::Unspecified) s.type.detail = local(&s);
      if (promoted_.count(&s)) s.type.detail = Detail::Varying;
    }
  }

 private:
  void walk_all() {
    for (auto& f : unit_.functions) {
      current_ = f.get();
      Detail before = returns_[f.get()];
      ret_ = Detail::Uniform;
      if (f->body) stmt(*f->body, Detail::Uniform);
      if (ret_ != before) {
        returns_[f.get()] = ret_;
        changed_ = true;
      }
    }
    current_ = nullptr;
    for (auto& s : unit_.shaders) {
      for (auto& p : s->params)
        if (p.default_value) expr(*p.default_value, Detail::Uniform);
      if (s->body) stmt(*s->body, Detail::Uniform);
    }
  }

  // random() in a value a uniform variable receives is a uniform random, as renderers compile it
  // (`uniform float jitter = random() * 0.1`): one value, not one per point.
  static void uniform_randoms(Expr& e) {
    switch (e.kind) {
      case ExprKind::Unary: uniform_randoms(*static_cast<UnaryExpr&>(e).operand); break;
      case ExprKind::Convert: uniform_randoms(*static_cast<ConvertExpr&>(e).operand); break;
      case ExprKind::Cast: uniform_randoms(*static_cast<CastExpr&>(e).operand); break;
      case ExprKind::Binary:
        uniform_randoms(*static_cast<BinaryExpr&>(e).lhs);
        uniform_randoms(*static_cast<BinaryExpr&>(e).rhs);
        break;
      case ExprKind::Ternary:
        uniform_randoms(*static_cast<TernaryExpr&>(e).then_expr);
        uniform_randoms(*static_cast<TernaryExpr&>(e).else_expr);
        break;
      case ExprKind::Tuple:
        for (auto& el : static_cast<TupleExpr&>(e).elements) uniform_randoms(*el);
        break;
      case ExprKind::Call: {
        auto& c = static_cast<CallExpr&>(e);
        if (c.builtin >= 0 && signature(c.builtin).id == Builtin::Random) c.uniform_random = true;
        else if (c.builtin >= 0)
          for (auto& a : c.args) uniform_randoms(*a);
        break;
      }
      default: break;
    }
  }

  Detail local(const Symbol* s) {
    auto it = inferred_.find(s);
    return it == inferred_.end() ? Detail::Uniform : it->second;
  }

  Detail of(const Symbol* s) {
    if (!s) return Detail::Uniform;
    if (promoted_.count(s)) return Detail::Varying;
    if (s->kind == SymbolKind::FunctionParam && s->type.detail == Detail::Unspecified) {
      auto it = local_params_.find(s);
      if (it != local_params_.end()) return it->second;
    }
    if (s->type.detail != Detail::Unspecified && !(s->kind == SymbolKind::Local && final_ && inferred_.count(s)))
      return s->type.detail;
    switch (s->kind) {
      case SymbolKind::Local: return local(s);
      case SymbolKind::FunctionParam: return Detail::Uniform;  // polymorphic
      default: return Detail::Uniform;
    }
  }

  void widen(Detail& x, Detail d) {
    if (d == Detail::Varying && x != Detail::Varying) {
      x = Detail::Varying;
      changed_ = true;
    }
  }

  void assign(const Symbol* s, Detail d, const Span& span, bool under_control) {
    if (!s) return;
    if (s->kind == SymbolKind::FunctionParam && s->type.detail == Detail::Unspecified && local_params_.count(s)) {
      widen(local_params_[s], d);
      return;
    }
    if (s->kind == SymbolKind::Local && s->type.detail == Detail::Uniform && (under_control || promoted_.count(s))) {
      if (!promoted_.count(s)) {
        promoted_.emplace(s, span);  // the assignment that promotes it, reported once at the end
        changed_ = true;
      }
      if (final_ && warned_.insert(s).second)
        sink_.report({Severity::Warning, "uniform-promoted",
                      "uniform variable '" + s->name + "' is assigned under a varying condition, so it becomes varying",
                      promoted_.at(s), {{s->decl_span, "'" + s->name + "' is declared uniform here"}}});
      return;
    }
    if (s->kind == SymbolKind::FunctionParam && s->output && current_ && s->type.detail == Detail::Unspecified) {
      // What the body writes to an output parameter reaches the caller's variable (see Call).
      Detail& out = outputs_[{current_, s->index}];
      if (d == Detail::Varying && out != Detail::Varying) {
        out = Detail::Varying;
        changed_ = true;
      }
      return;
    }
    if (s->kind == SymbolKind::Local && s->type.detail == Detail::Unspecified) {
      if (d == Detail::Varying && local(s) != Detail::Varying) {
        inferred_[s] = Detail::Varying;
        changed_ = true;
      }
      return;
    }
    if (final_ && d == Detail::Varying && s->type.detail == Detail::Uniform && s->kind != SymbolKind::Global)
      sink_.report({Severity::Error, "varying-to-uniform",
                    under_control ? "cannot assign to uniform variable '" + s->name + "' under a varying condition"
                                  : "cannot assign a varying value to uniform variable '" + s->name + "'",
                    span, {{s->decl_span, "'" + s->name + "' is declared uniform here"}}});
  }

  Detail expr(Expr& e, Detail control) {
    Detail d = Detail::Uniform;
    switch (e.kind) {
      case ExprKind::Number:
      case ExprKind::String: break;
      case ExprKind::Name: d = of(static_cast<NameExpr&>(e).symbol); break;
      case ExprKind::Unary: d = expr(*static_cast<UnaryExpr&>(e).operand, control); break;
      case ExprKind::Convert: d = expr(*static_cast<ConvertExpr&>(e).operand, control); break;
      case ExprKind::Cast: d = expr(*static_cast<CastExpr&>(e).operand, control); break;
      case ExprKind::Binary: {
        auto& b = static_cast<BinaryExpr&>(e);
        d = join(expr(*b.lhs, control), expr(*b.rhs, control));
        break;
      }
      case ExprKind::Ternary: {
        auto& t = static_cast<TernaryExpr&>(e);
        Detail c = expr(*t.cond, control);
        d = join(c, join(expr(*t.then_expr, join(control, c)), expr(*t.else_expr, join(control, c))));
        break;
      }
      case ExprKind::Tuple:
        for (auto& el : static_cast<TupleExpr&>(e).elements) d = join(d, expr(*el, control));
        break;
      case ExprKind::ArrayLit:
        for (auto& el : static_cast<ArrayLitExpr&>(e).elements) d = join(d, expr(*el, control));
        break;
      case ExprKind::Index: {
        auto& x = static_cast<IndexExpr&>(e);
        d = join(expr(*x.base, control), expr(*x.index, control));
        break;
      }
      case ExprKind::Assign: {
        auto& a = static_cast<AssignExpr&>(e);
        auto& target = const_cast<NameExpr&>(target_name(*a.target));
        if (target.symbol && target.symbol->kind == SymbolKind::Local && target.symbol->type.detail == Detail::Uniform)
          uniform_randoms(*a.value);
        Detail v = expr(*a.value, control);
        // An element chosen by a varying index is a varying choice: the whole array varies.
        if (a.target->kind == ExprKind::Index) v = join(v, expr(*static_cast<IndexExpr&>(*a.target).index, control));
        if (a.op != AssignOp::Set) v = join(v, of(target.symbol));
        assign(target.symbol, join(v, control), a.span, control == Detail::Varying && v == Detail::Uniform);
        d = join(v, of(target.symbol));
        target.type.detail = of(target.symbol);
        break;
      }
      case ExprKind::Call: {
        auto& c = static_cast<CallExpr&>(e);
        std::vector<Detail> args;
        for (auto& a : c.args) {
          args.push_back(expr(*a, control));
          d = join(d, args.back());
        }
        if (c.channel) d = join(d, expr(*c.channel, control));  // texture(name[k], ...)
        if (c.function && c.function->local) {
          d = local_call(c, args, control);
        } else if (c.function) {
          Detail inputs = d;
          d = join(d, returns_[c.function]);
          for (std::size_t i = 0; i < c.args.size() && i < c.function->params.size(); ++i) {
            const Param& p = c.function->params[i];
            if (!p.output || c.args[i]->kind != ExprKind::Name) continue;
            Detail written = p.type.detail == Detail::Varying ? Detail::Varying : outputs_[{c.function, static_cast<int>(i)}];
            assign(static_cast<NameExpr&>(*c.args[i]).symbol, join(join(inputs, written), control), c.args[i]->span, false);
          }
        } else if (c.builtin >= 0) {
          const Signature& sig = signature(c.builtin);
          if (sig.needs_lights || sig.derivative || sig.ray_traced || sig.point_based || (sig.id == Builtin::Random && !c.uniform_random) ||
              (sig.id == Builtin::Texture && c.args.size() == 1))
            d = Detail::Varying;
          if (sig.writes_first && !c.args.empty() && c.args[0]->kind == ExprKind::Name)
            assign(static_cast<NameExpr&>(*c.args[0]).symbol, join(d, control), c.args[0]->span, false);
          if (sig.outputs_from >= 0)
            for (std::size_t i = static_cast<std::size_t>(sig.outputs_from); i < c.args.size() && i < sig.args.size(); ++i)
              if (c.args[i]->kind == ExprKind::Name)
                assign(static_cast<NameExpr&>(*c.args[i]).symbol, join(d, control), c.args[i]->span, false);
        }
        break;
      }
    }
    if (final_) e.type.detail = d;
    return d;
  }

  // A local function's body, walked where it is called (and inlined).
  Detail local_call(CallExpr& c, const std::vector<Detail>& args, Detail control) {
    const FunctionDecl* f = c.function;
    if (!f->body || active_.count(f)) return Detail::Varying;  // recursion: sema reports it
    active_.insert(f);
    for (std::size_t i = 0; i < args.size() && i < f->params.size(); ++i)
      if (f->params[i].symbol) widen(local_params_[f->params[i].symbol], args[i]);
    Detail saved = ret_;
    ret_ = Detail::Uniform;
    stmt(*f->body, control);
    Detail r = ret_;
    ret_ = saved;
    for (std::size_t i = 0; i < c.args.size() && i < f->params.size(); ++i) {
      const Param& p = f->params[i];
      if (p.output && c.args[i]->kind == ExprKind::Name)
        assign(static_cast<NameExpr&>(*c.args[i]).symbol, join(of(p.symbol), control), c.args[i]->span, false);
    }
    active_.erase(f);
    return r;
  }

  void stmt(Stmt& s, Detail control) {
    switch (s.kind) {
      case StmtKind::Function: break;  // walked at each call
      case StmtKind::Gather: {  // each ray's hit is its own: everything inside varies
        auto& g = static_cast<GatherStmt&>(s);
        for (std::size_t i = 0; i < g.args.size(); ++i) {
          expr(*g.args[i], control);
          if (i >= 5 && (i - 5) % 2 == 1 && g.args[i]->kind == ExprKind::Name)
            assign(static_cast<NameExpr&>(*g.args[i]).symbol, Detail::Varying, g.args[i]->span, false);
        }
        loops_.push_back(&s);
        stmt(*g.body, Detail::Varying);
        if (g.else_body) stmt(*g.else_body, Detail::Varying);
        loops_.pop_back();
        break;
      }
      case StmtKind::Block:
        for (auto& st : static_cast<BlockStmt&>(s).stmts) stmt(*st, control);
        break;
      case StmtKind::Empty: break;
      case StmtKind::Decl: {
        auto& d = static_cast<DeclStmt&>(s);
        for (auto& v : d.vars) {
          if (v.init && v.symbol && v.symbol->type.detail == Detail::Uniform) uniform_randoms(*v.init);
          if (v.init) assign(v.symbol, join(expr(*v.init, control), control), v.span, false);
        }
        break;
      }
      case StmtKind::Expr: expr(*static_cast<ExprStmt&>(s).expr, control); break;
      case StmtKind::If: {
        auto& i = static_cast<IfStmt&>(s);
        Detail c = join(control, expr(*i.cond, control));
        stmt(*i.then_stmt, c);
        if (i.else_stmt) stmt(*i.else_stmt, c);
        break;
      }
      case StmtKind::While: {
        auto& w = static_cast<WhileStmt&>(s);
        loop(&s, w.cond.get(), nullptr, nullptr, *w.body, control);
        break;
      }
      case StmtKind::For: {
        auto& f = static_cast<ForStmt&>(s);
        if (f.init) expr(*f.init, control);
        loop(&s, f.cond.get(), f.step.get(), nullptr, *f.body, control);
        break;
      }
      case StmtKind::Break:
      case StmtKind::Continue:
        if (control == Detail::Varying && !loops_.empty() && !varying_exit_[loops_.back()]) {
          varying_exit_[loops_.back()] = true;
          changed_ = true;
        }
        break;
      case StmtKind::Return: {
        auto& r = static_cast<ReturnStmt&>(s);
        if (r.value) ret_ = join(ret_, join(expr(*r.value, control), control));
        break;
      }
      case StmtKind::Illuminance: {
        auto& il = static_cast<IlluminanceStmt&>(s);
        if (il.category) expr(*il.category, control);
        expr(*il.position, control);
        if (il.axis) expr(*il.axis, control);
        if (il.angle) expr(*il.angle, control);
        loops_.push_back(&s);
        stmt(*il.body, Detail::Varying);
        loops_.pop_back();
        break;
      }
      case StmtKind::Illuminate: {
        auto& il = static_cast<IlluminateStmt&>(s);
        expr(*il.position, control);
        if (il.axis) expr(*il.axis, control);
        if (il.angle) expr(*il.angle, control);
        stmt(*il.body, Detail::Varying);
        break;
      }
      case StmtKind::Solar: {
        auto& so = static_cast<SolarStmt&>(s);
        if (so.axis) expr(*so.axis, control);
        if (so.angle) expr(*so.angle, control);
        stmt(*so.body, Detail::Varying);
        break;
      }
    }
  }

  void loop(const Stmt* key, Expr* cond, Expr* step, Expr*, Stmt& body, Detail control) {
    Detail c = control;
    if (varying_exit_[key]) c = Detail::Varying;
    if (cond) c = join(c, expr(*cond, c));
    loops_.push_back(key);
    stmt(body, c);
    if (step) expr(*step, c);
    loops_.pop_back();
  }

  TranslationUnit& unit_;
  DiagnosticSink& sink_;
  std::map<const Symbol*, Detail> inferred_;
  std::map<const FunctionDecl*, Detail> returns_;
  std::map<std::pair<const FunctionDecl*, int>, Detail> outputs_;  // detail written to each output parameter
  std::map<const Stmt*, bool> varying_exit_;
  std::map<const Symbol*, Detail> local_params_;  // a local function's parameters: the join of their arguments
  std::map<const Symbol*, Span> promoted_;        // uniform variables assigned under varying control, and where
  std::set<const Symbol*> warned_;
  std::set<const FunctionDecl*> active_;          // local functions being walked
  std::vector<const Stmt*> loops_;
  const FunctionDecl* current_ = nullptr;
  Detail ret_ = Detail::Uniform;
  bool changed_ = false;
  bool final_ = false;
};

}  // namespace

void analyze_frequency(TranslationUnit& unit, DiagnosticSink& sink) { Frequency(unit, sink).run(); }

}  // namespace passlab::lang
