// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh files read through Assimp: the same surface from the formats other tools export (glTF, GLB,
// FBX, Collada, STL, each written by Assimp's exporter from one OBJ; FBX as ASCII, since Assimp
// 5.2's binary FBX writer makes files its reader rejects, and not 3DS, whose Z-up round trip in
// Assimp 5.2 does not give the same positions back), a hand-written
// glTF whose node transform must be applied, and each kind of bad file reported with its file
// (a .gltf file's JSON error at its line and column).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/sim/mesh.h"
#include "tests/support/diagnostics.h"

namespace passlab::sim {
namespace {

using Problem = test::Located;
using Problems = std::vector<test::Located>;

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class MeshImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passlab_import_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return (dir_ / name).string();
  }
  Problems load_fails(const std::string& path) const {
    lang::Diagnostics found;
    EXPECT_FALSE(load_mesh(path, &found).has_value());
    const Problems problems = test::located(found);
    EXPECT_FALSE(problems.empty());
    for (const Problem& p : problems) EXPECT_EQ(p.file, path);
    return problems;
  }

  fs::path dir_;
};

// A corner as the comparison sees it: position, normal and texture coordinates.
struct Corner {
  Vec3 p, n;
  float s, t;
};

// The triangles of a mesh as corner triples, each turned to start at its least position (so the
// winding is kept) and sorted: two meshes with the same surface give the same list.
std::vector<std::array<Corner, 3>> surface(const Mesh& m) {
  auto less = [](const Vec3& a, const Vec3& b) { return std::tie(a.x, a.y, a.z) < std::tie(b.x, b.y, b.z); };
  std::vector<std::array<Corner, 3>> out;
  for (const auto& tri : m.triangles) {
    std::array<Corner, 3> c;
    for (int k = 0; k < 3; ++k) {
      const Vertex& v = m.vertices[tri[k]];
      c[k] = {v.p, v.n, v.s, v.t};
    }
    const int first = less(c[1].p, c[0].p) ? (less(c[2].p, c[1].p) ? 2 : 1) : (less(c[2].p, c[0].p) ? 2 : 0);
    std::rotate(c.begin(), c.begin() + first, c.end());
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    for (int k = 0; k < 3; ++k) {
      if (less(a[k].p, b[k].p)) return true;
      if (less(b[k].p, a[k].p)) return false;
    }
    return false;
  });
  return out;
}

void expect_near(const Vec3& a, const Vec3& b, const char* what) {
  EXPECT_NEAR(a.x, b.x, 1e-5f) << what;
  EXPECT_NEAR(a.y, b.y, 1e-5f) << what;
  EXPECT_NEAR(a.z, b.z, 1e-5f) << what;
}

// A quad and a triangle apart from it, with normals and texture coordinates everywhere.
constexpr const char* kObj =
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 1\nv 3 0 1\nv 2.5 1 1.5\n"
    "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.25\n"
    "vn 0 0 1\nvn 0 0.6 0.8\n"
    "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
    "f 5/1/2 6/2/2 7/5/2\n";

TEST_F(MeshImport, EveryExportedFormatGivesTheSameSurfaceAsTheObj) {
  const std::string obj = write("source.obj", kObj);
  lang::Diagnostics problems;
  const std::optional<Mesh> reference = load_mesh(obj, &problems);
  ASSERT_TRUE(reference) << problems.text();
  const auto expected = surface(*reference);
  ASSERT_EQ(expected.size(), 3u);

  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(obj, 0);
  ASSERT_NE(scene, nullptr) << importer.GetErrorString();
  struct Format {
    const char* id;
    const char* file;
    bool attributes;  // keeps normals and texture coordinates (STL keeps face normals only)
  };
  for (const Format& f : {Format{"gltf2", "mesh.gltf", true}, Format{"glb2", "mesh.glb", true}, Format{"fbxa", "mesh.fbx", true},
                          Format{"collada", "mesh.dae", true}, Format{"stlb", "mesh.stl", false}}) {
    SCOPED_TRACE(f.id);
    const std::string path = (dir_ / f.file).string();
    Assimp::Exporter exporter;
    ASSERT_EQ(exporter.Export(scene, f.id, path), aiReturn_SUCCESS) << exporter.GetErrorString();
    EXPECT_TRUE(imported_extension(path));
    lang::Diagnostics found;
    const std::optional<Mesh> mesh = load_mesh(path, &found);
    ASSERT_TRUE(mesh) << found.text();
    const auto got = surface(*mesh);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        expect_near(got[i][k].p, expected[i][k].p, "position");
        if (!f.attributes) continue;
        expect_near(got[i][k].n, expected[i][k].n, "normal");
        EXPECT_NEAR(got[i][k].s, expected[i][k].s, 1e-5f);
        EXPECT_NEAR(got[i][k].t, expected[i][k].t, 1e-5f);
      }
  }
}

std::string base64(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[n & 63] : '=';
  }
  return out;
}

// One triangle (positions only) in a node moved by `translation` and scaled by 2, drawn as `mode`.
std::string gltf(const std::array<float, 9>& positions, int mode = 4) {
  std::string bytes(sizeof positions, '\0');
  std::memcpy(bytes.data(), positions.data(), sizeof positions);
  return R"({
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": [{"mesh": 0, "translation": [0, 0, 5], "scale": [2, 2, 2]}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": )" +
         std::to_string(mode) + R"(}]}],
  "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,)" +
         base64(bytes) + R"("}],
  "bufferViews": [{"buffer": 0, "byteLength": 36}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0, 0, 0], "max": [1, 1, 0]}]
}
)";
}

TEST_F(MeshImport, HandWrittenGltfHasItsNodeTransformApplied) {
  lang::Diagnostics problems;
  const std::optional<Mesh> mesh = load_mesh(write("tri.gltf", gltf({0, 0, 0, 1, 0, 0, 0, 1, 0})), &problems);
  ASSERT_TRUE(mesh) << problems.text();
  ASSERT_EQ(mesh->triangles.size(), 1u);
  const auto& t = mesh->triangles[0];
  expect_near(mesh->vertices[t[0]].p, {0, 0, 5}, "corner 0");
  expect_near(mesh->vertices[t[1]].p, {2, 0, 5}, "corner 1");
  expect_near(mesh->vertices[t[2]].p, {0, 2, 5}, "corner 2");
}

TEST_F(MeshImport, BrokenGltfJsonIsPlacedAtItsLineAndColumn) {
  std::string text = gltf({0, 0, 0, 1, 0, 0, 0, 1, 0});
  text.replace(text.find("\"scene\": 0,"), 11, "\"scene\": 0,,");  // line 3
  const Problems problems = load_fails(write("broken.gltf", text));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].line, 3);
  EXPECT_EQ(problems[0].column, 14);
  EXPECT_THAT(problems[0].message, HasSubstr("not valid JSON"));
}

TEST_F(MeshImport, AGltfNumberTooLargeForADoubleIsPlaced) {
  std::string text = gltf({0, 0, 0, 1, 0, 0, 0, 1, 0});
  text.replace(text.find("\"scene\": 0,"), 11, "\"scene\": 1e999,");  // line 3
  const Problems problems = load_fails(write("huge.gltf", text));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].line, 3);
  EXPECT_THAT(problems[0].message, HasSubstr("too large for a double"));
}

TEST_F(MeshImport, BadFilesAreProblemsNamingTheFile) {
  EXPECT_THAT(load_fails((dir_ / "absent.glb").string())[0].message, HasSubstr("cannot open"));
  // A GLB cut short, a Collada file that is not XML, an FBX of nonsense.
  EXPECT_THAT(load_fails(write("short.glb", std::string("glTF\x02\0\0\0", 8)))[0].message, HasSubstr("cannot read the mesh"));
  EXPECT_THAT(load_fails(write("mesh.dae", "<COLLADA><library_geometries>"))[0].message, HasSubstr("cannot read the mesh"));
  EXPECT_THAT(load_fails(write("mesh.fbx", "Kaydara FBX Binary  \0garbage"))[0].message, HasSubstr("cannot read the mesh"));
  // Points are not a surface; a position that is not a number is not drawable.
  EXPECT_THAT(load_fails(write("points.gltf", gltf({0, 0, 0, 1, 0, 0, 0, 1, 0}, 0)))[0].message, HasSubstr("no faces"));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Problems bad = load_fails(write("nan.gltf", gltf({0, 0, 0, nan, 0, 0, 0, 1, 0})));
  EXPECT_THAT(bad[0].message, HasSubstr("not a finite number"));
}

TEST_F(MeshImport, LoadMeshKnowsTheFormatsByExtension) {
  const std::vector<std::string> known = mesh_extensions();
  for (const char* e : {".obj", ".ply", ".gltf", ".glb", ".fbx", ".dae", ".stl", ".3ds"})
    EXPECT_NE(std::find(known.begin(), known.end(), e), known.end()) << e;
  EXPECT_EQ(known[0], ".obj");
  EXPECT_FALSE(imported_extension("mesh.obj"));
  EXPECT_FALSE(imported_extension("mesh.ply"));
  EXPECT_TRUE(imported_extension("MESH.GLB"));
  EXPECT_THAT(load_fails(write("mesh.xyzzy", kObj))[0].message, HasSubstr("unknown mesh format '.xyzzy'"));
}

}  // namespace
}  // namespace passlab::sim
