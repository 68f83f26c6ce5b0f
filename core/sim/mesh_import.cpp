// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh files in the formats other tools export (glTF 2.0, FBX, Collada, STL, 3DS and the rest
// Assimp reads), read through Assimp into a Mesh. OBJ and PLY keep their own readers
// (mesh_io.cpp): Assimp's problems carry no line, some bad OBJ lines pass it silently, and an
// absurd PLY count makes it try the allocation (core/sim/README.md, "Mesh files").
//
// What stands between a hostile file and the renderer: a size limit before Assimp sees the file,
// Assimp's own validation step, limits on vertices and triangles, and a check that every
// position is finite. A .gltf file's JSON is checked first, so that a syntax error is placed at
// its line and column (Assimp only says that no reader fits).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/lang/json_error.h"
#include "core/sim/mesh.h"

namespace passlab::sim {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;
constexpr std::size_t kMaxVertices = 50'000'000;
constexpr std::size_t kMaxTriangles = 50'000'000;

std::string lower_extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

void add(lang::Diagnostics* problems, const std::string& path, int line, int column, std::string message) {
  if (!problems) return;
  const lang::FileId file = problems->sources().add(path, "");
  problems->error("mesh", lang::line_span(file, static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(column)), std::move(message));
}

// A .gltf file's JSON syntax; false (and the problem at its line and column) if it is broken.
bool gltf_json_parses(const std::string& path, lang::Diagnostics* problems) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  try {
    [[maybe_unused]] const nlohmann::json parsed = nlohmann::json::parse(json);
    return true;
  } catch (const nlohmann::json::exception& e) {
    const lang::JsonError error = lang::json_error(e, json);
    add(problems, path, error.line, error.column, "the glTF file is not valid JSON: " + error.message);
    return false;
  }
}

Vec3 vec(const aiVector3D& a) { return {a.x, a.y, a.z}; }

bool finite(const aiVector3D& a) { return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z); }

}  // namespace

std::optional<Mesh> import_mesh(const std::string& path, lang::Diagnostics* problems) {
  std::error_code ec;
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (ec) {
    add(problems, path, 0, 0, fmt::format("cannot open the file: {}", ec.message()));
    return std::nullopt;
  }
  if (bytes > kMaxFileBytes) {
    add(problems, path, 0, 0, fmt::format("the file has {} bytes; meshes over {} bytes are not read", bytes, kMaxFileBytes));
    return std::nullopt;
  }
  if (lower_extension(path) == ".gltf" && !gltf_json_parses(path, problems)) return std::nullopt;

  Assimp::Importer importer;
  // Node transforms applied, every polygon a triangle, corners that agree in every attribute
  // shared, points and lines split into meshes of their own (skipped below; Assimp's own removal
  // would fail the file with "No meshes remaining"), and the scene validated before it is read.
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_PreTransformVertices | aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                  aiProcess_SortByPType | aiProcess_ValidateDataStructure);
  if (!scene) {
    add(problems, path, 0, 0, fmt::format("cannot read the mesh: {}", importer.GetErrorString()));
    return std::nullopt;
  }

  Mesh mesh;
  for (unsigned mi = 0; mi < scene->mNumMeshes; ++mi) {
    const aiMesh& m = *scene->mMeshes[mi];
    const std::string name = m.mName.length ? fmt::format("mesh '{}'", m.mName.C_Str()) : fmt::format("mesh {}", mi);
    if (!(m.mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    if (mesh.vertices.size() + m.mNumVertices > kMaxVertices || mesh.triangles.size() + m.mNumFaces > kMaxTriangles) {
      add(problems, path, 0, 0, fmt::format("more than {} vertices or {} triangles: not a mesh to shade", kMaxVertices, kMaxTriangles));
      return std::nullopt;
    }
    const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
    for (unsigned i = 0; i < m.mNumVertices; ++i) {
      if (!finite(m.mVertices[i])) {
        add(problems, path, 0, 0, fmt::format("{}: vertex {} has a position that is not a finite number", name, i));
        return std::nullopt;
      }
      Vertex v;
      v.p = vec(m.mVertices[i]);
      if (m.HasNormals() && finite(m.mNormals[i])) {
        const Vec3 n = vec(m.mNormals[i]);
        if (const float l = length(n); l > 0) v.n = n * (1.0f / l);
      }
      if (m.HasTextureCoords(0) && finite(m.mTextureCoords[0][i])) {
        v.s = v.u = m.mTextureCoords[0][i].x;
        v.t = v.v = m.mTextureCoords[0][i].y;
      }
      mesh.vertices.push_back(v);
    }
    for (unsigned f = 0; f < m.mNumFaces; ++f) {
      const aiFace& face = m.mFaces[f];
      if (face.mNumIndices != 3) continue;  // what SortByPType left of points and lines
      mesh.triangles.push_back({base + face.mIndices[0], base + face.mIndices[1], base + face.mIndices[2]});
    }
  }
  if (mesh.triangles.empty()) {
    add(problems, path, 0, 0, "the file has no faces (points and lines are not drawn)");
    return std::nullopt;
  }
  return mesh;
}

std::vector<std::string> mesh_extensions() {
  std::string list;
  Assimp::Importer().GetExtensionList(list);  // "*.3ds;*.obj;…"
  std::vector<std::string> out{".obj", ".ply"};
  std::stringstream words(list);
  for (std::string w; std::getline(words, w, ';');) {
    if (w.rfind("*.", 0) == 0) w = w.substr(1);
    std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!w.empty() && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  std::sort(out.begin() + 2, out.end());
  return out;
}

bool imported_extension(const std::string& path) {
  const std::string e = lower_extension(path);
  return !e.empty() && e != ".obj" && e != ".ply" && Assimp::Importer().IsExtensionSupported(e);
}

}  // namespace passlab::sim
