// Lowering: a checked RSL syntax tree, bound to its lights, to SSA IR.
#include "core/ir/lower.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <functional>
#include <map>
#include <set>

namespace passlab::ir {

using namespace lang;

namespace {

struct LowerError {};  // a diagnostic has been reported; abandon this module

// Synthetic variables (not RSL symbols) are keyed by the address of one of these.
struct Slot {
  BaseType type;
};

class ModuleLowering;

// A light parameter's value as a host constant: the light setup's, else a literal default.
// Used for the RSL conventions that select lights: __category, __nondiffuse, __nonspecular.
std::optional<Value> light_param(const LightInstance& light, const std::string& name) {
  auto it = light.params.find(name);
  if (it != light.params.end()) return it->second;
  for (const Param& p : light.shader->params) {
    if (p.name != name || !p.default_value) continue;
    const Expr* e = p.default_value.get();
    while (e->kind == ExprKind::Convert) e = static_cast<const ConvertExpr*>(e)->operand.get();
    if (e->kind == ExprKind::String) return Value::string(static_cast<const StringExpr*>(e)->value);
    if (e->kind == ExprKind::Number) return Value::scalar(static_cast<float>(static_cast<const NumberExpr*>(e)->value));
  }
  return std::nullopt;
}

// RSL light categories: the illuminance category is a comma-separated list; a light matches
// when its __category list names one of them, or, for "-name", when it does not name it.
bool category_matches(const std::string& wanted, const LightInstance& light) {
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
      if (c == ',') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else if (c != ' ') {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
  };
  std::optional<Value> cat = light_param(light, "__category");
  std::vector<std::string> has = cat && cat->type == BaseType::String ? split(cat->s) : std::vector<std::string>{};
  for (const std::string& w : split(wanted)) {
    bool negate = !w.empty() && w[0] == '-';
    std::string name = negate ? w.substr(1) : w;
    bool named = std::find(has.begin(), has.end(), name) != has.end();
    if (named != negate) return true;
  }
  return split(wanted).empty();
}

class FunctionLowering {
 public:
  FunctionLowering(ModuleLowering& m, Function& fn, const TranslationUnit& unit) : m_(m), fn_(fn), unit_(unit) {
    BlockId entry = fn_.add_block();
    sealed_.insert(entry);
    cur_ = entry;
  }

  // ---- SSA construction ----
  struct VarInfo {
    BaseType type;
    std::function<ValueId()> initial;  // value when no assignment reaches the read
  };

  void declare(const void* key, BaseType type, std::function<ValueId()> initial = nullptr) {
    if (vars_.count(key)) return;
    vars_[key] = {type, std::move(initial)};
  }

  void write(const void* key, BlockId b, ValueId v) { defs_[key][b] = v; }
  void write(const void* key, ValueId v) { write(key, cur_, v); }

  ValueId read(const void* key) { return read(key, cur_); }
  ValueId read(const void* key, BlockId b) {
    auto& d = defs_[key];
    auto it = d.find(b);
    if (it != d.end()) return it->second;
    return read_recursive(key, b);
  }

  ValueId read_recursive(const void* key, BlockId b) {
    VarInfo& info = vars_.at(key);
    ValueId v;
    if (!sealed_.count(b)) {
      v = new_phi(b, info.type);
      incomplete_[b].push_back({key, v});
    } else if (fn_.blocks[b].preds.size() == 1) {
      v = read(key, fn_.blocks[b].preds[0]);
    } else if (fn_.blocks[b].preds.empty()) {
      v = (b == 0 && info.initial) ? info.initial() : undef(info.type);
    } else {
      v = new_phi(b, info.type);
      write(key, b, v);
      add_phi_operands(key, v);
    }
    write(key, b, v);
    return v;
  }

  ValueId new_phi(BlockId b, BaseType type) {
    Instr phi;
    phi.op = Op::Phi;
    phi.type = type;
    phi.block = b;
    ValueId v = fn_.add(phi);
    auto& list = fn_.blocks[b].instrs;
    list.insert(list.begin(), v);
    return v;
  }

  void add_phi_operands(const void* key, ValueId phi) {
    BlockId b = fn_.at(phi).block;
    std::vector<ValueId> args;
    for (BlockId p : fn_.blocks[b].preds) args.push_back(read(key, p));
    fn_.at(phi).args = std::move(args);
  }

  void seal(BlockId b) {
    if (sealed_.count(b)) return;
    sealed_.insert(b);
    auto pending = std::move(incomplete_[b]);
    incomplete_.erase(b);
    for (auto& [key, phi] : pending) add_phi_operands(key, phi);
  }

  // ---- emission ----
  ValueId emit(Op op, BaseType type, std::vector<ValueId> args, const Span& span, std::uint32_t aux = 0) {
    Instr in;
    in.op = op;
    in.type = type;
    in.args = std::move(args);
    in.aux = aux;
    in.span = span;
    return fn_.append(cur_, std::move(in));
  }
  ValueId undef(BaseType type) {
    Instr in;
    in.op = Op::Undef;
    in.type = type;
    return fn_.insert_front(0, std::move(in));
  }
  ValueId constant(const Value& v, const Span& span = {}) {
    Instr in;
    in.op = Op::Const;
    in.type = v.type;
    in.span = span;
    if (v.type == BaseType::String) in.text = v.s;
    else in.data.assign(v.f.begin(), v.f.begin() + std::max(1, component_count(v.type)));
    return fn_.append(cur_, std::move(in));
  }
  ValueId constant(float x) { return constant(Value::scalar(x)); }
  ValueId builtin(Builtin id, BaseType type, std::vector<ValueId> args, const Span& span) {
    return emit(Op::Builtin, type, std::move(args), span, static_cast<std::uint32_t>(id));
  }
  ValueId convert(ValueId v, BaseType to, const Span& span) {
    if (fn_.at(v).type == to) return v;
    return emit(Op::Convert, to, {v}, span);
  }

  BlockId new_block() { return fn_.add_block(); }
  bool terminated() const { return fn_.terminator(cur_) != nullptr; }
  void br(BlockId target) {
    if (terminated()) return;
    Instr in;
    in.op = Op::Br;
    in.type = BaseType::Void;
    in.targets = {target};
    fn_.append(cur_, std::move(in));
    fn_.blocks[target].preds.push_back(cur_);
  }
  void cond_br(ValueId cond, BlockId t, BlockId f, const Span& span) {
    Instr in;
    in.op = Op::CondBr;
    in.type = BaseType::Void;
    in.args = {cond};
    in.targets = {t, f};
    in.span = span;
    fn_.append(cur_, std::move(in));
    fn_.blocks[t].preds.push_back(cur_);
    fn_.blocks[f].preds.push_back(cur_);
  }
  // After break/continue/return: later code lands in a block nothing reaches.
  void start_unreachable() {
    cur_ = new_block();
    sealed_.insert(cur_);
  }

  // ---- symbols ----
  const void* key(const Symbol* s);
  const Symbol* global_symbol(const TranslationUnit& unit, Global g);

  // ---- statements and expressions ----
  void stmt(const Stmt& s);
  ValueId expr(const Expr& e);
  ValueId call(const CallExpr& c);
  ValueId light_builtin(const CallExpr& c, const Signature& sig);
  void illuminance(const IlluminanceStmt& s);
  void light_statement(const Stmt& s, const TranslationUnit& light_unit);

  struct LightSample {
    ValueId L, Cl, active;  // L points from the light to the surface, as inside the light
  };
  LightSample inline_light(const LightInstance& light, ValueId position);

  ModuleLowering& m_;
  Function& fn_;
  const TranslationUnit& unit_;  // the unit whose code is being lowered right now
  BlockId cur_ = 0;
  std::map<const void*, VarInfo> vars_;
  std::map<const void*, std::map<BlockId, ValueId>> defs_;
  std::set<BlockId> sealed_;
  std::map<BlockId, std::vector<std::pair<const void*, ValueId>>> incomplete_;
  struct Loop {
    BlockId continue_to, break_to;
  };
  std::vector<Loop> loops_;
  const void* return_key_ = nullptr;
  BlockId return_block_ = 0;
  ShaderKind kind_ = ShaderKind::Surface;
  bool in_function_ = false;
  std::deque<Slot> slots_;
  // Inside an inlined light: the light's unit and its L/active slots.
  const TranslationUnit* light_unit_ = nullptr;
  const void* light_active_ = nullptr;

  const void* slot(BaseType t) {
    slots_.push_back({t});
    return &slots_.back();
  }
};

class ModuleLowering {
 public:
  ModuleLowering(const TranslationUnit& unit, const Binding& binding, DiagnosticSink& sink)
      : unit_(unit), binding_(binding), sink_(sink) {}

  // everything: every function and every shader (lower_program); else the last shader and
  // what it calls.
  std::optional<Module> run(bool everything);
  // Index of the lowered function for a declaration, lowering it on first use.
  std::uint32_t function_index(const FunctionDecl* f);
  std::uint32_t shader_index(const ShaderDecl& shader);

  [[noreturn]] void fail(const Span& span, const std::string& code, const std::string& msg) {
    sink_.error(code, span, msg);
    throw LowerError{};
  }

  const TranslationUnit& unit_;
  const Binding& binding_;
  DiagnosticSink& sink_;
  Module module_;
  std::map<const FunctionDecl*, std::uint32_t> lowered_;
};

const Symbol* FunctionLowering::global_symbol(const TranslationUnit& unit, Global g) {
  for (const Symbol& s : unit.symbols)
    if (s.kind == SymbolKind::Global && s.global == g) return &s;
  return nullptr;
}

const void* FunctionLowering::key(const Symbol* s) {
  if (!vars_.count(s)) {
    std::function<ValueId()> init;
    if (s->kind == SymbolKind::Global) {
      Global g = s->global;
      BaseType t = s->type.base;
      init = [this, g, t]() -> ValueId {
        Instr in;
        if (g == Global::Ci || g == Global::Cl) {
          in.op = Op::Const;
          in.data = {0, 0, 0};
        } else if (g == Global::Oi || g == Global::Ol) {
          in.op = Op::Const;  // an untouched opacity is opaque
          in.data = {1, 1, 1};
        } else {
          in.op = Op::Global;
          in.aux = static_cast<std::uint32_t>(g);
        }
        in.type = t;
        return fn_.insert_front(0, std::move(in));
      };
    }
    declare(s, s->type.base, init);
  }
  return s;
}

// ---- statements ----

void FunctionLowering::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Block:
      for (const auto& st : static_cast<const BlockStmt&>(s).stmts) stmt(*st);
      return;
    case StmtKind::Empty: return;
    case StmtKind::Decl:
      for (const auto& v : static_cast<const DeclStmt&>(s).vars) {
        const void* k = key(v.symbol);
        // Every declaration starts a fresh value, so a light inlined twice never sees the
        // previous instance's locals.
        write(k, v.init ? convert(expr(*v.init), v.symbol->type.base, v.span) : undef(v.symbol->type.base));
      }
      return;
    case StmtKind::Expr: expr(*static_cast<const ExprStmt&>(s).expr); return;
    case StmtKind::If: {
      const auto& i = static_cast<const IfStmt&>(s);
      ValueId c = expr(*i.cond);
      BlockId then_b = new_block(), else_b = new_block(), join_b = new_block();
      cond_br(c, then_b, i.else_stmt ? else_b : join_b, i.cond->span);
      seal(then_b);
      cur_ = then_b;
      stmt(*i.then_stmt);
      br(join_b);
      if (i.else_stmt) {
        seal(else_b);
        cur_ = else_b;
        stmt(*i.else_stmt);
        br(join_b);
      } else {
        fn_.blocks[else_b].removed = true;
      }
      seal(join_b);
      cur_ = join_b;
      return;
    }
    case StmtKind::While:
    case StmtKind::For: {
      const Expr* init = nullptr;
      const Expr* cond;
      const Expr* step = nullptr;
      const Stmt* body;
      if (s.kind == StmtKind::While) {
        const auto& w = static_cast<const WhileStmt&>(s);
        cond = w.cond.get();
        body = w.body.get();
      } else {
        const auto& f = static_cast<const ForStmt&>(s);
        init = f.init.get();
        cond = f.cond.get();
        step = f.step.get();
        body = f.body.get();
      }
      if (init) expr(*init);
      BlockId header = new_block(), body_b = new_block(), latch = new_block(), exit = new_block();
      br(header);
      cur_ = header;
      if (cond) cond_br(expr(*cond), body_b, exit, cond->span);
      else br(body_b);
      seal(body_b);
      cur_ = body_b;
      loops_.push_back({latch, exit});
      stmt(*body);
      loops_.pop_back();
      br(latch);
      seal(latch);
      cur_ = latch;
      if (step) expr(*step);
      br(header);
      seal(header);
      seal(exit);
      cur_ = exit;
      return;
    }
    case StmtKind::Break:
    case StmtKind::Continue: {
      const auto& j = static_cast<const JumpStmt&>(s);
      if (j.levels < 1 || static_cast<std::size_t>(j.levels) > loops_.size())
        m_.fail(s.span, "jump-outside-loop", "'break'/'continue' has no enclosing loop to leave");
      const Loop& target = loops_[loops_.size() - static_cast<std::size_t>(j.levels)];
      br(s.kind == StmtKind::Break ? target.break_to : target.continue_to);
      start_unreachable();
      return;
    }
    case StmtKind::Return: {
      const auto& r = static_cast<const ReturnStmt&>(s);
      if (!in_function_) m_.fail(s.span, "return-in-shader", "'return' is only allowed in functions");
      if (r.value && return_key_) write(return_key_, convert(expr(*r.value), vars_.at(return_key_).type, r.span));
      br(return_block_);
      start_unreachable();
      return;
    }
    case StmtKind::Illuminance: illuminance(static_cast<const IlluminanceStmt&>(s)); return;
    case StmtKind::Illuminate:
    case StmtKind::Solar:
      if (!light_unit_ && kind_ != ShaderKind::Light)
        m_.fail(s.span, "light-statement-outside-light", "'illuminate' and 'solar' are only allowed in light shaders");
      light_statement(s, light_unit_ ? *light_unit_ : unit_);
      return;
  }
}

void FunctionLowering::light_statement(const Stmt& s, const TranslationUnit& light_unit) {
  const Symbol* Lsym = global_symbol(light_unit, Global::L);
  const Symbol* Pssym = global_symbol(light_unit, Global::Ps);
  const Expr* axis = nullptr;
  const Expr* angle = nullptr;
  const Stmt* body;
  ValueId L;
  if (s.kind == StmtKind::Illuminate) {
    const auto& il = static_cast<const IlluminateStmt&>(s);
    ValueId from = convert(expr(*il.position), BaseType::Point, il.position->span);
    ValueId ps = read(key(Pssym));
    L = emit(Op::Sub, BaseType::Vector, {convert(ps, BaseType::Point, s.span), from}, s.span);
    axis = il.axis.get();
    angle = il.angle.get();
    body = il.body.get();
  } else {
    const auto& so = static_cast<const SolarStmt&>(s);
    // A solar light shines along its axis: L (light to surface) is the axis itself.
    L = so.axis ? convert(expr(*so.axis), BaseType::Vector, so.span) : constant(Value::zero(BaseType::Vector));
    body = so.body.get();
    angle = nullptr;  // the surface's illuminance cone does the directional test
  }
  write(key(Lsym), L);
  BlockId body_b = new_block(), join_b = new_block();
  if (axis && s.kind == StmtKind::Illuminate) {
    ValueId a = convert(expr(*axis), BaseType::Vector, axis->span);
    ValueId cos_angle = builtin(Builtin::Cos, BaseType::Float, {expr(*angle)}, angle->span);
    ValueId d = emit(Op::Dot, BaseType::Float,
                     {builtin(Builtin::Normalize, BaseType::Vector, {L}, s.span), builtin(Builtin::Normalize, BaseType::Vector, {a}, s.span)},
                     s.span);
    cond_br(emit(Op::Ge, BaseType::Bool, {d, cos_angle}, s.span), body_b, join_b, s.span);
  } else {
    br(body_b);
  }
  seal(body_b);
  cur_ = body_b;
  if (light_active_) write(light_active_, constant(Value::boolean(true)));
  stmt(*body);
  br(join_b);
  seal(join_b);
  cur_ = join_b;
}

FunctionLowering::LightSample FunctionLowering::inline_light(const LightInstance& light, ValueId position) {
  const TranslationUnit& lu = *light.unit;
  const TranslationUnit* saved_unit = light_unit_;
  const void* saved_active = light_active_;
  auto saved_loops = std::move(loops_);
  loops_.clear();
  light_unit_ = &lu;
  light_active_ = slot(BaseType::Bool);
  declare(light_active_, BaseType::Bool);
  write(light_active_, constant(Value::boolean(false)));
  // Parameters: the light setup's value, else the shader's default; runtime parameters read
  // their value when the shader runs.
  for (const Param& p : light.shader->params) {
    auto it = light.params.find(p.name);
    ValueId v = it != light.params.end() ? constant(it->second, p.span) : convert(expr(*p.default_value), p.type.base, p.span);
    if (light.runtime_params.count(p.name)) {
      Instr in;
      in.op = Op::ShaderParam;
      in.type = p.type.base;
      in.aux = kRuntimeParam;
      in.text = "$" + light.label + "." + p.name;
      in.args = {v};
      in.span = p.span;
      v = fn_.append(cur_, std::move(in));
    }
    write(key(p.symbol), v);
  }
  write(key(global_symbol(lu, Global::Ps)), position);
  write(key(global_symbol(lu, Global::Cl)), constant(Value::zero(BaseType::Color)));
  write(key(global_symbol(lu, Global::Ol)), constant(Value::triple(BaseType::Color, 1, 1, 1)));
  write(key(global_symbol(lu, Global::L)), constant(Value::zero(BaseType::Vector)));
  stmt(*light.shader->body);
  LightSample out{read(key(global_symbol(lu, Global::L))), read(key(global_symbol(lu, Global::Cl))), read(light_active_)};
  light_unit_ = saved_unit;
  light_active_ = saved_active;
  loops_ = std::move(saved_loops);
  return out;
}

void FunctionLowering::illuminance(const IlluminanceStmt& s) {
  if (light_unit_ || kind_ == ShaderKind::Light)
    m_.fail(s.span, "illuminance-in-light", "'illuminance' cannot be used in a light shader");
  ValueId position = convert(expr(*s.position), BaseType::Point, s.position->span);
  ValueId axis = kNoValue, cos_angle = kNoValue;
  if (s.axis) {
    axis = builtin(Builtin::Normalize, BaseType::Vector, {convert(expr(*s.axis), BaseType::Vector, s.span)}, s.axis->span);
    cos_angle = builtin(Builtin::Cos, BaseType::Float, {expr(*s.angle)}, s.angle->span);
  }
  const Symbol* Lsym = global_symbol(unit_, Global::L);
  const Symbol* Clsym = global_symbol(unit_, Global::Cl);
  std::string category;
  if (s.category) {
    if (s.category->kind != ExprKind::String)
      m_.fail(s.category->span, "category-not-constant", "the illuminance category must be a string literal");
    category = static_cast<const StringExpr&>(*s.category).value;
  }
  BlockId end = new_block();
  for (const LightInstance& light : m_.binding_.lights) {
    if (!light.shader->has_light_statement) continue;  // ambient lights only feed ambient()
    if (s.category && !category_matches(category, light)) continue;
    LightSample sample = inline_light(light, position);
    ValueId Ls = emit(Op::Neg, BaseType::Vector, {sample.L}, s.span);
    ValueId cond = sample.active;
    if (axis != kNoValue) {
      ValueId d = emit(Op::Dot, BaseType::Float, {builtin(Builtin::Normalize, BaseType::Vector, {Ls}, s.span), axis}, s.span);
      cond = emit(Op::And, BaseType::Bool, {cond, emit(Op::Ge, BaseType::Bool, {d, cos_angle}, s.span)}, s.span);
    }
    BlockId body_b = new_block(), next = new_block();
    cond_br(cond, body_b, next, s.span);
    seal(body_b);
    cur_ = body_b;
    if (Lsym) write(key(Lsym), Ls);
    if (Clsym) write(key(Clsym), sample.Cl);
    loops_.push_back({next, end});
    stmt(*s.body);
    loops_.pop_back();
    br(next);
    seal(next);
    cur_ = next;
  }
  br(end);
  seal(end);
  cur_ = end;
}

// ---- expressions ----

ValueId FunctionLowering::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Number: return constant(Value::scalar(static_cast<float>(static_cast<const NumberExpr&>(e).value)), e.span);
    case ExprKind::String: return constant(Value::string(static_cast<const StringExpr&>(e).value), e.span);
    case ExprKind::Name: {
      const Symbol* s = static_cast<const NameExpr&>(e).symbol;
      if (!s) m_.fail(e.span, "internal", "unresolved name reached lowering");
      if (s->kind == SymbolKind::Constant) return constant(Value::scalar(static_cast<float>(s->constant)), e.span);
      return read(key(s));
    }
    case ExprKind::Unary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      ValueId v = expr(*u.operand);
      if (u.op == UnaryOp::Plus) return v;
      return emit(u.op == UnaryOp::Neg ? Op::Neg : Op::Not, e.type.base, {v}, e.span);
    }
    case ExprKind::Binary: {
      const auto& b = static_cast<const BinaryExpr&>(e);
      ValueId l = expr(*b.lhs), r = expr(*b.rhs);
      Op op;
      switch (b.op) {
        case BinaryOp::Add: op = Op::Add; break;
        case BinaryOp::Sub: op = Op::Sub; break;
        case BinaryOp::Mul: op = e.type.base == BaseType::Matrix ? Op::MatMul : Op::Mul; break;
        case BinaryOp::Div: op = e.type.base == BaseType::Matrix ? Op::MatDiv : Op::Div; break;
        case BinaryOp::Dot: op = Op::Dot; break;
        case BinaryOp::Cross: op = Op::Cross; break;
        case BinaryOp::Lt: op = Op::Lt; break;
        case BinaryOp::Gt: op = Op::Gt; break;
        case BinaryOp::Le: op = Op::Le; break;
        case BinaryOp::Ge: op = Op::Ge; break;
        case BinaryOp::Eq: op = Op::Eq; break;
        case BinaryOp::Ne: op = Op::Ne; break;
        case BinaryOp::And: op = Op::And; break;
        case BinaryOp::Or: op = Op::Or; break;
        default: op = Op::Add; break;
      }
      if (op == Op::MatMul || op == Op::MatDiv) {
        // A float operand scales: matrix * float multiplies every element.
        if (fn_.at(l).type != BaseType::Matrix || fn_.at(r).type != BaseType::Matrix)
          m_.fail(e.span, "unsupported", "scaling a matrix by a float is not supported; multiply by a matrix");
      }
      return emit(op, e.type.base, {l, r}, e.span);
    }
    case ExprKind::Ternary: {
      const auto& t = static_cast<const TernaryExpr&>(e);
      ValueId c = expr(*t.cond);
      ValueId a = expr(*t.then_expr), b = expr(*t.else_expr);
      return emit(Op::Select, e.type.base, {c, a, b}, e.span);
    }
    case ExprKind::Assign: {
      const auto& a = static_cast<const AssignExpr&>(e);
      const auto& target = static_cast<const NameExpr&>(*a.target);
      const void* k = key(target.symbol);
      BaseType t = target.symbol->type.base;
      ValueId v = expr(*a.value);
      if (a.op != AssignOp::Set) {
        static constexpr Op ops[] = {Op::Add, Op::Add, Op::Sub, Op::Mul, Op::Div};
        ValueId old = read(k);
        ValueId rhs = fn_.at(v).type == BaseType::Float && t != BaseType::Float ? convert(v, t, e.span) : v;
        v = emit(ops[static_cast<int>(a.op)], t, {old, rhs}, e.span);
      }
      v = convert(v, t, e.span);
      write(k, v);
      return v;
    }
    case ExprKind::Call: return call(static_cast<const CallExpr&>(e));
    case ExprKind::Convert: return convert(expr(*static_cast<const ConvertExpr&>(e).operand), e.type.base, e.span);
    case ExprKind::Tuple: {
      const auto& t = static_cast<const TupleExpr&>(e);
      std::vector<ValueId> parts;
      for (const auto& el : t.elements) parts.push_back(convert(expr(*el), BaseType::Float, el->span));
      return emit(parts.size() == 16 ? Op::MakeMatrix : Op::MakeTriple, e.type.base, parts, e.span);
    }
    case ExprKind::Cast: {
      const auto& c = static_cast<const CastExpr&>(e);
      ValueId v = expr(*c.operand);
      if (c.operand->kind == ExprKind::Tuple) fn_.at(v).type = c.to;
      v = convert(v, c.to, e.span);
      if (!c.space.empty() && is_pointlike(c.to) && c.space != "current" && c.space != "camera") {
        Builtin id = c.to == BaseType::Point ? Builtin::Transform : c.to == BaseType::Vector ? Builtin::Vtransform : Builtin::Ntransform;
        v = builtin(id, c.to, {constant(Value::string(c.space), c.space_span), constant(Value::string("current")), v}, e.span);
      }
      return v;
    }
  }
  return undef(e.type.base);
}

ValueId FunctionLowering::call(const CallExpr& c) {
  if (c.function) {
    const FunctionDecl& f = *c.function;
    std::uint32_t index = m_.function_index(&f);
    std::vector<ValueId> args;
    for (std::size_t i = 0; i < c.args.size(); ++i) args.push_back(convert(expr(*c.args[i]), f.params[i].type.base, c.args[i]->span));
    const Function& callee = m_.module_.functions[index];
    std::size_t results = callee.result_types.size();
    BaseType type = results == 1 ? callee.result_types[0] : results == 0 ? BaseType::Void : kTuple;
    ValueId call = emit(Op::Call, type, args, c.span, index);
    ValueId ret = kNoValue;
    std::size_t next = 0;
    auto result = [&](std::size_t i) {
      return results == 1 ? call : emit(Op::Extract, callee.result_types[i], {call}, c.span, static_cast<std::uint32_t>(i));
    };
    if (f.return_type.base != BaseType::Void) ret = result(next++);
    for (std::size_t i = 0; i < f.params.size(); ++i)
      if (f.params[i].output) {
        const auto& n = static_cast<const NameExpr&>(*c.args[i]);
        write(key(n.symbol), convert(result(next++), n.symbol->type.base, c.span));
      }
    return ret != kNoValue ? ret : constant(Value::zero(BaseType::Float));
  }
  const Signature& sig = signature(c.builtin);
  if (sig.needs_lights) return light_builtin(c, sig);
  BaseType type = c.type.base;
  if (sig.id == Builtin::Texture || sig.id == Builtin::Noise) {
    std::vector<ValueId> args;
    std::size_t first = 0;
    if (sig.id == Builtin::Texture) {
      args.push_back(expr(*c.args[0]));
      first = 1;
      if (c.args.size() == 1) {
        args.push_back(read(key(global_symbol(unit_, Global::s))));
        args.push_back(read(key(global_symbol(unit_, Global::t))));
      }
    } else {
      args.push_back(constant(Value::string("$noise"), c.span));
    }
    for (std::size_t i = first; i < c.args.size(); ++i) args.push_back(expr(*c.args[i]));
    return emit(Op::Texture, type, args, c.span, static_cast<std::uint32_t>(c.channel_index));
  }
  std::vector<ValueId> args;
  for (const auto& a : c.args) args.push_back(expr(*a));
  if (sig.writes_first) {
    const auto& n = static_cast<const NameExpr&>(*c.args[0]);
    ValueId v = builtin(sig.id, n.symbol->type.base, args, c.span);
    write(key(n.symbol), v);
    return constant(Value::zero(BaseType::Float));
  }
  return builtin(sig.id, type, args, c.span);
}

ValueId FunctionLowering::light_builtin(const CallExpr& c, const Signature& sig) {
  if (light_unit_ || kind_ == ShaderKind::Light)
    m_.fail(c.span, "light-function-in-light", "'" + c.name + "' cannot be used in a light shader");
  std::vector<ValueId> args;
  for (const auto& a : c.args) args.push_back(expr(*a));
  ValueId P = read(key(global_symbol(unit_, Global::P)));
  ValueId acc = constant(Value::zero(BaseType::Color));
  const Span& sp = c.span;
  auto normalize = [&](ValueId v) { return builtin(Builtin::Normalize, BaseType::Vector, {convert(v, BaseType::Vector, sp)}, sp); };
  ValueId zero = constant(0.0f);
  for (const LightInstance& light : m_.binding_.lights) {
    bool ambient = !light.shader->has_light_statement;
    if ((sig.id == Builtin::Ambient) != ambient) continue;
    // The RSL convention lets a light opt out of the diffuse or specular light models.
    const char* opt_out = sig.id == Builtin::Diffuse ? "__nondiffuse" : sig.id == Builtin::Ambient ? nullptr : "__nonspecular";
    if (opt_out) {
      std::optional<Value> v = light_param(light, opt_out);
      if (v && v->type == BaseType::Float && v->f[0] != 0) continue;
    }
    LightSample sample = inline_light(light, P);
    if (ambient) {
      acc = emit(Op::Add, BaseType::Color, {acc, sample.Cl}, sp);
      continue;
    }
    ValueId nL = normalize(emit(Op::Neg, BaseType::Vector, {sample.L}, sp));
    ValueId N = convert(args[0], BaseType::Vector, sp);
    ValueId facing = emit(Op::Ge, BaseType::Bool, {emit(Op::Dot, BaseType::Float, {nL, N}, sp), zero}, sp);
    ValueId cond = emit(Op::And, BaseType::Bool, {sample.active, facing}, sp);
    ValueId weight;
    if (sig.id == Builtin::Diffuse) {
      weight = emit(Op::Dot, BaseType::Float, {nL, N}, sp);
    } else if (sig.id == Builtin::Specular) {
      ValueId H = normalize(emit(Op::Add, BaseType::Vector, {nL, normalize(args[1])}, sp));
      ValueId nh = builtin(Builtin::Max, BaseType::Float, {zero, emit(Op::Dot, BaseType::Float, {N, H}, sp)}, sp);
      weight = builtin(Builtin::Pow, BaseType::Float, {nh, emit(Op::Div, BaseType::Float, {constant(1.0f), args[2]}, sp)}, sp);
    } else {  // phong
      ValueId R = builtin(Builtin::Reflect, BaseType::Vector,
                          {emit(Op::Neg, BaseType::Vector, {normalize(args[1])}, sp), normalize(N)}, sp);
      ValueId rl = builtin(Builtin::Max, BaseType::Float, {zero, emit(Op::Dot, BaseType::Float, {R, nL}, sp)}, sp);
      weight = builtin(Builtin::Pow, BaseType::Float, {rl, args[2]}, sp);
    }
    ValueId contribution = emit(Op::Mul, BaseType::Color, {sample.Cl, convert(weight, BaseType::Color, sp)}, sp);
    acc = emit(Op::Select, BaseType::Color, {cond, emit(Op::Add, BaseType::Color, {acc, contribution}, sp), acc}, sp);
  }
  return acc;
}

// ---- module ----

std::uint32_t ModuleLowering::function_index(const FunctionDecl* f) {
  auto it = lowered_.find(f);
  if (it != lowered_.end()) return it->second;
  auto index = static_cast<std::uint32_t>(module_.functions.size());
  lowered_[f] = index;
  module_.functions.emplace_back();
  Function fn;
  fn.name = f->name;
  if (f->return_type.base != BaseType::Void) {
    fn.result_types.push_back(f->return_type.base);
    fn.result_names.push_back("return");
  }
  for (const Param& p : f->params) {
    fn.arg_types.push_back(p.type.base);
    fn.arg_names.push_back(p.name);
    if (p.output) {
      fn.result_types.push_back(p.type.base);
      fn.result_names.push_back(p.name);
    }
  }
  // A recursive call reads the signature while the body is still being lowered.
  module_.functions[index].name = fn.name;
  module_.functions[index].arg_types = fn.arg_types;
  module_.functions[index].result_types = fn.result_types;
  module_.functions[index].result_names = fn.result_names;
  FunctionLowering fl(*this, fn, unit_);
  fl.in_function_ = true;
  for (std::size_t i = 0; i < f->params.size(); ++i) {
    Instr in;
    in.op = Op::Arg;
    in.type = f->params[i].type.base;
    in.aux = static_cast<std::uint32_t>(i);
    in.span = f->params[i].span;
    fl.write(fl.key(f->params[i].symbol), fn.append(0, std::move(in)));
  }
  Slot ret_slot{f->return_type.base};
  if (f->return_type.base != BaseType::Void) {
    fl.declare(&ret_slot, f->return_type.base);
    fl.return_key_ = &ret_slot;
  }
  fl.return_block_ = fl.new_block();
  fl.stmt(*f->body);
  fl.br(fl.return_block_);
  fl.seal(fl.return_block_);
  fl.cur_ = fl.return_block_;
  std::vector<ValueId> results;
  if (fl.return_key_) results.push_back(fl.read(fl.return_key_));
  for (const Param& p : f->params)
    if (p.output) results.push_back(fl.read(fl.key(p.symbol)));
  fl.emit(Op::Ret, BaseType::Void, results, f->span);
  module_.functions[index] = std::move(fn);
  return index;
}

std::uint32_t ModuleLowering::shader_index(const ShaderDecl& shader) {
  auto index = static_cast<std::uint32_t>(module_.functions.size());
  module_.functions.emplace_back();
  Function fn;
  fn.name = shader.name;
  fn.is_shader = true;
  fn.shader_kind = shader.kind;
  FunctionLowering fl(*this, fn, unit_);
  fl.kind_ = shader.kind;
  for (std::size_t i = 0; i < shader.params.size(); ++i) {
    const Param& p = shader.params[i];
    ValueId def = fl.convert(fl.expr(*p.default_value), p.type.base, p.span);
    Instr in;
    in.op = Op::ShaderParam;
    in.type = p.type.base;
    in.aux = static_cast<std::uint32_t>(i);
    in.text = p.name;
    in.args = {def};
    in.span = p.span;
    fl.write(fl.key(p.symbol), fn.append(fl.cur_, std::move(in)));
  }
  fl.stmt(*shader.body);
  std::vector<Global> outputs;
  switch (shader.kind) {
    case ShaderKind::Light: outputs = {Global::Cl, Global::Ol, Global::L}; break;
    case ShaderKind::Displacement: outputs = {Global::P, Global::N}; break;
    default: outputs = {Global::Ci, Global::Oi}; break;
  }
  std::vector<ValueId> results;
  for (Global g : outputs) {
    const Symbol* s = fl.global_symbol(unit_, g);
    results.push_back(fl.read(fl.key(s)));
    fn.result_types.push_back(s->type.base);
    fn.result_names.push_back(to_string(g));
  }
  for (const Param& p : shader.params)
    if (p.output) {
      results.push_back(fl.read(fl.key(p.symbol)));
      fn.result_types.push_back(p.type.base);
      fn.result_names.push_back(p.name);
    }
  fl.emit(Op::Ret, BaseType::Void, results, shader.span);
  module_.functions[index] = std::move(fn);
  return index;
}

std::optional<Module> ModuleLowering::run(bool everything) {
  const ShaderDecl* shader = unit_.shader();
  if (!shader && !everything) {
    sink_.error("no-shader", {}, "the file defines no shader (surface, light or displacement)");
    return std::nullopt;
  }
  try {
    if (everything)
      for (const auto& f : unit_.functions) function_index(f.get());
    if (shader) {
      module_.kind = shader->kind;
      module_.shader_name = shader->name;
      for (const Param& p : shader->params) module_.params.push_back({p.name, p.symbol->type, p.output, p.span});
    }
    if (everything) {
      for (const auto& s : unit_.shaders) module_.entry = shader_index(*s);
    } else {
      module_.entry = shader_index(*shader);
    }
    for (auto& f : module_.functions) f.compact();
  } catch (const LowerError&) {
    return std::nullopt;
  }
  return std::move(module_);
}

}  // namespace

std::optional<Module> lower(const TranslationUnit& unit, const Binding& binding, DiagnosticSink& sink) {
  return ModuleLowering(unit, binding, sink).run(false);
}

std::optional<Module> lower_program(const TranslationUnit& unit, const Binding& binding, DiagnosticSink& sink) {
  return ModuleLowering(unit, binding, sink).run(true);
}

}  // namespace passlab::ir
