// SPDX-License-Identifier: GPL-3.0-or-later
// Lowering's lights: illuminance loops and the light functions (diffuse, specular, ambient, ...)
// expanded over the bound lights, each light shader's body inlined at the loop.

#include "core/ir/lower_internal.h"

#include <algorithm>
#include <cctype>

namespace passlab::ir::lowering {

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

FunctionLowering::LightSample FunctionLowering::light_sample(const LightInstance& light, ValueId position, const Span& span) {
  if (!m_.binding_.lights_as_functions || !light.runtime_params.empty()) return inline_light(light, position);
  const std::uint32_t index = m_.light_function(light);
  const Function& callee = m_.module_.functions[index];
  std::vector<ValueId> args{position};
  for (std::size_t k = 0; k < callee.light_globals.size(); ++k) {
    // What the light's body reads of the surface's globals is what the surface received, as
    // when the body is inlined (the light's own symbols start from the incoming values).
    Instr in;
    in.op = Op::Global;
    in.type = callee.arg_types[k + 1];
    in.aux = static_cast<std::uint32_t>(callee.light_globals[k]);
    in.span = span;
    args.push_back(fn_.insert_front(0, std::move(in)));
  }
  ValueId call = emit(Op::Call, kTuple, args, span, index);
  return {emit(Op::Extract, BaseType::Vector, {call}, span, 1), emit(Op::Extract, BaseType::Color, {call}, span, 0),
          emit(Op::Extract, BaseType::Bool, {call}, span, 2)};
}

std::uint32_t ModuleLowering::light_function(const LightInstance& light) {
  auto it = light_functions_.find(&light);
  if (it != light_functions_.end()) return it->second;
  auto index = static_cast<std::uint32_t>(module_.functions.size());
  light_functions_[&light] = index;
  module_.functions.emplace_back();
  Function fn;
  std::string name = "light_";
  for (char c : light.label) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  fn.name = name;
  fn.light = light.label;
  fn.arg_types = {BaseType::Point};
  fn.arg_names = {"Ps"};
  fn.result_types = {BaseType::Color, BaseType::Vector, BaseType::Bool};
  fn.result_names = {"Cl", "L", "lit"};
  FunctionLowering fl(*this, fn, unit_);
  fl.in_function_ = true;
  Instr ps;
  ps.op = Op::Arg;
  ps.type = BaseType::Point;
  ps.span = light.shader->span;
  const ValueId position = fn.append(0, std::move(ps));
  FunctionLowering::LightSample sample = fl.inline_light(light, position);
  fl.emit(Op::Ret, BaseType::Void, {sample.Cl, sample.L, sample.active}, light.shader->span);
  // The globals the body read (incoming values, all at the entry) become arguments after Ps.
  std::map<std::uint32_t, std::uint32_t> arg_of;
  for (Instr& in : fn.values) {
    if (in.removed || in.op != Op::Global) continue;
    auto [slot, fresh] = arg_of.try_emplace(in.aux, static_cast<std::uint32_t>(fn.arg_types.size()));
    if (fresh) {
      fn.light_globals.push_back(static_cast<Global>(in.aux));
      fn.arg_types.push_back(in.type);
      fn.arg_names.push_back(to_string(static_cast<Global>(in.aux)));
    }
    in.op = Op::Arg;
    in.aux = slot->second;
  }
  module_.functions[index] = std::move(fn);
  return index;
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
    LightSample sample = light_sample(light, position, s.span);
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
    LightSample sample = light_sample(light, P, sp);
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

}  // namespace passlab::ir::lowering
