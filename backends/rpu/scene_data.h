// SPDX-License-Identifier: GPL-3.0-or-later
// A scene as the RPU sees it: records in data memory that shaders `load`, and the ray-tracing
// unit that `trace` consults. The thesis leaves the layout to "the application that generates
// the scenes"; Passlab's is (addresses in words, one 4-vector per word), after the noise lattice
// and the program's texture images (memory_map.h, texture_memory.h):
//
//   object record   (4 words)  [Cs.xyz, object index] [Os.xyz, 0] [shader address, 0, 0, 0] [0]
//   vertex record   (5 words)  [P.xyz, 1] [N.xyz, 0] [s, t, u, v] [dPdu.xyz, 0] [dPdv.xyz, 0]
//   triangle record (1 word)   [vertex A, vertex B, vertex C, object record]   (addresses)
//
// so that, as in the thesis's listing, `load I0, HIT_TRI, 0; mov A, I0` gives the four
// addresses and `load Ik, Ak, 0` the three positions and the object's colour Cs. Everything is
// in camera space (the eye at the origin looking down +z). A hit reports
// HIT = (u, v, t, shader address), HIT_TRI = the triangle record, HIT_OBJ = the object record.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/rpu/bvh.h"
#include "backends/rpu/texture_memory.h"
#include "backends/rpu/vm.h"
#include "core/sim/scene.h"

namespace passlab::rpu {

inline constexpr int kObjectWords = 4, kVertexWords = 5, kTriangleWords = 1;

class SceneData : public TraceUnit {
 public:
  // `shader_address[i]` is the entry of object i's surface shader (-1: none; a ray that hits it
  // calls address -1, which faults with a clear message). `textures` are the program's
  // (CompiledProgram::textures), written before the records.
  SceneData(const sim::Scene& scene, const std::vector<float>& shader_address, const TextureMemory& textures);

  Hit trace(const Vec4& origin, const Vec4& direction, const Vec4& args) const override;

  const std::vector<Vec4>& memory() const { return memory_; }
  const Bvh& bvh() const { return bvh_; }
  std::uint32_t triangle_record(std::uint32_t triangle) const { return triangles_ + triangle * kTriangleWords; }
  std::uint32_t object_of(std::uint32_t triangle) const { return triangle_object_[triangle]; }
  // The index of the object whose record is at `record`.
  std::size_t object_index(std::size_t record) const { return (record - objects_) / kObjectWords; }
  // The length of the scene's bounding-box diagonal (epsilons for secondary rays scale with it).
  float extent() const { return extent_; }

 private:
  std::vector<Vec4> memory_;
  Bvh bvh_;
  std::vector<std::uint32_t> triangle_object_;
  std::vector<float> shader_;
  std::uint32_t objects_ = 0, triangles_ = 0;
  float extent_ = 1;
};

}  // namespace passlab::rpu
