// SPDX-License-Identifier: GPL-3.0-or-later
// Writing a file so that no reader sees half of it: the bytes go to a temporary beside the file,
// which is then renamed over it. A failure leaves the old file as it was and no temporary behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace passlab::paths {

// Writes `bytes` to `path`; false on failure, with the reason in `*error` if given
// ("cannot write 'out/pass01.fp': No such file or directory").
bool write_atomically(const std::filesystem::path& path, std::string_view bytes, std::string* error = nullptr);

}  // namespace passlab::paths
