// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: arbitrary bytes as a scene file (.json) through load_scene: the JSON reader,
// every key's checks, the procedural meshes, the samples' shaders, textures and "$deps/" meshes.
// A crash, sanitizer report or hang is a bug; a problem with its line and column is the expected
// outcome, and a scene that loads must say so without problems.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include "core/sim/scene.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  // The scene sits where the samples' scenes do, beside the samples' folders, so that their
  // relative paths (../shaders/wood.sl, ../textures/grain.png) name real files.
  static const bool linked = [] {
    namespace fs = std::filesystem;
    const fs::path root = passlab::fuzz::scratch_dir();
    fs::create_directories(root / "scenes");
    for (const auto& e : fs::directory_iterator(PASSLAB_SAMPLES_DIR))
      if (e.is_directory() && e.path().filename() != "scenes") fs::create_directory_symlink(e.path(), root / e.path().filename());
    return true;
  }();
  (void)linked;
  passlab::lang::Diagnostics problems;
  const auto scene = passlab::sim::load_scene(passlab::fuzz::write_input(data, size, "scenes/scene.json"), &problems);
  if (!scene && !problems.has_errors()) std::abort();  // refused without saying why
  for (const passlab::lang::Diagnostic& d : problems.items())
    if (d.message.empty()) std::abort();
  (void)problems.text();  // every diagnostic formats, its place inside its file
  return 0;
}
