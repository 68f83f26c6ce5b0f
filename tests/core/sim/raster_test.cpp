// SPDX-License-Identifier: GPL-3.0-or-later
// The rasterizer and the scene reader.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/sim/raster.h"
#include "core/sim/scene.h"
#include "tests/support/diagnostics.h"

namespace passlab::sim {
namespace {

std::vector<std::array<Vec3, 3>> camera_triangles(const Mesh& m, const Mat4& to_camera) {
  std::vector<std::array<Vec3, 3>> out;
  for (const auto& t : m.triangles)
    out.push_back({to_camera.point(m.vertices[t[0]].p), to_camera.point(m.vertices[t[1]].p), to_camera.point(m.vertices[t[2]].p)});
  return out;
}

std::vector<int> coverage(const std::vector<Fragment>& frags, int w, int h) {
  std::vector<int> c(static_cast<std::size_t>(w) * h, 0);
  for (const auto& f : frags) ++c[static_cast<std::size_t>(f.y) * w + f.x];
  return c;
}

// Triangles that share an edge never both cover a pixel on it: a closed mesh's front faces
// cover each pixel of its silhouette exactly once, a fan of thin triangles leaves no gap.
TEST(Raster, SharedEdgesCoverEachPixelOnce) {
  const Projection proj{97, 61, 40, 1e-3f};
  const Mesh sphere = make_sphere(1, 37, 19);
  std::vector<Fragment> frags;
  rasterize(camera_triangles(sphere, Mat4::translate({0.1f, -0.05f, 3.3f})), proj, Cull::Back, frags);
  ASSERT_GT(frags.size(), 1000u);
  for (int c : coverage(frags, proj.width, proj.height)) EXPECT_LE(c, 1);
  // A screen-filling plane of many cells: every pixel exactly once.
  const Mesh plane = make_plane(40, 40, 13, 7);
  frags.clear();
  rasterize(camera_triangles(plane, Mat4::translate({0, 0, 5})), proj, Cull::None, frags);
  for (int c : coverage(frags, proj.width, proj.height)) ASSERT_EQ(c, 1);
}

// Barycentrics are perspective-correct: interpolating camera-space positions with them lands on
// the triangle's plane at the pixel's ray.
TEST(Raster, MultisamplingCoversEachSampleOnce) {
  for (int samples : {2, 4, 8}) {
    Projection proj{97, 61, 40, 1e-3f};
    proj.samples = samples;
    ASSERT_EQ(sample_pattern(samples).size(), static_cast<std::size_t>(samples));
    // A screen-filling plane of many cells: every sample of every pixel exactly once, so pixels
    // on the cells' edges have a fragment from each triangle that covers some of their samples.
    std::vector<Fragment> frags;
    rasterize(camera_triangles(make_plane(40, 40, 13, 7), Mat4::translate({0, 0, 5})), proj, Cull::None, frags);
    std::vector<unsigned> covered(static_cast<std::size_t>(proj.width * proj.height), 0);
    int partial = 0;
    for (const Fragment& f : frags) {
      unsigned& c = covered[static_cast<std::size_t>(f.y * proj.width + f.x)];
      ASSERT_EQ(c & f.coverage, 0u) << "a sample covered twice at " << f.x << ", " << f.y;
      c |= f.coverage;
      partial += f.coverage != (1u << samples) - 1;
    }
    for (unsigned c : covered) ASSERT_EQ(c, (1u << samples) - 1);
    EXPECT_GT(partial, 100);
  }
  EXPECT_TRUE(sample_pattern(3).empty());
}

TEST(Raster, BarycentricsArePerspectiveCorrect) {
  const Projection proj{64, 64, 50, 1e-3f};
  const std::array<Vec3, 3> t{Vec3{-2, -1, 2}, Vec3{2, -1, 9}, Vec3{0, 2, 4}};
  std::vector<Fragment> frags;
  rasterize({t}, proj, Cull::None, frags);
  ASSERT_GT(frags.size(), 200u);
  const float f = proj.focal();
  for (const auto& fr : frags) {
    const float b0 = 1 - fr.b1 - fr.b2;
    const Vec3 p = t[0] * b0 + t[1] * fr.b1 + t[2] * fr.b2;
    EXPECT_NEAR(p.z, fr.depth, 1e-3f * p.z);
    // The point projects to the pixel centre.
    EXPECT_NEAR(32 + p.x / p.z * f, fr.x + 0.5f, 2e-3f * f / 32);
    EXPECT_NEAR(32 - p.y / p.z * f, fr.y + 0.5f, 2e-3f * f / 32);
  }
}

TEST(Raster, NearPlaneClipsInsteadOfWrapping) {
  const Projection proj{32, 32, 60, 0.5f};
  // One corner behind the eye: only the part in front is drawn, with depths >= near.
  const std::array<Vec3, 3> t{Vec3{-1, -1, -2}, Vec3{1, -1, 4}, Vec3{0, 1, 4}};
  std::vector<Fragment> frags;
  rasterize({t}, proj, Cull::None, frags);
  ASSERT_FALSE(frags.empty());
  for (const auto& f : frags) EXPECT_GE(f.depth, 0.5f - 1e-4f);
}

class SceneFile : public testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  // One file per test: ctest runs this suite's tests as parallel processes.
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("passlab_scene_test_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json"))
                .string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(SceneFile, ReadsObjectsCameraAndTextures) {
  auto s = load_scene(write(R"({
  "camera": {"from": [0, 0, -5], "to": [0, 0, 0], "fov": 30},
  "size": [64, 32], "textures": {"grain": "grain.png"},
  "objects": [ {"name": "ball", "mesh": {"sphere": {"radius": 2, "slices": 8, "stacks": 4}}, "Os": [0.5, 0.5, 0.5]},
               {"mesh": {"torus": {}}, "translate": [1, 0, 0], "cull": "back"} ]
})"), nullptr);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->width, 64);
  EXPECT_EQ(s->height, 32);
  EXPECT_FLOAT_EQ(s->fov_degrees, 30);
  ASSERT_EQ(s->objects.size(), 2u);
  EXPECT_TRUE(s->objects[0].transparent);
  EXPECT_EQ(s->objects[1].name, "object2");
  EXPECT_EQ(s->objects[1].cull, Cull::Back);
  // The camera at z = -5 looking at the origin: the origin is 5 in front of it.
  EXPECT_NEAR(s->objects[0].to_camera.point({0, 0, 0}).z, 5, 1e-5);
  EXPECT_EQ(s->textures.at("grain"), (std::filesystem::temp_directory_path() / "grain.png").lexically_normal().string());
}

TEST_F(SceneFile, ProblemsHaveTheirLineAndColumn) {
  std::vector<test::Located> p;
  // Whether reading the scene file at `path` fails; its problems in p.
  auto fails = [&](const std::string& path) {
    lang::Diagnostics d;
    const bool read = load_scene(path, &d).has_value();
    p = test::located(d);
    return !read;
  };
  EXPECT_TRUE(fails(write("{\n  \"objects\": [\n    {\"mesh\": {\"sphere\": {\"radius\": -1}}}\n  ]\n}\n")));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line, 3);
  EXPECT_NE(p[0].message.find("radius"), std::string::npos) << p[0].text();
  EXPECT_TRUE(fails(write("{\n  \"objects\": [\n    {\"mesh\": {\"cube\": {}}},\n    {\"mesh\": \"missing.obj\", \"colour\": 1}\n  ]\n}")));
  ASSERT_GE(p.size(), 3u);
  EXPECT_EQ(p[0].line, 3);  // unknown mesh kind
  EXPECT_EQ(p[1].line, 4);  // unknown key "colour"
  EXPECT_TRUE(fails(write("{\n  \"objects\": [ {\"mesh\": \n")));  // truncated JSON
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line, 3);
  // A number too large for a double (found by the scene fuzzer: it ended the process).
  EXPECT_TRUE(fails(write("{\n  \"objects\": [\n    {\"mesh\": {\"sphere\": {\"radius\": 6e666}}}\n  ]\n}\n")));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line, 3);
  EXPECT_EQ(p[0].column, 36);
  EXPECT_NE(p[0].message.find("too large"), std::string::npos) << p[0].text();
  // A name that is not a string (found by the scene fuzzer: nlohmann's type_error ended the process).
  EXPECT_TRUE(fails(write("{\n  \"objects\": [\n    {\"name\": {\"plane\": 1}, \"mesh\": {\"sphere\": {\"radius\": 1}}}\n  ]\n}\n")));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line, 3);
  EXPECT_NE(p[0].message.find("\"name\" must be a string"), std::string::npos) << p[0].text();
  // A size beyond a float (found by the scene fuzzer: UBSan saw infinity converted to int), and
  // any other number that would become infinity.
  EXPECT_TRUE(fails(write("{\n  \"size\": [512, 5e122],\n  \"objects\": [{\"mesh\": {\"sphere\": {}}}]\n}\n")));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].line, 2);
  EXPECT_NE(p[0].message.find("\"size\" has a number too large for a float (5e+122)"), std::string::npos) << p[0].text();
  EXPECT_TRUE(fails(write("{\"objects\": [{\"mesh\": {\"sphere\": {}}, \"translate\": [1e300, 0, 0]}]}")));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].message.find("\"translate\" has a number too large for a float"), std::string::npos) << p[0].text();
  EXPECT_TRUE(fails("/no/such/scene.json"));
  ASSERT_EQ(p.size(), 1u);
}

}  // namespace
}  // namespace passlab::sim
