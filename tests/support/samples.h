// SPDX-License-Identifier: GPL-3.0-or-later
// Test helpers: where the samples are, and a compact way to compile one.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/driver/program.h"

namespace passlab::test {

inline std::string sample_path(const std::string& rel) { return std::string(PASSLAB_SAMPLES_DIR) + "/" + rel; }

// Every surface shader under samples/shaders, sorted by name.
inline std::vector<std::string> sample_surfaces() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(sample_path("shaders")))
    if (e.path().extension() == ".sl") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::unique_ptr<driver::Program> compile_sample(const std::string& name, bool optimize = true) {
  driver::ProgramOptions o;
  o.optimize = optimize;
  o.verify = true;
  return driver::compile_file(sample_path("shaders/" + name + ".sl"), o);
}

}  // namespace passlab::test
