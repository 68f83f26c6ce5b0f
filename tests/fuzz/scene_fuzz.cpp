// libFuzzer target: arbitrary bytes as a scene file (.json) through load_scene: the JSON reader,
// every key's checks, the procedural meshes, relative and "$deps/" paths (which name no file here).
// A crash, sanitizer report or hang is a bug; a problem with its line and column is the expected
// outcome, and a scene that loads must say so without problems.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/sim/scene.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  passlab::sim::Problems problems;
  const auto scene = passlab::sim::load_scene(passlab::fuzz::write_input(data, size, "scene.json"), &problems);
  if (!scene && problems.empty()) std::abort();  // refused without saying why
  for (const passlab::sim::Problem& p : problems)
    if (p.message.empty()) std::abort();
  return 0;
}
