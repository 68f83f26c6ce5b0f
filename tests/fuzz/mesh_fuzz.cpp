// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes as a mesh file through load_mesh: the first byte picks the
// format (Passlab's own OBJ and PLY readers, or one Assimp reads: glTF, GLB, STL, OFF, Collada,
// FBX, 3DS), the rest is the file. A crash, sanitizer report or hang is a bug (Assimp's too: a
// scene may name any such file, so what Passlab hands Assimp must be safe); a problem is the
// expected outcome, and a mesh that loads must hold only triangles whose indices are in range.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/sim/mesh.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::array<const char*, 9> kExtensions{".obj", ".ply", ".gltf", ".glb", ".stl", ".off", ".dae", ".fbx", ".3ds"};
  if (size < 1 || size > 256 * 1024) return 0;
  const std::string name = std::string("mesh") + kExtensions[data[0] % kExtensions.size()];
  passlab::lang::Diagnostics problems;
  const auto mesh = passlab::sim::load_mesh(passlab::fuzz::write_input(data + 1, size - 1, name), &problems);
  if (!mesh) {
    if (!problems.has_errors()) std::abort();  // refused without saying why
    return 0;
  }
  for (const auto& tri : mesh->triangles)
    for (auto i : tri)
      if (i >= mesh->vertices.size()) std::abort();
  return 0;
}
