// A scene's geometry in drawing order, as the renderer (and the OpenGL comparison) submit it:
// opaque objects as listed, then transparent ones (back to front when the scene sorts them),
// adjacent objects with the same shader and opacity grouped into one batch (one draw), triangles
// in camera space with back faces culled, and at each triangle corner the values the shader
// interpolates.
#pragma once

#include <array>
#include <vector>

#include "core/sim/scene.h"
#include "core/sim/shading.h"

namespace passlab::sim {

struct DrawBatch {
  const FragmentShader* shader = nullptr;
  std::vector<std::array<Vec3, 3>> triangles;  // camera space
  std::vector<char> opaque;                    // per triangle: writes depth, replaces what is behind
  std::vector<float> corners;                  // per triangle, corner and interpolant: 4 floats
};

// shaders[i] shades scene.objects[i]. Corners are set up on `threads` threads (0: every
// hardware thread); shaders' corner() must allow that.
std::vector<DrawBatch> draw_list(const Scene& scene, const std::vector<const FragmentShader*>& shaders, int threads = 0);

// The RSL globals at one corner of a triangle (camera space; P, N, Ng, I, E, s, t, u, v, dPdu,
// dPdv, Cs, Os, Ps; the light globals and Ci, Oi zero).
ir::FragmentInputs corner_globals(const SceneObject& o, const Vertex& v, const Vec3& p, const Vec3& ng);

}  // namespace passlab::sim
