// SPDX-License-Identifier: GPL-3.0-or-later
// Lowering: a checked RSL syntax tree, bound to its lights, to SSA IR.
#include "core/ir/lower.h"

#include "core/lang/sema.h"

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

bool takes_arrays(const FunctionDecl& f) {
  return std::any_of(f.params.begin(), f.params.end(), [](const Param& p) { return p.type.is_array(); });
}

// Functions that take arrays (whose lengths each call decides) and functions that assign the
// shader's globals run inlined where they are called.
bool inlined(const FunctionDecl& f) { return f.local || takes_arrays(f) || !f.writes_globals.empty(); }

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
  ValueId local_call(const CallExpr& c);
  ValueId library(const CallExpr& c, const Signature& sig);
  ValueId spline(const CallExpr& c);
  // A lookup's channels (texture(name[k], ...)): `lookup(k)` reads channel k; a channel chosen
  // when the shader runs selects among every channel the result type can start at.
  ValueId channels(const CallExpr& c, BaseType type, const std::function<ValueId(std::uint32_t)>& lookup);
  // Arrays: one SSA variable per element. A constant index picks one; a computed index, clamped
  // to the array and truncated, becomes a chain of selects (reads) or one per element (writes).
  void declare_array(const Symbol* s, int length);
  std::vector<ValueId> array_values(const Expr& e);  // an array variable's or `{...}`'s elements
  std::vector<ValueId> array_values_of(const Symbol* s);
  void assign_array(const Symbol* s, const std::vector<ValueId>& values, const Span& span);
  ValueId element_index(const Symbol* s, ValueId index, const Span& span, int* constant_index);
  ValueId read_element(const Symbol* s, ValueId index, const Span& span);
  void write_element(const Symbol* s, ValueId index, ValueId v, const Span& span);
  ValueId color_space(ValueId c, ValueId space, bool to_rgb, const Span& sp);
  ValueId color_space(ValueId c, const std::string& space, bool to_rgb, const Span& sp);
  void write_output(const Expr& arg, ValueId v, const Span& sp);
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
  std::set<const FunctionDecl*> inlining_;  // local functions being inlined (recursion guard)
  std::map<const Symbol*, std::vector<const void*>> arrays_;  // each array's element variables
  const LightInstance* current_light_ = nullptr;  // inside an illuminance body: the light it is visiting
  ValueId query(const CallExpr& c, const Signature& sig);

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
        // What a light sees of its own surface: a point light sits at the origin of its shader
        // space, which is the camera space here (light setups place lights by parameters), and
        // has no surface (RI 3.2 §15.2.2). The renderer-wide globals are constants (three colour
        // components, no shutter length or motion of P), except `time`, which the renderer
        // supplies: the time at which it shades (the shutter's opening; a sample's own under
        // exact shading).
        const bool light = kind_ == ShaderKind::Light;
        const bool light_surface = light && (g == Global::P || g == Global::N || g == Global::Ng || g == Global::dPdu ||
                                             g == Global::dPdv || g == Global::du || g == Global::dv);
        if (g == Global::Ci || g == Global::Cl || light_surface || g == Global::dtime || g == Global::dPdtime) {
          in.op = Op::Const;
          in.data.assign(static_cast<std::size_t>(std::max(1, component_count(t))), 0.0f);
        } else if (g == Global::Oi || g == Global::Ol || g == Global::alpha) {
          in.op = Op::Const;  // an untouched opacity is opaque
          in.data.assign(static_cast<std::size_t>(std::max(1, component_count(t))), 1.0f);
        } else if (g == Global::ncomps) {
          in.op = Op::Const;
          in.data = {3};
        } else {
          in.op = Op::Global;
          // A surface's Ps is its P; a light's Ns is the normal of the point it illuminates.
          Global read = !light && g == Global::Ps ? Global::P : g == Global::Ns ? Global::N : g;
          in.aux = static_cast<std::uint32_t>(read);
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
    case StmtKind::Function: return;  // inlined at each call
    case StmtKind::Gather:
      m_.fail(s.span, "needs-ray-tracing",
              "'gather' casts rays, which a fragment pipeline cannot do; a ray tracer runs it (the RPU traces rays with "
              "trace() and visibility(), not gather)");
    case StmtKind::Decl:
      if (static_cast<const DeclStmt&>(s).is_extern) return;  // names an existing variable
      for (const auto& v : static_cast<const DeclStmt&>(s).vars) {
        if (v.symbol->type.is_array()) {
          declare_array(v.symbol, v.symbol->type.array);
          if (v.init) assign_array(v.symbol, array_values(*v.init), v.span);
          else
            for (const void* k : arrays_.at(v.symbol)) write(k, undef(v.symbol->type.base));
          continue;
        }
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
    if (p.symbol->type.is_array()) {  // each element bound as "name[k]", else its default
      std::vector<ValueId> values = array_values(*p.default_value);
      for (std::size_t k = 0; k < values.size(); ++k) {
        auto bound = light.params.find(p.name + "[" + std::to_string(k) + "]");
        if (bound != light.params.end()) values[k] = constant(bound->second, p.span);
      }
      declare_array(p.symbol, static_cast<int>(values.size()));
      assign_array(p.symbol, values, p.span);
      continue;
    }
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
    const LightInstance* saved_light = current_light_;
    current_light_ = &light;
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
    current_light_ = saved_light;
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
      const auto& target = target_name(*a.target);
      BaseType t = target.symbol->type.base;
      if (target.symbol->type.is_array() && a.target->kind == ExprKind::Name) {  // a whole array
        assign_array(target.symbol, array_values(*a.value), e.span);
        return constant(0.0f);
      }
      ValueId index = kNoValue;
      if (a.target->kind == ExprKind::Index) index = expr(*static_cast<const IndexExpr&>(*a.target).index);
      ValueId v = expr(*a.value);
      if (a.op != AssignOp::Set) {
        static constexpr Op ops[] = {Op::Add, Op::Add, Op::Sub, Op::Mul, Op::Div};
        ValueId old = index != kNoValue ? read_element(target.symbol, index, a.target->span) : read(key(target.symbol));
        ValueId rhs = fn_.at(v).type == BaseType::Float && t != BaseType::Float ? convert(v, t, e.span) : v;
        v = emit(ops[static_cast<int>(a.op)], t, {old, rhs}, e.span);
      }
      v = convert(v, t, e.span);
      if (index != kNoValue) write_element(target.symbol, index, v, a.target->span);
      else write(key(target.symbol), v);
      return v;
    }
    case ExprKind::Index: {
      const auto& x = static_cast<const IndexExpr&>(e);
      return read_element(static_cast<const NameExpr&>(*x.base).symbol, expr(*x.index), e.span);
    }
    case ExprKind::ArrayLit: m_.fail(e.span, "internal", "an array's values reached lowering as a value");
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
      if (!c.space.empty() && c.to == BaseType::Color) v = color_space(v, c.space, true, e.span);
      if (!c.space.empty() && is_pointlike(c.to) && c.space != "current" && c.space != "camera") {
        Builtin id = c.to == BaseType::Point ? Builtin::Transform : c.to == BaseType::Vector ? Builtin::Vtransform : Builtin::Ntransform;
        v = builtin(id, c.to, {constant(Value::string(c.space), c.space_span), constant(Value::string("current")), v}, e.span);
      }
      return v;
    }
  }
  return undef(e.type.base);
}

ValueId FunctionLowering::channels(const CallExpr& c, BaseType type, const std::function<ValueId(std::uint32_t)>& lookup) {
  if (c.channel_index != CallExpr::kChannelChosenAtRun) return lookup(static_cast<std::uint32_t>(c.channel_index));
  // The channel rounded down; one the map does not have (below 0, past 3, or past 1 for a colour,
  // which reads three) is filled with 0, as renderers fill missing channels...
  const ValueId k = expr(*c.channel);
  ValueId fill = constant(Value::zero(type));
  // ... or with the "fill" option's value (RI 3.2 §15.7), after the fixed arguments.
  for (std::size_t i = signature(c.builtin).args.size(); i + 1 < c.args.size(); i += 2)
    if (c.args[i]->kind == ExprKind::String && static_cast<const StringExpr&>(*c.args[i]).value == "fill")
      fill = convert(expr(*c.args[i + 1]), type, c.args[i + 1]->span);
  auto below = [&](float n) { return emit(Op::Lt, BaseType::Bool, {k, constant(n)}, c.channel->span); };
  ValueId r = fill;
  for (int ch = lang::is_triple(type) ? 1 : 3; ch >= 0; --ch)
    r = emit(Op::Select, type, {below(static_cast<float>(ch + 1)), lookup(static_cast<std::uint32_t>(ch)), r}, c.span);
  return emit(Op::Select, type, {below(0), fill, r}, c.span);
}

ValueId FunctionLowering::call(const CallExpr& c) {
  // Local functions, and functions that take arrays (whose lengths each call decides), run inlined.
  if (c.function && inlined(*c.function)) return local_call(c);
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
  if (sig.id == Builtin::Spline && (c.args[0]->type.base == BaseType::String || c.args.back()->type.is_array())) return spline(c);
  if (sig.query && !sig.renderer_query) return query(c, sig);
  if (sig.id >= Builtin::Cellnoise && sig.id < Builtin::Deriv && !sig.renderer_query) return library(c, sig);
  const bool noise4 = sig.id == Builtin::Noise && sig.args.size() == 2 && sig.args[0] == ArgKind::Point;
  if (sig.id == Builtin::Texture || (sig.id == Builtin::Noise && !noise4)) {
    std::vector<ValueId> args;
    std::size_t first = 0;
    const std::size_t fixed = sig.args.size();  // optional "name", value pairs after these are hints
    if (sig.id == Builtin::Texture) {
      args.push_back(expr(*c.args[0]));
      first = 1;
      if (fixed == 1) {
        args.push_back(read(key(global_symbol(unit_, Global::s))));
        args.push_back(read(key(global_symbol(unit_, Global::t))));
      }
    } else {
      args.push_back(constant(Value::string("$noise"), c.span));
    }
    if (sig.id == Builtin::Texture && fixed == 9) {
      // texture(name, s1, t1, ..., s4, t4): the quadrilateral's centre (no area filtering).
      ValueId st[2];
      for (int k = 0; k < 2; ++k) {
        ValueId sum = expr(*c.args[1 + k]);
        for (int q = 1; q < 4; ++q) sum = emit(Op::Add, BaseType::Float, {sum, expr(*c.args[1 + k + 2 * q])}, c.span);
        st[k] = emit(Op::Mul, BaseType::Float, {sum, constant(0.25f)}, c.span);
      }
      args.push_back(st[0]);
      args.push_back(st[1]);
    } else {
      for (std::size_t i = first; i < fixed; ++i) args.push_back(expr(*c.args[i]));
    }
    return channels(c, type, [&](std::uint32_t k) { return emit(Op::Texture, type, args, c.span, k); });
  }
  if (noise4) return library(c, sig);
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

// A local function runs where it is called: its parameters are written with the arguments (an
// output parameter starts with its variable's value, RSL passing by reference), its body reads
// and writes the enclosing variables through the same SSA names, and the output parameters are
// copied back to the arguments at the end.
ValueId FunctionLowering::local_call(const CallExpr& c) {
  const FunctionDecl& f = *c.function;
  // All evaluated before any is bound: f(a, f(b, c)) binds twice. An array passes its elements.
  std::vector<ValueId> args;
  std::vector<std::vector<ValueId>> arrays(c.args.size());
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    if (f.params[i].type.is_array()) arrays[i] = array_values(*c.args[i]);
    else args.push_back(convert(expr(*c.args[i]), f.params[i].type.base, c.args[i]->span));
  }
  if (!inlining_.insert(&f).second)
    m_.fail(c.span, "recursion", "function '" + f.name + "' calls itself; RSL does not allow recursion");
  for (std::size_t i = 0, scalar = 0; i < c.args.size(); ++i) {
    const Symbol* p = f.params[i].symbol;
    if (f.params[i].type.is_array()) {
      declare_array(p, static_cast<int>(arrays[i].size()));
      assign_array(p, arrays[i], c.args[i]->span);
    } else {
      write(key(p), args[scalar++]);
    }
  }
  const void* saved_key = return_key_;
  BlockId saved_block = return_block_;
  bool saved_in_function = in_function_;
  auto saved_loops = std::move(loops_);
  loops_.clear();
  return_key_ = nullptr;
  if (f.return_type.base != BaseType::Void) {
    return_key_ = slot(f.return_type.base);
    declare(return_key_, f.return_type.base);
    write(return_key_, undef(f.return_type.base));
  }
  return_block_ = new_block();
  in_function_ = true;
  stmt(*f.body);
  br(return_block_);
  seal(return_block_);
  cur_ = return_block_;
  ValueId ret = return_key_ ? read(return_key_) : constant(Value::zero(BaseType::Float));
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (f.params[i].output) {
      const auto& n = static_cast<const NameExpr&>(*c.args[i]);
      if (f.params[i].type.is_array()) assign_array(n.symbol, array_values_of(f.params[i].symbol), c.span);
      else write(key(n.symbol), convert(read(key(f.params[i].symbol)), n.symbol->type.base, c.span));
    }
  return_key_ = saved_key;
  return_block_ = saved_block;
  in_function_ = saved_in_function;
  loops_ = std::move(saved_loops);
  inlining_.erase(&f);
  return ret;
}

// ---- arrays ----

void FunctionLowering::declare_array(const Symbol* s, int length) {
  std::vector<const void*> keys;
  for (int k = 0; k < length; ++k) {
    keys.push_back(slot(s->type.base));
    declare(keys.back(), s->type.base);
  }
  arrays_[s] = std::move(keys);  // a new instance each declaration (and each inlined call)
}

std::vector<ValueId> FunctionLowering::array_values(const Expr& e) {
  std::vector<ValueId> out;
  if (e.kind == ExprKind::ArrayLit) {
    for (const auto& el : static_cast<const ArrayLitExpr&>(e).elements) out.push_back(convert(expr(*el), e.type.base, el->span));
    return out;
  }
  const auto& n = static_cast<const NameExpr&>(e);
  if (!arrays_.count(n.symbol)) m_.fail(e.span, "internal", "array '" + n.name + "' has no elements in lowering");
  return array_values_of(n.symbol);
}

std::vector<ValueId> FunctionLowering::array_values_of(const Symbol* s) {
  std::vector<ValueId> out;
  for (const void* k : arrays_.at(s)) out.push_back(read(k));
  return out;
}

void FunctionLowering::assign_array(const Symbol* s, const std::vector<ValueId>& values, const Span& span) {
  const auto& keys = arrays_.at(s);
  for (std::size_t k = 0; k < keys.size(); ++k)
    write(keys[k], k < values.size() ? convert(values[k], s->type.base, span) : undef(s->type.base));
}

// The element an index selects: *constant_index when the index is known (reported if outside),
// else -1 and the clamped, truncated index as a float value.
ValueId FunctionLowering::element_index(const Symbol* s, ValueId index, const Span& span, int* constant_index) {
  const int n = static_cast<int>(arrays_.at(s).size());
  const Instr& in = fn_.at(index);
  if (in.op == Op::Const && !in.data.empty()) {
    const float k = std::floor(in.data[0]);
    if (!(k >= 0 && k < static_cast<float>(n)))
      m_.fail(span, "index-out-of-range",
               "index " + std::to_string(static_cast<long long>(k)) + " is outside '" + s->name + "', which has " + std::to_string(n) +
                   " element" + (n == 1 ? "" : "s"));
    *constant_index = static_cast<int>(k);
    return index;
  }
  *constant_index = -1;
  ValueId i = builtin(Builtin::Floor, BaseType::Float, {convert(index, BaseType::Float, span)}, span);
  return builtin(Builtin::Clamp, BaseType::Float, {i, constant(0.0f), constant(static_cast<float>(n - 1))}, span);
}

ValueId FunctionLowering::read_element(const Symbol* s, ValueId index, const Span& span) {
  const auto& keys = arrays_.at(s);
  int k = -1;
  ValueId i = element_index(s, index, span, &k);
  if (k >= 0) return read(keys[static_cast<std::size_t>(k)]);
  ValueId out = read(keys[0]);
  for (std::size_t e = 1; e < keys.size(); ++e) {
    ValueId is = emit(Op::Eq, BaseType::Bool, {i, constant(static_cast<float>(e))}, span);
    out = emit(Op::Select, s->type.base, {is, read(keys[e]), out}, span);
  }
  return out;
}

void FunctionLowering::write_element(const Symbol* s, ValueId index, ValueId v, const Span& span) {
  const auto& keys = arrays_.at(s);
  int k = -1;
  ValueId i = element_index(s, index, span, &k);
  if (k >= 0) {
    write(keys[static_cast<std::size_t>(k)], v);
    return;
  }
  for (std::size_t e = 0; e < keys.size(); ++e) {
    ValueId is = emit(Op::Eq, BaseType::Bool, {i, constant(static_cast<float>(e))}, span);
    write(keys[e], emit(Op::Select, s->type.base, {is, v, read(keys[e])}, span));
  }
}

// spline with a basis name or an array of knots. Catmull-Rom stays the library's spline; the
// other bases choose their segment's control points with selects and weight them by the basis
// polynomials (RI 3.2 §15.4: b-spline and Catmull-Rom step one knot, Hermite two, Bezier three;
// linear interpolates the knots between the first and the last, as Catmull-Rom does).
ValueId FunctionLowering::spline(const CallExpr& c) {
  const Span& sp = c.span;
  const BaseType type = c.type.base;
  std::size_t first = 0;
  std::string basis = "catmull-rom";
  if (c.args[0]->type.base == BaseType::String) {
    first = 1;
    if (c.args[0]->kind != ExprKind::String) m_.fail(c.args[0]->span, "basis-not-constant", "a spline's basis must be a string written in the shader");
    basis = static_cast<const StringExpr&>(*c.args[0]).value;
  }
  ValueId x = expr(*c.args[first]);
  std::vector<ValueId> knots;
  if (c.args.back()->type.is_array()) knots = array_values(*c.args.back());
  else
    for (std::size_t i = first + 1; i < c.args.size(); ++i) knots.push_back(convert(expr(*c.args[i]), type, c.args[i]->span));
  for (ValueId& k : knots) k = convert(k, type, sp);
  const int n = static_cast<int>(knots.size());
  if (basis == "catmull-rom" || basis == "catmullrom") {
    std::vector<ValueId> args{x};
    args.insert(args.end(), knots.begin(), knots.end());
    return builtin(Builtin::Spline, type, args, sp);
  }
  int step = 1, points = 4, offset = 0, segments = n - 3;
  if (basis == "linear") points = 2, offset = 1;
  else if (basis == "hermite") step = 2, segments = (n - 2) / 2;
  else if (basis == "bezier") step = 3, segments = (n - 1) / 3;
  if (segments < 1 || (basis == "bezier" && (n - 1) % 3 != 0) || (basis == "hermite" && n % 2 != 0))
    m_.fail(sp, "spline-knots",
            "a " + basis + " spline of " + std::to_string(n) + " knots has no whole segments" +
                (basis == "bezier" ? " (it takes 3k + 1 knots)" : basis == "hermite" ? " (it takes an even number)" : ""));
  auto f = [&](float v) { return constant(v); };
  auto fl = [&](Op o, ValueId a, ValueId b) { return emit(o, BaseType::Float, {a, b}, sp); };
  ValueId pos = fl(Op::Mul, builtin(Builtin::Clamp, BaseType::Float, {x, f(0), f(1)}, sp), f(static_cast<float>(segments)));
  ValueId seg = builtin(Builtin::Min, BaseType::Float, {builtin(Builtin::Floor, BaseType::Float, {pos}, sp), f(static_cast<float>(segments - 1))}, sp);
  ValueId u = fl(Op::Sub, pos, seg), u2 = fl(Op::Mul, u, u), u3 = fl(Op::Mul, u2, u), v = fl(Op::Sub, f(1), u);
  std::vector<ValueId> w;
  if (basis == "linear") {
    w = {v, u};
  } else if (basis == "hermite") {  // P0, T0, P1, T1
    w = {fl(Op::Add, fl(Op::Sub, fl(Op::Mul, f(2), u3), fl(Op::Mul, f(3), u2)), f(1)),
         fl(Op::Add, fl(Op::Sub, u3, fl(Op::Mul, f(2), u2)), u), fl(Op::Add, fl(Op::Mul, f(-2), u3), fl(Op::Mul, f(3), u2)),
         fl(Op::Sub, u3, u2)};
  } else if (basis == "bezier") {
    w = {fl(Op::Mul, fl(Op::Mul, v, v), v), fl(Op::Mul, f(3), fl(Op::Mul, u, fl(Op::Mul, v, v))),
         fl(Op::Mul, f(3), fl(Op::Mul, u2, v)), u3};
  } else {  // b-spline
    const float sixth = 1.0f / 6;
    w = {fl(Op::Mul, fl(Op::Mul, fl(Op::Mul, v, v), v), f(sixth)),
         fl(Op::Mul, fl(Op::Add, fl(Op::Sub, fl(Op::Mul, f(3), u3), fl(Op::Mul, f(6), u2)), f(4)), f(sixth)),
         fl(Op::Mul, fl(Op::Add, fl(Op::Add, fl(Op::Add, fl(Op::Mul, f(-3), u3), fl(Op::Mul, f(3), u2)), fl(Op::Mul, f(3), u)), f(1)), f(sixth)),
         fl(Op::Mul, u3, f(sixth))};
  }
  ValueId out = kNoValue;
  for (int j = 0; j < points; ++j) {
    ValueId cp = knots[static_cast<std::size_t>(offset + j)];
    for (int s = 1; s < segments; ++s) {
      ValueId is = emit(Op::Eq, BaseType::Bool, {seg, f(static_cast<float>(s))}, sp);
      cp = emit(Op::Select, type, {is, knots[static_cast<std::size_t>(s * step + offset + j)], cp}, sp);
    }
    ValueId term = emit(Op::Mul, type, {cp, convert(w[static_cast<std::size_t>(j)], type, sp)}, sp);
    out = out == kNoValue ? term : emit(Op::Add, type, {out, term}, sp);
  }
  return out;
}

// ---- the library functions lowered to the operations every evaluator already has ----

void FunctionLowering::write_output(const Expr& arg, ValueId v, const Span& sp) {
  const auto& n = static_cast<const NameExpr&>(arg);
  write(key(n.symbol), convert(v, n.symbol->type.base, sp));
}

ValueId FunctionLowering::library(const CallExpr& c, const Signature& sig) {
  const Span& sp = c.span;
  const BaseType type = c.type.base;
  auto arg = [&](std::size_t i) { return expr(*c.args[i]); };
  auto f = [&](float x) { return constant(x); };
  auto bin = [&](Op o, ValueId a, ValueId b) { return emit(o, fn_.at(a).type == BaseType::Float ? fn_.at(b).type : fn_.at(a).type, {a, b}, sp); };
  auto fl = [&](Op o, ValueId a, ValueId b) { return emit(o, BaseType::Float, {a, b}, sp); };
  auto call1 = [&](Builtin id, ValueId a) { return builtin(id, fn_.at(a).type, {a}, sp); };
  auto comp = [&](ValueId v, int i) { return builtin(Builtin::Comp, BaseType::Float, {v, f(static_cast<float>(i))}, sp); };
  auto sel = [&](ValueId cond, ValueId a, ValueId b) { return emit(Op::Select, fn_.at(a).type, {cond, a, b}, sp); };
  auto fract = [&](ValueId v) { return bin(Op::Sub, v, call1(Builtin::Floor, v)); };
  // shadow(name, P) and environment(name, R), or their area forms with four corners (RI 3.2
  // §15.7), read at the corners' centre like texture's (no area filtering).
  auto centre = [&](BaseType t) {
    ValueId sum = convert(arg(1), t, sp);
    if (sig.args.size() != 5) return sum;
    for (std::size_t i = 2; i < 5; ++i) sum = emit(Op::Add, t, {sum, convert(arg(i), t, sp)}, sp);
    return emit(Op::Mul, t, {sum, convert(f(0.25f), t, sp)}, sp);
  };
  auto lattice = [&](std::vector<ValueId> coords) {
    coords.insert(coords.begin(), constant(Value::string("$noise"), sp));
    return emit(Op::Texture, type, std::move(coords), sp);
  };
  // The fourth coordinate of 4D noise moves along a fixed irrational direction of the 3D lattice:
  // smooth in all four, though not independent along that diagonal (documented in the manual).
  auto fold4 = [&](ValueId p, ValueId w, float k) {
    ValueId dir = constant(Value::triple(BaseType::Point, 0.5773f * k, 0.6180f * k, 0.4142f * k));
    return bin(Op::Add, p, bin(Op::Mul, dir, convert(w, BaseType::Point, sp)));
  };
  switch (sig.id) {
    case Builtin::Noise:  // noise(point, float)
      return lattice({fold4(arg(0), arg(1), 1.0f)});
    case Builtin::Cellnoise: {
      // The noise lattice read at a cell's integer corner: one value in [0, 1) per unit cell.
      std::vector<ValueId> coords;
      if (sig.args[0] == ArgKind::Point) {
        ValueId p = call1(Builtin::Floor, arg(0));
        if (sig.args.size() == 2) p = bin(Op::Add, p, bin(Op::Mul, constant(Value::triple(BaseType::Point, 7, 13, 19)),
                                                         convert(call1(Builtin::Floor, arg(1)), BaseType::Point, sp)));
        coords.push_back(p);
      } else {
        for (std::size_t i = 0; i < c.args.size(); ++i) coords.push_back(call1(Builtin::Floor, arg(i)));
      }
      return lattice(coords);
    }
    case Builtin::Random: {
      if (c.uniform_random) {
        // One value for every point, a hash of the call's place in the file (a renderer gives one
        // per grid; Passlab shades the image as one): the same on every run and target.
        Value v = Value::zero(type);
        for (int k = 0; k < std::max(1, lang::component_count(type)); ++k) {
          std::uint64_t h = (static_cast<std::uint64_t>(c.span.offset) << 2 | static_cast<std::uint64_t>(k)) + 0x9E3779B97F4A7C15ull;
          h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
          h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
          h ^= h >> 31;
          v.f[static_cast<std::size_t>(k)] = static_cast<float>(h >> 40) * 0x1p-24f;  // [0, 1)
        }
        return constant(v, sp);
      }
      // A hash of the shading point, not a stream: the same fragment gets the same value on every
      // run and every target. Two lattice cells at incommensurate scales, summed modulo 1 (still
      // uniform), so the lattice's 32-cell period never shows; each call site its own offset.
      ValueId P = convert(read(key(global_symbol(unit_, Global::P))), BaseType::Point, sp);
      const float salt = static_cast<float>(c.span.offset % 997);
      ValueId a = lattice({call1(Builtin::Floor, bin(Op::Add, bin(Op::Mul, P, constant(Value::triple(BaseType::Point, 4099, 4099, 4099))),
                                                    constant(Value::triple(BaseType::Point, salt, 0, 0))))});
      ValueId b = lattice({call1(Builtin::Floor, bin(Op::Add, bin(Op::Mul, P, constant(Value::triple(BaseType::Point, 6451, 6451, 6451))),
                                                    constant(Value::triple(BaseType::Point, 0, salt, 0))))});
      return fract(bin(Op::Add, a, b));
    }
    case Builtin::Fresnel: {
      // RI 3.2 §15.6: Kr and Kt by the Fresnel equations for unpolarized light; eta is the ratio
      // of the indices (incident over transmitted); total internal reflection gives Kr = 1.
      ValueId I = call1(Builtin::Normalize, convert(arg(0), BaseType::Vector, sp));
      ValueId N = call1(Builtin::Normalize, convert(arg(1), BaseType::Vector, sp));
      ValueId eta = arg(2);
      ValueId ci = emit(Op::Neg, BaseType::Float, {emit(Op::Dot, BaseType::Float, {I, N}, sp)}, sp);
      ValueId k = fl(Op::Sub, f(1), fl(Op::Mul, fl(Op::Mul, eta, eta), fl(Op::Sub, f(1), fl(Op::Mul, ci, ci))));
      ValueId tir = emit(Op::Lt, BaseType::Bool, {k, f(0)}, sp);
      ValueId ct = builtin(Builtin::Sqrt, BaseType::Float, {builtin(Builtin::Max, BaseType::Float, {k, f(0)}, sp)}, sp);
      ValueId ec = fl(Op::Mul, eta, ci), et = fl(Op::Mul, eta, ct);
      ValueId rs = fl(Op::Div, fl(Op::Sub, ec, ct), fl(Op::Add, ec, ct));
      ValueId rp = fl(Op::Div, fl(Op::Sub, ci, et), fl(Op::Add, ci, et));
      ValueId kr = sel(tir, f(1), fl(Op::Mul, f(0.5f), fl(Op::Add, fl(Op::Mul, rs, rs), fl(Op::Mul, rp, rp))));
      write_output(*c.args[3], kr, sp);
      write_output(*c.args[4], fl(Op::Sub, f(1), kr), sp);
      if (c.args.size() >= 7) {
        write_output(*c.args[5], builtin(Builtin::Reflect, BaseType::Vector, {I, N}, sp), sp);
        write_output(*c.args[6], builtin(Builtin::Refract, BaseType::Vector, {I, N, eta}, sp), sp);
      }
      return f(0);
    }
    case Builtin::Shadow: {
      // A depth map: the point projected by the map's camera, which the light setup names as a
      // coordinate system of the map's name (x, y in [0, 1], z its depth), its depth read and
      // compared. 1 is in shadow. "bias" is honoured; blur, samples and width are hints.
      ValueId name = arg(0);
      ValueId q = builtin(Builtin::Transform, BaseType::Point, {name, centre(BaseType::Point)}, sp);
      ValueId bias = f(0);
      for (std::size_t i = sig.args.size(); i + 1 < c.args.size(); i += 2)
        if (c.args[i]->kind == ExprKind::String && static_cast<const StringExpr&>(*c.args[i]).value == "bias")
          bias = convert(arg(i + 1), BaseType::Float, sp);
      ValueId d = emit(Op::Texture, BaseType::Float, {name, comp(q, 0), comp(q, 1)}, sp);
      return sel(emit(Op::Gt, BaseType::Bool, {comp(q, 2), fl(Op::Add, d, bias)}, sp), f(1), f(0));
    }
    case Builtin::Environment: {
      // A latitude-longitude map: s around the y axis (s = 0.5 looks down -z), t from +y (0) to -y (1).
      ValueId R = call1(Builtin::Normalize, centre(BaseType::Vector));
      ValueId s_ = fl(Op::Add, f(0.5f), fl(Op::Mul, builtin(Builtin::Atan2, BaseType::Float, {comp(R, 0), emit(Op::Neg, BaseType::Float, {comp(R, 2)}, sp)}, sp),
                                           f(0.15915494f)));
      ValueId y = builtin(Builtin::Clamp, BaseType::Float, {comp(R, 1), f(-1), f(1)}, sp);
      ValueId t_ = fl(Op::Mul, builtin(Builtin::Acos, BaseType::Float, {y}, sp), f(0.31830989f));
      return channels(c, type, [&](std::uint32_t k) { return emit(Op::Texture, type, {arg(0), s_, t_}, sp, k); });
    }
    case Builtin::Depth: {
      // z in NDC space, which the light setup may define; by default the camera-space depth.
      ValueId q = builtin(Builtin::Transform, BaseType::Point, {constant(Value::string("NDC"), sp), convert(arg(0), BaseType::Point, sp)}, sp);
      return comp(q, 2);
    }
    case Builtin::Ctransform: {
      if (c.args.size() == 2) return color_space(arg(1), arg(0), false, sp);
      return color_space(color_space(arg(2), arg(0), true, sp), arg(1), false, sp);
    }
    case Builtin::Filterstep: {
      // Without screen-space derivatives the filter width is zero: a step; with an interval
      // [s1, s2], the box-filtered step over it.
      ValueId edge = arg(0), s1 = arg(1);
      ValueId step = builtin(Builtin::Step, BaseType::Float, {edge, s1}, sp);
      if (sig.args.size() == 2) return step;
      ValueId s2 = arg(2);
      ValueId ramp = builtin(Builtin::Clamp, BaseType::Float, {fl(Op::Div, fl(Op::Sub, s2, edge), fl(Op::Sub, s2, s1)), f(0), f(1)}, sp);
      return sel(emit(Op::Gt, BaseType::Bool, {s2, s1}, sp), ramp, step);
    }
    case Builtin::Pnoise: {
      // noise made periodic: along each axis, with c = mod(x, period) and w = c / period, the blend
      // (1 - w) noise(c) + w noise(c - period) repeats every period and stays continuous. One
      // lookup per corner of the 1-, 2- or 3-cube of shifts. A period of 0 is not periodic.
      std::vector<ValueId> x, per;
      if (sig.args[0] == ArgKind::Point) {
        ValueId p = arg(0), q = arg(1);
        for (int i = 0; i < 3; ++i) {
          x.push_back(comp(p, i));
          per.push_back(comp(q, i));
        }
      } else {
        const std::size_t d = c.args.size() / 2;
        for (std::size_t i = 0; i < d; ++i) x.push_back(arg(i));
        for (std::size_t i = 0; i < d; ++i) per.push_back(arg(d + i));
      }
      const std::size_t d = x.size();
      std::vector<ValueId> cc(d), w(d), periodic(d);
      for (std::size_t i = 0; i < d; ++i) {
        periodic[i] = emit(Op::Gt, BaseType::Bool, {builtin(Builtin::Abs, BaseType::Float, {per[i]}, sp), f(0)}, sp);
        ValueId safe = sel(periodic[i], per[i], f(1));
        cc[i] = sel(periodic[i], builtin(Builtin::Mod, BaseType::Float, {x[i], safe}, sp), x[i]);
        w[i] = sel(periodic[i], fl(Op::Div, cc[i], safe), f(0));
        per[i] = safe;
      }
      ValueId out = kNoValue;
      for (std::size_t corner = 0; corner < (std::size_t{1} << d); ++corner) {
        std::vector<ValueId> at;
        ValueId weight = f(1);
        for (std::size_t i = 0; i < d; ++i) {
          const bool shifted = (corner >> i) & 1;
          at.push_back(shifted ? fl(Op::Sub, cc[i], per[i]) : cc[i]);
          weight = fl(Op::Mul, weight, shifted ? w[i] : fl(Op::Sub, f(1), w[i]));
        }
        if (d == 3) at = {emit(Op::MakeTriple, BaseType::Point, at, sp)};
        ValueId term = bin(Op::Mul, lattice(at), convert(weight, type, sp));
        out = out == kNoValue ? term : bin(Op::Add, out, term);
      }
      return out;
    }
    case Builtin::Ptlined: {  // the distance from Q to the segment P0-P1
      ValueId p0 = arg(0), p1 = arg(1), q = arg(2);
      ValueId d = emit(Op::Sub, BaseType::Vector, {p1, p0}, sp), w = emit(Op::Sub, BaseType::Vector, {q, p0}, sp);
      ValueId dd = emit(Op::Dot, BaseType::Float, {d, d}, sp);
      ValueId t = sel(emit(Op::Gt, BaseType::Bool, {dd, f(0)}, sp), fl(Op::Div, emit(Op::Dot, BaseType::Float, {w, d}, sp), sel(emit(Op::Gt, BaseType::Bool, {dd, f(0)}, sp), dd, f(1))), f(0));
      t = builtin(Builtin::Clamp, BaseType::Float, {t, f(0), f(1)}, sp);
      ValueId nearest = emit(Op::Add, BaseType::Point, {p0, emit(Op::Mul, BaseType::Vector, {d, convert(t, BaseType::Vector, sp)}, sp)}, sp);
      return builtin(Builtin::Distance, BaseType::Float, {q, nearest}, sp);
    }
    case Builtin::RotatePoint: {  // Q turned by angle about the axis through P0 and P1 (Rodrigues)
      ValueId q = arg(0), angle = arg(1), p0 = arg(2), p1 = arg(3);
      ValueId a = call1(Builtin::Normalize, emit(Op::Sub, BaseType::Vector, {p1, p0}, sp));
      ValueId v = emit(Op::Sub, BaseType::Vector, {q, p0}, sp);
      ValueId cs = builtin(Builtin::Cos, BaseType::Float, {angle}, sp), sn = builtin(Builtin::Sin, BaseType::Float, {angle}, sp);
      auto scaled = [&](ValueId vec, ValueId k) { return emit(Op::Mul, BaseType::Vector, {vec, convert(k, BaseType::Vector, sp)}, sp); };
      ValueId turned = emit(Op::Add, BaseType::Vector,
                            {emit(Op::Add, BaseType::Vector, {scaled(v, cs), scaled(emit(Op::Cross, BaseType::Vector, {a, v}, sp), sn)}, sp),
                             scaled(a, fl(Op::Mul, emit(Op::Dot, BaseType::Float, {a, v}, sp), fl(Op::Sub, f(1), cs)))},
                            sp);
      return emit(Op::Add, BaseType::Point, {p0, turned}, sp);
    }
    case Builtin::Specularbrdf: {  // pow(max(0, N.H), 1/roughness): what specular() sums, per light
      ValueId H = call1(Builtin::Normalize, emit(Op::Add, BaseType::Vector, {call1(Builtin::Normalize, arg(0)), arg(2)}, sp));
      ValueId nh = builtin(Builtin::Max, BaseType::Float, {f(0), emit(Op::Dot, BaseType::Float, {convert(arg(1), BaseType::Vector, sp), H}, sp)}, sp);
      return convert(builtin(Builtin::Pow, BaseType::Float, {nh, fl(Op::Div, f(1), arg(3))}, sp), BaseType::Color, sp);
    }
    case Builtin::Determinant: return builtin(Builtin::Determinant, BaseType::Float, {arg(0)}, sp);
    case Builtin::MTranslate:
    case Builtin::MScale:
    case Builtin::MRotate: {
      // Postconcatenated (RI 3.2 §15.4): points go through m, then the new transformation
      // (row vectors, p' = p m T, like every matrix here).
      ValueId m = arg(0);
      std::vector<ValueId> e(16, f(0));
      for (int i = 0; i < 4; ++i) e[static_cast<std::size_t>(i * 5)] = f(1);
      if (sig.id == Builtin::MTranslate) {
        ValueId t = arg(1);
        for (int i = 0; i < 3; ++i) e[static_cast<std::size_t>(12 + i)] = comp(t, i);
      } else if (sig.id == Builtin::MScale) {
        ValueId k = arg(1);
        for (int i = 0; i < 3; ++i) e[static_cast<std::size_t>(i * 5)] = comp(k, i);
      } else {
        ValueId a = call1(Builtin::Normalize, arg(2));
        ValueId cs = builtin(Builtin::Cos, BaseType::Float, {arg(1)}, sp), sn = builtin(Builtin::Sin, BaseType::Float, {arg(1)}, sp);
        ValueId t = fl(Op::Sub, f(1), cs);
        ValueId x = comp(a, 0), y = comp(a, 1), z = comp(a, 2);
        auto tt = [&](ValueId p, ValueId q) { return fl(Op::Mul, t, fl(Op::Mul, p, q)); };
        auto s_ = [&](ValueId p) { return fl(Op::Mul, sn, p); };
        // The column-vector rotation, transposed for row vectors: R[i][j] = M[j][i].
        ValueId M[3][3] = {{fl(Op::Add, tt(x, x), cs), fl(Op::Sub, tt(x, y), s_(z)), fl(Op::Add, tt(x, z), s_(y))},
                           {fl(Op::Add, tt(x, y), s_(z)), fl(Op::Add, tt(y, y), cs), fl(Op::Sub, tt(y, z), s_(x))},
                           {fl(Op::Sub, tt(x, z), s_(y)), fl(Op::Add, tt(y, z), s_(x)), fl(Op::Add, tt(z, z), cs)}};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) e[static_cast<std::size_t>(i * 4 + j)] = M[j][i];
      }
      return emit(Op::MatMul, BaseType::Matrix, {m, emit(Op::MakeMatrix, BaseType::Matrix, e, sp)}, sp);
    }
    case Builtin::Printf: return f(0);  // a fragment has nowhere to print; the arguments have no effect
    case Builtin::Arraylength: {
      auto it = arrays_.find(static_cast<const NameExpr&>(*c.args[0]).symbol);
      if (it == arrays_.end()) break;
      return f(static_cast<float>(it->second.size()));
    }
    case Builtin::Format:
    case Builtin::Concat:
    case Builtin::Match: {
      std::vector<ValueId> args;
      for (std::size_t i = 0; i < c.args.size(); ++i) args.push_back(arg(i));
      return builtin(sig.id, type, args, sp);
    }
    default: break;
  }
  m_.fail(sp, "internal", std::string("no lowering for '") + to_string(sig.id) + "'");
}

// Message passing (RI 3.2 §15.9). Lights are inlined where they are used, so what they pass is
// known: lightsource() in an illuminance body reads the visited light's parameter as the light
// computed it; surface() in a light reads the surface's parameter. Passlab runs no displacement or
// atmosphere shader beside a surface and defines no attributes or options: those report "not
// found" (0) and leave the variable alone, as renderers do for names they do not know.
ValueId FunctionLowering::query(const CallExpr& c, const Signature& sig) {
  const Span& sp = c.span;
  const auto& var = static_cast<const NameExpr&>(*c.args.back());
  const Symbol* target = var.symbol;
  auto found = [&](ValueId v) {
    if (target->type.is_array() || !is_assignable(target->type.base, fn_.at(v).type)) return constant(0.0f);
    write(key(target), convert(v, target->type.base, sp));
    return constant(1.0f);
  };
  if (c.args[0]->kind != ExprKind::String) return constant(0.0f);  // a name known only when running: none found
  const std::string& name = static_cast<const StringExpr&>(*c.args[0]).value;
  auto param_of = [&](const ShaderDecl* shader) -> const Symbol* {
    if (!shader) return nullptr;
    for (const Param& p : shader->params)
      if (p.name == name && !p.symbol->type.is_array()) return p.symbol;
    return nullptr;
  };
  switch (sig.id) {
    case Builtin::Lightsource:
      if (current_light_)
        if (const Symbol* p = param_of(current_light_->shader)) return found(read(key(p)));
      return constant(0.0f);
    case Builtin::SurfaceParam:
      if (light_unit_)
        if (const Symbol* p = param_of(unit_.shader())) return found(read(key(p)));
      return constant(0.0f);
    case Builtin::Rendererinfo:
      if (name == "renderer") return found(constant(Value::string("Passlab"), sp));
      return constant(0.0f);
    default: return constant(0.0f);
  }
}

// Colour spaces (RI 3.2 §15.3's ctransform and `color "space" (...)`): hsv, hsl, xyz (CIE XYZ,
// linear sRGB primaries, D65), xyY and YIQ, to or from rgb. A space named by a constant lowers
// to its own arithmetic; one that is known only at binding (a string parameter) lowers to every
// conversion under a select chain, which binding folds to one.
ValueId FunctionLowering::color_space(ValueId c, ValueId space, bool to_rgb, const Span& sp) {
  const Instr& in = fn_.at(space);
  if (in.op == Op::Const) {
    if (!is_color_space(in.text))
      m_.fail(sp, "unknown-color-space", "unknown color space \"" + in.text + "\"; Passlab knows rgb, hsv, hsl, xyz, xyY and YIQ");
    return color_space(c, in.text, to_rgb, sp);
  }
  ValueId out = c;  // rgb, and any name binding does not know (reported there)
  for (const char* name : {"hsv", "hsl", "xyz", "xyY", "YIQ"}) {
    ValueId is = emit(Op::Eq, BaseType::Bool, {space, constant(Value::string(name), sp)}, sp);
    out = emit(Op::Select, BaseType::Color, {is, color_space(c, name, to_rgb, sp), out}, sp);
  }
  return out;
}

ValueId FunctionLowering::color_space(ValueId c, const std::string& name, bool to_rgb, const Span& sp) {
  const std::string space = canonical_color_space(name);
  auto f = [&](float x) { return constant(x); };
  auto fl = [&](Op o, ValueId a, ValueId b) { return emit(o, BaseType::Float, {a, b}, sp); };
  auto comp = [&](ValueId v, int i) { return builtin(Builtin::Comp, BaseType::Float, {v, f(static_cast<float>(i))}, sp); };
  auto rgb = [&](ValueId r, ValueId g, ValueId b) { return emit(Op::MakeTriple, BaseType::Color, {r, g, b}, sp); };
  auto linear = [&](const float (&m)[9]) {
    ValueId v[3];
    for (int row = 0; row < 3; ++row) {
      ValueId acc = fl(Op::Mul, comp(c, 0), f(m[row * 3]));
      for (int k = 1; k < 3; ++k) acc = fl(Op::Add, acc, fl(Op::Mul, comp(c, k), f(m[row * 3 + k])));
      v[row] = acc;
    }
    return rgb(v[0], v[1], v[2]);
  };
  auto sel = [&](ValueId cond, ValueId a, ValueId b) { return emit(Op::Select, fn_.at(a).type, {cond, a, b}, sp); };
  auto mx3 = [&](ValueId a, ValueId b, ValueId d) {
    return builtin(Builtin::Max, BaseType::Float, {builtin(Builtin::Max, BaseType::Float, {a, b}, sp), d}, sp);
  };
  auto mn3 = [&](ValueId a, ValueId b, ValueId d) {
    return builtin(Builtin::Min, BaseType::Float, {builtin(Builtin::Min, BaseType::Float, {a, b}, sp), d}, sp);
  };
  // The hue of an rgb colour in [0, 1), with its largest and smallest components.
  auto hue = [&](ValueId r, ValueId g, ValueId b, ValueId hi, ValueId d) {
    ValueId safe = sel(emit(Op::Gt, BaseType::Bool, {d, f(0)}, sp), d, f(1));
    ValueId hr = builtin(Builtin::Mod, BaseType::Float, {fl(Op::Div, fl(Op::Sub, g, b), safe), f(6)}, sp);
    ValueId hg = fl(Op::Add, fl(Op::Div, fl(Op::Sub, b, r), safe), f(2));
    ValueId hb = fl(Op::Add, fl(Op::Div, fl(Op::Sub, r, g), safe), f(4));
    ValueId h = sel(emit(Op::Eq, BaseType::Bool, {hi, r}, sp), hr, sel(emit(Op::Eq, BaseType::Bool, {hi, g}, sp), hg, hb));
    return sel(emit(Op::Gt, BaseType::Bool, {d, f(0)}, sp), fl(Op::Div, h, f(6)), f(0));
  };
  if (space == "rgb") return c;
  if (space == "xyz") {
    static constexpr float from[9] = {3.2406f, -1.5372f, -0.4986f, -0.9689f, 1.8758f, 0.0415f, 0.0557f, -0.2040f, 1.0570f};
    static constexpr float to[9] = {0.4124f, 0.3576f, 0.1805f, 0.2126f, 0.7152f, 0.0722f, 0.0193f, 0.1192f, 0.9505f};
    return linear(to_rgb ? from : to);
  }
  if (space == "YIQ") {
    static constexpr float from[9] = {1, 0.956f, 0.621f, 1, -0.272f, -0.647f, 1, -1.106f, 1.703f};
    static constexpr float to[9] = {0.299f, 0.587f, 0.114f, 0.596f, -0.274f, -0.322f, 0.211f, -0.523f, 0.312f};
    return linear(to_rgb ? from : to);
  }
  if (space == "xyY") {
    if (to_rgb) {  // (x, y, Y) -> XYZ -> rgb
      ValueId x = comp(c, 0), y = comp(c, 1), Y = comp(c, 2);
      ValueId k = sel(emit(Op::Ne, BaseType::Bool, {y, f(0)}, sp), fl(Op::Div, Y, y), f(0));
      ValueId X = fl(Op::Mul, x, k), Z = fl(Op::Mul, fl(Op::Sub, fl(Op::Sub, f(1), x), y), k);
      return color_space(rgb(X, Y, Z), "xyz", true, sp);
    }
    ValueId xyz = color_space(c, "xyz", false, sp);
    ValueId X = comp(xyz, 0), Y = comp(xyz, 1), Z = comp(xyz, 2);
    ValueId sum = fl(Op::Add, fl(Op::Add, X, Y), Z);
    ValueId nz = emit(Op::Ne, BaseType::Bool, {sum, f(0)}, sp);
    return rgb(sel(nz, fl(Op::Div, X, sum), f(0)), sel(nz, fl(Op::Div, Y, sum), f(0)), Y);
  }
  // hsv and hsl, hue in [0, 1).
  if (to_rgb) {
    ValueId h = comp(c, 0), s_ = comp(c, 1), v = comp(c, 2);
    ValueId ch[3];
    static constexpr float hsv_n[3] = {5, 3, 1}, hsl_n[3] = {0, 8, 4};
    for (int i = 0; i < 3; ++i) {
      if (space == "hsv") {  // v - v s max(0, min(k, 4 - k, 1)), k = (n + 6h) mod 6
        ValueId k = builtin(Builtin::Mod, BaseType::Float, {fl(Op::Add, f(hsv_n[i]), fl(Op::Mul, h, f(6))), f(6)}, sp);
        ValueId m = builtin(Builtin::Max, BaseType::Float, {f(0), mn3(k, fl(Op::Sub, f(4), k), f(1))}, sp);
        ch[i] = fl(Op::Sub, v, fl(Op::Mul, fl(Op::Mul, v, s_), m));
      } else {  // l - a max(-1, min(k - 3, 9 - k, 1)), k = (n + 12h) mod 12, a = s min(l, 1 - l)
        ValueId k = builtin(Builtin::Mod, BaseType::Float, {fl(Op::Add, f(hsl_n[i]), fl(Op::Mul, h, f(12))), f(12)}, sp);
        ValueId a = fl(Op::Mul, s_, builtin(Builtin::Min, BaseType::Float, {v, fl(Op::Sub, f(1), v)}, sp));
        ValueId m = builtin(Builtin::Max, BaseType::Float, {f(-1), mn3(fl(Op::Sub, k, f(3)), fl(Op::Sub, f(9), k), f(1))}, sp);
        ch[i] = fl(Op::Sub, v, fl(Op::Mul, a, m));
      }
    }
    return rgb(ch[0], ch[1], ch[2]);
  }
  ValueId r = comp(c, 0), g = comp(c, 1), b = comp(c, 2);
  ValueId hi = mx3(r, g, b), lo = mn3(r, g, b), d = fl(Op::Sub, hi, lo);
  ValueId h = hue(r, g, b, hi, d);
  if (space == "hsv") {
    ValueId s_ = sel(emit(Op::Gt, BaseType::Bool, {hi, f(0)}, sp), fl(Op::Div, d, sel(emit(Op::Gt, BaseType::Bool, {hi, f(0)}, sp), hi, f(1))), f(0));
    return rgb(h, s_, hi);
  }
  ValueId l = fl(Op::Mul, fl(Op::Add, hi, lo), f(0.5f));
  ValueId den = fl(Op::Sub, f(1), builtin(Builtin::Abs, BaseType::Float, {fl(Op::Sub, fl(Op::Mul, l, f(2)), f(1))}, sp));
  ValueId ok = emit(Op::Gt, BaseType::Bool, {den, f(0)}, sp);
  ValueId s_ = sel(ok, fl(Op::Div, d, sel(ok, den, f(1))), f(0));
  return rgb(h, s_, l);
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
    auto param = [&](const std::string& name, ValueId def) {
      Instr in;
      in.op = Op::ShaderParam;
      in.type = p.type.base;
      in.aux = static_cast<std::uint32_t>(i);
      in.text = name;
      in.args = {fl.convert(def, p.type.base, p.span)};
      in.span = p.span;
      return fn.append(fl.cur_, std::move(in));
    };
    if (p.symbol->type.is_array()) {  // one parameter per element, named "knots[2]" for binding
      std::vector<ValueId> defs = fl.array_values(*p.default_value);
      for (std::size_t k = 0; k < defs.size(); ++k) defs[k] = param(p.name + "[" + std::to_string(k) + "]", defs[k]);
      fl.declare_array(p.symbol, static_cast<int>(defs.size()));
      fl.assign_array(p.symbol, defs, p.span);
      continue;
    }
    fl.write(fl.key(p.symbol), param(p.name, fl.expr(*p.default_value)));
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
  for (const Param& p : shader.params) {
    if (!p.output) continue;
    if (p.symbol->type.is_array()) {
      std::vector<ValueId> elements = fl.array_values_of(p.symbol);
      for (std::size_t k = 0; k < elements.size(); ++k) {
        results.push_back(elements[k]);
        fn.result_types.push_back(p.type.base);
        fn.result_names.push_back(p.name + "[" + std::to_string(k) + "]");
      }
      continue;
    }
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
      for (const auto& f : unit_.functions)
        if (!inlined(*f)) function_index(f.get());  // the others run inlined at each call
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
