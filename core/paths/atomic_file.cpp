// SPDX-License-Identifier: GPL-3.0-or-later
// Atomic file writes through a temporary and a rename (POSIX rename replaces the target at once).
#include "core/paths/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace passlab::paths {

namespace {

struct Closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

bool fail(std::string* error, const std::filesystem::path& path, int err) {
  if (error) *error = "cannot write '" + path.string() + "': " + std::strerror(err);
  return false;
}

}  // namespace

bool write_atomically(const std::filesystem::path& path, std::string_view bytes, std::string* error) {
  std::filesystem::path temp = path;
  temp += ".tmp";
  std::unique_ptr<std::FILE, Closer> file(std::fopen(temp.c_str(), "wb"));
  if (!file) return fail(error, path, errno);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file.get()) == bytes.size();
  int err = errno;
  // fclose flushes, so a full disk may show only here.
  const bool closed = std::fclose(file.release()) == 0;
  if (written && !closed) err = errno;
  if (!written || !closed) {
    std::remove(temp.c_str());
    return fail(error, path, err != 0 ? err : EIO);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(temp.c_str());
    return fail(error, path, err);
  }
  return true;
}

}  // namespace passlab::paths
