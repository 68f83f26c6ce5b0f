// SPDX-License-Identifier: GPL-3.0-or-later
// OBJ and PLY files: every OBJ index form, fanning and shared corners; ascii and binary PLY giving
// the same mesh; and each kind of bad file reported at its line, column or byte.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/sim/mesh.h"
#include "tests/support/diagnostics.h"

namespace passlab::sim {
namespace {

using Problem = test::Located;
using Problems = std::vector<test::Located>;

namespace fs = std::filesystem;

using Triangle = std::array<std::uint32_t, 3>;

class MeshFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("passlab_mesh_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return (dir_ / name).string();
  }
  Mesh load_ok(const std::string& name, const std::string& bytes) const {
    lang::Diagnostics found;
    std::optional<Mesh> mesh = load_mesh(write(name, bytes), &found);
    EXPECT_TRUE(mesh.has_value());
    for (const Problem& p : test::located(found)) ADD_FAILURE() << p.text();
    return mesh.value_or(Mesh());
  }
  Problems load_fails(const std::string& name, const std::string& bytes) const {
    lang::Diagnostics found;
    const std::string path = write(name, bytes);
    EXPECT_FALSE(load_mesh(path, &found).has_value());
    const Problems problems = test::located(found);
    EXPECT_FALSE(problems.empty());
    for (const Problem& p : problems) EXPECT_EQ(p.file, path);
    return problems;
  }

  fs::path dir_;
};

std::string all(const Problems& problems) {
  std::string text;
  for (const Problem& p : problems) text += p.text() + "\n";
  return text;
}

void expect_vertex(const Vertex& v, Vec3 p, Vec3 n, float s, float t) {
  EXPECT_EQ(v.p, p);
  EXPECT_EQ(v.n, n);
  EXPECT_EQ(v.s, s);
  EXPECT_EQ(v.t, t);
  EXPECT_EQ(v.u, s);
  EXPECT_EQ(v.v, t);
  EXPECT_EQ(v.dpdu, Vec3{});
  EXPECT_EQ(v.dpdv, Vec3{});
}

void expect_same_mesh(const Mesh& a, const Mesh& b) {
  ASSERT_EQ(a.vertices.size(), b.vertices.size());
  for (std::size_t i = 0; i < a.vertices.size(); ++i) {
    SCOPED_TRACE(i);
    const Vertex& w = b.vertices[i];
    expect_vertex(a.vertices[i], w.p, w.n, w.s, w.t);
  }
  EXPECT_EQ(a.triangles, b.triangles);
}

// ---- OBJ ----

TEST_F(MeshFiles, ObjReadsEveryIndexFormAndNegativeIndices) {
  const Mesh mesh = load_ok("forms.obj", R"(# every way a face can name its corners
mtllib forms.mtl
o thing
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0 1
vt 0 0
vt 1 0
vt 1 1
vn 0 0 2
g group
usemtl red
s off
f 1 2 3
f 1/1 2/2 3/3
f 1//1 2//1 3//1
f 1/1/1 2/2/1 3/3/1
f -4/-3/-1 -3/-2/-1 -2/-1/-1
l 1 2
)");
  // Four faces of three new corners each; the last face names the same corners as the fourth.
  ASSERT_EQ(mesh.vertices.size(), 12u);
  EXPECT_EQ(mesh.triangles, (std::vector<Triangle>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}, {9, 10, 11}}));
  expect_vertex(mesh.vertices[1], {1, 0, 0}, {}, 0, 0);           // v
  expect_vertex(mesh.vertices[5], {1, 1, 0}, {}, 1, 1);           // v/vt
  expect_vertex(mesh.vertices[7], {1, 0, 0}, {0, 0, 1}, 0, 0);    // v//vn, the normal made unit
  expect_vertex(mesh.vertices[10], {1, 0, 0}, {0, 0, 1}, 1, 0);   // v/vt/vn
}

TEST_F(MeshFiles, ObjFansPolygons) {
  const Mesh mesh = load_ok("fan.obj",
                            "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\n"
                            "f 1 2 3 4\n"
                            "f 1 2 3 4 5\n");
  ASSERT_EQ(mesh.vertices.size(), 5u);
  EXPECT_EQ(mesh.triangles, (std::vector<Triangle>{{0, 1, 2}, {0, 2, 3}, {0, 1, 2}, {0, 2, 3}, {0, 3, 4}}));
}

TEST_F(MeshFiles, ObjSharesCornersThatAgreeInEveryIndex) {
  //  4 ---- 3
  //  | \    |     the diagonal's corners 1 and 3 are shared with their texture coordinates;
  //  |   \  |     position 1 also appears with another texture coordinate (a seam): a new vertex
  //  1 ---- 2
  const Mesh mesh = load_ok("shared.obj",
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                            "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n"
                            "f 1/1 2/2 3/3\n"
                            "f 1/1 3/3 4/4\n"
                            "f 1/5 3/3 4/4\n");
  ASSERT_EQ(mesh.vertices.size(), 5u);
  EXPECT_EQ(mesh.triangles, (std::vector<Triangle>{{0, 1, 2}, {0, 2, 3}, {4, 2, 3}}));
  expect_vertex(mesh.vertices[4], {0, 0, 0}, {}, 0.5f, 0.5f);
}

TEST_F(MeshFiles, ObjAcceptsCrlfTrailingCommentsAndNoFinalNewline) {
  const Mesh mesh = load_ok("crlf.obj", "v 0 0 0\r\nv +1 0 0 # right\r\nv 0 1e0 0\r\n\r\nf 1 2 3\t# last");
  ASSERT_EQ(mesh.vertices.size(), 3u);
  expect_vertex(mesh.vertices[1], {1, 0, 0}, {}, 0, 0);
  expect_vertex(mesh.vertices[2], {0, 1, 0}, {}, 0, 0);
  EXPECT_EQ(mesh.triangles, (std::vector<Triangle>{{0, 1, 2}}));
}

TEST_F(MeshFiles, ObjReportsEachMistakeAtItsLineAndColumn) {
  const std::string three = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";  // lines 1 to 3
  struct Case {
    std::string text;
    int line, column;
    std::string message;
  };
  const Case cases[] = {
      {three + "f 1 2 4\n", 4, 7, "vertex index 4 is out of range (3 defined so far)"},
      {three + "f 1 2 -4\n", 4, 7, "vertex index -4 is out of range"},
      {three + "f 1 0 2\n", 4, 5, "vertex index 0 is not valid"},
      {three + "f 1 2/1 3\n", 4, 7, "texture coordinate index 1 is out of range (0 defined so far)"},
      {three + "f 1 2//7 3\n", 4, 8, "normal index 7 is out of range"},
      {three + "f 1 2 x\n", 4, 7, "malformed vertex index 'x'"},
      {three + "f 1 2 3/\n", 4, 7, "malformed face vertex '3/'"},
      {three + "f 1 2 1/1/1/1\n", 4, 7, "malformed face vertex"},
      {three + "f 1 2 /1\n", 4, 7, "malformed face vertex"},
      {three + "f 1 2\n", 4, 1, "a face needs at least 3 vertices; this one has 2"},
      {three + "  f\n", 4, 3, "this one has 0"},
      {"v 0 0 0\nv 1 0.5.1 0\nv 0 1 0\nf 1 2 3\n", 2, 5, "malformed number '0.5.1'"},
      {"v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n", 2, 5, "malformed number 'nan'"},
      {"v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", 2, 1, "'v' needs 3 numbers; this one has 2"},
      {three + "vn 1\nf 1 2 3\n", 4, 1, "'vn' needs 3 numbers"},
      {three + "vt\nf 1 2 3\n", 4, 1, "'vt' needs 1 number;"},
      {three, 0, 0, "the file has no faces"},
      {"", 0, 0, "the file has no faces"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const Problems problems = load_fails("bad.obj", c.text);
    ASSERT_EQ(problems.size(), 1u) << all(problems);
    EXPECT_EQ(problems[0].line, c.line);
    EXPECT_EQ(problems[0].column, c.column);
    EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << problems[0].message;
  }
}

TEST_F(MeshFiles, ObjCollectsProblemsUpToALimit) {
  const Problems some = load_fails("some.obj", "v 0 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 9\nf 1 2\nf 1 2 3\n");
  ASSERT_EQ(some.size(), 3u);
  EXPECT_EQ(some[0].line, 2);
  EXPECT_EQ(some[1].line, 4);
  EXPECT_EQ(some[2].line, 5);
  EXPECT_EQ(some[1].text(),
            (dir_ / "some.obj").string() + ":4:7: error: vertex index 9 is out of range (3 defined so far) [mesh]");

  std::string many = "v 0 0 0\n";
  for (int i = 0; i < 100; ++i) many += "f 1 1\n";  // one problem each
  const Problems capped = load_fails("many.obj", many);
  ASSERT_EQ(capped.size(), 21u);
  EXPECT_EQ(capped[19].line, 21);
  EXPECT_NE(capped[20].message.find("too many problems"), std::string::npos);
}

TEST_F(MeshFiles, MissingFileIsAProblem) {
  lang::Diagnostics found;
  const std::string path = (dir_ / "absent.obj").string();
  EXPECT_FALSE(load_obj(path, &found).has_value());
  const Problems problems = test::located(found);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, path);
  EXPECT_NE(problems[0].message.find("cannot open"), std::string::npos);
}

TEST_F(MeshFiles, LoadMeshChoosesByExtension) {
  const std::string obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  EXPECT_EQ(load_ok("upper.OBJ", obj).triangles.size(), 1u);
  const std::string ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                          "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                          "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
  EXPECT_EQ(load_ok("upper.Ply", ply).triangles.size(), 1u);
  const Problems problems = load_fails("mesh.xyz3", obj);
  EXPECT_NE(problems[0].message.find("unknown mesh format '.xyz3'"), std::string::npos);
  EXPECT_NE(load_fails("mesh", obj)[0].message.find("unknown mesh format"), std::string::npos);
}

// ---- PLY ----

// Little-endian bytes, whatever the host.
class Bytes {
 public:
  template <class T>
  Bytes& put(T value) {
    auto bytes = std::bit_cast<std::array<char, sizeof(T)>>(value);
    if constexpr (std::endian::native == std::endian::big) std::reverse(bytes.begin(), bytes.end());
    text_.append(bytes.data(), bytes.size());
    return *this;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A mesh with more in it than the mesh uses: properties around and between the vertex ones, an
// element before the faces and one with a list after them.
const char* const kRichHeader = R"(comment made by hand
element vertex 5
property float x
property float y
property float z
property uchar red
property float nx
property float ny
property float nz
property float s
property float t
property double quality
element edge 2
property int vertex1
property int vertex2
element face 2
property list uchar int vertex_indices
property uchar flags
element material 1
property list uchar float weights
property int id
end_header
)";

struct RichVertex {
  float x, y, z, nx, ny, nz, s, t;
};
const RichVertex kRichVertices[] = {{0, 0, 0, 0, 0, 1, 0, 0},
                                    {1, 0, 0, 0, 0, 1, 1, 0},
                                    {1, 1, 0, 0, 0, 1, 1, 1},
                                    {0, 1, 0, 0, 0, 1, 0, 1},
                                    {0.5f, 1.5f, 0.25f, 0, 1, 0, 0.5f, 0.75f}};

std::string rich_ascii() {
  return std::string("ply\nformat ascii 1.0\n") + kRichHeader +
         "0 0 0 255 0 0 1 0 0 0.5\n"
         "1 0 0 255 0 0 1 1 0 0.5\n"
         "1 1 0 255 0 0 1 1 1 0.5\n"
         "0 1 0 255 0 0 1 0 1 0.5\n"
         "0.5 1.5 0.25 7 0 1 0 0.5 0.75 -2\n"
         "0 1\n"
         "1 2\n"
         "4 0 1 2 3 7\n"
         "3 1 4 2 0\n"
         "3 0.5 0.25 1 9\n";
}

std::string rich_binary() {
  Bytes data;
  for (const RichVertex& v : kRichVertices)
    data.put(v.x).put(v.y).put(v.z).put(std::uint8_t{255}).put(v.nx).put(v.ny).put(v.nz).put(v.s).put(v.t).put(0.5);
  data.put(0).put(1).put(1).put(2);                                                     // edges
  data.put(std::uint8_t{4}).put(0).put(1).put(2).put(3).put(std::uint8_t{7});          // quad
  data.put(std::uint8_t{3}).put(1).put(4).put(2).put(std::uint8_t{0});                 // triangle
  data.put(std::uint8_t{3}).put(0.5f).put(0.25f).put(1.0f).put(9);                      // material
  return std::string("ply\nformat binary_little_endian 1.0\n") + kRichHeader + data.text();
}

TEST_F(MeshFiles, PlyAsciiAndBinaryGiveTheSameMesh) {
  const Mesh ascii = load_ok("rich_ascii.ply", rich_ascii());
  const Mesh binary = load_ok("rich_binary.ply", rich_binary());
  ASSERT_EQ(ascii.vertices.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    const RichVertex& v = kRichVertices[i];
    expect_vertex(ascii.vertices[i], {v.x, v.y, v.z}, {v.nx, v.ny, v.nz}, v.s, v.t);
  }
  EXPECT_EQ(ascii.triangles, (std::vector<Triangle>{{0, 1, 2}, {0, 2, 3}, {1, 4, 2}}));
  expect_same_mesh(binary, ascii);
}

TEST_F(MeshFiles, PlyAcceptsOtherNamesAndTypes) {
  // u v as texture coordinates, vertex_index, int list lengths, ushort indices, double positions
  const std::string header = "element vertex 3\nproperty double x\nproperty double y\nproperty double z\n"
                             "property float u\nproperty float v\n"
                             "element face 1\nproperty list int ushort vertex_index\nend_header\n";
  const Mesh ascii =
      load_ok("uv.ply", "ply\nformat ascii 1.0\n" + header + "0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n3 0 1 2\n");
  Bytes data;
  data.put(0.0).put(0.0).put(0.0).put(0.0f).put(0.0f);
  data.put(1.0).put(0.0).put(0.0).put(1.0f).put(0.0f);
  data.put(0.0).put(1.0).put(0.0).put(0.0f).put(1.0f);
  data.put(3).put(std::uint16_t{0}).put(std::uint16_t{1}).put(std::uint16_t{2});
  const Mesh binary = load_ok("uv_binary.ply", "ply\r\nformat binary_little_endian 1.0\r\n" + header + data.text());
  ASSERT_EQ(ascii.vertices.size(), 3u);
  expect_vertex(ascii.vertices[1], {1, 0, 0}, {}, 1, 0);
  expect_vertex(ascii.vertices[2], {0, 1, 0}, {}, 0, 1);
  EXPECT_EQ(ascii.triangles, (std::vector<Triangle>{{0, 1, 2}}));
  expect_same_mesh(binary, ascii);

  const Mesh texture_uv = load_ok(
      "texture_uv.ply",
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "property float texture_u\nproperty float texture_v\nelement face 1\nproperty list uchar uint vertex_indices\n"
      "end_header\n0 0 0 0.25 0.5\n1 0 0 0 0\n0 1 0 0 0\n3 0 1 2\n");
  ASSERT_EQ(texture_uv.vertices.size(), 3u);
  expect_vertex(texture_uv.vertices[0], {0, 0, 0}, {}, 0.25f, 0.5f);
}

TEST_F(MeshFiles, PlyFacesMayComeBeforeVertices) {
  const Mesh mesh = load_ok("faces_first.ply",
                            "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
                            "element vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
                            "3 2 1 0\n0 0 0\n1 0 0\n0 1 0\n");
  EXPECT_EQ(mesh.triangles, (std::vector<Triangle>{{2, 1, 0}}));
  EXPECT_EQ(mesh.vertices.size(), 3u);
}

TEST_F(MeshFiles, PlyReportsBadHeaders) {
  const std::string xyz = "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n";
  const std::string faces = "element face 1\nproperty list uchar int vertex_indices\n";
  struct Case {
    std::string text;
    int line, column;
    std::string message;
  };
  const Case cases[] = {
      {"plx\nformat ascii 1.0\n", 0, 0, "not a PLY file"},
      {"", 0, 0, "not a PLY file"},
      {"ply\nformat binary_big_endian 1.0\n" + xyz + faces + "end_header\n", 2, 8,
       "binary_big_endian PLY files are not supported"},
      {"ply\nformat ebcdic 1.0\n", 2, 8, "unknown PLY format 'ebcdic'"},
      {"ply\nformat ascii 2.0\n", 2, 14, "unsupported PLY version '2.0'"},
      {"ply\nformat ascii\n", 2, 1, "expected 'format ascii 1.0'"},
      {"ply\n" + xyz + faces + "end_header\n", 8, 1, "no 'format' line"},
      {"ply\nformat ascii 1.0\n" + xyz + faces, 8, 0, "no 'end_header' line"},
      {"ply\nformat ascii 1.0\nelement vertex 60000000\n", 3, 16, "element count 60000000 is absurd"},
      {"ply\nformat ascii 1.0\nelement vertex -3\n", 3, 16, "malformed element count '-3'"},
      {"ply\nformat ascii 1.0\nproperty float x\n", 3, 1, "a property before any element"},
      {"ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\n", 4, 10, "unknown property type 'half'"},
      {"ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\n", 4, 15,
       "length type must be an integer"},
      {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float\n", 4, 1, "expected 'property <type> <name>'"},
      {"ply\nformat ascii 1.0\nwhatever\n", 3, 1, "unknown header line 'whatever'"},
      {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n" + faces + "end_header\n", 3, 0,
       "needs the properties x, y and z"},
      {"ply\nformat ascii 1.0\n" + faces + "end_header\n", 0, 0, "no 'vertex' element"},
      {"ply\nformat ascii 1.0\n" + xyz + "element face 1\nproperty list uchar int corners\nend_header\n", 7, 0,
       "needs a list property 'vertex_indices'"},
      {"ply\nformat ascii 1.0\n" + xyz + "element face 1\nproperty list uchar float vertex_indices\nend_header\n", 8,
       0, "vertex indices must be integers"},
      {"ply\nformat ascii 1.0\n" + xyz + xyz + faces + "end_header\n", 7, 0, "a second 'vertex' element"},
      {"ply\nformat ascii 1.0\n" + xyz + "end_header\n0 0 0\n1 0 0\n0 1 0\n", 0, 0, "the file has no faces"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const Problems problems = load_fails("bad.ply", c.text);
    ASSERT_EQ(problems.size(), 1u) << all(problems);
    EXPECT_EQ(problems[0].line, c.line);
    EXPECT_EQ(problems[0].column, c.column);
    EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << problems[0].message;
  }
}

TEST_F(MeshFiles, PlyReportsBadAsciiDataAtItsLine) {
  // The header takes lines 1 to 9; the data starts on line 10.
  const std::string head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                           "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
  struct Case {
    std::string data;
    int line, column;
    std::string message;
  };
  const Case cases[] = {
      {"0 0 0\n1 0 0\n0 1 0\n", 12, 0, "the data ends before 'face' element 1 of 1"},
      {"0 0 0\n1 0 0\n", 11, 0, "the data ends before 'vertex' element 3 of 3"},
      {"0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n", 11, 3, "malformed value 'zero' for 'y'"},
      {"0 0 0\n1 0\n0 1 0\n3 0 1 2\n", 11, 0, "missing value for 'z'"},
      {"0 0 0\n1 0 0 5\n0 1 0\n3 0 1 2\n", 11, 7, "unexpected '5' after the last property"},
      {"0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", 13, 7, "vertex index 3 is out of range (3 vertices)"},
      {"0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n", 13, 5, "vertex index -1 is out of range"},
      {"0 0 0\n1 0 0\n0 1 0\n2 0 1\n", 13, 5, "a face needs at least 3 vertices; this one has 2"},
      {"0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n", 13, 0, "missing value for 'vertex_indices'"},
      {"0 0 0\n1 0 0\n0 1 0\n3 0 1.5 2\n", 13, 5, "malformed value '1.5'"},
      {"0 0 0\n1 0 inf\n0 1 0\n3 0 1 2\n", 11, 5, "'z' is not a finite number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.data);
    const Problems problems = load_fails("bad.ply", head + c.data);
    ASSERT_EQ(problems.size(), 1u) << all(problems);
    EXPECT_EQ(problems[0].line, c.line);
    EXPECT_EQ(problems[0].column, c.column);
    EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << problems[0].message;
  }
}

TEST_F(MeshFiles, PlyReportsBadBinaryDataAtItsByte) {
  const std::string head = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                           "property float y\nproperty float z\nelement face 1\n"
                           "property list uchar int vertex_indices\nend_header\n";
  Bytes data;
  for (float x : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 1.f, 0.f}) data.put(x);
  data.put(std::uint8_t{3}).put(0).put(1).put(5);
  const Problems problems = load_fails("index.ply", head + data.text());
  ASSERT_EQ(problems.size(), 1u);
  const std::size_t at = head.size() + 3 * 12 + 1 + 2 * 4;  // the third index
  EXPECT_EQ(problems[0].line, 0);
  EXPECT_EQ(problems[0].message, "vertex index 5 is out of range (3 vertices) (at byte " + std::to_string(at) + ")");
}

TEST_F(MeshFiles, PlyEveryBinaryTruncationIsAProblem) {
  const std::string whole = rich_binary();
  const std::size_t data_start = whole.find("end_header\n") + 11;
  for (std::size_t size = data_start; size < whole.size(); ++size) {
    SCOPED_TRACE(size);
    const Problems problems = load_fails("cut.ply", whole.substr(0, size));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("the data ends inside"), std::string::npos) << problems[0].message;
    EXPECT_NE(problems[0].message.find("(at byte "), std::string::npos) << problems[0].message;
  }
}

TEST_F(MeshFiles, PlyAbsurdListLengthsEndTheData) {
  // A face claiming 2^32 - 1 corners in a file of a few bytes: read until the data runs out.
  const std::string head = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                           "property float y\nproperty float z\nelement face 1\n"
                           "property list uint int vertex_indices\nend_header\n";
  Bytes data;
  for (int i = 0; i < 9; ++i) data.put(0.0f);
  data.put(std::uint32_t{0xFFFFFFFF}).put(0).put(1).put(2);
  const Problems problems = load_fails("long.ply", head + data.text());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("the data ends inside 'face' element 1 of 1"), std::string::npos)
      << problems[0].message;
}

}  // namespace
}  // namespace passlab::sim
