// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/scene.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/lang/json_error.h"
#include "core/paths/data_dir.h"

namespace passlab::sim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// nlohmann::json keeps no positions: problems point at the key's first occurrence at or after
// the start of the object they are about.
class Locator {
 public:
  Locator(lang::Diagnostics& d, lang::FileId file) : d_(d), file_(file) {}
  const std::string& text() const { return d_.sources().file(file_).text; }
  // A problem at byte `offset` of the scene file.
  void report(std::size_t offset, std::string message) const {
    d_.error("scene", lang::offset_span(d_.sources(), file_, offset), std::move(message));
  }
  lang::Diagnostics& diagnostics() const { return d_; }
  std::size_t key(const std::string& name, std::size_t from) const { return lang::key_offset(d_.sources(), file_, name, from); }
  // The offsets of the objects in the array under `key` (the top-level '{' of each element).
  std::vector<std::size_t> elements(const std::string& name) const {
    const std::string& text_ = text();
    std::vector<std::size_t> out;
    std::size_t i = text_.find('[', key(name, 0));
    if (i == std::string::npos) return out;
    int depth = 0;
    for (; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '"') {  // skip a string
        for (++i; i < text_.size() && text_[i] != '"'; ++i)
          if (text_[i] == '\\') ++i;
      } else if (c == '[' || c == '{') {
        if (c == '{' && depth == 1) out.push_back(i);
        ++depth;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) break;
      }
    }
    return out;
  }

 private:
  lang::Diagnostics& d_;
  lang::FileId file_;
};

struct Reader {
  const Locator& loc;
  std::size_t base = 0;  // where the current object starts in the text
  bool ok = true;

  void fail(const std::string& key, const std::string& message) {
    ok = false;
    loc.report(loc.key(key, base), message);
  }
  bool number(const json& j, const std::string& key, float* out, float lo, float hi) {
    if (!j.contains(key)) return true;
    const json& v = j[key];
    if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi) {
      fail(key, fmt::format("\"{}\" must be a number from {} to {}", key, lo, hi));
      return false;
    }
    *out = v.get<float>();
    return true;
  }
  bool integer(const json& j, const std::string& key, int* out, int lo, int hi) {
    if (!j.contains(key)) return true;
    const json& v = j[key];
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi) {
      fail(key, fmt::format("\"{}\" must be a whole number from {} to {}", key, lo, hi));
      return false;
    }
    *out = v.get<int>();
    return true;
  }
  template <std::size_t N>
  bool numbers(const json& j, const std::string& key, std::array<float, N>* out) {
    if (!j.contains(key)) return true;
    const json& v = j[key];
    bool good = v.is_array() && v.size() == N;
    for (std::size_t i = 0; good && i < N; ++i) good = v[i].is_number();
    if (!good) {
      fail(key, fmt::format("\"{}\" must be an array of {} numbers", key, N));
      return false;
    }
    // Beyond a float, a number would become infinity, which no later step handles.
    for (std::size_t i = 0; i < N; ++i)
      if (std::abs(v[i].get<double>()) > std::numeric_limits<float>::max()) {
        fail(key, fmt::format("\"{}\" has a number too large for a float ({})", key, v[i].dump()));
        return false;
      }
    for (std::size_t i = 0; i < N; ++i) (*out)[i] = v[i].get<float>();
    return true;
  }
  bool vec3(const json& j, const std::string& key, Vec3* out) {
    std::array<float, 3> a{out->x, out->y, out->z};
    if (!numbers(j, key, &a)) return false;
    *out = {a[0], a[1], a[2]};
    return true;
  }
  void known(const json& j, std::initializer_list<const char*> keys, const std::string& what) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool found = false;
      for (const char* k : keys) found = found || it.key() == k;
      if (!found) fail(it.key(), fmt::format("unknown {} key \"{}\"", what, it.key()));
    }
  }
};

std::optional<Mesh> read_mesh(Reader& r, const json& spec, const fs::path& dir) {
  if (spec.is_string()) {
    const std::string name = spec.get<std::string>();
    fs::path p = name;
    if (name.rfind("$deps/", 0) == 0) {
      p = fs::path(deps_dir()) / name.substr(6);
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) {
        r.fail("mesh", fmt::format("\"{}\" is not in {}: scripts/setup.sh fetches it", name, deps_dir()));
        return std::nullopt;
      }
    }
    if (p.is_relative()) p = dir / p;
    auto m = load_mesh(p.string(), &r.loc.diagnostics());
    if (!m) r.ok = false;
    return m;
  }
  if (!spec.is_object() || spec.size() != 1) {
    r.fail("mesh", "\"mesh\" must be a file path or one of {\"sphere\": {…}}, {\"torus\": {…}}, {\"plane\": {…}}, "
                   "{\"bowling_pin\": {…}}, {\"lathe\": {…}}");
    return std::nullopt;
  }
  const std::string kind = spec.begin().key();
  const json& a = spec.begin().value();
  if (!a.is_object()) {
    r.fail(kind, fmt::format("\"{}\" must be an object of its parameters", kind));
    return std::nullopt;
  }
  const int max_grid = 4096;
  if (kind == "sphere") {
    float radius = 1;
    int slices = 64, stacks = 32;
    r.known(a, {"radius", "slices", "stacks"}, "sphere");
    if (r.number(a, "radius", &radius, 1e-6f, 1e6f) && r.integer(a, "slices", &slices, 3, max_grid) &&
        r.integer(a, "stacks", &stacks, 2, max_grid))
      return make_sphere(radius, slices, stacks);
  } else if (kind == "torus") {
    float major = 1, minor = 0.3f;
    int rings = 64, sides = 24;
    r.known(a, {"major", "minor", "rings", "sides"}, "torus");
    if (r.number(a, "major", &major, 1e-6f, 1e6f) && r.number(a, "minor", &minor, 1e-6f, 1e6f) &&
        r.integer(a, "rings", &rings, 3, max_grid) && r.integer(a, "sides", &sides, 3, max_grid))
      return make_torus(major, minor, rings, sides);
  } else if (kind == "plane") {
    float width = 1, height = 1;
    int columns = 1, rows = 1;
    r.known(a, {"width", "height", "columns", "rows"}, "plane");
    if (r.number(a, "width", &width, 1e-6f, 1e6f) && r.number(a, "height", &height, 1e-6f, 1e6f) &&
        r.integer(a, "columns", &columns, 1, max_grid) && r.integer(a, "rows", &rows, 1, max_grid))
      return make_plane(width, height, columns, rows);
  } else if (kind == "bowling_pin") {
    int segments = 48;
    r.known(a, {"segments"}, "bowling_pin");
    if (r.integer(a, "segments", &segments, 3, max_grid)) return make_bowling_pin(segments);
  } else if (kind == "lathe") {
    int segments = 48;
    r.known(a, {"profile", "segments"}, "lathe");
    std::vector<std::array<float, 2>> profile;
    const json p = a.value("profile", json());
    bool good = p.is_array() && p.size() >= 2 && p.size() <= static_cast<std::size_t>(max_grid);
    for (std::size_t i = 0; good && i < p.size(); ++i) {
      good = p[i].is_array() && p[i].size() == 2 && p[i][0].is_number() && p[i][1].is_number() && p[i][0].get<float>() >= 0;
      if (good) profile.push_back({p[i][0].get<float>(), p[i][1].get<float>()});
    }
    if (!good) r.fail("profile", "\"profile\" must be an array of at least two [radius ≥ 0, height] pairs");
    else if (r.integer(a, "segments", &segments, 3, max_grid)) return make_lathe(profile, segments);
  } else {
    r.fail(kind, fmt::format("unknown mesh \"{}\" (sphere, torus, plane, bowling_pin, lathe, or a file path)", kind));
  }
  return std::nullopt;
}

}  // namespace

// The "camera": pose (and end pose), field of view, lens and shutter.
void read_camera(Reader& r, const json& c, Scene& s, Mat4* world_to_camera, Mat4* world_to_camera_end) {
  const Locator& loc = r.loc;
  if (!c.is_object()) {
    r.fail("camera", "\"camera\" must be an object");
  } else {
    r.known(c, {"from", "to", "up", "fov", "aperture", "focus", "shutter", "end"}, "camera");
    Vec3 from{0, 0, 0}, to{0, 0, 1}, up{0, 1, 0};
    r.base = loc.key("camera", 0);
    auto pose = [&](const json& p, Mat4* out) {
      if (r.vec3(p, "from", &from) && r.vec3(p, "to", &to) && r.vec3(p, "up", &up)) {
        if (length(to - from) == 0 || length(cross(up, to - from)) == 0) r.fail("up", "the camera's \"to\" must differ from \"from\" and \"up\" must not point along the view");
        else *out = Mat4::look_at(from, to, up);
      }
    };
    if (r.number(c, "fov", &s.fov_degrees, 1, 170)) pose(c, world_to_camera);
    *world_to_camera_end = *world_to_camera;
    r.number(c, "aperture", &s.aperture, 0, 1e6f);
    r.number(c, "focus", &s.focus, 1e-4f, 1e9f);
    if (r.numbers(c, "shutter", &s.shutter) && !(s.shutter[0] >= 0 && s.shutter[0] <= s.shutter[1] && s.shutter[1] <= 1))
      r.fail("shutter", "\"shutter\" must be [open, close] with 0 ≤ open ≤ close ≤ 1");
    if (c.contains("end")) {
      const json& e = c["end"];
      r.base = loc.key("end", r.base);
      if (!e.is_object()) r.fail("end", "the camera's \"end\" must be an object with \"from\", \"to\" and \"up\"");
      else {
        r.known(e, {"from", "to", "up"}, "camera end");
        pose(e, world_to_camera_end);
      }
    }
    r.base = 0;
  }
}

// One of "objects": its mesh, placement and motion, colours, culling, shader and light setup.
std::optional<SceneObject> read_object(Reader& r, const json& o, std::size_t i, const fs::path& dir, const Mat4& world_to_camera,
                                       const Mat4& world_to_camera_end) {
  const Locator& loc = r.loc;
  r.known(o, {"name", "mesh", "translate", "rotate", "scale", "Cs", "Os", "cull", "shader", "transparent", "normals", "motion", "shading_rate",
              "lights"},
          "object");
  SceneObject obj;
  obj.name = fmt::format("object{}", i + 1);
  if (o.contains("name")) {
    // Not o.value(): a name that is not a string raised type_error out of the loader (scene fuzzer).
    if (!o["name"].is_string()) r.fail("name", "an object's \"name\" must be a string");
    else obj.name = o["name"].get<std::string>();
  }
  if (!o.contains("mesh")) {
    r.fail("", fmt::format("object \"{}\" has no \"mesh\"", obj.name));
    return std::nullopt;
  }
  auto mesh = read_mesh(r, o["mesh"], dir);
  if (!mesh) return std::nullopt;
  obj.mesh = std::move(*mesh);
  obj.mesh.complete();
  if (o.contains("normals")) {
    const json& nm = o["normals"];
    if (nm == "faces") {
      obj.flat = true;
      obj.mesh = flat_shaded(obj.mesh);
    } else if (nm != "vertex") {
      r.fail("normals", "\"normals\" must be \"vertex\" (interpolated) or \"faces\" (flat)");
    }
  }
  Vec3 translate{0, 0, 0}, scale{1, 1, 1};
  std::array<float, 4> rotate{0, 0, 1, 0};
  if (o.contains("scale") && o["scale"].is_number()) {
    const float k = o["scale"].get<float>();
    scale = {k, k, k};
  } else {
    r.vec3(o, "scale", &scale);
  }
  r.vec3(o, "translate", &translate);
  r.numbers(o, "rotate", &rotate);
  const Mat4 to_world = Mat4::scale(scale) * Mat4::rotate(rotate[0], {rotate[1], rotate[2], rotate[3]}) * Mat4::translate(translate);
  obj.to_camera = to_world * world_to_camera;
  Mat4 to_world_end = to_world;
  if (o.contains("motion")) {
    const std::size_t object_base = r.base;
    const json& m = o["motion"];
    r.base = loc.key("motion", r.base);
    if (!m.is_object()) {
      r.fail("motion", "\"motion\" must be an object with \"translate\", \"rotate\" or \"scale\"");
    } else {
      r.known(m, {"translate", "rotate", "scale"}, "motion");
      Vec3 move{0, 0, 0};
      std::array<float, 4> spin{0, 0, 1, 0};
      float grow = 1;
      r.vec3(m, "translate", &move);
      r.numbers(m, "rotate", &spin);
      r.number(m, "scale", &grow, 1e-3f, 1e3f);
      to_world_end = Mat4::scale(scale * grow) * Mat4::rotate(rotate[0], {rotate[1], rotate[2], rotate[3]}) *
                     Mat4::rotate(spin[0], {spin[1], spin[2], spin[3]}) * Mat4::translate(translate + move);
    }
    r.base = object_base;
  }
  obj.to_camera_end = to_world_end * world_to_camera_end;
  obj.moving = obj.to_camera_end.m != obj.to_camera.m;
  r.number(o, "shading_rate", &obj.shading_rate, 1.0f / 64, 256);
  r.vec3(o, "Cs", &obj.cs);
  r.vec3(o, "Os", &obj.os);
  obj.transparent = obj.os.x < 1 || obj.os.y < 1 || obj.os.z < 1;
  if (o.contains("transparent")) {
    if (!o["transparent"].is_boolean()) r.fail("transparent", "\"transparent\" must be true or false");
    else obj.transparent = o["transparent"].get<bool>();
  }
  if (o.contains("cull")) {
    const json& c = o["cull"];
    if (c == "back") obj.cull = Cull::Back;
    else if (c != "none") r.fail("cull", "\"cull\" must be \"none\" or \"back\"");
  }
  // A file the object names, relative to the scene.
  auto file = [&](const char* key, const char* what, std::string* out) {
    if (!o.contains(key)) return;
    if (!o[key].is_string()) {
      r.fail(key, fmt::format("\"{}\" must be the path of {}", key, what));
      return;
    }
    fs::path p = o[key].get<std::string>();
    if (p.is_relative()) p = dir / p;
    *out = p.lexically_normal().string();
  };
  file("shader", "an RSL shader", &obj.shader);
  file("lights", "a light setup (.lights.json)", &obj.lights);
  return obj;
}

std::optional<Scene> load_scene(const std::string& path, lang::Diagnostics* diagnostics) {
  lang::Diagnostics own;
  lang::Diagnostics& d = diagnostics ? *diagnostics : own;
  const std::optional<lang::FileId> file = d.sources().load(path, nullptr);
  if (!file) {
    d.error("file-not-found", lang::file_span(d.sources().add(path, "")), "cannot read the scene file");
    return std::nullopt;
  }
  const Locator loc(d, *file);
  json j;
  try {
    j = json::parse(loc.text());
  } catch (const json::exception& e) {
    d.report(lang::json_diagnostic("scene", d.sources(), *file, e));
    return std::nullopt;
  }
  Reader r{loc};
  if (!j.is_object()) {
    r.fail("", "a scene must be a JSON object with an \"objects\" array");
    return std::nullopt;
  }
  Scene s;
  s.path = fs::absolute(path).string();
  const fs::path dir = fs::absolute(path).parent_path();
  r.known(j, {"camera", "size", "background", "sort_transparent", "textures", "objects", "light", "lights", "ray_depth"}, "scene");
  Mat4 world_to_camera, world_to_camera_end;
  if (j.contains("camera")) read_camera(r, j["camera"], s, &world_to_camera, &world_to_camera_end);
  std::array<float, 2> size{static_cast<float>(s.width), static_cast<float>(s.height)};
  if (r.numbers(j, "size", &size)) {
    if (size[0] < 1 || size[1] < 1 || size[0] > 16384 || size[1] > 16384 || size[0] != std::floor(size[0]) || size[1] != std::floor(size[1]))
      r.fail("size", "\"size\" must be two whole numbers from 1 to 16384");
    else {  // only then: 5e122 is a float's infinity, and no int (scene fuzzer, UBSan)
      s.width = static_cast<int>(size[0]);
      s.height = static_cast<int>(size[1]);
    }
  }
  r.numbers(j, "background", &s.background);
  if (j.contains("sort_transparent")) {
    if (!j["sort_transparent"].is_boolean()) r.fail("sort_transparent", "\"sort_transparent\" must be true or false");
    else s.sort_transparent = j["sort_transparent"].get<bool>();
  }
  if (j.contains("textures")) {
    const json& t = j["textures"];
    if (!t.is_object()) r.fail("textures", "\"textures\" must map texture names to PNG files");
    else
      for (auto it = t.begin(); it != t.end(); ++it) {
        if (!it.value().is_string()) {
          r.fail(it.key(), fmt::format("texture \"{}\" must name a PNG file", it.key()));
          continue;
        }
        fs::path p = it.value().get<std::string>();
        if (p.is_relative()) p = dir / p;
        s.textures[it.key()] = p.lexically_normal().string();
      }
  }
  if (!j.contains("objects") || !j["objects"].is_array() || j["objects"].empty()) {
    r.fail("objects", "a scene needs a non-empty \"objects\" array");
    return std::nullopt;
  }
  const std::vector<std::size_t> starts = loc.elements("objects");
  for (std::size_t i = 0; i < j["objects"].size(); ++i) {
    const json& o = j["objects"][i];
    r.base = i < starts.size() ? starts[i] : loc.key("objects", 0);
    if (!o.is_object()) {
      r.fail("", fmt::format("object {} must be a JSON object", i + 1));
      continue;
    }
    if (auto obj = read_object(r, o, i, dir, world_to_camera, world_to_camera_end)) s.objects.push_back(std::move(*obj));
  }
  r.base = 0;
  if (j.contains("light")) {
    const json& l = j["light"];
    if (!l.is_object()) {
      r.fail("light", "\"light\" must be an object with \"from\" and \"color\"");
    } else {
      r.base = loc.key("light", 0);
      r.known(l, {"from", "color"}, "light");
      Vec3 from{0, 0, 0};
      r.vec3(l, "from", &from);
      r.vec3(l, "color", &s.light.color);
      s.light.from = world_to_camera.point(from);
      r.base = 0;
    }
  }
  if (j.contains("lights")) {
    if (!j["lights"].is_array()) r.fail("lights", "\"lights\" must be an array of lights: {\"shader\": \"light.sl\", \"params\": {...}}");
    else s.has_lights = !j["lights"].empty();
  }
  s.world_to_camera = world_to_camera;
  if (j.contains("ray_depth")) {
    const json& d = j["ray_depth"];
    if (!d.is_number_integer() || d.get<int>() < 1 || d.get<int>() > 64) r.fail("ray_depth", "\"ray_depth\" must be a whole number from 1 to 64");
    else s.ray_depth = d.get<int>();
  }
  if (!r.ok) return std::nullopt;
  return s;
}

bool Scene::blurred() const {
  if (aperture > 0) return true;
  if (shutter[1] <= shutter[0]) return false;
  for (const SceneObject& o : objects)
    if (o.moving) return true;
  return false;
}

std::string deps_dir() { return paths::data_dirs().deps; }

}  // namespace passlab::sim
