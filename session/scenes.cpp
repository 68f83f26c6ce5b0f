// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/scenes.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/paths/canonical.h"

namespace passlab::session {

namespace fs = std::filesystem;

std::optional<sim::Scene> cached_scene(const std::string& path, lang::Diagnostics* problems) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<fs::file_time_type, std::shared_ptr<const sim::Scene>>> cache;
  std::error_code ec;
  const fs::file_time_type stamp = fs::last_write_time(path, ec);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(path);
    if (!ec && it != cache.end() && it->second.first == stamp) return *it->second.second;
  }
  std::optional<sim::Scene> s = sim::load_scene(path, problems);
  if (!s) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex);
  if (!ec) cache[path] = {stamp, std::make_shared<const sim::Scene>(*s)};
  return s;
}

std::string rpu_scene_for(const std::string& shader_path) {
  if (shader_path.empty()) return "";
  const std::string want = paths::canonical(shader_path);
  const fs::path dir = fs::path(shader_path).parent_path().parent_path() / "scenes";
  std::error_code ec;
  std::vector<fs::path> scenes;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") scenes.push_back(it->path());
  std::sort(scenes.begin(), scenes.end());
  // Prefer the RPU's own scenes (rpu_*.json), then the one named after the shader, then any other.
  const std::string stem = fs::path(shader_path).stem().string();
  std::stable_partition(scenes.begin(), scenes.end(), [&](const fs::path& p) { return p.stem().string() == stem; });
  std::stable_partition(scenes.begin(), scenes.end(), [](const fs::path& p) { return p.filename().string().rfind("rpu_", 0) == 0; });
  for (const fs::path& p : scenes) {
    std::optional<sim::Scene> s = cached_scene(p.string(), nullptr);
    if (!s) continue;
    for (const sim::SceneObject& o : s->objects)
      if (!o.shader.empty() && paths::canonical(o.shader) == want) return p.string();
  }
  return "";
}

sim::Scene default_scene_for(const std::string& shader_path) {
  namespace fs = std::filesystem;
  const fs::path shader(shader_path);
  const fs::path candidate = shader.parent_path().parent_path() / "scenes" / (shader.stem().string() + ".json");
  std::error_code ec;
  if (!shader_path.empty() && fs::is_regular_file(candidate, ec))
    if (auto s = sim::load_scene(candidate.string(), nullptr)) {
      for (auto& o : s->objects) o.shader.clear();  // shown with the shader being edited
      return *s;
    }
  sim::Scene s;
  s.background = {0.08f, 0.09f, 0.11f, 1};
  sim::SceneObject ball;
  ball.name = "sphere";
  ball.mesh = sim::make_sphere(1.6f, 96, 48);
  ball.mesh.complete();
  ball.to_camera = sim::Mat4::translate({0, 0, 7});
  ball.cull = sim::Cull::Back;
  s.objects.push_back(std::move(ball));
  return s;
}

}  // namespace passlab::session
