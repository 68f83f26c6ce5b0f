// SPDX-License-Identifier: GPL-3.0-or-later
// What the renderer asks of a shader, whole or split into passes: the values its interpolants
// start from at each triangle corner, and each pass's program run over a batch of fragments in
// structure-of-arrays form. Backends implement it (backends/fp/pass_shader.h).
#pragma once

#include <vector>

#include "core/ir/interpreter.h"

namespace passlab::sim {

// Fragments per batch. A batch value is 4 * kBatch floats: all x, then all y, z and w.
constexpr int kBatch = 128;

class FragmentShader {
 public:
  virtual ~FragmentShader() = default;
  virtual int passes() const = 0;
  // Interpolated 4-vectors per fragment.
  virtual int interpolants() const = 0;
  // Instructions one fragment runs over all passes, for cost models (0: not known).
  virtual long operations() const { return 0; }
  // The interpolants at one triangle corner (interpolants() * 4 floats), from its RSL globals.
  // Called from several threads at once.
  virtual void corner(const ir::FragmentInputs& in, float* out) const = 0;
  // Whether interpolant k is a derivative one: its corner values are (a, b, a, b), and a fragment
  // gets their screen-space derivatives (da/dx, db/dx, da/dy, db/dy) across the triangle rather
  // than their interpolated values (texture lookups choose mip levels from them).
  virtual bool screen_derivatives(int /*k*/) const { return false; }
  // Whether interpolant k is a difference one: 1, a fragment gets its value one pixel to the
  // right minus its value here (all four components, the triangle's interpolation extended past
  // its edges), 2 one pixel below; 3, its value one pixel to the right, 4 below; 0 its value
  // here. The derivative functions are made of these.
  virtual int screen_difference(int /*k*/) const { return 0; }
  // Whether "one pixel to the right" and "below" above mean the fragment's partners in its 2x2
  // quad (one pixel right or left, below or above: a target that differences across quads,
  // partition::Derivatives::Quad), rather than always the next pixel.
  virtual bool quad_differences() const { return false; }
  // The components of interpolant k that pass `pass` reads, as a 4-bit mask (0: none). The
  // renderer interpolates only these; run() must not depend on the others.
  virtual unsigned interpolant_mask(int pass, int k) const = 0;
  // Intermediate buffers: those pass `pass` reads, and the one it writes (-1: the last pass,
  // whose value is the fragment's colour, RGB and alpha).
  virtual int buffers() const = 0;
  virtual const std::vector<int>& restores(int pass) const = 0;
  virtual int saves(int pass) const = 0;
  // Values the pass writes, each to its own buffer (multiple render targets): run() writes value k
  // at out + k * 4 * kBatch, to buffer saves(pass, k). saves(pass, 0) is saves(pass). The last pass
  // writes one value, the colour.
  virtual int outputs(int /*pass*/) const { return 1; }
  virtual int saves(int pass, int k) const { return k == 0 ? saves(pass) : -1; }
  // Runs `pass` on n <= kBatch fragments: in[k] is interpolant k, restored[r] the value of
  // restores(pass)[r]; writes the pass's value to out. `scratch` is the caller's, one per thread.
  virtual void run(int pass, int n, const float* const* in, const float* const* restored, float* out,
                   std::vector<float>& scratch) const = 0;
};

}  // namespace passlab::sim
