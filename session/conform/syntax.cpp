// SPDX-License-Identifier: GPL-3.0-or-later
// A program's text as places to rewrite (see syntax.h).
#include "session/conform/syntax.h"

#include <algorithm>

#include "core/lang/diagnostic.h"
#include "core/lang/frontend.h"
#include "core/lang/stdlib.h"

namespace passlab::conform {

namespace {

using namespace lang;

std::uint32_t end_of_expr(const Expr& e) { return e.span.offset + e.span.length; }

// Walks the main file's functions and shader, collecting sites.
class Walker {
 public:
  Walker(const Parsed& p, Sites& out) : p_(p), out_(out) {}

  void run() {
    const TranslationUnit& u = *p_.unit;
    for (const auto& f : u.functions) {
      if (f->prelude || !mine(f->span) || !f->body) continue;
      FunctionSite fs;
      fs.function = f.get();
      fs.begin = line_start(f->span.offset);
      fs.end = f->body->span.offset + f->body->span.length;
      out_.functions.push_back(fs);
      in_shader_ = false;
      stmt(*f->body, nullptr, 0);
    }
    if (const ShaderDecl* s = u.shader(); s && mine(s->span)) {
      out_.shader_begin = line_start(s->span.offset);
      in_shader_ = true;
      for (const Param& p : s->params)
        if (p.default_value) expr(*p.default_value, nullptr, false, false);
      if (s->body) stmt(*s->body, nullptr, 0);
    }
  }

 private:
  bool mine(const Span& s) const { return s.file == p_.file && s.valid(); }
  std::uint32_t line_start(std::uint32_t offset) const {
    const std::string& t = p_.sources->file(p_.file).text;
    while (offset > 0 && t[offset - 1] != '\n') --offset;
    return offset;
  }

  // Whether evaluating `e` changes anything, and what it reads and writes.
  void effects(const Expr& e, bool& pure, std::set<std::string>* reads, std::set<std::string>* writes) const {
    switch (e.kind) {
      case ExprKind::Name:
        if (reads) reads->insert(static_cast<const NameExpr&>(e).name);
        break;
      case ExprKind::Unary: effects(*static_cast<const UnaryExpr&>(e).operand, pure, reads, writes); break;
      case ExprKind::Binary: {
        const auto& b = static_cast<const BinaryExpr&>(e);
        effects(*b.lhs, pure, reads, writes);
        effects(*b.rhs, pure, reads, writes);
        break;
      }
      case ExprKind::Ternary: {
        const auto& t = static_cast<const TernaryExpr&>(e);
        effects(*t.cond, pure, reads, writes);
        effects(*t.then_expr, pure, reads, writes);
        effects(*t.else_expr, pure, reads, writes);
        break;
      }
      case ExprKind::Assign: {
        const auto& a = static_cast<const AssignExpr&>(e);
        pure = false;
        if (writes) writes->insert(target_name(*a.target).name);
        if (reads) reads->insert(target_name(*a.target).name);  // compound assignments and indices read it
        if (a.target->kind == ExprKind::Index) effects(*static_cast<const IndexExpr&>(*a.target).index, pure, reads, writes);
        effects(*a.value, pure, reads, writes);
        break;
      }
      case ExprKind::Call: {
        const auto& c = static_cast<const CallExpr&>(e);
        if (c.function) pure = false;
        int outputs_from = -1;
        if (c.builtin >= 0) {
          const Signature& sig = signature(c.builtin);
          if (sig.writes_first) outputs_from = 0;
          if (sig.outputs_from >= 0) outputs_from = sig.outputs_from;
          if (sig.id == Builtin::Random || sig.id == Builtin::Printf) pure = false;
        }
        for (std::size_t i = 0; i < c.args.size(); ++i) {
          if (outputs_from >= 0 && static_cast<int>(i) >= outputs_from && c.args[i]->kind == ExprKind::Name) {
            pure = false;
            if (writes) writes->insert(static_cast<const NameExpr&>(*c.args[i]).name);
          }
          effects(*c.args[i], pure, reads, writes);
        }
        if (c.channel) effects(*c.channel, pure, reads, writes);
        break;
      }
      case ExprKind::Cast: effects(*static_cast<const CastExpr&>(e).operand, pure, reads, writes); break;
      case ExprKind::Tuple:
        for (const auto& x : static_cast<const TupleExpr&>(e).elements) effects(*x, pure, reads, writes);
        break;
      case ExprKind::Convert: effects(*static_cast<const ConvertExpr&>(e).operand, pure, reads, writes); break;
      case ExprKind::Index: {
        const auto& i = static_cast<const IndexExpr&>(e);
        effects(*i.base, pure, reads, writes);
        effects(*i.index, pure, reads, writes);
        break;
      }
      case ExprKind::ArrayLit:
        for (const auto& x : static_cast<const ArrayLitExpr&>(e).elements) effects(*x, pure, reads, writes);
        break;
      default: break;
    }
  }

  void expr(const Expr& e, const Stmt* in, bool lvalue, bool header) {
    if (e.kind != ExprKind::Convert && mine(e.span) && e.span.length > 0) {
      ExprSite s;
      s.begin = e.span.offset;
      s.end = end_of_expr(e);
      s.expr = &e;
      effects(e, s.pure, nullptr, nullptr);
      s.lvalue = lvalue;
      s.in_shader = in_shader_;
      s.in_loop_header = header;
      s.statement = in;
      out_.expressions.push_back(s);
    }
    switch (e.kind) {
      case ExprKind::Unary: expr(*static_cast<const UnaryExpr&>(e).operand, in, false, header); break;
      case ExprKind::Binary: {
        const auto& b = static_cast<const BinaryExpr&>(e);
        expr(*b.lhs, in, false, header);
        expr(*b.rhs, in, false, header);
        break;
      }
      case ExprKind::Ternary: {
        const auto& t = static_cast<const TernaryExpr&>(e);
        expr(*t.cond, in, false, header);
        expr(*t.then_expr, in, false, header);
        expr(*t.else_expr, in, false, header);
        break;
      }
      case ExprKind::Assign: {
        const auto& a = static_cast<const AssignExpr&>(e);
        expr(*a.target, in, true, header);
        expr(*a.value, in, false, header);
        break;
      }
      case ExprKind::Call: {
        const auto& c = static_cast<const CallExpr&>(e);
        int outputs_from = c.function ? 0 : -1;  // a user function's arguments may be output parameters
        if (c.builtin >= 0) {
          const Signature& sig = signature(c.builtin);
          if (sig.writes_first) outputs_from = 0;
          if (sig.outputs_from >= 0) outputs_from = sig.outputs_from;
        }
        for (std::size_t i = 0; i < c.args.size(); ++i) {
          // A user function's arguments: only those of its input parameters are values.
          bool out = outputs_from >= 0 && static_cast<int>(i) >= outputs_from;
          if (c.function && i < c.function->params.size()) out = c.function->params[i].output;
          expr(*c.args[i], in, out, header);
        }
        break;
      }
      case ExprKind::Cast: expr(*static_cast<const CastExpr&>(e).operand, in, false, header); break;
      case ExprKind::Tuple:
        for (const auto& x : static_cast<const TupleExpr&>(e).elements) expr(*x, in, false, header);
        break;
      case ExprKind::Convert: expr(*static_cast<const ConvertExpr&>(e).operand, in, lvalue, header); break;
      case ExprKind::Index: {
        const auto& i = static_cast<const IndexExpr&>(e);
        expr(*i.index, in, false, header);
        break;
      }
      case ExprKind::ArrayLit:
        for (const auto& x : static_cast<const ArrayLitExpr&>(e).elements) expr(*x, in, false, header);
        break;
      default: break;
    }
  }

  void stmt(const Stmt& s, const BlockStmt* block, std::size_t index) {
    if (mine(s.span) && s.kind != StmtKind::Empty) {
      StmtSite site;
      site.begin = s.span.offset;
      site.end = end_of(s);
      site.stmt = &s;
      site.block = block;
      site.index = index;
      site.in_shader = in_shader_;
      summarise(s, site);
      out_.statements.push_back(std::move(site));
    }
    switch (s.kind) {
      case StmtKind::Block: {
        const auto& b = static_cast<const BlockStmt&>(s);
        for (std::size_t i = 0; i < b.stmts.size(); ++i) stmt(*b.stmts[i], &b, i);
        break;
      }
      case StmtKind::Decl:
        for (const VarDecl& v : static_cast<const DeclStmt&>(s).vars)
          if (v.init) expr(*v.init, &s, false, false);
        break;
      case StmtKind::Expr: expr(*static_cast<const ExprStmt&>(s).expr, &s, false, false); break;
      case StmtKind::If: {
        const auto& i = static_cast<const IfStmt&>(s);
        expr(*i.cond, &s, false, true);
        stmt(*i.then_stmt, nullptr, 0);
        if (i.else_stmt) stmt(*i.else_stmt, nullptr, 0);
        break;
      }
      case StmtKind::While: {
        const auto& w = static_cast<const WhileStmt&>(s);
        expr(*w.cond, &s, false, true);
        stmt(*w.body, nullptr, 0);
        break;
      }
      case StmtKind::For: {
        const auto& f = static_cast<const ForStmt&>(s);
        if (f.init) expr(*f.init, &s, false, true);
        if (f.cond) expr(*f.cond, &s, false, true);
        if (f.step) expr(*f.step, &s, false, true);
        stmt(*f.body, nullptr, 0);
        break;
      }
      case StmtKind::Return:
        if (const auto& r = static_cast<const ReturnStmt&>(s); r.value) expr(*r.value, &s, false, false);
        break;
      case StmtKind::Illuminance: {
        const auto& l = static_cast<const IlluminanceStmt&>(s);
        for (const ExprPtr* e : {&l.category, &l.position, &l.axis, &l.angle})
          if (*e) expr(**e, &s, false, true);
        stmt(*l.body, nullptr, 0);
        break;
      }
      case StmtKind::Illuminate: {
        const auto& l = static_cast<const IlluminateStmt&>(s);
        for (const ExprPtr* e : {&l.position, &l.axis, &l.angle})
          if (*e) expr(**e, &s, false, true);
        stmt(*l.body, nullptr, 0);
        break;
      }
      case StmtKind::Solar: {
        const auto& l = static_cast<const SolarStmt&>(s);
        for (const ExprPtr* e : {&l.axis, &l.angle})
          if (*e) expr(**e, &s, false, true);
        stmt(*l.body, nullptr, 0);
        break;
      }
      case StmtKind::Function: {
        const bool was = in_shader_;
        stmt(*static_cast<const FunctionStmt&>(s).function->body, nullptr, 0);
        in_shader_ = was;
        break;
      }
      default: break;
    }
  }

  // What a statement reads and writes, for reordering.
  void summarise(const Stmt& s, StmtSite& site) const {
    bool pure = true;
    auto e = [&](const ExprPtr& x) {
      if (x) effects(*x, pure, &site.reads, &site.writes);
    };
    switch (s.kind) {
      case StmtKind::Decl:
        for (const VarDecl& v : static_cast<const DeclStmt&>(s).vars) {
          site.writes.insert(v.name);
          e(v.init);
        }
        if (static_cast<const DeclStmt&>(s).is_extern) site.opaque = true;
        break;
      case StmtKind::Expr: e(static_cast<const ExprStmt&>(s).expr); break;
      default: site.opaque = true; break;  // compound statements and jumps are not reordered
    }
    // A user call may write output arguments or read anything; the checks above mark it impure.
    if (!pure) {
      bool only_assignments = s.kind == StmtKind::Decl || (s.kind == StmtKind::Expr && static_cast<const ExprStmt&>(s).expr->kind == ExprKind::Assign);
      if (!only_assignments) site.opaque = true;
      // An assignment whose value calls a user function or writes through a call is opaque too.
      if (s.kind == StmtKind::Expr) {
        const Expr& x = *static_cast<const ExprStmt&>(s).expr;
        if (x.kind == ExprKind::Assign) {
          bool value_pure = true;
          effects(*static_cast<const AssignExpr&>(x).value, value_pure, nullptr, nullptr);
          if (!value_pure) site.opaque = true;
        }
      } else {
        for (const VarDecl& v : static_cast<const DeclStmt&>(s).vars) {
          bool value_pure = true;
          if (v.init) effects(*v.init, value_pure, nullptr, nullptr);
          if (!value_pure) site.opaque = true;
        }
      }
    }
  }

  const Parsed& p_;
  Sites& out_;
  bool in_shader_ = false;
};

}  // namespace

Parsed parse(const std::string& path, const std::string& text, const std::vector<std::string>& include_paths) {
  Parsed p;
  p.file = p.sources->add(path, text);
  lang::DiagnosticList diags;
  lang::FrontendOptions fo;
  fo.preprocess.include_paths = include_paths;
  fo.allow_recursion = true;
  p.unit = lang::compile(*p.sources, p.file, fo, diags);
  p.ok = !diags.has_errors() && p.unit && p.unit->shader();
  if (!p.ok) p.errors = lang::format_text(diags.items(), *p.sources);
  return p;
}

std::uint32_t end_of(const Stmt& s) {
  const std::uint32_t own = s.span.offset + s.span.length;
  switch (s.kind) {
    case StmtKind::If: {
      const auto& i = static_cast<const IfStmt&>(s);
      return std::max(own, end_of(i.else_stmt ? *i.else_stmt : *i.then_stmt));
    }
    case StmtKind::While: return std::max(own, end_of(*static_cast<const WhileStmt&>(s).body));
    case StmtKind::For: return std::max(own, end_of(*static_cast<const ForStmt&>(s).body));
    case StmtKind::Illuminance: return std::max(own, end_of(*static_cast<const IlluminanceStmt&>(s).body));
    case StmtKind::Illuminate: return std::max(own, end_of(*static_cast<const IlluminateStmt&>(s).body));
    case StmtKind::Solar: return std::max(own, end_of(*static_cast<const SolarStmt&>(s).body));
    case StmtKind::Function: return std::max(own, end_of(*static_cast<const FunctionStmt&>(s).function->body));
    case StmtKind::Gather: {
      const auto& g = static_cast<const GatherStmt&>(s);
      return std::max(own, end_of(g.else_body ? *g.else_body : *g.body));
    }
    default: return own;
  }
}

Sites sites(const Parsed& p) {
  Sites out;
  if (p.unit) Walker(p, out).run();
  return out;
}

std::string splice(const std::string& text, std::uint32_t begin, std::uint32_t end, const std::string& with) {
  if (begin > end || end > text.size()) return text;
  return text.substr(0, begin) + with + text.substr(end);
}

}  // namespace passlab::conform
