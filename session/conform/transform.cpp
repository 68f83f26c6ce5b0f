// SPDX-License-Identifier: GPL-3.0-or-later
// Semantics-preserving transformations of a shader's text (see transform.h).
#include "session/conform/transform.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "session/conform/syntax.h"
#include "core/ir/splitmix.h"
#include "core/lang/types.h"

namespace passlab::conform {

namespace {

using lang::BaseType;

bool numeric(const lang::Expr& e) { return e.type.base == BaseType::Float || lang::is_triple(e.type.base); }

// Expressions whose text can be rewritten as a value: pure, read (not assigned), numeric, not an
// array as a whole, and not a bare literal inside an array's values (those may have to be constants).
std::vector<const ExprSite*> values(const Sites& s) {
  std::vector<const ExprSite*> out;
  for (const ExprSite& e : s.expressions)
    if (e.pure && !e.lvalue && numeric(*e.expr) && !e.expr->type.is_array() && e.end > e.begin) out.push_back(&e);
  return out;
}

class Transformer {
 public:
  Transformer(const std::string& path, const TransformOptions& o, const std::vector<std::string>& includes)
      : path_(path), includes_(includes), rng_{o.seed * 0xD1B54A32D192ED03ULL + 7} {}

  // One edit of `text` that still checks; false when none of a few tries worked.
  bool step(std::string& text) {
    for (int attempt = 0; attempt < 12; ++attempt) {
      const Parsed p = parse(path_, text, includes_);
      if (!p.ok) return false;
      const Sites s = sites(p);
      std::string next;
      const char* what = nullptr;
      switch (rng_.below(6)) {
        case 0: case 1: what = identity(text, s, next); break;
        case 2: what = through_function(text, s, next); break;
        case 3: what = through_array(text, s, next); break;
        case 4: what = dead_code(text, s, next); break;
        default: what = reorder(text, s, next); break;
      }
      if (!what || next == text) continue;
      if (!parse(path_, next, includes_).ok) continue;
      text = std::move(next);
      ++done_[what];
      return true;
    }
    return false;
  }

  std::string summary() const {
    std::string s;
    for (const auto& [what, n] : done_) s += fmt::format("{}{}{}", s.empty() ? "" : ", ", what, n > 1 ? fmt::format(" x{}", n) : "");
    return s.empty() ? "nothing" : s;
  }

 private:
  template <class T>
  const T* pick(const std::vector<T*>& v) { return v.empty() ? nullptr : v[static_cast<std::size_t>(rng_.below(static_cast<int>(v.size())))]; }
  // The expression's text as a value of its own type. A call is prefixed by its type: RSL
  // resolves texture(), noise() and the like by the type the context expects, and a new context
  // (a function's argument, an array's element) would otherwise pick another overload
  // (vector texture(...) read three channels; passlab_id_color(texture(...)) read one).
  std::string piece(const std::string& text, const ExprSite& e) const {
    const std::string t = text.substr(e.begin, e.end - e.begin);
    if (e.expr->kind == lang::ExprKind::Call) return std::string("(") + lang::to_string(e.expr->type.base) + " " + t + ")";
    return t;
  }

  const char* identity(const std::string& text, const Sites& s, std::string& out) {
    const ExprSite* e = pick(values(s));
    if (!e) return nullptr;
    const std::string x = "(" + piece(text, *e) + ")";
    std::string with;
    switch (rng_.below(6)) {
      case 0: with = x + " * 1"; break;
      case 1: with = x + " + 0"; break;
      case 2: with = x + " - 0"; break;
      case 3: with = x + " / 1"; break;
      case 4: with = fmt::format("mix({}, {}, {})", x, x, (1 + rng_.below(9)) / 10.0); break;
      default: with = fmt::format("(1 > 0 ? {} : {})", x, x); break;
    }
    out = splice(text, e->begin, e->end, "(" + with + ")");
    return "identity";
  }

  const char* through_function(const std::string& text, const Sites& s, std::string& out) {
    const ExprSite* e = pick(values(s));
    if (!e) return nullptr;
    const char* type = lang::to_string(e->expr->type.base);
    const std::string name = fmt::format("passlab_id_{}", type);
    std::string t = splice(text, e->begin, e->end, fmt::format("{}({})", name, piece(text, *e)));
    if (text.find(name + "(") == std::string::npos)
      t = splice(t, s.shader_begin, s.shader_begin, fmt::format("{} {}({} x) {{ return x; }}\n", type, name, type));
    out = std::move(t);
    return "function";
  }

  // x in a statement becomes an element of an array assigned just before: for a declaration the
  // array is declared before it (its variable keeps its scope), for any other simple statement
  // both go in a block of their own.
  const char* through_array(const std::string& text, const Sites& s, std::string& out) {
    std::vector<const ExprSite*> c;
    for (const ExprSite* e : values(s)) {
      if (!e->statement || e->in_loop_header) continue;
      const lang::StmtKind k = e->statement->kind;
      if (k != lang::StmtKind::Expr && k != lang::StmtKind::Decl) continue;
      c.push_back(e);
    }
    const ExprSite* e = pick(c);
    if (!e) return nullptr;
    const StmtSite* st = nullptr;
    for (const StmtSite& x : s.statements)
      if (x.stmt == e->statement) st = &x;
    if (!st || st->opaque) return nullptr;
    if (e->statement->kind == lang::StmtKind::Decl && !st->block) return nullptr;
    const std::string a = fmt::format("passlab_a{}", rng_.below(100000));
    const int n = 1 + rng_.below(3), k = rng_.below(n);
    std::string init;
    for (int i = 0; i < n; ++i) init += fmt::format("{}({})", i ? ", " : "", piece(text, *e));
    const std::string decl = fmt::format("{} {}[{}] = {{{}}}; ", lang::to_string(e->expr->type.base), a, n, init);
    // The statement's text with x read from the array.
    std::string body = text.substr(st->begin, st->end - st->begin);
    body = splice(body, e->begin - st->begin, e->end - st->begin, fmt::format("{}[{}]", a, k));
    const std::string with = e->statement->kind == lang::StmtKind::Decl ? decl + body : "{ " + decl + body + " }";
    out = splice(text, st->begin, st->end, with);
    return "array";
  }

  const char* dead_code(const std::string& text, const Sites& s, std::string& out) {
    std::vector<const StmtSite*> c;
    for (const StmtSite& x : s.statements)
      if (x.block && x.in_shader) c.push_back(&x);
    const StmtSite* at = pick(c);
    if (!at) return nullptr;
    std::string dead;
    if (rng_.below(2) == 0) {
      // An unreachable copy of some statement of the shader, or a wild write to the output.
      const StmtSite* copy = pick(c);
      const std::string body = copy && copy->stmt->kind != lang::StmtKind::Decl ? text.substr(copy->begin, copy->end - copy->begin)
                                                                                : "Ci = color(1, 0, 1);";
      dead = fmt::format("if (0 > 1) {{ {} }}\n", body);
    } else {
      const ExprSite* e = pick(values(s));
      dead = e && e->in_shader ? fmt::format("{} passlab_dead{} = {};\n", lang::to_string(e->expr->type.base), rng_.below(100000), piece(text, *e))
                               : fmt::format("float passlab_dead{} = 0;\n", rng_.below(100000));
    }
    // Declared variables may only be read after their declaration: the dead statement goes
    // before `at` (which therefore still sees everything it saw).
    out = splice(text, at->begin, at->begin, dead);
    return "dead code";
  }

  const char* reorder(const std::string& text, const Sites& s, std::string& out) {
    std::vector<std::pair<const StmtSite*, const StmtSite*>> c;
    for (std::size_t i = 0; i + 1 < s.statements.size(); ++i)
      for (std::size_t j = i + 1; j < s.statements.size(); ++j) {
        const StmtSite& a = s.statements[i];
        const StmtSite& b = s.statements[j];
        if (!a.block || a.block != b.block || b.index != a.index + 1 || a.opaque || b.opaque) continue;
        auto meets = [](const std::set<std::string>& x, const std::set<std::string>& y) {
          return std::any_of(x.begin(), x.end(), [&](const std::string& n) { return y.count(n) > 0; });
        };
        if (meets(a.writes, b.reads) || meets(a.writes, b.writes) || meets(b.writes, a.reads)) continue;
        c.push_back({&a, &b});
      }
    if (c.empty()) return nullptr;
    const auto [a, b] = c[static_cast<std::size_t>(rng_.below(static_cast<int>(c.size())))];
    const std::string ta = text.substr(a->begin, a->end - a->begin), tb = text.substr(b->begin, b->end - b->begin);
    const std::string between = text.substr(a->end, b->begin - a->end);
    out = text.substr(0, a->begin) + tb + between + ta + text.substr(b->end);
    return "reorder";
  }

  std::string path_;
  const std::vector<std::string>& includes_;
  ir::SplitMix64 rng_;
  std::map<std::string, int> done_;
};

}  // namespace

Transformed transform(const std::string& path, const std::string& text, const TransformOptions& options,
                      const std::vector<std::string>& include_paths) {
  Transformed t;
  const Parsed p = parse(path, text, include_paths);
  if (!p.ok) {
    t.error = p.errors.empty() ? "the front end rejects it" : p.errors;
    return t;
  }
  Transformer tr(path, options, include_paths);
  t.text = text;
  for (int i = 0; i < options.steps; ++i)
    if (!tr.step(t.text)) break;
  t.ok = true;
  t.summary = tr.summary();
  return t;
}

}  // namespace passlab::conform
