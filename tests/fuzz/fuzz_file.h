// SPDX-License-Identifier: GPL-3.0-or-later
// The readers Passlab hands user files to take paths, not bytes: a fuzz input is written to a file
// of the right extension in this process's own temporary folder (libFuzzer runs one input at a
// time per process), read there, and overwritten by the next input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace passlab::fuzz {

inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "passlab-fuzz-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) std::abort();
    return std::filesystem::path(pattern);
  }();
  return dir;
}

// Writes the input as `name` (e.g. "input.obj") in the scratch folder; returns its path.
inline std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::filesystem::path p = scratch_dir() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) std::abort();
  return p.string();
}

}  // namespace passlab::fuzz
