// SPDX-License-Identifier: GPL-3.0-or-later
// The run-time search for Passlab's data: see data_dir.h.
#include "core/paths/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef PASSLAB_BUILD_RESOURCES_DIR
#define PASSLAB_BUILD_RESOURCES_DIR "resources"
#endif
#ifndef PASSLAB_BUILD_SAMPLES_DIR
#define PASSLAB_BUILD_SAMPLES_DIR "samples"
#endif
#ifndef PASSLAB_BUILD_DEPS_DIR
#define PASSLAB_BUILD_DEPS_DIR "build/_deps"
#endif

namespace passlab::paths {

namespace fs = std::filesystem;

namespace {

DataDirs installed_layout(const fs::path& root, const char* origin) {
  return {root.string(), (root / "samples").string(), (root / "deps").string(), origin};
}

}  // namespace

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

DataDirs data_dirs() {
  if (const char* env = std::getenv("PASSLAB_DATA_DIR"); env && *env) return installed_layout(env, "PASSLAB_DATA_DIR");
  if (const std::string exe = executable_dir(); !exe.empty()) {
    std::error_code ec;
    const fs::path root = fs::path(exe).parent_path() / "share" / "passlab";
    if (fs::is_directory(root / "targets", ec)) return installed_layout(root.lexically_normal(), "install");
  }
  return {PASSLAB_BUILD_RESOURCES_DIR, PASSLAB_BUILD_SAMPLES_DIR, PASSLAB_BUILD_DEPS_DIR, "build tree"};
}

}  // namespace passlab::paths
