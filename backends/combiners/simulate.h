// SPDX-License-Identifier: GPL-3.0-or-later
// The combiner simulator: a compiled pass run on one fragment with the hardware's arithmetic
// (NV_register_combiners §3.8.12): registers in [-1, 1], products and sums in [-2, 2] before the
// output scale/bias, the input mappings, MUX on spare0.a >= 1/2, per-stage constants, the
// unsigned final combiner; colour interpolants and texels in [0, 1]. With `hardware_precision`,
// register writes keep 9-bit signed fixed point and inputs and outputs 8 bits, as on NV10/NV20.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "backends/combiners/program.h"

namespace passlab::combiners {

using Rgba = std::array<float, 4>;

struct SimOptions {
  bool hardware_precision = false;
};

// What the pipeline delivers to one fragment.
class FragmentSource {
 public:
  virtual ~FragmentSource() = default;
  // The value of an interpolant (or constant) node of the FragmentDag; a scalar in [0].
  virtual std::array<float, 3> value(dag::NodeId node) const = 0;
  // A texture lookup (the noise lattice as "$noise").
  virtual Rgba sample(const std::string& texture, int dims, const float* coords) const = 0;
  // What an earlier pass wrote for the saved node `node` (its framebuffer RGBA, encoded).
  virtual Rgba restored(dag::NodeId node) const = 0;
  // A colour interpolant (V0, V1) as the rasterizer delivers it: GL clamps a vertex's colours to
  // [0, 1] (after the vertex stage's (x + 1)/2 for a signed value) and then interpolates. Empty:
  // the source has only the interpolated value, which the simulator biases and clamps itself (the
  // same wherever the vertices' values are in range).
  virtual std::optional<std::array<float, 3>> vertex_colour(dag::NodeId) const { return std::nullopt; }
  // A 2D lookup's footprint: the screen-space derivatives of its coordinates (ds/dx, dt/dx,
  // ds/dy, dt/dy), when the source knows them (a render does). The unit then filters as GL's
  // mip-mapping does (trilinear between the levels the footprint chooses). Empty: level 0.
  virtual std::optional<std::array<float, 4>> footprint(const TextureUnit&) const { return std::nullopt; }
  virtual Rgba sample_footprint(const std::string& texture, float s, float t, const std::array<float, 4>&) const {
    const float c[2] = {s, t};
    return sample(texture, 2, c);
  }
};

using RegisterFile = std::vector<Rgba>;  // one per machine register

// The registers at the top of the pipeline: texture units' results, interpolated colours (biased
// where the program says, clamped to [0, 1]), constant colours.
RegisterFile load_registers(const Program& p, const Machine& m, const FragmentSource& src, const SimOptions& o = {});
// Runs the general stages and the final combiner: the fragment's RGBA (in [0, 1]).
Rgba execute(const Program& p, const Machine& m, RegisterFile& regs, const SimOptions& o = {});
// Both.
Rgba simulate(const Program& p, const Machine& m, const FragmentSource& src, const SimOptions& o = {});

// The saved value an intermediate RGBA holds (decoding (x+1)/2); a scalar in [0].
std::array<float, 3> decode_saved(const Rgba& rgba, Encoding e, bool scalar);

// Rounds to the nearest multiple of 1/255 within [lo, 1].
float quantize(float x, float lo);

}  // namespace passlab::combiners
