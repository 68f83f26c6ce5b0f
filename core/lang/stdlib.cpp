// SPDX-License-Identifier: GPL-3.0-or-later
// The RSL standard library: one signature table for overload resolution, shared by every phase.
#include "core/lang/stdlib.h"

#include <algorithm>
#include <array>

namespace passlab::lang {

namespace {

using K = ArgKind;
using B = Builtin;

// The table under construction: each section of the library adds its signatures.
struct Table {
  std::vector<Signature> t;
  void add(std::string_view n, B id, K r, std::vector<K> a) { t.push_back({n, id, r, std::move(a)}); }
  void gen1(std::string_view n, B id) { add(n, id, K::Gen, {K::Gen}); }
  void f1(std::string_view n, B id) { add(n, id, K::Float, {K::Float}); }

  // Mathematical functions.
  void math() {
    gen1("abs", B::Abs);
    gen1("sign", B::Sign);
    gen1("floor", B::Floor);
    gen1("ceil", B::Ceil);
    gen1("round", B::Round);
    add("mod", B::Mod, K::Gen, {K::Gen, K::Gen});
    add("min", B::Min, K::Gen, {K::Gen, K::Gen});
    t.back().variadic = true;
    add("max", B::Max, K::Gen, {K::Gen, K::Gen});
    t.back().variadic = true;
    add("clamp", B::Clamp, K::Gen, {K::Gen, K::Gen, K::Gen});
    add("mix", B::Mix, K::Gen, {K::Gen, K::Gen, K::Float});
    add("mix", B::Mix, K::Gen, {K::Gen, K::Gen, K::Gen});
    add("step", B::Step, K::Float, {K::Float, K::Float});
    add("smoothstep", B::Smoothstep, K::Float, {K::Float, K::Float, K::Float});
    f1("sqrt", B::Sqrt);
    f1("inversesqrt", B::InverseSqrt);
    add("pow", B::Pow, K::Float, {K::Float, K::Float});
    f1("exp", B::Exp);
    f1("log", B::Log);
    add("log", B::LogBase, K::Float, {K::Float, K::Float});
    f1("sin", B::Sin);
    f1("cos", B::Cos);
    f1("tan", B::Tan);
    f1("asin", B::Asin);
    f1("acos", B::Acos);
    f1("atan", B::Atan);
    add("atan", B::Atan2, K::Float, {K::Float, K::Float});
    f1("radians", B::Radians);
    f1("degrees", B::Degrees);
    add("length", B::Length, K::Float, {K::PointLike});
    add("normalize", B::Normalize, K::PointLike, {K::PointLike});
  }

  // Geometric functions and components.
  void geometry() {
    add("distance", B::Distance, K::Float, {K::PointLike, K::PointLike});
    add("faceforward", B::Faceforward, K::PointLike, {K::PointLike, K::PointLike});
    add("faceforward", B::Faceforward, K::PointLike, {K::PointLike, K::PointLike, K::PointLike});
    add("reflect", B::Reflect, K::PointLike, {K::PointLike, K::PointLike});
    add("refract", B::Refract, K::PointLike, {K::PointLike, K::PointLike, K::Float});
    add("transform", B::Transform, K::Point, {K::String, K::Point});
    add("transform", B::Transform, K::Point, {K::String, K::String, K::Point});
    add("transform", B::Transform, K::Point, {K::Matrix, K::Point});
    add("vtransform", B::Vtransform, K::Vector, {K::String, K::Vector});
    add("vtransform", B::Vtransform, K::Vector, {K::String, K::String, K::Vector});
    add("vtransform", B::Vtransform, K::Vector, {K::Matrix, K::Vector});
    add("ntransform", B::Ntransform, K::Normal, {K::String, K::Normal});
    add("ntransform", B::Ntransform, K::Normal, {K::String, K::String, K::Normal});
    add("ntransform", B::Ntransform, K::Normal, {K::Matrix, K::Normal});
    add("xcomp", B::Xcomp, K::Float, {K::PointLike});
    add("ycomp", B::Ycomp, K::Float, {K::PointLike});
    add("zcomp", B::Zcomp, K::Float, {K::PointLike});
    add("comp", B::Comp, K::Float, {K::Color, K::Float});
    add("comp", B::Comp, K::Float, {K::PointLike, K::Float});
    add("comp", B::Comp, K::Float, {K::Matrix, K::Float, K::Float});
    add("setcomp", B::Setcomp, K::Void, {K::Color, K::Float, K::Float});
    t.back().writes_first = true;
    add("setcomp", B::Setcomp, K::Void, {K::PointLike, K::Float, K::Float});
    t.back().writes_first = true;
    add("setxcomp", B::Setxcomp, K::Void, {K::PointLike, K::Float});
    t.back().writes_first = true;
    add("setycomp", B::Setycomp, K::Void, {K::PointLike, K::Float});
    t.back().writes_first = true;
    add("setzcomp", B::Setzcomp, K::Void, {K::PointLike, K::Float});
    t.back().writes_first = true;
    add("ambient", B::Ambient, K::Color, {});
    t.back().needs_lights = true;
    add("diffuse", B::Diffuse, K::Color, {K::Normal});
  }

  // Shading and lighting, texture lookups, noise and splines.
  void shading() {
    t.back().needs_lights = true;
    add("specular", B::Specular, K::Color, {K::Normal, K::Vector, K::Float});
    t.back().needs_lights = true;
    add("phong", B::Phong, K::Color, {K::Normal, K::Vector, K::Float});
    t.back().needs_lights = true;
    for (K r : {K::Float, K::Color}) {
      add("texture", B::Texture, r, {K::String});
      t.back().options = true;
      add("texture", B::Texture, r, {K::String, K::Float, K::Float});
      t.back().options = true;
      // Four corners (s1, t1 ... s4, t4): Passlab reads at their centre.
      add("texture", B::Texture, r, {K::String, K::Float, K::Float, K::Float, K::Float, K::Float, K::Float, K::Float, K::Float});
      t.back().options = true;
    }
    for (K r : {K::Float, K::Color, K::Point, K::Vector}) {
      add("noise", B::Noise, r, {K::Float});
      add("noise", B::Noise, r, {K::Float, K::Float});
      add("noise", B::Noise, r, {K::Float, K::Float, K::Float});
      add("noise", B::Noise, r, {K::Point});
    }
    add("spline", B::Spline, K::Float, {K::Float, K::Float, K::Float, K::Float, K::Float});
    t.back().variadic = true;
    add("spline", B::Spline, K::Color, {K::Float, K::Color, K::Color, K::Color, K::Color});
    t.back().variadic = true;
    add("spline", B::Spline, K::Point, {K::Float, K::Point, K::Point, K::Point, K::Point});
    t.back().variadic = true;
    for (K r : {K::Float, K::Color, K::Point, K::Vector}) {
      add("Du", B::Du, r, {r});
      t.back().derivative = true;
      add("Dv", B::Dv, r, {r});
      t.back().derivative = true;
    }
    add("area", B::Area, K::Float, {K::Point});
    t.back().derivative = true;
    add("calculatenormal", B::Calculatenormal, K::Normal, {K::Point});
    t.back().derivative = true;
  }

  // Ray tracing, vertex values, cell noise, random numbers, fresnel, shadow and environment maps.
  void tracing_and_maps() {
    // Ray tracing (RI 3.2 trace; BMRT's visibility and raylevel).
    add("trace", B::Trace, K::Color, {K::Point, K::Vector});
    t.back().ray_traced = true;
    add("visibility", B::Visibility, K::Float, {K::Point, K::Point});
    t.back().ray_traced = true;
    add("raylevel", B::Raylevel, K::Float, {});
    t.back().ray_traced = true;
    // Passlab's extension (Stanford RTSL's "vertex" frequency, written out): the value computed at
    // the vertices and interpolated across the triangle, exactly when it is affine, approximately
    // otherwise; the fragment program receives it as one interpolant.
    add("pervertex", B::PerVertex, K::Gen, {K::Gen});

    // cellnoise: a value per unit cell, in every dimension (RI 3.2 §15.8).
    for (K r : {K::Float, K::Color, K::Point, K::Vector}) {
      add("cellnoise", B::Cellnoise, r, {K::Float});
      add("cellnoise", B::Cellnoise, r, {K::Float, K::Float});
      add("cellnoise", B::Cellnoise, r, {K::Point});
      add("cellnoise", B::Cellnoise, r, {K::Point, K::Float});
      add("noise", B::Noise, r, {K::Point, K::Float});  // four-dimensional noise
      add("random", B::Random, r, {});
    }
    // BMRT's urand(): a uniform random float (CallExpr::uniform_random).
    add("urand", B::Random, K::Float, {});
    // fresnel(I, N, eta, output Kr, output Kt [, output R, output T]).
    add("fresnel", B::Fresnel, K::Void, {K::Vector, K::Normal, K::Float, K::Float, K::Float});
    t.back().outputs_from = 3;
    add("fresnel", B::Fresnel, K::Void, {K::Vector, K::Normal, K::Float, K::Float, K::Float, K::Vector, K::Vector});
    t.back().outputs_from = 3;
    // Shadow and environment maps, with the optional parameters of RI 3.2 §15.7.
    // Each also over an area, four corners read at their centre.
    add("shadow", B::Shadow, K::Float, {K::String, K::Point});
    t.back().options = true;
    add("shadow", B::Shadow, K::Float, {K::String, K::Point, K::Point, K::Point, K::Point});
    t.back().options = true;
    for (K r : {K::Float, K::Color}) {
      add("environment", B::Environment, r, {K::String, K::Vector});
      t.back().options = true;
      add("environment", B::Environment, r, {K::String, K::Vector, K::Vector, K::Vector, K::Vector});
      t.back().options = true;
    }
    add("depth", B::Depth, K::Float, {K::Point});
    add("ctransform", B::Ctransform, K::Color, {K::String, K::Color});
    add("ctransform", B::Ctransform, K::Color, {K::String, K::String, K::Color});
    add("filterstep", B::Filterstep, K::Float, {K::Float, K::Float});
    t.back().options = true;
    add("filterstep", B::Filterstep, K::Float, {K::Float, K::Float, K::Float});
    t.back().options = true;
  }

  // Strings, periodic noise, the rest of the geometry, message passing, queries and point-based
  // lookups.
  void strings_and_queries() {
    // Strings: printf writes nothing on a GPU; the others fold when their arguments are constants.
    add("printf", B::Printf, K::Void, {K::String});
    t.back().any_rest = true;
    add("format", B::Format, K::String, {K::String});
    t.back().any_rest = true;
    add("concat", B::Concat, K::String, {K::String, K::String});
    t.back().variadic = true;
    add("match", B::Match, K::Float, {K::String, K::String});
    add("arraylength", B::Arraylength, K::Float, {K::Float});  // sema checks the array argument
    add("push", B::Push, K::Void, {K::Float, K::Float});       // likewise, and the element's type
    add("pop", B::Pop, K::Float, {K::Float});
    add("resize", B::Resize, K::Void, {K::Float, K::Float});
    // Periodic noise: noise(x) made periodic in each coordinate with the given period.
    for (K r : {K::Float, K::Color, K::Point, K::Vector}) {
      add("pnoise", B::Pnoise, r, {K::Float, K::Float});
      add("pnoise", B::Pnoise, r, {K::Float, K::Float, K::Float, K::Float});
      add("pnoise", B::Pnoise, r, {K::Point, K::Point});
    }
    // The rest of RI 3.2 §15.3-15.5: geometry, the specular BRDF, matrices.
    add("ptlined", B::Ptlined, K::Float, {K::Point, K::Point, K::Point});
    add("rotate", B::RotatePoint, K::Point, {K::Point, K::Float, K::Point, K::Point});
    add("specularbrdf", B::Specularbrdf, K::Color, {K::Vector, K::Normal, K::Vector, K::Float});
    add("determinant", B::Determinant, K::Float, {K::Matrix});
    add("translate", B::MTranslate, K::Matrix, {K::Matrix, K::Vector});
    add("rotate", B::MRotate, K::Matrix, {K::Matrix, K::Float, K::Vector});
    add("scale", B::MScale, K::Matrix, {K::Matrix, K::Point});
    // Message passing (RI 3.2 §15.9) and renderer queries (PRMan): the name or names, then the
    // variable that receives the value; the result is 1 when the value was found.
    auto query = [&](std::string_view n, B id, int names) {
      std::vector<K> a(static_cast<std::size_t>(names), K::String);
      a.push_back(K::Float);  // stands for "any variable": sema checks it
      add(n, id, K::Float, a);
      t.back().query = true;
      t.back().outputs_from = names;
    };
    query("lightsource", B::Lightsource, 1);
    query("surface", B::SurfaceParam, 1);
    query("displacement", B::DisplacementParam, 1);
    query("atmosphere", B::AtmosphereParam, 1);
    query("incident", B::Incident, 1);
    query("opposite", B::Opposite, 1);
    query("attribute", B::Attribute, 1);
    query("option", B::Option, 1);
    query("rendererinfo", B::Rendererinfo, 1);
    query("textureinfo", B::Textureinfo, 2);
    t.back().renderer_query = true;
    for (K r : {K::Float, K::Color, K::Point, K::Vector}) {
      add("Deriv", B::Deriv, r, {r, K::Float});
      t.back().derivative = true;
    }
    // Ray-traced and point-based lookups (PRMan, 3Delight): the RPU traces rays; point clouds
    // and brick maps belong to a renderer's baking passes.
    for (K r : {K::Float, K::Color}) {
      add("occlusion", B::Occlusion, r, {K::Point, K::Normal, K::Float});
      t.back().options = true;
      t.back().ray_traced = true;
    }
    add("indirectdiffuse", B::Indirectdiffuse, K::Color, {K::Point, K::Normal, K::Float});
    t.back().options = true;
    t.back().ray_traced = true;
    add("bake3d", B::Bake3d, K::Float, {K::String, K::String, K::Point, K::Normal});
    t.back().options = true;
    t.back().point_based = true;
    add("texture3d", B::Texture3d, K::Float, {K::String, K::Point, K::Normal});
    t.back().options = true;
    t.back().point_based = true;
  }
};

std::vector<Signature> build_table() {
  Table table;
  table.math();
  table.geometry();
  table.shading();
  table.tracing_and_maps();
  table.strings_and_queries();
  return std::move(table.t);
}

const std::vector<Signature>& table() {
  static const std::vector<Signature> t = build_table();  // immutable after first use
  return t;
}

BaseType concrete(ArgKind k) {
  switch (k) {
    case K::Float: return BaseType::Float;
    case K::Color: return BaseType::Color;
    case K::Point: return BaseType::Point;
    case K::Vector: return BaseType::Vector;
    case K::Normal: return BaseType::Normal;
    case K::Matrix: return BaseType::Matrix;
    case K::String: return BaseType::String;
    case K::Void: return BaseType::Void;
    default: return BaseType::Error;
  }
}

// Cost of passing `from` where `to` is expected: 0 exact, 1 promotion, -1 impossible.
int conversion_cost(BaseType to, BaseType from) {
  if (from == BaseType::Error) return 0;
  if (to == from) return 0;
  if (from == BaseType::Bool && to == BaseType::Float) return 2;
  return is_assignable(to, from) ? 1 : -1;
}

}  // namespace

bool is_spline_basis(std::string_view name) {
  for (std::string_view b : {"catmull-rom", "catmullrom", "b-spline", "bspline", "bezier", "hermite", "linear"})
    if (b == name) return true;
  return false;
}

const char* to_string(Builtin b) {
  for (const auto& s : table())
    if (s.id == b) return s.name.data();
  return "?";
}

std::span<const Signature> signatures() { return table(); }
const Signature& signature(int index) { return table().at(static_cast<std::size_t>(index)); }

const Signature& signature_of(Builtin id) {
  for (const auto& s : table())
    if (s.id == id) return s;
  return table().front();
}

bool is_builtin_name(std::string_view name) {
  return std::any_of(table().begin(), table().end(), [&](const Signature& s) { return s.name == name; });
}

Resolution resolve(std::string_view name, std::span<const BaseType> args, BaseType expected) {
  Resolution best;
  int best_cost = 1 << 30;
  // How well a result fits the type the context expects: 2 exactly, 1 in shape (a triple where a
  // triple is expected: `vector texture(...)` is the colour lookup cast, not a float spread).
  int best_fit = 0;
  const auto& t = table();
  for (std::size_t i = 0; i < t.size(); ++i) {
    const Signature& s = t[i];
    if (s.name != name) continue;
    const std::size_t fixed = s.args.size();
    if (args.size() < fixed || (!s.variadic && !s.options && !s.any_rest && args.size() != fixed)) continue;
    if (s.options && args.size() > fixed) {
      // "name", value pairs: the names are strings; the values have whatever type they have.
      bool pairs = (args.size() - fixed) % 2 == 0;
      for (std::size_t a = fixed; a < args.size() && pairs; a += 2)
        pairs = args[a] == BaseType::String || args[a] == BaseType::Error;
      if (!pairs) continue;
    }
    const bool free_rest = s.options || s.any_rest;
    // Unify the generic letters from the arguments that fix them.
    BaseType gen = BaseType::Float, pointlike = BaseType::Error;
    for (std::size_t a = 0; a < args.size() && !(free_rest && a >= fixed); ++a) {
      K k = s.args[std::min(a, s.args.size() - 1)];
      if (k == K::Gen && is_triple(args[a]) && gen == BaseType::Float) gen = args[a];
      if (k == K::PointLike && is_pointlike(args[a]) && pointlike == BaseType::Error) pointlike = args[a];
    }
    if (pointlike == BaseType::Error) pointlike = BaseType::Vector;
    if (s.result == K::Gen && gen == BaseType::Float && is_triple(expected)) gen = expected;
    auto bind = [&](K k) { return k == K::Gen ? gen : k == K::PointLike ? pointlike : concrete(k); };
    int cost = 0;
    std::vector<BaseType> params;
    for (std::size_t a = 0; a < args.size() && cost >= 0; ++a) {
      if (free_rest && a >= fixed) {
        if (args[a] == BaseType::Void) cost = -1;
        params.push_back(args[a]);
        continue;
      }
      BaseType want = bind(s.args[std::min(a, s.args.size() - 1)]);
      int c = conversion_cost(want, args[a]);
      if (c < 0) cost = -1;
      else cost += c;
      params.push_back(want);
    }
    if (cost < 0) continue;
    BaseType result = bind(s.result);
    const int fit = expected == BaseType::Error ? 0 : result == expected ? 2 : is_triple(result) == is_triple(expected) ? 1 : 0;
    if (cost < best_cost || (cost == best_cost && fit > best_fit)) {
      best.index = static_cast<int>(i);
      best.result = result;
      best.param_types = std::move(params);
      best_cost = cost;
      best_fit = fit;
    }
  }
  return best;
}

}  // namespace passlab::lang
