// SPDX-License-Identifier: GPL-3.0-or-later
// The recursive-descent RSL parser: tokens to a syntax tree, reporting every independent error.
//
// Grammar (RI 3.2 §15, simplified where RSL 3.2 is ambiguous):
//   unit       := { shader | function }
//   shader     := kind name '(' params ')' block            kind: surface light displacement ...
//   function   := type name '(' params ')' block
//   params     := [ group { ';' group } [';'] ]
//   group      := [output] [uniform|varying] type name ['=' expr] { ',' name ['=' expr] }
//   precedence (low to high): = += -= *= /=  ?:  ||  &&  == !=  < > <= >=  + -  * /  ^  .  unary
// `.` (dot) binds tighter than `^` (cross), which binds tighter than * and / (as in prman and
// Aqsis), so `Cl * normalize(L).N` reads as `Cl * (normalize(L).N)`.
#include "core/lang/parser.h"

#include <functional>

namespace passlab::lang {

namespace {

constexpr int kMaxDepth = 256;

struct ParseError {};  // unwinds to the nearest recovery point; the diagnostic is already out

// The lookups whose map name may select a channel: texture("name"[1], ...).
bool takes_channel(const std::string& name) { return name == "texture" || name == "environment" || name == "shadow"; }

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, DiagnosticSink& sink) : toks_(tokens), sink_(sink) {}

  std::unique_ptr<TranslationUnit> run() {
    auto unit = std::make_unique<TranslationUnit>();
    while (!at(Tok::Eof)) {
      std::size_t before = pos_;
      try {
        definition(*unit);
      } catch (const ParseError&) {
        sync_top_level();
      }
      if (pos_ == before) advance();  // never loop without progress
    }
    return unit;
  }

 private:
  // ---- token helpers ----
  const Token& peek(std::size_t k = 0) const {
    std::size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool at(Tok k) const { return peek().kind == k; }
  bool at_word(std::string_view w) const { return peek().is_identifier(w); }
  const Token& advance() {
    const Token& t = peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    last_ = t.span;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  [[noreturn]] void fail(const Span& span, const std::string& code, const std::string& msg) {
    sink_.error(code, span, msg);
    throw ParseError{};
  }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::Eof: return "end of file";
      case Tok::Identifier: return "'" + t.text + "'";
      case Tok::Number: return "number '" + t.text + "'";
      case Tok::String: return "string \"" + t.text + "\"";
      default: return std::string("'") + spelling(t.kind) + "'";
    }
  }
  const Token& expect(Tok k, const char* context) {
    if (!at(k)) {
      // A missing ';' is best reported just after the previous token, as compilers do.
      Span where = peek().span;
      if ((k == Tok::Semicolon || k == Tok::RParen) && last_.valid() &&
          (peek().span.line != last_.line || at(Tok::Eof))) {
        where = last_;
        where.offset += where.length;
        where.col += where.length;
        where.length = 1;
      }
      fail(where, "expected-token",
           std::string("expected '") + spelling(k) + "' " + context + ", found " + describe(peek()));
    }
    return advance();
  }
  std::string expect_name(const char* what) {
    if (!at(Tok::Identifier)) fail(peek().span, "expected-identifier", std::string("expected ") + what + ", found " + describe(peek()));
    if (is_keyword(peek().text))
      fail(peek().span, "reserved-word", "'" + peek().text + "' is a reserved word and cannot be used as " + what);
    return advance().text;
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser, const Span& s) : p(parser) {
      if (++p.depth_ > kMaxDepth) {
        --p.depth_;
        p.fail(s, "nesting-too-deep", "nesting is too deep (more than " + std::to_string(kMaxDepth) + " levels)");
      }
    }
    ~DepthGuard() { --p.depth_; }
  };

  // ---- recovery ----
  void sync_top_level() {
    // Skip to the start of something that looks like a definition at brace depth 0.
    int depth = 0;
    while (!at(Tok::Eof)) {
      if (at(Tok::LBrace)) ++depth;
      if (at(Tok::RBrace)) {
        advance();
        if (--depth <= 0) return;
        continue;
      }
      if (depth == 0 && peek().at_line_start && at(Tok::Identifier) && starts_definition()) return;
      advance();
    }
  }
  bool starts_definition() const {
    const std::string& w = peek().text;
    return w == "surface" || w == "light" || w == "displacement" || w == "volume" || w == "imager" ||
           base_type_from_name(w) != BaseType::Error;
  }
  void sync_statement() {
    int depth = 0;
    while (!at(Tok::Eof)) {
      if (at(Tok::LBrace)) ++depth;
      else if (at(Tok::RBrace)) {
        if (depth == 0) return;  // let the enclosing block consume it
        --depth;
        advance();
        if (depth == 0) return;
        continue;
      } else if (at(Tok::Semicolon) && depth == 0) {
        advance();
        return;
      }
      advance();
    }
  }

  // ---- definitions ----
  static bool shader_kind(std::string_view w, ShaderKind* k) {
    if (w == "surface") *k = ShaderKind::Surface;
    else if (w == "light") *k = ShaderKind::Light;
    else if (w == "displacement") *k = ShaderKind::Displacement;
    else if (w == "volume") *k = ShaderKind::Volume;
    else if (w == "imager") *k = ShaderKind::Imager;
    else return false;
    return true;
  }

  void definition(TranslationUnit& unit) {
    ShaderKind kind;
    if (at(Tok::Identifier) && shader_kind(peek().text, &kind)) {
      advance();
      auto s = std::make_unique<ShaderDecl>();
      s->kind = kind;
      s->span = peek().span;
      s->name = expect_name("a shader name");
      expect(Tok::LParen, "after the shader name");
      params(s->params, true);
      expect(Tok::RParen, "after the parameter list");
      s->body = block();
      unit.shaders.push_back(std::move(s));
      return;
    }
    Type ret{BaseType::Error, Detail::Unspecified};
    if (at(Tok::Identifier) && (at_word("uniform") || at_word("varying"))) {
      ret.detail = at_word("uniform") ? Detail::Uniform : Detail::Varying;
      advance();
    }
    if (at(Tok::Identifier)) ret.base = base_type_from_name(peek().text);
    if (ret.base == BaseType::Error)
      fail(peek().span, "expected-definition",
           "expected a shader ('surface', 'light', 'displacement') or a function definition, found " + describe(peek()));
    advance();
    unit.functions.push_back(function_rest(ret));
  }

  // After the return type: name '(' params ')' block.
  std::unique_ptr<FunctionDecl> function_rest(Type ret) {
    auto f = std::make_unique<FunctionDecl>();
    f->return_type = ret;
    f->span = peek().span;
    f->name = expect_name("a function name");
    expect(Tok::LParen, "after the function name");
    params(f->params, false);
    expect(Tok::RParen, "after the parameter list");
    f->body = block();
    return f;
  }

  // `[uniform|varying] type name (` inside a body starts a local function.
  bool at_local_function() const {
    std::size_t k = 0;
    if (peek().is_identifier("uniform") || peek().is_identifier("varying")) k = 1;
    return peek(k).kind == Tok::Identifier && base_type_from_name(peek(k).text) != BaseType::Error &&
           peek(k + 1).kind == Tok::Identifier && peek(k + 2).kind == Tok::LParen;
  }

  StmtPtr local_function() {
    Span start = peek().span;
    Type ret{BaseType::Error, Detail::Unspecified};
    if (at_word("uniform") || at_word("varying")) {
      ret.detail = at_word("uniform") ? Detail::Uniform : Detail::Varying;
      advance();
    }
    ret.base = base_type_from_name(advance().text);
    auto f = function_rest(ret);
    f->local = true;
    Span all = join(start, f->body->span);
    return std::make_unique<FunctionStmt>(all, std::move(f));
  }

  void params(std::vector<Param>& out, bool shader) {
    while (!at(Tok::RParen) && !at(Tok::Eof)) {
      bool output = false;
      Detail detail = Detail::Unspecified;
      for (;;) {
        if (at_word("output")) { output = true; advance(); }
        else if (at_word("uniform")) { detail = Detail::Uniform; advance(); }
        else if (at_word("varying")) { detail = Detail::Varying; advance(); }
        else if (at_word("extern")) advance();
        else break;
      }
      BaseType base = at(Tok::Identifier) ? base_type_from_name(peek().text) : BaseType::Error;
      if (base == BaseType::Error || base == BaseType::Void)
        fail(peek().span, "expected-type", "expected a parameter type, found " + describe(peek()));
      advance();
      for (;;) {
        Param p;
        p.type = {base, detail};
        p.output = output;
        p.span = peek().span;
        p.name = expect_name("a parameter name");
        if (at(Tok::LBracket)) p.type.array = array_suffix(true);
        if (accept(Tok::Assign)) {
          p.default_value = at(Tok::LBrace) ? array_literal() : assignment();  // a ',' here starts the next parameter
          if (!shader) sink_.error("function-param-default", p.default_value->span,
                                   "function parameters cannot have default values");
        } else if (shader) {
          sink_.error("missing-default", p.span, "shader parameter '" + p.name + "' needs a default value");
        }
        out.push_back(std::move(p));
        if (!accept(Tok::Comma)) break;
      }
      if (!accept(Tok::Semicolon)) break;
    }
  }

  // `[n]` after a declared name: n elements, a whole number from 1 to kMaxArray; `[]` (when
  // `open` allows it) leaves the length to the initializer or, for a parameter, to the argument.
  static constexpr int kMaxArray = 4096;
  int array_suffix(bool open) {
    advance();
    if (open && accept(Tok::RBracket)) return Type::kAnyLength;
    if (!at(Tok::Number)) fail(peek().span, "array-size", "an array's length must be a number written in the shader");
    const Token& n = advance();
    int size = 0;
    if (!(n.number >= 1 && n.number <= kMaxArray) || n.number != static_cast<int>(n.number))
      sink_.error("array-size", n.span, "an array's length must be a whole number from 1 to " + std::to_string(kMaxArray));
    else
      size = static_cast<int>(n.number);
    expect(Tok::RBracket, "to close the array length");
    return size == 0 ? 1 : size;  // after a reported error, one element keeps checking going
  }

  // `{ a, b, ... }`
  ExprPtr array_literal() {
    Span open = advance().span;
    DepthGuard guard(*this, open);
    auto lit = std::make_unique<ArrayLitExpr>(open);
    if (!at(Tok::RBrace)) {
      do {
        lit->elements.push_back(assignment());
        if (lit->elements.size() > static_cast<std::size_t>(kMaxArray))
          fail(lit->elements.back()->span, "array-size", "an array literal holds at most " + std::to_string(kMaxArray) + " values");
      } while (accept(Tok::Comma));
    }
    lit->span = join(open, expect(Tok::RBrace, "to close the array's values").span);
    return lit;
  }

  // ---- statements ----
  std::unique_ptr<BlockStmt> block() {
    Span open = expect(Tok::LBrace, "to open a block").span;
    DepthGuard guard(*this, open);
    auto b = std::make_unique<BlockStmt>(open);
    while (!at(Tok::RBrace) && !at(Tok::Eof)) {
      std::size_t before = pos_;
      try {
        b->stmts.push_back(statement());
      } catch (const ParseError&) {
        sync_statement();
      }
      if (pos_ == before) advance();
    }
    if (at(Tok::Eof)) {
      sink_.report({Severity::Error, "unterminated-block", "expected '}' at end of file", peek().span,
                    {{open, "to match this '{'"}}});
      throw ParseError{};
    }
    b->span = join(open, advance().span);
    return b;
  }

  bool at_declaration() const {
    if (!at(Tok::Identifier)) return false;
    const std::string& w = peek().text;
    if (w == "uniform" || w == "varying" || w == "extern" || w == "output") return true;
    BaseType b = base_type_from_name(w);
    if (b == BaseType::Error) return false;
    // `color(1,0,0);` as a statement is an expression; `float f(...)` is a (nested) function.
    return peek(1).kind == Tok::Identifier && !(peek(2).kind == Tok::LParen);
  }

  StmtPtr statement() {
    const Token& t = peek();
    DepthGuard guard(*this, t.span);
    if (at(Tok::LBrace)) return block();
    if (at(Tok::Semicolon)) return std::make_unique<EmptyStmt>(advance().span);
    if (at(Tok::Identifier)) {
      const std::string& w = t.text;
      if (w == "if") return if_stmt();
      if (w == "while") return while_stmt();
      if (w == "for") return for_stmt();
      if (w == "break" || w == "continue") return jump_stmt();
      if (w == "return") {
        Span s = advance().span;
        ExprPtr e;
        if (!at(Tok::Semicolon)) e = expr();
        Span end = expect(Tok::Semicolon, "after return").span;
        return std::make_unique<ReturnStmt>(join(s, end), std::move(e));
      }
      if (w == "illuminance") return illuminance_stmt();
      if (w == "gather") {
        auto g = std::make_unique<GatherStmt>(advance().span);
        g->args = call_args("after 'gather'");
        if (g->args.size() < 5 || (g->args.size() - 5) % 2 != 0)
          fail(g->span, "gather-args", "'gather' takes (category, P, direction, angle, samples) and then \"name\", variable pairs");
        g->body = statement();
        if (at_word("else")) {
          advance();
          g->else_body = statement();
        }
        return g;
      }
      if (w == "illuminate") return illuminate_stmt();
      if (w == "solar") return solar_stmt();
      if (w == "else") fail(t.span, "else-without-if", "'else' without a matching 'if'");
      if (at_local_function()) return local_function();
      if (at_declaration()) return declaration();
    }
    ExprPtr e = expr();
    Span end = expect(Tok::Semicolon, "after the expression").span;
    Span s = join(e->span, end);
    return std::make_unique<ExprStmt>(s, std::move(e));
  }

  StmtPtr declaration() {
    Span start = peek().span;
    Type type{BaseType::Error, Detail::Unspecified};
    bool is_extern = false;
    for (;;) {
      if (at_word("uniform")) { type.detail = Detail::Uniform; advance(); }
      else if (at_word("varying")) { type.detail = Detail::Varying; advance(); }
      else if (at_word("extern")) { is_extern = true; advance(); }
      else if (at_word("output")) fail(peek().span, "misplaced-output", "'output' is only allowed on parameters");
      else break;
    }
    if (at(Tok::Identifier)) type.base = base_type_from_name(peek().text);
    if (type.base == BaseType::Error || type.base == BaseType::Void)
      fail(peek().span, "expected-type", "expected a type, found " + describe(peek()));
    advance();
    auto d = std::make_unique<DeclStmt>(start, type);
    d->is_extern = is_extern;
    for (;;) {
      VarDecl v;
      v.span = peek().span;
      v.name = expect_name("a variable name");
      if (at(Tok::LBracket)) v.array = array_suffix(true);
      if (accept(Tok::Assign)) {
        v.init = at(Tok::LBrace) ? array_literal() : assignment();
        if (is_extern) sink_.error("extern-initializer", v.init->span, "an 'extern' declaration names an existing variable; it cannot have an initializer");
      }
      d->vars.push_back(std::move(v));
      if (!accept(Tok::Comma)) break;
    }
    d->span = join(start, expect(Tok::Semicolon, "after the declaration").span);
    return d;
  }

  ExprPtr paren_cond(const char* what) {
    expect(Tok::LParen, what);
    ExprPtr e = expr();
    expect(Tok::RParen, "after the condition");
    return e;
  }

  StmtPtr if_stmt() {
    auto s = std::make_unique<IfStmt>(advance().span);
    s->cond = paren_cond("after 'if'");
    s->then_stmt = statement();
    if (at_word("else")) {
      advance();
      s->else_stmt = statement();
    }
    return s;
  }

  StmtPtr while_stmt() {
    auto s = std::make_unique<WhileStmt>(advance().span);
    s->cond = paren_cond("after 'while'");
    s->body = statement();
    return s;
  }

  StmtPtr for_stmt() {
    auto s = std::make_unique<ForStmt>(advance().span);
    expect(Tok::LParen, "after 'for'");
    if (at_declaration()) fail(peek().span, "for-declaration", "declarations are not allowed in a 'for' header; declare the variable before the loop");
    if (!at(Tok::Semicolon)) s->init = expr();
    expect(Tok::Semicolon, "after the loop initializer");
    if (!at(Tok::Semicolon)) s->cond = expr();
    expect(Tok::Semicolon, "after the loop condition");
    if (!at(Tok::RParen)) s->step = expr();
    expect(Tok::RParen, "after the loop step");
    s->body = statement();
    return s;
  }

  StmtPtr jump_stmt() {
    const Token& t = advance();
    StmtKind k = t.text == "break" ? StmtKind::Break : StmtKind::Continue;
    int levels = 1;
    if (at(Tok::Number)) {
      const Token& n = advance();
      if (!(n.number >= 1 && n.number <= 64) || n.number != static_cast<int>(n.number))  // range first: no UB
        sink_.error("bad-jump-level", n.span, "the loop level of '" + t.text + "' must be a whole number from 1 to 64");
      else
        levels = static_cast<int>(n.number);
    }
    Span end = expect(Tok::Semicolon, k == StmtKind::Break ? "after 'break'" : "after 'continue'").span;
    return std::make_unique<JumpStmt>(k, join(t.span, end), levels);
  }

  // `channel`: a texture call, whose name may select its first channel: texture("map"[3], s, t).
  std::vector<ExprPtr> call_args(const char* what, ExprPtr* channel = nullptr) {
    expect(Tok::LParen, what);
    std::vector<ExprPtr> args;
    if (!at(Tok::RParen)) {
      do {
        allow_channel_ = channel && args.empty();
        args.push_back(assignment());
        allow_channel_ = false;
        if (channel && args.size() == 1 && at(Tok::LBracket)) {
          advance();
          *channel = assignment();
          expect(Tok::RBracket, "to close the texture channel");
        }
      } while (accept(Tok::Comma));
    }
    expect(Tok::RParen, "after the arguments");
    return args;
  }

  StmtPtr illuminance_stmt() {
    auto s = std::make_unique<IlluminanceStmt>(advance().span);
    auto args = call_args("after 'illuminance'");
    std::size_t i = 0;
    if (!args.empty() && args[0]->kind == ExprKind::String) s->category = std::move(args[i++]);
    std::size_t n = args.size() - i;
    if (n != 1 && n != 3)
      fail(s->span, "illuminance-args", "'illuminance' takes ([category,] position) or ([category,] position, axis, angle)");
    s->position = std::move(args[i]);
    if (n == 3) {
      s->axis = std::move(args[i + 1]);
      s->angle = std::move(args[i + 2]);
    }
    s->body = statement();
    return s;
  }

  StmtPtr illuminate_stmt() {
    auto s = std::make_unique<IlluminateStmt>(advance().span);
    auto args = call_args("after 'illuminate'");
    if (args.size() != 1 && args.size() != 3)
      fail(s->span, "illuminate-args", "'illuminate' takes (position) or (position, axis, angle)");
    s->position = std::move(args[0]);
    if (args.size() == 3) {
      s->axis = std::move(args[1]);
      s->angle = std::move(args[2]);
    }
    s->body = statement();
    return s;
  }

  StmtPtr solar_stmt() {
    auto s = std::make_unique<SolarStmt>(advance().span);
    auto args = call_args("after 'solar'");
    if (args.size() != 0 && args.size() != 2) fail(s->span, "solar-args", "'solar' takes () or (axis, angle)");
    if (args.size() == 2) {
      s->axis = std::move(args[0]);
      s->angle = std::move(args[1]);
    }
    s->body = statement();
    return s;
  }

  // ---- expressions ----
  ExprPtr expr() {
    ExprPtr e = assignment();
    if (at(Tok::Comma))
      fail(peek().span, "comma-operator", "the comma operator is not part of RSL");
    return e;
  }

  ExprPtr assignment() {
    DepthGuard guard(*this, peek().span);
    ExprPtr lhs = ternary();
    AssignOp op;
    switch (peek().kind) {
      case Tok::Assign: op = AssignOp::Set; break;
      case Tok::PlusAssign: op = AssignOp::Add; break;
      case Tok::MinusAssign: op = AssignOp::Sub; break;
      case Tok::StarAssign: op = AssignOp::Mul; break;
      case Tok::SlashAssign: op = AssignOp::Div; break;
      default: return lhs;
    }
    Span op_span = advance().span;
    if (lhs->kind != ExprKind::Name && lhs->kind != ExprKind::Index)
      fail(op_span, "not-assignable", "the left side of an assignment must be a variable or an array element");
    ExprPtr rhs = assignment();
    Span s = join(lhs->span, rhs->span);
    return std::make_unique<AssignExpr>(s, op, std::move(lhs), std::move(rhs));
  }

  ExprPtr ternary() {
    ExprPtr c = binary(0);
    if (!at(Tok::Question)) return c;
    advance();
    DepthGuard guard(*this, c->span);
    ExprPtr a = assignment();
    expect(Tok::Colon, "in the conditional expression");
    ExprPtr b = ternary();
    Span s = join(c->span, b->span);
    return std::make_unique<TernaryExpr>(s, std::move(c), std::move(a), std::move(b));
  }

  static int precedence(Tok k, BinaryOp* op) {
    switch (k) {
      case Tok::OrOr: *op = BinaryOp::Or; return 1;
      case Tok::AndAnd: *op = BinaryOp::And; return 2;
      case Tok::EqEq: *op = BinaryOp::Eq; return 3;
      case Tok::NotEq: *op = BinaryOp::Ne; return 3;
      case Tok::Less: *op = BinaryOp::Lt; return 4;
      case Tok::Greater: *op = BinaryOp::Gt; return 4;
      case Tok::LessEq: *op = BinaryOp::Le; return 4;
      case Tok::GreaterEq: *op = BinaryOp::Ge; return 4;
      case Tok::Plus: *op = BinaryOp::Add; return 5;
      case Tok::Minus: *op = BinaryOp::Sub; return 5;
      case Tok::Star: *op = BinaryOp::Mul; return 6;
      case Tok::Slash: *op = BinaryOp::Div; return 6;
      case Tok::Caret: *op = BinaryOp::Cross; return 7;
      case Tok::Dot: *op = BinaryOp::Dot; return 8;
      default: return -1;
    }
  }

  // Precedence climbing; all binary operators are left-associative.
  ExprPtr binary(int min_prec) {
    ExprPtr lhs = unary();
    for (;;) {
      BinaryOp op;
      int prec = precedence(peek().kind, &op);
      if (prec < 0 || prec < min_prec) break;
      advance();
      DepthGuard guard(*this, lhs->span);
      ExprPtr rhs = binary(prec + 1);
      Span s = join(lhs->span, rhs->span);
      lhs = std::make_unique<BinaryExpr>(s, op, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  ExprPtr unary() {
    DepthGuard guard(*this, peek().span);
    if (at(Tok::Minus) || at(Tok::Plus) || at(Tok::Bang)) {
      Tok k = peek().kind;
      Span s = advance().span;
      ExprPtr e = unary();
      Span all = join(s, e->span);
      UnaryOp op = k == Tok::Minus ? UnaryOp::Neg : k == Tok::Plus ? UnaryOp::Plus : UnaryOp::Not;
      return std::make_unique<UnaryExpr>(all, op, std::move(e));
    }
    if (at(Tok::PlusPlus) || at(Tok::MinusMinus))
      fail(peek().span, "no-increment", std::string("'") + spelling(peek().kind) + "' is not part of RSL; write 'x += 1' or 'x -= 1'");
    // Only the first primary of a texture's name may take a [channel]: inside it (a parenthesised
    // condition choosing the name, say) brackets index as anywhere else.
    const bool channel_here = allow_channel_;
    allow_channel_ = false;
    ExprPtr e = primary(channel_here);
    if (at(Tok::PlusPlus) || at(Tok::MinusMinus))
      fail(peek().span, "no-increment", std::string("'") + spelling(peek().kind) + "' is not part of RSL; write 'x += 1' or 'x -= 1'");
    if (at(Tok::LBracket) && !(channel_here && (e->kind == ExprKind::String || e->kind == ExprKind::Name)))
      fail(peek().span, "not-indexable", "only an array variable can be indexed");
    return e;
  }

  // `channel_here`: this primary begins a texture's name, and a name followed by `[` is the map and
  // its channel, not an array element (sema decides which an array of names means).
  ExprPtr primary(bool channel_here) {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Number: {
        advance();
        return std::make_unique<NumberExpr>(t.span, t.number);
      }
      case Tok::String: {
        advance();
        return std::make_unique<StringExpr>(t.span, t.text);
      }
      case Tok::LParen: {
        Span open = advance().span;
        std::vector<ExprPtr> items;
        items.push_back(assignment());
        while (accept(Tok::Comma)) items.push_back(assignment());
        Span close = expect(Tok::RParen, "to close the parenthesis").span;
        if (items.size() == 1) return std::move(items[0]);
        auto tup = std::make_unique<TupleExpr>(join(open, close));
        tup->elements = std::move(items);
        return tup;
      }
      case Tok::Identifier: {
        BaseType cast = base_type_from_name(t.text);
        if (cast != BaseType::Error && cast != BaseType::Void) {
          // Type cast or constructor: type ["space"] unary-expression.
          Span s = advance().span;
          auto c = std::make_unique<CastExpr>(s, cast);
          if (at(Tok::String)) {
            c->space = peek().text;
            c->space_span = advance().span;
          }
          c->operand = unary();
          c->span = join(s, c->operand->span);
          return c;
        }
        if (is_keyword(t.text))
          fail(t.span, "unexpected-keyword", "expected an expression, found '" + t.text + "'");
        advance();
        if (at(Tok::LParen)) {
          auto call = std::make_unique<CallExpr>(t.span, t.text, t.span);
          call->args = call_args("to start the arguments", takes_channel(t.text) ? &call->channel : nullptr);
          call->span = join(t.span, last_);
          return call;
        }
        ExprPtr name = std::make_unique<NameExpr>(t.span, t.text);
        if (at(Tok::LBracket) && !channel_here) {
          advance();
          ExprPtr index = assignment();
          Span close = expect(Tok::RBracket, "to close the index").span;
          return std::make_unique<IndexExpr>(join(t.span, close), std::move(name), std::move(index));
        }
        return name;
      }
      default:
        fail(t.span, "expected-expression", "expected an expression, found " + describe(t));
    }
  }

  const std::vector<Token>& toks_;
  DiagnosticSink& sink_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool allow_channel_ = false;  // parsing a texture name, which may be followed by [channel]
  Span last_;
};

}  // namespace

std::unique_ptr<TranslationUnit> parse(const std::vector<Token>& tokens, DiagnosticSink& sink) {
  if (tokens.empty()) {
    std::vector<Token> eof(1);
    return Parser(eof, sink).run();
  }
  return Parser(tokens, sink).run();
}

}  // namespace passlab::lang
