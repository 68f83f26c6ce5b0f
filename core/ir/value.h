// SPDX-License-Identifier: GPL-3.0-or-later
// Runtime values of the IR and the semantics of every operation, shared by all evaluators.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>

#include "core/ir/ir.h"

// Hot loops compiled twice, for AVX2 and for the baseline, chosen when the program loads (GCC
// on Linux). Neither uses fused multiply-adds, so both give the same bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PASSLAB_HOT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PASSLAB_HOT_CLONES
#endif

namespace passlab::ir {

using Matrix = std::array<float, 16>;  // row-major; points are row vectors: p' = p * M

struct Value {
  BaseType type = BaseType::Float;
  std::array<float, 16> f{};  // components; bool is 0 or 1 in f[0]
  std::string s;              // strings

  static Value scalar(float x);
  static Value triple(BaseType t, float x, float y, float z);
  static Value boolean(bool b);
  static Value matrix(const Matrix& m);
  static Value string(std::string s);
  static Value zero(BaseType t);
  bool truth() const { return f[0] != 0.0f; }
};

Matrix identity_matrix();
Matrix multiply(const Matrix& a, const Matrix& b);
// Returns false (and leaves *out alone) when m is singular.
bool invert(const Matrix& m, Matrix* out);
// A point, vector or normal through `m` as RSL's transform, vtransform and ntransform do (a
// normal by the inverse transpose, a point divided by w); other values unchanged.
Value transform_by(const Value& v, const Matrix& m);

// Texture lookups: the only way evaluation reads images. Coordinates are 1-3 floats.
class TextureSampler {
 public:
  virtual ~TextureSampler() = default;
  virtual std::array<float, 4> sample(const std::string& name, int dims, const float* coords) const = 0;
  // Whether `name` is an image (which has mip levels) rather than a stand-in.
  virtual bool has_image(const std::string& /*name*/) const { return false; }
  // An image's width and height in texels at full size ({0, 0} for a stand-in).
  virtual std::array<int, 2> image_size(const std::string& /*name*/) const { return {0, 0}; }
  // A lookup at (s, t) whose footprint on screen is given by the coordinates' screen-space
  // derivatives grad = (ds/dx, dt/dx, ds/dy, dt/dy): images choose their mip level from it.
  virtual std::array<float, 4> sample_grad(const std::string& name, float s, float t, const float* /*grad*/) const {
    const float c[2] = {s, t};
    return sample(name, 2, c);
  }
  // n of those at once: lookup i at (s[i], t[i]) with derivatives grad[0..3][i], its RGB to
  // rgb[0..2][i].
  virtual void sample_grad_batch(const std::string& name, int n, const float* s, const float* t, const float* const grad[4],
                                 float* const rgb[3]) const {
    for (int i = 0; i < n; ++i) {
      const float g[4] = {grad[0][i], grad[1][i], grad[2][i], grad[3][i]};
      const std::array<float, 4> v = sample_grad(name, s[i], t[i], g);
      for (int c = 0; c < 3; ++c) rgb[c][i] = v[static_cast<std::size_t>(c)];
    }
  }
};

// The noise texture every `noise()` call reads: a 32^3 periodic lattice of hashed values per
// channel, filtered trilinearly like a GPU's 3D texture. Values lie in [0, 1].
std::array<float, 4> sample_noise(int dims, const float* coords);
// The first `channels` channels only (the others 0), each exactly as sample_noise gives it.
std::array<float, 4> sample_noise(int dims, const float* coords, int channels);
// n lookups at once: coordinate axis i of lookup k is coords[i][k] (axes past `dims` read 0),
// channel c goes to out[c][k]; each exactly as sample_noise gives it.
void sample_noise_batch(int dims, int n, const float* const coords[3], int channels, float* const out[4]);
// One point of that lattice (coordinates taken modulo 32), channel 0-3: what the filter weighs.
float noise_lattice(int x, int y, int z, int channel);

// The stand-in image of a texture name, channel c (RGB): 0.5 + 0.5 sin(2 pi (fs s + ft t) + phase).
struct ProceduralBand {
  float fs = 1, ft = 1, phase = 0;
};
ProceduralBand procedural_band(const std::string& name, int channel);

// Deterministic stand-in images for named textures (smooth bands whose frequencies and phases
// come from a hash of the name), so any shader can be evaluated without image files.
class ProceduralTextures : public TextureSampler {
 public:
  std::array<float, 4> sample(const std::string& name, int dims, const float* coords) const override;
};

// Ray casting for the ray-traced builtins (trace, visibility, raylevel): a reference renderer
// supplies it; without one they cannot be evaluated.
class RayTracer {
 public:
  virtual ~RayTracer() = default;
  // The colour seen along R from P (the hit surface's shader runs one level deeper).
  virtual Value trace(const Value& P, const Value& R) const = 0;
  // The same, from a run that has neighbouring fragments (RunOptions::right, below): the rays
  // they cast at this trace, where they reach it, so that the hit's shader can take derivatives.
  struct NeighbourRay {
    Value P, R;
  };
  struct NeighbourRays {
    std::optional<NeighbourRay> right, below;
  };
  virtual Value trace(const Value& P, const Value& R, const NeighbourRays& neighbours) const {
    (void)neighbours;
    return trace(P, R);
  }
  // A trace on a neighbour's run (its value only feeds a derivative): by default the same.
  virtual Value helper_trace(const Value& P, const Value& R) const { return trace(P, R); }
  // 1 if nothing lies between p1 and p2, else 0.
  virtual float visibility(const Value& p1, const Value& p2) const = 0;
  // The current ray's level: 1 for a camera ray.
  virtual float level() const = 0;
};

// What evaluation needs beyond operands: textures and the named coordinate systems.
struct EvalContext {
  const TextureSampler* textures = nullptr;      // null: ProceduralTextures
  const RayTracer* rays = nullptr;               // null: ray-traced builtins cannot run
  std::map<std::string, Matrix> spaces;          // space -> current; missing spaces are identity
  const Matrix* space(const std::string& name) const;
};

// Evaluates one non-control instruction (not Phi, ShaderParam, Arg, Global, Call, Extract) on
// its operand values. Never throws; domain errors give IEEE results (NaN, inf) like hardware.
Value evaluate(Op op, BaseType type, std::uint32_t aux, const std::string& text, const std::vector<float>& data,
               const std::vector<const Value*>& args, const EvalContext& ctx);

}  // namespace passlab::ir
