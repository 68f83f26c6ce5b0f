// SPDX-License-Identifier: GPL-3.0-or-later
// A scene's geometry in drawing order, as the renderer (and the OpenGL comparison) submit it:
// opaque objects as listed, then transparent ones (back to front when the scene sorts them),
// adjacent objects with the same shader and opacity grouped into one batch (one draw), triangles
// in camera space with back faces culled, and at each triangle corner the values the shader
// interpolates.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/sim/scene.h"
#include "core/sim/shading.h"

namespace passlab::sim {

struct DrawBatch {
  const FragmentShader* shader = nullptr;
  std::vector<std::array<Vec3, 3>> triangles;  // camera space
  std::vector<char> opaque;                    // per triangle: writes depth, replaces what is behind
  std::vector<float> corners;                  // per triangle, corner and interpolant: 4 floats
  // With motion (draw_list's `motion`): per triangle, its corners at the end of the unit of motion
  // (equal to `triangles` for still objects), whether its back faces are culled (then per sample,
  // as it may turn while the shutter is open), and its object's shading rate.
  std::vector<std::array<Vec3, 3>> triangles_end;
  std::vector<char> cull_back;
  std::vector<float> shading_rate;
  std::vector<std::uint32_t> object;           // with motion: the scene object of each triangle
  std::vector<std::uint32_t> source;           // with motion: and its triangle in the object's mesh
};

// What a blurred render sees of the geometry: its lens radius, when its shutter opens and closes
// (times of the unit of motion; a stretched shutter may pass 1), and a turn of every corner's
// motion about the view axis in degrees (for sweeps of the motion's direction; the shading
// vectors N, dPdu, dPdv still blend towards the unturned end).
struct Exposure {
  float lens = 0, open = 0, close = 1, motion_angle = 0;
};

// shaders[i] shades scene.objects[i]. Corners are set up on `threads` threads (0: every
// hardware thread); shaders' corner() must allow that. Without `blurred` the scene is seen at the
// start of its motion with back faces culled here; with it, the motion fields above are filled,
// corners' values are those when the shutter opens (decoupled sampling shades as the triangle is
// then; the paper's standard mapping), and a triangle is culled here only if it faces away from
// every point of the lens when the shutter opens and when it closes and turns no way between
// (the rasterizer culls the rest per sample).
std::vector<DrawBatch> draw_list(const Scene& scene, const std::vector<const FragmentShader*>& shaders, int threads = 0,
                                 const Exposure* blurred = nullptr);

// The interpolants at the corners of triangle `tri` of batch `b` (drawn with motion) where it
// stands at `time` of its object's motion, seen from `eye` (the exact reference's set-up, per
// sample): 3 x interpolants x 4 floats into `out`.
void corners_at(const DrawBatch& b, const Scene& scene, std::uint32_t tri, float time, const Vec3& eye, float* out);

// The RSL globals at one corner of a triangle (camera space; P, N, Ng, I, E, s, t, u, v, dPdu,
// dPdv, Cs, Os, Ps, time; the light globals and Ci, Oi zero) when it is shaded at `time` of the unit
// of motion (0: its start), with p and ng where the corner then stands, and a moving object's N,
// dPdu and dPdv blended to that time. The eye is at the origin, or at `eye` (a point of a lens:
// then I = P - eye and E = eye).
ir::FragmentInputs corner_globals(const SceneObject& o, const Vertex& v, const Vec3& p, const Vec3& ng, float time = 0,
                                  const Vec3& eye = {0, 0, 0});

}  // namespace passlab::sim
