// SPDX-License-Identifier: GPL-3.0-or-later
// Finds the typed name under the cursor by walking the translation unit.
#include "session/hover.h"

#include "core/lang/stdlib.h"

namespace passlab::session {

namespace {

struct Finder {
  lang::FileId file;
  std::uint32_t offset;
  std::optional<HoverInfo> found;

  bool covers(const lang::Span& s) const {
    return s.file == file && offset >= s.offset && offset < s.offset + std::max<std::uint32_t>(s.length, 1);
  }

  static const char* kind_of(const lang::Symbol& sym) {
    switch (sym.kind) {
      case lang::SymbolKind::Global: return "global";
      case lang::SymbolKind::ShaderParam: return sym.output ? "output shader parameter" : "shader parameter";
      case lang::SymbolKind::FunctionParam: return sym.output ? "output parameter" : "function parameter";
      case lang::SymbolKind::Local: return "local variable";
      case lang::SymbolKind::Constant: return "constant";
    }
    return "name";
  }

  void symbol(const lang::Symbol* sym, const std::string& name, const lang::Span& span) {
    if (!sym || !covers(span)) return;
    found = HoverInfo{name, lang::to_string(sym->type), kind_of(*sym), span.offset, span.length};
  }

  void expr(const lang::Expr* e) {
    if (!e || (e->span.file == file && !covers(e->span) && e->kind != lang::ExprKind::Convert)) return;
    using K = lang::ExprKind;
    switch (e->kind) {
      case K::Number:
      case K::String: return;
      case K::Name: {
        auto* n = static_cast<const lang::NameExpr*>(e);
        symbol(n->symbol, n->name, n->span);
        return;
      }
      case K::Unary: expr(static_cast<const lang::UnaryExpr*>(e)->operand.get()); return;
      case K::Binary: {
        auto* b = static_cast<const lang::BinaryExpr*>(e);
        expr(b->lhs.get());
        expr(b->rhs.get());
        return;
      }
      case K::Ternary: {
        auto* t = static_cast<const lang::TernaryExpr*>(e);
        expr(t->cond.get());
        expr(t->then_expr.get());
        expr(t->else_expr.get());
        return;
      }
      case K::Assign: {
        auto* a = static_cast<const lang::AssignExpr*>(e);
        expr(a->target.get());
        expr(a->value.get());
        return;
      }
      case K::Call: {
        auto* c = static_cast<const lang::CallExpr*>(e);
        if (covers(c->name_span))
          found = HoverInfo{c->name, lang::to_string(c->type), c->builtin >= 0 ? "builtin function" : "function",
                            c->name_span.offset, c->name_span.length};
        for (const auto& a : c->args) expr(a.get());
        if (c->channel) expr(c->channel.get());
        return;
      }
      case K::Cast: expr(static_cast<const lang::CastExpr*>(e)->operand.get()); return;
      case K::Tuple:
        for (const auto& x : static_cast<const lang::TupleExpr*>(e)->elements) expr(x.get());
        return;
      case K::Convert: expr(static_cast<const lang::ConvertExpr*>(e)->operand.get()); return;
      case K::Index:
        expr(static_cast<const lang::IndexExpr*>(e)->base.get());
        expr(static_cast<const lang::IndexExpr*>(e)->index.get());
        return;
      case K::ArrayLit:
        for (const auto& x : static_cast<const lang::ArrayLitExpr*>(e)->elements) expr(x.get());
        return;
    }
  }

  void stmt(const lang::Stmt* s) {
    if (!s) return;
    using K = lang::StmtKind;
    switch (s->kind) {
      case K::Block:
        for (const auto& x : static_cast<const lang::BlockStmt*>(s)->stmts) stmt(x.get());
        return;
      case K::Decl:
        for (const auto& v : static_cast<const lang::DeclStmt*>(s)->vars) {
          symbol(v.symbol, v.name, v.span);
          expr(v.init.get());
        }
        return;
      case K::Expr: expr(static_cast<const lang::ExprStmt*>(s)->expr.get()); return;
      case K::If: {
        auto* i = static_cast<const lang::IfStmt*>(s);
        expr(i->cond.get());
        stmt(i->then_stmt.get());
        stmt(i->else_stmt.get());
        return;
      }
      case K::While: {
        auto* w = static_cast<const lang::WhileStmt*>(s);
        expr(w->cond.get());
        stmt(w->body.get());
        return;
      }
      case K::For: {
        auto* f = static_cast<const lang::ForStmt*>(s);
        expr(f->init.get());
        expr(f->cond.get());
        expr(f->step.get());
        stmt(f->body.get());
        return;
      }
      case K::Return: expr(static_cast<const lang::ReturnStmt*>(s)->value.get()); return;
      case K::Illuminance: {
        auto* i = static_cast<const lang::IlluminanceStmt*>(s);
        expr(i->category.get());
        expr(i->position.get());
        expr(i->axis.get());
        expr(i->angle.get());
        stmt(i->body.get());
        return;
      }
      case K::Illuminate: {
        auto* i = static_cast<const lang::IlluminateStmt*>(s);
        expr(i->position.get());
        expr(i->axis.get());
        expr(i->angle.get());
        stmt(i->body.get());
        return;
      }
      case K::Solar: {
        auto* i = static_cast<const lang::SolarStmt*>(s);
        expr(i->axis.get());
        expr(i->angle.get());
        stmt(i->body.get());
        return;
      }
      case K::Gather: {
        auto* g = static_cast<const lang::GatherStmt*>(s);
        for (const auto& a : g->args) expr(a.get());
        stmt(g->body.get());
        stmt(g->else_body.get());
        return;
      }
      case K::Function: {
        const auto& f = *static_cast<const lang::FunctionStmt*>(s)->function;
        params(f.params);
        stmt(f.body.get());
        return;
      }
      default: return;
    }
  }

  void params(const std::vector<lang::Param>& ps) {
    for (const auto& p : ps) {
      symbol(p.symbol, p.name, p.span);
      expr(p.default_value.get());
    }
  }
};

}  // namespace

std::optional<HoverInfo> hover_at(const Snapshot& s, std::uint32_t offset) {
  if (!s.program || !s.program->unit) return std::nullopt;
  Finder f{0, offset, std::nullopt};
  for (lang::FileId id = 1; id <= s.program->sources->size(); ++id)
    if (s.program->sources->file(id).path == s.request.path) {
      f.file = id;
      break;
    }
  if (f.file == 0) return std::nullopt;
  const auto& unit = *s.program->unit;
  for (const auto& fn : unit.functions) {
    if (fn->prelude) continue;
    f.params(fn->params);
    if (fn->body) f.stmt(fn->body.get());
  }
  for (const auto& sh : unit.shaders) {
    f.params(sh->params);
    if (sh->body) f.stmt(sh->body.get());
  }
  return f.found;
}

}  // namespace passlab::session
