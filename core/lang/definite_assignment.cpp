// SPDX-License-Identifier: GPL-3.0-or-later
// Definite assignment: warns where a local may be read before any value reached it.
#include <set>

#include "core/lang/ast.h"
#include "core/lang/diagnostic.h"
#include "core/lang/stdlib.h"

namespace passlab::lang {

namespace {

// The set of locals definitely assigned at a program point; `dead` means unreachable (every
// variable counts as assigned there, the neutral element of the meet).
struct State {
  std::set<int> assigned;
  bool dead = false;

  static State meet(const State& a, const State& b) {
    if (a.dead) return b;
    if (b.dead) return a;
    State r;
    for (int id : a.assigned)
      if (b.assigned.count(id)) r.assigned.insert(id);
    return r;
  }
};

class Assignment {
 public:
  explicit Assignment(DiagnosticSink& sink) : sink_(sink) {}

  void body(BlockStmt& b) {
    State st;
    stmt(b, st);
  }

 private:
  void read(const NameExpr& n, const State& st) {
    const Symbol* s = n.symbol;
    // Arrays are assigned element by element, which this analysis does not follow: not checked.
    if (!s || s->kind != SymbolKind::Local || s->type.is_array() || st.dead || st.assigned.count(s->id) || warned_.count(s->id))
      return;
    warned_.insert(s->id);
    sink_.report({Severity::Warning, "maybe-uninitialized", "variable '" + s->name + "' may be used before it is assigned",
                  n.span, {{s->decl_span, "'" + s->name + "' is declared here"}}});
  }

  static void write(const Expr& e, State& st) {
    if (e.kind != ExprKind::Name) return;
    if (const Symbol* s = static_cast<const NameExpr&>(e).symbol) st.assigned.insert(s->id);
  }

  void expr(Expr& e, State& st) {
    switch (e.kind) {
      case ExprKind::Number:
      case ExprKind::String: return;
      case ExprKind::Name: return read(static_cast<NameExpr&>(e), st);
      case ExprKind::Unary: return expr(*static_cast<UnaryExpr&>(e).operand, st);
      case ExprKind::Convert: return expr(*static_cast<ConvertExpr&>(e).operand, st);
      case ExprKind::Cast: return expr(*static_cast<CastExpr&>(e).operand, st);
      case ExprKind::Tuple:
        for (auto& el : static_cast<TupleExpr&>(e).elements) expr(*el, st);
        return;
      case ExprKind::ArrayLit:
        for (auto& el : static_cast<ArrayLitExpr&>(e).elements) expr(*el, st);
        return;
      case ExprKind::Index:
        expr(*static_cast<IndexExpr&>(e).base, st);
        expr(*static_cast<IndexExpr&>(e).index, st);
        return;
      case ExprKind::Binary: {
        auto& b = static_cast<BinaryExpr&>(e);
        expr(*b.lhs, st);
        if (b.op == BinaryOp::And || b.op == BinaryOp::Or) {
          State right = st;  // may not run
          expr(*b.rhs, right);
        } else {
          expr(*b.rhs, st);
        }
        return;
      }
      case ExprKind::Ternary: {
        auto& t = static_cast<TernaryExpr&>(e);
        expr(*t.cond, st);
        State a = st, b = st;
        expr(*t.then_expr, a);
        expr(*t.else_expr, b);
        st = State::meet(a, b);
        return;
      }
      case ExprKind::Assign: {
        auto& a = static_cast<AssignExpr&>(e);
        if (a.target->kind == ExprKind::Index) expr(*static_cast<IndexExpr&>(*a.target).index, st);
        else if (a.op != AssignOp::Set) expr(*a.target, st);
        expr(*a.value, st);
        write(*a.target, st);
        return;
      }
      case ExprKind::Call: {
        auto& c = static_cast<CallExpr&>(e);
        auto output_only = [&](std::size_t i) {
          if (c.function) return i < c.function->params.size() && c.function->params[i].output;
          if (c.builtin < 0) return false;
          const Signature& sig = signature(c.builtin);
          return sig.outputs_from >= 0 && i >= static_cast<std::size_t>(sig.outputs_from) && i < sig.args.size();
        };
        for (std::size_t i = 0; i < c.args.size(); ++i)
          if (!output_only(i)) expr(*c.args[i], st);
        if (c.channel) expr(*c.channel, st);  // texture(name[k], ...)
        for (std::size_t i = 0; i < c.args.size(); ++i) {
          bool out = output_only(i) || (i == 0 && c.builtin >= 0 && signature(c.builtin).writes_first);
          if (out) write(*c.args[i], st);
        }
        return;
      }
    }
  }

  void loop_body(Stmt& body, Expr* step, State& st) {
    State inside = st;
    stmt(body, inside);
    if (step) {
      inside.dead = false;
      expr(*step, inside);
    }
    // The body may run zero times: what it assigns is not definite afterwards.
  }

  void stmt(Stmt& s, State& st) {
    switch (s.kind) {
      case StmtKind::Block:
        for (auto& x : static_cast<BlockStmt&>(s).stmts) stmt(*x, st);
        return;
      case StmtKind::Empty: return;
      case StmtKind::Gather: {
        auto& g = static_cast<GatherStmt&>(s);
        for (std::size_t i = 0; i < g.args.size(); ++i)
          if (i < 5 || (i - 5) % 2 == 0) expr(*g.args[i], st);
        State hit = st;
        for (std::size_t i = 6; i < g.args.size(); i += 2) write(*g.args[i], hit);
        loop_body(*g.body, nullptr, hit);
        if (g.else_body) loop_body(*g.else_body, nullptr, st);
        return;
      }
      case StmtKind::Function: {
        // A local function's body, as if called here: it sees what is assigned so far.
        State inside = st;
        if (auto& f = static_cast<FunctionStmt&>(s).function; f->body) stmt(*f->body, inside);
        return;
      }
      case StmtKind::Decl:
        for (auto& v : static_cast<DeclStmt&>(s).vars)
          if (v.init) {
            expr(*v.init, st);
            if (v.symbol) st.assigned.insert(v.symbol->id);
          }
        return;
      case StmtKind::Expr: return expr(*static_cast<ExprStmt&>(s).expr, st);
      case StmtKind::If: {
        auto& i = static_cast<IfStmt&>(s);
        expr(*i.cond, st);
        State a = st, b = st;
        stmt(*i.then_stmt, a);
        if (i.else_stmt) stmt(*i.else_stmt, b);
        st = State::meet(a, b);
        return;
      }
      case StmtKind::While: {
        auto& w = static_cast<WhileStmt&>(s);
        expr(*w.cond, st);
        loop_body(*w.body, nullptr, st);
        return;
      }
      case StmtKind::For: {
        auto& f = static_cast<ForStmt&>(s);
        if (f.init) expr(*f.init, st);
        if (f.cond) expr(*f.cond, st);
        loop_body(*f.body, f.step.get(), st);
        return;
      }
      case StmtKind::Break:
      case StmtKind::Continue: st.dead = true; return;
      case StmtKind::Return: {
        auto& r = static_cast<ReturnStmt&>(s);
        if (r.value) expr(*r.value, st);
        st.dead = true;
        return;
      }
      case StmtKind::Illuminance: {
        auto& il = static_cast<IlluminanceStmt&>(s);
        if (il.category) expr(*il.category, st);
        expr(*il.position, st);
        if (il.axis) expr(*il.axis, st);
        if (il.angle) expr(*il.angle, st);
        loop_body(*il.body, nullptr, st);
        return;
      }
      case StmtKind::Illuminate: {
        auto& il = static_cast<IlluminateStmt&>(s);
        expr(*il.position, st);
        if (il.axis) expr(*il.axis, st);
        if (il.angle) expr(*il.angle, st);
        loop_body(*il.body, nullptr, st);
        return;
      }
      case StmtKind::Solar: {
        auto& so = static_cast<SolarStmt&>(s);
        if (so.axis) expr(*so.axis, st);
        if (so.angle) expr(*so.angle, st);
        loop_body(*so.body, nullptr, st);
        return;
      }
    }
  }

  DiagnosticSink& sink_;
  std::set<int> warned_;
};

}  // namespace

void analyze_assignment(TranslationUnit& unit, DiagnosticSink& sink) {
  for (auto& f : unit.functions)
    if (f->body) Assignment(sink).body(*f->body);
  for (auto& s : unit.shaders)
    if (s->body) Assignment(sink).body(*s->body);
}

}  // namespace passlab::lang
