// SPDX-License-Identifier: GPL-3.0-or-later
// The random program generator. Programs are written as text, type by type from the top down:
// an expression of a wanted type picks a form that yields that type and asks for its operands'
// types in turn, so every program checks without a retry. What keeps them meaningful to compare:
// every variable is initialised where it is declared; loops count a dedicated counter to a small
// bound (a while loop counts first, so `continue` cannot skip the count); array indices are
// constants in range or counters bounded by the array's length; functions with output parameters
// are called as statements whose arguments do not read the output variable. Domain errors (sqrt
// of a negative, division by zero) are mostly written away (sqrt(abs(x)), x / (abs(y) + 0.5)) and
// now and then left in: the oracle does not compare fragments whose reference meets one.
#include "session/conform/generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/ir/splitmix.h"
#include "core/lang/types.h"

namespace passlab::conform {

namespace {

using lang::BaseType;

struct Var {
  std::string name;
  BaseType type = BaseType::Float;
  int array = 0;         // elements; 0 for a single value
  bool writable = true;  // counters and input parameters are read only
  bool uniform = false;  // a counter of a uniform loop
  bool unit = false;     // combiners: the value lies in [0, 1] (else in [-1, 1])
};

struct Param {
  BaseType type = BaseType::Float;
  bool output = false;
};

struct Function {
  std::string name;
  BaseType result = BaseType::Float;  // Void: called as a statement only
  std::vector<Param> params;
  bool recursive = false;  // the last parameter is the depth left
  bool local = false;      // defined in the shader's body (reads the enclosing variables)
};

const char* type_name(BaseType t) { return lang::to_string(t); }

class Generator {
 public:
  explicit Generator(const GeneratorOptions& o) : o_(o), p_(profile_for(o.family)), rng_{o.seed * 0x9E3779B97F4A7C15ULL + 0x5851F42D4C957F2DULL} {}

  GeneratedProgram run() {
    GeneratedProgram g;
    g.name = fmt::format("g{}_{}", to_string(o_.family), o_.seed);
    if (p_.user_functions) {
      const int n = below(3);
      for (int i = 0; i < n; ++i) file_function(false);
      if (p_.recursion && chance(0.5f)) file_function(true);
    }
    shader(g.name);
    g.source = std::move(out_);
    return g;
  }

 private:
  // ---- randomness ---------------------------------------------------------------------------
  int below(int n) { return n <= 1 ? 0 : rng_.below(n); }
  bool chance(float p) { return rng_.uniform() < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<std::size_t>(below(static_cast<int>(v.size())))]; }

  // ---- output -------------------------------------------------------------------------------
  void line(const std::string& s) {
    out_.append(static_cast<std::size_t>(indent_) * 2, ' ');
    out_ += s;
    out_ += '\n';
  }
  std::string fresh(const char* prefix) { return fmt::format("{}{}", prefix, next_name_++); }

  // ---- scopes -------------------------------------------------------------------------------
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }
  void declare(Var v) { scopes_.back().push_back(std::move(v)); }
  std::vector<const Var*> visible(BaseType t, bool arrays, bool writable_only) const {
    std::vector<const Var*> out;
    for (const auto& s : scopes_)
      for (const Var& v : s)
        if (v.type == t && (v.array > 0) == arrays && (!writable_only || v.writable)) out.push_back(&v);
    return out;
  }

  // ---- constants ----------------------------------------------------------------------------
  static std::string number(float x) {
    std::string s = fmt::format("{}", x);
    return s.front() == '-' ? "(" + s + ")" : s;  // -0 too: "-" "-0" would read as "--"
  }
  float constant_value() {
    if (p_.family == Family::Combiners) {
      static const std::vector<float> k = {0, 0.125f, 0.25f, 0.375f, 0.5f, 0.625f, 0.75f, 1, 0.3f, 0.6f, 0.9f};
      return pick(k);
    }
    if (p_.edge_constants && chance(0.15f)) {
      static const std::vector<float> edges = {0, 1, -1, 0.5f, 2, 1e-6f, -1e-6f, 1e6f, -1e6f, 3.14159274f};
      return pick(edges);
    }
    return std::round(rng_.range(-p_.max_constant, p_.max_constant) * 100) / 100;
  }
  std::string constant() { return number(constant_value()); }
  std::string unit_constant() { return number(std::round(rng_.uniform() * 100) / 100); }

  // ---- expressions --------------------------------------------------------------------------
  std::string expr(BaseType t, int depth) {
    if (p_.family == Family::Combiners) return t == BaseType::Bool ? ccondition(depth) : t == BaseType::Float ? cfloat(depth, false) : ccolor(depth, false);
    if (t == BaseType::Float) return float_expr(depth);
    if (t == BaseType::Bool) return condition(depth);
    return triple_expr(t, depth);
  }

  std::string float_leaf() {
    std::vector<std::string> c;
    for (const Var* v : visible(BaseType::Float, false, false)) c.push_back(v->name);
    for (const Var* v : visible(BaseType::Float, true, false)) c.push_back(fmt::format("{}[{}]", v->name, below(v->array)));
    if (!in_function_) {
      c.insert(c.end(), {"s", "t"});
      if (p_.family != Family::Combiners) c.insert(c.end(), {"u", "v"});
      if (p_.family != Family::Rpu) c.push_back("time");  // the RPU's scenes stand still (time 0)
    }
    if (c.empty() || chance(0.25f)) return constant();
    return pick(c);
  }

  std::string triple_leaf(BaseType t) {
    std::vector<std::string> c;
    for (const Var* v : visible(t, false, false)) c.push_back(v->name);
    if (!in_function_) {
      if (t == BaseType::Color) c.insert(c.end(), {"Cs", "Os"});
      if (in_illuminance_ && t == BaseType::Color) c.push_back("Cl");
      if (p_.family != Family::Combiners) {
        if (t == BaseType::Point) c.push_back("P");
        if (t == BaseType::Vector) c.insert(c.end(), {"I", "dPdu", "dPdv"});
        if (t == BaseType::Normal) c.insert(c.end(), {"N", "Ng"});
        if (in_illuminance_ && t == BaseType::Vector) c.push_back("L");
      }
    }
    if (c.empty() || chance(0.2f)) {
      if (p_.family == Family::Combiners || chance(0.5f)) return fmt::format("{}({})", type_name(t), unit_constant());
      return fmt::format("{}({}, {}, {})", type_name(t), constant(), constant(), constant());
    }
    return pick(c);
  }

  // A unit vector the combiners can read: a normalised interpolant (a cube-map lookup).
  std::string unit_vector() {
    std::vector<std::string> c = {"normalize(N)", "normalize(I)"};
    if (in_illuminance_) c.push_back("normalize(L)");
    return pick(c);
  }

  std::string float_expr(int depth) {
    if (depth <= 0 || chance(0.2f)) return float_leaf();
    const int d = depth - 1;
    switch (below(22)) {
      case 0: case 1: return fmt::format("({} + {})", float_expr(d), float_expr(d));
      case 2: case 3: return fmt::format("({} - {})", float_expr(d), float_expr(d));
      case 4: case 5: return fmt::format("({} * {})", float_expr(d), float_expr(d));
      case 6:
        if (chance(0.85f)) return fmt::format("({} / (abs({}) + 0.5))", float_expr(d), float_expr(d));
        return fmt::format("({} / {})", float_expr(d), float_expr(d));
      case 7: return fmt::format("(-{})", float_expr(d));
      case 8: {
        const BaseType t = pick(triple_types());
        const char* f[] = {"xcomp", "ycomp", "zcomp"};
        if (t == BaseType::Color) return fmt::format("comp({}, {})", triple_expr(t, d), below(3));
        return fmt::format("{}({})", f[below(3)], triple_expr(t, d));
      }
      case 9: {
        if (!p_.vectors) return float_leaf();
        const BaseType t = pick(pointlike_types());
        switch (below(3)) {
          case 0: return fmt::format("({} . {})", triple_expr(t, d), triple_expr(t, d));
          case 1: return fmt::format("length({})", triple_expr(t, d));
          default: return fmt::format("distance({}, {})", triple_expr(BaseType::Point, d), triple_expr(BaseType::Point, d));
        }
      }
      case 10: return ternary(BaseType::Float, d);
      case 11: return call_or(BaseType::Float, d);
      case 12: case 13: return float_builtin(d);
      case 14: return transcendental(d);
      case 15: return transcendental(d);
      case 16:
        // (The RPU differentiates in a surface shader only: its functions have no globals.)
        if (p_.derivatives && (p_.family != Family::Rpu || !in_function_) && chance(0.2f)) return derivative(d);
        if (p_.noise && chance(0.7f)) {
          switch (below(6)) {
            case 0: return fmt::format("float cellnoise({})", noise_args(d));
            case 1: return fmt::format("float pnoise({}, {})", float_expr(d), number(1 + static_cast<float>(below(4))));
            default: return fmt::format("float noise({})", noise_args(d));
          }
        }
        return float_builtin(d);
      case 17:
        if (p_.textures && !in_function_) {
          const std::string name = map_name(false, d);
          return fmt::format("float texture({}, {}, {})", name, float_expr(d), float_expr(d));
        }
        return float_builtin(d);
      default: return fmt::format("({} * {} + {})", float_expr(d), constant(), float_expr(d));
    }
  }

  std::string float_builtin(int d) {
    switch (below(13)) {
      case 0: return fmt::format("abs({})", float_expr(d));
      case 1: return fmt::format("floor({})", float_expr(d));
      case 2: return fmt::format("ceil({})", float_expr(d));
      case 3: return fmt::format("mod({}, {})", float_expr(d), number(0.25f + std::round(rng_.uniform() * 300) / 100));
      case 4: return fmt::format("min({}, {})", float_expr(d), float_expr(d));
      case 5: return fmt::format("max({}, {})", float_expr(d), float_expr(d));
      case 6: return fmt::format("clamp({}, {}, {})", float_expr(d), number(-std::round(rng_.uniform() * 100) / 100), unit_constant());
      case 7: return fmt::format("mix({}, {}, {})", float_expr(d), float_expr(d), float_expr(d));
      case 8: return fmt::format("step({}, {})", float_expr(d), float_expr(d));
      case 9: {
        const float a = std::round(rng_.uniform() * 50) / 100;
        return fmt::format("smoothstep({}, {}, {})", number(a), number(a + 0.25f + std::round(rng_.uniform() * 50) / 100), float_expr(d));
      }
      case 10:
        if (p_.sign) return fmt::format("sign({})", float_expr(d));
        return fmt::format("round({})", float_expr(d));
      case 11:
        if (p_.transcendental) {  // a Catmull-Rom spline of five to seven knots (one to three segments)
          std::string knots;
          for (int k = 0, n = 5 + below(3); k < n; ++k) knots += ", " + number(std::round((rng_.uniform() * 4 - 2) * 100) / 100);
          return fmt::format("spline({}{})", float_expr(d), knots);
        }
        return fmt::format("round({})", float_expr(d));
      default: return fmt::format("round({})", float_expr(d));
    }
  }

  // A value affine in the interpolated globals (what a fragment target can differentiate): sums
  // of s, t, u, v and components of P and N, scaled by constants.
  std::string affine(int d) {
    switch (below(d > 2 ? 3 : 6)) {
      case 0: return pick(std::vector<std::string>{"s", "t", "u", "v"});
      case 1: return fmt::format("{}({})", pick(std::vector<std::string>{"xcomp", "ycomp", "zcomp"}), pick(std::vector<std::string>{"P", "N"}));
      case 2: return fmt::format("(P . vector({}, {}, {}))", unit_constant(), unit_constant(), unit_constant());
      case 3: return fmt::format("({} * {})", affine(d + 1), constant());
      default: return fmt::format("({} {} {})", affine(d + 1), chance(0.5f) ? "+" : "-", affine(d + 1));
    }
  }
  // The derivative functions of such values, and du and dv (the pixel's steps of u and v); a
  // third of the time of a value computed per fragment (a target computes it again one pixel
  // over), scaled down, as differences of a lookup or a sine may be steep.
  std::string derivative(int d) {
    if (chance(0.35f)) {
      const std::string x = float_expr(d + 1);
      switch (below(4)) {
        case 0: return fmt::format("(Du({}) * 0.01)", x);
        case 1: return fmt::format("(Dv({}) * 0.01)", x);
        case 2: return fmt::format("(area(P + N * {}) * 100)", x);
        default: return fmt::format("(normalize(calculatenormal(P + N * {} * 0.1)) . vector({}, {}, {}))", x, unit_constant(), unit_constant(), unit_constant());
      }
    }
    const std::string x = affine(1);
    switch (below(7)) {
      case 0: return fmt::format("Du({})", x);
      case 1: return fmt::format("Dv({})", x);
      case 2: return fmt::format("Deriv({}, {})", x, chance(0.5f) ? "u" : "v");
      case 3: return "(area(P) * 10000)";
      case 4: return fmt::format("({} * 100)", chance(0.5f) ? "du" : "dv");
      case 5: return fmt::format("(calculatenormal(P) . vector({}, {}, {}))", unit_constant(), unit_constant(), unit_constant());
      default: return fmt::format("length({}(P))", chance(0.5f) ? "Du" : "Dv");
    }
  }

  std::string transcendental(int d) {
    if (!p_.transcendental) return float_builtin(d);
    switch (below(12)) {
      case 0: return fmt::format("sqrt(abs({}))", float_expr(d));
      case 1: return fmt::format("inversesqrt(abs({}) + 0.25)", float_expr(d));
      case 2: return fmt::format("pow(abs({}) + 0.01, {})", float_expr(d), number(std::round(rng_.range(-2, 3) * 10) / 10));
      case 3: return fmt::format("exp(clamp({}, -4, 4))", float_expr(d));
      case 4: return fmt::format("log(abs({}) + 0.1)", float_expr(d));
      case 5: return fmt::format("sin({})", float_expr(d));
      case 6: return fmt::format("cos({})", float_expr(d));
      case 7: return fmt::format("atan({}, {})", float_expr(d), float_expr(d));
      case 8: return fmt::format("asin(clamp({}, -1, 1))", float_expr(d));
      case 9: return fmt::format("acos(clamp({}, -1, 1))", float_expr(d));
      case 10: return fmt::format("atan({})", float_expr(d));
      default: return fmt::format("sqrt({})", float_expr(d));  // a domain error now and then
    }
  }

  // ---- the combiners' expressions -----------------------------------------------------------
  // What Mark & Proudfoot's mapping covers, with every value in [-1, 1] (`unit`: in [0, 1]), so
  // the registers never clamp and the hardware must reproduce the reference: products, halved
  // sums, differences of [0, 1] values, 1 - x, clamps, min and max, mix, MUXes, dot products of
  // normalised interpolants (cube maps) and texture lookups at (s, t).
  std::string cleaf_float(bool unit) {
    std::vector<std::string> c = {"s", "t", fmt::format("comp(Cs, {})", below(3)), fmt::format("comp(Os, {})", below(3)),
                                  fmt::format("float texture(\"{}\", s, t)", texture_name())};
    for (const Var* v : visible(BaseType::Float, false, false))
      if (v->unit || !unit) c.push_back(v->name);
    if (!unit) c.push_back(fmt::format("({} . {})", unit_vector(), unit_vector()));
    if (chance(0.2f)) return unit_constant();
    return pick(c);
  }
  std::string cleaf_color(bool unit) {
    std::vector<std::string> c = {"Cs", "Os", fmt::format("color texture(\"{}\", s, t)", texture_name())};
    for (const Var* v : visible(BaseType::Color, false, false))
      if (v->unit || !unit) c.push_back(v->name);
    if (chance(0.2f)) return fmt::format("color({}, {}, {})", unit_constant(), unit_constant(), unit_constant());
    return pick(c);
  }
  std::string cfloat(int depth, bool unit) {
    if (depth <= 0 || chance(0.25f)) return cleaf_float(unit);
    const int d = depth - 1;
    if (chance(0.12f)) return ctable(d, unit);
    switch (below(unit ? 9 : 12)) {
      case 0: case 1: return fmt::format("({} * {})", cfloat(d, unit), cfloat(d, unit));
      case 2: return fmt::format("({} * 0.5 + {} * 0.5)", cfloat(d, unit), cfloat(d, unit));
      case 3: return fmt::format("(1 - {})", cfloat(d, true));
      case 4: return fmt::format("clamp({}, 0, 1)", cfloat(d, false));
      case 5: return fmt::format("{}({}, {})", chance(0.5f) ? "min" : "max", cfloat(d, unit), cfloat(d, unit));
      case 6: return fmt::format("mix({}, {}, {})", cfloat(d, unit), cfloat(d, unit), cfloat(d, true));
      case 7: return fmt::format("({} ? {} : {})", ccondition(d), cfloat(d, unit), cfloat(d, unit));
      case 8: return fmt::format("comp({}, {})", ccolor(d, unit), below(3));
      case 9: return fmt::format("({} - {})", cfloat(d, true), cfloat(d, true));
      case 10: return fmt::format("(-{})", cfloat(d, false));
      default: return fmt::format("({} . {})", unit_vector(), unit_vector());
    }
  }
  // What the combiners compute as function tables (backends/combiners/tables.h): functions of one
  // value, in range, which the partitioner must make a texture (saved by an earlier pass, a
  // lookup, or interpolated) before the lookup; and normalize() of a computed vector (a cube map
  // indexed by three texture-shader dot products).
  std::string ctable(int d, bool unit) {
    switch (below(unit ? 6 : 8)) {
      case 0: return fmt::format("sqrt({})", cfloat(d, true));
      case 1: return fmt::format("smoothstep({}, {}, {})", number(0.1f + 0.3f * std::round(rng_.uniform() * 10) / 10),
                                 number(0.5f + 0.4f * std::round(rng_.uniform() * 10) / 10), cfloat(d, false));
      case 2: return fmt::format("pow({}, {})", cfloat(d, true), number(0.3f + std::round(rng_.uniform() * 40) / 10));
      case 3: return fmt::format("mod({} * {}, 1)", cfloat(d, true), number(static_cast<float>(1 + below(4))));
      case 4: return fmt::format("(0.25 / (1 + {}))", cfloat(d, true));
      case 5: return fmt::format("spline({}, {}, {}, {}, {})", cfloat(d, true), number(0.2f + 0.6f * rng_.uniform()), number(0.2f + 0.6f * rng_.uniform()),
                                 number(0.2f + 0.6f * rng_.uniform()), number(0.2f + 0.6f * rng_.uniform()));
      case 6: return fmt::format("sin({} * {})", number(static_cast<float>(1 + below(6))), cfloat(d, false));
      default: return fmt::format("(normalize({} + {}) . {})", unit_vector(), unit_vector(), unit_vector());
    }
  }
  std::string ccolor(int depth, bool unit) {
    if (depth <= 0 || chance(0.25f)) return cleaf_color(unit);
    const int d = depth - 1;
    switch (below(unit ? 9 : 10)) {
      case 0: case 1: return fmt::format("({} * {})", ccolor(d, unit), ccolor(d, unit));
      case 2: return fmt::format("({} * {})", ccolor(d, unit), cfloat(d, unit));
      case 3: return fmt::format("({} * 0.5 + {} * 0.5)", ccolor(d, unit), ccolor(d, unit));
      case 4: return fmt::format("(1 - {})", ccolor(d, true));
      case 5: return fmt::format("mix({}, {}, {})", ccolor(d, unit), ccolor(d, unit), cfloat(d, true));
      case 6: return fmt::format("({} ? {} : {})", ccondition(d), ccolor(d, unit), ccolor(d, unit));
      case 7: return fmt::format("color({}, {}, {})", cfloat(d, unit), cfloat(d, unit), cfloat(d, unit));
      case 8: return fmt::format("clamp({}, 0, 1)", ccolor(d, false));
      default: return fmt::format("({} - {})", ccolor(d, true), ccolor(d, true));
    }
  }
  std::string ccondition(int depth) {
    const int d = std::max(depth - 1, 0);
    if (depth > 0 && chance(0.2f)) return fmt::format("({} {} {})", ccondition(d), chance(0.5f) ? "&&" : "||", ccondition(d));
    static const char* rel[] = {"<", ">", "<=", ">="};
    return fmt::format("({} {} {})", cfloat(d, false), rel[below(4)], cfloat(d, false));
  }

  std::string noise_args(int d) {
    switch (below(3)) {
      case 0: return float_expr(d);
      case 1: return fmt::format("{}, {}", float_expr(d), float_expr(d));
      default: return fmt::format("{} * {}", triple_expr(BaseType::Point, d), unit_constant());
    }
  }

  // A lookup's channel, half the time: a number in range (0 to 3; a colour's first, 0 or 1), or
  // an expression chosen when the shader runs (past the map's channels it reads 0).
  std::string channel(bool colour, int d) {
    if (chance(0.5f)) return "";
    if (chance(0.5f)) return fmt::format("[{}]", below(colour ? 2 : 4));
    return fmt::format("[({} + s * 4)]", float_expr(d / 2));  // never a bare number, which must be a channel
  }
  std::string texture_name() { return pick(std::vector<std::string>{"grain", "stripes", "marks"}); }
  // A lookup's map: a name with a channel now and then, or a name chosen per fragment between two
  // (a select over the lookups on fragment targets).
  std::string map_name(bool colour, int d) {
    if (chance(0.15f)) {
      const std::string c = paren(expr(BaseType::Bool, std::min(d, 1)));
      const std::string a = texture_name();
      return fmt::format("({} ? \"{}\" : \"{}\")", c, a, texture_name());
    }
    const std::string name = texture_name();
    return "\"" + name + "\"" + channel(colour, d);
  }

  std::vector<BaseType> triple_types() const {
    if (!p_.vectors) return {BaseType::Color};
    return {BaseType::Color, BaseType::Point, BaseType::Vector, BaseType::Normal};
  }
  static std::vector<BaseType> pointlike_types() { return {BaseType::Point, BaseType::Vector, BaseType::Normal}; }

  std::string triple_expr(BaseType t, int depth) {
    if (depth <= 0 || chance(0.2f)) return triple_leaf(t);
    const int d = depth - 1;
    const char* tn = type_name(t);
    switch (below(20)) {
      case 0: case 1: return fmt::format("({} + {})", triple_expr(t, d), triple_expr(t, d));
      case 2: return fmt::format("({} - {})", triple_expr(t, d), triple_expr(t, d));
      case 3: return fmt::format("({} * {})", triple_expr(t, d), triple_expr(t, d));
      case 4: return fmt::format("({} * {})", triple_expr(t, d), float_expr(d));
      case 5: return fmt::format("({} * {})", float_expr(d), triple_expr(t, d));
      case 6: return fmt::format("({} / (abs({}) + 0.5))", triple_expr(t, d), float_expr(d));
      case 7: return fmt::format("{}({}, {}, {})", tn, float_expr(d), float_expr(d), float_expr(d));
      case 8: return fmt::format("{}({})", tn, float_expr(d));
      case 9: return fmt::format("mix({}, {}, {})", triple_expr(t, d), triple_expr(t, d), float_expr(d));
      case 10: return fmt::format("clamp({}, 0, 1)", triple_expr(t, d));
      case 11: return ternary(t, d);
      case 12: return call_or(t, d);
      case 13: return fmt::format("(-{})", triple_expr(t, d));
      case 14:
        if (p_.noise) return fmt::format("{} noise({})", tn, noise_args(d));
        return fmt::format("max({}, {})", triple_expr(t, d), triple_expr(t, d));
      case 15:
        if (t == BaseType::Color && p_.textures && !in_function_) {
          const std::string name = map_name(true, d);
          return fmt::format("color texture({}, {}, {})", name, float_expr(d), float_expr(d));
        }
        return fmt::format("min({}, {})", triple_expr(t, d), triple_expr(t, d));
      case 16:
        if (t == BaseType::Color && !in_function_ && p_.light_loops) return light_builtin(d);
        [[fallthrough]];
      default:
        if (t == BaseType::Color) {
          if (p_.rays && !in_function_ && chance(0.3f)) return fmt::format("trace(P, {})", ray_direction(d));
          return fmt::format("color({}, {}, {})", float_expr(d), float_expr(d), float_expr(d));
        }
        return pointlike_builtin(t, d);
    }
  }

  std::string pointlike_builtin(BaseType t, int d) {
    const char* tn = type_name(t);
    switch (below(p_.matrices ? 7 : 5)) {
      case 5: {
        const bool point = chance(0.5f);
        return fmt::format("{}({}({}, {}))", tn, point ? "transform" : "vtransform", matrix_expr(d, false),
                           triple_expr(point ? BaseType::Point : BaseType::Vector, d));
      }
      case 6: return fmt::format("{}(ntransform({}, {}))", tn, matrix_expr(d, true), triple_expr(BaseType::Normal, d));
      case 0: return fmt::format("{}(normalize({} + {}(0.01, 0.02, 0.03)))", tn, triple_expr(BaseType::Vector, d), "vector");
      case 1: return fmt::format("{}({} ^ {})", tn, triple_expr(BaseType::Vector, d), triple_expr(BaseType::Vector, d));
      case 2: return fmt::format("{}(reflect({}, {}))", tn, triple_expr(BaseType::Vector, d), triple_expr(BaseType::Normal, d));
      case 3: return fmt::format("{}(faceforward({}, {}))", tn, triple_expr(BaseType::Normal, d), triple_expr(BaseType::Vector, d));
      default: return fmt::format("{}(normalize({}))", tn, triple_expr(t, d));
    }
  }

  // A matrix, mostly one that differs per fragment: a rotation by an angle, a translation or a
  // scale by amounts, a choice between two, a product, or (unless `affine`) sixteen values with a
  // projective column.
  std::string matrix_expr(int depth, bool affine) {
    const int d = std::max(depth - 1, 0);
    const std::string axis = fmt::format("vector({}, {}, 1)", unit_constant(), unit_constant());
    switch (below(depth > 0 ? (affine ? 5 : 6) : 3)) {
      case 0: return fmt::format("rotate(matrix 1, {}, {})", float_expr(d), axis);
      case 1: return fmt::format("translate(matrix 1, {})", triple_expr(BaseType::Vector, d));
      case 2: return fmt::format("scale(matrix 1, vector({}, {}, {}))", float_expr(d), unit_constant(), float_expr(d));
      case 3: return fmt::format("({} ? {} : {})", condition(d), matrix_expr(d, affine), matrix_expr(d, affine));
      case 4: return fmt::format("({} * {})", matrix_expr(d, affine), matrix_expr(d, affine));
      default:
        return fmt::format("matrix(1, 0, 0, {}, 0, 1, 0, 0, {}, 0, 1, {}, 0, {}, 0, 1)", float_expr(d), float_expr(d), unit_constant(),
                           float_expr(d));
    }
  }

  // A secondary ray leaves the surface: a ray along it (dPdu, say) grazes the surface it starts
  // on, and whether it hits is decided by the last bit of P, on the VM and in the reference alike.
  std::string ray_direction(int d) {
    switch (below(3)) {
      case 0: return "reflect(normalize(I), normalize(N))";
      case 1: return "faceforward(normalize(N), I)";
      default:
        return fmt::format("faceforward(normalize(N), I) + {} * vector({}, {}, {})", unit_constant(), unit_constant(), unit_constant(),
                           d > 0 ? "0.5" : "0");
    }
  }

  std::string light_builtin(int d) {
    switch (below(4)) {
      case 0: return "ambient()";
      case 1: return "diffuse(normalize(N))";
      case 2: return fmt::format("specular(normalize(N), -normalize(I), {})", number(0.05f + std::round(rng_.uniform() * 40) / 100));
      default: return fmt::format("({} * diffuse(faceforward(normalize(N), I)))", float_expr(d));
    }
  }

  std::string ternary(BaseType t, int d) { return fmt::format("({} ? {} : {})", condition(d), expr(t, d), expr(t, d)); }

  std::string condition(int depth) {
    const int d = std::max(depth - 1, 0);
    static const char* rel[] = {"<", ">", "<=", ">=", "==", "!="};
    if (depth > 0 && chance(0.2f)) {
      switch (below(3)) {
        case 0: return fmt::format("({} && {})", condition(d), condition(d));
        case 1: return fmt::format("({} || {})", condition(d), condition(d));
        default: return fmt::format("!{}", condition(d));
      }
    }
    if (p_.family != Family::Combiners && chance(0.1f)) {
      const BaseType t = pick(triple_types());
      return fmt::format("({} {} {})", triple_expr(t, d), chance(0.5f) ? "==" : "!=", triple_expr(t, d));
    }
    if (p_.family != Family::Combiners && chance(0.06f)) {
      // One comparison per component of the same triples, joined by && or || (the RPU tests
      // them as one lane test): against the same components of another triple, or one number.
      const BaseType t = pick(triple_types());
      const bool against_triple = chance(0.5f);
      const std::string v = triple_leaf(t), w = against_triple ? triple_leaf(t) : number(std::round(rng_.uniform() * 8 - 4) / 4);
      const char* r = rel[below(6)];
      const char* join = chance(0.5f) ? " && " : " || ";
      std::vector<int> lanes{0, 1, 2};
      for (int i = 2; i > 0; --i) std::swap(lanes[static_cast<std::size_t>(i)], lanes[static_cast<std::size_t>(below(i + 1))]);
      lanes.resize(static_cast<std::size_t>(2 + below(2)));
      std::string out;
      for (int k : lanes) {
        if (!out.empty()) out += join;
        out += fmt::format("comp({}, {}) {} {}", v, k, r, against_triple ? fmt::format("comp({}, {})", w, k) : w);
      }
      return "(" + out + ")";
    }
    // Equality of computed floats is rare; most relations are orderings.
    const char* r = rel[chance(0.1f) ? 4 + below(2) : below(4)];
    return fmt::format("({} {} {})", float_expr(d), r, float_expr(d));
  }

  // A call of a user function of result `t` when one exists (not one with output parameters:
  // those are statements), else another form.
  std::string call_or(BaseType t, int d) {
    std::vector<const Function*> c;
    for (const Function& f : functions_)
      if (f.result == t && std::none_of(f.params.begin(), f.params.end(), [](const Param& p) { return p.output; }) &&
          !(f.recursive && in_recursive_))
        c.push_back(&f);
    if (c.empty() || depth_calls_ > 2) return t == BaseType::Float ? float_builtin(d) : triple_leaf(t);
    const Function& f = *pick(c);
    ++depth_calls_;
    std::string args;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i) args += ", ";
      if (f.recursive && i + 1 == f.params.size()) args += std::to_string(below(5));
      else args += expr(f.params[i].type, d);
    }
    --depth_calls_;
    return fmt::format("{}({})", f.name, args);
  }

  // ---- functions ----------------------------------------------------------------------------
  BaseType value_type() {
    if (!p_.vectors || chance(0.5f)) return chance(0.6f) ? BaseType::Float : BaseType::Color;
    return pick(std::vector<BaseType>{BaseType::Float, BaseType::Color, BaseType::Point, BaseType::Vector, BaseType::Normal});
  }

  std::string param_list(const Function& f, std::vector<std::string>* names) {
    std::string s;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const std::string n = fresh("a");
      names->push_back(n);
      s += fmt::format("{}{}{} {}", i ? "; " : "", f.params[i].output ? "output " : "", type_name(f.params[i].type), n);
    }
    return s;
  }

  // A function at file scope: its parameters and constants only (a function has no globals).
  void file_function(bool recursive) {
    Function f;
    f.name = fresh(recursive ? "rec" : "fn");
    f.recursive = recursive;
    f.result = recursive ? BaseType::Float : (chance(0.2f) ? BaseType::Void : value_type());
    const int n = 1 + below(3);
    for (int i = 0; i < n; ++i) f.params.push_back({value_type(), false});
    if (!recursive && (f.result == BaseType::Void || chance(0.3f))) f.params.push_back({value_type(), true});
    if (recursive) f.params.push_back({BaseType::Float, false});  // the depth left
    std::vector<std::string> names;
    const std::string params = param_list(f, &names);
    line(fmt::format("{} {}({}) {{", type_name(f.result), f.name, params));
    ++indent_;
    push();
    for (std::size_t i = 0; i < f.params.size(); ++i) declare({names[i], f.params[i].type, 0, f.params[i].output, false});
    in_function_ = true;
    if (recursive) {
      // Each call goes one level down: rec(x..., d) = d <= 0 ? leaf : rec(args..., d - 1) * c + e;
      // no other call of a recursive function is written inside, so every recursion ends.
      in_recursive_ = true;
      const std::string& depth = names.back();
      line(fmt::format("if ({} <= 0) return {};", depth, float_expr(2)));
      functions_.push_back(f);  // visible in its own body
      std::string args;
      for (std::size_t i = 0; i + 1 < f.params.size(); ++i) args += expr(f.params[i].type, 2) + ", ";
      line(fmt::format("return {}({}{} - 1) * {} + {};", f.name, args, depth, number(0.5f + std::round(rng_.uniform() * 40) / 100),
                       float_expr(2)));
      in_recursive_ = false;
    } else {
      statements(1 + below(3), 1);
      for (std::size_t i = 0; i < f.params.size(); ++i)
        if (f.params[i].output) line(fmt::format("{} = {};", names[i], expr(f.params[i].type, 2)));
      if (f.result != BaseType::Void) line(fmt::format("return {};", expr(f.result, 3)));
      functions_.push_back(f);
    }
    in_function_ = false;
    pop();
    --indent_;
    line("}");
  }

  // ---- statements ---------------------------------------------------------------------------
  void statements(int count, int depth) {
    for (int i = 0; i < count; ++i) statement(depth);
  }

  void statement(int depth) {
    const int e = std::min(o_.max_depth, 2 + below(o_.max_depth));
    const bool nest = depth < 3;
    switch (below(20)) {
      case 0: case 1: case 2: case 3: case 4: case 5: declaration(e); return;
      case 6: case 7: case 8: case 9: assignment(e); return;
      case 10: case 11:
        if (nest) return branch(depth);
        return assignment(e);
      case 12: case 13:
        if (nest && p_.loops && loops_ < 2 && !in_function_) return loop(depth);
        return declaration(e);
      case 14:
        if (nest && p_.light_loops && !in_function_ && !in_illuminance_ && depth <= 1) return light_loop(depth);
        return assignment(e);
      case 15:
        if (loops_ > 0 && no_jumps_ == 0) return jump(e);
        return assignment(e);
      case 16:
        if (p_.arrays) return array(e);
        return declaration(e);
      case 17:
        if (!in_function_) return output_call(e);
        return assignment(e);
      case 18:
        if (p_.user_functions && !in_function_ && depth == 0) return local_function();
        return declaration(e);
      default:
        if (p_.family != Family::Combiners) return set_component(e);
        return assignment(e);
    }
  }

  void declaration(int e) {
    const BaseType t = value_type();
    const std::string n = fresh("v");
    if (p_.family == Family::Combiners) {
      const bool unit = chance(0.6f);
      line(fmt::format("{} {} = {};", type_name(t), n, t == BaseType::Float ? cfloat(e, unit) : ccolor(e, unit)));
      Var v{n, t, 0, true, false};
      v.unit = unit;
      declare(v);
      return;
    }
    line(fmt::format("{} {} = {};", type_name(t), n, expr(t, e)));
    declare({n, t, 0, true, false});
  }

  void assignment(int e) {
    std::vector<const Var*> c;
    for (const auto& s : scopes_)
      for (const Var& v : s)
        if (v.writable && v.array == 0 && (v.type == BaseType::Float || v.type == BaseType::Color || p_.vectors)) c.push_back(&v);
    if (c.empty()) return declaration(e);
    const Var& v = *pick(c);
    if (p_.family == Family::Combiners) {
      // Within the variable's range: a new value of it, or a product by one.
      const std::string value = v.type == BaseType::Float ? cfloat(e, v.unit) : ccolor(e, v.unit);
      line(fmt::format("{} {} {};", v.name, chance(0.7f) ? "=" : "*=", value));
      return;
    }
    static const char* ops[] = {"=", "+=", "-=", "*=", "/="};
    const int op = below(5);
    // A float widens to a triple; a division divides by something at least 1/2 away from zero.
    std::string value = expr(chance(0.2f) && v.type != BaseType::Float ? BaseType::Float : v.type, e);
    if (op == 4) value = fmt::format("(abs({}) + 0.5)", float_expr(e));
    line(fmt::format("{} {} {};", v.name, ops[op], value));
  }

  void block(int depth, int count) {
    ++indent_;
    push();
    statements(count, depth + 1);
    pop();
    --indent_;
  }

  // Conditions may differ per fragment: what is assigned inside is varying.
  void branch(int depth) {
    line(fmt::format("if {} {{", paren(expr(BaseType::Bool, 2))));
    const bool was = varying_context_;
    varying_context_ = true;
    block(depth, 1 + below(3));
    if (chance(0.5f)) {
      line("} else {");
      block(depth, 1 + below(3));
    }
    varying_context_ = was;
    line("}");
  }
  static std::string paren(const std::string& c) { return c.front() == '(' && c.back() == ')' ? c : "(" + c + ")"; }

  // A counted loop: for, or while counting first. Bounds are constants or a uniform parameter
  // on every target, sometimes with a condition that differs per fragment besides; on the RPU
  // also bounds that differ per fragment.
  void loop(int depth) {
    const std::string i = fresh("i");
    std::string bound;
    bool uniform = true;
    const int kind = below(p_.varying_loops ? 3 : 2);
    // A long loop with a condition that differs per fragment: NV40 keeps it as a loop (it is
    // proven to end, but past the eight iterations a target with dynamic loops unrolls), the
    // others unroll it. No break or continue in it: together they double the unrolled paths with
    // each iteration.
    const bool long_loop = p_.long_loops && !varying_context_ && chance(0.15f);
    if (long_loop) bound = std::to_string(9 + below(8));
    else if (kind == 0) bound = std::to_string(1 + below(4));
    else if (kind == 1) bound = count_param_;
    else {
      bound = fmt::format("floor({} * 4) + 1", pick(std::vector<std::string>{"s", "t", "u", "v"}));
      uniform = false;
    }
    // A condition that differs per fragment besides a uniform bound: every target unrolls it
    // under predicates, the bound ending it.
    std::string also;
    if (long_loop) {
      also = " && " + paren(expr(BaseType::Bool, 2));
      uniform = false;
    } else if (uniform && chance(0.25f)) {
      also = " && " + paren(expr(BaseType::Bool, 2));
      uniform = false;
    }
    uniform = uniform && !varying_context_;
    // A long loop carries a value the shader reads after it (else the optimiser drops the loop):
    // one of the shader's top-level floats that reach Ci (the first five values, see shader()).
    std::string carried;
    if (long_loop && !in_function_ && scopes_.size() > 1) {
      int reaching = 0;
      for (const Var& v : scopes_[1]) {
        if (v.array > 0 || (v.type != BaseType::Float && v.type != BaseType::Color) || reaching++ >= 5) continue;
        if (v.type == BaseType::Float && v.writable && !v.uniform) carried = v.name;
      }
    }
    auto carry = [&] {
      if (!carried.empty()) line(fmt::format("{} = {} * 0.75 + {};", carried, carried, paren(expr(BaseType::Float, 2))));
    };
    line(fmt::format("{}float {} = 0;", uniform ? "uniform " : "", i));
    ++loops_;
    const int jumps_were = no_jumps_;
    if (long_loop) ++no_jumps_;
    const bool was = varying_context_;
    varying_context_ = varying_context_ || !uniform;
    Var counter{i, BaseType::Float, 0, false, uniform};
    if (chance(0.6f)) {
      line(fmt::format("for ({} = 0; {} < {}{}; {} += 1) {{", i, i, bound, also, i));
      ++indent_;
      push();
      declare(counter);
      statements(1 + below(3), depth + 1);
      carry();
      array_in_loop(i, bound);
      pop();
      --indent_;
    } else {
      line(fmt::format("while ({} < {}{}) {{", i, bound, also));
      ++indent_;
      push();
      line(fmt::format("{} += 1;", i));
      declare(counter);
      statements(1 + below(3), depth + 1);
      carry();
      pop();
      --indent_;
    }
    line("}");
    varying_context_ = was;
    no_jumps_ = jumps_were;
    --loops_;
  }

  // Inside a for loop counting 0 .. bound - 1: an array element indexed by the counter when the
  // bound is a constant within the array's length.
  void array_in_loop(const std::string& i, const std::string& bound) {
    if (bound.size() != 1 || !std::isdigit(static_cast<unsigned char>(bound[0]))) return;
    const int b = bound[0] - '0';
    for (const auto& s : scopes_)
      for (const Var& v : s)
        if (v.array >= b && v.writable && chance(0.5f)) {
          line(fmt::format("{}[{}] += {};", v.name, i, expr(v.type, 2)));
          return;
        }
  }

  void jump(int e) {
    line(fmt::format("if {} {};", paren(expr(BaseType::Bool, std::min(e, 2))), chance(0.5f) ? "break" : "continue"));
  }

  void light_loop(int depth) {
    line(chance(0.5f) ? "illuminance(P) {" : "illuminance(P, normalize(N), PI / 2) {");
    const bool was = varying_context_;
    in_illuminance_ = true;
    varying_context_ = true;
    block(depth, 1 + below(3));
    in_illuminance_ = false;
    varying_context_ = was;
    line("}");
  }

  void array(int e) {
    const BaseType t = chance(0.7f) ? BaseType::Float : BaseType::Color;
    const int n = 2 + below(3);
    const std::string a = fresh("arr");
    if (chance(0.35f)) {
      // A resizable array: pushes (some under a condition, so that the length may differ per
      // fragment), perhaps a pop, and its length as a value; elements below the length it surely
      // has are read later like any array's.
      line(fmt::format("{} {}[];", type_name(t), a));
      for (int k = 0; k < n; ++k) line(fmt::format("push({}, {});", a, expr(t, std::min(e, 2))));
      if (chance(0.5f)) line(fmt::format("if ({}) push({}, {});", condition(1), a, expr(t, std::min(e, 2))));
      int sure = n;
      if (chance(0.5f)) {
        const std::string v = fresh("v");
        line(fmt::format("{} {} = pop({});", type_name(t), v, a));
        declare({v, t, 0, true, false});
        --sure;
      }
      const std::string len = fresh("v");
      line(fmt::format("float {} = arraylength({});", len, a));
      declare({len, BaseType::Float, 0, true, false});
      declare({a, t, sure, true, false});
      return;
    }
    std::string init;
    for (int k = 0; k < n; ++k) init += (k ? ", " : "") + expr(t, std::min(e, 2));
    line(fmt::format("{} {}[{}] = {{{}}};", type_name(t), a, n, init));
    declare({a, t, n, true, false});
    if (chance(0.5f)) line(fmt::format("{}[{}] = {};", a, below(n), expr(t, e)));
  }

  void output_call(int e) {
    std::vector<const Function*> c;
    for (const Function& f : functions_)
      if (!f.local && std::any_of(f.params.begin(), f.params.end(), [](const Param& p) { return p.output; })) c.push_back(&f);
    if (c.empty()) return declaration(e);
    const Function& f = *pick(c);
    // Fresh variables receive the outputs, so no argument reads them.
    std::vector<std::string> outs;
    for (const Param& p : f.params)
      if (p.output) {
        const std::string n = fresh("v");
        line(fmt::format("{} {} = {};", type_name(p.type), n, expr(p.type, 1)));
        outs.push_back(n);
      }
    std::string args;
    std::size_t k = 0;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i) args += ", ";
      args += f.params[i].output ? outs[k++] : expr(f.params[i].type, std::min(e, 3));
    }
    if (f.result == BaseType::Void) {
      line(fmt::format("{}({});", f.name, args));
    } else {
      const std::string r = fresh("v");
      line(fmt::format("{} {} = {}({});", type_name(f.result), r, f.name, args));
      declare({r, f.result, 0, true, false});
    }
    k = 0;
    for (const Param& p : f.params)
      if (p.output) declare({outs[k++], p.type, 0, true, false});
  }

  // A local function: it reads the enclosing variables by name wherever it is called.
  void local_function() {
    Function f;
    f.name = fresh("lf");
    f.local = true;
    f.result = value_type();
    f.params.push_back({value_type(), false});
    std::vector<std::string> names;
    const std::string params = param_list(f, &names);
    line(fmt::format("{} {}({}) {{", type_name(f.result), f.name, params));
    ++indent_;
    push();
    declare({names[0], f.params[0].type, 0, false, false});
    line(fmt::format("return {};", expr(f.result, 3)));
    pop();
    --indent_;
    line("}");
    functions_.push_back(f);  // defined at the shader's top level: visible to its end
  }

  void set_component(int e) {
    std::vector<const Var*> c;
    for (const auto& s : scopes_)
      for (const Var& v : s)
        if (v.writable && v.array == 0 && lang::is_triple(v.type)) c.push_back(&v);
    if (c.empty()) return declaration(e);
    const Var& v = *pick(c);
    if (v.type == BaseType::Color || chance(0.5f)) line(fmt::format("setcomp({}, {}, {});", v.name, below(3), float_expr(e)));
    else line(fmt::format("set{}comp({}, {});", "xyz"[below(3)], v.name, float_expr(e)));
  }

  // ---- the shader ---------------------------------------------------------------------------
  void shader(const std::string& name) {
    // Parameters: floats and colours with defaults, a trip count, and a texture name.
    std::vector<std::string> params;
    push();
    const int n = 1 + below(3);
    for (int i = 0; i < n; ++i) {
      const BaseType t = chance(0.6f) || !p_.vectors ? BaseType::Float : BaseType::Color;
      const std::string k = fresh("k");
      params.push_back(fmt::format("{} {} = {}", type_name(t), k, t == BaseType::Float ? constant() : triple_leaf_constant(t)));
      declare({k, t, 0, false, true});
    }
    count_param_ = fresh("n");
    params.push_back(fmt::format("uniform float {} = {}", count_param_, 1 + below(4)));
    std::string header = fmt::format("surface {}(", name);
    for (std::size_t i = 0; i < params.size(); ++i) header += (i ? "; " : "") + params[i];
    line(header + ")");
    line("{");
    ++indent_;
    push();
    statements(std::max(1, o_.statements / 2 + below(o_.statements)), 0);
    // Every value the shader made reaches the output.
    std::vector<std::string> terms;
    for (const Var& v : scopes_.back()) {
      if (v.array > 0 || terms.size() >= 5) continue;
      if (v.type == BaseType::Color) terms.push_back(v.name);
      else if (v.type == BaseType::Float) terms.push_back(fmt::format("color({})", v.name));
    }
    std::string ci;
    if (terms.empty()) ci = expr(BaseType::Color, 3);
    else {
      const float w = 1.0f / static_cast<float>(terms.size());
      for (std::size_t i = 0; i < terms.size(); ++i) ci += (i ? " + " : "") + fmt::format("{} * {}", terms[i], number(w));
    }
    line(fmt::format("Ci = {};", ci));
    line(chance(0.7f) ? "Oi = 1;" : "Oi = Os;");
    pop();
    --indent_;
    line("}");
    pop();
  }
  std::string triple_leaf_constant(BaseType t) {
    return fmt::format("{}({}, {}, {})", type_name(t), unit_constant(), unit_constant(), unit_constant());
  }

  const GeneratorOptions& o_;
  Profile p_;
  ir::SplitMix64 rng_;
  std::string out_;
  int indent_ = 0;
  int next_name_ = 0;
  std::vector<std::vector<Var>> scopes_;
  std::vector<Function> functions_;
  std::string count_param_ = "1";
  int loops_ = 0;
  int no_jumps_ = 0;  // inside a long loop (long_loops): no break or continue
  int depth_calls_ = 0;
  bool in_function_ = false;
  bool in_recursive_ = false;
  bool in_illuminance_ = false;
  bool varying_context_ = false;
};

}  // namespace

GeneratedProgram generate(const GeneratorOptions& options) { return Generator(options).run(); }

}  // namespace passlab::conform
