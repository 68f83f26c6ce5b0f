// SPDX-License-Identifier: GPL-3.0-or-later
// Every operator and standard-library function the RPU subset supports, compiled, run on the VM
// and compared with the reference interpreter on random inputs (the thesis's ~300 tests, as
// data): in IEEE single arithmetic within a few units in the last place, in the RPU's 24-bit
// arithmetic within the stated tolerance. Across each case's inputs every word of the compiled
// function must run, so every branch of every expansion is exercised.
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "tests/backends/rpu/rpu_test_support.h"

namespace passlab::rpu {
namespace {

using ir::Value;
using test::Rng;

// Tolerances (relative, absolute): exact arithmetic, ordinary arithmetic, the runtime library.
struct Tolerance {
  float ieee_rel, ieee_abs, fp24_rel, fp24_abs;
};
constexpr Tolerance kExact{0, 0, 4e-5f, 4e-5f};
constexpr Tolerance kArith{2e-6f, 1e-6f, 1e-4f, 1e-4f};
constexpr Tolerance kSeries{1e-5f, 2e-6f, 6e-4f, 3e-4f};
// pnoise: mod's reciprocal rounding (above) moves a lattice coordinate by an ulp of the period,
// and the blend's weights carry it.
constexpr Tolerance kPeriodic{5e-5f, 1e-5f, 1e-3f, 5e-4f};

using Args = std::vector<Value>;
using Gen = std::function<Args(Rng&)>;

Value F(Rng& r, float lo, float hi) { return Value::scalar(r.uniform(lo, hi)); }
Value C(Rng& r, float lo, float hi) { return Value::triple(lang::BaseType::Color, r.uniform(lo, hi), r.uniform(lo, hi), r.uniform(lo, hi)); }
Value V(Rng& r, float lo, float hi) { return Value::triple(lang::BaseType::Vector, r.uniform(lo, hi), r.uniform(lo, hi), r.uniform(lo, hi)); }
Value f(float x) { return Value::scalar(x); }
Value c(float x, float y, float z) { return Value::triple(lang::BaseType::Color, x, y, z); }
Value v(float x, float y, float z) { return Value::triple(lang::BaseType::Vector, x, y, z); }

struct Case {
  std::string name;
  std::string rsl;  // defines f
  Gen gen;
  Tolerance tol;
  std::vector<Args> edges;  // inputs that reach particular branches
};

std::vector<Case> cases() {
  return {
      {"add", "color f(color a; color b) { return a + b; }", [](Rng& r) { return Args{C(r, -5, 5), C(r, -5, 5)}; }, kArith, {}},
      {"sub_float", "float f(float a; float b) { return a - b; }", [](Rng& r) { return Args{F(r, -5, 5), F(r, -5, 5)}; }, kArith, {}},
      {"mul_scalar_vector", "vector f(vector a; float k) { return a * k; }", [](Rng& r) { return Args{V(r, -5, 5), F(r, -5, 5)}; }, kArith, {}},
      {"div_float", "float f(float a; float b) { return a / b; }", [](Rng& r) { return Args{F(r, -5, 5), F(r, 0.1f, 5)}; }, kArith, {}},
      {"div_color", "color f(color a; color b) { return a / b; }", [](Rng& r) { return Args{C(r, -5, 5), C(r, 0.2f, 4)}; }, kArith, {}},
      {"div_vector_by_float", "vector f(vector a; float k) { return a / k; }", [](Rng& r) { return Args{V(r, -5, 5), F(r, 0.2f, 4)}; }, kArith, {}},
      {"negate", "vector f(vector a) { return -a; }", [](Rng& r) { return Args{V(r, -5, 5)}; }, kExact, {}},
      {"dot", "float f(vector a; vector b) { return a . b; }", [](Rng& r) { return Args{V(r, -2, 2), V(r, -2, 2)}; }, kArith, {}},
      {"cross", "vector f(vector a; vector b) { return a ^ b; }", [](Rng& r) { return Args{V(r, -2, 2), V(r, -2, 2)}; }, kArith,
       {{v(1, 2, 3), v(4, 5, 6)}}},
      {"tuple", "color f(float a; float b) { return color(a, b, a); }", [](Rng& r) { return Args{F(r, -2, 2), F(r, -2, 2)}; }, kExact, {}},
      {"ternary_less", "float f(float a; float b) { return a < b ? a : b; }", [](Rng& r) { return Args{F(r, -2, 2), F(r, -2, 2)}; },
       kExact, {{f(1), f(1)}}},
      {"ternary_greater_equal", "float f(float a; float b) { return a >= b ? 1 : 2; }", [](Rng& r) { return Args{F(r, -2, 2), F(r, -2, 2)}; },
       kExact, {{f(1), f(1)}}},
      {"ternary_equal", "float f(float a; float b) { return a == b ? 10 : 20; }", [](Rng& r) { return Args{F(r, 0, 3), F(r, 0, 3)}; },
       kExact, {{f(1), f(1)}, {f(1), f(2)}}},
      {"ternary_not_equal_vectors", "float f(vector a; vector b) { return a != b ? 1 : 0; }",
       [](Rng& r) { return Args{V(r, 0, 1), V(r, 0, 1)}; }, kExact, {{v(1, 2, 3), v(1, 2, 3)}}},
      {"and_or_not", "float f(float a; float b; float c) { return (a > 0 && b > 0) || !(c < 0) ? 1 : -1; }",
       [](Rng& r) { return Args{F(r, -1, 1), F(r, -1, 1), F(r, -1, 1)}; }, kExact, {}},
      {"bool_as_float", "float f(float a; float b) { float t = float(a > b); return t * 3 + float(a <= b); }",
       [](Rng& r) { return Args{F(r, -1, 1), F(r, -1, 1)}; }, kExact, {}},
      {"abs", "float f(float x) { return abs(x); }", [](Rng& r) { return Args{F(r, -10, 10)}; }, kExact, {}},
      {"abs_color", "color f(color x) { return abs(x); }", [](Rng& r) { return Args{C(r, -10, 10)}; }, kExact, {}},
      {"sign", "float f(float x) { return sign(x); }", [](Rng& r) { return Args{F(r, -10, 10)}; }, kExact, {}},
      {"sign_vector", "vector f(vector x) { return sign(x); }", [](Rng& r) { return Args{V(r, -10, 10)}; }, kExact, {}},
      {"floor", "float f(float x) { return floor(x); }", [](Rng& r) { return Args{F(r, -100, 100)}; }, kExact, {{f(-2)}, {f(3)}}},
      {"floor_color", "color f(color x) { return floor(x); }", [](Rng& r) { return Args{C(r, -100, 100)}; }, kExact, {}},
      {"ceil", "float f(float x) { return ceil(x); }", [](Rng& r) { return Args{F(r, -100, 100)}; }, kExact, {{f(-2)}, {f(3)}}},
      {"round", "float f(float x) { return round(x); }", [](Rng& r) { return Args{F(r, -100, 100)}; }, kExact,
       {{f(-2.5f)}, {f(2.5f)}, {f(-0.5f)}, {f(0.5f)}}},
      {"round_color", "color f(color x) { return round(x); }", [](Rng& r) { return Args{C(r, -10, 10)}; }, kExact, {}},
      // a - b floor(a / b): the reciprocal's rounding moves the result by about |a| ulp.
      {"mod", "float f(float a; float b) { return mod(a, b); }", [](Rng& r) { return Args{F(r, -20, 20), F(r, 0.5f, 7)}; }, kSeries, {}},
      {"mod_color", "color f(color a; color b) { return mod(a, b); }", [](Rng& r) { return Args{C(r, -20, 20), C(r, 0.5f, 7)}; }, kSeries, {}},
      {"min", "float f(float a; float b) { return min(a, b); }", [](Rng& r) { return Args{F(r, -5, 5), F(r, -5, 5)}; }, kExact, {}},
      {"min_three", "float f(float a; float b; float c) { return min(a, b, c); }",
       [](Rng& r) { return Args{F(r, -5, 5), F(r, -5, 5), F(r, -5, 5)}; }, kExact, {}},
      {"min_color", "color f(color a; color b) { return min(a, b); }", [](Rng& r) { return Args{C(r, -5, 5), C(r, -5, 5)}; }, kExact, {}},
      {"max", "float f(float a; float b) { return max(a, b); }", [](Rng& r) { return Args{F(r, -5, 5), F(r, -5, 5)}; }, kExact, {}},
      {"max_color", "color f(color a; color b) { return max(a, b); }", [](Rng& r) { return Args{C(r, -5, 5), C(r, -5, 5)}; }, kExact, {}},
      {"clamp", "float f(float x; float lo; float hi) { return clamp(x, lo, hi); }",
       [](Rng& r) { return Args{F(r, -3, 3), F(r, -1, 0), F(r, 0, 1)}; }, kExact, {}},
      {"clamp_color", "color f(color x) { return clamp(x, color(0.1, 0.2, 0.3), color(0.6, 0.7, 0.8)); }",
       [](Rng& r) { return Args{C(r, -1, 2)}; }, kExact, {}},
      {"mix", "float f(float a; float b; float t) { return mix(a, b, t); }",
       [](Rng& r) { return Args{F(r, -5, 5), F(r, -5, 5), F(r, 0, 1)}; }, kArith, {}},
      {"mix_colors", "color f(color a; color b; color t) { return mix(a, b, t); }",
       [](Rng& r) { return Args{C(r, -5, 5), C(r, -5, 5), C(r, 0, 1)}; }, kArith, {}},
      {"step", "float f(float e; float x) { return step(e, x); }", [](Rng& r) { return Args{F(r, -1, 1), F(r, -1, 1)}; }, kExact, {}},
      {"smoothstep", "float f(float lo; float hi; float x) { return smoothstep(lo, hi, x); }",
       [](Rng& r) { return Args{F(r, -1, 0), F(r, 0.5f, 1), F(r, -2, 2)}; }, kArith, {}},
      {"sqrt", "float f(float x) { return sqrt(x); }", [](Rng& r) { return Args{F(r, 0, 100)}; }, kArith, {{f(0)}, {f(1e-6f)}}},
      {"inversesqrt", "float f(float x) { return inversesqrt(x); }", [](Rng& r) { return Args{F(r, 0.01f, 100)}; }, kArith, {}},
      {"pow", "float f(float x; float y) { return pow(x, y); }", [](Rng& r) { return Args{F(r, 0.05f, 8), F(r, -3, 3)}; }, kSeries,
       {{f(-2), f(3)}, {f(-2), f(2)}, {f(-2), f(0.5f)}, {f(0), f(2)}, {f(0), f(-1)}, {f(5), f(0)}, {f(0.3f), f(-20)}, {f(100000), f(2)},
        {f(1e-6f), f(0.5f)}}},
      {"exp", "float f(float x) { return exp(x); }", [](Rng& r) { return Args{F(r, -10, 10)}; }, kSeries, {{f(200)}, {f(-200)}, {f(0)}}},
      {"log", "float f(float x) { return log(x); }", [](Rng& r) { return Args{F(r, 0.001f, 1000)}; }, kSeries,
       {{f(0)}, {f(-1)}, {f(1e-15f)}, {f(3e12f)}, {f(1)}}},
      {"log_base", "float f(float x; float b) { return log(x, b); }", [](Rng& r) { return Args{F(r, 0.01f, 100), F(r, 1.5f, 10)}; }, kSeries, {}},
      {"sin", "float f(float x) { return sin(x); }", [](Rng& r) { return Args{F(r, -20, 20)}; }, kSeries, {{f(0)}, {f(1.5707964f)}}},
      {"cos", "float f(float x) { return cos(x); }", [](Rng& r) { return Args{F(r, -20, 20)}; }, kSeries, {}},
      {"tan", "float f(float x) { return tan(x); }", [](Rng& r) { return Args{F(r, -1.4f, 1.4f)}; }, kSeries, {}},
      {"asin", "float f(float x) { return asin(x); }", [](Rng& r) { return Args{F(r, -0.99f, 0.99f)}; }, kSeries, {{f(1)}, {f(-1)}}},
      {"acos", "float f(float x) { return acos(x); }", [](Rng& r) { return Args{F(r, -0.99f, 0.99f)}; }, kSeries, {}},
      {"atan", "float f(float x) { return atan(x); }", [](Rng& r) { return Args{F(r, -20, 20)}; }, kSeries, {{f(0.2f)}, {f(-0.7f)}, {f(5)}}},
      {"atan2", "float f(float y; float x) { return atan(y, x); }", [](Rng& r) { return Args{F(r, -5, 5), F(r, -5, 5)}; }, kSeries,
       {{f(1), f(0)}, {f(-1), f(0)}, {f(0), f(0)}, {f(0), f(-1)}}},
      {"radians_degrees", "float f(float x) { return degrees(radians(x)); }", [](Rng& r) { return Args{F(r, -360, 360)}; }, kArith, {}},
      {"length", "float f(vector a) { return length(a); }", [](Rng& r) { return Args{V(r, -5, 5)}; }, kArith, {{v(0, 0, 0)}}},
      {"normalize", "vector f(vector a) { return normalize(a); }", [](Rng& r) { return Args{V(r, -5, 5)}; }, kArith, {}},
      {"distance", "float f(point a; point b) { return distance(a, b); }", [](Rng& r) { return Args{V(r, -5, 5), V(r, -5, 5)}; }, kArith, {}},
      {"faceforward", "vector f(vector n; vector i) { return faceforward(n, i); }", [](Rng& r) { return Args{V(r, -1, 1), V(r, -1, 1)}; },
       kExact, {}},
      {"faceforward_ref", "vector f(vector n; vector i; vector r) { return faceforward(n, i, r); }",
       [](Rng& r) { return Args{V(r, -1, 1), V(r, -1, 1), V(r, -1, 1)}; }, kExact, {}},
      {"reflect", "vector f(vector i; vector n) { return reflect(i, normalize(n)); }", [](Rng& r) { return Args{V(r, -1, 1), V(r, -1, 1)}; },
       kArith, {}},
      {"refract", "vector f(vector i; vector n; float eta) { return refract(normalize(i), normalize(n), eta); }",
       [](Rng& r) { return Args{V(r, -1, 1), V(r, -1, 1), F(r, 0.5f, 2)}; }, kArith, {}},
      {"components", "float f(point p) { return xcomp(p) * 100 + ycomp(p) * 10 + zcomp(p); }", [](Rng& r) { return Args{V(r, 0, 1)}; },
       kArith, {}},
      {"comp_variable", "float f(color c; float i) { return comp(c, i); }", [](Rng& r) { return Args{C(r, 0, 1), F(r, -1, 4)}; }, kExact,
       {{c(1, 2, 3), f(0)}, {c(1, 2, 3), f(1)}, {c(1, 2, 3), f(2)}, {c(1, 2, 3), f(3)}, {c(1, 2, 3), f(-1)}}},
      {"setcomp_variable", "color f(color c; float i; float x) { color r = c; setcomp(r, i, x); return r; }",
       [](Rng& r) { return Args{C(r, 0, 1), F(r, -1, 4), F(r, 5, 6)}; }, kExact,
       {{c(1, 2, 3), f(0), f(9)}, {c(1, 2, 3), f(1), f(9)}, {c(1, 2, 3), f(2), f(9)}, {c(1, 2, 3), f(3), f(9)}, {c(1, 2, 3), f(-1), f(9)}}},
      {"setxyzcomp", "point f(point p; float a; float b) { point q = p; setxcomp(q, a); setzcomp(q, b); setycomp(q, a + b); return q; }",
       [](Rng& r) { return Args{V(r, 0, 1), F(r, 0, 1), F(r, 0, 1)}; }, kArith, {}},
      {"transform_current", "point f(point p) { return transform(\"current\", p) + vtransform(\"camera\", vector(1, 0, 0)); }",
       [](Rng& r) { return Args{V(r, -1, 1)}; }, kArith, {}},
      // noise (beyond the thesis): the lattice in data memory, filtered by RPU instructions.
      {"noise_point", "float f(point p) { return noise(p); }", [](Rng& r) { return Args{V(r, -40, 40)}; }, kSeries,
       {{v(0, 0, 0)}, {v(31.5f, 0.25f, 7)}, {v(-0.25f, -5.5f, -31.75f)}, {v(-33.75f, 100.25f, 1000.5f)}}},
      {"noise_float", "float f(float x) { return noise(x); }", [](Rng& r) { return Args{F(r, -40, 40)}; }, kSeries, {}},
      {"noise_colour_2d", "color f(float s; float t) { return color noise(s, t); }", [](Rng& r) { return Args{F(r, -9, 9), F(r, -9, 9)}; },
       kSeries, {}},
      {"noise_vector_4d", "vector f(point p; float w) { return vector noise(p, w); }", [](Rng& r) { return Args{V(r, -9, 9), F(r, -9, 9)}; },
       kSeries, {}},
      {"cellnoise", "float f(point p) { return cellnoise(p); }", [](Rng& r) { return Args{V(r, -20, 20)}; }, kExact, {}},
      {"pnoise", "float f(float s; float t) { return pnoise(s, t, 4, 3); }", [](Rng& r) { return Args{F(r, -9, 9), F(r, -9, 9)}; }, kPeriodic, {}},
      {"pnoise_point", "color f(point p) { return color pnoise(p, point(4, 4, 4)) + pnoise(p * 2, point(3, 5, 2)); }",
       [](Rng& r) { return Args{V(r, -9, 9)}; }, kPeriodic, {}},
      {"spline", "float f(float x) { return spline(x, 0, 1, 4, 2, 3, -1); }", [](Rng& r) { return Args{F(r, -0.2f, 1.2f)}; }, kArith,
       {{f(0)}, {f(0.25f)}, {f(0.5f)}, {f(0.75f)}, {f(1)}}},
      {"spline_colours", "color f(float x; color a) { return spline(x, a, color(1, 0, 0), color(0, 1, 0), a * 2, color(0.5)); }",
       [](Rng& r) { return Args{F(r, -0.2f, 1.2f), C(r, -1, 1)}; }, kArith, {{f(0.5f), c(1, 2, 3)}}},
      {"transform_constant_matrix",
       "point f(point p) { matrix m = matrix(0, 1, 0, 0,  -1, 0, 0, 0,  0, 0, 2, 0,  0.5, 0.25, 1, 1); return transform(m, p) + vtransform(m, vector(p)); }",
       [](Rng& r) { return Args{V(r, -5, 5)}; }, kArith, {}},
      // Component tests of the same triples joined by && or ||: one lane test (and xyz, or xy ...).
      {"lanes_all_ge", "float f(vector a) { float r = 2; if (xcomp(a) >= 0 && ycomp(a) >= 0 && zcomp(a) >= 0) r = 1; return r; }",
       [](Rng& r) { return Args{V(r, -0.3f, 1)}; }, kExact, {{v(0, 0, 0)}, {v(0, -0.0f, 1)}, {v(1, 1, -1e-6f)}}},
      {"lanes_any_lt", "float f(vector a) { float r = 2; if (xcomp(a) < 0.5 || ycomp(a) < 0.5 || zcomp(a) < 0.5) r = 1; return r; }",
       [](Rng& r) { return Args{V(r, 0.2f, 1.5f)}; }, kExact, {{v(0.5f, 0.5f, 0.5f)}, {v(0.5f, 0.5f, 0.4f)}}},
      {"lanes_between_triples", "float f(vector a; vector b) { float r = 2; if (comp(a, 0) <= comp(b, 0) && comp(a, 2) <= comp(b, 2)) r = 1; return r; }",
       [](Rng& r) { return Args{V(r, -1, 1), V(r, -1, 1)}; }, kExact, {{v(1, 5, 1), v(1, -5, 1)}}},
      {"lanes_gt_and", "float f(vector a) { float r = 2; if (xcomp(a) > 0.25 && ycomp(a) > 0.25) r = 1; return r; }",
       [](Rng& r) { return Args{V(r, 0, 1)}; }, kExact, {{v(0.25f, 0.5f, 0)}, {v(0.5f, 0.25f, 0)}}},
      {"lanes_any_ne", "float f(vector a; vector b) { float r = 2; if (xcomp(a) != xcomp(b) || ycomp(a) != ycomp(b)) r = 1; return r; }",
       [](Rng& r) { return Args{V(r, -1, 1), V(r, -1, 1)}; }, kExact, {{v(1, 2, 3), v(1, 2, 4)}, {v(1, 2, 3), v(1, 3, 3)}}},
      {"string_compare", "float f(float x) { string a = x > 0 ? \"left\" : \"right\"; return a == \"left\" ? 1 : 2; }",
       [](Rng& r) { return Args{F(r, -1, 1)}; }, kExact, {}},
  };
}

class Library : public ::testing::TestWithParam<Case> {};

// The words of `fn` in the program: from its address up to the next function's.
std::pair<std::uint32_t, std::uint32_t> code_range(const CompiledProgram& p, const FunctionInfo& fn) {
  std::uint32_t end = static_cast<std::uint32_t>(p.program->code.size());
  for (const EntryPoint& e : p.program->entries)
    if (e.address > fn.address) end = std::min(end, e.address);
  return {fn.address, end};
}

void check(const Case& k, const Machine& machine, bool fp24) {
  std::unique_ptr<CompiledProgram> p = test::compile_rsl(k.rsl);
  if (!p->ok()) return;
  const FunctionInfo* fn = p->function("f");
  ASSERT_TRUE(fn);
  VmOptions vo;
  vo.machine = &machine;
  Vm vm(*p->program, vo);
  std::vector<Vec4> memory;
  write_noise_lattice(memory);
  vm.set_memory(&memory);
  std::set<std::uint32_t> executed;
  Rng rng{std::hash<std::string>{}(k.name)};
  std::vector<Args> inputs = k.edges;
  for (int i = 0; i < 150; ++i) inputs.push_back(k.gen(rng));
  const float rel = fp24 ? k.tol.fp24_rel : k.tol.ieee_rel, abs = fp24 ? k.tol.fp24_abs : k.tol.ieee_abs;
  int failures = 0;
  for (const Args& args : inputs) {
    ThreadState t = thread_at(fn->address);
    int nv = 0, ns = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (lang::is_triple(fn->args[i])) {
        for (std::size_t j = 0; j < 3; ++j) t.r(nv)[j] = args[i].f[j];
        ++nv;
      } else {
        t.r(ns++)[3] = args[i].f[0];
      }
    }
    VmStats stats;
    Recording rec;
    vm.run(t, stats, &rec);
    for (const Step& s : rec.steps) executed.insert(s.pc);
    ASSERT_EQ(t.status, ThreadStatus::Done) << t.fault;
    const std::vector<Value> expect = test::run_reference(*p, "f", args);
    ASSERT_EQ(expect.size(), 1u);
    const bool triple = lang::is_triple(fn->results[0]);
    for (int j = 0; j < (triple ? 3 : 1); ++j) {
      const float got = triple ? t.r(0)[static_cast<std::size_t>(j)] : t.r(0)[3];
      const float want = expect[0].f[static_cast<std::size_t>(j)];
      if (!test::close(got, want, rel, abs) && failures++ < 5) {
        std::string in;
        for (const Value& a : args) in += " (" + format_float(a.f[0]) + (lang::is_triple(a.type) ? ", " + format_float(a.f[1]) + ", " + format_float(a.f[2]) : "") + ")";
        ADD_FAILURE() << k.name << (fp24 ? " [fp24]" : " [ieee]") << " lane " << j << ":" << in << " -> " << format_float(got) << ", reference "
                      << format_float(want);
      }
    }
  }
  EXPECT_EQ(failures, 0) << k.name;
  // Every word of f ran for some input: every branch of its expansion was taken.
  const auto [begin, end] = code_range(*p, *fn);
  for (std::uint32_t pc = begin; pc < end; ++pc)
    EXPECT_TRUE(executed.count(pc)) << k.name << (fp24 ? " [fp24]" : " [ieee]") << ": word " << pc << " never ran: " << to_text(p->program->code[pc])
                                    << "\n" << p->assembly;
}

TEST_P(Library, MatchesTheReferenceInIeeeArithmetic) { check(GetParam(), test::ieee_machine(), false); }

TEST_P(Library, MatchesTheReferenceIn24BitArithmetic) { check(GetParam(), default_machine(), true); }

INSTANTIATE_TEST_SUITE_P(Rpu, Library, ::testing::ValuesIn(cases()), [](const auto& info) { return info.param.name; });

TEST(RpuLibrary, SignOfZeroIsOneAsInTheThesis) {
  // The thesis returns 1 for x >= 0 (§13.1: zero has no reliable test on the hardware); the
  // reference interpreter returns 0. This is the one documented difference.
  std::unique_ptr<CompiledProgram> p = test::compile_rsl("float f(float x) { return sign(x); }");
  EXPECT_EQ(test::run_function(*p, "f", {f(0)}, test::ieee_machine()).at(0).f[0], 1.0f);
  EXPECT_EQ(test::run_reference(*p, "f", {f(0)}).at(0).f[0], 0.0f);
}

TEST(RpuLibrary, TheRuntimeLibraryIsCompiledInOnlyWhenUsed) {
  std::unique_ptr<CompiledProgram> plain = test::compile_rsl("float f(float x) { return sqrt(x) + abs(x); }");
  EXPECT_EQ(plain->assembly.find("__rpu_"), std::string::npos);
  std::unique_ptr<CompiledProgram> with = test::compile_rsl("float f(float x) { return pow(x, 2.5); }");
  EXPECT_NE(with->assembly.find("SUBROUTINE_ENTRY___rpu_pow:"), std::string::npos);
  EXPECT_NE(with->assembly.find("SUBROUTINE_ENTRY___rpu_exp2:"), std::string::npos);  // what pow calls
  EXPECT_EQ(with->assembly.find("SUBROUTINE_ENTRY___rpu_sin:"), std::string::npos);
}

}  // namespace
}  // namespace passlab::rpu
