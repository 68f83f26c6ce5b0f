// SPDX-License-Identifier: GPL-3.0-or-later
// Lowering: a checked RSL syntax tree, bound to its lights, to SSA IR.
#include "core/ir/lower.h"

#include "core/ir/lower_internal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace passlab::ir {

namespace lowering {

static bool takes_arrays(const FunctionDecl& f) {
  return std::any_of(f.params.begin(), f.params.end(), [](const Param& p) { return p.type.is_array(); });
}

bool inlined(const FunctionDecl& f) { return f.local || takes_arrays(f) || !f.writes_globals.empty(); }

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
        const std::vector<ValueId> values = array_values(*a.value);
        assign_array(target.symbol, values, e.span);
        if (auto length = lengths_.find(target.symbol); length != lengths_.end()) {  // a resizable one takes the value's length
          const Symbol* from = a.value->kind == ExprKind::Name ? static_cast<const NameExpr&>(*a.value).symbol : nullptr;
          write(length->second, from && lengths_.count(from) ? read(lengths_.at(from)) : constant(static_cast<float>(values.size())));
        }
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
      // A resizable array passes its length too, which arraylength() in the function reads.
      const Symbol* a = c.args[i]->kind == ExprKind::Name ? static_cast<const NameExpr&>(*c.args[i]).symbol : nullptr;
      if (a && lengths_.count(a)) {
        const void* length_key = slot(BaseType::Float);
        declare(length_key, BaseType::Float);
        write(length_key, read(lengths_.at(a)));
        lengths_[p] = length_key;
      } else {
        lengths_.erase(p);
      }
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
  if (s->resizable) {            // empty to begin with
    const void* length_key = slot(BaseType::Float);
    declare(length_key, BaseType::Float);
    write(length_key, constant(0.0f));
    lengths_[s] = length_key;
  }
}

// push(a, v) stores v at a[arraylength(a)] and lengthens a by one; pop(a) shortens it by one and
// returns the element it dropped; resize(a, n) sets the length (elements past the old length
// keep what they held, as the renderers leave them undefined). The length stays within the
// array's storage (Type::kResizableCapacity): a push on a full array replaces its last element,
// and one the compiler can count is reported.
ValueId FunctionLowering::resize_array(const CallExpr& c, Builtin id) {
  const Symbol* s = static_cast<const NameExpr&>(*c.args[0]).symbol;
  const void* length_key = lengths_.at(s);
  const float capacity = static_cast<float>(arrays_.at(s).size());
  const Span& sp = c.span;
  const ValueId length = read(length_key);
  // A length known here (the usual case: pushes outside varying branches) stays a constant, so
  // the elements are written directly and a push past the storage is reported.
  const std::optional<float> known = known_float(length);
  switch (id) {
    case Builtin::Push: {
      const ValueId v = convert(expr(*c.args[1]), s->type.base, c.args[1]->span);
      if (known && *known >= capacity)
        m_.fail(sp, "index-out-of-range",
                "'" + s->name + "' is full: a resizable array holds at most " + std::to_string(static_cast<int>(capacity)) + " elements");
      write_element(s, length, v, sp);
      write(length_key, known ? constant(std::min(*known + 1, capacity))
                              : builtin(Builtin::Min, BaseType::Float, {emit(Op::Add, BaseType::Float, {length, constant(1.0f)}, sp), constant(capacity)}, sp));
      return constant(0.0f);
    }
    case Builtin::Pop: {
      const ValueId shorter = known ? constant(std::max(*known - 1, 0.0f))
                                    : builtin(Builtin::Max, BaseType::Float, {emit(Op::Sub, BaseType::Float, {length, constant(1.0f)}, sp), constant(0.0f)}, sp);
      write(length_key, shorter);
      return read_element(s, shorter, sp);
    }
    default: {
      const ValueId n = convert(expr(*c.args[1]), BaseType::Float, sp);
      if (const std::optional<float> to = known_float(n)) {
        if (!(*to >= 0 && *to <= capacity))
          m_.fail(sp, "index-out-of-range",
                  "resize to " + std::to_string(static_cast<long long>(*to)) + " elements: a resizable array holds 0 to " +
                      std::to_string(static_cast<int>(capacity)));
        write(length_key, constant(std::floor(*to)));
      } else {
        write(length_key, builtin(Builtin::Clamp, BaseType::Float, {builtin(Builtin::Floor, BaseType::Float, {n}, sp), constant(0.0f), constant(capacity)}, sp));
      }
      return constant(0.0f);
    }
  }
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
  if (const std::optional<float> known = known_float(index)) {
    const float k = std::floor(*known);
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

}  // namespace lowering

std::optional<Module> lower(const lang::TranslationUnit& unit, const Binding& binding, lang::DiagnosticSink& sink) {
  return lowering::ModuleLowering(unit, binding, sink).run(false);
}

std::optional<Module> lower_program(const lang::TranslationUnit& unit, const Binding& binding, lang::DiagnosticSink& sink) {
  return lowering::ModuleLowering(unit, binding, sink).run(true);
}

}  // namespace passlab::ir
