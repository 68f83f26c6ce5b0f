// SPDX-License-Identifier: GPL-3.0-or-later
// The RSL standard library: one signature table for overload resolution, shared by every phase.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/lang/types.h"

namespace passlab::lang {

enum class Builtin : std::uint16_t {
  Abs, Sign, Floor, Ceil, Round, Mod, Min, Max, Clamp, Mix, Step, Smoothstep,
  Sqrt, InverseSqrt, Pow, Exp, Log, LogBase, Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Radians, Degrees,
  Length, Normalize, Distance, Faceforward, Reflect, Refract,
  Transform, Vtransform, Ntransform,
  Xcomp, Ycomp, Zcomp, Comp, Setcomp, Setxcomp, Setycomp, Setzcomp,
  Ambient, Diffuse, Specular, Phong,
  Texture, Noise, Spline,
  Du, Dv, Area, Calculatenormal,
  Trace, Visibility, Raylevel,
  PerVertex,
  // RI 3.2 and the renderers' common library, lowered to the operations above (see lower.cpp).
  Cellnoise, Random, Fresnel, Shadow, Environment, Depth, Ctransform, Filterstep,
  Printf, Format, Concat, Match, Arraylength, Pnoise,
  Push, Pop, Resize,  // resizable arrays (PRMan 13's additions): sema and lowering handle the array
  Ptlined, RotatePoint, Specularbrdf, Determinant, MTranslate, MRotate, MScale,
  // Message passing and renderer queries: (name..., output variable) -> 1 when found.
  Lightsource, SurfaceParam, DisplacementParam, AtmosphereParam, Incident, Opposite, Attribute, Option, Rendererinfo,
  Textureinfo,
  // Type-checked, then refused at the fragment DAG with the target family that can run them.
  Deriv, Occlusion, Indirectdiffuse, Bake3d, Texture3d,
  Count
};
const char* to_string(Builtin b);

// How an argument or result type is written in the table. Generic letters unify across the
// signature: every Gen position takes the same type (float or a triple), every PointLike the
// same point/vector/normal.
enum class ArgKind : std::uint8_t { Float, Color, Point, Vector, Normal, Matrix, String, Void, Gen, PointLike };

struct Signature {
  std::string_view name;
  Builtin id;
  ArgKind result;
  std::vector<ArgKind> args;
  bool variadic = false;        // the last argument kind may repeat
  bool needs_lights = false;    // evaluated over the bound light sources
  bool derivative = false;      // needs screen-space derivatives: fragment targets reject it
  bool writes_first = false;    // setcomp family: the first argument is assigned
  bool ray_traced = false;      // casts rays: only a ray-tracing target (the RPU) can run it
  bool point_based = false;     // reads or writes point clouds / brick maps: no Passlab target runs it
  bool options = false;         // optional "name", value pairs may follow the fixed arguments
  bool any_rest = false;        // any number of values of any type may follow (printf, format)
  int outputs_from = -1;        // arguments from this index on are output variables (fresnel)
  bool query = false;           // strings, then one output variable of any type, arrays too (sema checks)
  bool renderer_query = false;  // asks the renderer about its files: no fragment target can
};

// All signatures in table order (the order breaks ties between otherwise equal candidates).
std::span<const Signature> signatures();
const Signature& signature(int index);
// The first signature of a builtin (its flags are the same for every overload).
const Signature& signature_of(Builtin id);
bool is_builtin_name(std::string_view name);

struct ArgInfo {
  BaseType type;
};

// Picks the best signature for a call: fewest promotions, then the one whose result matches
// `expected` (how RSL resolves `float noise(P)` versus `color noise(P)`), then table order.
// Returns index -1 when nothing matches.
struct Resolution {
  int index = -1;
  BaseType result = BaseType::Error;
  std::vector<BaseType> param_types;  // the type each argument converts to
};
Resolution resolve(std::string_view name, std::span<const BaseType> args, BaseType expected);

// The bases `spline` takes by name (RI 3.2 §15.4): catmull-rom, b-spline, bezier, hermite, linear.
bool is_spline_basis(std::string_view name);

}  // namespace passlab::lang
