// SPDX-License-Identifier: GPL-3.0-or-later
// The test-case reducer (see reducer.h).
#include "session/conform/reducer.h"

#include <algorithm>
#include <chrono>

#include "session/conform/syntax.h"

namespace passlab::conform {

namespace {

using Clock = std::chrono::steady_clock;

class Reducer {
 public:
  Reducer(const std::function<bool(const std::string&)>& test, const ReduceOptions& o, ReduceStats& stats)
      : test_(test), o_(o), stats_(stats), start_(Clock::now()) {}

  std::string run(std::string text) {
    best_ = std::move(text);
    bool progress = true;
    while (progress && !spent()) {
      progress = false;
      progress |= pass(&Reducer::functions);
      progress |= pass(&Reducer::inlining);
      progress |= pass(&Reducer::statements);
      progress |= pass(&Reducer::expressions);
      progress |= pass(&Reducer::parameters);
      progress |= pass(&Reducer::lines);
    }
    return best_;
  }

 private:
  using Candidates = std::vector<std::string>;
  using Pass = void (Reducer::*)(const Parsed&, const Sites&, Candidates&);

  bool spent() const {
    return stats_.tests >= o_.max_tests || std::chrono::duration<double>(Clock::now() - start_).count() > o_.budget_seconds;
  }

  // Runs one pass to its fixed point: after every accepted candidate the program is parsed again
  // and the pass starts over on the smaller text.
  bool pass(Pass p) {
    bool any = false;
    for (bool again = true; again && !spent();) {
      again = false;
      const Parsed parsed = parse(o_.path, best_, o_.include_paths);
      if (!parsed.ok) return any;
      Candidates c;
      (this->*p)(parsed, sites(parsed), c);
      for (const std::string& cand : c) {
        if (spent()) break;
        if (cand.size() > best_.size() + 2 || cand == best_ || !parse(o_.path, cand, o_.include_paths).ok) continue;
        if (cand.size() >= best_.size() && p != &Reducer::parameters && p != &Reducer::inlining) continue;
        ++stats_.tests;
        if (test_(cand)) {
          best_ = cand;
          ++stats_.accepted;
          any = again = true;
          break;
        }
      }
    }
    return any;
  }

  void functions(const Parsed&, const Sites& s, Candidates& c) {
    for (auto it = s.functions.rbegin(); it != s.functions.rend(); ++it) c.push_back(splice(best_, it->begin, it->end, ""));
  }

  // A function whose body is `return E;`, with no output parameter: every call becomes (E) with
  // the parameters replaced by the call's (parenthesised) arguments, and the definition goes.
  // Arguments may be evaluated twice or not at all; the reducer needs only the failure to hold.
  void inlining(const Parsed&, const Sites& s, Candidates& c) {
    for (const FunctionSite& f : s.functions) {
      const lang::FunctionDecl& fn = *f.function;
      if (!fn.body || fn.body->stmts.size() != 1 || fn.body->stmts[0]->kind != lang::StmtKind::Return) continue;
      const lang::Expr* ret = static_cast<const lang::ReturnStmt&>(*fn.body->stmts[0]).value.get();
      if (!ret || std::any_of(fn.params.begin(), fn.params.end(), [](const lang::Param& p) { return p.output; })) continue;
      const std::uint32_t rb = ret->span.offset, re = ret->span.offset + ret->span.length;
      // The parameters' uses in E, last first.
      std::vector<std::pair<const ExprSite*, std::size_t>> uses;
      for (const ExprSite& e : s.expressions) {
        if (e.begin < rb || e.end > re || e.expr->kind != lang::ExprKind::Name) continue;
        const auto& name = static_cast<const lang::NameExpr&>(*e.expr);
        for (std::size_t k = 0; k < fn.params.size(); ++k)
          if (name.symbol && name.symbol == fn.params[k].symbol) uses.push_back({&e, k});
      }
      std::sort(uses.begin(), uses.end(), [](const auto& a, const auto& b) { return a.first->begin > b.first->begin; });
      // Its calls, last first; none may lie inside another (an argument calling it again).
      std::vector<const ExprSite*> calls;
      for (const ExprSite& e : s.expressions)
        if (e.expr->kind == lang::ExprKind::Call && static_cast<const lang::CallExpr&>(*e.expr).function == &fn) calls.push_back(&e);
      if (calls.empty()) continue;
      std::sort(calls.begin(), calls.end(), [](const ExprSite* a, const ExprSite* b) { return a->begin > b->begin; });
      bool nested = false;
      for (std::size_t k = 0; k + 1 < calls.size(); ++k) nested |= calls[k + 1]->end > calls[k]->begin;
      for (const ExprSite* call : calls) nested |= static_cast<const lang::CallExpr&>(*call->expr).args.size() != fn.params.size();
      if (nested || calls.back()->begin < f.end) continue;  // or a call inside its own body: recursion
      std::string t = best_;
      for (const ExprSite* call : calls) {
        const auto& args = static_cast<const lang::CallExpr&>(*call->expr).args;
        std::string body = best_.substr(rb, re - rb);
        for (const auto& [use, k] : uses) {
          const lang::Span a = args[k]->span;
          body = splice(body, use->begin - rb, use->end - rb, "(" + best_.substr(a.offset, a.length) + ")");
        }
        t = splice(t, call->begin, call->end, "(" + body + ")");
      }
      c.push_back(splice(t, f.begin, f.end, ""));
    }
  }

  void statements(const Parsed&, const Sites& s, Candidates& c) {
    for (const StmtSite& st : s.statements) {
      c.push_back(splice(best_, st.begin, st.end, st.block ? "" : ";"));
      const lang::Stmt& x = *st.stmt;
      auto keep = [&](const lang::Stmt& inner) {
        c.push_back(splice(best_, st.begin, st.end, best_.substr(inner.span.offset, end_of(inner) - inner.span.offset)));
      };
      switch (x.kind) {
        case lang::StmtKind::If: {
          const auto& i = static_cast<const lang::IfStmt&>(x);
          keep(*i.then_stmt);
          if (i.else_stmt) keep(*i.else_stmt);
          break;
        }
        case lang::StmtKind::While: keep(*static_cast<const lang::WhileStmt&>(x).body); break;
        case lang::StmtKind::For: keep(*static_cast<const lang::ForStmt&>(x).body); break;
        case lang::StmtKind::Illuminance: keep(*static_cast<const lang::IlluminanceStmt&>(x).body); break;
        default: break;
      }
    }
  }

  void expressions(const Parsed&, const Sites& s, Candidates& c) {
    for (const ExprSite& e : s.expressions) {
      if (e.lvalue) continue;
      const std::string self = best_.substr(e.begin, e.end - e.begin);
      auto use = [&](const lang::Expr& x) {
        if (x.span.file != e.expr->span.file || x.span.offset < e.begin || x.span.offset + x.span.length > e.end) return;
        const std::string t = best_.substr(x.span.offset, x.span.length);
        c.push_back(splice(best_, e.begin, e.end, x.kind == lang::ExprKind::Name || x.kind == lang::ExprKind::Number ? t : "(" + t + ")"));
      };
      switch (e.expr->kind) {
        case lang::ExprKind::Unary: use(*static_cast<const lang::UnaryExpr&>(*e.expr).operand); break;
        case lang::ExprKind::Binary: {
          const auto& b = static_cast<const lang::BinaryExpr&>(*e.expr);
          use(*b.lhs);
          use(*b.rhs);
          break;
        }
        case lang::ExprKind::Ternary: {
          const auto& t = static_cast<const lang::TernaryExpr&>(*e.expr);
          use(*t.then_expr);
          use(*t.else_expr);
          break;
        }
        case lang::ExprKind::Call:
          for (const auto& a : static_cast<const lang::CallExpr&>(*e.expr).args) use(*a);
          break;
        case lang::ExprKind::Cast: use(*static_cast<const lang::CastExpr&>(*e.expr).operand); break;
        case lang::ExprKind::Tuple:
          for (const auto& a : static_cast<const lang::TupleExpr&>(*e.expr).elements) use(*a);
          break;
        default: break;
      }
      if (e.expr->kind != lang::ExprKind::Number && e.expr->type.base != lang::BaseType::String)
        for (const char* k : {"0", "1"})
          if (self != k) c.push_back(splice(best_, e.begin, e.end, k));
    }
  }

  // `surface s(float a = 1; color c = 0)`: one parameter at a time becomes `float a = 1;` at the
  // top of the body (parameters are separated by ';' at the list's own nesting level).
  void parameters(const Parsed& p, const Sites&, Candidates& c) {
    const lang::ShaderDecl* sh = p.unit->shader();
    if (!sh || sh->params.empty() || !sh->body || sh->span.file != p.file) return;
    const std::size_t open = best_.find('(', sh->span.offset + sh->span.length);
    if (open == std::string::npos) return;
    std::size_t close = std::string::npos;
    std::vector<std::size_t> cuts = {open + 1};
    int depth = 0;
    for (std::size_t i = open + 1; i < best_.size(); ++i) {
      const char ch = best_[i];
      if (ch == '(' || ch == '{') ++depth;
      else if ((ch == ')' || ch == '}') && depth > 0) --depth;
      else if (ch == ')' && depth == 0) {
        close = i;
        break;
      } else if (ch == ';' && depth == 0) cuts.push_back(i + 1);
    }
    if (close == std::string::npos || sh->body->span.offset <= close) return;
    cuts.push_back(close + 1);
    const std::size_t body = sh->body->span.offset + 1;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      const std::size_t b = cuts[k], e = cuts[k + 1] - 1;  // [b, e): one parameter, without its ';' or ')'
      std::string param = best_.substr(b, e - b);
      const std::size_t out = param.find("output ");
      if (out != std::string::npos) param.erase(out, 7);
      if (param.find_first_not_of(" \t\n") == std::string::npos) continue;
      // Remove it with the separator on one side, then declare it in the body.
      std::string t = best_;
      t.insert(body, "\n" + param + ";");
      if (cuts.size() == 2) t.erase(b, e - b);                 // the only parameter
      else if (k + 2 == cuts.size()) t.erase(b - 1, e - b + 1);  // the last one: with the ';' before it
      else t.erase(b, e - b + 1);                               // with the ';' after it
      c.push_back(std::move(t));
    }
  }

  void lines(const Parsed&, const Sites&, Candidates& c) {
    std::vector<std::size_t> starts = {0};
    for (std::size_t i = 0; i < best_.size(); ++i)
      if (best_[i] == '\n' && i + 1 < best_.size()) starts.push_back(i + 1);
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
      const std::size_t end = best_.find('\n', *it);
      c.push_back(best_.substr(0, *it) + (end == std::string::npos ? "" : best_.substr(end + 1)));
    }
  }

  const std::function<bool(const std::string&)>& test_;
  const ReduceOptions& o_;
  ReduceStats& stats_;
  Clock::time_point start_;
  std::string best_;
};

}  // namespace

std::string reduce(const std::string& text, const std::function<bool(const std::string&)>& still_fails, const ReduceOptions& options,
                   ReduceStats* stats) {
  ReduceStats local;
  ReduceStats& s = stats ? *stats : local;
  s.original_bytes = text.size();
  std::string out = Reducer(still_fails, options, s).run(text);
  s.reduced_bytes = out.size();
  return out;
}

}  // namespace passlab::conform
