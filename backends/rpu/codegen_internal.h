// SPDX-License-Identifier: GPL-3.0-or-later
// The per-function code generator, shared by codegen.cpp (values, control flow, calls, the
// surface entry) and builtins.cpp (the standard library, late-inlined).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/rpu/codegen.h"

namespace passlab::rpu::detail {

struct CodegenError {};  // a diagnostic has been reported; give up on this function

inline Source negated(Source s) {
  s.negate = !s.negate;
  return s;
}

// An operand read through another swizzle first.
inline Source swizzled(const Source& s, Swizzle sw) {
  Source r = s;
  r.swizzle = sw.then(s.swizzle);
  return r;
}

// One lane of a virtual register as a destination.
inline Dest lane_dest(Loc r, int lane) { return Dest{Bank::Virtual, r, static_cast<std::uint8_t>(1u << lane)}; }

class FunctionCodegen {
 public:
  FunctionCodegen(const ir::Module& m, std::size_t module_index, std::size_t index, const Linkage& links, StringTable& strings,
                  ConstantPool& constants, std::set<std::string>& runtime_used, lang::DiagnosticSink& sink);
  std::optional<AsmFunction> run();

  // ---- emission (used by the standard library) ----
  Loc temp(RegClass cls, const char* name = "t");
  void emit(Opcode op, const Dest& d, const Source& a, const Source& b = {}, const Source& c = {}, SpecialFn special = SpecialFn::None);
  // Marks the instruction just emitted as rounding as written (AsmInstr::exact).
  void exact() { f_.blocks[cur_].body.back().exact = true; }
  void mov(const Dest& d, const Source& s) { emit(Opcode::Mov, d, s); }
  // load I<into>, address, offset.
  void load(std::uint32_t into, const Source& address, std::int32_t offset);
  // 1/x or 1/sqrt(x) of `x`'s first lane into the next S lane; returns that lane as an operand.
  Source special(SpecialFn fn, const Source& x);
  std::uint32_t new_block();
  void jump(std::uint32_t target);
  void branch(Operation test, const Condition& cond, std::uint32_t taken, std::uint32_t other);
  // Branches on x - y: to `taken` when (x - y) passes `rel` against 0 (lanes in `mask`).
  // With `any`, when some lane in `mask` passes, else when all of them do.
  void compare_branch(const Source& x, const Source& y, std::uint8_t mask, Relation rel, std::uint32_t taken, std::uint32_t other,
                      bool any = false);
  void set_block(std::uint32_t b) { cur_ = b; }
  std::uint32_t block() const { return cur_; }
  const AsmFunction& function() const { return f_; }
  [[noreturn]] void fail(const lang::Span& at, const std::string& message, const char* code = "rpu-unsupported");

  // Calls another function (by label) with the thesis's argument registers; returns the results
  // as fresh virtual registers (one per result type).
  std::vector<Source> call(const std::string& label, const std::string& callee, const std::vector<std::pair<Source, RegClass>>& args,
                           const std::vector<RegClass>& results, const lang::Span& at);
  Source call_runtime(const std::string& name, const std::vector<Source>& float_args, const lang::Span& at);

 private:
  // ---- values ----
  Source use(ir::ValueId v);
  Loc def(ir::ValueId v, const char* name = nullptr);  // a fresh register for v's result
  RegClass cls_of(ir::ValueId v);
  Source constant(const ir::Instr& in);
  Source materialize(ir::ValueId v);  // a bool as 0/1 in a scalar register
  void branch_on(ir::ValueId cond, std::uint32_t taken, std::uint32_t other);
  // `&&` (or `||`) of one comparison per lane of the same triples, such as xcomp(v) >= 0 &&
  // ycomp(v) >= 0 && zcomp(v) >= 0: one test of those lanes joined by and (or) instead of a branch
  // each. False when `cond` is not of that shape.
  bool lane_test(ir::ValueId cond, std::uint32_t taken, std::uint32_t other);

  // ---- instructions ----
  void instruction(ir::ValueId v);
  void make_triple(ir::ValueId v, const ir::Instr& in);
  void call_function(ir::ValueId v, const ir::Instr& in);
  void terminator(ir::BlockId b, ir::ValueId v);
  std::uint32_t edge(ir::BlockId from, ir::BlockId to, bool own_block);
  void parallel_copy(std::vector<std::pair<Loc, Source>> copies);
  Source builtin(const ir::Instr& in);  // builtins.cpp
  struct BuiltinCall;
  Source builtin_math(BuiltinCall& bc);
  Source builtin_geometry(BuiltinCall& bc);
  Source transform(BuiltinCall& bc);  // transform, vtransform, ntransform by a named space
  Source spline(BuiltinCall& bc);     // Catmull-Rom
  void segment_cubic(BuiltinCall& bc, int segment, const Source& pos, Loc result);
  Source trace(const Source& origin, const Source& dir, const lang::Span& at);
  Source visibility(const Source& p1, const Source& p2);
  Source lookup_coordinates(const ir::Instr& in);  // noise.cpp: a texture lookup's, as one vector
  // noise.cpp: the four corners of a lattice cell or texel square as the A register reads them,
  // (x0, y0), (x1, y0), (x0, y1) in .xyz and (x1, y1) in .w: their indices y stride + x from the
  // corner indices i0 (x0, y0) and i1 (x1, y1), and their bilinear weights from the fractions f.
  struct Corners {
    Source at, at3, w, w3;
  };
  Corners cell_corners(const Source& i0, const Source& i1, const Source& f, float stride, const std::string& label);
  // A = (at, at3), then load I0-I3 from A0-A3 + offset.
  void load_corners(const Source& at, const Source& at3, std::int32_t offset);
  Source noise(ir::ValueId v);  // noise.cpp: a lookup of the noise lattice in data memory
  // derivatives.cpp: Du, Dv, Deriv, area, calculatenormal across the pixel quad.
  bool takes_derivatives() const;
  void derivative_prologue();  // the differences of u and v, at a shader's entry
  Source derivative(const ir::Instr& in);
  Source partial(bool along_u, const Source& x, RegClass cls);
  Source pixel_step(bool along_u);  // du or dv
  // builtins.cpp: |x| lane by lane, one branch around a negation per lane (abs, du, dv).
  Source absolute(const Source& x, RegClass cls);
  Source texture(ir::ValueId v);  // texture.cpp: a scene's image in data memory, or a stand-in
  struct Texels {
    Source rgb, alpha;
  };
  Source texture_named(const ir::Instr& in, ir::ValueId name, const Source& st, bool top);
  Source texture_image(const ir::Instr& in, const TextureImage& image, const Source& st, Texels* all);
  Source texture_band(const ir::Instr& in, const std::string& name, const Source& st);
  Source pick_channels(const ir::Instr& in, const Source& rgb, const Source& alpha);

  // ---- the surface shader's globals (its entry convention) ----
  Source global(lang::Global g, const lang::Span& at);
  void load_triangle();
  std::array<Loc, 3> vertex_word(int word);  // the word of the three vertex records (xyz)
  std::array<Loc, 3> vertex_w(int word);     // its .w, for the word that has one (s t u v: v)
  Loc object_word(int word);
  Loc interpolate(const std::array<Loc, 3>& v, RegClass cls, int lane, const char* name);

  const ir::Module& m_;
  std::size_t module_index_;
  const ir::Function& fn_;
  const Linkage& links_;
  StringTable& strings_;
  ConstantPool& constants_;
  std::set<std::string>& runtime_used_;
  lang::DiagnosticSink& sink_;
  AsmFunction f_;
  std::uint32_t cur_ = 0;
  std::vector<bool> terminated_;
  std::vector<std::uint32_t> ir_block_;
  std::vector<std::optional<Source>> value_;
  std::map<ir::ValueId, std::vector<Source>> results_;  // a call's results, for Extract
  std::uint8_t next_s_ = 0;
  lang::Span span_;  // the instruction being generated
  // Surface entry state.
  Loc origin_ = 0, dir_ = 0, level_ = 0, hit_ = 0;
  bool loaded_triangle_ = false;
  std::map<int, std::array<Loc, 3>> vertex_words_, vertex_ws_;
  std::map<int, Loc> object_words_;
  std::map<lang::Global, Source> globals_;
  // The differences of u and v across the pixel quad and 1 / (ux vy - uy vx), when it takes
  // derivatives (derivatives.cpp).
  Loc ux_ = 0, uy_ = 0, vx_ = 0, vy_ = 0, rdet_ = 0;
  bool derivatives_ready_ = false;
  // Texture lookups: the IR block being generated, and the filtered texels of (image base,
  // coordinates) that lookups later in that block share.
  ir::BlockId ir_cur_ = 0;
  std::map<std::pair<std::string, std::vector<ir::ValueId>>, std::pair<ir::BlockId, Texels>> texels_;
};

}  // namespace passlab::rpu::detail
