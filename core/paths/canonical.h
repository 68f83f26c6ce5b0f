// SPDX-License-Identifier: GPL-3.0-or-later
// One spelling per file: what tells whether two paths name the same file.
#pragma once

#include <filesystem>
#include <string>

namespace passlab::paths {

// `path` made absolute with symbolic links, "." and ".." resolved (as far as the file system
// allows; the path itself need not exist), or `path` unchanged when that fails.
inline std::string canonical(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

}  // namespace passlab::paths
