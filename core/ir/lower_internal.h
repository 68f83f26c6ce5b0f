// SPDX-License-Identifier: GPL-3.0-or-later
// Inside lowering (core/ir/lower.h): the per-function SSA builder and the module driver, shared by
// lower.cpp (statements, expressions, arrays, the module), lower_library.cpp (the library functions
// lowered to operations every evaluator has) and lower_lights.cpp (light loops and light shaders
// inlined into surfaces). Not part of the IR's interface.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/ir/lower.h"
#include "core/lang/sema.h"

namespace passlab::ir::lowering {

using namespace lang;  // the syntax tree's names, throughout the three lowering files


struct LowerError {};  // a diagnostic has been reported; abandon this module

// Synthetic variables (not RSL symbols) are keyed by the address of one of these.
struct Slot {
  BaseType type;
};

class ModuleLowering;

// A light parameter's value as a host constant: the light setup's, else a literal default
// (lower_lights.cpp).
std::optional<Value> light_param(const LightInstance& light, const std::string& name);
// Whether a light matches an illuminance category list (lower_lights.cpp).
bool category_matches(const std::string& wanted, const LightInstance& light);
// Functions that take arrays (whose lengths each call decides) and functions that assign the
// shader's globals run inlined where they are called (lower.cpp).
bool inlined(const FunctionDecl& f);


struct LibraryCall;

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
  // The library's families (lower_library.cpp): noise, map lookups and colour spaces, geometry,
  // matrices.
  ValueId lower_noise(LibraryCall& lc);
  ValueId lower_lookups(LibraryCall& lc);
  ValueId lower_geometry(LibraryCall& lc);
  ValueId lower_matrix(LibraryCall& lc);
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
  // A value lowering already knows: a float constant's, else none.
  std::optional<float> known_float(ValueId v) const {
    const Instr& in = fn_.at(v);
    return in.op == Op::Const && !in.data.empty() ? std::optional<float>(in.data[0]) : std::nullopt;
  }
  // A resizable array's length (its elements are its capacity): push, pop and resize.
  ValueId resize_array(const CallExpr& c, Builtin id);
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
  // The light at `position`: its body inlined, or, with Binding::lights_as_functions, a call of
  // the function it was compiled to (ModuleLowering::light_function).
  LightSample light_sample(const LightInstance& light, ValueId position, const Span& span);

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
  std::map<const Symbol*, const void*> lengths_;  // a resizable array's length variable (a float)
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
  // Index of the function a light was compiled to (Binding::lights_as_functions), lowering it
  // on first use: its body with Ps as the argument and the globals it reads after it.
  std::uint32_t light_function(const LightInstance& light);

  [[noreturn]] void fail(const Span& span, const std::string& code, const std::string& msg) {
    sink_.error(code, span, msg);
    throw LowerError{};
  }

  const TranslationUnit& unit_;
  const Binding& binding_;
  DiagnosticSink& sink_;
  Module module_;
  std::map<const FunctionDecl*, std::uint32_t> lowered_;
  std::map<const LightInstance*, std::uint32_t> light_functions_;
};

}  // namespace passlab::ir::lowering
